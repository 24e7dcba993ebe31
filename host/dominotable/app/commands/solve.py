"""`dominotable solve castle-rock --row "1-6 0-6 ..." [--set 6|9|12] [--json]`.

Can this turn's captures clear the row, and what is the most they can take? `--row -` reads
one row per line from stdin and prints one JSON object per line. The --set flag and the
batch loop are shared with `check-capture`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from dominotable.rules.errors import DominoError, UnknownGame
from dominotable.rules.games.castle_rock.capture import analyse
from dominotable.rules.tiles import DominoSet, Tile

GAMES = ("castle-rock", "castle-rock-solitaire")


def add_set_flag(parser) -> None:
    parser.add_argument("--set", dest="top", default="6", metavar="6|9|12",
                        help="the domino set the tiles come from (default 6, double-six)")


LINE = 64 * 1024  # the longest line read: a double-twelve row is under 500 characters


def batch(answer: Callable[[str], dict]) -> int:
    """Answer each stdin line as one JSON line; a bad line gets {"error": ...}. Exit 2 if any was bad."""
    bad = False
    while line := sys.stdin.readline(LINE + 1):
        try:
            if len(line) > LINE:
                while (rest := sys.stdin.readline(LINE)) and not rest.endswith("\n"):
                    pass  # the rest of the line, read in pieces and dropped
                raise DominoError(f"a line longer than {LINE // 1024} KB is not a row")
            out = answer(line.rstrip("\n"))
        except DominoError as exc:
            out, bad = {"error": str(exc)}, True
        print(json.dumps(out), flush=True)
    return 2 if bad else 0


def dset_of(args) -> DominoSet:
    return DominoSet.named(args.top)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "solve", help="the best captures of a Castle Rock row",
        description="Exact answer for one turn's captures in a Castle Rock row: can the row be "
                    "cleared, the most tiles the captures can take, and an order of captures taking them.")
    parser.add_argument("game", metavar="GAME", help=f"one of: {', '.join(GAMES)}")
    parser.add_argument("--row", required=True, help='the row, e.g. "1-6 0-6 0-0"; - reads rows from stdin')
    add_set_flag(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def solve(row: list[Tile]) -> dict:
    analysis = analyse(row)
    plan = analysis.best()
    return {"clearable": analysis.clearable, "max_captured": plan.max_captured,
            "plan": [str(step) for step in plan.steps]}


def run(args) -> int:
    if args.game not in GAMES:
        raise UnknownGame(f"solve knows {' and '.join(GAMES)}, not {args.game!r}")
    dset = dset_of(args)
    if args.row.strip() == "-":
        return batch(lambda line: solve(dset.parse_many(line)))
    row = dset.parse_many(args.row)
    answer = solve(row)
    if args.json:
        print(json.dumps(answer))
        return 0
    left = len(row) - answer["max_captured"]
    print(f"row of {len(row)}: {' '.join(str(t) for t in row) or '(empty)'}")
    print(f"clearable: {'yes' if answer['clearable'] else 'no'}")
    print(f"most captured: {answer['max_captured']} of {len(row)}, leaving {left}")
    print(f"plan: {' '.join(answer['plan']) or '(no captures)'}")
    return 0
