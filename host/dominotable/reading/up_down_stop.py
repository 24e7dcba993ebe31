"""Up-Down-Stop at the table: ladder columns, a scrap pile and discards, each in its zone.

Rules UDS-10.x of seeds/up-down-stop.md ("At the table: reading the tray"). Each column
lies in a zone uds-column-N, one zone for each column that may be open at once: its first tile across a row (the top row, or the middle row
when columns grow both ways), every later tile in the next row with its active half
straight under (or over) the active half before it and its dead half to one side, so the
tiles step left and right like a ladder. A stopping double goes in the next row the same
way. Columns take the zones in order; when all are in use, a new column takes the zone
of a stopped column (the lowest such zone), whose tiles are put aside first (they still count).
Scrapped tiles lie face down in zone scrap, discarded doubles in zone discard.
"""

from __future__ import annotations

import copy
import re

from dominotable.reading.prompts import name
from dominotable.reading.reader import Verdict
from dominotable.reading.step import StepReader, first_move, half_cell, on_its_way, problem, waiting
from dominotable.rules.games.up_down_stop.engine import (
    DOWN,
    UP,
    Column,
    Discard,
    Extend,
    Scrap,
    Start,
    Stop,
    UpDownStop,
    column_text,
)
from dominotable.rules.line import LEFT, RIGHT
from dominotable.rules.tiles import Tile, fmt
from dominotable.tray.board import Board, Placement

COLUMN_ZONE = "uds-column-"
EXTENSION = re.compile(r"\bc(\d+)([+-])(\d+)\b")  # the engine's `c2+4`: on column 2, up to 4
COLUMN = re.compile(r"\bc(\d+)\b")  # the engine's `c2`


class Ladder:
    """Where one column's tiles lie: its zone, first row, and per end the row step and the
    tray column its active halves keep to."""

    def __init__(self, reader: UpDownStopReader, zone: str, column: Column, by_tile: dict):
        geo = reader.geometry
        self.zone = zone
        self.cells = geo.zone(zone)
        self.top, self.bottom, self.cols = reader.bounds[zone]
        both = reader.game.options.both_ways
        self.start = (self.top + self.bottom) // 2 if both else self.top
        self.step = {LEFT: -1 if both else 1, RIGHT: 1}
        self.column = column
        self.line_col = {}
        self.aside = 0  # tiles put aside from the start of a long one-way column (UDS-10.6)
        if column.line is None:
            return
        line = column.line
        first = by_tile.get(line.first)
        if first is not None:
            self.start = geo.coords(first.cells[0])[0]
            for end, pips in ((LEFT, line.first.a), (RIGHT, line.first.b)):
                self.line_col[end] = geo.coords(half_cell(first, pips))[1]
            return
        side = next((end for end in (LEFT, RIGHT) if line.sides[end]), None)
        if both or side is None:
            return
        for k, (tile, (number, _)) in enumerate(line.sides[side], start=1):
            if tile in by_tile:
                row, self.line_col[side] = geo.coords(half_cell(by_tile[tile], number))
                self.start, self.aside = row - k, k
                return

    def moved(self, cols: int = 0, rows: int = 0, aside: int = 0) -> Ladder:
        """This ladder with its tiles `cols` columns and `rows` rows further, `aside` more of its
        oldest tiles put aside: where a hand that slides the column will find it (a new Ladder)."""
        moved = copy.copy(self)
        moved.line_col = {end: col + cols for end, col in self.line_col.items()}
        moved.start = self.start + rows
        moved.aside = self.aside + aside
        return moved

    def tiles(self) -> list[Tile]:
        """The column's tiles from its first outwards (one-way: in the order they were laid)."""
        line = self.column.line
        return [line.first] + [t for end in (LEFT, RIGHT) for t, _ in line.sides[end]]

    def row(self, end: int, k: int) -> int:
        """The row of the k-th tile out from the first on `end` (k = 0: the first tile)."""
        return self.start + self.step[end] * k

    def ends(self):
        """(end, top number, row and tray column of the next slot) for each end a tile may go on;
        for a stopped column, the ends its stopper may have gone on."""
        line, both = self.column.line, self.step[LEFT] < 0
        for end in (LEFT, RIGHT):
            if self.column.stopper is None:
                if line.ends[end] is None:
                    continue
                number = line.ends[end][0]
            else:
                if len(line) > 1 and not line.sides[end] and not both:
                    continue  # the first tile's dead number (UDS-3.3)
                number = line.sides[end][-1][1][0] if line.sides[end] else (line.first.a, line.first.b)[end]
            yield end, number, self.row(end, len(line.sides[end]) + 1), self.line_col[end]


class UpDownStopReader(StepReader):
    game: UpDownStop

    def __init__(self, game, geometry):
        super().__init__(game, geometry)
        names = [n for n in geometry.zones if n.startswith(COLUMN_ZONE)]
        self.names = sorted(names, key=lambda n: int(n[len(COLUMN_ZONE):]))[:game.options.columns]
        self.label = geometry.labels  # what the players call a zone
        self.bounds = {}  # zone -> (top row, bottom row, columns)
        for zone in self.names:
            rows, cols = zip(*map(geometry.coords, geometry.zone(zone)))
            self.bounds[zone] = (min(rows), max(rows), sorted(set(cols)))
        self.ladder_cells = frozenset().union(*map(geometry.zone, self.names))

    # -- which zone holds which column --------------------------------------------------------

    def zones(self) -> list[int | None]:
        """The column each zone holds now, then the zone the next column will take (UDS-10.4),
        worked out from the order of starts and stops."""
        moves, columns = self.game.moves, self.game.columns()
        stopped = {}
        for i, column in enumerate(columns):
            if column.stopper is not None:
                stopped[i] = next(k for k, m in enumerate(moves) if isinstance(m, Stop) and m.tile is column.stopper)
        starts = [k for k, m in enumerate(moves) if isinstance(m, Start)] + [len(moves)]
        holder: list[int | None] = [None] * len(self.names)
        for j, when in enumerate(starts):
            free = [z for z, held in enumerate(holder) if held is None]
            free = free or [z for z, held in enumerate(holder) if stopped.get(held, when) < when]
            if j == len(columns):
                return holder + [free[0] if free else None]
            holder[free[0]] = j
        raise AssertionError("unreachable: the last start is the next column's")

    def ladders(self, by_tile: dict[Tile, Placement]) -> dict[int, Ladder]:
        """A Ladder for every column that still has its zone, by column index."""
        holder = self.zones()
        return {j: Ladder(self, self.names[z], self.game.columns()[j], by_tile)
                for z, j in enumerate(holder[:-1]) if j is not None}

    # -- reading -------------------------------------------------------------------------------

    def step(self, board: Board) -> Verdict:
        columns, piles = self.game.columns(), self.game.piles()
        geo = self.geometry
        placed = board.tiles()
        by_tile = {p.tile: p for p in placed}
        ladders = self.ladders(by_tile)
        known: set[Tile] = set(piles.scrap) | set(piles.discarded)
        for j, column in enumerate(columns):
            known.update(column.line.tiles())
            if column.stopper is not None:
                known.add(column.stopper)
        holder = self.zones()
        for j, ladder in ladders.items():
            if columns[j].stopper is not None and holder.index(j) == holder[-1]:
                continue  # its zone is the next column's: it may be put aside (UDS-10.4)
            verdict = self.check_column(j, ladder, by_tile)
            if verdict is not None:
                return verdict
        for zone, tiles in (("scrap", piles.scrap), ("discard", piles.discarded)):
            for tile in tiles:
                if tile in by_tile and not set(by_tile[tile].cells) <= geo.zone(zone):
                    return problem(f"put {tile} back in the {self.label[zone]} zone, or on the {zone} pile beside the tray "
                                   f"(rule UDS-10.5)", by_tile[tile].cells)
        lying = self.old_scrap(board)
        if lying:
            return waiting(f"the draw pile ran out: take {fmt(lying)} off the scrap zone and shuffle them face "
                           f"down as the new draw pile; scrap into {self.half_name()} from now on (rule UDS-10.5)")
        aside = [p for p in placed if p.tile in known and not self.in_place(p, ladders)]
        if aside:
            p = aside[0]
            return problem(f"{p.tile} was put aside with its stopped column: keep it out of the "
                           f"Up-Down-Stop zones (rule UDS-10.4)", p.cells)
        new = [p for p in placed if p.tile not in known]
        if not new:
            return Verdict()
        verdict = first_move([self.read_new(p, ladders, by_tile, board) for p in new])
        in_columns = [p for p in placed if p.tile in known and set(p.cells) <= self.ladder_cells]
        return on_its_way(verdict, new[0], in_columns, geo)  # a tile touching no column: hands at work

    def in_place(self, placement: Placement, ladders: dict[int, Ladder]) -> bool:
        """A known tile outside the zones, or inside the zone that holds it."""
        game, geo = self.game, self.geometry
        cells = set(placement.cells)
        for j, ladder in ladders.items():
            if cells & ladder.cells:
                column = game.columns()[j]
                return placement.tile in column.line.tiles() or placement.tile is column.stopper
        piles = game.piles()
        for zone, tiles in (("scrap", piles.scrap), ("discard", piles.discarded)):
            if cells & geo.zone(zone):
                return placement.tile in tiles
        return not cells & self.ladder_cells

    def half(self, current: bool = True) -> frozenset[int]:
        """The rows of zone scrap that take scrapped tiles now: the far half until the first
        reshuffle, then the near half, and so on (UDS-10.5); or the other half."""
        geo = self.geometry
        zone = geo.zone("scrap")
        rows = sorted({geo.coords(c)[0] for c in zone})
        far = (self.game.piles().reshuffles % 2 == 0) == current
        middle = rows[len(rows) // 2]
        return frozenset(c for c in zone if (geo.coords(c)[0] < middle) == far)

    def half_name(self) -> str:
        rows = sorted({self.geometry.coords(c)[0] for c in self.half()})
        return f"rows {rows[0]}-{rows[-1]} of the scrap zone"

    def old_scrap(self, board: Board) -> list[Tile]:
        """Tiles of a scrap pile that has become the draw pile, still on the other half of the
        scrap zone (UDS-5.2, UDS-10.5)."""
        piles = self.game.piles()
        if not piles.reshuffles:
            return []
        placed = ({t for c in self.game.columns() for t in c.line.tiles() + [c.stopper]}
                  | set(piles.scrap) | set(piles.discarded))
        other = self.half(current=False)
        return [p.tile for p in board.tiles() if p.tile not in placed and set(p.cells) <= other]

    def check_column(self, j: int, ladder: Ladder, by_tile) -> Verdict | None:
        """Every tile of column j where the ladder puts it (UDS-10.2, UDS-10.3)."""
        label, geo = self.geometry.label, self.geometry
        column = ladder.column
        line = column.line
        first = by_tile.get(line.first)
        if ladder.aside == 0 and (first is None or not set(first.cells) <= ladder.cells
                                  or first.orientation != "horizontal"):
            return problem(f"put {line.first} back along a row of {self.label[ladder.zone]}: it is the first tile "
                           f"of column {j + 1} (rule UDS-10.2)", first.cells if first else ())
        for end in (LEFT, RIGHT):
            for k, (tile, (number, _)) in enumerate(line.sides[end], start=1):
                if k < ladder.aside:
                    continue  # put aside to make room (UDS-10.6)
                p = by_tile.get(tile)
                row = ladder.row(end, k)
                if not ladder.top <= row <= ladder.bottom:
                    return problem(f"put {tile} back in column {j + 1} in {self.label[ladder.zone]} (rule UDS-10.3)",
                                   p.cells if p else ())
                cell = geo.cell(row, ladder.line_col[end])
                if p is None or cell not in p.cells or p.pips_at(cell) != number or p.orientation != "horizontal" \
                        or not set(p.cells) <= ladder.cells:
                    return problem(f"put {tile} back in column {j + 1}, lying along row {ladder.row(end, k)} with its "
                                   f"{number} on {label(cell)} (rule UDS-10.3)", p.cells if p else (cell,))
        if column.stopper is not None:
            p = by_tile.get(column.stopper)
            slots = [geo.cell(row, col) for end, number, row, col in ladder.ends()
                     if number == column.stopper.a and ladder.top <= row <= ladder.bottom]
            if p is None or not set(p.cells) & set(slots) or not set(p.cells) <= ladder.cells:
                return problem(f"put {column.stopper} back on top of column {j + 1} (rule UDS-10.3)",
                               p.cells if p else slots)
        return None

    def read_new(self, p: Placement, ladders: dict[int, Ladder], by_tile, board: Board) -> Verdict:
        """The drawn tile, by where it lies (UDS-10.1)."""
        columns, geo, tile = self.game.columns(), self.geometry, p.tile
        cells = set(p.cells)
        if cells <= self.half():
            return self.legal(Scrap(tile), board, p.cells)
        if cells <= geo.zone("scrap"):
            return problem(f"scrap {tile} into {self.half_name()} (rule UDS-10.5)", p.cells)
        if cells <= geo.zone("discard"):
            return self.legal(Discard(tile), board, p.cells)
        names = self.names
        zone = next((z for z, name in enumerate(names) if cells <= geo.zone(name)), None)
        if zone is None:
            return problem(f"{tile} lies outside the columns, the scrap zone and the discard zone: "
                           f"lay it in one of them (rule UDS-10.1)", p.cells)
        if p.orientation != "horizontal":
            return problem(f"lay {tile} along a row: every tile of a column lies across it (rule UDS-10.2)", p.cells)
        holder = self.zones()
        j = holder[zone]
        if j is not None and columns[j].stopper is None:
            return self.read_extension(p, j, ladders[j], board)
        if holder[-1] != zone:
            if j is not None:
                return problem(f"column {j + 1} was stopped by {columns[j].stopper}: nothing more goes on it "
                               f"(rule UDS-4.1)", p.cells)
            return problem(f"a new column starts in {self.label[names[holder[-1]]]}, not {self.label[names[zone]]} "
                           f"(rule UDS-10.4)"
                           if holder[-1] is not None else "no zone is free for a new column (rule UDS-10.4)",
                           p.cells)
        if j is not None:
            column = columns[j]
            left = [t for t in column.line.tiles() + [column.stopper] if t in by_tile]
            if left:
                return problem(f"to start a column in {self.label[names[zone]]}, first put column {j + 1}'s tiles aside "
                               f"({fmt(left)}) (rule UDS-10.4)", p.cells)
        return self.legal(Start(tile), board, p.cells)

    def read_extension(self, p: Placement, j: int, ladder: Ladder, board: Board) -> Verdict:
        tile, geo = p.tile, self.geometry
        readings = []
        for end, number, row, col in ladder.ends():
            if row < ladder.top or row > ladder.bottom:
                continue
            slot = geo.cell(row, col)
            if slot not in p.cells:
                continue
            if tile.is_double:
                readings.append(self.legal(Stop(tile, j + 1), board, p.cells))
                continue
            active = p.pips_at(slot)
            move = self.extension(tile, j, end, number, active)
            if move is None:  # the half on the slot does not follow the number it lies under
                rule = "UDS-3.3" if len(ladder.column.line) == 1 else "UDS-3.4"
                readings.append(problem(f"{tile} lies with its {active} under the {number} on "
                                        f"{name(geo, geo.cell(row - ladder.step[end], col))}, which it does not "
                                        f"follow: the half under {number} carries the number that follows it "
                                        f"(rule {rule})", p.cells))
                continue
            readings.append(self.legal(move, board, p.cells))
        moves = {v.moves for v in readings if v.moves}
        if len(moves) > 1:
            return problem(f"{tile} lies under both numbers of column {j + 1}'s first tile: set it one cell to "
                           f"the side, its active half under the number it follows (rule UDS-10.3)", p.cells)
        if readings:
            return first_move(readings)
        slots: dict[int, list[str]] = {}
        for _, _, row, col in ladder.ends():
            if ladder.top <= row <= ladder.bottom:
                slots.setdefault(row, []).append(geo.label(geo.cell(row, col)))
        wanted = " or ".join(f"row {row}, a half on {' or '.join(cells)}" for row, cells in slots.items())
        if not wanted:
            return problem(f"column {j + 1} has no free row left in {self.label[ladder.zone]}: slide it along its zone, then lay "
                           f"{tile} (rule UDS-10.6)", p.cells)
        return problem(f"lay {tile} along {wanted}: each tile of column {j + 1} lies in the row after the last, its "
                       f"active half in line (rule UDS-10.3)", p.cells)

    def extension(self, tile: Tile, j: int, end: int, number: int, active: int) -> Extend | None:
        """The engine's move for `tile` on `end` of column j making `active` active, or None when
        `active` does not follow `number` there (the engine might take it on the column's other
        end, but the tray shows it on this one: read so, the stored move would be asked back once
        made); the end is named only when the engine needs it (UDS-3.6)."""
        game = self.game
        line = game.columns()[j].line
        direction = line.ends[end][1] if line.ends[end] else 0
        if not direction:
            direction = DOWN if active == (number - 1) % game.cycle else UP
        ways = [w for w in game.extensions(tile) if (w.column, w.active, w.direction) == (j, active, direction)]
        if not any(w.end == end for w in ways):
            return None
        return Extend(tile, j + 1, active, direction, end if len(ways) > 1 else None)

    def in_tray_terms(self, text: str, board: Board | None) -> str:
        """The engine's words for columns as the table says them: a move `3-5 c2+4` as "3-5 on
        column 2, up to 4", `stop c1` as "stop column 1", and "c2" as "column 2" (one name for a
        column everywhere, issue 28)."""
        def move(m: re.Match) -> str:
            way = "up" if m[2] == "+" else "down"
            return f"on column {m[1]}, {way} to {m[3]}"

        return COLUMN.sub(lambda m: f"column {m[1]}", EXTENSION.sub(move, text))

    # -- restoring ------------------------------------------------------------------------------

    def expected(self) -> str:
        columns, piles = self.game.columns(), self.game.piles()
        holder = self.zones()
        names = self.names
        lines = [f"column {j + 1} in {self.label[names[z]]}: {column_text(columns[j])}" for z, j in enumerate(holder[:-1])
                 if j is not None]
        lines.append(f"scrap zone: {fmt(piles.scrap) or 'empty'}; discard zone: {fmt(piles.discarded) or 'empty'}")
        aside = [j for j in range(len(columns)) if j not in holder[:-1]]
        if aside:
            lines.append("put aside: " + ", ".join(f"column {j + 1}" for j in aside))
        return "\n".join(lines)
