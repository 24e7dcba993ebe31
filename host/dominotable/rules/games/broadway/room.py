"""The tray's room for the tableau (BW-11.6). At the table the tableau lies on a tray of whole
cells, and the bots' racks take some of them; sliding the whole tableau changes nothing (BW-11.1),
so a placement has room when some one slide puts every cell of the tableau and the new tile on the
tray and off the racks. The table writes its room into the match's options (`text`), so that every
replay of the match, on this table, a partner table or a venue, judges with the same tray.
"""

from __future__ import annotations

from functools import cache

from dominotable.rules.errors import BadOption
from dominotable.rules.games.broadway.grid import Cell, Grid


class Room:
    def __init__(self, columns: int, rows: int, blocked: frozenset[tuple[int, int]] = frozenset()):
        """`blocked`: the (row, column) cells no tile may cover."""
        self.columns, self.rows, self.blocked = columns, rows, frozenset(blocked)
        self._last: tuple[Grid | None, list[tuple[int, int]]] = (None, [])
        self._span: tuple[Grid | None, tuple[int, int, int, int]] = (None, (0, 0, 0, 0))
        self.clear = self._clear_sizes()

    def _clear_sizes(self) -> list[tuple[int, int]]:
        """(wide, deep) of the largest rectangles free of blocked cells: a tableau no bigger than
        one of them fits without working out its slides (most positions of a hand)."""
        sizes = set()
        for top in range(self.rows):
            for left in range(self.columns):
                deep = self.rows - top
                for right in range(left, self.columns):
                    deep = min(deep, next((k for k in range(deep) if (top + k, right) in self.blocked), deep))
                    if deep == 0:
                        break
                    sizes.add((right - left + 1, deep))
        return [a for a in sizes if not any(b != a and b[0] >= a[0] and b[1] >= a[1] for b in sizes)]

    @property
    def text(self) -> str:
        """As kept in the options: "16x12", then the blocked cells by number (row by row)."""
        cells = sorted(r * self.columns + c for r, c in self.blocked)
        return f"{self.columns}x{self.rows}" + (":" + ",".join(map(str, cells)) if cells else "")

    def _shifts(self, grid: Grid) -> list[tuple[int, int]]:
        """The (row, column) slides that put the tableau on the tray, off the blocked cells; worked
        out once for a tableau, which the moves of a position all share."""
        last, shifts = self._last
        if last is grid:
            return shifts
        cells = grid.pips.keys()
        xs, ys = [x for x, _ in cells], [y for _, y in cells]
        forbidden = {(r - y, c - x) for x, y in cells for r, c in self.blocked}
        shifts = [(dr, dc) for dr in range(-min(ys), self.rows - max(ys))
                  for dc in range(-min(xs), self.columns - max(xs)) if (dr, dc) not in forbidden]
        self._last = (grid, shifts)
        return shifts

    def holds(self, grid: Grid, cells: tuple[Cell, ...]) -> bool:
        """Whether the tableau with a tile on `cells` fits on the tray."""
        if not grid.pips:
            return True
        last, (x0, x1, y0, y1) = self._span
        if last is not grid:
            xs, ys = [x for x, _ in grid.pips], [y for _, y in grid.pips]
            x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
            self._span = (grid, (x0, x1, y0, y1))
        for x, y in cells:
            x0, x1, y0, y1 = min(x0, x), max(x1, x), min(y0, y), max(y1, y)
        if any(x1 - x0 < wide and y1 - y0 < deep for wide, deep in self.clear):
            return True
        rows, columns, blocked = self.rows, self.columns, self.blocked
        return any(all(0 <= y + dr < rows and 0 <= x + dc < columns and (y + dr, x + dc) not in blocked
                       for x, y in cells) for dr, dc in self._shifts(grid))

    def size(self, grid: Grid, cells: tuple[Cell, ...]) -> tuple[int, int]:
        """(wide, deep): the cells the tableau with a tile on `cells` spans."""
        xs = [x for x, _ in (*grid.pips, *cells)]
        ys = [y for _, y in (*grid.pips, *cells)]
        return max(xs) - min(xs) + 1, max(ys) - min(ys) + 1


@cache
def room_of(text: str) -> Room | None:
    """The room kept as `text` in the options ("": a tableau without bounds, as off the table)."""
    if not text:
        return None
    size, _, blocked = text.partition(":")
    try:
        columns, rows = (int(n) for n in size.split("x"))
        numbers = [int(n) for n in blocked.split(",")] if blocked else []
    except ValueError:
        raise BadOption(f"option room: {text!r} is not a tray's room such as '16x12:0,16'") from None
    if min(columns, rows) < 1 or columns * rows < 2:
        raise BadOption(f"option room: {text!r}: a {size} tray cannot hold a tile")
    if any(not 0 <= n < columns * rows for n in numbers):
        raise BadOption(f"option room: {text!r} names cells off a {size} tray")
    return Room(columns, rows, frozenset(divmod(n, columns) for n in numbers))
