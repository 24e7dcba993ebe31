"""Up-Down-Stop read off the tray (rules UDS-10.x in seeds/up-down-stop.md)."""

import random

import pytest
from dominotable.games import catalog
from dominotable.reading.up_down_stop import UpDownStopReader
from dominotable.rules.games.up_down_stop.engine import (
    DOWN,
    UP,
    Discard,
    Extend,
    Scrap,
    Start,
    Stop,
    UpDownStop,
)
from dominotable.sim.bots.shared import greedy_bot, random_bot
from dominotable.sim.hands.base import NoRoom
from support.table_sim import SimTray, hands_of, judge_of, play_through


def table(seed=5, observed=False, moves=(), **options):
    game = UpDownStop(seed=seed, options=options, observed=observed)
    for text in moves:
        game.push_notation(text)
    tray = SimTray()
    return game, catalog.reader_for(game, tray.geometry), tray


def read(reader, tray):
    return reader.judge(tray.board())


def test_adapter_is_registered():
    assert isinstance(table()[1], UpDownStopReader)


def test_first_tile_starts_a_column_in_the_first_zone():
    """rules UDS-10.2, UDS-10.4: seed 5 draws 3-5 first; laid across a row of uds-column-1."""
    game, reader, tray = table()
    tray.lay("3-5", 0, 1)
    assert read(reader, tray).moves == (Start(game.dset.parse("3-5")),)


def test_new_column_in_the_wrong_zone():
    """rule UDS-10.4: columns take the zones in order."""
    game, reader, tray = table()
    tray.lay("3-5", 0, 4)
    verdict = read(reader, tray)
    assert verdict.problem == "a new column starts in zone 1, not zone 2 (rule UDS-10.4)"
    assert set(verdict.cells) == {tray.cell(0, 4), tray.cell(0, 5)}


def started():
    """3-5 starts c1 across r0c1-r0c2 (the 3 on r0c1); 4-5 is drawn next."""
    game, reader, tray = table()
    tray.lay("3-5", 0, 1)
    game.push(read(reader, tray).moves[0])
    return game, reader, tray


def test_extension_under_the_number_it_follows():
    """rules UDS-3.3, UDS-10.3: the 4 straight under the 3, the 5 to the side: c1 going up."""
    game, reader, tray = started()
    tray.lay("4-5", 1, 1, "left")
    assert read(reader, tray).moves == (Extend(game.dset.parse("4-5"), 1, 4, UP),)


def test_extension_down_from_the_other_number():
    """The 4 under the 5 makes c1 go down; the 5 lying under the 3 fits nothing, so the
    reading is not ambiguous."""
    game, reader, tray = started()
    tray.lay("5-4", 1, 1)
    assert read(reader, tray).moves == (Extend(game.dset.parse("4-5"), 1, 4, DOWN),)


def test_tile_under_both_numbers_of_the_first_tile_is_ambiguous():
    """rule UDS-10.3 (observed mode, where any unseen tile may be the one drawn): 4-6 right
    under 3-5 reads as 4 up from 3 or 6 up from 5."""
    game, reader, tray = table(observed=True, moves=["3-5 new"])
    tray.lay("3-5", 0, 1)
    tray.lay("4-6", 1, 1)
    verdict = read(reader, tray)
    assert not verdict.moves and "4-6 lies under both numbers of column 1's first tile" in verdict.problem


def test_uds10_3_a_tile_laid_apart_from_its_column_is_a_prompt_not_a_move():
    """rule UDS-10.3: the next tile lies in the row right after the column's last, its active half
    in line. One laid rows away, touching nothing, is hands at work (pending: prompted only if it
    stays); the prompt names the tile, the cells it belongs on and the rule."""
    game, reader, tray = started()
    tray.lay("4-5", 3, 1)
    verdict = read(reader, tray)
    assert not verdict.moves and verdict.pending
    assert verdict.problem == ("lay 4-5 along row 1, a half on r1c1 (cell 17) or r1c2 (cell 18): each tile of column 1 "
                               "lies in the row after the last, its active half in line (rule UDS-10.3)")
    assert set(verdict.cells) == {tray.cell(3, 1), tray.cell(3, 2)}


def test_uds10_3_a_tile_against_its_column_in_the_wrong_place_is_refused_at_once():
    """rule UDS-10.3: a tile touching the column but not in its next place is no hands at work."""
    game, reader, tray = started()
    tray.lay("4-5", 0, 3, "down")  # beside 3-5, standing in zone 2: not on c1's ladder
    verdict = read(reader, tray)
    assert not verdict.moves and verdict.problem and not verdict.pending
    tray.take("4-5")
    tray.lay("4-5", 1, 2)  # under the 5, half out of c1's zone
    verdict = read(reader, tray)
    assert not verdict.moves and not verdict.pending and "(rule UDS-10.1)" in verdict.problem


def test_tile_standing_in_a_column():
    game, reader, tray = started()
    tray.lay("4-5", 1, 1, "down")
    assert read(reader, tray).problem == ("lay 4-5 along a row: every tile of a column lies across it "
                                           "(rule UDS-10.2)")


def test_tile_outside_every_zone():
    game, reader, tray = started()
    tray.lay("4-5", 11, 12, "up")
    assert read(reader, tray).problem.startswith("4-5 lies outside the columns, the scrap zone and the discard zone")


def test_wrong_tile_is_not_the_drawn_one():
    """rule UDS-1.2 (the engine's check): the seeded draw is 4-5, not 1-4."""
    game, reader, tray = started()
    tray.lay("4-1", 1, 1)
    verdict = read(reader, tray)
    assert not verdict.moves and "the drawn tile is 4-5, not 1-4" in verdict.problem


def test_second_column_and_discard():
    """rules UDS-3.1, UDS-4.2, UDS-10.4, UDS-10.5: 4-5 starts c2 in the next zone; the 2-2 that
    follows stops nothing and lands in the discard zone."""
    game, reader, tray = started()
    tray.lay("4-5", 0, 3)
    tray.lay("2-2", 6, 13)
    d = game.dset.parse
    assert read(reader, tray).moves == (Start(d("4-5")), Discard(d("2-2")))


def test_double_on_the_scrap_pile_is_refused():
    game, reader, tray = started()
    tray.lay("4-5", 0, 3)
    game.push(read(reader, tray).moves[0])
    tray.lay("2-2", 0, 13)
    verdict = read(reader, tray)
    assert not verdict.moves and "rule UDS-4.2" in verdict.problem and "2-2 is a double" in verdict.problem


def test_stop_across_the_top_of_a_column():
    """rules UDS-4.1, UDS-10.3: 5-5 in the next row with a half under the 5 stops c1."""
    game, reader, tray = table(observed=True, moves=["3-5 new"])
    tray.lay("3-5", 0, 1)
    tray.lay("5-5", 1, 2, "left")
    assert read(reader, tray).moves == (Stop(game.dset.parse("5-5"), 1),)


def test_scrap_in_the_scrap_zone():
    """rules UDS-3.7, UDS-10.5: 0-1 fits neither column, so it lands on the scrap pile."""
    game, reader, tray = table(observed=True, moves=["3-5 new", "4-5 new"])
    tray.lay("3-5", 0, 1)
    tray.lay("4-5", 0, 3)
    tray.lay("0-1", 2, 14)
    assert read(reader, tray).moves == (Scrap(game.dset.parse("0-1")),)
    tray.take("0-1")
    tray.lay("0-1", 4, 14)  # the near rows are for scraps after the first reshuffle
    assert read(reader, tray).problem == "scrap 0-1 into rows 0-2 of the scrap zone (rule UDS-10.5)"
    tray.take("0-1")
    tray.lay("0-1", 1, 3)
    assert "rule UDS-3" in read(reader, tray).problem  # a column place it does not fit


def test_column_tile_moved():
    game, reader, tray = started()
    tray.lay("4-5", 1, 1, "left")
    game.push(read(reader, tray).moves[0])
    tray.take("4-5")
    tray.lay("4-5", 1, 2, "left")
    assert read(reader, tray).problem == (
        "put 4-5 back in column 1, lying along row 1 with its 4 on r1c1 (cell 17) (rule UDS-10.3)")


def test_scrapped_tile_may_go_on_a_pile_beside_the_tray():
    """rule UDS-10.5: a scrapped tile may leave the tray, but not lie elsewhere on it."""
    game, reader, tray = table(observed=True, moves=["3-5 new", "4-5 new", "0-1 scrap"])
    tray.lay("3-5", 0, 1)
    tray.lay("4-5", 0, 3)
    assert read(reader, tray).same
    tray.lay("0-1", 6, 7)
    assert read(reader, tray).problem.startswith("put 0-1 back in the scrap zone")


def reshuffled(seed=0):
    """Seed 0 played with the random bot until the scrap pile has become the draw pile."""
    game, reader, tray = table(seed=seed)
    bot = random_bot(random.Random(seed))
    while game.piles().reshuffles == 0:
        move = bot(game)
        tray.apply(hands_of(reader).actions(move, tray.board()))
        game.push(move)
    return game, reader, tray


def test_reshuffle_asks_for_the_scrap_pile():
    """rules UDS-5.2, UDS-10.5: the old scrap pile leaves the tray before anything is read."""
    game, reader, tray = reshuffled()
    old = reader.old_scrap(tray.board())
    assert old and all(t in game.position().draw or t is game.drawn() for t in old)
    verdict = read(reader, tray)
    assert verdict.same and verdict.note.startswith("the draw pile ran out: take ")
    assert verdict.note.endswith("scrap into rows 3-5 of the scrap zone from now on (rule UDS-10.5)")
    for tile in old:
        tray.take(tile)
    assert read(reader, tray).same and read(reader, tray).note is None


def test_after_a_reshuffle_scraps_go_to_the_other_half():
    """rule UDS-10.5: the far rows before the first reshuffle, the near rows after it, so a tile
    scrapped again is never taken for one not yet cleared. Seed 3 draws 4-6 from the reshuffled
    pile, and it still fits nowhere."""
    game, reader, tray = reshuffled(3)
    for tile in reader.old_scrap(tray.board()):
        tray.take(tile)
    tile = game.drawn()
    assert str(tile) == "4-6" and tile not in tray.tiles
    tray.lay("4-6", 0, 13)
    verdict = read(reader, tray)
    assert not verdict.moves and "take 4-6 off the scrap zone" in verdict.note
    tray.take(tile)
    tray.lay("4-6", 4, 13)
    assert read(reader, tray).moves == (Scrap(tile),)


def test_expected_lists_columns_and_piles():
    game, reader, tray = table(observed=True, moves=["3-5 new", "4-5 new", "0-1 scrap"])
    assert reader.expected() == ("column 1 in zone 1: 3|5  top 3 either way (left), 5 either way (right)\n"
                                  "column 2 in zone 2: 4|5  top 4 either way (left), 5 either way (right)\n"
                                  "scrap zone: 0-1; discard zone: empty")


def bot_that_fits(tray, strategy):
    """A bot that keeps to moves its column has room for (a column holds 12 tiles)."""
    def choose(game):
        reader = catalog.reader_for(game, tray.geometry)
        moves = [strategy(game)] + list(game.legal_moves())
        for move in moves:
            try:
                hands_of(reader).actions(move, tray.board())
                return move
            except NoRoom:
                continue
        return moves[0]
    return choose


@pytest.mark.parametrize("seed, options, observed", [
    (0, {}, False), (3, {}, False), (1, {"both_ways": True}, False), (2, {"columns": 3}, False),
    (12, {"columns": 3}, False), (4, {"reshuffles": 2}, True), (20, {"columns": 1}, False)])
def test_whole_game_by_the_adapters_own_actions(seed, options, observed):
    """A game played only through actions -> tray -> judge ends with the engine's score,
    including zone reuse (UDS-10.4), reshuffles (UDS-10.5) and, with seed 20 and one column, a
    column longer than its zone (UDS-10.6)."""
    game = UpDownStop(seed=seed, options=options, observed=observed)
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    strategy = greedy_bot(random.Random(seed)) if seed % 2 else random_bot(random.Random(seed))
    play_through(game, reader, tray, bot_that_fits(tray, strategy))
    replay = type(game).from_json(game.to_json())
    assert game.is_over() and replay.scores == game.scores
    if options.get("columns") == 1:
        assert max(len(c.line) for c in game.columns()) > 12  # some tiles were put aside


def test_the_end_of_a_column_lifted_is_not_shown_for_the_hands_nor_a_fault_for_the_page():
    """Found by the chaos test: with the tile at the end of a column lifted, the hands raised
    KeyError planning the next tile on it (a plan, the page's targets for a held tile). The tray
    does not show the position (UDS-10.3): NotShown, a DominoError, and no targets."""
    from dominotable.sim.hands.base import NotShown
    from dominotable.tray.action import Action, ActionKind

    moves = ["0-4 new", "1-6 c1-6", "1-5 c1-5", "2-4 c1-4"]
    game = catalog.load({"game": "up-down-stop", "players": 1, "seed": 11, "observed": True, "moves": moves,
                         "options": {"set": 6, "columns": 2, "reshuffles": 1}})
    tray = SimTray()
    hands = catalog.hands_for(game, tray.geometry)
    tray.apply_all(hands.setup(tray.board()))
    move = next(m for m in game.legal_moves() if str(m) == "3-5 c1-3")
    assert hands.actions(move, tray.board())  # laid on the whole column: steps
    tray.apply(Action(ActionKind.REMOVE, game.dset.parse("2-4")))
    with pytest.raises(NotShown, match="2-4, the end of column 1 that 3-5 goes on, is not on the tray"):
        hands.actions(move, tray.board())
    judge, position = judge_of(game, tray.geometry)
    assert judge.targets.of(position, tray.board(), move.tile) == ()


def test_a_column_lying_low_in_its_zone_slides_up_whole_and_each_next_tile_reads_back():
    """Found by the chaos test: a one-way column's first tile slid down to its zone's last row. The
    next tile needs a row below it, so the hands made room (UDS-10.6) by putting the oldest tiles
    aside, here the first tile itself, and then found no tile to step away from (AttributeError).
    A column with rows to spare slides up instead (it puts nothing aside), and every legal move
    laid by the hands on such a tray reads back as that move."""
    from dominotable.tray.action import Action, ActionKind

    def lying_low():
        game = catalog.load({"game": "up-down-stop", "players": 1, "seed": 11, "observed": True,
                             "moves": ["0-4 new"], "options": {"set": 6, "columns": 2, "reshuffles": 1}})
        tray = SimTray()
        hands = catalog.hands_for(game, tray.geometry)
        tray.apply_all(hands.setup(tray.board()))
        first = game.dset.parse("0-4")
        cells, zone, width = tray.tiles[first], tray.geometry.zone("uds-column-1"), tray.geometry.columns
        down = max(d for d in range(20) if {c + d * width for c in cells} <= zone)
        tray.apply(Action(ActionKind.SLIDE, first, tuple(c + down * width for c in cells)))
        return game, tray, hands

    game, _, _ = lying_low()
    extensions = [m for m in game.legal_moves() if not isinstance(m, (Start, Discard))]
    assert extensions
    for move in extensions:
        game, tray, hands = lying_low()
        steps = hands.actions(move, tray.board())
        assert not any(step.kind == ActionKind.REMOVE for step in steps), move
        tray.apply_all(steps)
        assert catalog.reader_for(game, tray.geometry).judge(tray.board()).moves == (move,), move
