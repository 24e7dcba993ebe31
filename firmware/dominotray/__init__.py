"""Tray firmware for the RP2040 (MicroPython). The host's virtual tray runs the same modules."""
