"""Doubles in the Boneyard's hands: the line snakes along a track of every other row, turning at
the edges so its two ends never meet; off the track, a tile goes where the line has most room."""

from __future__ import annotations

from dominotable.reading.doubles_boneyard import DoublesBoneyardReader, end_tile
from dominotable.rules.games.doubles_boneyard.engine import Play
from dominotable.rules.hidden import Reveal
from dominotable.rules.line import LEFT, RIGHT
from dominotable.sim.hands.base import Hands, NoRoom, NotShown, clearing, lay_aside, pad_actions
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board, Placement


class DoublesBoneyardHands(Hands):
    Reader = DoublesBoneyardReader
    reader: DoublesBoneyardReader

    def track(self) -> list[int]:
        """The bots' path for the line: along every other row, turning at the edges, so the two
        ends never meet; the first tile lies near the middle of it."""
        geo = self.geometry
        path = []
        for row in range(0, geo.rows, 2):
            cols = range(geo.columns) if row % 4 == 0 else range(geo.columns - 1, -1, -1)
            path += [geo.cell(row, col) for col in cols]
            if row + 1 < geo.rows:
                path.append(geo.cell(row + 1, cols[-1]))
        return path

    def actions(self, move, board: Board) -> list[Action]:
        if isinstance(move, Reveal) and move.word == "lots":
            return pad_actions(move.tiles, board)
        if isinstance(move, Reveal) and move.word == "deal":  # the last game's tiles (and doubles drawn) go
            return clearing(board, [p.tile for p in board.placements])[0]
        if isinstance(move, Reveal):
            return lay_aside(board, move.tiles)
        if not isinstance(move, Play):
            return []
        tile, line = move.tile, self.game.line()
        track = self.track()
        if line is None:  # without observed play there is no deal: the last game's tiles go first
            start = len(track) * 2 // 5
            removes, _ = clearing(board, [p.tile for p in board.placements])
            return removes + [Action(ActionKind.PLACE, tile, (track[start], track[start + 1]))]
        placed = {p.tile: p for p in board.tiles()}
        gone = next((end_tile(line, e) for e in (LEFT, RIGHT) if end_tile(line, e) not in placed), None)
        if gone is not None:
            raise NotShown(f"{gone}, an end of the line, is not on the tray")
        end = move.end if move.end is not None else next(e for e in (LEFT, RIGHT) if tile.has(line.ends[e]))
        ends = self.reader.open_ends(placed)
        _, number, free = ends[end]
        occupied = {c for p in board.placements for c in p.cells}
        options = self.on_track(track, placed[end_tile(line, end)], free) + self.around(free, occupied)
        for near, far in options:
            if near in occupied or far in occupied:
                continue
            cells = (near, far) if tile.a == number else (far, near)
            touches = self.reader.touching(Placement(tile, cells, self.geometry), ends)
            if touches == [end] or (len(touches) == 2 and line.ends[LEFT] == line.ends[RIGHT]):
                return [Action(ActionKind.PLACE, tile, cells)]
        raise NoRoom(f"no room on the tray for {tile} at the open {number} ({self.geometry.label(free)})")

    @staticmethod
    def on_track(track: list[int], end: Placement, free: int) -> list[tuple[int, int]]:
        """The next two track cells beyond the end's free half, if the end lies on the track."""
        other = end.cells[1] if free == end.cells[0] else end.cells[0]
        if free not in track or other not in track:
            return []
        i, step = track.index(free), track.index(free) - track.index(other)
        if abs(step) != 1 or not 0 <= i + 2 * step < len(track):
            return []
        return [(track[i + step], track[i + 2 * step])]

    def around(self, free: int, occupied: set[int]) -> list[tuple[int, int]]:
        """Off the track: every spot touching the free half, roomiest first."""
        geo = self.geometry
        spots = [(near, far) for near in geo.neighbours(free) for far in geo.neighbours(near)
                 if far != free and near not in occupied and far not in occupied]
        return sorted(spots, key=lambda spot: -self.room(occupied | set(spot), spot[1]))

    def room(self, occupied: set[int], start: int) -> int:
        """Empty grid cells reachable from `start`: how far the line can still grow there."""
        seen, todo = set(), [start]
        while todo:
            for n in self.geometry.neighbours(todo.pop()):
                if n not in occupied and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return len(seen)
