"""Stub of MicroPython's `machine` for running firmware/main.py off the Pico.

Only the physical edge is faked: pin levels are remembered, and SPI transfers go to the
emulated reader array (`array`, set by the test) for whichever reader the 74HC154 decoder
pins currently select, as on the board. With no reader selected MISO reads 0x00 (pull-down).
The coil index pins set the array's coil index, as the cell boards' decoders do.
"""

from dominotray import pins

array = None
levels = {}          # GPIO -> 0/1 driven by the board
grounded = set()     # GPIOs a jumper ties to GND
unselected_xfers = 0  # SPI transfers made while no chip select was asserted
on_point = None  # set by a test: called at every use of the hardware
resets = 0


class Pin:
    OUT = 1
    IN = 0
    PULL_UP = 1

    def __init__(self, gpio, mode=-1, pull=None, value=None):
        _point()
        self.gpio = gpio
        self.pull = pull
        if value is not None:
            self._drive(value)

    def value(self, level=None):
        _point()
        if level is None:
            if self.gpio in grounded:
                return 0
            return levels.get(self.gpio, 1 if self.pull == Pin.PULL_UP else 0)
        self._drive(level)

    def _drive(self, level):
        levels[self.gpio] = 1 if level else 0
        if self.gpio in pins.COIL_SELECT and array is not None:
            array.select_coil(sum(levels.get(g, 0) << bit for bit, g in enumerate(pins.COIL_SELECT)))


def selected_reader():
    """The reader whose chip select the decoder pins assert, or None (strobe high)."""
    if levels.get(pins.STROBE, 1):
        return None
    code = 0
    for bit, gpio in enumerate(pins.LINE_ADDRESS):
        code |= levels.get(gpio, 0) << bit
    for bit, gpio in enumerate(pins.BANK_ADDRESS):
        code |= levels.get(gpio, 0) << (4 + bit)
    return _READER_AT.get(code)  # None for an unused decoder output


_READER_AT = {}
for _reader in range(pins.READERS):
    _READER_AT[pins.SELECT[_reader]] = _reader


class SPI:
    def __init__(self, spi_id, **settings):
        _point()
        self.settings = settings

    def write_readinto(self, tx, rx):
        global unselected_xfers
        _point()
        reader = selected_reader()
        if reader is None:
            unselected_xfers += 1
            for i in range(len(rx)):
                rx[i] = 0
            return
        data = array.xfer(reader, bytes(tx))
        for i in range(len(rx)):
            rx[i] = data[i]


class Stop(Exception):
    """Raised by WDT.feed once `WDT.limit` feeds have happened: ends main()'s loop in tests."""


class WatchdogReset(Exception):
    """The watchdog was not fed within its timeout: the board would have reset."""


class WDT:
    limit = None
    last = None
    clock_ms = None  # set by a test: the board's clock, to check every interval between feeds

    def __init__(self, timeout=5000):
        _point()
        self.timeout = timeout
        self.feeds = 0
        self.longest_ms = 0
        self.fed_at = WDT.clock_ms() if WDT.clock_ms else None
        WDT.last = self

    def feed(self):
        _point()
        if WDT.clock_ms is not None:
            now = WDT.clock_ms()
            self.longest_ms = max(self.longest_ms, now - self.fed_at)
            if now - self.fed_at > self.timeout:
                raise WatchdogReset("not fed for %d ms" % (now - self.fed_at))
            self.fed_at = now
        self.feeds += 1
        if WDT.limit is not None and self.feeds >= WDT.limit:
            raise Stop()


def _point():
    if on_point is not None:
        on_point()


def unique_id():
    _point()
    return b"\xe6\x61\x38\x52\x83\x2f\x1a\x24"


def reset():
    global resets
    resets += 1
