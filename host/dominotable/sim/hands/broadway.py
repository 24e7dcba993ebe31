"""Broadway's hands: each tile where the engine puts it, the tableau anchored by the hand's double
near the middle of the tray; when a tile would fall off the tray, the whole tableau slides back
to the middle first (BW-11.1)."""

from __future__ import annotations

from dominotable.reading.broadway import BroadwayReader
from dominotable.rules.games.broadway.engine import Expose, Place
from dominotable.rules.hidden import Reveal
from dominotable.sim.hands.base import Hands, NoRoom, clearing, lay_aside
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board


class BroadwayHands(Hands):
    Reader = BroadwayReader
    reader: BroadwayReader

    def actions(self, move, board: Board) -> list[Action]:
        if isinstance(move, Expose):
            return [Action(ActionKind.PAD, move.tile)]
        if isinstance(move, Reveal) and move.word == "show":
            return lay_aside(board, move.tiles)
        if not isinstance(move, Place):
            return []
        grid, geo = self.game.tableau().grid, self.geometry
        steps = []
        pad = board.on_pad()
        if pad is not None and pad.tile is move.tile:
            steps.append(Action(ActionKind.UNPAD, move.tile))
        if not grid.pips:  # the last hand's tiles go first
            removes, board = clearing(board, [p.tile for p in board.tiles()])
            steps += removes
        anchor = (geo.rows // 2 - 1, geo.columns // 2 - 1) if not grid.pips else self.reader.anchor(board)
        if self.reader.where(anchor, *move.cells) is None:
            anchor, slides = self.recentre(board, anchor, move)
            steps += slides
        first, second = self.reader.where(anchor, *move.cells)
        at = (first, second) if move.pips[0] == move.tile.a else (second, first)
        steps.append(Action(ActionKind.PLACE, move.tile, at))
        return steps

    def recentre(self, board: Board, anchor, move: Place):
        """Slide every tile by one offset so the tableau and `move` fit on the tray (BW-11.1)."""
        geo = self.geometry
        rows = [anchor[0] + y for _, y in move.cells]
        cols = [anchor[1] + x for x, _ in move.cells]
        for p in board.tiles():
            for cell in p.cells:
                r, c = geo.coords(cell)
                rows.append(r)
                cols.append(c)
        height, width = max(rows) - min(rows) + 1, max(cols) - min(cols) + 1
        if height > geo.rows or width > geo.columns:
            raise NoRoom(f"Broadway: the tableau with {move} would be {width} cells wide and {height} deep; "
                         f"the tray has {geo.columns} by {geo.rows}")
        dr = (geo.rows - height) // 2 - min(rows)
        dc = (geo.columns - width) // 2 - min(cols)
        moving = {p.tile: tuple(geo.cell(r + dr, c + dc) for r, c in map(geo.coords, p.cells))
                  for p in board.tiles()}
        now = {p.tile: p.cells for p in board.tiles()}
        slides = []
        while moving:  # a translation never blocks itself: some tile always has its target free
            covered = {c for cells in now.values() for c in cells}
            tile = next(t for t, to in moving.items() if not (set(to) & (covered - set(now[t]))))
            slides.append(Action(ActionKind.SLIDE, tile, moving[tile]))
            now[tile] = moving.pop(tile)
        return (anchor[0] + dr, anchor[1] + dc), slides
