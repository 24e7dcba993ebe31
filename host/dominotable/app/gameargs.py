"""Command lines about one game, parsed in two phases: GAME first, then that game's flags.

Phase one (the subcommand's own parser) takes the command's common options and GAME, and
keeps everything after GAME. Phase two builds a parser for that game: the same common
options again, one flag per field of the game's `Options` (`--set 9`, `--draw when-blocked`)
and whatever else the command adds (such as strategy flags), and parses the rest. Rule
options must therefore come after GAME; common options may come before or after it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from dominotable.app.cli import Parser
from dominotable.games import catalog
from dominotable.rules.errors import UnknownGame

# common(parser, default) adds a command's common options, each with default=default(its own
# default): the value itself in phase one, argparse.SUPPRESS in phase two (so that phase two
# only overrides what was given after GAME).
Adder = Callable[[argparse.ArgumentParser, Callable], None]


def add_game_command(subparsers, name: str, common: Adder, func, default_game: str | None = None,
                     extra: Callable | None = None, **kwargs) -> argparse.ArgumentParser:
    """Register subcommand `name`, whose common options `common` adds (see Adder), and
    `extra(parser, cls)` more flags once the game is known."""
    parser = subparsers.add_parser(name, add_help=False, **kwargs)
    parser.add_argument("-h", "--help", action="store_true",
                        help="show this help; after GAME, show that game's flags too")
    common(parser, lambda value: value)
    parser.add_argument("game", metavar="GAME", nargs="?",
                        help=f"one of: {', '.join(catalog.names())}" +
                             (f" (default {default_game})" if default_game else ""))
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.set_defaults(func=func, _phase_one=parser, _common=common, _extra=extra, _default_game=default_game)
    return parser


def game_parser(prog: str, cls, common: Adder, extra: Callable | None = None) -> Parser:
    parser = Parser(prog=f"{prog} {cls.name}", description=f"{cls.title}.", argument_default=argparse.SUPPRESS)
    common(parser, lambda value: argparse.SUPPRESS)
    rules = parser.add_argument_group(f"{cls.title} rule options")
    for name, default, choices, text in cls.Options.describe():
        metavar = "|".join(str(c) for c in choices) if choices else type(default).__name__.upper()
        rules.add_argument(f"--{name.replace('_', '-')}", dest=f"opt_{name}", metavar=metavar,
                           help=f"{text} (default {default})")
    if extra:
        extra(parser, cls)
    return parser


def parse_game_args(args: argparse.Namespace, prog: str):
    """Phase two. Returns the game class, or None after printing help (so exit 0); fills `args` with the
    merged common options and `args.options` (the game's Options, validated)."""
    if args.game is None:  # --help without GAME lists every game, not the default game's flags
        if args.help:
            args._phase_one.print_help()
            return None
        if args._default_game is None:
            raise UnknownGame(f"name a GAME: one of {', '.join(catalog.names())}")
        args.game = args._default_game
    cls = catalog.engine(args.game)
    parser = game_parser(prog, cls, args._common, args._extra)
    if args.help:
        parser.print_help()
        return None
    more = parser.parse_args(args.rest)
    values = {}
    for key, value in vars(more).items():
        if key.startswith("opt_"):
            values[key[4:]] = value
        else:
            setattr(args, key, value)
    args.options = cls.Options.from_dict(values)
    args.given_options = set(values)  # only the flags given (phase two suppresses defaults)
    return cls
