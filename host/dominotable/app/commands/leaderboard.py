"""`dominotable leaderboard`: players by win rate over their finished matches."""

from __future__ import annotations

from dominotable.app.commands.history import add_db_arguments, open_store, print_table


def register(subparsers) -> None:
    parser = subparsers.add_parser("leaderboard", help="players ranked by win rate, with wins and points")
    add_db_arguments(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    with open_store(args) as store:
        rows = [(s.name, str(s.matches), str(s.wins), f"{100 * s.win_rate:.0f}", str(s.points))
                for s in store.leaderboard()]
    print_table(("player", "matches", "wins", "win%", "points"), rows)
    return 0
