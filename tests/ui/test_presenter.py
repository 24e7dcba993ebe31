"""The presenter (ui/presenter.py): the match as the one Screen, read from the referee's status and
never worked out again (issue 28: it asked the referee for an instruction on every frame). The
person to move gets their turn on the play pages, in words and typed, with its cells marked; a
seat the table plays gets a prompt naming it; the hand-over card comes between hands; a notice (a
hint) shows over the instruction, which comes back when it is put away."""

from __future__ import annotations

import json

from dominotable.reading.instruction import Do
from dominotable.rules.games.broadway.engine import Broadway
from dominotable.ui.screen import ScreenKind
from support.table_helpers import column, cr9, started


def test_the_person_to_move_gets_their_turn_on_the_play_pages(tmp_path):
    table = cr9(tmp_path, placed=None)
    screen = table.screen
    assert (screen.kind, screen.turn, screen.title) == (ScreenKind.PLAY, "P1", "P1")
    assert screen.text == "put a tile upright at the open end, r4c8-r5c8; take any captures; then End turn"
    assert screen.cells == column(8) and screen.seat == "" and screen.instruction.steps[0].do == Do.LAY
    shown = json.loads(json.dumps(screen.to_dict()))  # what the page and the lights receive
    assert shown["instruction"]["who"] == "P1" and shown["instruction"]["steps"][0]["cells"] == list(column(8))
    assert [s["do"] for s in shown["instruction"]["steps"]] == ["lay", "take", "press"]


def test_the_screen_is_read_from_the_status_not_worked_out_again(tmp_path):
    """The presenter asks the judge nothing: the same status gives the same screen however many
    frames are drawn, and the instruction changes only when the judge decides again."""
    table = cr9(tmp_path, placed=None)
    referee = table.session.referee
    calls = []
    judge = referee.judge.judge
    referee.judge.judge = lambda *a, **k: calls.append(a) or judge(*a, **k)
    screens = {json.dumps(table.screen.to_dict(), default=str) for _ in range(5)}
    assert len(screens) == 1 and calls == []


def test_a_hint_shows_over_the_turn_and_the_turn_comes_back(tmp_path):
    table = cr9(tmp_path, placed=None)
    table.press("long-select")
    table.press(*["down"] * table.screen.menu.items.index("Hint"), "select")
    assert table.screen.title == "Hint" and table.screen.kind == ScreenKind.PROMPT
    table.press("select")
    assert table.screen.kind == ScreenKind.PLAY and table.screen.text.startswith("put a tile upright")


def test_broadway_the_turn_outlines_every_place_and_offers_pass(tmp_path):
    game = Broadway(options={"hands": 1}, seed=3, observed=True)
    for text in ["lead W", "6-6@(0,0)-(0,1)"]:
        game.push(game.parse_move(text))
    screen = started(tmp_path, game, names=["ANN", "BOB", "CAT", "DAN"]).screen
    lay = screen.instruction.steps[0]
    assert screen.kind == ScreenKind.PLAY and screen.text.endswith("; or pass")
    assert set(lay.cells) <= set(screen.cells) and len(lay.cells) >= 4
    assert [a.label for a in screen.actions if a.kind == "move"] == ["pass"]


def test_regression_hint_is_offered_only_where_it_can_say_something(tmp_path):
    """Issue 28, Why 7: Hint was offered in Broadway and Up-Down-Stop, then answered that the table
    cannot see the person's tiles. It is offered where the game has a hint of its own (Castle Rock)
    or the table knows the hand; not at a table of people in Broadway or Up-Down-Stop."""
    from dominotable.rules.games.up_down_stop.engine import UpDownStop

    broadway = Broadway(options={"hands": 1}, seed=3, observed=True)
    for text in ["lead W", "6-6@(0,0)-(0,1)"]:
        broadway.push(broadway.parse_move(text))
    kinds = [a.kind for a in started(tmp_path / "b", broadway, names=["ANN", "BOB", "CAT", "DAN"]).screen.actions]
    assert "hint" not in kinds and "resign" in kinds
    uds = UpDownStop(seed=2, observed=True)
    uds.push(uds.parse_move("1-2 new"))
    assert "hint" not in [a.kind for a in started(tmp_path / "u", uds, names=["ANN"]).screen.actions]
    assert "hint" in [a.kind for a in cr9(tmp_path / "c", placed=None).screen.actions]


def test_regression_broadway_take_back_is_offered_right_after_a_move_in_the_prompts_words(tmp_path):
    """Issue 28, Why 6: after CAT laid 6-5 Take back stayed greyed until the tile was dragged off,
    then read "Take back 5-6" while the prompt said "6-5", and the result "CAT took back
    6-5@(1,1)-(2,1)". Right after the move it is offered, named as the last play names the tile;
    taken with the button, the tray is asked for the position before it, in the same words."""
    game = Broadway(options={"hands": 1}, seed=3, observed=True)
    for text in ["lead W", "6-6@(0,0)-(0,1)"]:
        game.push(game.parse_move(text))
    table = started(tmp_path, game, names=["ANN", "BOB", "CAT", "DAN"])
    table.play(game.parse_move("6-5@(1,1)-(2,1)"))
    screen = table.screen
    assert (screen.kind, screen.turn, str(screen.last)) == (ScreenKind.PLAY, "BOB", "ANN laid 5-6")
    assert [a.label for a in screen.actions if a.kind == "take-back"] == ["Take back 5-6"]
    table.menu("Take back 5-6")
    assert (table.screen.title, table.screen.text) == ("Take back", "take 5-6 off the tray: 5-6 is taken back")
    assert str(table.screen.last) == "taken back: ANN laid 5-6" and len(table.game.moves) == 2
