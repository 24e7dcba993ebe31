"""Runs before main.py at every reset: Ctrl-C off first, so that a 0x03 byte from a host that
(re)connects while the board boots is data, never a KeyboardInterrupt into the REPL.
main.py switches it back on only when the maker asks for the REPL (see main.py)."""

import micropython

micropython.kbd_intr(-1)
