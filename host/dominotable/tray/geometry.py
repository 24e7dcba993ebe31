"""Tray geometry, read from tray.toml: cell index <-> (row, col), the scan pad, named zones, and
the racks where bot seats' hands lie face down (`racks(game)`).

The source of truth is hardware/tray.toml; the package carries an identical copy (tested)
so that an installed host finds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from dominotable import inputs
from dominotable.tray.errors import TrayError


@dataclass(frozen=True)
class Rack:
    """Where one seat's hidden hand lies: `slots[k]` holds slot k + 1 (two cells each)."""

    name: str
    slots: tuple[tuple[int, int], ...]

    @property
    def cells(self) -> frozenset[int]:
        return frozenset(c for slot in self.slots for c in slot)


class Geometry:
    def __init__(self, data: dict, source: str = "tray.toml"):
        try:
            tray = data["tray"]
            self.name: str = tray["name"]
            self.columns: int = tray["columns"]
            self.rows: int = tray["rows"]
            self.pitch_mm: float = tray.get("cell_pitch_mm", 25)
            self.pad: tuple[int, ...] = tuple(data["scan_pad"]["cells"])
            self.pad_names: tuple[str, ...] = tuple(data["scan_pad"]["names"])
            zones = data["zones"]
        except KeyError as exc:
            raise TrayError(f"{source}: missing key {exc.args[0]!r}") from None
        if (tray.get("order"), tray.get("origin")) != ("row-major", "far-left"):
            raise TrayError(f"{source}: only row-major cells from the far-left corner are supported")
        self.playing = self.columns * self.rows
        if self.pad != tuple(range(self.playing, self.playing + len(self.pad))):
            raise TrayError(f"{source}: scan pad cells must follow the grid ({self.playing}...)")
        self.cells = self.playing + len(self.pad)
        self.zones: dict[str, frozenset[int]] = {}
        self.labels: dict[str, str] = {}  # what people are told a zone is called
        for name, zone in zones.items():
            self.labels[name] = zone.get("label", name)
            (r0, r1), (c0, c1) = zone["rows"], zone["cols"]
            if not (0 <= r0 <= r1 < self.rows and 0 <= c0 <= c1 < self.columns):
                raise TrayError(f"{source}: zone {name} lies outside the {self.columns}x{self.rows} grid")
            self.zones[name] = frozenset(self.cell(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))
        self._neighbours = [self._neighbours_of(cell) for cell in range(self.cells)]  # a hot path
        self._racks: dict[str, tuple[Rack, ...]] = {}
        for group, spec in data.get("racks", {}).items():
            try:
                racks = tuple(Rack(name, self._slots(spec[name], f"{source}: rack {group}.{name}"))
                              for name in spec["order"])
            except KeyError as exc:
                raise TrayError(f"{source}: racks.{group}: missing key {exc.args[0]!r}") from None
            self._racks[group] = racks

    def _slots(self, bands, where: str) -> tuple[tuple[int, int], ...]:
        """The slots of a rack's bands: `{row, cols = [a, b]}` or `{col, rows = [a, b]}`, two cells each."""
        slots = []
        for band in bands:
            if "row" in band:
                (a, b), cell = band["cols"], (lambda k, r=band["row"]: self.cell(r, k))
            else:
                (a, b), cell = band["rows"], (lambda k, c=band["col"]: self.cell(k, c))
            if (b - a) % 2 != 1:
                raise TrayError(f"{where}: a band of {b - a + 1} cells does not split into two-cell slots")
            try:
                slots += [(cell(k), cell(k + 1)) for k in range(a, b, 2)]
            except TrayError as exc:
                raise TrayError(f"{where}: {exc}") from None
        return tuple(slots)

    def racks(self, group: str | None) -> tuple[Rack, ...]:
        """The racks of `group` (tray.toml `[racks.GROUP]`), in seat order; () if the tray has none."""
        return self._racks.get(group, ()) if group is not None else ()

    def coords(self, cell: int) -> tuple[int, int]:
        """(row, col) of a playing cell."""
        if not 0 <= cell < self.playing:
            raise TrayError(f"cell {cell} is not on the playing grid (0-{self.playing - 1})")
        return divmod(cell, self.columns)

    def cell(self, row: int, col: int) -> int:
        if not (0 <= row < self.rows and 0 <= col < self.columns):
            raise TrayError(f"row {row}, column {col} is off the {self.columns}x{self.rows} grid")
        return row * self.columns + col

    def is_pad(self, cell: int) -> bool:
        return cell in self.pad

    def label(self, cell: int) -> str:
        """A human name for a cell with its number: 'r3c5 (cell 53)' or 'pad-left (cell 192)'."""
        if not 0 <= cell < self.cells:
            return f"cell {cell} (not on this tray)"
        return f"{self.cell_name(cell)} (cell {cell})"

    def cell_name(self, cell: int) -> str:
        """A cell as prompts name it: 'r3c5', or the scan pad's cell 'pad-left'."""
        if self.is_pad(cell):
            return self.pad_names[self.pad.index(cell)]
        row, col = self.coords(cell)
        return f"r{row}c{col}"

    def neighbours(self, cell: int) -> tuple[int, ...]:
        """Cells a tile can span with this one: orthogonal grid neighbours; the pad's two cells."""
        if not 0 <= cell < self.cells:
            raise TrayError(f"cell {cell} is not on the playing grid (0-{self.playing - 1})")
        return self._neighbours[cell]

    def _neighbours_of(self, cell: int) -> tuple[int, ...]:
        if self.is_pad(cell):
            return tuple(c for c in self.pad if c != cell)
        row, col = self.coords(cell)
        out = []
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            r, c = row + dr, col + dc
            if 0 <= r < self.rows and 0 <= c < self.columns:
                out.append(self.cell(r, c))
        return tuple(out)

    def cells_of(self, zones, racks: str | None = None) -> frozenset[int]:
        """The cells a game uses: its zones, its racks, and the scan pad."""
        cells = set(self.pad)
        for name in zones:
            cells |= self.zone(name)
        for rack in self.racks(racks):
            cells |= rack.cells
        return frozenset(cells)

    def zone(self, name: str) -> frozenset[int]:
        try:
            return self.zones[name]
        except KeyError:
            raise TrayError(f"no zone {name!r}; zones are {', '.join(sorted(self.zones))}") from None


def packaged_path() -> Path:
    return Path(str(resources.files(__package__) / "tray.toml"))


def load(path: str | Path | None = None) -> Geometry:
    """The geometry in `path`, or the default tray's."""
    if path is None:
        return default()
    path = Path(path)
    try:
        data = inputs.load_toml(path)
    except OSError as exc:
        raise TrayError(f"cannot read tray geometry {path}: {exc.strerror}") from None
    except inputs.Refused as exc:
        raise TrayError(f"tray geometry {path} {exc}") from None
    return Geometry(data, str(path))


@cache
def default() -> Geometry:
    return load(packaged_path())
