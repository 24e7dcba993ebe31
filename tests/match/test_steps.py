"""What the table waits for next, as the typed instruction (match/steps.py, reading/instruction.py)
and in the prompt voice's words (reading/prompts.py), decided by the judge for whoever is to act
(issue 28, item 2): the person to move gets the whole turn up to how it finishes, "any tile" where
the table cannot see their hand, its places outlined; a seat the table plays gets its next step,
its face-down tile named only on its own turn; a rack's slots are said plainly."""

from __future__ import annotations

from dominotable.games import catalog
from dominotable.match import steps
from dominotable.match.decision import Wait
from dominotable.match.judge import Context
from dominotable.match.position import Hold, Position
from dominotable.match.seats import SeatKind, TableSeats
from dominotable.reading import prompts
from dominotable.reading.instruction import Do, Instruction, Step
from dominotable.rules.games.broadway.engine import Broadway
from dominotable.rules.games.castle_rock.engine import END
from dominotable.rules.games.doubles_boneyard.engine import DoublesInTheBoneyard
from dominotable.rules.games.up_down_stop.engine import UpDownStop
from dominotable.sim.memtray import MemoryTray
from support import follow
from support.table_helpers import GEO, column, laid, rigged
from support.table_sim import judge_of


def waited(game, layout=None) -> Instruction:
    """The instruction the judge decides for `game` (a table of people alone) on its laid-out tray."""
    judge, position = judge_of(game, GEO)
    layout = layout or laid(game)[1]
    decision = judge.judge(position, layout.board(), Context())
    assert isinstance(decision, Wait), decision
    return decision.instruction


def words(said: Instruction) -> str:
    return prompts.said(said, GEO)


# -- the person to move ----------------------------------------------------------------------


def test_castle_rock_the_person_to_move_is_told_the_open_end_and_how_to_finish():
    """Issue 28, Why 1: after the starting row the page said "ANN to play" over an empty prompt. The
    person to move is told where the tile goes (the row's next column), that captures follow, and
    that End turn finishes (CR-4, CR-10.1)."""
    game = rigged("1-6 3-5 1-5", ["0-0 2-3", "4-4 5-6"])
    said = waited(game)
    assert (said.seat, said.who, said.table) == (0, "P1", False)
    assert said.steps == (Step(Do.LAY, cells=column(3), place="upright at the open end"), Step(Do.TAKE),
                          Step(Do.PRESS, label="End turn"))
    assert words(said) == "put a tile upright at the open end, r4c3-r5c3; take any captures; then End turn"


def test_castle_rock_once_placed_the_captures_open_are_outlined_then_end_turn():
    game = rigged("2-4 0-0 2-0 0-3", ["4-4", "5-6 1-1"], placed="0-3")  # 2-0 is pinched by 0-0 and 0-3
    said = waited(game)
    assert said.steps == (Step(Do.TAKE, cells=column(1) + column(2) + column(3)),  # what some capture takes
                          Step(Do.PRESS, label="End turn"))
    assert words(said) == "take any captures among r4c1-r5c1, r4c2-r5c2 and r4c3-r5c3; then End turn"


def test_castle_rock_with_nothing_left_to_do_but_end_the_turn():
    """The last turn of a hand (CR-6.1): the OLED alone said "hold select: end turn"."""
    game = rigged("1-2 5-5 3-4", ["0-6", "0-0"], placed="3-4")
    said = waited(game)
    assert list(game.legal_moves()) == [END]
    assert said.steps == (Step(Do.PRESS, label="End turn"),) and words(said) == "End turn"


def test_broadway_any_tile_on_the_places_outlined_or_pass():
    """The places outlined are where some tile the person may hold is laid (targets.py); Pass is
    offered as the other way on (BW-6)."""
    game = Broadway(options={"hands": 1}, seed=3, observed=True)
    for text in ["lead W", "6-6@(0,0)-(0,1)"]:
        game.push(game.parse_move(text))
    said = waited(game)
    lay = said.steps[0]
    assert lay.do == Do.LAY and not lay.tiles and len(lay.cells) % 2 == 0 and lay.cells
    assert said.instead == ((Step(Do.PRESS, label="pass"),),)
    assert words(said).startswith("put a tile on r") and words(said).endswith("; or pass")


def test_up_down_stop_the_drawn_tile_on_a_column_end_the_scrap_or_a_new_column():
    game = UpDownStop(seed=9, options={"columns": 3}, observed=True)
    game.push(game.parse_move("2-5 new"))
    said = waited(game)
    assert said.seat == 0 and said.steps[0].do == Do.LAY and said.steps[0].cells
    assert not any(s.do == Do.PRESS for s in said.steps)  # the turn ends once the tile is read
    assert "every tile" not in words(said) and "BW-" not in words(said)


def test_doubles_any_tile_against_an_open_end():
    game = DoublesInTheBoneyard(players=3, options={"target": 50}, seed=8714, observed=False)
    while game.line() is None or len(game.line()) < 3:
        game.push(next(iter(game.legal_moves())))
    said = waited(game)
    assert said.seat == game.current_player and said.steps[0].do == Do.LAY


# -- a seat the table plays --------------------------------------------------------------------


def castle_rock_against_bots():
    """Castle Rock for four, ANN against three bots, a row laid and West bot to move with its rack
    holding 0-0 and 5-6."""
    game = rigged("1-6 3-5 1-5", ["2-3 4-4", "0-0 5-6", "1-1 2-2", "3-3 4-6"], turn=1)
    names = ["ANN", "West bot", "North bot", "East bot"]
    racks = GEO.racks("castle-rock")
    spec = catalog.spec(game)
    seats = TableSeats(racks, [SeatKind.HUMAN, *[SeatKind.BOT] * 3], names, 1, spec.hands_for(game, GEO),
                       {seat: spec.strategy("greedy") for seat in (1, 2, 3)})
    holds = {seat: Hold({k + 1: t for k, t in enumerate(game.state.hands[seat])}) for seat in (1, 2, 3)}
    layout = laid(game)[1]
    for seat, hold in holds.items():
        for slot, tile in hold.rack.items():
            layout.place(tile, racks[seat].slots[slot - 1])
    return game, seats, Position(game, holds), layout


def test_a_bots_step_names_its_slot_and_tile_on_its_own_turn_and_the_cells():
    game, seats, p, layout = castle_rock_against_bots()
    area = seats.without_racks(layout.board())[0]
    said = steps.waited(seats, p, area)
    step = said.steps[0]
    assert (said.seat, said.who, said.table, len(said.steps)) == (1, "West bot", True, 1)
    assert step.do == Do.LAY and step.slots and step.tiles == (p.holds[1].rack[step.slots[0]],)
    assert step.cells == column(3) and step.place == "upright at the open end"
    assert words(said) == f"slot {step.slots[0]} ({step.tiles[0]}) -> upright at the open end, r4c3-r5c3"
    assert follow.actions(step, dict(layout.tiles), GEO, seats.racks[1])[-1].cells == column(3)


def test_no_bots_step_while_the_person_is_to_move():
    """Issue 28, Why 2: right after ANN placed, the prompt read "West bot after ANN: slot 1 (0-0) ->
    upright at the open end", naming the bot's face-down tile while ANN was still to play."""
    game, seats, p, layout = castle_rock_against_bots()
    game.state.turn = 0
    assert steps.waited(seats, p, seats.without_racks(layout.board())[0]) is None


def test_a_racks_tiles_from_the_boneyard_name_the_slots_and_no_tile():
    game, seats, p, layout = castle_rock_against_bots()
    del p.holds[2].rack[2]
    said = seats.short(p)[0]
    assert said.rack and said.steps == (Step(Do.DEAL, slots=(2,), count=1),) and not said.steps[0].tiles
    assert (said.who, words(said)) == ("North bot", "a tile from the boneyard, face down, into slot 2")
    p.holds[2].rack.clear()
    assert words(seats.short(p)[0]) == "2 tiles from the boneyard, face down, into slots 1 and 2"


def test_the_words_of_every_kind_of_step():
    """The prompt voice: tiles by name, cells as the tray names them (never a cell number), plurals."""
    t = Broadway(seed=1).dset.parse
    cases = {
        Step(Do.LAY, (t("3-5"),), (GEO.cell(4, 6), GEO.cell(4, 7)), (2,)): "slot 2 (3-5) -> r4c6-r4c7, the 3 on r4c6",
        Step(Do.LAY, (t("4-4"),), (GEO.cell(4, 6), GEO.cell(5, 6))): "put 4-4 r4c6-r5c6",
        Step(Do.TAKE, (t("2-4"), t("4-4")), place="off the row"): "take 2-4 and 4-4 off the row",
        Step(Do.SLIDE, (t("1-2"),), by=(-1, 2), rule="BW-11.1"): "slide every tile 2 right, 1 up (rule BW-11.1)",
        Step(Do.DEAL, slots=(1, 2, 3), count=3): "3 tiles from the boneyard, face down, into slots 1-3",
        Step(Do.EMPTY, slots=(1, 3)): "hand over: take the tiles out of slots 1 and 3",
        Step(Do.PAD, (t("6-6"),)): "hold 6-6 over the scan pad",
    }
    for step, said in cases.items():
        assert prompts.step(step, GEO) == said
        assert "cell " not in prompts.step(step, GEO)


def test_a_slide_before_a_place_is_a_way_on():
    """Up-Down-Stop, a one-way column of one tile at the left of its zone: some tiles go on its left
    number only once the tile is slid to the middle (the hands' ladder, UDS-10.3); that way is said,
    so no tile the person may draw is left without one."""
    game = UpDownStop(seed=1, options={"columns": 2}, observed=True)
    game.push(game.parse_move("1-2 new"))
    said = waited(game)
    ways = [said.steps, *said.instead]
    slid = next(way for way in ways if way[0].do == Do.SLIDE)
    assert [s.do for s in slid] == [Do.SLIDE, Do.LAY] and slid[0].tiles == (game.dset.parse("1-2"),)
    assert "; or slide 1-2 r0c1-r0c2, the 1 on r0c1; then put a tile on " in words(said)


# -- no position without a way on (issue 28, Why 3c) ----------------------------------------------

DEAD_ENDS = {  # Up-Down-Stop for one person, two columns: a drawn tile whose only places need tiles moved first
    "a new column in a stopped column's zone (UDS-10.4)": (
        1, "1-2 new, 4-5 new, 5-6 c2+5, 0-2 c1+2, 0-4 scrap, 2-2 stop c1", "0-1"),
    "the scrap zone full (UDS-10.5)": (
        1, "1-2 new, 4-5 new, 5-6 c2+5, 0-2 c1+2, 0-4 scrap, 2-2 stop c1, 5-5 stop c2, 3-5 new, 3-6 new, 2-5 c3-2, "
           "2-3 c4-2, 1-1 discard, 0-6 scrap, 0-0 discard, 1-5 c3-1, 2-4 scrap, 1-6 c4-1, 4-6 scrap", "1-3"),
    "a column out of rows, its oldest tile put aside and the rest slid up (UDS-10.6)": (
        1, "0-1 new, 1-2 c1+2, 2-3 c1+3, 3-4 c1+4, 4-5 c1+5, 5-6 c1+6, 0-6 c1+0, 1-3 c1+1, 2-4 c1+2, 3-5 c1+3, "
           "4-6 c1+4, 0-5 c1+5, 1-4 new", "1-6"),
}


def test_regression_every_up_down_stop_dead_end_says_the_tiles_to_move_first():
    """Issue 28, Why 3c: found by an HTTP check of the whole flow, Up-Down-Stop left the person with
    no prompt and no target when a new column needed a stopped column's zone, when the scrap zone was
    full, or when a column ran out of rows: 13 held tiles had no target. A place that needs tiles
    moved first gets no target as the tray lies (laid there, the tray would not show the position),
    so the instruction says the way: the tiles to take aside or slide, then where the tile goes;
    done as said, the tile drawn is offered there and taken."""
    for case, (seed, moves, drawn) in DEAD_ENDS.items():
        game = UpDownStop(seed=seed, options={"columns": 2}, observed=True)
        for text in moves.split(", "):
            game.push(game.parse_move(text))
        judge, position = judge_of(game, GEO)
        layout = laid(game)[1]
        tile = game.dset.parse(drawn)
        assert judge.targets.of(position, layout.board(), tile) == (), case
        said = judge.judge(position, layout.board(), Context()).instruction
        ways = [way for way in (said.steps, *said.instead) if way[0].do != Do.LAY]
        assert ways, f"{case}: {words(said)}"
        offered = []
        for way in ways:
            ready = MemoryTray.of(layout.board())
            for step in way[:-1]:
                ready.apply_all(follow.actions(step, dict(ready.tiles), GEO))
            spots = {frozenset(spot) for spot in follow.spots(way[-1])}
            offered += [cells for cells in judge.targets.of(position, ready.board(), tile) if frozenset(cells) in spots]
        assert offered, f"{case}: {words(said)}"


def test_regression_a_move_is_named_as_the_prompt_names_it_never_in_notation():
    """Issue 28, Why 6 and 7: Castle Rock offered "Take back lots 3-5 2-6 1-4 6-6"; Broadway's button
    read "Take back 5-6" while the prompt said "6-5", and the result "CAT took back 6-5@(1,1)-(2,1)";
    the OLED said "ANN: 4-6 c2+4 -1". A move is named by its tile, the capture of its tiles, what a
    reveal shows, or its button's label; a play's points in words; Up-Down-Stop's columns by name."""
    from dominotable.match.last_play import LastPlay
    from dominotable.rules.games.broadway.engine import Place
    from dominotable.rules.games.castle_rock.capture import Capture
    from dominotable.rules.hidden import Reveal

    t = Broadway(seed=1).dset.parse
    assert prompts.named(Reveal("lots", (t("3-5"), t("2-6"), t("1-4"), t("6-6")))) == "the draw"
    assert prompts.named(Reveal("show", (t("2-3"),), "N")) == "the tiles shown (2-3)"
    assert prompts.named(Capture("middle", 1, (t("3-5"), t("2-6")))) == "the capture of 3-5 and 2-6"
    assert prompts.named(END, "End turn") == "End turn"
    place = Place.of(6, 5, (1, 1), (2, 1))
    assert prompts.named(place) == "5-6" and catalog.spec("broadway").word(Broadway(seed=1), place,
                                                                           ["ANN"] * 4) == "ANN laid 5-6"
    assert str(LastPlay("ANN", "4-6 c2+4", -1, "ANN laid 4-6 on column 2, up to 4")) == \
        "ANN laid 4-6 on column 2, up to 4, 1 off the score"
    assert str(LastPlay("ANN", "x2-4", 3)) == "ANN x2-4, scores 3"
    reader = catalog.reader_for(UpDownStop(seed=1, observed=True), GEO)
    assert reader.in_tray_terms("rule UDS-3.6: 0-4 c3+4 cannot go on c2; tops are 2 on c1", None) == \
        "rule UDS-3.6: 0-4 on column 3, up to 4 cannot go on column 2; tops are 2 on column 1"
