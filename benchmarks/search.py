"""Time per move of the `search` bot at its default budget (target: at most 200 ms here).

For each game, seeded matches of search against greedy (seats alternating); every search
decision with more than one legal move is timed in CPU time of this process (so other
load on the machine matters less). Prints the median, 95th percentile and maximum.

--tray bounds each match to the default tray with a rack for every seat but the first, as the
table does (Broadway's room, BW-11.6), to measure what judging on the tray costs.

Run: python benchmarks/search.py [GAME ...] [--matches 2] [--tray]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from dominotable.games import catalog
from dominotable.sim.bots.shared import play_out
from dominotable.sim.stats import percentile
from dominotable.tray.geometry import default
from targets import Targets

TARGET_MS = 200


def timed(choose, spent: list[float]):
    def move(game):
        many = len(list(game.legal_moves())) > 1
        start = time.process_time()
        chosen = choose(game)
        if many:
            spent.append(1000 * (time.process_time() - start))
        return chosen

    return move


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=[s.name for s in catalog.GAMES if "search" in s.strategies])
    parser.add_argument("--matches", type=int, default=2)
    parser.add_argument("--tray", action="store_true", help="matches bound to the tray, as at the table")
    args = parser.parse_args()
    targets = Targets()
    for name in args.games:
        spec = catalog.spec(name)
        spent: list[float] = []
        for i in range(args.matches):
            game = spec.engine(seed=i)
            if args.tray and spec.bounds is not None:
                racks = default().racks(spec.racks)
                cells = frozenset(c for rack in racks[1:game.players] for c in rack.cells)
                game = spec.engine(seed=i, options=spec.bounds(default(), cells))
            seats = [timed(spec.strategies["search"](random.Random(f"{i}:{k}")), spent) if (k + i) % 2 == 0
                     else spec.strategies["greedy"](random.Random(f"{i}:{k}")) for k in range(game.players)]
            play_out(game, seats)
        where = f"{name}{' on the tray' if args.tray else ''}"
        p95 = percentile(spent, 0.95)
        targets.check(where, p95, lambda ms: ms <= TARGET_MS)
        figures = (f"median {statistics.median(spent):.1f} ms, p95 {p95:.1f} ms, max {max(spent):.1f} ms" if spent
                   else "nothing timed")
        print(f"{where}: {len(spent)} search moves, {figures} (target {TARGET_MS} ms: {targets.said(where)})",
              flush=True)
    targets.done()


if __name__ == "__main__":
    main()
