"""A row of tiles with two open ends, and the notation that names an end.

Shared by the line games (Doubles in the Boneyard) and by Up-Down-Stop columns, which
may grow from both numbers of their first tile. Each end carries a value the game
chooses (a pip for a domino line, `(number, direction)` for a column) or None once the
game closes it. A Line is immutable: `add` and `close` return a new Line, so a game
state copies it for free.
"""

from __future__ import annotations

from dominotable.rules.tiles import Tile

LEFT, RIGHT = 0, 1
END_NAMES = ("left", "right")


class Line:
    __slots__ = ("first", "sides", "ends")

    def __init__(self, first: Tile, ends: tuple, sides: tuple = ((), ())):
        self.first = first
        # per end: (tile, value it left open) pairs, nearest the first tile first
        self.sides = sides
        self.ends = ends

    @classmethod
    def start(cls, first: Tile, left, right) -> Line:
        return cls(first, (left, right))

    def add(self, end: int, tile: Tile, value) -> Line:
        sides = list(self.sides)
        sides[end] = sides[end] + ((tile, value),)
        ends = list(self.ends)
        ends[end] = value
        return Line(self.first, tuple(ends), tuple(sides))

    def close(self, *ends: int) -> Line:
        values = list(self.ends)
        for end in ends:
            values[end] = None
        return Line(self.first, tuple(values), self.sides)

    def open_ends(self) -> list[tuple[int, object]]:
        return [(end, value) for end, value in enumerate(self.ends) if value is not None]

    def tiles(self) -> list[Tile]:
        """Every tile in table order, left end first."""
        left = [tile for tile, _ in reversed(self.sides[LEFT])]
        return left + [self.first] + [tile for tile, _ in self.sides[RIGHT]]

    def __len__(self) -> int:
        return 1 + len(self.sides[LEFT]) + len(self.sides[RIGHT])


def fits(tile: Tile, line: Line | None) -> bool:
    """Whether `tile` can go on a line whose ends are numbers (any tile opens an empty line)."""
    return line is None or tile.has(line.ends[LEFT]) or tile.has(line.ends[RIGHT])


def split_end(text: str) -> tuple[str, int | None]:
    """`<x` or `x@left` names the left end, `x>` or `x@right` the right; plain `x` neither."""
    text = text.strip()
    core, at, name = text.rpartition("@")
    if at:
        name = name.strip().lower()
        if name not in END_NAMES:
            return text, None  # not an end marker; the caller's parser reports the token
        return core.strip(), END_NAMES.index(name)
    if text.startswith("<"):
        return text[1:].strip(), LEFT
    if text.endswith(">"):
        return text[:-1].strip(), RIGHT
    return text, None
