"""Doubles in the Boneyard at the table: the line lies anywhere on the grid and may bend.

Rules DB-8.x of seeds/doubles-in-the-boneyard.md ("At the table: reading the tray"). The
engine's line says which tiles lie in it and in what order; the tray says where. Every
tile touches the tile before it number to number (DB-8.2), so the free half of each end
tile is known, and a new tile is a play on the end whose free half it touches with the
same number (DB-8.3).
"""

from __future__ import annotations

from dominotable.reading.draw import Draw, pad_actions
from dominotable.reading.reader import Action, Verdict
from dominotable.reading.step import (
    NoRoom,
    StepAdapter,
    awaiting,
    clearing,
    first_move,
    half_cell,
    lay_aside,
    problem,
    waiting,
)
from dominotable.rules.games.doubles_boneyard.engine import (
    DoublesInTheBoneyard,
    Pass,
    Play,
    line_text,
)
from dominotable.rules.hidden import Reveal
from dominotable.rules.line import LEFT, RIGHT, Line
from dominotable.tray.board import Board, Placement


def joints(line: Line):
    """(outer tile, inner tile, number they share) for every touching pair, from the first
    tile outwards on each side."""
    for side, start in ((LEFT, line.first.a), (RIGHT, line.first.b)):
        inner, shared = line.first, start
        for tile, open_value in line.sides[side]:
            yield tile, inner, shared
            inner, shared = tile, open_value


def _not_a_double(tile) -> str | None:
    return None if tile.is_double else f"{tile} is not a double; only doubles are drawn for the lead (rule DB-7.1)"


def end_tile(line: Line, end: int):
    return line.sides[end][-1][0] if line.sides[end] else line.first


class DoublesAdapter(StepAdapter):
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
        word = awaiting(self.game)
        if word is not None:
            return self.read_reveal(word, placed)
        if s.line is None:
            leader = self.game.side_names()[s.turn]
            if not placed:
                return Verdict()
            if len(placed) > 1:
                return waiting(f"game {s.game_no}: clear the tray ({len(placed)} tiles); then {leader} leads")
            (tile, placement), = placed.items()
            return self.legal(Play(tile), placement.cells)
        line = s.line
        for tile in line.tiles():
            if tile not in placed:
                return problem(f"put {tile} back in the line ({line_text(line)}) (rule DB-8.2)")
        for outer, inner, shared in joints(line):
            here, there = half_cell(placed[outer], shared), half_cell(placed[inner], shared)
            if there not in self.geometry.neighbours(here):
                return problem(f"put {outer} back with its {shared} against the {shared} of {inner} "
                               f"at {label(there)} (rule DB-8.2)", placed[outer].cells)
        in_line = set(line.tiles())
        new = [p for tile, p in placed.items() if tile not in in_line]
        if not new:
            return Verdict()
        ends = self.open_ends(placed)
        verdicts = []
        for placement in new:
            where = self.touching(placement, ends)
            if len(where) == 1 or (len(where) == 2 and line.ends[LEFT] == line.ends[RIGHT]):
                verdicts.append(self.legal(Play(placement.tile, where[0]), placement.cells))
            elif len(where) == 2:
                verdicts.append(problem(f"{placement.tile} touches both open ends; move it against one "
                                        f"of them (rule DB-8.3)", placement.cells))
        return first_move(verdicts) or self.misplaced(new[0], ends)

    def read_reveal(self, word: str, placed: dict) -> Verdict:
        """Observed play (DB-8.5): the doubles drawn for the lead are read over the scan pad by
        the session (`pad_draw`); at the end of a game each player's tiles left are laid out,
        one player at a time."""
        if word == "lots":
            return waiting("draw doubles for the lead over the scan pad, one player at a time (rule DB-8.5)")
        s, names = self.game.state, self.game.side_names()
        kept = set(s.line.tiles()) if s.line else set()
        kept |= {t for seat in s.shown for t in s.hands[seat]}
        new = [p for tile, p in placed.items() if tile not in kept and not tile.is_double]
        if new:
            return self.reveal(word, new)
        to_show = [names[i] for i, h in enumerate(s.hands) if h and i not in s.shown]
        return waiting(f"game {s.game_no} is over: {', then '.join(to_show)}, lay your tiles left "
                       f"on the tray, away from the line (rule DB-8.5)")

    def misplaced(self, placement: Placement, ends) -> Verdict:
        tile, label = placement.tile, self.geometry.label
        wanted = [f"the open {number} at {label(free)} with its {number}"
                  for _, number, free in ends if tile.has(number)]
        if not wanted:
            shown = " and ".join(str(number) for _, number, _ in ends)
            return problem(f"{tile} matches neither open end ({shown}): take it back (rule DB-3.3)",
                           placement.cells)
        return problem(f"{tile} must touch {' or '.join(dict.fromkeys(wanted))} (rule DB-8.3)", placement.cells)

    # -- bots, buttons, restoring -----------------------------------------------------------

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

    def pad_draw(self) -> Draw | None:
        if awaiting(self.game) != "lots":
            return None
        return Draw(tuple(self.game.lots_seats()), "for the lead", "DB-8.5", check=_not_a_double)

    def actions(self, move, board: Board) -> list[Action]:
        if isinstance(move, Reveal) and move.word == "lots":
            return pad_actions(move.tiles, board)
        if isinstance(move, Reveal):
            return [Action("place", tile, cells) for tile, cells in lay_aside(board, move.tiles)]
        if not isinstance(move, Play):
            return []
        tile, line = move.tile, self.game.state.line
        track = self.track()
        if line is None:  # the last game's tiles (and doubles drawn) go first
            start = len(track) * 2 // 5
            removes, _ = clearing(board, [p.tile for p in board.placements])
            return removes + [Action("place", tile, (track[start], track[start + 1]))]
        placed = {p.tile: p for p in board.tiles()}
        end = move.end if move.end is not None else next(e for e in (LEFT, RIGHT) if tile.has(line.ends[e]))
        ends = self.open_ends(placed)
        _, number, free = ends[end]
        occupied = {c for p in board.placements for c in p.cells}
        options = self.on_track(track, placed[end_tile(line, end)], free) + self.around(free, occupied)
        for near, far in options:
            if near in occupied or far in occupied:
                continue
            cells = (near, far) if tile.a == number else (far, near)
            touches = self.touching(Placement(tile, cells, self.geometry), ends)
            if touches == [end] or (len(touches) == 2 and line.ends[LEFT] == line.ends[RIGHT]):
                return [Action("place", tile, cells)]
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

    def button_moves(self, board: Board | None = None) -> list:
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

