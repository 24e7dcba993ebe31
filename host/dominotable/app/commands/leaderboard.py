"""`dominotable leaderboard`: per game, players by their openskill rating (app/ratings.py), with
matches, wins and win rate: the same table as the scoreboard page's."""

from __future__ import annotations

from dominotable.app.commands.history import add_db_arguments, open_store, print_table
from dominotable.views.ratings import rate


def register(subparsers) -> None:
    parser = subparsers.add_parser("leaderboard", help="players per game by rating, with matches, wins and win rate",
                                   description="Rate the players of every finished match (demos left out) with "
                                               "openskill, per game: rating (mu - 3 sigma), matches, wins, win rate.")
    add_db_arguments(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    with open_store(args) as store:
        boards = rate(store.matches())
    if not boards:
        print("no finished matches yet")
    for i, board in enumerate(boards):
        print(("\n" if i else "") + board.title)
        print_table(("player", "rating", "matches", "wins", "win%"),
                    [(p.name, f"{p.rating:.1f}", str(p.matches), str(p.wins), f"{100 * p.win_rate:.0f}")
                     for p in board.players])
    return 0
