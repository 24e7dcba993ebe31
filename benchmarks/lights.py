"""How soon, and how exactly, the tray's lights show what the table decided (issue 29). A person
plays Castle Rock against three bots at the simulated table (tests/support/table_seats.Person, doing for
the bots what the screen says; the pty, the tray firmware over emulated readers and LED chains, the
link, the runtime, SQLite), match after match, until enough instructions have been lit.

Each new set of lights is timed from the runtime's frame that decided it (the judge's decision, the
Screen built from it and handed to the lights: `TrayLights.show`) to the emulated chains' latch of
exactly those lights (the firmware's frame, every chain written, under its brightness cap and frame
rate, which run on the wall clock in the virtual tray).

Prints one JSON object: {"instructions": N, "mismatches": M, "p95_ms": ..., "p50_ms": ..., ...}
- instructions: the non-empty sets of lights decided (at least --instructions: 200);
- mismatches: a set of lights that stood at least 0.5 s (the next decision that long after) and was
  never latched exactly, or a table that ends showing other lights than its last decision;
- superseded: sets replaced by the next decision before they could latch (not mismatches);
- p50_ms, p95_ms: decision -> latch, over the instructions that latched (target p95 <= 50 ms).
Exits 1 when a target is missed, or has no measurement (said so).

Run: python benchmarks/lights.py --json [--instructions 200] [--seed 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the person at the table is a test tool
from dominotable.rules.games.castle_rock.engine import CastleRock  # noqa: E402
from dominotable.ui.menu import Choice  # noqa: E402
from dominotray import pins  # noqa: E402
from support.table_seats import Person, PtyTable  # noqa: E402
from targets import Targets  # noqa: E402

NAMES = ["ANN", "West bot", "North bot", "East bot"]
STOOD_S = 0.5  # a set of lights that stood this long must have latched


def capped(lit: dict) -> dict:
    return {cell: tuple(v * pins.LIGHT_BRIGHTNESS // 255 for v in rgb) for cell, rgb in lit.items()}


class Watch:
    """The decisions (time, lights as the chains would show them) and the chains' latches (time, lit)."""

    def __init__(self, table):
        self.decided: list[tuple[float, dict]] = []
        self.latched: list[tuple[float, dict]] = []
        self._lock = threading.Lock()
        lights, chains = table.hw.lights, table.vtray.chains
        show = lights.show

        def timed(screen):
            before = lights.shown
            now = time.monotonic()
            show(screen)
            if lights.shown != before:
                with self._lock:
                    self.decided.append((now, capped(lights.shown)))

        def latch():
            now = time.monotonic()
            with self._lock:
                self.latched.append((now, chains.lit()))

        lights.show = timed
        chains.on_latch = latch  # the firmware thread, under the virtual tray's lock

    def score(self) -> dict:
        with self._lock:
            decided, latched = list(self.decided), list(self.latched)
        delays, mismatches, superseded, instructions = [], 0, 0, 0
        for i, (t, want) in enumerate(decided):
            until = decided[i + 1][0] if i + 1 < len(decided) else float("inf")
            shown = next((at for at, lit in latched if at >= t and lit == want and at <= until + 0.05), None)
            instructions += bool(want)
            if shown is not None:
                if want:
                    delays.append((shown - t) * 1000)
            elif until - t >= STOOD_S:
                mismatches += 1
            else:
                superseded += 1
        if decided and latched and latched[-1][1] != decided[-1][1]:
            mismatches += 1
        return {"instructions": instructions, "mismatches": mismatches, "superseded": superseded, "delays": delays}


def percentiles(delays: list[float]) -> dict:
    delays = sorted(delays)
    if not delays:
        return {"p50_ms": None, "p95_ms": None, "max_ms": None}
    return {"p50_ms": round(statistics.median(delays), 1), "p95_ms": round(delays[int(0.95 * (len(delays) - 1))], 1),
            "max_ms": round(delays[-1], 1)}


def play(folder: Path, seed: int) -> dict:
    """One match; its score."""
    table = PtyTable(folder / f"table-{seed}.sqlite3",
                     Choice(CastleRock, CastleRock.Options(hands=1), 4, NAMES, dict.fromkeys((1, 2, 3), "")), seed=seed)
    watch = Watch(table)
    try:
        table.reaches(lambda: table.referee.tracker.judged is not None, "the first board")
        person = Person(table, 0, seed=seed)
        while person.step():
            pass
        deadline = time.monotonic() + 2  # the last decision's latch
        while time.monotonic() < deadline and watch.score()["mismatches"]:
            time.sleep(0.05)
    finally:
        table.close()
    return watch.score()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instructions", type=int, default=200, help="play matches until this many are lit")
    parser.add_argument("--seed", type=int, default=5, help="the first match's seed (the next ones count up)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (the default prints it too)")
    args = parser.parse_args()
    if args.instructions < 1:
        parser.exit(2, "lights.py: error: --instructions must be at least 1\n")
    start = time.monotonic()
    totals = {"instructions": 0, "mismatches": 0, "superseded": 0, "matches": 0}
    delays: list[float] = []
    seed = args.seed
    with tempfile.TemporaryDirectory(prefix="lights-") as folder:
        while totals["instructions"] < args.instructions:
            score = play(Path(folder), seed)
            for key in ("instructions", "mismatches", "superseded"):
                totals[key] += score[key]
            totals["matches"] += 1
            delays += score.pop("delays")
            print(f"match {totals['matches']} (seed {seed}): {json.dumps({**score, **percentiles(delays)})}",
                  file=sys.stderr, flush=True)
            seed += 1
    result = {**totals, **percentiles(delays), "latched": len(delays), "wall_s": round(time.monotonic() - start, 1),
              "load": [round(x, 2) for x in os.getloadavg()]}
    targets = Targets()
    targets.check("mismatches", result["mismatches"], lambda n: n == 0)
    targets.check("p95", result["p95_ms"], lambda ms: ms <= 50)
    print(json.dumps({**result, "targets_met": targets.met}), flush=True)
    targets.done()
    sys.exit(0 if all(targets.met.values()) else 1)


if __name__ == "__main__":
    main()
