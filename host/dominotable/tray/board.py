"""A snapshot of the tray, validated: tag halves paired into placed tiles, problems flagged.

In the style of python-chess's `Board.status()`: `status()` is a bit set of Status flags,
VALID (0) when the tray shows nothing but whole, known, distinct tiles; `problems()` says
which cells and tiles are at fault.
"""

from __future__ import annotations

import enum
from collections import defaultdict

from dominotray import wire

from dominotable.rules.tiles import Tile
from dominotable.tray.errors import TrayError
from dominotable.tray.geometry import Geometry, default
from dominotable.tray.tags import Half, Registry


class Status(enum.IntFlag):
    VALID = 0
    UNKNOWN_TAG = 1      # a UID not in the registry
    CLONED_TAG = 2       # the same UID in two cells
    LONE_HALF = 4        # a half whose partner is not next to it
    DUPLICATE_TILE = 8   # two placed tiles claim one identity
    READER_FAULT = 16    # a cell whose reader is dead or failing


class Problem:
    def __init__(self, flag: Status, cells: tuple[int, ...], message: str):
        self.flag = flag
        self.cells = cells
        self.message = message

    def __repr__(self) -> str:
        return f"Problem({self.flag.name}, {self.cells}, {self.message!r})"


class Placement:
    """A whole tile on the tray: `cells[i]` holds side i (showing tile.a, then tile.b)."""

    def __init__(self, tile: Tile, cells: tuple[int, int], geometry: Geometry):
        self.tile = tile
        self.cells = cells
        self.geometry = geometry

    @property
    def on_pad(self) -> bool:
        return self.geometry.is_pad(self.cells[0])

    @property
    def orientation(self) -> str:
        """'horizontal' or 'vertical' on the grid; 'pad' on the scan pad."""
        if self.on_pad:
            return "pad"
        (r0, _), (r1, _) = self.geometry.coords(self.cells[0]), self.geometry.coords(self.cells[1])
        return "horizontal" if r0 == r1 else "vertical"

    def pips_at(self, cell: int) -> int:
        return self.tile.a if cell == self.cells[0] else self.tile.b

    @property
    def facing(self) -> tuple[int, int]:
        """The pips read left to right (horizontal, pad) or far to near (vertical)."""
        first, second = sorted(self.cells)
        return self.pips_at(first), self.pips_at(second)

    def __str__(self) -> str:
        first, second = sorted(self.cells)
        return (f"{self.facing[0]}-{self.facing[1]} {self.orientation} at "
                f"{self.geometry.label(first)}-{self.geometry.label(second)}")

    def __repr__(self) -> str:
        return f"Placement({self.tile}, {self.cells})"


class Board:
    def __init__(self, cells, registry: Registry, geometry: Geometry | None = None):
        """`cells`: the snapshot's (status, uid) per cell index, as wire.Snapshot.cells, one
        for every cell of the geometry (a reading of another length is refused, not cut)."""
        self.geometry = geometry or default()
        self.registry = registry
        self.cells = list(cells)
        if len(self.cells) != self.geometry.cells:
            raise TrayError(f"a tray reading of {len(self.cells)} cells; the table's tray "
                            f"({self.geometry.name}) has {self.geometry.cells}")
        self.placements: list[Placement] = []
        self.faults: list[int] = []
        self.stacks: list[int] = []  # cells holding a pile of tags (no tile is read there)
        self._problems: list[Problem] = []
        self._at: dict[int, Placement] = {}
        self._pair()

    def _flag(self, flag: Status, cells, message: str) -> None:
        self._problems.append(Problem(flag, tuple(cells), message))

    def _pair(self) -> None:
        geo = self.geometry
        label = geo.label
        uid_cells: dict[bytes, list[int]] = defaultdict(list)
        half_cells: dict[Half, list[int]] = defaultdict(list)
        for cell, (status, uid) in enumerate(self.cells):
            if status == wire.FAULT:
                self.faults.append(cell)
                self._flag(Status.READER_FAULT, [cell], f"reader fault at {label(cell)}")
            elif status == wire.STACK:
                self.stacks.append(cell)
            elif status == wire.TAG:
                uid_cells[uid].append(cell)
                half = self.registry.lookup(uid)
                if half is None:
                    self._flag(Status.UNKNOWN_TAG, [cell], f"unknown tag {uid.hex()} at {label(cell)}")
                else:
                    half_cells[half].append(cell)
        for uid, cells in uid_cells.items():
            if len(cells) > 1:
                self._flag(Status.CLONED_TAG, cells,
                           f"tag {uid.hex()} read in {len(cells)} cells: {', '.join(map(label, cells))}")

        paired: set[int] = set()
        for half, cells in half_cells.items():
            if half.side != 0:
                continue
            partners = half_cells.get(half.partner, [])
            for cell in cells:
                for other in partners:
                    if other not in paired and other in geo.neighbours(cell):
                        placement = Placement(half.tile, (cell, other), geo)
                        self.placements.append(placement)
                        self._at[cell] = self._at[other] = placement
                        paired.update((cell, other))
                        break
        for half, cells in half_cells.items():
            for cell in cells:
                if cell not in paired:
                    self._flag(Status.LONE_HALF, [cell],
                               f"{half} at {label(cell)} has no partner half next to it")
        by_tile: dict[Tile, list[Placement]] = defaultdict(list)
        for placement in self.placements:
            by_tile[placement.tile].append(placement)
        for tile, placements in by_tile.items():
            if len(placements) > 1:
                self._flag(Status.DUPLICATE_TILE, [c for p in placements for c in p.cells],
                           f"tile {tile} lies in {len(placements)} places: {'; '.join(str(p) for p in placements)}")
        self.placements.sort(key=lambda p: min(p.cells))

    def status(self) -> Status:
        flags = Status.VALID
        for problem in self._problems:
            flags |= problem.flag
        return flags

    def is_valid(self) -> bool:
        return not self._problems

    def problems(self) -> list[Problem]:
        return list(self._problems)

    def at(self, cell: int) -> Placement | None:
        return self._at.get(cell)

    def tiles(self, zone: str | None = None) -> list[Placement]:
        """Whole tiles on the grid (not the pad), optionally only those inside a zone."""
        cells = self.geometry.zone(zone) if zone else None
        return [p for p in self.placements
                if not p.on_pad and (cells is None or all(c in cells for c in p.cells))]

    def on_pad(self) -> Placement | None:
        return next((p for p in self.placements if p.on_pad), None)

    def _glyph(self, cell: int) -> str:
        status, uid = self.cells[cell]
        if status == wire.FAULT:
            return "##"
        if status == wire.EMPTY:
            return " ."
        if status == wire.STACK:
            return " S"
        half = self.registry.lookup(uid)
        if half is None:
            return " ?"
        return f"{half.pips:2d}" if cell in self._at else f"{half.pips:d}*".rjust(2)

    def diagram(self) -> str:
        """ASCII picture: pips per cell, '-' and '|' join the halves of a tile, '.' empty,
        '##' reader fault, '?' unknown tag, '*' a half without its partner, 'S' a stack."""
        geo = self.geometry
        lines = []
        for row in range(geo.rows):
            cells = [geo.cell(row, col) for col in range(geo.columns)]
            text = ""
            for cell in cells:
                right = cell + 1 if (cell + 1) % geo.columns else None
                joined = right is not None and self._at.get(cell) is not None and self._at.get(cell) is self._at.get(right)
                text += self._glyph(cell) + ("-" if joined else " ")
            lines.append(text.rstrip())
            if row + 1 < geo.rows:
                below = ""
                for cell in cells:
                    joined = self._at.get(cell) is not None and self._at.get(cell) is self._at.get(cell + geo.columns)
                    below += (" |" if joined else "  ") + " "
                lines.append(below.rstrip())
        pad = " ".join(self._glyph(c) for c in geo.pad)
        lines.append(f"pad: {pad}" + ("  (" + str(self.on_pad().tile) + ")" if self.on_pad() else ""))
        for problem in self._problems:
            lines.append(f"! {problem.message}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.diagram()
