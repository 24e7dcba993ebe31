"""The wire's attacks (issue 17, "One tray frame ends or blinds the table") against a live
`dominotable run`: a tray behind a real pty (tests/support/scripted_tray.py) is the configured [tray]
port, `run` resumes an unfinished match on it (so the game has told the tray what to watch),
then the tray sends one frame that contradicts its HELLO.

Held means: `run` is still up, said "tray lost" with the reason, asked for a fresh HELLO and
is back. `ROWS` is a list of (attack, expected, function); each function returns what happened,
in the words of `expected` when it held.

Run: python benchmarks/attacks_wire.py   (exits 1 if any row did not hold)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the scripted tray and the test databases are test tools

from dominotray import wire  # noqa: E402
from support import damage  # noqa: E402
from support.scripted_tray import ScriptedTray, hello, snapshot  # noqa: E402

HELD = "run up; tray lost, said why; back from a fresh HELLO"
STARTUP = "run up; tray lost, said why; retried"
IGNORED = "run up; not lost; its LIGHTS sent again after a restart"


def until(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


class LiveRun:
    """`dominotable run` on its own folder (config, database, user dirs) with the scripted tray."""

    def __init__(self, folder: Path, tray: ScriptedTray):
        (folder / "config.toml").write_text(f'[tray]\nport = "{tray.path}"\n[display]\nterminal = false\n'
                                            f'[buttons]\npin_factory = "mock"\n')
        damage.build(folder / "table.sqlite3", 7)  # match 7 is unfinished: run resumes it
        env = dict(os.environ, XDG_CONFIG_HOME=str(folder / "config"), XDG_DATA_HOME=str(folder / "data"))
        self.err = open(folder / "stderr.txt", "w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dominotable", "run", "--config", str(folder / "config.toml"),
             "--db", str(folder / "table.sqlite3"), "--http", "off"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.err, env=env)

    def said(self) -> str:
        self.err.seek(0)
        return self.err.read()

    def lost_line(self) -> str | None:
        return next((line for line in self.said().splitlines() if "tray lost" in line
                     or "tray not back yet" in line), None)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.err.close()

    def verdict(self) -> str:
        code = self.process.poll()
        if code is not None:
            last = (self.said().strip().splitlines() or ["(nothing)"])[-1]
            return f"run exited {code}: {last}"
        return ""


def mid_game(frame) -> callable:
    """An attack: once the resumed match has sent its WATCH, the tray sends `frame()` (kind, body, seq)."""

    def attack() -> str:
        with tempfile.TemporaryDirectory() as folder, ScriptedTray(folder) as tray:
            run = LiveRun(Path(folder), tray)
            try:
                if not until(lambda: tray.asked(wire.WATCH) >= 1 or run.process.poll() is not None, 60):
                    return "run never resumed the match"
                if run.verdict():
                    return run.verdict()
                hellos = tray.asked(wire.GET_HELLO)
                kind, body, seq = frame()
                tray.send(kind, body, seq)
                back = until(lambda: tray.asked(wire.GET_HELLO) > hellos and tray.asked(wire.WATCH) >= 2
                             or run.process.poll() is not None, 10)
                time.sleep(0.5)  # long enough to fall over, if it were to
                return run.verdict() or (HELD if back and run.lost_line() else
                                         f"run up; {run.lost_line() or 'no tray lost said'}; "
                                         f"{'back' if back else 'no fresh HELLO'}")
            finally:
                run.stop()

    return attack


def at_startup() -> str:
    """The tray's first SNAPSHOT has another cell count than its HELLO."""
    with tempfile.TemporaryDirectory() as folder, ScriptedTray(folder) as tray:
        tray.cells = tray.cells[:150]
        run = LiveRun(Path(folder), tray)
        try:
            until(lambda: tray.asked(wire.GET_HELLO) >= 3 or run.process.poll() is not None, 60)
            return run.verdict() or (STARTUP if run.lost_line() else "run up; no tray lost said")
        finally:
            run.stop()


def stray_acks() -> str:
    """LIGHTS_ACKs for frames the host never sent (every seq, both results) and a malformed one: the
    host takes none of them for its own, stays connected, and its next LIGHTS is acknowledged."""
    with tempfile.TemporaryDirectory() as folder, ScriptedTray(folder) as tray:
        run = LiveRun(Path(folder), tray)
        try:
            if not until(lambda: tray.asked(wire.WATCH) >= 1 or run.process.poll() is not None, 60):
                return "run never resumed the match"
            for seq in range(256):
                tray.send(wire.LIGHTS_ACK, wire.encode_lights_ack(seq, seq % 2))
            tray.write(wire.frame(wire.LIGHTS_ACK, 7, b"\x07\x09"))  # an unknown result: dropped
            asked, hellos = tray.asked(wire.LIGHTS), tray.asked(wire.GET_HELLO)
            tray.send(wire.HELLO, tray.hello, seq=0)  # a restart said: the host sends its lights again
            again = until(lambda: tray.asked(wire.LIGHTS) > asked or run.process.poll() is not None, 10)
            time.sleep(0.5)  # long enough to fall over, if it were to
            lost = run.lost_line() or tray.asked(wire.GET_HELLO) > hellos
            return run.verdict() or (IGNORED if again and not lost else
                                     f"run up; {run.lost_line() or 'not lost'}; {'LIGHTS again' if again else 'no LIGHTS'}")
        finally:
            run.stop()


ROWS = [
    ("SNAPSHOT of 150 cells at the handshake (HELLO: 194)", STARTUP, at_startup),
    ("mid-game HELLO with 0 cells", HELD, mid_game(lambda: (wire.HELLO, hello(cells=0), 0))),
    ("short SNAPSHOT (150 of 194 cells)", HELD, mid_game(lambda: (wire.SNAPSHOT, snapshot(150), None))),
    ("HELLO with protocol 9 mid-stream", HELD, mid_game(lambda: (wire.HELLO, hello(proto=9), 0))),
    ("SNAPSHOT of 250 cells against a HELLO of 194", HELD, mid_game(lambda: (wire.SNAPSHOT, snapshot(250), None))),
    ("CHANGES on cell 250 of 194", HELD,
     mid_game(lambda: (wire.CHANGES, wire.encode_changes([(250, wire.EMPTY, b"")]), None))),
    ("boot SNAPSHOT without its HELLO", HELD, mid_game(lambda: (wire.SNAPSHOT, snapshot(194, wire.BOOT), None))),
    ("LIGHTS_ACKs for frames never sent, and a malformed one", IGNORED, stray_acks),
]
