"""Draws read over the scan pad, one seat at a time, pushed as the game's `lots` move: the
tiles drawn for dealer (Castle Rock) and the doubles drawn for the lead (Doubles in the
Boneyard, also after a tied blocked game).

Each seat in turn holds the tile it drew over the scan pad and the settled pad names it. A
tile counts only when it arrives on the pad: one already there when the draw starts, or still
there after it was read, must be taken off first. The tiles read so far are kept here, by the
tracker (readers are stateless); a takeback or a resumed match starts the draw again from the
first seat.
"""

from __future__ import annotations

from dominotable.reading.reader import Draw, Verdict
from dominotable.rules.hidden import Reveal
from dominotable.rules.tiles import Tile
from dominotable.tray.board import Board


class PadDraw:
    """One draw in progress. `read(board)` for each settled board: a note of whose turn it
    is, a problem naming a tile that does not count, or, once every seat has drawn, the
    `lots` move."""

    def __init__(self, draw: Draw, names: list[str], board: Board | None = None):
        self.draw = draw
        self.names = [names[seat] for seat in draw.seats]
        self.tiles: list[Tile] = []
        self.held = _on_pad(board)  # the tile on the pad already read or refused
        self.why: str | None = None

    def read(self, board: Board) -> Verdict:
        tile = _on_pad(board)
        if tile is not self.held:
            self.held, self.why = tile, None
            if tile is not None:
                self.why = self._refusal(tile)
                if self.why is None:
                    self.tiles.append(tile)
                    if len(self.tiles) == len(self.names):
                        return Verdict(moves=(Reveal("lots", tuple(self.tiles)),))
        if self.why is not None:
            return Verdict(problem=self.why, cells=board.on_pad().cells)
        return Verdict(note=self.note())

    def note(self) -> str:
        seat = self.names[len(self.tiles)]
        ask = f"{seat}: hold the tile you drew {self.draw.what} over the scan pad"
        if self.tiles:
            return f"{self.names[len(self.tiles) - 1]} drew {self.tiles[-1]}. {ask}"
        if self.held is not None:
            return f"take {self.held} off the scan pad. {ask}"
        return ask

    def _refusal(self, tile: Tile) -> str | None:
        seat = self.names[len(self.tiles)]
        if tile in self.tiles:
            who = self.names[self.tiles.index(tile)]
            return (f"{tile} was drawn by {who}: take it off; {seat}, hold the tile you drew {self.draw.what} "
                    f"(rule {self.draw.rule})")
        why = self.draw.check(tile)
        return None if why is None else f"take {tile} off the scan pad: {why}"


def _on_pad(board: Board | None) -> Tile | None:
    placement = board.on_pad() if board is not None else None
    return placement.tile if placement is not None else None
