"""Up-Down-Stop's hands: each drawn tile on its column's ladder, into the scrap half in use, or on
the discards; a column that runs out of rows slides, putting its oldest tiles aside (UDS-10.6)."""

from __future__ import annotations

from dominotable.reading.up_down_stop import Ladder, UpDownStopReader
from dominotable.rules.errors import DominoError
from dominotable.rules.games.up_down_stop.engine import Column, Discard, Scrap, Start, Stop
from dominotable.rules.line import LEFT
from dominotable.rules.tiles import Tile
from dominotable.sim.hands.base import Hands, NoRoom, NotShown, clearing
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board, Placement


class UpDownStopHands(Hands):
    Reader = UpDownStopReader
    reader: UpDownStopReader

    def actions(self, move, board: Board) -> list[Action]:
        """Where the drawn tile goes, once an old scrap pile is off the tray (UDS-10.5)."""
        removes, board = clearing(board, self.reader.old_scrap(board))
        return removes + self.steps(move, board)

    def steps(self, move, board: Board) -> list[Action]:
        game, geo = self.game, self.geometry
        by_tile = {p.tile: p for p in board.tiles()}
        occupied = {c for p in board.placements for c in p.cells}
        tile = move.tile
        if isinstance(move, (Scrap, Discard)):
            piles = game.piles()
            name, pile = ("scrap", piles.scrap) if isinstance(move, Scrap) else ("discard", piles.discarded)
            zone, steps = self.reader.half() if name == "scrap" else geo.zone(name), []
            spot = self.free_spot(zone, occupied)
            if spot is None:  # the zone is full: its tiles go on the pile beside the tray
                steps = [Action(ActionKind.REMOVE, t) for t in pile if t in by_tile]
                spot = self.free_spot(zone, occupied - {c for t in pile if t in by_tile for c in by_tile[t].cells})
            return steps + [Action(ActionKind.PLACE, tile, spot)]
        if isinstance(move, Start):
            return self.start_actions(tile, by_tile)
        j = (move.column - 1) if move.column else game.stoppable(tile)[0]
        ladder = self.reader.ladders(by_tile)[j]
        if isinstance(move, Stop):
            end = next(end for end, number, _, _ in ladder.ends() if number == tile.a)
            active = tile.a
        else:
            ways = [w for w in game.extensions(tile)
                    if (w.column, w.active, w.direction) == (j, move.active, move.direction)]
            end = move.end if move.end is not None else ways[0].end
            active = move.active
        line = ladder.column.line
        last = line.sides[end][-1][0] if line.sides[end] else line.first
        if last not in by_tile:
            raise NotShown(f"{last}, the end of column {j + 1} that {tile} goes on, is not on the tray")
        steps = []
        first = by_tile.get(line.first)
        middle = ladder.cols[len(ladder.cols) // 2]
        if len(line) == 1 and ladder.step[LEFT] > 0 and ladder.line_col[end] != middle:
            # the first tile slides so the half built on is in the middle: room to step aside
            shift = middle - ladder.line_col[end]
            cells = tuple(c + shift for c in first.cells)
            steps.append(Action(ActionKind.SLIDE, line.first, cells))
            ladder = ladder.moved(cols=shift)
            occupied = (occupied - set(first.cells)) | set(cells)
            first = by_tile[line.first] = Placement(first.tile, cells, geo)
        row = ladder.row(end, len(line.sides[end]) + 1)
        if not ladder.top <= row <= ladder.bottom:
            slides, by_tile, ladder = self.shift(ladder, row, by_tile, j, tile)
            steps += slides
            column = set(ladder.tiles())
            occupied = {c for p in board.placements if p.tile not in column for c in p.cells} | \
                {c for t, p in by_tile.items() if t in column for c in p.cells}
            first = by_tile.get(line.first)
            row = ladder.row(end, len(line.sides[end]) + 1)
        col = ladder.line_col[end]
        before = by_tile[line.sides[end][-1][0]] if line.sides[end] else first
        before_cols = {geo.coords(c)[1] for c in before.cells}
        sides = [c for c in (col - 1, col + 1) if c in ladder.cols and geo.cell(row, c) not in occupied]
        if not sides:  # a tile lies where this one steps aside: the tray is not as the position
            raise DominoError(f"{tile} has no free cell beside column {j + 1}'s end on row {row}")
        sides.sort(key=lambda c: c in before_cols)  # step away from the tile before: a ladder
        at, dead = geo.cell(row, col), geo.cell(row, sides[0])
        return steps + [Action(ActionKind.PLACE, tile, (at, dead) if tile.a == active else (dead, at))]

    def shift(self, ladder: Ladder, row: int, by_tile, j: int, tile: Tile) -> tuple[list[Action], dict, Ladder]:
        """Make room in a column's zone for `row` (UDS-10.6): a one-way column puts its oldest
        tiles aside and slides up, a both-ways column slides towards its other end. Returns the
        actions, where the column's tiles then lie, and the ladder as it then is."""
        geo = self.geometry
        tiles = [t for t in ladder.tiles() if t in by_tile]
        slides = []
        moved = dict(by_tile)
        drop = 0
        if ladder.step[LEFT] > 0:  # one way: the oldest tiles go aside, the rest slide up (UDS-10.6)
            # as few as leave the zone a row each for the rest and the new tile: a column that
            # only lies low (its first tile slid down) slides up whole
            order = ladder.tiles()
            keep = max(ladder.aside, len(order) + 1 - (ladder.bottom - ladder.top + 1))
            drop = keep - ladder.aside
            gone = [t for t in order[:keep] if t in by_tile]
            slides += [Action(ActionKind.REMOVE, t) for t in gone]
            for t in gone:
                del moved[t]
            tiles = [t for t in tiles if t not in gone]
        rows = [geo.coords(c)[0] for t in tiles for c in by_tile[t].cells] + [row]
        if max(rows) - min(rows) > ladder.bottom - ladder.top:
            raise NoRoom(f"column {j + 1} is full: {self.reader.label[ladder.zone]} has no room for {tile}")
        dr = ladder.top - min(rows) if min(rows) < ladder.top else ladder.bottom - max(rows)
        order = sorted(tiles, key=lambda t: geo.coords(by_tile[t].cells[0])[0], reverse=dr > 0)
        for t in order:  # the tile furthest in the direction of travel first: none blocks another
            cells = tuple(c + dr * geo.columns for c in by_tile[t].cells)
            slides.append(Action(ActionKind.SLIDE, t, cells))
            moved[t] = Placement(t, cells, geo)
        return slides, moved, ladder.moved(rows=dr, aside=drop)

    def start_actions(self, tile: Tile, by_tile) -> list[Action]:
        """A new column across the first row of the next zone, its old stopped column put aside."""
        geo = self.geometry
        holder = self.reader.zones()
        zone = holder[-1]
        if zone is None:
            raise NoRoom(f"no zone is free for a new column with {tile}")
        steps = []
        if holder[zone] is not None:
            column = self.game.columns()[holder[zone]]
            steps += [Action(ActionKind.REMOVE, old) for old in column.line.tiles() + [column.stopper] if old in by_tile]
        ladder = Ladder(self.reader, self.reader.names[zone], Column(None), {})
        first = geo.cell(ladder.start, ladder.cols[0])
        return steps + [Action(ActionKind.PLACE, tile, (first, first + 1))]

    def free_spot(self, zone: frozenset[int], occupied: set[int]) -> tuple[int, int] | None:
        for cell in sorted(zone - occupied):
            for other in (cell + 1, cell + self.geometry.columns):
                if other in zone - occupied and other in self.geometry.neighbours(cell):
                    return cell, other
        return None
