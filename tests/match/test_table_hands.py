"""Hands at the table, with a fake clock: captures made tile by tile, who a removal belongs to,
takebacks that follow the hands, dead readers, tiles in motion. Regression tests for the five
logic bugs of issue 12 (each test names its bug and the rules it checks)."""

from itertools import permutations

import pytest
from dominotable.rules.games.castle_rock.engine import CastleRock, place
from dominotable.rules.games.doubles_boneyard.engine import DoublesInTheBoneyard
from dominotable.sim.memtray import MemoryTray
from dominotray import wire
from support.table_helpers import GEO, REGISTRY, SETTLE, T, Table, column, cr9, rigged, started, with_tiles

PROMPT_AFTER = 2000


def watched(table):
    """Record every problem prompt the table shows, and every alarm, from now on."""
    seen = {"alarms": [], "prompts": []}
    table.session.referee.status.on_alarm = lambda: seen["alarms"].append(table.session.screen().text)
    tick = table.session.tick

    def watching():
        changed = tick()
        screen = table.session.screen()
        if screen.kind == "prompt" and screen.title in ("Fix the tray", "Check the tray"):
            seen["prompts"].append(screen.text)
        return changed

    table.session.tick = watching
    return seen


def triple(tmp_path):
    """Issue 12's row: P1 has placed 0-5 on 6-6 0-0 0-1; the legal triple is x0-0+0-1+0-5."""
    table = started(tmp_path, rigged("6-6 0-0 0-1", ["0-5 3-3", "5-5 4-4"]))
    table.play(place(T("0-5")))
    assert table.stored() == ["0-5"]
    return table


@pytest.mark.parametrize("order", list(permutations(["0-0", "0-1", "0-5"])))
def test_bug1_a_capture_taken_tile_by_tile_is_judged_as_a_whole(tmp_path, order):
    """Bug 1, rules CR-5.3, CR-10.10: whatever order the three tiles leave in, with a second
    between lifts, the turn's removals are judged together against the row the turn started
    from: a legal part may be committed, but never so that it forbids the whole; no alarm,
    no prompt on the way."""
    table = triple(tmp_path)
    seen = watched(table)
    row = table.layout
    gone = {}
    for tile in order:
        gone[f"t{tile.replace('-', '_')}"] = None
        table.show(with_tiles(row, **gone))
        table.clock.advance(1000 - SETTLE)
        table.session.tick()
    assert table.stored() == ["0-5", "x0-0+0-1+0-5"] and table.game.row() == (T("6-6"),)
    assert seen == {"alarms": [], "prompts": []}


def test_bug1_the_turns_captures_are_final_once_the_turn_closes(tmp_path):
    """Bug 1, rules CR-5.6, CR-10.10: x0-1 stands once P2's placement closes P1's turn; 0-0 and 0-5 taken
    after that are P2's to answer for (and cannot be captured any more)."""
    table = triple(tmp_path)
    row = table.layout
    table.show(with_tiles(row, t0_1=None))
    assert table.stored() == ["0-5", "x0-1"]
    table.show(with_tiles(row, t0_1=None, t5_5=column(4)))
    assert table.stored() == ["0-5", "x0-1", "end", "5-5"]
    table.show(with_tiles(row, t0_1=None, t0_0=None, t5_5=column(4)))
    assert table.stored() == ["0-5", "x0-1", "end", "5-5"] and table.session.referee.status.alarms == 1


def test_bug2_captures_not_needing_the_new_tile_are_the_previous_players(tmp_path):
    """Bug 2, rule CR-10.11: P1's capture x4-4 and P2's placement 5-5 first seen in one settled
    board: x4-4 needs no 5-5, so it is P1's, before the end of P1's turn."""
    table = cr9(tmp_path, placed=None)
    table.play(place(T("1-4")))
    table.show(with_tiles(table.layout, t4_4=None, t5_5=column(9)))
    assert table.stored() == ["1-4", "x4-4", "end", "5-5"]
    assert table.game.captured() == (1, 0)


def test_bug2_a_capture_needing_the_new_tile_is_the_new_players(tmp_path):
    """Bug 2, rule CR-10.11: in the same board, x1-4 needs 5-5 as a pincher (1-5 and 5-5 share
    the 5): that one is P2's, after placing; x4-4 is still P1's."""
    table = cr9(tmp_path, placed=None)
    table.play(place(T("1-4")))
    table.show(with_tiles(table.layout, t4_4=None, t1_4=None, t5_5=column(9)))
    assert table.stored() == ["1-4", "x4-4", "end", "5-5", "x1-4"]


def doubles(tmp_path):
    """Doubles in the Boneyard, seed 1: P1 leads 2-4 on r5c7-r5c8; P2 holds 4-6 and 0-1."""
    table = Table(tmp_path, DoublesInTheBoneyard(seed=1), layout=MemoryTray(REGISTRY, GEO))
    table.show()
    table.layout.place(T("2-4"), (GEO.cell(5, 7), GEO.cell(5, 8)))
    table.show()
    assert table.stored() == ["2-4"]
    return table


def test_bug3_a_wrong_second_tile_gets_its_fix_prompt_not_a_takeback(tmp_path):
    """Bug 3, rule DB-8.3: 4-6 laid the wrong way round (its 6 against the open 4) is refused
    with its fix; "Take back?" is offered only when the tray shows exactly the position before
    the last move (here the lead is still on the tray)."""
    table = doubles(tmp_path)
    table.layout.place(T("4-6"), (GEO.cell(5, 10), GEO.cell(5, 9)))
    table.show()
    assert table.screen.title == "Fix the tray"
    assert table.screen.text == "4-6 must touch the open 4 at r5c8 (cell 88) with its 4 (rule DB-8.3)"
    assert table.session.referee.status.alarms == 1 and table.stored() == ["2-4"]


def test_bug3_a_lifted_last_tile_offers_its_takeback(tmp_path):
    """rule DB-8.7: the tray shows exactly the position before the lead: "Take back?"."""
    table = doubles(tmp_path)
    table.show(MemoryTray(REGISTRY, GEO))
    assert (table.screen.title, table.screen.text) == ("Take back?", "take back 2-4? press select")
    table.press("select")
    assert table.stored() == [] and table.session.referee.status.alarms == 0


def test_a_different_tile_in_place_of_the_lifted_one_is_take_back_and_play_instead(tmp_path):
    """Takeback that follows the hands: 1-4 lifted right after its commit and 3-3 stood in its
    place read as "take back 1-4 and play 3-3 instead", one confirmation."""
    table = cr9(tmp_path, placed=None)
    table.play(place(T("1-4")))
    swapped = with_tiles(table.layout, t1_4=None, t3_3=column(8))
    table.show(swapped)
    assert table.screen.text == "take back 1-4 and play 3-3 instead? press select"
    assert table.session.referee.status.alarms == 0
    table.press("select")
    assert table.stored() == ["3-3"] and table.screen.kind == "play"


def test_bug4_a_dead_reader_outside_the_games_cells_is_a_warning(tmp_path):
    """Bug 4: r11c15 is no cell of Castle Rock's: a warning on the status line, and play goes on."""
    table = cr9(tmp_path, placed=None)
    table.layout.extra[GEO.cell(11, 15)] = (wire.FAULT, b"")
    table.show()
    assert table.screen.kind == "play" and table.screen.warning == "reader r11c15 dead (not used by this game)"
    assert table.screen.text.endswith(". Reader r11c15 dead (not used by this game)")  # after the turn's words
    table.play(place(T("1-4")))
    assert table.stored() == ["1-4"] and table.session.referee.status.alarms == 0


def test_bug4_a_dead_reader_inside_is_named_and_read_around(tmp_path):
    """Bug 4: a dead reader in the row band is named; placements that do not touch it are read;
    a tile with a half beside it (its other half may lie on it) gets a prompt naming the cell."""
    table = cr9(tmp_path, placed=None)
    dead = GEO.cell(4, 12)
    table.layout.extra[dead] = (wire.FAULT, b"")
    table.show()
    assert table.screen.text.endswith(". Reader r4c12 dead: play around it")
    table.play(place(T("1-4")))
    assert table.stored() == ["1-4"]
    table.layout.tiles[T("5-5")] = (GEO.cell(5, 12), dead)  # 5-5 stood on the dead reader's column
    table.show()
    assert table.screen.title == "Check the tray"
    assert table.screen.text == "the reader at r4c12 does not answer: move the tile at r5c12 off it, or mend the reader"


def test_bug5_a_tile_in_the_second_band_while_the_first_has_room(tmp_path):
    """Bug 5, rule CR-10.2: 1-4 stood in band 2 while band 1 has room is refused with where it
    goes; stood in band 1 it is the placement."""
    table = cr9(tmp_path, placed=None)
    row = table.layout
    table.show(with_tiles(row, t1_4=column(3, band=1)))
    assert table.screen.text == "stand 1-4 in the first band (rows 4 and 5), after 1-5: it still has room (rule CR-10.2)"
    assert table.stored() == [] and table.session.referee.status.alarms == 1
    table.show(with_tiles(row, t1_4=column(12)))
    assert table.stored() == ["1-4"]


def test_a_tag_in_two_cells_is_a_tile_moving(tmp_path):
    """A tag read in two cells (the old cell not yet read empty) is a tile in motion: no alarm,
    no prompt; only if the tray stays so for prompt_after_ms is it prompted, quietly."""
    table = cr9(tmp_path, placed=None)
    seen = watched(table)
    half = table.layout.cells()[column(3)[0]]
    table.layout.extra[GEO.cell(9, 3)] = half
    table.show()
    table.clock.advance(PROMPT_AFTER - SETTLE - 1)
    table.session.tick()
    assert table.screen.kind == "play" and seen == {"alarms": [], "prompts": []}
    table.clock.advance(1)
    table.session.tick()
    assert table.screen.title == "Check the tray" and "read in 2 cells" in table.screen.text
    assert seen["alarms"] == []
    table.layout.extra.clear()
    table.show()
    assert table.screen.kind == "play"


def test_a_lifted_tile_of_the_line_is_being_handled(tmp_path):
    """rules DB-8.2, DB-8.7: a tile of the line lifted (not the last move) is hands at work: prompted
    only after prompt_after_ms, no alarm; back in place, play goes on."""
    table = doubles(tmp_path)
    table.layout.place(T("4-6"), (GEO.cell(5, 9), GEO.cell(5, 10)))
    table.show()
    assert table.stored() == ["2-4", "4-6>"]
    seen = watched(table)
    line = table.layout
    table.show(with_tiles(line, t2_4=None))
    assert table.screen.kind == "play"
    table.clock.advance(PROMPT_AFTER)
    table.session.tick()
    assert table.screen.text.startswith("put 2-4 back in the line") and seen["alarms"] == []
    table.show(line)
    assert table.screen.kind == "play" and table.stored() == ["2-4", "4-6>"]


def test_a_lift_seen_late_still_offers_take_back_and_play_instead(tmp_path):
    """Observed play: P1 stands 2-2 (taken), then lifts it and stands 3-3 in its place; the
    table sees 3-3 before it sees 2-2 gone, so it takes 3-3 as P2's placement. Once the lift is
    seen, one confirmation undoes all three moves and plays 3-3 as P1's."""
    table = observed_row(tmp_path)
    row = table.layout
    table.show(with_tiles(row, t2_2=column(3)))
    assert table.stored() == ["2-2"]
    table.show(with_tiles(row, t2_2=column(3), t3_3=column(4)))
    assert table.stored() == ["2-2", "end", "3-3"]
    table.show(with_tiles(row, t3_3=column(4)))
    assert table.screen.text == "take back 2-2, End turn and 3-3 and play 3-3 instead? press select"
    assert table.session.referee.status.alarms == 0
    table.press("select")
    assert table.stored() == ["3-3"] and table.game.current_player == 0 and table.screen.kind == "play"


def observed_row(tmp_path):
    """Observed Castle Rock (CR-11.3: any unseen tile may be placed): P1 to place on 6-6 0-0 0-1."""
    game = CastleRock.from_position("row: 6-6 0-0 0-1\nP1: 0-5 3-3\nP2: 5-5 4-4\nturn: P1", observed=True)
    return started(tmp_path, game)


def test_a_tile_laid_after_the_lift_was_seen_replaces_the_lifted_one(tmp_path):
    """P1 stands 2-2 (taken), lifts it ("Take back 2-2?"), then stands 1-3 in its place. By the
    rules alone that could be P2 placing 1-3 and capturing 2-2 between 0-1 and 1-3, but 2-2
    left before 1-3 came, so no capture can have needed 1-3: the table offers to take 2-2 back
    and play 1-3 instead."""
    table = observed_row(tmp_path)
    row = table.layout
    table.show(with_tiles(row, t2_2=column(3)))
    assert table.stored() == ["2-2"]
    table.show(row)
    assert table.screen.text == "take back 2-2? press select"
    table.show(with_tiles(row, t1_3=column(3)))
    assert table.screen.text == "take back 2-2 and play 1-3 instead? press select"
    table.press("select")
    assert table.stored() == ["1-3"] and table.game.current_player == 0


def test_a_tile_stood_where_the_lifted_one_stood_replaces_it(tmp_path):
    """The lift and the new tile first seen in one settled board: 1-3 stands in the very cells
    2-2 stood in, so it replaces 2-2 (once confirmed) rather than capturing it as P2's move."""
    table = observed_row(tmp_path)
    row = table.layout
    table.show(with_tiles(row, t2_2=column(3)))
    table.show(with_tiles(row, t1_3=column(3)))
    assert table.screen.text == "take back 2-2 and play 1-3 instead? press select"
    table.press("select")
    assert table.stored() == ["1-3"]


def test_the_next_placement_beside_the_last_tile_may_capture_it(tmp_path):
    """rule CR-10.11: 1-3 stood after 2-2 (not in its place) with 2-2 gone in the same board is
    P2 placing 1-3 and capturing 2-2 (pinched by 0-1 and 1-3)."""
    table = observed_row(tmp_path)
    row = table.layout
    table.show(with_tiles(row, t2_2=column(3)))
    table.show(with_tiles(row, t1_3=column(4)))
    assert table.stored() == ["2-2", "end", "1-3", "x2-2"] and table.screen.kind == "play"


def test_a_prompt_goes_as_soon_as_the_tray_is_put_right(tmp_path):
    """Two tiles at once (rule CR-10.5: the second is out of turn): prompt and alarm once the
    tray settles; taking the second off clears the prompt at once, without waiting for the
    settle time, and the placement is committed once the tray has settled."""
    table = cr9(tmp_path, placed=None)
    row = table.layout
    table.show(with_tiles(row, t1_4=column(8), t3_3=column(9)))
    assert table.screen.title == "Fix the tray" and table.session.referee.status.alarms == 1
    table.show(with_tiles(row, t1_4=column(8)), settle=False)
    assert table.screen.kind == "play" and table.stored() == []
    table.clock.advance(SETTLE)
    table.session.tick()
    assert table.stored() == ["1-4"] and table.session.referee.status.alarms == 1
