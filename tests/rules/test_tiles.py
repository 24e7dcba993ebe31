import re

import pytest
from dominotable.rules.errors import DuplicateTile, InvalidNotation
from dominotable.rules.tiles import DominoSet, Tile


@pytest.mark.parametrize("top,count", [(6, 28), (9, 55), (12, 91)])
def test_set_sizes(top, count):
    dset = DominoSet(top)
    assert len(dset) == count
    assert len(set(dset)) == count
    assert sum(t.is_double for t in dset) == top + 1


def test_tiles_are_interned_and_unordered():
    assert Tile(5, 3) is Tile(3, 5)
    assert str(Tile(5, 3)) == "3-5"
    assert Tile(3, 5).suits == (1 << 3) | (1 << 5)


@pytest.mark.parametrize("token", ["3-5", "[3-5]", "5-3", "[ 5 : 3 ]"])
def test_parse_forms(token):
    assert DominoSet(6).parse(token) is Tile(3, 5)


def test_tile_not_in_set_is_named():
    with pytest.raises(InvalidNotation, match="7-1 is not in the double-six set"):
        DominoSet(6).parse("7-1")
    assert DominoSet(9).parse("7-1") is Tile(1, 7)


@pytest.mark.parametrize("token", ["35", "3-", "x-y", "3--5", "[3-5"])
def test_malformed_token_is_named(token):
    with pytest.raises(InvalidNotation, match=re.escape(repr(token))):
        DominoSet(6).parse(token)


def test_duplicate_named():
    with pytest.raises(DuplicateTile, match="tile 3-5 appears twice"):
        DominoSet(6).parse_many("1-2 3-5 [5-3]")


def test_parse_many_mixed_separators():
    assert DominoSet(6).parse_many("[1-6][0-6], 0-0 2-4") == [Tile(1, 6), Tile(0, 6), Tile(0, 0), Tile(2, 4)]
