"""The draw over the scan pad (table/draw.py), read seat by seat off settled boards: rules
CR-10.8 (tiles drawn for dealer) and DB-8.5 (doubles drawn for the lead)."""

from dominotable.reading.draw import PadDraw
from dominotable.reading.reader import Draw
from dominotable.rules.hidden import Reveal
from dominotable.sim.hands.base import pad_actions
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from support.table_helpers import GEO, REGISTRY, T

DEALER = Draw((0, 1, 2), "for dealer", "CR-10.8")
NAMES = ["Ann", "Bo", "Cy"]


def hold(layout, text):
    layout.apply(Action(ActionKind.PAD, T(text)))
    return layout.board()


def off(layout, text):
    layout.apply(Action(ActionKind.UNPAD, T(text)))
    return layout.board()


def test_seats_draw_in_order_and_the_last_tile_pushes_lots():
    """rule CR-10.8: each seat in turn is asked for its tile; the prompt names who drew what;
    the third tile read is the `lots` move, tiles in seat order."""
    layout = MemoryTray(REGISTRY, GEO)
    draw = PadDraw(DEALER, NAMES, layout.board())
    assert draw.read(layout.board()).note == "Ann: hold the tile you drew for dealer over the scan pad"
    assert draw.read(hold(layout, "5-6")).note == "Ann drew 5-6. Bo: hold the tile you drew for dealer over the scan pad"
    assert draw.read(off(layout, "5-6")).note.startswith("Ann drew 5-6. Bo: ")
    assert draw.read(hold(layout, "0-0")).note.startswith("Bo drew 0-0. Cy: ")
    off(layout, "0-0")
    verdict = draw.read(hold(layout, "1-3"))
    assert verdict.moves == (Reveal("lots", (T("5-6"), T("0-0"), T("1-3"))),)


def test_a_tile_left_on_the_pad_counts_once():
    """rule CR-10.8: a tile still on the pad after it was read is not the next seat's draw, and
    a tile on the pad when the draw starts does not count until it is held there again."""
    layout = MemoryTray(REGISTRY, GEO)
    hold(layout, "2-4")
    draw = PadDraw(DEALER, NAMES, layout.board())
    assert draw.read(layout.board()).note == ("take 2-4 off the scan pad. Ann: hold the tile you drew for dealer "
                                              "over the scan pad")
    assert draw.read(off(layout, "2-4")).note == "Ann: hold the tile you drew for dealer over the scan pad"
    assert draw.read(hold(layout, "2-4")).note.startswith("Ann drew 2-4. Bo:")
    for _ in range(3):  # the same board judged again (a button move, a takeback refused)
        assert draw.read(layout.board()).note.startswith("Ann drew 2-4. Bo:")
    assert draw.tiles == [T("2-4")]


def test_the_same_tile_again_is_named_and_does_not_count():
    """rule CR-10.8, CR-11.1: a tile already drawn by an earlier seat, held again, gets a prompt
    naming it and who drew it, for as long as it stays on the pad."""
    layout = MemoryTray(REGISTRY, GEO)
    draw = PadDraw(DEALER, NAMES, layout.board())
    draw.read(hold(layout, "5-6"))
    draw.read(off(layout, "5-6"))
    verdict = draw.read(hold(layout, "5-6"))
    assert verdict.problem == ("5-6 was drawn by Ann: take it off; Bo, hold the tile you drew for dealer "
                               "(rule CR-10.8)")
    assert verdict.cells == GEO.pad[:2]
    assert draw.read(layout.board()).problem == verdict.problem
    assert draw.read(off(layout, "5-6")).note.startswith("Ann drew 5-6. Bo:")
    assert draw.read(hold(layout, "3-3")).note.startswith("Bo drew 3-3. Cy:")


def test_a_non_double_does_not_count_for_the_lead():
    """rule DB-7.1, DB-8.5: only doubles are drawn for the lead; only the tied seats draw
    after a tie, named in the prompts."""
    lead = Draw((1, 2), "for the lead", "DB-8.5",
                check=lambda t: None if t.is_double else f"{t} is not a double (rule DB-7.1)")
    layout = MemoryTray(REGISTRY, GEO)
    draw = PadDraw(lead, NAMES, layout.board())
    assert draw.read(layout.board()).note == "Bo: hold the tile you drew for the lead over the scan pad"
    verdict = draw.read(hold(layout, "2-5"))
    assert verdict.problem == "take 2-5 off the scan pad: 2-5 is not a double (rule DB-7.1)"
    assert draw.tiles == []
    draw.read(off(layout, "2-5"))
    assert draw.read(hold(layout, "6-6")).note.startswith("Bo drew 6-6. Cy:")
    off(layout, "6-6")
    assert draw.read(hold(layout, "4-4")).moves == (Reveal("lots", (T("6-6"), T("4-4"))),)


def test_bot_actions_clear_the_pad_then_hold_each_tile():
    layout = MemoryTray(REGISTRY, GEO)
    assert pad_actions([T("1-1"), T("2-2")], layout.board()) == [
        Action(ActionKind.PAD, T("1-1")), Action(ActionKind.UNPAD, T("1-1")), Action(ActionKind.PAD, T("2-2")), Action(ActionKind.UNPAD, T("2-2"))]
    hold(layout, "3-4")
    assert pad_actions([T("3-4")], layout.board())[0] == Action(ActionKind.UNPAD, T("3-4"))
