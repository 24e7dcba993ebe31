"""Where a tile held over the tray may go: the cells where laying it reads as a legal move, for a
front end to mark while someone holds the tile. Asked of copies (the engine's, the tray's); the
live position is never touched.

The candidates are where the game's hands would lay the tile for each legal move placing it (now,
or once the move the next placement implies is made: Castle Rock's end of a turn), each way round;
a candidate is kept only if the reader, judging the tray with the tile laid there, reads legal
moves from it, and is kept with those moves (what laying the tile there does). The answers are
kept for the position they were asked about.
"""

from __future__ import annotations

from dominotable.reading.reader import Reader
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game, Move
from dominotable.rules.tiles import Tile
from dominotable.sim.hands.base import Hands
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board

Cells = tuple[int, int]  # the cell under the tile's first-named half, then the other's


class Targets:
    def __init__(self, reader: Reader, hands: Hands):
        self.reader = reader
        self.hands = hands
        self._key: tuple | None = None
        self._known: dict[Tile, dict[Cells, tuple[Move, ...]]] = {}

    def of(self, game: Game, board: Board, tile: Tile) -> tuple[Cells, ...]:
        """Where laying `tile` on `board` (the area the game reads: no racks) reads as a legal move
        from `game` (the live engine: only copies are asked)."""
        return tuple(self.places(game, board, tile))

    def places(self, game: Game, board: Board, tile: Tile) -> dict[Cells, tuple[Move, ...]]:
        """Each place of `of`, with the moves laying the tile there reads as."""
        key = (len(game.moves), str(game.moves[-1]) if game.moves else "",
               frozenset((p.tile, tuple(p.cells)) for p in board.placements))
        if key != self._key:
            self._key, self._known = key, {}
        if tile not in self._known:
            self._known[tile] = self._find(game, board, tile)
        return self._known[tile]

    def _find(self, game: Game, board: Board, tile: Tile) -> dict[Cells, tuple[Move, ...]]:
        if game.is_over():
            return {}
        tray = MemoryTray.of(board)
        if tile in tray.tiles:  # held: no longer where it lay
            tray.apply(Action(ActionKind.REMOVE, tile))
        without = tray.board()
        found: dict[Cells, tuple[Move, ...]] = {}
        for cells in self._candidates(game, without, tile):
            taken = {c for spot in tray.tiles.values() for c in spot}
            if cells in found or taken & set(cells):
                continue
            laid = MemoryTray.of(without)
            laid.place(tile, cells)
            verdict = self.reader.on(game.copy()).judge(laid.board())
            if verdict.moves and verdict.problem is None:
                found[cells] = tuple(verdict.moves)
        return found

    def _candidates(self, game: Game, board: Board, tile: Tile) -> list[Cells]:
        starts = [game.copy()]
        for move in self.reader.implied:
            if game.is_legal(move):
                after = game.copy()
                after.push(move)
                starts.append(after)
        out: list[Cells] = []
        for start in starts:
            for move in start.legal_moves():
                if move.placed() is not tile:
                    continue
                try:
                    actions = self.hands.on(start.copy()).actions(move, board)
                except DominoError:  # no room for it on this tray
                    continue
                for action in actions:
                    if action.kind == ActionKind.PLACE and action.tile is tile:
                        a, b = action.cells
                        out += [(a, b), (b, a)]
        return out
