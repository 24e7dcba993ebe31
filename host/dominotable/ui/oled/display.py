"""The OLED: a luma device that is sent a frame only when the frame changed.

A full 128x64 frame costs about 23 ms on a 400 kHz I2C bus, so `Display.show` compares
each frame with the last one sent and skips the bus when nothing changed. On the Pi the
device is luma.oled's `ssd1306` or `sh1106` on `luma.core.interface.serial.i2c`, with bus
and address from the configuration. The emulated display is luma.core's `dummy` device;
its frames also go to a folder of PNGs, to the terminal (Unicode half blocks, two pixel
rows per character) and, with the `emulator` extra installed and `window = true`, to a
pygame window through luma.emulator.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from luma.core.device import dummy
from PIL import Image

from dominotable.rules.errors import DominoError
from dominotable.settings import setting

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
        self.device.display(image if self.device.mode == "1" else image.convert(self.device.mode))
        self._last = pixels
        self.sent += 1
        for sink in self.sinks:
            sink(image)
        return True

    def close(self) -> None:
        self.device.cleanup()


def open_display(cfg: DisplayConfig, bus=None, terminal: TextIO | None = None) -> Display:
    """The configured display. `bus` replaces the smbus2 I2C bus (tests record on it);
    `terminal` is where the emulated display draws (default stdout if `cfg.terminal`)."""
    if cfg.driver == "emulated":
        return emulated(cfg, terminal)
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


def emulated(cfg: DisplayConfig, terminal: TextIO | None = None) -> Display:
    device = dummy(width=128, height=64, rotate=cfg.rotate, mode="1")
    sinks: list[Sink] = []
    if cfg.frames:
        sinks.append(FrameWriter(Path(cfg.frames)))
    if terminal is not None or cfg.terminal:
        sinks.append(TerminalView(terminal or sys.stdout))
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
        folder.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def __call__(self, image: Image.Image) -> None:
        self.count += 1
        image.save(self.folder / f"frame-{self.count:06d}.png")


def to_text(image: Image.Image) -> list[str]:
    """The frame as text: each character is two pixel rows (upper, lower half block), framed."""
    image = image.convert("1")
    w, h = image.size
    px = image.load()
    glyph = {(False, False): " ", (True, False): "\u2580", (False, True): "\u2584", (True, True): "\u2588"}
    lines = ["\u250c" + "\u2500" * w + "\u2510"]
    for y in range(0, h, 2):
        row = "".join(glyph[bool(px[x, y]), y + 1 < h and bool(px[x, y + 1])] for x in range(w))
        lines.append("\u2502" + row + "\u2502")
    lines.append("\u2514" + "\u2500" * w + "\u2518")
    return lines


class TerminalView:
    """Draws frames in a terminal: in place on a tty, one after another otherwise (logs, pipes)."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.drawn = 0  # lines of the previous frame, to move back over on a tty

    def __call__(self, image: Image.Image) -> None:
        lines = to_text(image)
        out = []
        if self.drawn and self.stream.isatty():
            out.append(f"\x1b[{self.drawn}F")
        out.append("\n".join(lines) + "\n")
        self.stream.write("".join(out))
        self.stream.flush()
        self.drawn = len(lines)
