"""Doubles in the Boneyard read off the tray (rules DB-8.x in seeds/doubles-in-the-boneyard.md)."""

import random

import pytest
from dominotable.games import catalog
from dominotable.reading.doubles_boneyard import DoublesBoneyardReader
from dominotable.reading.prompts import listed
from dominotable.rules.games.doubles_boneyard.engine import (
    DoublesInTheBoneyard,
    Play,
)
from dominotable.rules.hidden import Reveal
from dominotable.rules.line import LEFT, RIGHT
from dominotable.rules.moves import Pass
from dominotable.sim.bots.shared import greedy_bot, random_bot
from dominotable.tray.action import Action, ActionKind
from dominotray import wire
from support.table_sim import SimTray, hands_of, judge_of, play_through, read_draw


@pytest.fixture
def table():
    """Seed 1: P1 leads; P1 holds 2-4, P2 holds 4-6 and 0-1, P3 holds 2-5 and 2-6."""
    game = DoublesInTheBoneyard(seed=1)
    tray = SimTray()
    return game, catalog.reader_for(game, tray.geometry), tray


def opened(table):
    """P1 has led 2-4: the 2 on r5c7, the 4 on r5c8."""
    game, reader, tray = table
    tray.lay("2-4", 5, 7)
    game.push(reader.judge(tray.board()).moves[0])
    return game, reader, tray


def test_adapter_is_registered(table):
    assert isinstance(table[1], DoublesBoneyardReader)


def test_empty_tray_is_the_same_position(table):
    game, reader, tray = table
    assert reader.judge(tray.board()).same


def test_first_tile_anywhere_is_the_lead(table):
    """rule DB-8.1: the opening tile may lie anywhere on the grid, either way round."""
    game, reader, tray = table
    tray.lay("4-2", 9, 3, "down")
    assert reader.judge(tray.board()).moves == (Play(game.dset.parse("2-4")),)


def test_first_tile_not_in_the_leaders_hand(table):
    game, reader, tray = table
    tray.lay("4-6", 5, 7)
    verdict = reader.judge(tray.board())
    assert not verdict.moves and "rule DB-3.1" in verdict.problem and "4-6" in verdict.problem


def test_play_on_the_right_end_in_line(table):
    """rule DB-8.3: 4-6 with its 4 against the free 4 of 2-4 is a play on the right end."""
    game, reader, tray = opened(table)
    tray.lay("4-6", 5, 9)
    assert reader.judge(tray.board()).moves == (Play(game.dset.parse("4-6"), RIGHT),)


def test_play_turning_a_corner(table):
    """rule DB-8.2: the line may bend; a vertical tile under the free 4 plays on the right end."""
    game, reader, tray = opened(table)
    tray.lay("4-6", 6, 8, "down")
    assert reader.judge(tray.board()).moves == (Play(game.dset.parse("4-6"), RIGHT),)


def test_tile_touching_no_end(table):
    """rule DB-8.3: the prompt names the tile, the open number, its cell and the half to use."""
    game, reader, tray = opened(table)
    tray.lay("4-6", 9, 1)
    verdict = reader.judge(tray.board())
    assert not verdict.moves
    assert verdict.problem == "4-6 must touch the open 4 at r5c8 (cell 88) with its 4 (rule DB-8.3)"
    assert set(verdict.cells) == set(tray.tiles[game.dset.parse("4-6")])


def test_tile_touching_the_end_with_the_wrong_half(table):
    """rule DB-8.3: the 6 against the open 4 is not a play."""
    game, reader, tray = opened(table)
    tray.lay("6-4", 5, 9)
    assert reader.judge(tray.board()).problem == (
        "4-6 must touch the open 4 at r5c8 (cell 88) with its 4 (rule DB-8.3)")


def test_tile_matching_neither_end(table):
    game, reader, tray = opened(table)
    tray.lay("0-1", 5, 9)
    verdict = reader.judge(tray.board())
    assert verdict.problem == "0-1 matches neither open end (2 and 4): take it back (rule DB-3.3)"


def test_tile_out_of_turn(table):
    """P3's 2-6 against the 2 while P2 is to play: the engine's hand rule names the tile."""
    game, reader, tray = opened(table)
    tray.lay("6-2", 5, 5)
    verdict = reader.judge(tray.board())
    assert not verdict.moves and "rule DB-3.1" in verdict.problem and "2-6 is not in P2's hand" in verdict.problem


def test_two_plays_read_in_turn(table):
    """Two quick plays settle together: both moves, in the order they were made."""
    game, reader, tray = opened(table)
    tray.lay("4-6", 5, 9)
    tray.lay("5-2", 5, 5)
    before = list(game.moves)
    verdict = reader.judge(tray.board())
    d = game.dset.parse
    assert verdict.moves == (Play(d("4-6"), RIGHT), Play(d("2-5"), LEFT))
    assert game.moves == before  # judging leaves the engine as it was


def test_line_tile_moved_away(table):
    """rule DB-8.2: a line tile that no longer touches its neighbour must go back."""
    game, reader, tray = opened(table)
    tray.lay("4-6", 5, 9)
    game.push(reader.judge(tray.board()).moves[0])
    tray.take("4-6")
    tray.lay("4-6", 8, 9)
    verdict = reader.judge(tray.board())
    assert verdict.problem == "put 4-6 back with its 4 against the 4 of 2-4 at r5c8 (cell 88) (rule DB-8.2)"


def test_line_tile_missing(table):
    game, reader, tray = opened(table)
    tray.take("2-4")
    assert reader.judge(tray.board()).problem.startswith("put 2-4 back in the line")


def test_unknown_tag_is_a_problem(table):
    game, reader, tray = opened(table)
    tray.extra[tray.cell(0, 0)] = (wire.TAG, b"\x01\x02\x03\x04")
    verdict = reader.judge(tray.board())
    assert "unknown tag" in verdict.problem and verdict.cells == (0,)


def test_pass_is_a_button_only_when_forced(table):
    """rule DB-3.5: pass is offered only when the player has no tile that fits."""
    game, reader, tray = opened(table)
    assert reader.button_moves() == []
    bot = random_bot(random.Random(3))
    while Pass() not in game.legal_moves():
        game.push(bot(game))
    assert reader.button_moves() == [("pass", Pass())]
    assert hands_of(reader).actions(Pass(), tray.board()) == []


def test_a_finished_game_asks_for_a_clear_tray():
    """rule DB-8.4: after a game the tray is cleared before the next lead."""
    game = DoublesInTheBoneyard(seed=2, options={"target": 50})
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    bot = greedy_bot(random.Random(2))
    while game.game_number() == 1:
        move = bot(game)
        tray.apply(hands_of(reader).actions(move, tray.board()))
        game.push(move)
    verdict = reader.judge(tray.board())
    leader = game.side_names()[game.current_player]
    assert verdict.same and verdict.note.startswith("gather the tiles (")
    assert verdict.note.endswith(f"then {leader} leads game 2")
    assert reader.expected() == f"game 2: an empty tray; {leader} leads"
    for tile in list(tray.tiles):
        tray.take(tile)
    assert reader.judge(tray.board()).same


def test_expected_names_the_line(table):
    game, reader, tray = opened(table)
    tray.lay("4-6", 5, 9)
    game.push(reader.judge(tray.board()).moves[0])
    assert reader.expected() == ("game 1: the line 2-4 4-6, each tile touching the next number to number; "
                                  "open ends 2 and 6")


def test_observed_lots_drawn_over_the_scan_pad():
    """rules DB-7.1, DB-8.5: at a real table the doubles drawn for the lead are read over the
    scan pad in seat order; a non-double there does not count and is named."""
    game = DoublesInTheBoneyard(seed=1, observed=True)
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    verdict = reader.judge(tray.board())
    assert verdict.same and verdict.note.startswith("draw doubles for the lead over the scan pad")
    draw = reader.pad_draw()
    assert (draw.seats, draw.what, draw.rule) == ((0, 1, 2), "for the lead", "DB-8.5")
    d = game.dset.parse
    assert draw.check(d("4-4")) is None
    assert draw.check(d("2-5")) == "2-5 is not a double; only doubles are drawn for the lead (rule DB-7.1)"
    lots = Reveal("lots", (d("5-5"), d("1-1"), d("2-2")))
    tray.pad("3-3")  # left on the pad from before: taken off first
    actions = hands_of(reader).actions(lots, tray.board())
    assert actions[0] == Action(ActionKind.UNPAD, d("3-3")) and [a.kind for a in actions[1:]] == ["pad", "unpad"] * 3
    assert read_draw(reader, tray, actions).moves == (lots,)
    game.push(lots)
    assert reader.pad_draw() is None and tray.board().on_pad() is None


def test_observed_tie_draw_is_the_tied_seats():
    """rule DB-7.1: after a tied blocked game only the tied players draw, in seat order."""
    game = DoublesInTheBoneyard.from_position(  # blocked on 4s; P1 and P2 tie on 3 pips each
        "line: 4-0 0-2 2-4 4-1 1-3 3-4 4-5 5-0 0-6 6-1 1-5 5-2 2-6 6-3 3-5 5-6 6-4\n"
        "P1: 1-2\nP2: 0-3\nP3: 0-1 2-3\nending: blocked\nshown: P1 P2 P3", observed=True)
    assert catalog.reader_for(game, SimTray().geometry).pad_draw().seats == (0, 1)


def test_observed_show_after_a_game():
    """rule DB-8.5: when a game ends each player left with tiles lays them out in turn."""
    game = DoublesInTheBoneyard(seed=3, observed=True, options={"target": 50})
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    bot = random_bot(random.Random(3))
    while game.awaiting() != "show":
        move = bot(game)
        tray.apply(hands_of(reader).actions(move, tray.board()))
        game.push(move)
    verdict = reader.judge(tray.board())
    assert verdict.same and verdict.note.startswith("show your tiles: lay those left on the tray")
    assert verdict.who == listed(game.side_names()[i] for i in game.to_show())  # whom the note is for
    show = next(m for m in game.legal_moves() if isinstance(m, Reveal))
    tray.apply(hands_of(reader).actions(show, tray.board()))
    assert reader.judge(tray.board()).moves == (show,)


@pytest.mark.parametrize("seed, observed", [(0, False), (1, False), (2, True), (3, True)])
def test_whole_match_by_the_adapters_own_actions(seed, observed):
    """A match played only through actions -> tray -> judge (and buttons) ends with the engine's
    scores, at a real table (observed) too."""
    game = DoublesInTheBoneyard(seed=seed, options={"target": 50}, observed=observed)
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    bots = [greedy_bot(random.Random(seed)), random_bot(random.Random(seed + 1)), greedy_bot(random.Random(seed + 2))]
    play_through(game, reader, tray, lambda g: bots[g.current_player](g))
    replay = type(game).from_json(game.to_json())
    assert game.is_over() and replay.scores == game.scores and replay.winners() == game.winners()


def test_db8_3_a_tile_laid_apart_from_the_open_end_is_a_prompt_not_a_play(table):
    """rules DB-8.3, DB-8.7 (issue 18: a tile four columns past an open end was accepted): 4-6 laid
    in line with the open 4 but four columns away touches nothing: hands at work, prompted if it
    stays, naming the tile, the open number's cell and the rule; never a play, never an alarm."""
    game, reader, tray = opened(table)
    tray.lay("4-6", 5, 12)
    verdict = reader.judge(tray.board())
    assert not verdict.moves and verdict.pending
    assert verdict.problem == "4-6 must touch the open 4 at r5c8 (cell 88) with its 4 (rule DB-8.3)"
    assert set(verdict.cells) == {tray.cell(5, 12), tray.cell(5, 13)}
    tray.take("4-6")
    tray.lay("4-6", 5, 9)  # slid in against the open 4: the play
    assert reader.judge(tray.board()).moves == (Play(game.dset.parse("4-6"), RIGHT),)


def test_db8_2_a_gap_in_the_line_is_a_tile_to_put_back_not_a_new_line(table):
    """rule DB-8.2: a line tile slid one column away leaves a gap; the line does not close it by
    itself: a prompt (hands at work) to put it back against its neighbour."""
    game, reader, tray = opened(table)
    tray.lay("4-6", 5, 9)
    game.push(reader.judge(tray.board()).moves[0])
    tray.take("4-6")
    tray.lay("4-6", 5, 10)
    verdict = reader.judge(tray.board())
    assert not verdict.moves and verdict.pending
    assert verdict.problem == "put 4-6 back with its 4 against the 4 of 2-4 at r5c8 (cell 88) (rule DB-8.2)"


def test_db8_3_a_tile_against_the_middle_of_the_line_is_refused_at_once(table):
    """rule DB-8.3: touching the line but not at an open end is no hands at work."""
    game, reader, tray = opened(table)
    tray.lay("4-6", 5, 9)
    game.push(reader.judge(tray.board()).moves[0])
    tray.lay("2-5", 6, 8, "down")  # under the 4-4 joint, touching 2-4 and 4-6 in the middle
    verdict = reader.judge(tray.board())
    assert not verdict.moves and verdict.problem and not verdict.pending


def test_an_end_of_the_line_lifted_is_not_shown_for_the_hands_nor_a_fault_for_the_page():
    """Found by the chaos test: with a tile at an end of the line lifted, the hands raised KeyError
    planning the next play (a bot's instruction, the page's targets for a held tile). The tray
    does not show the position: NotShown (a DominoError), and no targets."""
    from dominotable.rules.games.doubles_boneyard.engine import Play
    from dominotable.sim.hands.base import NotShown

    game = catalog.load({"game": "doubles-in-the-boneyard", "players": 3, "seed": 3, "moves": []})
    tray = SimTray()
    rng = random.Random(3)
    while len([m for m in game.moves if isinstance(m, Play)]) < 3:
        move = random_bot(rng)(game)
        tray.apply_all(catalog.hands_for(game, tray.geometry).actions(move, tray.board()))
        game.push(move)
    plays = [m for m in game.legal_moves() if isinstance(m, Play)]
    assert plays, "a play to plan"
    line = game.line()
    end = line.sides[RIGHT][-1][0] if line.sides[RIGHT] else line.first
    tray.apply(Action(ActionKind.REMOVE, end))
    hands = catalog.hands_for(game, tray.geometry)
    with pytest.raises(NotShown, match=f"{end}, an end of the line, is not on the tray"):
        hands.actions(plays[0], tray.board())
    judge, position = judge_of(game, tray.geometry)
    assert judge.targets.of(position, tray.board(), plays[0].tile) == ()
