"""Speed of the exact Castle Rock capture analysis (host/dominotable/capture.py).

Full analysis = (a) can the row be cleared + (b) the most captures with a plan. Rows are random
orderings of whole sets (28, 55, 91 tiles); brute force (every order of captures) is timed on
random double-six rows of the lengths given (up to 22 by default: its states grow
exponentially, a whole 28-tile row takes seconds). Targets: 28 tiles < 0.5 ms and 91 tiles
< 5 ms median.

Run: python benchmarks/capture.py [--rows N] [--seed S] [--brute-lengths 10,12,14,28]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from dominotable.rules.games.castle_rock.capture import analyse, brute_force
from dominotable.rules.tiles import DominoSet


def full_analysis(row):
    analysis = analyse(row)
    return analysis.clearable, analysis.best().max_captured


def median_ms(fn, rows) -> float:
    times = []
    for row in rows:
        start = time.perf_counter()
        fn(row)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200, help="rows per size (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--brute-rows", type=int, default=20, help="rows per brute-force length (default 20)")
    parser.add_argument("--brute-lengths", default="10,12,14,18,22",
                        help="comma-separated row lengths for brute force (default 10,12,14,18,22)")
    args = parser.parse_args()
    rng = random.Random(args.seed)

    print("whole-set rows: exact analysis (a)+(b)")
    print(f"{'set':>14} {'tiles':>5} {'median ms':>10} {'clearable':>10} {'mean captured':>14}"
          f" {'in set order ms':>16}")
    for top in (6, 9, 12):
        dset = DominoSet(top)
        rows = [rng.sample(dset.tiles, len(dset)) for _ in range(args.rows)]
        ms = median_ms(full_analysis, rows)
        results = [full_analysis(row) for row in rows]
        cleared = sum(c for c, _ in results) / len(rows)
        mean = statistics.mean(m for _, m in results)
        # The set in its own order: nearly every interval clears, the densest case seen.
        ordered = median_ms(full_analysis, [list(dset.tiles)] * 21)
        print(f"{dset.name:>14} {len(dset):>5} {ms:>10.3f} {cleared:>10.1%} {mean:>14.1f} {ordered:>16.3f}")

    print("\nrandom double-six rows: exact analysis vs brute force")
    print(f"{'tiles':>5} {'exact ms':>9} {'brute ms':>9} {'ratio':>7}")
    d6 = DominoSet(6)
    for length in map(int, args.brute_lengths.split(",")):
        rows = [rng.sample(d6.tiles, length) for _ in range(args.brute_rows)]
        exact = median_ms(full_analysis, rows)
        brute = median_ms(brute_force, rows)
        print(f"{length:>5} {exact:>9.3f} {brute:>9.3f} {brute / exact:>6.0f}x")


if __name__ == "__main__":
    main()
