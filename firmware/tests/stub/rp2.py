"""Stub of MicroPython's `rp2` for running firmware/main.py off the Pico."""

pressed = 0  # a test holds BOOTSEL by setting this to 1


def bootsel_button():
    return pressed
