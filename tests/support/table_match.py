"""A bot match at the simulated table, for the end-to-end tests: the virtual tray behind a real
pty, the emulated OLED (frames kept in memory), buttons on gpiozero's MockFactory, a real
SQLite file. Fast settings: a short settle time and the tray emulator ten times real time."""

from __future__ import annotations

import threading
from pathlib import Path

from dominotable.app.config import Config, GameConfig, TrayConfig
from dominotable.app.demo import demo_choice, play
from dominotable.app.hardware import open_hardware
from dominotable.app.runtime import Runtime
from dominotable.store.storage import Store
from dominotable.ui.buttons import ButtonsConfig
from dominotable.ui.oled.display import DisplayConfig

from support.polling import WAIT, until

SETTLE_MS = 20
SPEED = 20.0
LONG_PRESS = 0.5  # the bots hold select this long for the menu

SHORT = {  # short matches: one hand, low targets
    "castle-rock": {"hands": 1},
    "castle-rock-solitaire": {},
    "doubles-in-the-boneyard": {"target": 50},
    "broadway": {"hands": 1},
    "up-down-stop": {},
}


class Frames:
    """A display sink that keeps every frame the OLED was sent."""

    def __init__(self):
        self.images = []

    def __call__(self, image):
        self.images.append(image.copy())


def open_table(cfg: Config | None = None, speed: float = SPEED):
    cfg = cfg or Config(tray=TrayConfig(port="none"), display=DisplayConfig(terminal=False),
                        buttons=ButtonsConfig(pin_factory="mock"), game=GameConfig(settle_ms=SETTLE_MS))
    hw = open_hardware(cfg, speed=speed, long_press=LONG_PRESS)
    frames = Frames()
    hw.display.sinks.append(frames)
    return hw, frames


class ThreadedTable:
    """The whole simulated table run by the runtime in its own thread (which owns the database
    connection), for a test's hands on the virtual tray: the pty, the mock buttons, the emulated
    OLED (frames kept), a real SQLite file. `before_start(runtime)` runs once the runtime exists
    (a test's chance to serve the page)."""

    def __init__(self, db, choice, *, seed: int = 1, settle_ms: int = SETTLE_MS, before_start=None,
                 timeout: float = 15.0, **runtime_options):
        self.hw, self.frames = open_table()
        self.vtray = self.hw.tray.virtual
        self.db = db
        self.runtime: Runtime | None = None
        self.error: BaseException | None = None
        ready = threading.Event()

        def run():
            try:
                with Store(db) as store:
                    self.runtime = Runtime(self.hw, store, settle_ms, seed=seed, choice=choice, **runtime_options)
                    if before_start is not None:
                        before_start(self.runtime)
                    self.runtime.start()
                    ready.set()
                    self.runtime.run()
            except BaseException as exc:  # the test's waits name it
                self.error = exc
                ready.set()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.wait(timeout) and self.error is None, self.error

    @property
    def referee(self):
        return self.runtime.session.referee

    patience = WAIT  # seconds `reaches` waits unless told

    def reaches(self, predicate, what: str, timeout: float | None = None) -> None:
        """Wait until `predicate()` holds, asked under the runtime's lock after each of its steps;
        AssertionError naming `what` and what the table shows (or why its thread stopped)."""
        def held() -> bool:
            if self.error is not None:
                raise AssertionError(f"the table stopped while waiting for {what}") from self.error
            return bool(predicate())

        until(held, timeout or self.patience, what=what, shows=self._shows, condition=self.runtime.changed)

    def _shows(self) -> str:
        with self.runtime.lock:
            screen = self.runtime.screen()
        return f"{screen.kind} {screen.title!r} {screen.text!r}"

    def close(self):
        if self.runtime is not None:
            self.runtime.stop()
        self.thread.join(timeout=5)
        self.hw.close()


def bot_match(db: Path, game: str, seed: int = 0, players: int | None = None, timeout: float = 60.0,
              before=None):
    """Play a whole match (or resume the unfinished one in `db`) with bots; returns the
    runtime's final game, the stored record and the frames. `before(runtime)` runs once the
    table is up (a test's chance to start a fault)."""
    hw, frames = open_table()
    try:
        with Store(db) as store:
            runtime = Runtime(hw, store, SETTLE_MS, seed=seed, choice=demo_choice(game, players, SHORT[game]),
                              stop_when_over=True)
            if before is not None:
                before(runtime)
            play(runtime, seed=seed, timeout=timeout)
            record = store.match(runtime.match_id)
            return runtime.session.referee.game, record, frames
    finally:
        hw.close()
