"""The table's peripherals opened from the configuration: tray link, tag registry, display, buttons
and the tray's lights, real or simulated.

With no tray configured or found, the tray is the virtual one (the firmware behind a pty) with
the virtual tag set, the display is the emulated OLED, and off a Pi the buttons are virtual,
pressed from the keyboard (`Keyboard`) or by a bot; on gpiozero's mock pins (`pin_factory =
"mock"`) the same presses drive the pins (`MockButtons`).
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from dataclasses import dataclass
from typing import TextIO

from dominotray import wire

from dominotable.app.config import Config
from dominotable.rules.tiles import DominoSet
from dominotable.tray.board import Board
from dominotable.tray.connect import Tray, open_tray
from dominotable.tray.geometry import Geometry, default
from dominotable.tray.tags import Registry
from dominotable.ui.controls import VirtualControls, open_controls
from dominotable.ui.lights import TrayLights
from dominotable.ui.oled import screens
from dominotable.ui.oled.display import Display, open_display
from dominotable.ui.press import Press

LONG_PRESS = 0.8


@dataclass
class Hardware:
    tray: Tray
    registry: Registry
    geometry: Geometry
    display: Display
    controls: object  # VirtualControls or ui.pins.PinControls
    events: queue.Queue  # tray link events and button events, in arrival order
    lights: TrayLights  # the cells' LEDs, following each screen shown

    @property
    def simulated(self) -> bool:
        return self.tray.virtual is not None

    def board(self, cells) -> Board | None:
        """The tray as `cells` (a link event's) show it; None while it has never been read."""
        return Board(cells, self.registry, self.geometry) if cells else None

    def greeted(self, hello: wire.Hello | None) -> None:
        """The tray's handshake succeeded with `hello`: its tags are read with the set that HELLO
        names from now on (a tray that failed its first handshake is known only now). The built-in
        virtual tray's set is the one it was made with."""
        if hello is not None and self.tray.virtual is None:
            self.registry = tag_set(hello)

    def buttons(self) -> VirtualControls | MockButtons | None:
        """Something that presses the buttons (`press(name)`) when they are not real ones."""
        if isinstance(self.controls, VirtualControls):
            return self.controls
        from gpiozero.pins.mock import MockFactory

        if isinstance(self.controls.factory, MockFactory):
            return MockButtons(self.controls)
        return None

    def say(self, line: str, about: str = "note") -> None:
        """A line for whoever watches the terminal: under the OLED drawn there, kept by every
        redraw in place of the last line `about` the same thing; else printed."""
        view = self.display.terminal()
        if view is not None:
            view.say(line, about)
        else:
            print(line, flush=True)

    def close(self) -> None:
        self.controls.close()
        self.tray.close()
        self.display.close()


def open_hardware(cfg: Config, *, terminal: TextIO | None = None, footer: str = "", long_press: float = LONG_PRESS,
                  **virtual_options) -> Hardware:
    """Everything the configuration names. `virtual_options` go to VirtualTray (speed, ...)
    when the tray is the virtual one; `terminal` is where the emulated OLED draws, with `footer`
    under each frame. A tray whose HELLO says it is virtual (`dominotable tray sim` in another
    terminal) is read with the virtual tag set, not the enrolled registry."""
    events: queue.Queue = queue.Queue()
    geometry = default()
    display = open_display(cfg.display, terminal=terminal, footer=footer)
    display.show(screens.prompt("dominotable", "Starting: looking for the tray"))  # at once, before the tray's handshake
    try:
        controls = open_controls(cfg.buttons, long_press=long_press)
        controls.events = events
        try:
            virtual_registry = Registry.virtual(DominoSet(12))  # every set a game may ask for
            tray = open_tray(cfg.tray.port, cfg.tray.serial or None, on_event=events.put, retry=True,
                             registry=virtual_registry, geometry=geometry, **virtual_options)
        except BaseException:
            controls.close()
            raise
    except BaseException:
        display.close()
        raise
    registry = virtual_registry if tray.virtual is not None else tag_set(tray.link.hello)
    return Hardware(tray, registry, geometry, display, controls, events, TrayLights(tray.link, cfg.lights))


def tag_set(hello: wire.Hello | None) -> Registry:
    """The tags a tray that says `hello` carries: a tray whose HELLO says it is virtual (`dominotable
    tray sim` in another terminal) the virtual set of any size, a real one (or one not heard from
    yet: its first handshake failed) the enrolled tags."""
    return Registry.any_virtual() if hello is not None and hello.virtual else Registry.load()


class MockButtons:
    """Presses on the mock pins of the three buttons: the same path as a finger on a real one."""

    def __init__(self, controls):
        self.controls = controls
        self._lock = threading.Lock()

    def press(self, name: str) -> None:
        """A short press of up, down or select; "long-select" holds select until the controls
        took it as held (past the long-press time, however late their hold thread runs)."""
        button = self.controls.buttons["select" if name == "long-select" else name]
        pin = button.pin
        with self._lock:
            pin.drive_low()
            time.sleep(button.hold_time if name == "long-select" else 0.005)
            given_up = time.monotonic() + 10  # controls that never take it (closed): released all the same
            while name == "long-select" and not self.controls.long_held and time.monotonic() < given_up:
                time.sleep(0.005)
            pin.drive_high()
            time.sleep(0.03)  # past the debounce time before the next press


KEYS = {
    "w": Press.UP, "k": Press.UP, "\x1b[A": Press.UP,
    "s": Press.DOWN, "j": Press.DOWN, "\x1b[B": Press.DOWN,
    " ": Press.SELECT, "\r": Press.SELECT, "\n": Press.SELECT,
    "m": Press.LONG_SELECT, "\t": Press.LONG_SELECT,
}
KEY_HELP = "keys: w/s up/down, Enter select, m menu, b bot move, : lay tiles (': help'), q quit"


class Keyboard:
    """Keys in a terminal press the buttons (KEYS), whatever the tray; `b` lets `bots` make one
    move on the virtual tray when there are bots (the tray built into `run`); `:` reads a line for
    `command` (a person's hands on the virtual tray: offtray.py), echoed as it is typed; `q` or
    Ctrl-C ends the run."""

    def __init__(self, buttons: VirtualControls | MockButtons, on_quit, bots=None, stream: TextIO = sys.stdin,
                 keys: dict | None = None, command=None, out: TextIO = sys.stdout):
        """`keys`: more keys and what they do (`o` opens the table page)."""
        self.buttons = buttons
        self.keys = keys or {}
        self.bots = bots
        self.command = command
        self.out = out
        self.line: str | None = None  # the command line being typed
        self.on_quit = on_quit
        self.stream = stream
        self._thread = threading.Thread(target=self._run, name="keyboard", daemon=True)
        self._saved = None

    def start(self) -> Keyboard:
        import termios
        import tty

        fd = self.stream.fileno()
        self._saved = termios.tcgetattr(fd)
        tty.setcbreak(fd)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._saved is not None:
            import termios

            termios.tcsetattr(self.stream.fileno(), termios.TCSADRAIN, self._saved)
            self._saved = None

    def _run(self) -> None:
        fd = self.stream.fileno()
        while True:
            try:
                data = os.read(fd, 64).decode(errors="replace")
            except OSError:
                return
            if not data:
                self.on_quit()
                return
            while data:  # several keys may arrive in one read
                key = data[:3] if data.startswith("\x1b[") else data[:1]
                data = data[len(key):]
                if self.line is not None:
                    self._typed(key)
                    continue
                if key == ":" and self.command is not None:
                    self.line = ""
                    self._echo(":")
                    continue
                if key in ("q", "Q", "\x03", "\x04"):
                    self.on_quit()
                    return
                if key == "b" and self.bots is not None:
                    self.bots.one_move()
                elif key in self.keys:
                    self.keys[key]()
                elif key in KEYS:
                    self.buttons.press(KEYS[key])

    def _typed(self, key: str) -> None:
        if key in ("\r", "\n"):
            line, self.line = self.line, None
            try:
                said = self.command(line)
            except ValueError as exc:  # TrayError and DominoError are ValueErrors
                said = f"error: {exc}"
            self._echo("\n" + (said + "\n" if said else ""))
        elif key == "\x1b":
            self.line = None
            self._echo(" (cancelled)\n")
        elif key in ("\x7f", "\x08"):
            if self.line:
                self.line = self.line[:-1]
                self._echo("\b \b")
        elif key.isprintable():
            self.line += key
            self._echo(key)

    def _echo(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()
