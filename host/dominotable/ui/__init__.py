"""Front ends: the OLED, the buttons, the menus they drive."""
