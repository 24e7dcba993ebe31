"""Playout speed of the rules engines with random bots, on one core.

For each game: seeded matches are played by `bots.random_bot` for about `--seconds` of CPU time
per run (process time, so other load on the machine matters less),
pushing each chosen move with `push(move, trusted=True)` (the move comes from legal_moves,
so the check is skipped) and, for comparison, with the full check. Prints the median over
`--runs` runs of moves per second and, for games that count hands (`hands_played()`),
hands per second. Target: 2,000 four-player Castle Rock hands per second (trusted).

Run: python benchmarks/playouts.py [GAME ...] [--runs 5] [--seconds 1] [--players P]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from dominotable.app import catalog
from dominotable.sim.bots.shared import random_bot

TARGETS = {"castle-rock": 2000}  # hands per second


def one_run(cls, players, seconds: float, trusted: bool, first_seed: int) -> tuple[float, float]:
    """(moves per second, hands per second) playing whole matches for about `seconds`."""
    moves = hands = 0
    seed = first_seed
    start = time.process_time()
    while time.process_time() - start < seconds:
        game = cls(players=players, seed=seed)
        bot = random_bot(random.Random(seed))
        while not game.is_over():
            game.push(bot(game), trusted=trusted)
            moves += 1
        hands += game.hands_played()
        seed += 1
    elapsed = time.process_time() - start
    return moves / elapsed, hands / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=["castle-rock"], help=f"of {', '.join(catalog.names())}")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--players", type=int, default=None, help="default: each game's default")
    args = parser.parse_args()
    for name in args.games:
        cls = catalog.engine(name)
        players = args.players or cls.default_players
        for trusted in (True, False):
            runs = [one_run(cls, players, args.seconds, trusted, 1000 * k) for k in range(args.runs)]
            moves = statistics.median(r[0] for r in runs)
            hands = statistics.median(r[1] for r in runs)
            line = (f"{name} ({players} players, push {'trusted' if trusted else 'checked'}): "
                    f"median {moves:,.0f} moves/s, {hands:,.0f} hands/s over {args.runs} runs")
            if trusted and name in TARGETS:
                line += f"; target {TARGETS[name]:,} hands/s, ratio {hands / TARGETS[name]:.2f}"
            print(line)


if __name__ == "__main__":
    main()
