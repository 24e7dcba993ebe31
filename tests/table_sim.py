"""A tray in memory for the adapter tests: lay tiles, apply an adapter's Actions, read a Board.

It refuses what a real tray refuses (a cell covered twice, a tile laid twice, halves that do
not touch), so a bot's actions that would fail on the virtual tray fail here too.
"""

from __future__ import annotations

from dominotray import wire

from dominotable.game import Game
from dominotable.hidden import Reveal
from dominotable.table.adapter import Action, Adapter
from dominotable.tiles import DominoSet, Tile
from dominotable.tray.board import Board
from dominotable.tray.geometry import default
from dominotable.tray.tags import Half, Registry


class SimTray:
    def __init__(self, top: int = 6):
        self.registry = Registry.virtual(DominoSet(top))
        self.geometry = default()
        self.dset = self.registry.dominoes
        self.uid_at: dict[int, bytes] = {}
        self.tiles: dict[Tile, tuple[int, int]] = {}

    def cell(self, row: int, col: int) -> int:
        return self.geometry.cell(row, col)

    def put(self, tile: Tile, cells: tuple[int, int]) -> None:
        """Side a of `tile` on cells[0], side b on cells[1]."""
        assert tile not in self.tiles, f"{tile} is already on the tray"
        assert cells[1] in self.geometry.neighbours(cells[0]), f"{tile}: {cells} do not touch"
        for side, cell in enumerate(cells):
            assert cell not in self.uid_at, f"{self.geometry.label(cell)} is covered"
            self.uid_at[cell] = self.registry.uid_of(Half(tile, side))
        self.tiles[tile] = tuple(cells)

    def lay(self, text: str, row: int, col: int, facing: str = "right") -> Tile:
        """Lay "5-3" with the 5 on (row, col) and the 3 on the cell towards `facing`."""
        tile = self.dset.parse(text)
        first = int(text.split("-")[0])
        dr, dc = {"right": (0, 1), "down": (1, 0), "left": (0, -1), "up": (-1, 0)}[facing]
        here, there = self.cell(row, col), self.cell(row + dr, col + dc)
        self.put(tile, (here, there) if first == tile.a else (there, here))
        return tile

    def pad(self, text: str) -> Tile:
        tile = self.dset.parse(text)
        self.put(tile, self.geometry.pad[:2])
        return tile

    def take(self, tile: Tile | str) -> None:
        if isinstance(tile, str):
            tile = self.dset.parse(tile)
        for cell in self.tiles.pop(tile):
            del self.uid_at[cell]

    def apply(self, actions: list[Action]) -> None:
        for action in actions:
            if action.kind in ("remove", "slide", "unpad"):
                self.take(action.tile)
            if action.kind in ("place", "slide"):
                self.put(action.tile, action.cells)
            elif action.kind == "pad":
                self.put(action.tile, self.geometry.pad[:2])

    def board(self) -> Board:
        cells = [(wire.TAG, self.uid_at[c]) if c in self.uid_at else (wire.EMPTY, b"")
                 for c in range(self.geometry.cells)]
        return Board(cells, self.registry, self.geometry)


def play_through(game: Game, adapter: Adapter, tray: SimTray, choose, limit: int = 5000) -> None:
    """Play `game` to its end: each move chosen by `choose(game)` is made physically with the
    adapter's actions (which also clear what the table waits to see cleared) or its buttons, and
    must be judged back as exactly that move; after it the tray must read as the same position
    (perhaps with a note of what the table waits for)."""
    for _ in range(limit):
        if game.is_over():
            return
        move = choose(game)
        if isinstance(move, Reveal) and move.word == "show":  # whose: the first seat holding as many
            move = Reveal("show", move.tiles, adapter.shown_by(len(move.tiles)))
        actions = adapter.actions(move, tray.board())
        if actions:
            tray.apply(actions)
            verdict = adapter.judge(tray.board())
            assert verdict.problem is None, f"{move}: {verdict.problem}\n{tray.board()}"
            assert verdict.moves == (move,), f"{move} read as {verdict.moves}\n{tray.board()}"
        else:
            assert move in [m for _, m in adapter.button_moves()], f"{move}: no trace and no button"
        game.push(move)
        after = adapter.judge(tray.board())
        assert after.same, f"after {move}: {after}\n{tray.board()}"
    raise AssertionError("the game did not end")
