"""Every command, subcommand and option of `dominotable` has help text: the argparse tree is
walked, the game commands' second parsers (one per game: its rule options, its strategies'
flags) included, and `--help` prints it for every command."""

from __future__ import annotations

import argparse

from dominotable.app.cli import build_parser, main
from dominotable.app.gameargs import game_parser
from dominotable.games import catalog


def parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("dominotable",)):
    """(command path, parser, the help it is listed with) for the parser and every one below it."""
    yield path, parser, None
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            listed = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                for found in parsers(sub, (*path, name)):
                    yield found if found[0] != (*path, name) else (found[0], found[1], listed.get(name))
                common = sub.get_default("_common")
                for game in catalog.names() if common else ():
                    cls = catalog.engine(game)
                    yield (*path, name, game), game_parser(" ".join((*path, name)), cls, common,
                                                           sub.get_default("_extra")), cls.title


def test_every_command_and_option_has_help_text():
    missing = []
    walked = list(parsers(build_parser()))
    for path, parser, listed in walked:
        where = " ".join(path)
        if len(path) > 1 and not (listed or "").strip():
            missing.append(f"{where}: no help in its parent's list of commands")
        if not (parser.description or "").strip():
            missing.append(f"{where}: no description for `{where} --help`")
        for action in parser._actions:
            if action.help is argparse.SUPPRESS:
                continue  # deliberately hidden (the game commands' rest of the line)
            if not (action.help or "").strip():
                missing.append(f"{where}: {'/'.join(action.option_strings) or action.metavar or action.dest} "
                               "has no help")
    assert not missing, "\n".join(missing)
    names = {path for path, _, _ in walked}
    assert ("dominotable", "enroll", "layout") in names and ("dominotable", "stats", "broadway") in names
    assert len(names) > 11 + 3 * len(catalog.names())  # every command, and each game of the game commands


def test_help_of_every_command_prints_its_description_and_exits_0(capsys):
    for path, parser, _ in parsers(build_parser()):
        try:
            code = main([*path[1:], "--help"])
        except SystemExit as exc:
            code = exc.code
        out = capsys.readouterr().out
        assert code in (0, None) and out.startswith(f"usage: {' '.join(path)}"), path
        assert " ".join((parser.description or "-").split()[:4]) in " ".join(out.split()), path
