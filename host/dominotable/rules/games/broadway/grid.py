"""A tableau of tiles on a grid of half-tile cells, and its text diagram.

Cells are `(x, y)` integer pairs, unbounded: x grows to the east (right), y to the
south (down), so a diagram reads like the tray seen from above with north at the top.
Each tile covers two orthogonally adjacent cells; every cell knows its pips and its
mate (the other half of the same tile).

Diagram format (after the donimoes style): one text line per row of cells, a cell
every second character: its pips (0-9, then a, b, c for 10-12) or `.` for an empty
cell. Between two cells of a row, `-` joins them into one tile; a line between two
rows holds `|` under a cell that is joined to the cell below it. So

    top-left (0,0)
    6-3 .
        |
    . . 3

is a 6-3 lying east-west and, under its 3, the top of a 3-3 lying north-south. The
first line names the coordinates of the top-left cell; without it that cell is (0,0).
An empty grid prints as `.`.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator

from dominotable.rules.errors import InvalidNotation
from dominotable.rules.tiles import MAX_PIP, Tile

Cell = tuple[int, int]
STEPS: tuple[Cell, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))
PIP_CHARS = "0123456789abc"
_HEADER = re.compile(r"^\s*top-left\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)\s*$")


def neighbours(cell: Cell) -> Iterator[Cell]:
    x, y = cell
    for dx, dy in STEPS:
        yield (x + dx, y + dy)


def fmt_cell(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


class Frontier:
    """The empty cells beside a grid, by the pips of their occupied neighbours: `wants[cell]`
    is a bitmask of those pips, `cells[pip]` lists the cells with a neighbour showing `pip`."""

    __slots__ = ("wants", "cells")

    def __init__(self, grid: Grid):
        pips = grid.pips
        wants: dict[Cell, int] = {}
        cells: list[list[Cell]] = [[] for _ in range(MAX_PIP + 1)]
        for (x, y), pip in pips.items():
            bit = 1 << pip
            for n in ((x + 1, y), (x, y + 1), (x - 1, y), (x, y - 1)):  # neighbours(), inlined: hot
                if n not in pips:
                    mask = wants.get(n, 0)
                    if not mask & bit:
                        wants[n] = mask | bit
                        cells[pip].append(n)
        self.wants = wants
        self.cells = cells


class Grid:
    __slots__ = ("pips", "mate")

    def __init__(self):
        self.pips: dict[Cell, int] = {}
        self.mate: dict[Cell, Cell] = {}


    def __eq__(self, other) -> bool:
        return isinstance(other, Grid) and self.pips == other.pips and self.mate == other.mate

    def __len__(self) -> int:
        """The number of tiles."""
        return len(self.pips) // 2

    def __contains__(self, cell: Cell) -> bool:
        return cell in self.pips

    def with_tile(self, first: Cell, second: Cell, pips: tuple[int, int]) -> Grid:
        """A new grid: this one and a tile with `pips[0]` on `first` and `pips[1]` on `second`
        (checked by the caller). A game state treats its grid as immutable."""
        other = Grid.__new__(Grid)
        other.pips, other.mate = self.pips.copy(), self.mate.copy()
        other.pips[first], other.pips[second] = pips
        other.mate[first], other.mate[second] = second, first
        return other

    def tiles(self) -> Iterator[tuple[Tile, Cell, Cell]]:
        """Every tile once, with its cells in (x, y) order."""
        for cell, mate in self.mate.items():
            if cell < mate:
                yield Tile(self.pips[cell], self.pips[mate]), cell, mate

    def bounds(self) -> tuple[int, int, int, int]:
        xs = [x for x, _ in self.pips]
        ys = [y for _, y in self.pips]
        return min(xs), min(ys), max(xs), max(ys)

    # -- diagrams ----------------------------------------------------------------------------

    def diagram(self) -> str:
        if not self.pips:
            return "."
        x0, y0, x1, y1 = self.bounds()
        lines = [f"top-left ({x0},{y0})"]
        for y in range(y0, y1 + 1):
            row, joins = [], []
            for x in range(x0, x1 + 1):
                pip = self.pips.get((x, y))
                row.append("." if pip is None else PIP_CHARS[pip])
                mate = self.mate.get((x, y))
                row.append("-" if mate == (x + 1, y) else " ")
                joins.append("| " if mate == (x, y + 1) else "  ")
            lines.append("".join(row).rstrip())
            if y < y1:
                lines.append("".join(joins).rstrip())
        return "\n".join(lines)

    __str__ = diagram

    @classmethod
    def parse(cls, text: str) -> Grid:
        """Read a diagram (see the module docstring); raise InvalidNotation naming the bad cell."""
        lines = textwrap.dedent(text.expandtabs()).split("\n")
        while lines and not lines[0].strip():
            lines.pop(0)
        x0 = y0 = 0
        if lines and (m := _HEADER.match(lines[0])):
            x0, y0 = int(m.group(1)), int(m.group(2))
            lines = textwrap.dedent("\n".join(lines[1:])).split("\n")
            while lines and not lines[0].strip():
                lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        grid = cls()
        if len(lines) % 2 == 0 and lines:
            raise InvalidNotation("diagram has a join line after its last row of cells")
        rows, join_lines = lines[0::2], lines[1::2]
        for r, line in enumerate(rows):
            for col, char in enumerate(line):
                cell = (x0 + col // 2, y0 + r)
                if col % 2 == 0:
                    if char in " .":
                        continue
                    pip = PIP_CHARS.find(char.lower())
                    if pip < 0 or pip > MAX_PIP:
                        raise InvalidNotation(f"diagram row {r + 1}: {char!r} at {fmt_cell(cell)} is not pips or '.'")
                    grid.pips[cell] = pip
                elif char not in " -":
                    raise InvalidNotation(f"diagram row {r + 1}: {char!r} between cells; only '-' joins a row")
        for r, line in enumerate(rows):
            for col, char in enumerate(line):
                if char == "-":
                    cls._join(grid, (x0 + col // 2, y0 + r), (x0 + col // 2 + 1, y0 + r))
        for r, line in enumerate(join_lines):
            for col, char in enumerate(line):
                if char == " ":
                    continue
                if char != "|" or col % 2:
                    raise InvalidNotation(
                        f"diagram line between rows {r + 1} and {r + 2}: only '|' under a cell joins rows")
                cls._join(grid, (x0 + col // 2, y0 + r), (x0 + col // 2, y0 + r + 1))
        for cell in grid.pips:
            if cell not in grid.mate:
                raise InvalidNotation(f"diagram cell {fmt_cell(cell)} is half a tile: join it with '-' or '|'")
        return grid

    @staticmethod
    def _join(grid: Grid, first: Cell, second: Cell) -> None:
        for cell in (first, second):
            if cell not in grid.pips:
                raise InvalidNotation(f"diagram joins {fmt_cell(first)} and {fmt_cell(second)} but {fmt_cell(cell)} is empty")
            if cell in grid.mate:
                raise InvalidNotation(f"diagram cell {fmt_cell(cell)} is joined to two cells")
        grid.mate[first], grid.mate[second] = second, first
