"""OLED screens against reference PNGs, and what the real luma drivers put on the I2C bus.

The reference PNGs in tests/reference/ were written by running these tests with
DOMINOTABLE_WRITE_REFERENCES=1 and checked by eye; rerun that way after changing a screen
on purpose, look at the new PNGs, and commit them.
"""

import io
import os
import sys
from pathlib import Path

import pytest
from dominotable.ui.oled import screens
from dominotable.ui.oled.display import Display, DisplayConfig, DisplayError, open_display, to_braille, to_text
from luma.core.device import dummy
from PIL import Image, ImageChops

REFERENCE = Path(__file__).parent / "reference"
WRITE = os.environ.get("DOMINOTABLE_WRITE_REFERENCES") == "1"

GAMES = ["Castle Rock", "Castle Rock Solitaire", "Doubles in the Boneyard", "Broadway", "Up-Down-Stop"]

SCREENS = {
    "turn": lambda: screens.turn("Annabelle", "Ann 45  Bob 30  / 150"),
    "scores-3": lambda: screens.scores(["Ann", "Bob", "Cy"], [45, 130, 7], 150, current=1),
    "scores-6": lambda: screens.scores(["Ann", "Bob", "Cy", "Dee", "Eve", "Flo"], [45, 130, 7, 0, 55, 100], 150,
                                       current=4),
    "last-play": lambda: screens.last_play("Bob", "3-5", 10),
    "last-play-long": lambda: screens.last_play("Bob", "capture 2-4 5-5", 15),
    "last-play-none": lambda: screens.last_play("Bob", "capture 2-4 5-5", 0),
    "prompt-tile": lambda: screens.prompt("Fix the tray", "Put 2-4 back between 0-0 and 4-4"),
    "prompt-cell": lambda: screens.prompt("Broadway", "East plays tiles north–south: turn the tile in cell 37"),
    "prompt-long": lambda: screens.prompt("Illegal capture", "rule CR-5.2: 3-3 and 4-4 do not enclose a run "
                                          "of equal ends; put back 3-3 4-4 5-5 6-6 and capture again " * 2),
    "tray-lost-0": lambda: screens.tray_lost(0),
    "tray-lost-5": lambda: screens.tray_lost(5),
    "menu-top": lambda: screens.menu("Choose a game", GAMES, 0),
    "menu-scrolled": lambda: screens.menu("Choose a game", GAMES, 3),
    "menu-short": lambda: screens.menu("Turn", ["Pass", "Back"], 1),
    "number": lambda: screens.number("Players", 4, 2, 6),
    "number-low": lambda: screens.number("Players", 2, 2, 6),
    "name": lambda: screens.name_entry("Name for seat 2", "ANN", "B", 8),
    "name-ok": lambda: screens.name_entry("Name for seat 2", "ANNABEL", "OK", 8),
    "name-wide": lambda: screens.name_entry("Name for seat 2", "WWWWWWWW", "OK", 8),
    "confirm": lambda: screens.confirm("Take back 3-5?", False),
}


def same(a: Image.Image, b: Image.Image) -> bool:
    # compared as 8-bit: ImageChops.difference misreads some 1-bit images loaded from PNG
    return ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None


def on_dummy(image: Image.Image) -> Image.Image:
    display = Display(dummy(width=128, height=64, mode="1"))
    assert display.show(image)
    return display.device.image


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_screen_matches_its_reference(name):
    frame = on_dummy(SCREENS[name]())
    assert frame.size == (128, 64) and frame.mode == "1"
    path = REFERENCE / f"{name}.png"
    if WRITE:
        REFERENCE.mkdir(exist_ok=True)
        frame.save(path)
    assert same(frame, Image.open(path)), f"{name} differs from {path}"


def test_screens_draw_something_different_for_different_input():
    assert screens.tray_lost(0).tobytes() != screens.tray_lost(1).tobytes()
    assert screens.tray_lost(0).tobytes() == screens.tray_lost(8).tobytes()
    assert screens.menu("M", GAMES, 0).tobytes() != screens.menu("M", GAMES, 1).tobytes()
    assert screens.confirm("Q?", True).tobytes() != screens.confirm("Q?", False).tobytes()


def test_printable_folds_what_the_font_lacks():
    assert screens.printable("north–south → Zoë") == "north-south -> Zoe"
    assert screens.printable("3-5 \u2603") == "3-5 ?"


def test_wrap_keeps_every_line_inside_the_width():
    text = "put 2-4 back between 0-0 and 4-4 Supercalifragilisticexpialidocious"
    for size in (10, 14, 20):
        lines = screens.wrap(text, size, 124)
        assert all(screens.width(line, size) <= 124 for line in lines)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_long_prompt_is_cut_with_an_ellipsis_at_the_smallest_size():
    size, lines = screens.fit_wrapped("word " * 200, 124, 50, 20)
    assert size == 10 and lines[-1].endswith("...")
    assert len(lines) * screens.line_height(size) <= 50


# -- the real drivers on a recording I2C bus ---------------------------------------------------

class RecordingBus:
    """Stands in for smbus2.SMBus: the physical edge. Records every block write."""

    def __init__(self):
        self.writes = []

    def write_i2c_block_data(self, address, register, data):
        self.writes.append((address, register, list(data)))

    def take(self):
        writes, self.writes = self.writes, []
        return writes


def pages(image: Image.Image) -> list[int]:
    """SSD1306 GDDRAM order: 8 pages of 128 columns, bit b of a byte = row 8*page + b."""
    px = image.load()
    return [sum(1 << b for b in range(8) if px[x, 8 * page + b]) for page in range(8) for x in range(128)]


def test_ssd1306_frame_is_exact_bytes_and_an_unchanged_frame_sends_nothing():
    bus = RecordingBus()
    display = open_display(DisplayConfig(driver="ssd1306", address=0x3D), bus=bus)
    init = bus.take()
    commands = [data for address, register, data in init if register == 0x00]
    assert all(address == 0x3D for address, _, _ in init)  # the configured address
    assert commands == [
        # display off, clock 0x80, multiplex 64, offset 0, start line 0, charge pump on,
        # horizontal addressing, segment remap, COM scan down, COM pins 0x12, precharge,
        # VCOMH, resume from RAM, normal (not inverted)
        [0xAE, 0xD5, 0x80, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0x8D, 0x14, 0x20, 0x00, 0xA1, 0xC8, 0xDA, 0x12,
         0xD9, 0xF1, 0xDB, 0x40, 0xA4, 0xA6],
        [0x81, 0xCF],  # contrast
        [0x21, 0, 127, 0x22, 0, 7],  # a blank frame clears the RAM...
        [0xAF],  # ...then display on
    ]
    assert [byte for _, register, chunk in init if register == 0x40 for byte in chunk] == [0] * 1024
    frame = screens.prompt("Fix the tray", "Put 2-4 back between 0-0 and 4-4")

    assert display.show(frame)
    writes = bus.take()
    assert writes[0] == (0x3D, 0x00, [0x21, 0, 127, 0x22, 0, 7])  # column and page address windows
    data = writes[1:]
    assert all(address == 0x3D and register == 0x40 and len(chunk) == 32 for address, register, chunk in data)
    assert [byte for _, _, chunk in data for byte in chunk] == pages(frame)

    assert not display.show(frame.copy())
    assert bus.take() == []
    assert display.sent == 1

    assert display.show(screens.tray_lost(1))
    assert len(bus.take()) == 33


def test_ssd1306_rotated_half_a_turn_sends_the_frame_upside_down():
    bus = RecordingBus()
    display = open_display(DisplayConfig(driver="ssd1306", rotate=2), bus=bus)
    bus.take()
    frame = screens.turn("Ann")
    display.show(frame)
    data = [byte for _, register, chunk in bus.take() if register == 0x40 for byte in chunk]
    assert data == pages(frame.rotate(180))


def test_sh1106_sends_page_by_page_and_skips_unchanged_frames():
    bus = RecordingBus()
    display = open_display(DisplayConfig(driver="sh1106"), bus=bus)
    bus.take()
    frame = screens.menu("Choose a game", GAMES, 2)
    display.show(frame)
    writes = bus.take()
    commands = [w for w in writes if w[1] == 0x00]
    assert [c[2][0] for c in commands] == [0xB0 + page for page in range(8)]
    data = [byte for _, register, chunk in writes if register == 0x40 for byte in chunk]
    # the SH1106 has 132 columns; luma centres 128 of them, so its column offset is 2
    assert commands[0][2] == [0xB0, 0x02, 0x10]
    assert data == pages(frame)
    assert not display.show(frame)
    assert bus.take() == []


def test_missing_i2c_bus_is_a_display_error_naming_bus_and_address(monkeypatch):
    import smbus2

    def no_bus(port):
        raise FileNotFoundError(2, "No such file or directory", f"/dev/i2c-{port}")

    monkeypatch.setattr(smbus2, "SMBus", no_bus)
    with pytest.raises(DisplayError, match=r"ssd1306 on I2C bus 7 at 0x3C: .*/dev/i2c-7"):
        open_display(DisplayConfig(driver="ssd1306", i2c_port=7))


# -- the emulated display -----------------------------------------------------------------------

def test_emulated_display_writes_changed_frames_as_png_and_text(tmp_path):
    out = io.StringIO()
    display = open_display(DisplayConfig(frames=str(tmp_path / "frames")), terminal=out)
    first, second = screens.tray_lost(0), screens.tray_lost(1)
    for image in (first, first, second, second, first):
        display.show(image)
    files = sorted((tmp_path / "frames").iterdir())
    assert [f.name for f in files] == ["frame-000001.png", "frame-000002.png", "frame-000003.png"]
    for path, expected in zip(files, (first, second, first)):
        assert same(Image.open(path), expected)
    text = out.getvalue()
    assert text.count("\u250c") == 3  # three frames drawn, not five
    assert display.device.image.tobytes() == first.tobytes()


def test_terminal_text_has_two_pixel_rows_per_character():
    image = Image.new("1", (4, 4))
    image.putpixel((0, 0), 1)  # upper half only
    image.putpixel((1, 1), 1)  # lower half only
    image.putpixel((2, 2), 1)
    image.putpixel((2, 3), 1)  # both halves
    assert to_text(image) == ["┌────┐", "│▀▄  │", "│  █ │", "└────┘"]


def test_braille_text_has_two_by_four_pixels_per_character():
    image = Image.new("1", (4, 4))
    for xy in ((0, 0), (1, 3), (2, 1)):
        image.putpixel(xy, 1)
    # dots 1 (0,0) and 8 (1,3) in the first cell; dot 2 (0,1) in the second
    assert to_braille(image) == ["┌──┐", "│" + chr(0x2800 + 0x01 + 0x80) + chr(0x2800 + 0x02) + "│", "└──┘"]


def terminal(columns: int, lines: int):
    """A real pty of the given size: the stream the OLED draws on, and a reader of what it got."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    stream = os.fdopen(slave, "w", encoding="utf-8")
    os.set_blocking(master, False)

    def read() -> str:
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except BlockingIOError:
                return out.decode()
            out += chunk

    return stream, read, master


@pytest.mark.parametrize("columns, lines, glyphs", [(80, 24, "braille"), (140, 40, "half blocks")])
def test_terminal_frames_fit_the_terminal_and_redraw_in_place_under_the_key_help(columns, lines, glyphs):
    """At 80 x 24 the frame is drawn in Braille (66 x 18 with its border), at 130 x 35 or more
    in half blocks; the key-help line is part of every drawing, so a redraw backs up over
    exactly what the previous one drew and the frames never shift."""
    stream, read, master = terminal(columns, lines)
    try:
        display = open_display(DisplayConfig(), terminal=stream, footer="keys: q quit " + "x" * 200)
        display.show(screens.tray_lost(0))
        first = read().replace("\r\n", "\n")
        display.show(screens.tray_lost(1))
        second = read().replace("\r\n", "\n")
    finally:
        stream.close()
        os.close(master)
    drawn = first.rstrip("\n").split("\n")
    assert len(drawn) <= lines and all(len(line) <= columns for line in drawn)
    assert drawn[-1].startswith("keys: q quit") and len(drawn[-1]) == columns - 1  # cut to the width
    assert (chr(0x2800) in first) == (glyphs == "braille") and ("\u2580" in first) == (glyphs == "half blocks")
    assert second.startswith(f"\x1b[{len(drawn)}F\x1b[J")
    assert second[len(f"\x1b[{len(drawn)}F\x1b[J"):].rstrip("\n").split("\n")[-1] == drawn[-1]


def test_window_without_luma_emulator_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "luma.emulator.device", None)
    with pytest.raises(DisplayError, match=r"dominotable\[emulator\]"):
        open_display(DisplayConfig(window=True, terminal=False))


def test_window_through_luma_emulator_when_the_extra_is_installed(monkeypatch):
    pytest.importorskip("luma.emulator.device", reason="the optional `emulator` extra is not installed")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # no screen needed
    display = open_display(DisplayConfig(window=True, terminal=False))
    frame = screens.turn("Ann")
    assert display.show(frame)
    import pygame

    surface = pygame.display.get_surface()
    assert surface.get_size() == (512, 256)  # four screen pixels per OLED pixel
    for x in range(0, 128, 3):
        for y in range(0, 64, 3):
            assert (surface.get_at((4 * x + 1, 4 * y + 1))[0] > 127) == bool(frame.getpixel((x, y)))
    pygame.quit()
