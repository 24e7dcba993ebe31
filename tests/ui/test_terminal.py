"""`dominotable run` in a terminal, as a person sees it: the page's address stays on a status
line under the OLED that every redraw keeps, and `o` with no browser to open says so and where
the page is."""

from __future__ import annotations

import codecs
import fcntl
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time

from dominotable.ui.oled import screens
from dominotable.ui.oled.display import BRAILLE_DOTS
from PIL import Image
from support.polling import until

REDRAW = re.compile(r"\x1b\[(\d+)F\x1b\[J")


class Terminal:
    """A program on a real pty of 80 x 24: what it wrote, and keys typed into it."""

    def __init__(self, argv, env):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.out = ""
        self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode  # a character may span two reads

    def read_until(self, text: str, timeout: float = 20.0, shown=None) -> None:
        """Read what the program writes until `text` is in it (or `shown(out)` holds)."""
        shown = shown or (lambda out: text in out)
        deadline = time.monotonic() + timeout
        while not shown(self.out):
            if time.monotonic() > deadline:
                raise AssertionError(f"never showed {text!r}; got {self.out[-3000:]!r}")
            if not select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))[0]:
                continue  # nothing written in time: the deadline above says what was awaited
            try:
                self.out += self._decode(os.read(self.master, 65536))
            except OSError:  # the program ended
                raise AssertionError(f"ended without {text!r}; got {self.out[-3000:]!r}") from None

    def keys_read(self, timeout: float = 20.0) -> None:
        """Wait until the program reads keys one by one (cbreak: no echo, no line editing)."""
        cbreak = until(lambda: not termios.tcgetattr(self.master)[3] & termios.ECHO, timeout)
        assert cbreak, "the keyboard never started"

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=15)
        finally:
            self.proc.kill()
            os.close(self.master)


def drawings(out: str) -> list[list[str]]:
    """Each drawing of the OLED (frame, status lines, key help) as its lines; checks that each
    redraw backs up over exactly the lines the drawing before it wrote, so nothing else was
    printed in between (it would be wiped, or shift the frame)."""
    out = out.replace("\r\n", "\n")
    parts = REDRAW.split(out)
    draws = [parts[0][parts[0].index("\u250c"):]] + parts[2::2]  # from the first frame's top border
    for drawn, backs_up in zip(draws, parts[1::2]):
        assert drawn.endswith("\n") and drawn.count("\n") == int(backs_up), drawn
    return [d.rstrip("\n").split("\n") for d in draws]


def last_frame(out: str) -> Image.Image | None:
    """The OLED's last drawing in Braille (2 x 4 pixels a character) back as pixels, once its
    frame is all written."""
    lines = REDRAW.split(out.replace("\r\n", "\n"))[-1].split("\n")
    top = next((i for i, line in enumerate(lines) if line.startswith("\u250c")), None)
    bottom = next((i for i, line in enumerate(lines) if line.startswith("\u2514")), None)
    if top is None or bottom is None:
        return None
    rows = [line[1:-1] for line in lines[top + 1:bottom]]
    image = Image.new("1", (2 * len(rows[0]), 4 * len(rows)))
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            for dx, dy, bit in BRAILLE_DOTS:
                image.putpixel((2 * x + dx, 4 * y + dy), bool((ord(char) - 0x2800) & bit))
    return image


def selected(frame: Image.Image | None) -> int | None:
    """The row of a menu frame drawn inverted (screens.menu: lit across the row), if any."""
    if frame is None or frame.size != screens.SIZE:
        return None
    row_h = screens.line_height(screens.MENU_TEXT) - 2
    for row in range((frame.height - screens.BAR - 1) // row_h):
        y0 = screens.BAR + 1 + row * row_h
        band = frame.crop((0, y0, 100, y0 + row_h))
        if sum(band.histogram()[1:]) > 0.6 * band.width * band.height:  # pixels lit
            return row
    return None


def test_the_page_address_stays_under_the_oled_and_o_without_a_browser_prints_it(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[tray]\nport = "none"\n[game]\nsettle_ms = 50\n')
    empty = tmp_path / "bin"  # no browser on the PATH: webbrowser finds nothing to register
    empty.mkdir()
    env = {key: value for key, value in os.environ.items() if key not in ("BROWSER", "WAYLAND_DISPLAY")}
    env.update(PATH=str(empty), DISPLAY=":99", TERM="xterm")
    term = Terminal([sys.executable, "-m", "dominotable", "run", "--config", str(config), "--db",
                     str(tmp_path / "t.sqlite3"), "--http", "127.0.0.1:0"], env)
    try:
        term.read_until("keys:")
        term.read_until("the table page: http://127.0.0.1:")
        url = re.search(r"the table page: (http://127\.0\.0\.1:\d+/)", term.out)[1]
        term.keys_read()
        for key, row in zip("ssw", (1, 2, 1)):  # the setup menu moves: a redraw each
            term.type(key)  # the next key only once this one's row is drawn: one step of the loop each
            term.read_until(f"row {row} selected", shown=lambda out, row=row: selected(last_frame(out)) == row)
        term.type("o")
        term.read_until(f"no web browser to open here: open {url} in one")
        term.type("q")
        assert term.close() == 0
    finally:
        term.proc.kill()
    shown = drawings(term.out)
    since = next(i for i, lines in enumerate(shown) if any(url in line for line in lines))
    assert len(shown) - since >= 4  # the address drawn, then three menu moves and the `o` note
    for lines in shown[since:]:
        assert lines[0].startswith("\u250c") and lines[-1].startswith("keys:")
        assert any(line.startswith(f"the table page: {url}") for line in lines)
    assert f"open {url} in one" in shown[-1][-2]  # the note, above the key help
    assert "Traceback" not in term.out


def test_o_opens_the_page_in_the_browser_webbrowser_finds_and_not_without_a_display(tmp_path):
    """The browser is whatever webbrowser finds (here an `xdg-open` on the PATH); with no display
    none is tried, since a text browser would take over the table's terminal."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    opened = tmp_path / "opened"
    (bin_ / "xdg-open").write_text(f'#!/bin/sh\necho "$1" > {opened}\nexec {shutil.which("sleep")} 1 >/dev/null 2>&1\n')
    (bin_ / "xdg-open").chmod(0o755)
    (bin_ / "lynx").write_text(f'#!/bin/sh\necho lynx > {opened}\n')
    (bin_ / "lynx").chmod(0o755)
    code = "from dominotable.app.commands.run import open_page; open_page('http://127.0.0.1:8080/', print)"
    env = {key: value for key, value in os.environ.items() if key not in ("BROWSER", "WAYLAND_DISPLAY", "DISPLAY")}
    env.update(PATH=str(bin_), TERM="xterm")  # only these two "browsers"

    said = subprocess.run([sys.executable, "-c", code], env={**env, "DISPLAY": ":99"}, capture_output=True,
                          text=True, timeout=30).stdout
    assert said == "opened the table page in a browser: http://127.0.0.1:8080/\n"
    assert until(lambda: opened.exists() and opened.read_text() == "http://127.0.0.1:8080/\n", 5)

    opened.unlink()
    said = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=30).stdout
    assert said == "no web browser to open here (no display): open http://127.0.0.1:8080/ in one\n"
    assert not opened.exists()  # lynx was not started


def test_a_warning_while_the_oled_is_drawn_in_a_terminal_is_said_under_it_not_between_drawings():
    """A log record printed between two drawings would be left behind by the next redraw (it backs
    up over the lines the drawing wrote) and shift the frame: it is a status line instead."""
    import io
    import logging

    from dominotable.app.commands.run import LogLine
    from dominotable.ui.oled import screens
    from dominotable.ui.oled.display import TerminalView

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Tty()
    view = TerminalView(out, "keys: q quit")
    view(screens.prompt("dominotable", "Starting: looking for the tray"))
    log = logging.getLogger("dominotable.test_terminal")
    handler = LogLine(view.say)
    log.addHandler(handler)
    log.propagate = False
    try:
        log.error("the tray's lights: TrayError: no answer\nTraceback (most recent call last): ...")
    finally:
        log.removeHandler(handler)
    shown = drawings(out.getvalue())
    assert len(shown) == 2 and shown[1][-1] == "keys: q quit"
    assert shown[1][-2] == "error: the tray's lights: TrayError: no answer"
