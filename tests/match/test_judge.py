"""The judge (match/judge.py), stage by stage: a position and a settled board in, a Decision out,
asked of copies (issue 30, item 4: named stages, each a decision or None to go on; issue 28: the
instruction decided here, once). Castle Rock for two people, its row laid out (tests/support/table_helpers)."""

from __future__ import annotations

from dominotable.match.decision import Commit, Prompt, TakeBack, Wait
from dominotable.match.judge import Context
from dominotable.match.position import Play
from dominotable.reading.instruction import Do
from dominotable.rules.games.castle_rock.engine import place
from dominotray import wire
from support.table_helpers import GEO, T, column, laid, rigged, with_tiles
from support.table_sim import judge_of

ROW = "1-6 0-6 0-0 2-4 4-4 0-4 1-1 1-5"


def row_table(**kwargs):
    game = rigged(ROW, ["1-4 3-3", "5-5 6-6"], **kwargs)
    judge, position = judge_of(game, GEO)
    return game, judge, position, laid(game)[1]


def test_judging_changes_nothing_it_is_asked_of_copies():
    game, judge, position, layout = row_table()
    laid_one = with_tiles(layout, t1_4=column(8))
    moves = list(game.moves)
    decision = judge.judge(position, laid_one.board(), Context())
    assert isinstance(decision, Commit) and decision.effects == (Play(place(T("1-4"))),)
    assert game.moves == moves and position.game is game


def test_the_position_shown_is_a_wait_with_the_person_to_moves_turn():
    game, judge, position, layout = row_table()
    decision = judge.judge(position, layout.board(), Context())
    assert isinstance(decision, Wait) and decision.instruction.who == "P1"
    assert [s.do for s in decision.instruction.steps] == [Do.LAY, Do.TAKE, Do.PRESS]


def test_a_move_read_commits_and_says_what_the_table_waits_for_next():
    game, judge, position, layout = row_table()
    decision = judge.judge(position, with_tiles(layout, t1_4=column(8)).board(), Context())
    assert isinstance(decision.then, Wait)
    assert [s.do for s in decision.then.instruction.steps] == [Do.TAKE, Do.PRESS]  # placed: captures, End turn


def test_the_trays_own_faults_come_first_and_are_hands_at_work_while_in_motion():
    game, judge, position, layout = row_table()
    cells = layout.cells()
    cells[GEO.cell(9, 0)] = cells[column(0)[0]]  # 1-6's tag read in a second cell: caught moving
    decision = judge.judge(position, type(layout.board())(cells, layout.registry, GEO), Context())
    assert isinstance(decision, Prompt) and decision.title == "Check the tray" and decision.pending
    assert decision.instruction is None  # a tray that cannot be read gets no step said for it


def test_a_dead_reader_is_named_as_the_tray_names_it_and_played_around():
    game, judge, position, layout = row_table()
    cells = layout.cells()
    cells[GEO.cell(11, 15)] = (wire.FAULT, b"")
    decision = judge.judge(position, type(layout.board())(cells, layout.registry, GEO), Context())
    assert isinstance(decision, Wait) and decision.reading.warning == "reader r11c15 dead (not used by this game)"


def test_restoring_a_new_match_over_leftover_tiles_asks_to_clear_them_counted():
    """Issue 28, Why 5: Up-Down-Stop started over leftover tiles said "6-6 lies outside the
    columns..." instead of asking for the tray to be cleared."""
    from dominotable.rules.games.up_down_stop.engine import UpDownStop

    game = UpDownStop(seed=2, observed=True)
    judge, position = judge_of(game, GEO)
    leftovers = laid(rigged(ROW, ["1-4 3-3", "5-5 6-6"]))[1]
    decision = judge.judge(position, leftovers.board(), Context(restoring=True))
    assert isinstance(decision, Prompt) and decision.restore
    assert (decision.title, decision.text) == ("Set up the table", "clear the tray: 8 tiles from the last match")


def test_the_last_tile_lifted_is_its_takeback_on_offer_in_the_prompts_words():
    game, judge, position, layout = row_table()
    after = with_tiles(layout, t1_4=column(8))
    decision = judge.judge(position, after.board(), Context())
    for effect in decision.effects:
        position.apply(effect)
    offer = judge.judge(position, layout.board(), Context(before={T("1-4"): column(8)}))
    assert isinstance(offer, TakeBack) and offer.text == "take back 1-4? press select"


def test_moves_taken_back_with_the_button_are_not_read_again():
    """Issue 28, item 6: taken back right after it was made, the move still lies on the tray; the
    judge asks for the tray as it was, not the move again."""
    game, judge, position, layout = row_table()
    after = with_tiles(layout, t1_4=column(8))
    undone = (place(T("1-4")),)
    decision = judge.judge(position, after.board(), Context(undone=undone))
    assert isinstance(decision, Prompt) and decision.undone and not isinstance(decision, Commit)
    assert decision.text == "take 1-4 off the tray: 1-4 is taken back" and decision.cells == column(8)
    assert isinstance(judge.judge(position, layout.board(), Context(undone=undone)), Wait)


def test_a_probe_goes_no_further_than_the_moves_the_tray_shows():
    """What targets.py asks: no instruction worked out, no plan, no moves the seats make alone."""
    game, judge, position, layout = row_table()
    probed = judge.probe(position, with_tiles(layout, t1_4=column(8)).board())
    assert isinstance(probed, Commit) and probed.effects == (Play(place(T("1-4"))),)
    assert probed.then.instruction is None and probed.reading.buttons == ()
