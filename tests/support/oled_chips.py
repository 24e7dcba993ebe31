"""The OLED at the physical edge: a luma serial interface that records what the driver sends,
and models of the SSD1306's and the SH1106's display RAM that replay it.

The recorder stands where luma's `i2c` interface stands (like luma's own `noop`): the real
luma device classes talk to it. Each `command()` or `data()` call is one I2C transfer on the
Pi (luma's i2c sends a call as one smbus2 message): the address byte, the control byte, then
the payload, which is what `bus_bytes` counts.

The models follow the datasheets' command tables: SSD1306 rev 1.1 section 10 (memory
addressing modes 20h, column window 21h, page window 22h, page-mode B0h-B7h and the column
nibbles 00h-1Fh) and SH1106 V2.3 (page addressing only: B0h-B7h, 00h-0Fh and 10h-1Fh set the
column, which steps by one after each data byte; 132 columns of RAM). A model's RAM starts as
noise, as a chip's does at power-on, so a byte nobody wrote shows up in its picture.
"""

from __future__ import annotations

import random

from PIL import Image

COMMAND, DATA = "command", "data"


class RecordingSerial:
    """A luma serial interface that keeps every transfer: (COMMAND or DATA, the bytes)."""

    def __init__(self):
        self.writes: list[tuple[str, bytes]] = []

    def command(self, *cmd):
        assert len(cmd) <= 32  # as luma's i2c insists
        self.writes.append((COMMAND, bytes(cmd)))

    def data(self, data):
        self.writes.append((DATA, bytes(data)))

    def cleanup(self):
        pass

    def take(self) -> list[tuple[str, bytes]]:
        writes, self.writes = self.writes, []
        return writes


def bus_bytes(writes) -> int:
    """Bytes on the I2C bus: per transfer its address byte, its control byte and the payload."""
    return sum(2 + len(payload) for _, payload in writes)


class Controller:
    """A display RAM of `pages` x `columns` bytes and the column/page pointers that data fills."""

    columns = 128
    pages = 8
    arguments: dict[int, int] = {}  # command byte -> how many argument bytes follow it

    def __init__(self):
        noise = random.Random(0)
        self.ram = [bytearray(noise.randbytes(self.columns)) for _ in range(self.pages)]
        self.column = self.page = 0

    def replay(self, writes) -> None:
        for kind, payload in writes:
            if kind == DATA:
                for byte in payload:
                    self.write(byte)
                continue
            i = 0
            while i < len(payload):
                op = payload[i]
                count = self.arguments.get(op, 0)
                args = payload[i + 1:i + 1 + count]
                assert len(args) == count, f"command {op:#04x} cut short: {payload.hex()}"
                self.execute(op, args)
                i += 1 + count

    def execute(self, op: int, args: bytes) -> None:
        if 0xB0 <= op <= 0xB7:
            self.page = op - 0xB0
        elif op <= 0x0F:
            self.column = (self.column & 0xF0) | op
        elif op <= 0x1F:
            self.column = (self.column & 0x0F) | (op - 0x10) << 4

    def write(self, byte: int) -> None:
        raise NotImplementedError

    def image(self, offset: int = 0, width: int = 128) -> Image.Image:
        """What the panel shows: `width` columns from `offset`, bit b of page p is row 8p + b."""
        out = Image.new("1", (width, 8 * self.pages))
        px = out.load()
        for page in range(self.pages):
            for x in range(width):
                byte = self.ram[page][offset + x]
                for bit in range(8):
                    px[x, 8 * page + bit] = (byte >> bit) & 1
        return out


class SSD1306(Controller):
    arguments = {0x20: 1, 0x21: 2, 0x22: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0x81: 1, 0x8D: 1, 0xA3: 2,
                 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}

    def __init__(self):
        super().__init__()
        self.mode = 2  # page addressing at reset
        self.window = (0, 127, 0, 7)  # column start, end, page start, end

    def execute(self, op: int, args: bytes) -> None:
        c0, c1, p0, p1 = self.window
        if op == 0x20:
            self.mode = args[0] & 0x03
        elif op == 0x21:  # sets the window and puts the pointer at its start
            self.window = (args[0] & 0x7F, args[1] & 0x7F, p0, p1)
            self.column = args[0] & 0x7F
        elif op == 0x22:
            self.window = (c0, c1, args[0] & 0x07, args[1] & 0x07)
            self.page = args[0] & 0x07
        elif self.mode == 2:  # B0h-B7h and the column nibbles work in page addressing only
            super().execute(op, args)

    def write(self, byte: int) -> None:
        self.ram[self.page][self.column] = byte
        c0, c1, p0, p1 = self.window
        if self.mode == 2:  # page: along the page, back to its start at the end
            self.column = self.column + 1 if self.column < c1 else c0
        elif self.mode == 0:  # horizontal: along the window's columns, then the next page
            if self.column < c1:
                self.column += 1
            else:
                self.column = c0
                self.page = self.page + 1 if self.page < p1 else p0
        else:  # vertical: down the window's pages, then the next column
            if self.page < p1:
                self.page += 1
            else:
                self.page = p0
                self.column = self.column + 1 if self.column < c1 else c0


class SH1106(Controller):
    columns = 132
    arguments = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}

    def write(self, byte: int) -> None:
        assert self.column < self.columns, f"data past the RAM's last column on page {self.page}"
        self.ram[self.page][self.column] = byte
        self.column += 1

    def image(self, offset: int = 2, width: int = 128) -> Image.Image:
        """A 128-pixel panel shows the middle of the 132 columns (2 to 129)."""
        return super().image(offset, width)
