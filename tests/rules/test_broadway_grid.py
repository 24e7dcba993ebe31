"""The half-cell grid and its text diagram (host/dominotable/grid.py), used by Broadway (BW-3.1)."""

import pytest
from dominotable.rules.errors import InvalidNotation
from dominotable.rules.games.broadway.grid import Frontier, Grid
from dominotable.rules.tiles import Tile
from hypothesis import given, settings
from hypothesis import strategies as st


def test_diagram_shows_joins_between_halves_of_one_tile():
    grid = Grid()
    grid = grid.with_tile((0, 0), (1, 0), (6, 3))  # east-west
    grid = grid.with_tile((2, 0), (2, 1), (3, 3))  # north-south, touching the 6-3's 3
    grid = grid.with_tile((1, 1), (1, 2), (0, 12))
    assert grid.diagram() == "\n".join([
        "top-left (0,0)",
        "6-3 3",
        "    |",
        ". 0 3",
        "  |",
        ". c .",
    ])
    assert sorted(grid.tiles()) == sorted([
        (Tile(3, 6), (0, 0), (1, 0)), (Tile(3, 3), (2, 0), (2, 1)), (Tile(0, 12), (1, 1), (1, 2))])


def test_adjacent_halves_of_different_tiles_are_told_apart():
    # Two tiles end to end in a row, and two tiles stacked in a column.
    one = Grid.parse("""
        1-2 2-3

        4 5
        | |
        4 5
        """)
    assert len(one) == 4
    assert one.mate[(1, 0)] == (0, 0) and one.mate[(2, 0)] == (3, 0)
    assert one.mate[(0, 1)] == (0, 2) and one.mate[(1, 1)] == (1, 2)
    assert not one.mate.get((0, 1)) == (1, 1)


def test_header_sets_the_origin_and_headerless_starts_at_zero():
    assert Grid.parse("top-left (-3,2)\n5-4").pips == {(-3, 2): 5, (-2, 2): 4}
    assert Grid.parse("5-4").pips == {(0, 2 - 2): 5, (1, 0): 4}
    assert Grid.parse(".") == Grid() and Grid().diagram() == "."


@pytest.mark.parametrize("text,message", [
    ("6 3", r"cell \(0,0\) is half a tile"),
    ("6-.", r"joins \(0,0\) and \(1,0\) but \(1,0\) is empty"),
    ("6-3-2", r"cell \(1,0\) is joined to two cells"),
    ("6x3", r"'x' between cells"),
    ("6-z", r"'z' at \(1,0\) is not pips"),
    ("6\n |\n6", r"only '\|' under a cell"),
    ("6\n|", "join line after its last row"),
])
def test_bad_diagrams_name_the_cell(text, message):
    with pytest.raises(InvalidNotation, match=message):
        Grid.parse(text)


placements = st.lists(st.tuples(st.integers(-6, 6), st.integers(-6, 6), st.booleans(),
                                st.integers(0, 12), st.integers(0, 12)), max_size=30)


@settings(max_examples=60, deadline=None)
@given(placements)
def test_round_trip_on_arbitrary_grids(items):
    grid = Grid()
    for x, y, across, a, b in items:
        second = (x + 1, y) if across else (x, y + 1)
        if (x, y) not in grid and second not in grid:
            grid = grid.with_tile((x, y), second, (a, b))
    text = grid.diagram()
    assert Grid.parse(text) == grid
    assert Grid.parse("\n".join("    " + line for line in text.split("\n"))) == grid  # indented in a test


def test_with_tile_leaves_the_grid_unchanged():
    grid = Grid.parse("6-6")
    copy = grid.with_tile((2, 0), (3, 0), (6, 1))
    assert len(grid) == 1 and len(copy) == 2


def test_frontier_lists_empty_cells_by_neighbouring_pips():
    """What BW-4.1 needs: where each pip would touch an equal segment."""
    frontier = Frontier(Grid.parse("6-3\n\n. 6\n  |\n. 2"))
    assert sorted(frontier.cells[6]) == [(-1, 0), (0, -1), (0, 1), (2, 1)]
    assert sorted(frontier.cells[3]) == [(1, -1), (2, 0)]
    assert frontier.wants[(0, 1)] == 1 << 6 and frontier.wants[(2, 1)] == 1 << 6
    assert frontier.wants[(2, 2)] == 1 << 2 and (1, 1) not in frontier.wants
