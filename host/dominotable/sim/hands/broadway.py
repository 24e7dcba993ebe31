"""Broadway's hands: each tile where the engine puts it, the tableau anchored by the hand's double
near the middle of the tray; when a tile would fall off the tray, the whole tableau slides back
to the middle first (BW-11.1). With bot seats, whose racks lie around the edges, the tableau
keeps to the zone `tableau` inside them; the table names who leads and shows a bot's tiles
left from its rack."""

from __future__ import annotations

from dominotable.reading.broadway import BroadwayReader
from dominotable.rules.errors import IllegalMove
from dominotable.rules.games.broadway.engine import Expose, Place
from dominotable.rules.games.broadway.seats import SEATS, parse_seat
from dominotable.rules.hidden import Reveal
from dominotable.rules.moves import Move, Pass
from dominotable.rules.tiles import Tile
from dominotable.sim.hands.base import Hands, NoRoom, NotShown, clearing, lay_aside
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board


class BroadwayHands(Hands):
    Reader = BroadwayReader
    reader: BroadwayReader
    area: frozenset[int] | None = None  # where the tableau must stay (None: the whole grid)
    racks: frozenset[int] = frozenset()  # the bot seats' racks, whose tiles stay at a deal

    def keep_clear(self, cells: frozenset[int]) -> None:
        """Keep the tableau off the bots' racks: the zone inside the racks, grown over each edge of
        the tray where no bot's rack lies (a person's side), as far as the readers go."""
        self.racks = cells
        if not cells:
            self.area = None
            return
        geo = self.geometry
        rows, cols = zip(*map(geo.coords, geo.zone("tableau")))
        top, bottom, left, right = min(rows), max(rows), min(cols), max(cols)

        def clear(rows, cols) -> bool:
            return all(geo.cell(r, c) not in cells for r in rows for c in cols)

        while top > 0 and clear([top - 1], range(left, right + 1)):
            top -= 1
        while bottom < geo.rows - 1 and clear([bottom + 1], range(left, right + 1)):
            bottom += 1
        while left > 0 and clear(range(top, bottom + 1), [left - 1]):
            left -= 1
        while right < geo.columns - 1 and clear(range(top, bottom + 1), [right + 1]):
            right += 1
        self.area = frozenset(geo.cell(r, c) for r in range(top, bottom + 1) for c in range(left, right + 1))

    def _bounds(self) -> tuple[int, int, int, int]:
        """(top, bottom, left, right) rows and columns the tableau may use."""
        geo = self.geometry
        if self.area is None:
            return 0, geo.rows - 1, 0, geo.columns - 1
        rows, cols = zip(*map(geo.coords, self.area))
        return min(rows), max(rows), min(cols), max(cols)

    def rack_reveal(self, racks: dict[int, list[Tile]], area: Board, full: bool = True) -> Move | None:
        """Who leads, once every bot's rack is full (BW-11.5: a rack still being dealt may yet take
        the double): the seat whose rack holds the hand's double, or the one seat without a rack
        (BW-10.1), as the buttons would choose it, on a clear tray; at the end of a hand, a bot's
        tiles left (BW-10.5)."""
        game = self.game
        if game.awaiting() == "lead" and full:
            seat = self._leader(racks)
            lead = Reveal("lead", (), SEATS[seat][0]) if seat is not None else None
            return lead if any(move == lead for _, move in self.reader.button_moves(area)) else None
        if game.awaiting() == "show":
            seat = next((k for k, tiles in racks.items() if tiles and k in game.to_show()), None)
            return Reveal("show", tuple(sorted(racks[seat])), SEATS[seat][0]) if seat is not None else None
        return None

    def _holder(self, racks: dict[int, list[Tile]]) -> int | None:
        """The seat whose rack holds the hand's double."""
        double = self.game.hand_info().double
        return next((k for k, tiles in racks.items() if double in tiles), None)

    def _leader(self, racks: dict[int, list[Tile]]) -> int | None:
        """The seat whose rack holds the hand's double, or the one seat without a rack."""
        seat = self._holder(racks)
        return next(k for k in range(4) if k not in racks) if seat is None and len(racks) == 3 else seat

    def racks_deny(self, move: Move, racks: dict[int, list[Tile]], full: bool) -> IllegalMove | None:
        """Who leads, chosen with the buttons against bots (BW-11.5): once every bot's rack is full,
        the racks say it (the double in a rack is that bot's; in none, it is a person's), so until
        then the choice waits; a bot named whose rack does not hold the double, or a person while a
        rack holds it, is refused. Taken, the hand would wait for a double no one could lay."""
        if not (isinstance(move, Reveal) and move.word == "lead" and self.game.awaiting() == "lead"):
            return None
        double = self.game.hand_info().double
        if not full:
            return IllegalMove(f"who leads waits until every bot's rack is full: the racks tell who holds {double}",
                               "BW-11.5")
        named, holder = parse_seat(move.seat), self._holder(racks)
        if holder is not None and named != holder:
            return IllegalMove(f"{double} lies in {SEATS[holder]}'s rack: {SEATS[holder]} leads", "BW-11.5", double)
        if holder is None and named in racks:
            return IllegalMove(f"{SEATS[named]}'s rack does not hold {double}", "BW-11.5", double)
        return None

    def actions(self, move, board: Board) -> list[Action]:
        if isinstance(move, Reveal) and move.word == "deal":  # every tile but the racks' off the tray
            return clearing(board, [p.tile for p in board.placements if not set(p.cells) <= self.racks])[0]
        if isinstance(move, Expose):
            return [Action(ActionKind.PAD, move.tile)]
        if isinstance(move, Reveal) and move.word == "show":
            return lay_aside(board, move.tiles, self.racks)
        exposed = self.game.exposed()
        if isinstance(move, Pass) and exposed is not None:  # it fits nowhere: back to its owner, face up (BW-7.3)
            pad = board.on_pad()
            return [Action(ActionKind.UNPAD, exposed.tile)] if pad is not None and pad.tile is exposed.tile else []
        if not isinstance(move, Place):
            return []
        grid = self.game.tableau().grid
        steps = []
        pad = board.on_pad()
        if pad is not None and pad.tile is move.tile:
            steps.append(Action(ActionKind.UNPAD, move.tile))
        if not grid.pips:  # the last hand's tiles go first
            removes, board = clearing(board, [p.tile for p in board.tiles()])
            steps += removes
        top, bottom, left, right = self._bounds()
        anchor = ((top + bottom) // 2, (left + right) // 2) if not grid.pips else self.reader.anchor(board)
        if anchor is None:
            raise NotShown(f"the hand's first double, {self.game.tableau().lead}, is not on the tray")
        if not self._inside(self.reader.where(anchor, *move.cells)):
            anchor, slides = self.recentre(board, anchor, move)
            steps += slides
        first, second = self.reader.where(anchor, *move.cells)
        at = (first, second) if move.pips[0] == move.tile.a else (second, first)
        steps.append(Action(ActionKind.PLACE, move.tile, at))
        return steps

    def _squeezed(self, rows: list[int], cols: list[int]) -> tuple[int, int] | None:
        """The shortest slide that puts these cells on the tray and off the bots' racks, once the
        tableau has outgrown the room inside them (a person's tile laid out beside a rack is read
        like any other: the readers reach under every cell)."""
        geo = self.geometry
        if not self.racks:
            return None
        shifts = sorted(((dr, dc) for dr in range(-min(rows), geo.rows - max(rows))
                         for dc in range(-min(cols), geo.columns - max(cols))), key=lambda s: abs(s[0]) + abs(s[1]))
        return next((s for s in shifts if all(geo.cell(r + s[0], c + s[1]) not in self.racks
                                              for r, c in zip(rows, cols))), None)

    def _inside(self, cells) -> bool:
        return cells is not None and (self.area is None or set(cells) <= self.area)

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
        top, bottom, left, right = self._bounds()
        if height <= bottom - top + 1 and width <= right - left + 1:
            dr = top + (bottom - top + 1 - height) // 2 - min(rows)
            dc = left + (right - left + 1 - width) // 2 - min(cols)
        else:
            shift = self._squeezed(rows, cols)
            if shift is None:
                tableau = {tile for tile, _ in self.game.tableau().order}
                strays = sorted(str(p.tile) for p in board.tiles() if p.tile not in tableau)
                if strays:  # they would slide with it: the room is judged once they are off the tray
                    raise NotShown(f"{', '.join(strays)} on the tray but not in the tableau: take "
                                   f"{'it' if len(strays) == 1 else 'them'} off first")
                raise NoRoom(f"Broadway: the tableau with {move} would be {width} cells wide and {height} deep; "
                             f"the tray has {right - left + 1} by {bottom - top + 1}")
            dr, dc = shift
            if shift == (0, 0):  # it lies on the tray as it is
                return anchor, []
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
