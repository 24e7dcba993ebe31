"""An in-memory tray: tiles on cells, changed by Actions (tray/action.py), read back as Boards.

The pure counterpart of the virtual tray for tests and benchmarks that need boards but not
the pty, firmware and link: `apply(action)` does what a bot's hands would do, `board()`
gives the snapshot the tray would report. Mistakes a hand cannot make (covering a taken
cell, moving a tile that is not there) raise TrayError naming the tile and cell.
"""

from __future__ import annotations

from dominotray import wire

from dominotable.rules.tiles import Tile
from dominotable.tray.action import Action, ActionKind, landing
from dominotable.tray.board import Board
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

    @classmethod
    def of(cls, board: Board) -> MemoryTray:
        """The tiles `board` shows, on an in-memory tray to plan steps on."""
        tray = cls(board.registry, board.geometry)
        tray.tiles = {p.tile: p.cells for p in board.placements}
        return tray

    def apply(self, action: Action) -> None:
        taken = {c for pair in self.tiles.values() for c in pair}
        cells = landing(action, self.geometry, self.tiles.get(action.tile), taken.__contains__)
        self.tiles.pop(action.tile, None)
        if cells is not None:
            self.tiles[action.tile] = cells

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
