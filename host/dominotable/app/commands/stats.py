"""`dominotable stats GAME --deals N --seed S [--strategy NAME] [--players P] [rule option flags]
[strategy flags] [--json]`: win rates over many seeded deals (see stats.py)."""

from __future__ import annotations

import json

from dominotable.app.gameargs import add_game_command, parse_game_args
from dominotable.app.progress import bar
from dominotable.games import catalog
from dominotable.sim import stats


def common(parser, d) -> None:
    parser.add_argument("--deals", type=int, default=d(1000), help="number of deals (default 1000)")
    parser.add_argument("--seed", type=int, default=d(0), help="deal i uses seed S+i (default 0)")
    parser.add_argument("--strategy", default=d("random"), help="the bot every seat uses (default random)")
    parser.add_argument("--players", type=int, default=d(None), help="number of players (default: the game's)")
    parser.add_argument("--json", action="store_true", default=d(False), help="print one JSON object")


def strategy_flags(parser, cls) -> None:
    flags = stats.strategy_flags(catalog.spec(cls).strategies)
    group = parser.add_argument_group("strategies", f"for --strategy: {', '.join(sorted(catalog.spec(cls).strategies))}"
                                      + ("; their flags:" if flags else ""))
    for name, text in flags.items():
        group.add_argument(f"--{name.replace('_', '-')}", dest=f"flag_{name}", action="store_true", help=text)


def register(subparsers) -> None:
    add_game_command(subparsers, "stats", common, run, extra=strategy_flags,
                     help="win rates of a game over many seeded deals",
                     description="Play many seeded deals of GAME with bots; report win rates with 95% "
                                 "Wilson intervals. `dominotable stats GAME --help` lists that game's flags.")


def run(args) -> int:
    cls = parse_game_args(args, "dominotable stats")
    if cls is None:
        return 0
    params = {key[5:]: True for key, value in vars(args).items() if key.startswith("flag_") and value}
    report = stats.run(cls, deals=args.deals, seed=args.seed, strategy=args.strategy, players=args.players,
                       options=args.options, params=params, strategies=catalog.spec(cls).strategies, progress=bar)
    print(json.dumps(report) if args.json else stats.format_report(report))
    return 0
