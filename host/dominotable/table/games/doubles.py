"""Doubles in the Boneyard at the table: the line lies anywhere on the grid and may bend.

Rules DB-6.x of seeds/doubles-in-the-boneyard.md ("At the table: reading the tray"). The
engine's line says which tiles lie in it and in what order; the tray says where. Every
tile touches the tile before it number to number (DB-6.2), so the free half of each end
tile is known, and a new tile is a play on the end whose free half it touches with the
same number (DB-6.3).
"""

from __future__ import annotations

from ...games.doubles_boneyard import DoublesInTheBoneyard, Pass, Play, line_text
from ...line import LEFT, RIGHT, Line
from ...tray.board import Board, Placement
from ..adapter import Action, Verdict
from ..reading import NoRoom, StepAdapter, half_cell, problem

CENTRE = (5, 7)  # where a bot lays the first tile: row, column of its first half
STRAIGHT, SIDEWAYS = 0, 1


def joints(line: Line):
    """(outer tile, inner tile, number they share) for every touching pair, from the first
    tile outwards on each side."""
    for side, start in ((LEFT, line.first.a), (RIGHT, line.first.b)):
        inner, shared = line.first, start
        for tile, open_value in line.sides[side]:
            yield tile, inner, shared
            inner, shared = tile, open_value


def end_tile(line: Line, end: int):
    return line.sides[end][-1][0] if line.sides[end] else line.first


class DoublesAdapter(StepAdapter):
    games = ("doubles-in-the-boneyard",)
    game: DoublesInTheBoneyard

    # -- reading -------------------------------------------------------------------------

    def open_ends(self, placed: dict) -> list[tuple[int, int, int]]:
        """(end, number, cell of the end tile's free half) for both ends of the line."""
        line = self.game.state.line
        return [(end, line.ends[end], half_cell(placed[end_tile(line, end)], line.ends[end]))
                for end in (LEFT, RIGHT)]

    def touching(self, placement: Placement, ends) -> list[int]:
        """The ends whose free half `placement` touches with the same number."""
        neighbours = self.geometry.neighbours
        return [end for end, number, free in ends
                if any(placement.pips_at(cell) == number and cell in neighbours(free)
                       for cell in placement.cells)]

    def read(self, board: Board) -> Verdict:
        s = self.game.state
        placed = {p.tile: p for p in board.tiles()}
        label = self.geometry.label
        if s.line is None:
            leader = self.game.side_names()[s.turn]
            if not placed:
                return Verdict()
            if len(placed) > 1:
                return problem(f"game {s.game_no}: clear the tray ({len(placed)} tiles); "
                               f"then {leader} leads", [c for p in placed.values() for c in p.cells])
            (tile, placement), = placed.items()
            return self.legal(Play(tile), placement.cells)
        line = s.line
        for tile in line.tiles():
            if tile not in placed:
                return problem(f"put {tile} back in the line ({line_text(line)}) (rule DB-6.2)")
        for outer, inner, shared in joints(line):
            here, there = half_cell(placed[outer], shared), half_cell(placed[inner], shared)
            if there not in self.geometry.neighbours(here):
                return problem(f"put {outer} back with its {shared} against the {shared} of {inner} "
                               f"at {label(there)} (rule DB-6.2)", placed[outer].cells)
        in_line = set(line.tiles())
        new = [p for tile, p in placed.items() if tile not in in_line]
        if not new:
            return Verdict()
        ends = self.open_ends(placed)
        for placement in new:
            where = self.touching(placement, ends)
            if len(where) == 1 or (len(where) == 2 and line.ends[LEFT] == line.ends[RIGHT]):
                return self.legal(Play(placement.tile, where[0]), placement.cells)
            if len(where) == 2:
                return problem(f"{placement.tile} touches both open ends; move it against one of them "
                               f"(rule DB-6.3)", placement.cells)
        return self.misplaced(new[0], ends)

    def misplaced(self, placement: Placement, ends) -> Verdict:
        tile, label = placement.tile, self.geometry.label
        wanted = [f"the open {number} at {label(free)} with its {number}"
                  for _, number, free in ends if tile.has(number)]
        if not wanted:
            shown = " and ".join(str(number) for _, number, _ in ends)
            return problem(f"{tile} matches neither open end ({shown}): take it back (rule DB-3.3)",
                           placement.cells)
        return problem(f"{tile} must touch {' or '.join(dict.fromkeys(wanted))} (rule DB-6.3)", placement.cells)

    # -- bots, buttons, restoring -----------------------------------------------------------

    def actions(self, move, board: Board) -> list[Action]:
        if not isinstance(move, Play):
            return []
        geo, tile = self.geometry, move.tile
        line = self.game.state.line
        if line is None:
            first = geo.cell(*CENTRE)
            return [Action("place", tile, (first, first + 1))]
        placed = {p.tile: p for p in board.tiles()}
        end = move.end if move.end is not None else next(e for e in (LEFT, RIGHT) if tile.has(line.ends[e]))
        _, number, free = self.open_ends(placed)[end]
        occupied = {c for p in board.placements for c in p.cells}
        best = None
        for near in geo.neighbours(free):
            for far in geo.neighbours(near):
                if near in occupied or far in occupied or far == free:
                    continue
                cells = (near, far) if tile.a == number else (far, near)
                trial = Placement(tile, cells, geo)
                touches = self.touching(trial, self.open_ends(placed))
                if end not in touches or (len(touches) == 2 and line.ends[LEFT] != line.ends[RIGHT]):
                    continue
                room = self.room(occupied | {near, far}, far)
                bend = STRAIGHT if self.ahead(placed[end_tile(line, end)], free) == near else SIDEWAYS
                key = (len(touches) == 1, room, -bend, -near, -far)
                if best is None or key > best[0]:
                    best = (key, cells)
        if best is None:
            raise NoRoom(f"no room on the tray for {tile} at the open {number} ({geo.label(free)})")
        return [Action("place", tile, best[1])]

    def ahead(self, end_placement: Placement, free: int) -> int | None:
        """The cell straight on from the end tile's free half."""
        (r0, c0), (r1, c1) = (self.geometry.coords(c) for c in end_placement.cells)
        row, col = self.geometry.coords(free)
        dr, dc = (r1 - r0, c1 - c0) if free == end_placement.cells[1] else (r0 - r1, c0 - c1)
        r, c = row + dr, col + dc
        if 0 <= r < self.geometry.rows and 0 <= c < self.geometry.columns:
            return self.geometry.cell(r, c)
        return None

    def room(self, occupied: set[int], start: int) -> int:
        """Empty grid cells reachable from `start`: how far the line can still grow there."""
        seen, todo = set(), [start]
        while todo:
            for n in self.geometry.neighbours(todo.pop()):
                if n not in occupied and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return len(seen)

    def button_moves(self) -> list:
        return self.buttons(("pass", Pass()))

    def expected(self) -> str:
        s = self.game.state
        names = self.game.side_names()
        if s.turn is None:
            return "match over: the tray may be cleared"
        if s.line is None:
            return f"game {s.game_no}: an empty tray; {names[s.turn]} leads"
        return (f"game {s.game_no}: the line {line_text(s.line)}, each tile touching the next "
                f"number to number; open ends {s.line.ends[LEFT]} and {s.line.ends[RIGHT]}")

