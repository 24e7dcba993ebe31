"""Stub of MicroPython's `machine` for running firmware/main.py off the Pico.

Only the physical edge is faked: pin levels are remembered, and SPI transfers go to the
emulated reader array (`array`, set by the test) for whichever reader the 74HC154 decoder
pins currently select, as on the board. With no reader selected MISO reads 0x00 (pull-down).
"""

from dominotray import pins

array = None
levels = {}          # GPIO -> 0/1
unselected_xfers = 0  # SPI transfers made while no chip select was asserted
resets = 0


class Pin:
    OUT = 1
    IN = 0

    def __init__(self, gpio, mode=-1, value=None):
        self.gpio = gpio
        if value is not None:
            levels[gpio] = 1 if value else 0

    def value(self, level=None):
        if level is None:
            return levels.get(self.gpio, 0)
        levels[self.gpio] = 1 if level else 0


def selected_cell():
    """The cell whose chip select the decoder pins assert, or None (strobe high)."""
    if levels.get(pins.STROBE, 1):
        return None
    code = 0
    for bit, gpio in enumerate(pins.LINE_ADDRESS + pins.BANK_ADDRESS):
        code |= levels.get(gpio, 0) << bit
    return _CELL_AT.get(code)  # None for an unused decoder output


_CELL_AT = {}
for _cell in range(pins.CELLS):
    _CELL_AT[pins.SELECT[_cell]] = _cell


class SPI:
    def __init__(self, spi_id, **settings):
        self.settings = settings

    def write_readinto(self, tx, rx):
        global unselected_xfers
        cell = selected_cell()
        if cell is None:
            unselected_xfers += 1
            for i in range(len(rx)):
                rx[i] = 0
            return
        data = array.xfer(cell, bytes(tx))
        for i in range(len(rx)):
            rx[i] = data[i]


class Stop(Exception):
    """Raised by WDT.feed once `WDT.limit` feeds have happened: ends main()'s loop in tests."""


class WDT:
    limit = None
    last = None

    def __init__(self, timeout=5000):
        self.timeout = timeout
        self.feeds = 0
        WDT.last = self

    def feed(self):
        self.feeds += 1
        if WDT.limit is not None and self.feeds >= WDT.limit:
            raise Stop()


def unique_id():
    return b"\xe6\x61\x38\x52\x83\x2f\x1a\x24"


def reset():
    global resets
    resets += 1
