"""The chaos table at length (issue 17, item 6): the rules of tests/support/chaos_rules.py (the same the
hypothesis state machine in tests/sim/test_chaos.py uses) made by a seeded random driver, without
shrinking, on the real runtime over the virtual tray.

Prints one JSON line per game: {"game", "seed", "steps", every count of chaos_rules.COUNTS (--help
lists them, crashes to offered_refused), "wall_s", ...} and exits 1 if any count is not zero.
Without --seed the seed comes from the clock (printed in the line). --game all runs every game,
and Castle Rock and Broadway with bot seats, in --jobs processes at once. --details FILE appends
what each non-zero count was (JSON lines) as it is found, and every --every steps a line on
standard error says how far each game is and its counts so far: a long run that is stopped still
says what it found.

Run: python benchmarks/chaos.py --steps 20000 --game all [--seed S] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the chaos rules are a test tool
from support import chaos_rules  # noqa: E402


def one(setting: str, steps: int, seed: int, every: int, details: str | None) -> tuple[dict, bool]:
    """Run one setting: its JSON line, and whether anything was counted. Each detail is appended
    to `details` as it is found."""
    logging.disable(logging.CRITICAL)  # the table's own log lines: the counts and details say it
    start = time.monotonic()
    written = 0

    def progress(tally: chaos_rules.Tally) -> None:
        nonlocal written
        if details is not None and written < len(tally.details):
            with open(details, "a") as out:
                for count, step, what, before in tally.details[written:]:
                    out.write(json.dumps({"game": setting, "seed": seed, "count": count, "step": step,
                                          "what": what, "before": before}) + "\n")
            written = len(tally.details)
        if tally.steps % every == 0 or tally.steps == steps:
            found = ", ".join(f"{count} {n}" for count, n in tally.counts.items() if n) or "every count 0"
            print(f"chaos {setting}: step {tally.steps:,} of {steps:,}, {time.monotonic() - start:,.0f} s, "
                  f"{tally.matches} matches ended, {tally.moves:,} moves; {found}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="chaos-") as folder:
        tally = chaos_rules.run(setting, steps, seed, Path(folder), progress)
    line = {"game": setting, "seed": seed, **tally.result(), "wall_s": round(time.monotonic() - start, 1),
            "matches": tally.matches, "moves": tally.moves, "offered": tally.offered, "unsettled": tally.unsettled,
            "slowest_settle_s": round(tally.slowest, 1), "harness_errors": sum(d[0] == "harness" for d in tally.details)}
    return line, any(d[0] in chaos_rules.COUNTS for d in tally.details)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "),
                                     epilog=f"Counts, each 0 on a clean run: {', '.join(chaos_rules.COUNTS)}.")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=None, help="default: from the clock")
    parser.add_argument("--game", default="all", help=f"one of {', '.join(chaos_rules.SETTINGS)}, or all")
    parser.add_argument("--jobs", type=int, default=2, help="games run at once (processes)")
    parser.add_argument("--details", default=None, help="append the details of non-zero counts to this file")
    parser.add_argument("--every", type=int, default=500, help="steps between progress lines (standard error)")
    args = parser.parse_args()
    if args.game != "all" and args.game not in chaos_rules.SETTINGS:
        parser.exit(2, f"chaos.py: error: unknown game {args.game!r}; one of {', '.join(chaos_rules.SETTINGS)} or all\n")
    if args.steps < 1 or args.every < 1:
        parser.exit(2, "chaos.py: error: --steps and --every must be at least 1\n")
    seed = args.seed if args.seed is not None else time.time_ns() % 2**31
    games = list(chaos_rules.SETTINGS) if args.game == "all" else [args.game]
    failed = False
    with ProcessPoolExecutor(max_workers=max(1, min(args.jobs, len(games)))) as pool:
        futures = [pool.submit(one, game, args.steps, seed, args.every, args.details) for game in games]
        for future in futures:
            line, bad = future.result()
            print(json.dumps(line), flush=True)
            failed |= bad
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
