"""`dominotable tournament GAME --bots search,greedy --matches N --seed S [--players P]
[rule option flags] [--json]`: bots against each other, on every core (see sim/tournament.py)."""

from __future__ import annotations

import json

from dominotable.app.gameargs import add_game_command, parse_game_args
from dominotable.app.progress import bar
from dominotable.games import catalog
from dominotable.rules.errors import BadOption
from dominotable.sim import tournament


def common(parser, d) -> None:
    parser.add_argument("--bots", default=d("search,greedy"),
                        help="strategies, comma separated; seats alternate between them (default search,greedy)")
    parser.add_argument("--matches", type=int, default=d(100), help="number of matches (default 100)")
    parser.add_argument("--seed", type=int, default=d(0), help="match i deals with seed S + i // (number of bots)")
    parser.add_argument("--players", type=int, default=d(None), help="number of players (default: the game's)")
    parser.add_argument("--processes", type=int, default=d(None), help="worker processes (default: one per core)")
    parser.add_argument("--json", action="store_true", default=d(False), help="print one JSON object")


def register(subparsers) -> None:
    add_game_command(subparsers, "tournament", common, run, help="bots against each other over many matches",
                     description="Play seeded matches of GAME between bots, seats alternating between them; "
                                 "report each bot's wins with 95% Wilson intervals.")


def run(args) -> int:
    cls = parse_game_args(args, "dominotable tournament")
    if cls is None:
        return 0
    if args.processes is not None and args.processes < 1:
        raise BadOption(f"--processes must be at least 1, not {args.processes}")
    report = tournament.run(cls, [name.strip() for name in args.bots.split(",")], args.matches, args.seed,
                            catalog.spec(cls).strategies, players=args.players, options=args.options,
                            processes=args.processes, progress=bar)
    print(json.dumps(report) if args.json else tournament.format_report(report))
    return 0
