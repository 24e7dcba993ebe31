"""`dominotable history`: the recorded matches, one match's moves, or a match exported as JSON."""

from __future__ import annotations

import json

from dominotable.app import config
from dominotable.app.commands.replay import match_lines, replay_with_names
from dominotable.rules.outcome import Termination
from dominotable.store.errors import StorageError
from dominotable.store.records import MatchRecord
from dominotable.store.storage import Store


def add_db_arguments(parser) -> None:
    parser.add_argument("--db", metavar="PATH", help="the score database (default: from the configuration)")
    parser.add_argument("--config", metavar="PATH", help="configuration file (default: the user config file)")


def open_store(args) -> Store:
    """The database, read-only (these commands only read): --db, else the configuration's."""
    path = args.db or config.load(args.config).storage.path
    if not args.db and not path.is_file():
        raise StorageError(f"no database at {path} yet: `dominotable run` and `dominotable demo` record "
                           f"matches there (or name one with --db PATH)")
    return Store(path, create=False)


def register(subparsers) -> None:
    parser = subparsers.add_parser("history", help="list recorded matches, show one, or export one as JSON",
                                   description="The matches in the table's database, newest first (demos marked); "
                                               "with MATCH, that match's moves; with --export, "
                                               "the match as JSON for `replay`. The database is opened read-only.")
    parser.add_argument("match", nargs="?", type=int, help="show this match's moves")
    parser.add_argument("--export", metavar="MATCH_ID", type=int, help="print the match as JSON (for `replay`)")
    add_db_arguments(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    with open_store(args) as store:
        if args.export is not None:
            print(json.dumps(store.match(args.export).to_dict(), indent=1))
        elif args.match is not None:
            data = store.match(args.match).to_dict()
            game, names = replay_with_names(data)
            print("\n".join(match_lines(data, game, names)))
        else:
            rows = [(str(r.id), r.game, r.started[:16].replace("T", " "), str(r.plies),
                     ", ".join(r.names), outcome(r)) for r in store.matches()]
            print_table(("id", "game", "started", "moves", "players", "result"), rows)
    return 0


def outcome(record: MatchRecord) -> str:
    text = _outcome(record)
    if record.damaged:
        text += f"; damaged, set aside: {record.damaged}"
    return f"demo: {text}" if record.demo else text


def _outcome(record: MatchRecord) -> str:
    if record.result is None:
        return "unfinished"
    ending, scores = record.result["ending"], record.result["scores"]
    if ending == Termination.ABANDONED:
        return "abandoned"
    winners = [name for name, side in zip(record.names, record.sides) if side in record.result["winners"]]
    text = f"won by {' & '.join(winners)}" if winners else "no winner"
    text += f", {'-'.join(str(s) for s in scores)}"
    return f"{text} (resigned)" if ending == Termination.RESIGNED else text


def print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """Left-aligned text columns, numbers right-aligned."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows)]
    for row in (header, *rows):
        cells = [cell.rjust(w) if cell.replace(".", "").isdigit() else cell.ljust(w) for cell, w in zip(row, widths)]
        print("  ".join(cells).rstrip())
