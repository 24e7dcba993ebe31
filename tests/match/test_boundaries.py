"""The match core's boundaries, checked on the code itself (issue 16):

- only the committer changes the live engine: the live engine is sealed, and `changing()` (the one
  way past the seal) is called in match/committer.py alone;
- the table never asks which game it plays: outside a game's own files (its engine and kernel in
  rules/games/, its spec in games/, its reader, hands and bots), no code tests an engine's type or
  names a game;
- one instruction, decided once (issue 28): the presenter reads it from the status and never asks
  the match to work one out, and nothing but the prompt voice puts a seat's instruction in words.
"""

import ast
from pathlib import Path

import pytest
from dominotable.games import catalog
from dominotable.match import opening
from dominotable.rules.errors import SealedGame
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.store.storage import Store
from dominotable.tray.geometry import default

PACKAGE = Path(__file__).resolve().parents[2] / "host" / "dominotable"
STEMS = ("broadway", "castle_rock", "doubles_boneyard", "up_down_stop")
# Castle Rock's own command-line tools: the exact capture analysis of a row.
GAME_TOOLS = ("app/commands/solve.py", "app/commands/check_capture.py")


def sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(), str(path))


def a_games_own(rel: str) -> bool:
    if rel.startswith(("rules/", "games/")) or rel in GAME_TOOLS:
        return True
    return any(rel in (f"reading/{stem}.py", f"sim/hands/{stem}.py", f"sim/bots/{stem}.py") for stem in STEMS)


def test_only_the_committer_goes_past_the_seal():
    callers = sorted({rel for rel, tree in sources() for node in ast.walk(tree)
                      if isinstance(node, ast.Attribute) and node.attr == "changing" and rel != "rules/game.py"})
    assert callers == ["match/committer.py"]


def test_a_match_at_the_table_has_a_sealed_engine(tmp_path):
    referee = opening.start(Store(tmp_path / "t.db"), CastleRock(players=2, seed=1, observed=True), ["ANN", "BOB"],
                            default())
    move = next(iter(referee.game.copy().legal_moves()))
    with pytest.raises(SealedGame):
        referee.game.push(move)
    with pytest.raises(SealedGame):
        referee.game.pop()
    ahead = referee.game.copy()
    ahead.push(move)  # a copy is for looking ahead
    assert referee.game.moves == [] and ahead.moves == [move]


def test_the_presenter_never_asks_the_match_for_an_instruction():
    """The referee's `instruction()` walked down into the seats on every frame; the judge decides
    the instruction once per board, and the presenter reads it from the status."""
    calls = sorted({rel for rel, tree in sources() for node in ast.walk(tree)
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "instruction"})
    assert calls == []
    assert "instruction()" not in (PACKAGE / "ui" / "presenter.py").read_text()


def test_no_code_outside_a_games_own_files_asks_which_game_it_is():
    engines = {spec.engine.__name__ for spec in catalog.GAMES}
    names = set(catalog.names())
    found = []
    for rel, tree in sources():
        if a_games_own(rel):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "isinstance" and len(node.args) == 2:
                kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
                for kind in kinds:
                    if (getattr(kind, "id", None) or getattr(kind, "attr", None)) in engines:
                        found.append(f"{rel}:{node.lineno}: isinstance on {ast.unparse(kind)}")
            if isinstance(node, ast.Constant) and node.value in names:
                found.append(f"{rel}:{node.lineno}: names the game {node.value!r}")
    assert not found, "\n".join(found)
