"""The OLED: a luma device that is sent a frame only when the frame changed.

A full 128x64 frame costs about 23 ms on a 400 kHz I2C bus, so `Display.show` compares
each frame with the last one sent and skips the bus when nothing changed, and sends only the
columns that changed when something did (ram.py). On the Pi the
device is luma.oled's `ssd1306` or `sh1106` on `luma.core.interface.serial.i2c`, with bus
and address from the configuration. The emulated display is luma.core's `dummy` device;
its frames also go to a folder of PNGs, to the terminal (Unicode half blocks, two pixel
rows per character, when the terminal has room for 130 x 35 characters; else Braille, two by
four pixels per character, 66 x 18, which fits 80 x 24) and, with the `emulator` extra installed and `window = true`, to a
pygame window through luma.emulator.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from luma.core.device import dummy
from PIL import Image

from dominotable.rules.errors import DominoError
from dominotable.settings import setting
from dominotable.ui.oled.ram import ram_of

Sink = Callable[[Image.Image], None]



@dataclass(frozen=True)
class DisplayConfig:
    driver: str = setting("emulated", lambda v: v in ("ssd1306", "sh1106", "emulated"),
                       "is not one of ssd1306, sh1106, emulated")
    i2c_port: int = setting(1, lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
                         "is not an I2C bus number")
    address: int = setting(0x3C, lambda v: isinstance(v, int) and not isinstance(v, bool) and 0x03 <= v <= 0x77,
                        "is not a 7-bit I2C address (0x03-0x77)")
    rotate: int = setting(0, lambda v: v in (0, 1, 2, 3) and not isinstance(v, bool),
                       "is not 0, 1, 2 or 3 quarter turns")
    frames: str = setting("", lambda v: isinstance(v, str), "is not a folder path", path=True)
    terminal: bool = setting(True, lambda v: isinstance(v, bool), "is not true or false")
    window: bool = setting(False, lambda v: isinstance(v, bool), "is not true or false")

class DisplayError(DominoError):
    """The configured display cannot be opened (no I2C bus, no permission, nothing at the address)."""


class Display:
    def __init__(self, device, sinks: list[Sink] | None = None):
        self.device = device
        self.sinks = sinks or []
        self.ram = ram_of(device)  # an SSD1306 or SH1106: only what changed goes over the bus
        self._last: bytes | None = None
        self.sent = 0  # frames that went to the device

    @property
    def size(self) -> tuple[int, int]:
        return self.device.size

    def show(self, image: Image.Image) -> bool:
        """Send `image` unless it equals the frame on the device; True when it was sent."""
        if image.mode != "1":
            image = image.convert("1")
        pixels = image.tobytes()
        if pixels == self._last:
            return False
        if self.ram is not None:
            self.ram.update(self.device.preprocess(image))
        else:
            self.device.display(image if self.device.mode == "1" else image.convert(self.device.mode))
        self._last = pixels
        self.sent += 1
        for sink in self.sinks:
            sink(image)
        return True

    def terminal(self) -> TerminalView | None:
        """The terminal the emulated OLED is drawn in, if any."""
        return next((sink for sink in self.sinks if isinstance(sink, TerminalView)), None)

    def close(self) -> None:
        self.device.cleanup()


def open_display(cfg: DisplayConfig, bus=None, terminal: TextIO | None = None, footer: str = "") -> Display:
    """The configured display. `bus` replaces the smbus2 I2C bus (tests record on it);
    `terminal` is where the emulated display draws (default stdout if `cfg.terminal`), with
    `footer` under each frame."""
    if cfg.driver == "emulated":
        return emulated(cfg, terminal, footer)
    from luma.core.error import DevicePermissionError
    from luma.core.error import Error as LumaError
    from luma.core.interface.serial import i2c
    from luma.oled.device import sh1106, ssd1306

    cls = {"ssd1306": ssd1306, "sh1106": sh1106}[cfg.driver]
    try:
        serial = i2c(bus=bus, port=cfg.i2c_port, address=cfg.address)
        device = cls(serial, rotate=cfg.rotate)
    except (LumaError, OSError) as exc:
        hint = " (is the user in the i2c group?)" if isinstance(exc, DevicePermissionError) else ""
        raise DisplayError(f"display {cfg.driver} on I2C bus {cfg.i2c_port} at 0x{cfg.address:02X}: {exc}{hint}") from None
    return Display(device)


def emulated(cfg: DisplayConfig, terminal: TextIO | None = None, footer: str = "") -> Display:
    device = dummy(width=128, height=64, rotate=cfg.rotate, mode="1")
    sinks: list[Sink] = []
    if cfg.frames:
        sinks.append(FrameWriter(Path(cfg.frames)))
    if terminal is not None or cfg.terminal:
        sinks.append(TerminalView(terminal or sys.stdout, footer))
    if cfg.window:
        sinks.append(window(cfg.rotate))
    return Display(device, sinks)


def window(rotate: int) -> Sink:
    """A pygame window from luma.emulator (the `emulator` extra)."""
    try:
        from luma.emulator.device import pygame
    except ImportError:
        raise DisplayError("display.window needs luma.emulator: pip install 'dominotable[emulator]'") from None
    device = pygame(width=128, height=64, rotate=rotate, mode="1", transform="identity", scale=4)
    return device.display


class FrameWriter:
    """Writes every frame as frame-000001.png, frame-000002.png, ... in a folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DisplayError(f"cannot write frames into {folder}: {exc.strerror}") from None
        if not os.access(folder, os.W_OK):
            raise DisplayError(f"cannot write frames into {folder}: it is not writable")
        self.count = 0

    def __call__(self, image: Image.Image) -> None:
        self.count += 1
        image.save(self.folder / f"frame-{self.count:06d}.png")


def _framed(rows: list[str], w: int) -> list[str]:
    return ["\u250c" + "\u2500" * w + "\u2510", *("\u2502" + row + "\u2502" for row in rows),
            "\u2514" + "\u2500" * w + "\u2518"]


def to_text(image: Image.Image) -> list[str]:
    """The frame as text: each character is two pixel rows (upper, lower half block), framed."""
    image = image.convert("1")
    w, h = image.size
    px = image.load()
    glyph = {(False, False): " ", (True, False): "\u2580", (False, True): "\u2584", (True, True): "\u2588"}
    return _framed(["".join(glyph[bool(px[x, y]), y + 1 < h and bool(px[x, y + 1])] for x in range(w))
                    for y in range(0, h, 2)], w)


BRAILLE_DOTS = ((0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (1, 0, 0x08), (1, 1, 0x10), (1, 2, 0x20),
                (0, 3, 0x40), (1, 3, 0x80))  # (dx, dy, bit) of the eight dots of a Braille cell


def to_braille(image: Image.Image) -> list[str]:
    """The frame as text at full resolution in a quarter of the room: each character is a 2 x 4
    pixel Braille cell (128 x 64 pixels -> 64 x 16 characters), framed."""
    image = image.convert("1")
    w, h = image.size
    px = image.load()

    def cell(x: int, y: int) -> str:
        bits = sum(bit for dx, dy, bit in BRAILLE_DOTS if x + dx < w and y + dy < h and px[x + dx, y + dy])
        return chr(0x2800 + bits)

    return _framed(["".join(cell(x, y) for x in range(0, w, 2)) for y in range(0, h, 4)], (w + 1) // 2)


class TerminalView:
    """Draws frames in a terminal: in place on a tty, one after another otherwise (logs, pipes).
    Half blocks when the terminal has room for them, else Braille (fits 80 x 24). Under every
    frame on a tty: the status lines (`say`: the page's address, what a key did) and `footer` (a
    key-help line), each cut to the terminal's width, so a redraw backs up over exactly what the
    last one drew and keeps them."""

    def __init__(self, stream: TextIO, footer: str = ""):
        self.stream = stream
        self.footer = footer
        self.status: dict[str, str] = {}  # what a line is about -> the line
        self.drawn = 0  # lines of the previous drawing, to move back over on a tty
        self._image: Image.Image | None = None
        self._lock = threading.Lock()  # frames come from the table, lines from the keyboard too

    def say(self, line: str, about: str = "note") -> None:
        """Show `line` under the frame from now on, in place of the last line `about` the same
        thing; on a tty at once, elsewhere printed once."""
        with self._lock:
            self.status[about] = " ".join(line.splitlines())  # one line: a redraw backs up over what it counted
            if not self.stream.isatty():
                self.stream.write(line + "\n")
                self.stream.flush()
            elif self._image is not None:
                self._draw(self._image)

    def __call__(self, image: Image.Image) -> None:
        with self._lock:
            self._image = image
            self._draw(image)

    def _room(self) -> tuple[int, int]:
        try:
            size = os.get_terminal_size(self.stream.fileno())
        except (OSError, ValueError, AttributeError):  # not a terminal (a pipe, a StringIO)
            return 80, 24
        return size.columns, size.lines

    def _draw(self, image: Image.Image) -> None:
        columns, lines_room = self._room()
        tty = self.stream.isatty()
        below = [*self.status.values()] if tty else []
        below += [self.footer] if self.footer else []
        w, h = image.size
        big = columns >= w + 2 and lines_room >= h // 2 + 2 + len(below)
        lines = (to_text(image) if big else to_braille(image)) + [line[:max(columns - 1, 0)] for line in below]
        out = []
        if self.drawn and tty:
            out.append(f"\x1b[{self.drawn}F\x1b[J")
        out.append("\n".join(lines) + "\n")
        self.stream.write("".join(out))
        self.stream.flush()
        self.drawn = len(lines)
