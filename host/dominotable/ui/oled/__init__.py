"""The OLED: screens drawn as 128x64 images, and the display that sends them."""
