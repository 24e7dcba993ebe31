"""An in-memory tray: tiles on cells, changed by Actions (tray/action.py), read back as Boards.

The pure counterpart of the virtual tray for tests and benchmarks that need boards but not
the pty, firmware and link: `apply(action)` does what a bot's hands would do, `board()`
gives the snapshot the tray would report. Mistakes a hand cannot make (covering a taken
cell, moving a tile that is not there) raise TrayError naming the tile and cell.
"""

from __future__ import annotations

from dominotray import wire

from dominotable.rules.tiles import Tile
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board
from dominotable.tray.errors import TrayError
from dominotable.tray.geometry import Geometry, default
from dominotable.tray.tags import Half, Registry

EMPTY = (wire.EMPTY, b"")


class MemoryTray:
    def __init__(self, registry: Registry, geometry: Geometry | None = None):
        self.registry = registry
        self.geometry = geometry or default()
        self.tiles: dict[Tile, tuple[int, int]] = {}  # tile -> (cell under tile.a, cell under tile.b)
        self._uid = {half: uid for uid, half in registry.items()}
        self.extra: dict[int, tuple[int, bytes]] = {}  # cell -> a raw reading (stray tag, fault)

    def apply(self, action: Action) -> None:
        tile = action.tile
        if action.kind in (ActionKind.REMOVE, ActionKind.UNPAD, ActionKind.SLIDE):
            if tile not in self.tiles:
                raise TrayError(f"tile {tile} is not on the tray")
            del self.tiles[tile]
        if action.kind in (ActionKind.PLACE, ActionKind.SLIDE, ActionKind.PAD):
            cells = self.geometry.pad[:2] if action.kind == ActionKind.PAD else tuple(action.cells)
            if tile in self.tiles:
                raise TrayError(f"tile {tile} is already on the tray")
            if cells[1] not in self.geometry.neighbours(cells[0]):
                raise TrayError(f"the halves of {tile} would not touch: "
                                f"{self.geometry.label(cells[0])} and {self.geometry.label(cells[1])}")
            taken = {c for pair in self.tiles.values() for c in pair}
            for cell in cells:
                if cell in taken:
                    raise TrayError(f"{self.geometry.label(cell)} is already covered")
            self.tiles[tile] = cells

    def apply_all(self, actions) -> None:
        for action in actions:
            self.apply(action)

    def place(self, tile: Tile, cells: tuple[int, int]) -> None:
        self.apply(Action(ActionKind.PLACE, tile, cells))

    def cells(self) -> list[tuple[int, bytes]]:
        out = [EMPTY] * self.geometry.cells
        for tile, pair in self.tiles.items():
            for side, cell in enumerate(pair):
                out[cell] = (wire.TAG, self._uid[Half(tile, side)])
        for cell, reading in self.extra.items():  # a stray tag or a fault overrides
            out[cell] = reading
        return out

    def board(self) -> Board:
        return Board(self.cells(), self.registry, self.geometry)
