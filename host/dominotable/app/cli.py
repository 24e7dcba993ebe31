"""The `dominotable` command. Each subcommand lives in its own module in `commands/`.

Every user mistake ends with one line on stderr naming the problem and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from dominotable.app import commands
from dominotable.rules.errors import DominoError

DEFAULT_COMMAND = "run"


class Parser(argparse.ArgumentParser):
    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def ranged(kind: type, low: float, high: float, what: str):
    """An argparse type: a `kind` number from `low` to `high`, else an error naming the range."""
    span = f"{what}: {low:g} to {high:g}"

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number ({span})") from None
        if not low <= value <= high:  # also refuses nan
            raise argparse.ArgumentTypeError(f"{text} is out of range ({span})")
        return value
    return parse


def build_parser() -> Parser:
    parser = Parser(prog="dominotable", description="The instrumented domino table.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser,
                                help=f"what to do (default: {DEFAULT_COMMAND}); `dominotable COMMAND --help` tells more")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        importlib.import_module(f"{commands.__name__}.{info.name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv or [DEFAULT_COMMAND])
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return args.func(args) or 0
    except DominoError as exc:
        print(f"dominotable {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
