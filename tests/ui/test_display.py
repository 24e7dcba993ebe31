"""OLED screens against reference PNGs, and what the real luma drivers put on the I2C bus: only
the changed bytes, and after any frames the controller's RAM (a model replaying every byte)
holds the last one.

The reference PNGs in tests/reference/ were written by running these tests with
DOMINOTABLE_WRITE_REFERENCES=1 and checked by eye; rerun that way after changing a screen
on purpose, look at the new PNGs, and commit them.
"""

import io
import os
import random
import sys
from pathlib import Path

import pytest
from dominotable.ui.oled import screens
from dominotable.ui.oled.display import Display, DisplayConfig, DisplayError, open_display, to_braille, to_text
from dominotable.ui.oled.ram import pack
from hypothesis import given, settings
from hypothesis import strategies as st
from luma.core.device import dummy
from luma.oled.device import sh1106, ssd1306
from PIL import Image, ImageChops, ImageDraw
from support.oled_chips import COMMAND, DATA, SH1106, SSD1306, RecordingSerial, bus_bytes

REFERENCE = Path(__file__).parent / "reference"
WRITE = os.environ.get("DOMINOTABLE_WRITE_REFERENCES") == "1"

LONG = "rule CR-5.2: 3-3 and 4-4 do not enclose a run of equal ends; put back 3-3 4-4 5-5 6-6 and capture again " * 2
GAMES = ["Castle Rock", "Castle Rock Solitaire", "Doubles in the Boneyard", "Broadway", "Up-Down-Stop"]

SCREENS = {
    "play-2": lambda: screens.play("Annabelle", [("Annabelle", 45), ("Bob", 30)], "hold select: end turn"),
    "play-3": lambda: screens.play("CAT", [("ANN", 5), ("BOB", 14), ("CAT", 33)], "BOB laid 6-4 +1"),
    "play-6": lambda: screens.play("FLO", list(zip(["ANN", "BOB", "CAT", "DEE", "EVE", "FLO"], [5, 14, 33, 0, 55, 100])),
                                   "last: EVE +12"),
    "play-solitaire": lambda: screens.play("ANN", [("ANN", 12)], "ANN drew 0-6", "tiles captured"),
    "play-warning": lambda: screens.play("West bot", [("ANN", 5), ("West bot", 14)],
                                         "reader r3c4 (cell 52) dead: play around it"),
    "scores-3": lambda: screens.scores(["Ann", "Bob", "Cy"], [45, 130, 7], "first to 150", current=1),
    "scores-6": lambda: screens.scores(["Ann", "Bob", "Cy", "Dee", "Eve", "Flo"], [45, 130, 7, 0, 55, 100],
                                       "first to 150 or 20 hands", current=4),
    "prompt-tile": lambda: screens.prompt("Fix the tray", "Put 2-4 back between 0-0 and 4-4"),
    "prompt-cell": lambda: screens.prompt("Broadway", "East plays tiles north–south: turn the tile in cell 37"),
    "prompt-long": lambda: screens.prompt("Illegal capture", LONG),
    "prompt-long-2": lambda: screens.prompt("Illegal capture", LONG, page=1),
    "follow": lambda: screens.follow("http://192.168.1.23:8080/scores"),
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


def test_a_long_prompt_is_paged_never_cut():
    """Issue 18: OLED prompts are paged, the page counter in the title bar; every word is on a page."""
    text = " ".join(f"word{i}" for i in range(120))
    size, pages = screens.banded(text, 128)
    assert size == screens.PROMPT_SMALLEST and len(pages) >= 3
    assert " ".join(" ".join(page) for page in pages) == text and "..." not in text.join(sum(pages, []))
    assert all(len(page) <= screens.BANDS for page in pages)
    assert screens.prompt_pages(text) == len(pages)
    shown = [screens.prompt("Fix the tray", text, page) for page in range(len(pages) + 1)]
    assert len({frame.tobytes() for frame in shown}) == len(pages)  # one frame per page, then round again
    assert shown[-1].tobytes() == shown[0].tobytes()
    assert screens.prompt_pages("Put 2-4 back between 0-0 and 4-4") == 1


# -- the real drivers on a recording I2C bus, and on a recording serial interface ---------------

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


def transfers(bus_writes):
    """The bus's block writes as the serial interface's calls: control byte 0x00 a command, 0x40 data."""
    return [(COMMAND if register == 0x00 else DATA, bytes(chunk)) for _, register, chunk in bus_writes]


def test_ssd1306_starts_as_luma_does_at_the_configured_address_and_skips_unchanged_frames():
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
    chip = SSD1306()
    chip.replay(transfers(init))
    frame = screens.prompt("Fix the tray", "Put 2-4 back between 0-0 and 4-4")

    assert display.show(frame)
    writes = bus.take()
    assert all(address == 0x3D and len(chunk) <= 32 for address, _, chunk in writes)
    assert sum(len(chunk) for _, register, chunk in writes if register == 0x40) < 1024  # the blank stays
    chip.replay(transfers(writes))
    assert same(chip.image(), frame)

    assert not display.show(frame.copy())
    assert bus.take() == []
    assert display.sent == 1


def test_frames_are_packed_in_the_controllers_page_order():
    noise = Image.frombytes("1", (128, 64), random.Random(1).randbytes(1024))
    for image in (screens.menu("Choose a game", GAMES, 2), noise):
        assert b"".join(pack(image)) == bytes(pages(image))


DRIVERS = {"ssd1306": (ssd1306, SSD1306), "sh1106": (sh1106, SH1106)}


def on_chip(driver: str, rotate: int = 0):
    """The real luma device on a recording serial interface, and a model of its controller that
    has seen its start-up."""
    cls, model = DRIVERS[driver]
    serial = RecordingSerial()
    display = Display(cls(serial, rotate=rotate))
    chip = model()
    chip.replay(serial.take())
    return display, serial, chip


def luma_sends(driver: str, frame: Image.Image):
    """What luma's own display() sends for a frame (the whole RAM), after its start-up."""
    serial = RecordingSerial()
    device = DRIVERS[driver][0](serial)
    start = serial.take()
    device.display(frame)
    return start, serial.take()


@pytest.mark.parametrize("driver", DRIVERS)
def test_one_changed_pixel_sends_a_handful_of_bytes(driver):
    display, serial, chip = on_chip(driver)
    frame = screens.menu("Choose a game", GAMES, 2)
    display.show(frame)
    chip.replay(serial.take())
    changed = frame.copy()
    changed.putpixel((77, 42), 1 - frame.getpixel((77, 42)))  # column 77, page 5

    assert display.show(changed)
    writes = serial.take()
    byte = bytes([pack(changed)[5][77]])
    if driver == "ssd1306":  # a one-column, one-page window, then its byte
        assert writes == [(COMMAND, bytes([0x21, 77, 77, 0x22, 5, 5])), (DATA, byte)]
        assert bus_bytes(writes) == 11
    else:  # page 5, column 77 + 2 = 0x4F in two nibbles (the panel starts at RAM column 2)
        assert writes == [(COMMAND, bytes([0xB5, 0x0F, 0x14])), (DATA, byte)]
        assert bus_bytes(writes) == 8
    chip.replay(writes)
    assert same(chip.image(), changed)


def test_changes_far_apart_go_in_separate_windows_and_a_block_in_one():
    """A window costs 10 bytes besides its data (two transfers, six command bytes): columns
    closer than that go in one window, and so do the pages of a block."""
    display, serial, _ = on_chip("ssd1306")
    blank = Image.new("1", (128, 64))
    display.show(blank)

    def sent(*pixels, box=None):
        frame = blank.copy()
        for xy in pixels:
            frame.putpixel(xy, 1)
        if box:
            ImageDraw.Draw(frame).rectangle(box, fill=1)
        display.show(frame)
        windows = [payload for kind, payload in serial.take() if kind == COMMAND]
        display.show(blank)
        serial.take()
        return windows

    assert sent((10, 42), (100, 42)) == [bytes([0x21, 10, 10, 0x22, 5, 5]), bytes([0x21, 100, 100, 0x22, 5, 5])]
    assert sent((10, 42), (19, 42)) == [bytes([0x21, 10, 19, 0x22, 5, 5])]  # 8 bytes between: cheaper sent
    assert sent((10, 42), (10, 20)) == [bytes([0x21, 10, 10, 0x22, 2, 5])]  # 4 bytes of data, not 2 windows
    assert sent((100, 42), (10, 20)) == [bytes([0x21, 10, 10, 0x22, 2, 2]), bytes([0x21, 100, 100, 0x22, 5, 5])]
    assert sent(box=(20, 8, 59, 31)) == [bytes([0x21, 20, 59, 0x22, 1, 3])]


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_frame_changing_every_byte_is_sent_whole_as_luma_sends_it(driver):
    display, serial, chip = on_chip(driver)
    noise = Image.frombytes("1", (128, 64), bytes(b | 0x01 for b in random.Random(2).randbytes(1024)))
    inverse = noise.point(lambda v: 255 - v)  # every page byte differs from the noise's
    display.show(noise)
    chip.replay(serial.take())

    assert display.show(inverse)
    writes = serial.take()
    assert writes == luma_sends(driver, inverse)[1]
    assert bus_bytes(writes) == {"ssd1306": 2 + 6 + 2 + 1024, "sh1106": 8 * (2 + 3 + 2 + 128)}[driver]
    chip.replay(writes)
    assert same(chip.image(), inverse)
    luma = DRIVERS[driver][1]()  # the model reads luma's own full frames as the frame, too
    for writes in luma_sends(driver, noise):
        luma.replay(writes)
    assert same(luma.image(), noise)


EDITS = st.one_of(
    st.tuples(st.just("screen"), st.integers(0, len(SCREENS) - 1)),
    st.tuples(st.just("box"), st.integers(0, 127), st.integers(0, 63), st.integers(1, 40), st.integers(1, 20)),
    st.tuples(st.just("pixel"), st.integers(0, 127), st.integers(0, 63)),
)


@settings(max_examples=12, deadline=None)
@given(driver=st.sampled_from(sorted(DRIVERS)), rotate=st.integers(0, 3),
       edits=st.lists(EDITS, min_size=1, max_size=10))
def test_after_any_partial_updates_the_controller_ram_holds_the_last_frame(driver, rotate, edits):
    """Every recorded byte replayed into a model of the controller's RAM (noise at power-on):
    after each frame, the panel's part of it is that frame, as the device is mounted."""
    display, serial, chip = on_chip(driver, rotate)
    frame = Image.new("1", (128, 64))
    names = sorted(SCREENS)
    for edit in edits:
        frame = frame.copy()
        if edit[0] == "screen":
            frame = SCREENS[names[edit[1]]]().convert("1")
        elif edit[0] == "box":
            _, x, y, w, h = edit
            ImageDraw.Draw(frame).rectangle((x, y, x + w, y + h), fill=1 - frame.getpixel((x, y)))
        else:
            frame.putpixel(edit[1:], 1 - frame.getpixel(edit[1:]))
        shown = frame.rotate(90, expand=True) if rotate % 2 else frame  # the device's size
        display.show(shown)
        chip.replay(serial.take())
        assert same(chip.image(), display.device.preprocess(shown))


def test_after_a_failed_transfer_the_next_frame_is_sent_whole():
    class Flaky(RecordingSerial):
        fail = False

        def data(self, data):
            if self.fail:
                self.fail = False
                raise OSError(121, "Remote I/O error")  # a loose wire: luma's i2c says device not found
            super().data(data)

    serial = Flaky()
    display = Display(ssd1306(serial))
    chip = SSD1306()
    chip.replay(serial.take())
    first, second = screens.tray_lost(0), screens.tray_lost(1)
    display.show(first)
    serial.fail = True
    with pytest.raises(OSError):
        display.show(second)
    assert display.show(second)  # tried again: the RAM may hold anything now
    writes = serial.take()
    assert writes[-2:] == luma_sends("ssd1306", second)[1]
    chip.replay(writes)
    assert same(chip.image(), second)


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
    frame = screens.play("Ann", [("Ann", 0)])
    assert display.show(frame)
    import pygame

    surface = pygame.display.get_surface()
    assert surface.get_size() == (512, 256)  # four screen pixels per OLED pixel
    for x in range(0, 128, 3):
        for y in range(0, 64, 3):
            assert (surface.get_at((4 * x + 1, 4 * y + 1))[0] > 127) == bool(frame.getpixel((x, y)))
    pygame.quit()


@pytest.mark.parametrize("url", ["http://192.168.1.23:8080/scores", "http://192.168.178.123:8080/scores"])
def test_the_follow_page_qr_code_reads_back_from_the_panel(url):
    """Issue 18: the scoreboard's address as a QR code on the OLED, drawn through the real ssd1306
    driver onto a model of its RAM, then read back by a decoder (zxing-cpp) as a phone would."""
    import segno
    import zxingcpp

    display, serial, chip = on_chip("ssd1306")
    assert display.show(screens.follow(url))
    chip.replay(serial.take())
    panel = chip.image().convert("L").resize((128 * 4, 64 * 4), Image.NEAREST)
    found = zxingcpp.read_barcodes(panel)
    assert [code.text for code in found] == [url]
    assert segno.make(url, error="l", micro=False).version <= 3  # 2 px a module fits 64 rows


def test_a_long_message_turns_its_pages_with_up_and_down_and_goes_with_select():
    from dominotable.ui import menu
    from dominotable.ui.press import Press

    message = menu.Message("Repaired", LONG)
    first = screens.render(message)
    message.handle(Press.DOWN)
    second = screens.render(message)
    assert first.tobytes() != second.tobytes() and not message.done
    assert second.tobytes() == screens.prompt("Repaired", LONG, 1).tobytes()
    message.handle(Press.UP)
    assert screens.render(message).tobytes() == first.tobytes()
    message.handle(Press.SELECT)
    assert message.done


def test_a_turn_too_long_for_the_play_page_is_said_in_brief_there_and_in_full_on_the_next_pages():
    """The play page keeps one line for the turn (its pixels stay put from turn to turn: few bytes
    on the bus); twenty places in words need a page of their own, turned to with down, never cut."""
    from dominotable.reading.instruction import Do, Instruction, Step
    from dominotable.ui.screen import Score, Screen, ScreenKind

    places = tuple(range(40))  # twenty places of two cells
    said = Instruction(0, "ANN", (Step(Do.LAY, cells=places), Step(Do.DONE)), instead=((Step(Do.PRESS, label="Pass"),),))
    words = "put a tile on " + ", ".join(f"r{k}c0-r{k}c1" for k in range(20)) + "; the turn ends once the table reads it"
    scores = (Score("ANN", 3, True), Score("BOB", 5))

    def drawn(page: int) -> bytes:
        return screens.draw(Screen(ScreenKind.PLAY, "ANN", words, turn="ANN", scores=scores, page=page,
                                   instruction=said)).tobytes()

    brief = screens.brief(said)
    assert brief.startswith("put a tile: 20 places") and screens.width(brief, 10) <= 128
    assert drawn(0) == screens.play("ANN", [("ANN", 3), ("BOB", 5)], brief).tobytes()
    pages = screens.prompt_pages(words)
    assert pages > 1  # the words in full take pages of their own, each after the play page
    for k in range(pages):
        assert drawn(1 + k) == screens.prompt("ANN to play", words, k).tobytes()
    assert drawn(1 + pages) == screens.scores(["ANN", "BOB"], [3, 5], current=0).tobytes()
    short = Instruction(0, "ANN", (Step(Do.PRESS, label="End turn"),))  # a turn that fits is said whole
    assert screens.draw(Screen(ScreenKind.PLAY, "ANN", "End turn", turn="ANN", scores=scores, instruction=short)
                        ).tobytes() == screens.play("ANN", [("ANN", 3), ("BOB", 5)], "End turn").tobytes()


def test_between_hands_the_table_is_a_card_on_the_play_pages_layout():
    """Issue 30, item 9: between the hands of Doubles the OLED went from the play page to a
    prompt and back, each a whole screen on the bus (0.273 of a full frame a change). Those still
    to show their tiles and the hand over are now cards on the play page's layout: who or "Hand
    over" in the bar, the scores' rows as the next turn draws them, the gist in a line, the words
    in full on the next page. A seat the table plays and a notice keep the prompt."""
    from dominotable.reading.instruction import Do, Instruction, Step
    from dominotable.ui.screen import Score, Screen, ScreenKind

    scores = (Score("ANN", 0), Score("BOB", 11, True), Score("CAT", 0))
    sides = [("ANN", 0), ("BOB", 11), ("CAT", 0)]
    note = "gather the tiles (21 left); then BOB leads game 2"
    words = f"ANN scored 0, BOB 11, CAT 0 (points); {note}"
    over = Instruction(None, "", (Step(Do.NOTE, label=note),), scored=(0, 11, 0))

    def drawn(said: Instruction, title: str, text: str, page: int = 0) -> Image.Image:
        return screens.draw(Screen(ScreenKind.PROMPT, title, text, scores=scores, page=page, instruction=said))

    card = drawn(over, "Hand over", words)
    assert card.tobytes() == screens.play("Hand over", sides, "gather the tiles (21 left)...", label="").tobytes()
    assert drawn(over, "Hand over", words, 1).tobytes() == screens.prompt("Hand over", words).tobytes()
    turn = screens.play("BOB", sides, "put a tile")
    assert pack(card)[2:6] == pack(turn)[2:6]  # the scores' rows: the next turn leaves them on the panel
    show = "show your tiles: lay those left on the tray, clear of the line; game 1 is over (rule DB-8.5)"
    named = Instruction(None, "ANN and CAT", (Step(Do.NOTE, label=show),))
    assert drawn(named, "ANN and CAT", show).tobytes() == screens.play("ANN and CAT", sides, "show your tiles...",
                                                                       label="").tobytes()
    bot = Instruction(1, "BOB", (Step(Do.TAKE, tiles=()),), table=True)
    for said, title, text in ((bot, "BOB", "take 2-2 off the tray"), (None, "Fix the tray", "put 2-4 back")):
        assert drawn(said, title, text).tobytes() == screens.prompt(title, text).tobytes()
