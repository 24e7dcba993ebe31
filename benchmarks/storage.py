"""Cost of committing a move (SQLite, WAL, synchronous=FULL) and of resuming a match.

`append_move` is on the path from a settled play to the screen (a move is committed before
it is shown), so its median and p99 matter; each includes an fsync, so they measure the
disk as much as the code: run it on the Pi's SD card for the real figure. Resume replays
a whole recorded Castle Rock match through the engine.

Run: python benchmarks/storage.py [--moves 300] [--db PATH]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from dominotable.games import catalog
from dominotable.match.replay import replay
from dominotable.sim.bots.shared import play_out, random_bot
from dominotable.store.storage import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--db", help="database file (default: a temporary one)")
    args = parser.parse_args()

    cls = catalog.engine("castle-rock")
    game = play_out(cls(players=4, seed=1), [random_bot(random.Random(1))])
    moves = [str(m) for m in game.moves][: args.moves]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.db or Path(tmp) / "bench.db")
        with Store(path) as store:
            match_id = store.start_match(cls(players=4, seed=1), ["A", "B", "C", "D"])
            times = []
            for ply, notation in enumerate(moves, 1):
                start = time.perf_counter()
                store.append_move(match_id, ply, notation)
                times.append(time.perf_counter() - start)
            start = time.perf_counter()
            replay(store.match(match_id))
            resume = time.perf_counter() - start
    times.sort()
    print(f"append_move x{len(times)}: median {statistics.median(times) * 1000:.2f} ms, "
          f"p99 {times[int(len(times) * 0.99) - 1] * 1000:.2f} ms")
    print(f"resume a {len(moves)}-move Castle Rock match: {resume * 1000:.1f} ms")


if __name__ == "__main__":
    main()
