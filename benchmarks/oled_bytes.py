"""Bytes on the OLED's I2C bus per changed frame, over one whole demo match of each game.

Each game's demo match (`dominotable demo GAME`: bots, the virtual tray, the table judging and
committing every move) runs with its display on luma.oled's real `ssd1306` (or `--driver
sh1106`) class over a serial interface that records every transfer (tests/support/oled_chips.py), so
the bytes are what the Pi would put on the bus: per transfer its address byte, control byte
and payload. One JSON line per game:

  changes                frames that differed from the one before (each is sent)
  mean_bytes_per_change  bytes on the bus per sent frame
  full_frame_bytes       what luma's own `display()` sends for any frame (the whole RAM)
  ratio                  mean_bytes_per_change / full_frame_bytes (goal: each game's <= 0.25)
  host_ms_per_frame_p50  median CPU time of `Display.show` for a sent frame (packing and
                         writing included, the wire not)
  changed_bytes_per_change  RAM bytes that differ from the frame before: the floor no
                         addressing gets under (each write costs 7-10 bytes besides its data)

Before the writes were limited to what changed every frame was a full frame (ratio 1.0).
At 400 kHz a byte takes 9 clocks: 22.5 us.

Run: python benchmarks/oled_bytes.py [--driver ssd1306|sh1106] [--seed 0] [GAME ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the recorder is a test tool
from dominotable.app.config import Config, DisplayConfig, GameConfig, TrayConfig  # noqa: E402
from dominotable.app.demo import BOT_LONG_PRESS, demo_choice, play  # noqa: E402
from dominotable.app.hardware import open_hardware  # noqa: E402
from dominotable.app.runtime import Runtime  # noqa: E402
from dominotable.games import catalog  # noqa: E402
from dominotable.match.replay import replay  # noqa: E402
from dominotable.store.recovery import open_for_table  # noqa: E402
from dominotable.ui.oled import screens  # noqa: E402
from dominotable.ui.oled.display import Display  # noqa: E402
from dominotable.ui.oled.ram import pack  # noqa: E402
from support.oled_chips import RecordingSerial, bus_bytes  # noqa: E402
from targets import Targets  # noqa: E402

GOAL = 0.25  # each game's mean bytes per change, of a full frame
SETTLE_MS = 60  # the demo command's
SPEED = 30.0


class Timed(Display):
    """The display, timing each `show` that sends a frame and counting its bytes."""

    def __init__(self, device, serial: RecordingSerial):
        super().__init__(device)
        self.serial = serial
        serial.take()  # the driver's start-up (initialisation and a blank frame)
        self.ms: list[float] = []
        self.bytes: list[int] = []
        self.changed: list[int] = []
        self.ram_now = bytes(1024)

    def show(self, image) -> bool:
        start = time.process_time()
        sent = super().show(image)
        elapsed = time.process_time() - start
        if sent:
            self.ms.append(elapsed * 1000)
            self.bytes.append(bus_bytes(self.serial.take()))
            ram = b"".join(pack(self.device.preprocess(image.convert("1"))))
            self.changed.append(sum(a != b for a, b in zip(ram, self.ram_now)))
            self.ram_now = ram
        return sent


def device(driver: str, serial: RecordingSerial):
    from luma.oled.device import sh1106, ssd1306

    return {"ssd1306": ssd1306, "sh1106": sh1106}[driver](serial)


def full_frame_bytes(driver: str, frame) -> int:
    """What luma's own display() sends for a frame: every byte of the visible RAM."""
    serial = RecordingSerial()
    dev = device(driver, serial)
    serial.take()
    dev.display(frame)
    return bus_bytes(serial.take())


def match(game: str, driver: str, seed: int, db: Path) -> dict:
    cfg = Config(tray=TrayConfig(port="none"), display=DisplayConfig(terminal=False),
                 game=GameConfig(settle_ms=SETTLE_MS))
    hw = open_hardware(cfg, speed=SPEED, long_press=BOT_LONG_PRESS)
    hw.display.close()  # the emulated one open_hardware made: the recording driver instead
    serial = RecordingSerial()
    display = hw.display = Timed(device(driver, serial), serial)
    try:
        store, repairs = open_for_table(db, replay)
        with store:
            runtime = Runtime(hw, store, SETTLE_MS, seed=seed, choice=demo_choice(game), stop_when_over=True,
                              demo=True, repairs=repairs)
            play(runtime, seed=seed)
            last = screens.draw(runtime.screen())
    finally:
        hw.close()
    full = full_frame_bytes(driver, last)
    if not display.bytes:  # no frame was sent: nothing measured
        return {"game": game, "changes": 0, "full_frame_bytes": full, "ratio": None}
    mean = statistics.fmean(display.bytes)
    return {"game": game, "changes": len(display.bytes), "mean_bytes_per_change": round(mean, 1),
            "full_frame_bytes": full, "ratio": round(mean / full, 3),
            "host_ms_per_frame_p50": round(statistics.median(display.ms), 3),
            "changed_bytes_per_change": round(statistics.fmean(display.changed), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="GAME", help="games to play (default: every game)")
    parser.add_argument("--driver", choices=("ssd1306", "sh1106"), default="ssd1306", help="the luma device class")
    parser.add_argument("--seed", type=int, default=0, help="the demo matches' seed (default 0)")
    args = parser.parse_args()
    targets = Targets()
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games or catalog.names():
            row = match(game, args.driver, args.seed, Path(tmp) / f"{game}.sqlite3")
            targets.check(game, row["ratio"], lambda ratio: ratio <= GOAL)
            print(json.dumps(row | {"goal_met": targets.met[game]}), flush=True)
    unmet = [game for game, met in targets.met.items() if not met]
    print(f"every game's ratio <= {GOAL} ({args.driver}): {'met' if not unmet else 'NOT met by ' + ', '.join(unmet)}",
          file=sys.stderr)
    targets.done()


if __name__ == "__main__":
    main()
