"""Broadway read off the tray (rules BW-11.x in seeds/broadway.md)."""

import random
import re

import pytest
from dominotable.games import catalog
from dominotable.reading.broadway import BroadwayReader
from dominotable.rules.games.broadway.engine import (
    Broadway,
    Expose,
    Place,
)
from dominotable.rules.moves import Pass
from dominotable.sim.bots.shared import greedy_bot, random_bot
from dominotable.sim.hands.base import NoRoom, fitting
from support.table_sim import SimTray, hands_of, play_through


@pytest.fixture
def table():
    """Seed 1, hand 1 on 6-6: West leads; North holds 0-6, East 3-6 and 0-2, South 2-6."""
    game = Broadway(seed=1)
    tray = SimTray()
    return game, catalog.reader_for(game, tray.geometry), tray


def led(table):
    """West has led 6-6 north-south on r4c5-r5c5: engine (0,0) is r4c5."""
    game, reader, tray = table
    tray.lay("6-6", 4, 5, "down")
    game.push(reader.judge(tray.board()).moves[0])
    return game, reader, tray


def test_adapter_is_registered(table):
    assert isinstance(table[1], BroadwayReader)


def test_lead_anywhere_in_the_leaders_orientation(table):
    """rules BW-2.3, BW-11.1: the lead may lie anywhere; it defines the engine's (0,0)."""
    game, reader, tray = table
    tray.lay("6-6", 1, 12, "down")
    assert reader.judge(tray.board()).moves == (game.lead_move(),)


def test_lead_in_the_wrong_orientation(table):
    """rule BW-11.2: West lays tiles along a column (north-south)."""
    game, reader, tray = table
    tray.lay("6-6", 4, 5)
    verdict = reader.judge(tray.board())
    assert not verdict.moves
    assert verdict.problem == "Broadway: West plays tiles north-south (along a column); turn 6-6 (rule BW-11.2)"


def test_wrong_lead_tile(table):
    game, reader, tray = table
    tray.lay("5-5", 4, 5, "down")
    assert reader.judge(tray.board()).problem == "hand 1 opens with 6-6: take 5-5 off and lead 6-6 (rule BW-2.3)"


def test_placement_is_mapped_from_the_anchor(table):
    """rule BW-11.1: the tray cell right of the lead's far half is engine (1,0)."""
    game, reader, tray = led(table)
    tray.lay("6-0", 4, 6)
    assert reader.judge(tray.board()).moves == (Place((6, 0), ((1, 0), (2, 0))),)


def test_wrong_orientation_names_the_seat_and_axis(table):
    """rule BW-11.2 (issue example): North lays tiles along a row."""
    game, reader, tray = led(table)
    tray.lay("0-6", 3, 6, "down")
    verdict = reader.judge(tray.board())
    assert not verdict.moves
    assert verdict.problem == "Broadway: North plays tiles east-west (along a row); turn 0-6 (rule BW-11.2)"
    assert set(verdict.cells) == {tray.cell(3, 6), tray.cell(4, 6)}


def test_placement_touching_no_match(table):
    """rule BW-4.1: the engine's reason names the move, on the tray's cells (not the engine's)."""
    game, reader, tray = led(table)
    tray.lay("0-6", 4, 6)
    verdict = reader.judge(tray.board())
    assert not verdict.moves
    assert verdict.problem == ("lay 0-6 with a half against the same number in the tableau: 0-6 on r4c6-r4c7 "
                               "touches no matching segment (rule BW-4.1)")


def test_a_refused_button_move_names_tray_cells(table):
    """rule BW-6.1: a pass while a tile fits is refused naming where it fits, as the tray names
    cells; before the lead the placement is named by its tile alone."""
    game, reader, tray = table
    assert reader.explain(game.why_illegal(Pass()), tray.board()) == "West must lead 6-6 (rule BW-2.3)"
    game, reader, tray = led(table)
    text = reader.explain(game.why_illegal(Pass()), tray.board())
    assert text.startswith("North can play (") and text.endswith("), so may not pass (rule BW-6.1)")
    assert re.search(r"\(\d-\d on r\d+c\d+-r\d+c\d+\)", text), text


def test_tile_out_of_turn(table):
    """East's 3-6 while North is to play (rule BW-2.2)."""
    game, reader, tray = led(table)
    tray.lay("6-3", 6, 5, "down")
    verdict = reader.judge(tray.board())
    assert not verdict.moves and "North does not hold 3-6" in verdict.problem


def test_scores_as_it_lands():
    """rules BW-5.1, BW-5.2, BW-11.3: the first placement that scores does so as soon as it is read."""
    game = Broadway(seed=1)
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    bot = greedy_bot(random.Random(1))
    while True:
        move = bot(game)
        before = list(game.scores)
        tray.apply(hands_of(reader).actions(move, tray.board()))
        assert reader.judge(tray.board()).moves == (move,)
        game.push(move)
        if game.scores != before:
            break
    assert reader.judge(tray.board()).same
    assert sum(game.scores) > sum(before)


def test_whole_tableau_slid_is_the_same_position(table):
    """rule BW-11.1: only positions relative to the lead count."""
    game, reader, tray = led(table)
    tray.lay("6-0", 4, 6)
    game.push(reader.judge(tray.board()).moves[0])
    for tile in list(tray.tiles):
        first, second = tray.tiles[tile]
        tray.take(tile)
        tray.put(tile, (first + 17, second + 17))
    assert reader.judge(tray.board()).same


def test_moved_tile_must_go_back(table):
    game, reader, tray = led(table)
    tray.lay("6-0", 4, 6)
    game.push(reader.judge(tray.board()).moves[0])
    tray.take("0-6")
    tray.lay("6-0", 5, 6)
    assert reader.judge(tray.board()).problem == (
        "put 0-6 back at r4c6-r4c7, its 6 on r4c6 (cell 70) (rule BW-11.1)")


def test_lead_removed(table):
    game, reader, tray = led(table)
    tray.take("6-6")
    assert reader.judge(tray.board()).problem == "put 6-6 back: the tableau is read from it (rule BW-11.1)"


def test_exposed_tile_on_the_scan_pad(table):
    """rules BW-7.1, BW-11.4: a tile on the pad is a prompt until exposed with the buttons; then
    the placing opponent (South, for East's tile) lays it along a row."""
    game, reader, tray = led(table)
    tray.pad("3-6")
    board = tray.board()
    assert "3-6 is on the scan pad" in reader.judge(board).problem
    assert ("pass", Pass()) not in reader.button_moves(board)
    expose = Expose(1, game.dset.parse("3-6"))
    assert reader.button_moves(board) == [("expose 3-6 (East's)", expose)]
    assert hands_of(reader).actions(expose, tray.board()) and hands_of(reader).actions(expose, board)[0].kind == "pad"
    game.push(expose)
    assert reader.judge(tray.board()).same
    tray.take("3-6")
    tray.lay("3-6", 6, 5, "down")
    assert "South, placing East's exposed tile, plays tiles east-west" in reader.judge(tray.board()).problem
    tray.take("3-6")
    tray.pad("3-6")
    place = next(m for m in game.legal_moves() if isinstance(m, Place))
    tray.apply(hands_of(reader).actions(place, tray.board()))
    assert tray.board().on_pad() is None
    assert reader.judge(tray.board()).moves == (place,)


def test_an_exposed_tile_that_fits_nowhere_goes_back_off_the_pad(table):
    """rules BW-7.3, BW-11.4: East's exposed 0-2 fits nowhere, so the placer passes and the tile
    goes back to East, face up; the hands take it off the pad, and the tray then shows the position
    (left on the pad it is a prompt). Found by the chaos test (Broadway, no bots): the hands left it
    on the pad, and the tray they laid out for the committed position kept the table offering
    "take back pass?"."""
    game, reader, tray = led(table)
    tray.pad("0-2")
    game.push(Expose(1, game.dset.parse("0-2")))
    assert list(game.legal_moves()) == [Pass()]
    actions = hands_of(reader).actions(Pass(), tray.board())
    assert [(a.kind, str(a.tile)) for a in actions] == [("unpad", "0-2")]
    game.push(Pass())
    assert "0-2 is on the scan pad" in reader.judge(tray.board()).problem
    tray.apply(actions)
    assert tray.board().on_pad() is None and reader.judge(tray.board()).same


def test_bots_slide_the_tableau_when_the_tray_edge_is_near(table):
    """rule BW-11.1: a play past the tray's edge slides the whole tableau first."""
    game, reader, tray = table
    tray.lay("6-6", 0, 0, "down")
    game.push(reader.judge(tray.board()).moves[0])
    move = Place((0, 6), ((-2, 0), (-1, 0)))
    actions = hands_of(reader).actions(move, tray.board())
    assert [a.kind for a in actions] == ["slide", "place"]
    tray.apply(actions)
    assert reader.judge(tray.board()).moves == (move,)


def test_a_tableau_wider_than_the_tray_cannot_be_laid(table):
    """rule BW-11.6: bots are told (NoRoom) so they choose another placement."""
    game, reader, tray = led(table)
    with pytest.raises(NoRoom, match="would be 19 cells wide"):
        hands_of(reader).actions(Place((6, 0), ((17, 0), (18, 0))), tray.board())


def test_expected_names_leader_and_tableau(table):
    game, reader, tray = table
    assert reader.expected() == "hand 1: an empty tray; West leads 6-6"
    game, reader, tray = led(table)
    assert reader.expected() == "hand 1: the tableau of 1 tile as it lay, built out from 6-6"  # rule BW-11.1


def keeping_to_the_tray(reader, tray, strategy):
    """A bot that keeps to moves the tray has room for, as the table's bots do."""
    return lambda game: fitting(game, hands_of(reader), tray.board(), strategy(game))[0]


def test_observed_leader_by_button_and_shows():
    """rule BW-11.5: at a real table who leads is a button, and the lead is then oriented for that
    seat (the shows at the end of a hand are read in the observed whole-match test)."""
    game = Broadway(seed=1, observed=True, options={"hands": 1})
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    verdict = reader.judge(tray.board())
    assert verdict.same and "choose who leads with the buttons" in verdict.note
    labels = [label for label, _ in reader.button_moves()]
    assert labels == ["North leads", "East leads", "South leads", "West leads"]
    game.push(dict(reader.button_moves())["East leads"])
    tray.lay("6-6", 4, 5)
    assert "East plays tiles north-south" in reader.judge(tray.board()).problem
    tray.take("6-6")
    tray.lay("6-6", 4, 5, "down")
    assert reader.judge(tray.board()).moves == (game.lead_move(),)


@pytest.mark.parametrize("seed, observed", [(0, False), (1, False), (2, True)])
def test_whole_match_by_the_adapters_own_actions(seed, observed):
    """A match played only through actions -> tray -> judge (and buttons) ends with the engine's
    scores, at a real table (observed) too."""
    game = Broadway(seed=seed, options={"hands": 1 if observed else 2}, observed=observed)
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    strategy = (random_bot if observed else greedy_bot)(random.Random(seed))  # greedy is slow observed
    play_through(game, reader, tray, keeping_to_the_tray(reader, tray, strategy))
    replay = type(game).from_json(game.to_json())
    assert game.is_over() and replay.scores == game.scores and replay.winners() == game.winners()


def test_a_bot_gives_way_to_a_move_that_fits_when_the_tray_has_no_room(table):
    """BW-11: a tableau can outgrow the tray; the table's bots then play another legal move."""
    game, reader, tray = led(table)
    chosen = next(iter(game.legal_moves()))

    class Cramped(type(hands_of(reader))):
        def actions(self, move, board):
            if move == chosen:
                raise NoRoom(f"no room for {move}")
            return super().actions(move, board)

    move, actions = fitting(game, Cramped(game, tray.geometry), tray.board(), chosen)
    assert move != chosen and game.is_legal(move) and actions
    tray.apply(actions)
    assert reader.judge(tray.board()).moves == (move,)


def test_bw4_1_a_tile_laid_apart_from_the_tableau_is_a_prompt_not_a_placement(table):
    """rules BW-4.1, BW-11.7 (issue 18): 6-0 laid four columns past the tableau touches nothing:
    hands at work, prompted if it stays with the tile, its cells and the rule; never a
    placement. Against a segment that does not match it is refused at once."""
    game, reader, tray = led(table)
    tray.lay("6-0", 4, 10)
    verdict = reader.judge(tray.board())
    assert not verdict.moves and verdict.pending
    assert verdict.problem == ("lay 0-6 with a half against the same number in the tableau: 6-0 on r4c10-r4c11 "
                               "touches no matching segment (rule BW-4.1)")
    tray.take("6-0")
    tray.lay("0-6", 4, 6)
    verdict = reader.judge(tray.board())
    assert not verdict.moves and not verdict.pending and "(rule BW-4.1)" in verdict.problem


def test_bw11_1_a_tableau_tile_slid_apart_is_put_back(table):
    """rule BW-11.1: a tile of the tableau slid away from its place (a gap where it lay) is
    not a new layout: hands at work, prompted to go back, naming its cells and its numbers."""
    game, reader, tray = led(table)
    tray.lay("6-0", 4, 6)
    game.push(reader.judge(tray.board()).moves[0])
    tray.take("6-0")
    tray.lay("6-0", 4, 9)
    verdict = reader.judge(tray.board())
    assert not verdict.moves and verdict.pending
    assert verdict.problem == "put 0-6 back at r4c6-r4c7, its 6 on r4c6 (cell 70) (rule BW-11.1)"
