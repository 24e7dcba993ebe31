"""The button presses every front end sends: the OLED's buttons, the keyboard, the web page."""

from enum import StrEnum


class Press(StrEnum):
    UP = "up"  # when pressed
    DOWN = "down"  # when pressed
    SELECT = "select"  # when released after a short press
    LONG_SELECT = "long-select"  # once select has been held for the long-press time
