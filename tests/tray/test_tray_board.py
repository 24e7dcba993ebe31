"""Snapshots become validated boards: tiles paired with position and orientation, and
python-chess style status flags for everything that is not a clean layout."""

from dominotable.rules.tiles import Tile
from dominotable.tray.board import Board, Status
from dominotable.tray.tags import Half, Registry, virtual_uid
from dominotray import wire

REG = Registry.virtual()
EMPTY = (wire.EMPTY, b"")


def snapshot(**cells):
    """cells given as c<index>=("3-5", side) | "fault" | bytes uid."""
    out = [EMPTY] * 194
    for key, value in cells.items():
        cell = int(key[1:])
        if value == "fault":
            out[cell] = (wire.FAULT, b"")
        elif isinstance(value, bytes):
            out[cell] = (wire.TAG, value)
        else:
            a, b = map(int, value[0].split("-"))
            out[cell] = (wire.TAG, virtual_uid(Half(Tile(a, b), value[1])))
    return out


def test_empty_tray_is_valid():
    board = Board(snapshot(), REG)
    assert board.status() == Status.VALID and board.is_valid() and board.placements == []


def test_halves_pair_into_tiles_with_position_and_orientation():
    board = Board(snapshot(c16=("3-5", 1), c17=("3-5", 0), c40=("2-2", 0), c56=("2-2", 1),
                           c192=("0-4", 0), c193=("0-4", 1)), REG)
    assert board.status() == Status.VALID
    t35, t22, pad = board.placements
    assert (t35.tile, t35.orientation, t35.facing, t35.cells) == (Tile(3, 5), "horizontal", (5, 3), (17, 16))
    assert (t22.orientation, t22.cells) == ("vertical", (40, 56))
    assert board.on_pad() is pad and pad.orientation == "pad" and pad.facing == (0, 4)
    assert board.at(16) is t35 and board.at(18) is None
    assert [p.tile for p in board.tiles()] == [Tile(3, 5), Tile(2, 2)]
    assert board.tiles(zone="captures") == [t35]
    assert str(t35) == "5-3 horizontal at r1c0 (cell 16)-r1c1 (cell 17)"


def test_unknown_tag_is_flagged_with_its_cell():
    board = Board(snapshot(c5=b"\x04\x11\x22\x33\x44\x55\x66"), REG)
    assert board.status() == Status.UNKNOWN_TAG
    (problem,) = board.problems()
    assert problem.cells == (5,) and problem.message == "unknown tag 04112233445566 at r0c5 (cell 5)"


def test_cloned_tag_in_two_cells():
    board = Board(snapshot(c0=("1-2", 0), c1=("1-2", 1), c100=("1-2", 1)), REG)
    assert board.status() == Status.CLONED_TAG | Status.LONE_HALF
    cloned = [p for p in board.problems() if p.flag == Status.CLONED_TAG][0]
    assert cloned.cells == (1, 100) and "read in 2 cells: r0c1 (cell 1), r6c4 (cell 100)" in cloned.message


def test_half_without_its_partner_next_to_it():
    board = Board(snapshot(c0=("1-2", 0), c2=("1-2", 1)), REG)  # a gap between the halves
    assert board.status() == Status.LONE_HALF and board.placements == []
    assert [p.message for p in board.problems()] == [
        "the 1 half of 1-2 at r0c0 (cell 0) has no partner half next to it",
        "the 2 half of 1-2 at r0c2 (cell 2) has no partner half next to it"]


def test_two_tiles_claiming_one_identity():
    board = Board(snapshot(c0=("6-6", 0), c1=("6-6", 1), c32=("6-6", 0), c33=("6-6", 1)), REG)
    assert board.status() & Status.DUPLICATE_TILE and board.status() & Status.CLONED_TAG
    dup = [p for p in board.problems() if p.flag == Status.DUPLICATE_TILE][0]
    assert dup.cells == (0, 1, 32, 33) and dup.message.startswith("tile 6-6 lies in 2 places")


def test_reader_fault_cells():
    board = Board(snapshot(c7="fault", c193="fault"), REG)
    assert board.status() == Status.READER_FAULT and board.faults == [7, 193]


def test_diagram_draws_tiles_joins_and_problems():
    board = Board(snapshot(c0=("3-5", 0), c1=("3-5", 1), c18=("6-6", 0), c34=("6-6", 1),
                           c5="fault", c8=b"\x04\x99\x99\x99\x99\x99\x99", c10=("0-1", 1)), REG)
    lines = board.diagram().splitlines()
    assert lines[0] == " 3- 5  .  .  . ##  .  .  ?  . 1*  .  .  .  .  ."
    assert lines[1] == ""  # nothing joins rows 0 and 1
    assert lines[2].startswith(" .  .  6  .")
    assert lines[3] == "       |"  # the 6-6 stands in column 2, rows 1 and 2
    assert "! unknown tag 04999999999999 at r0c8 (cell 8)" in lines
