"""Castle Rock and Castle Rock Solitaire read off the tray (rules CR-10 and CRS-8 of the cards).

The row is the tiles standing upright in zone castle-row, left to right by column, then in
castle-row-2 once the first band is full; each column holds one tile. Gaps are ignored, so
sliding tiles together is never a move. Tiles anywhere else on the grid (the captures band,
a player's side of the table) are not in the row and are ignored; so is the scan pad.

Judging compares the tray's row with the engine's. Tiles of the engine's row must keep their
order (a capture only takes tiles out); tiles the engine does not have in its row are
arrivals and must stand after all of them, at the open end. Removals are captures, turned
into engine moves by the exact analysis (capture.py). Two readings are tried, in this order:
the removals came before the arrival (Castle Rock: the current player's captures, then the
end of that turn and the next placement), or after it (the placer's own captures). The
first reading the engine accepts is the verdict; when neither is, the prompt comes from
the reading that got furthest.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from itertools import combinations, pairwise

from dominotable.reading.reader import Draw, Reader, Refusal, Verdict
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Move
from dominotable.rules.games.castle_rock.capture import Capture, analyse
from dominotable.rules.games.castle_rock.engine import DRAW, END, place
from dominotable.rules.hidden import DEAL, Reveal
from dominotable.rules.tiles import Tile, fmt
from dominotable.tray.board import Board, Placement

ROW_ZONES = ("castle-row", "castle-row-2")


class CastleReader(Reader):
    """What both games share: reading the row and its captures."""

    row_rules = "CR-10"

    def __init__(self, game, geometry):
        super().__init__(game, geometry)
        self.slots: list[tuple[int, int]] = []  # (far cell, near cell) of each row position
        self.bands: list[frozenset[int]] = []
        self.tops: list[int] = []  # the far row of each band
        for name in ROW_ZONES:
            cells = geometry.zone(name)
            rows = sorted({geometry.coords(c)[0] for c in cells})
            cols = sorted({geometry.coords(c)[1] for c in cells})
            self.bands.append(cells)
            self.tops.append(rows[0])
            self.slots += [(geometry.cell(rows[0], c), geometry.cell(rows[0] + 1, c)) for c in cols]
        self.slot_of = {cells: i for i, cells in enumerate(self.slots)}

    # -- reading the tray ---------------------------------------------------------------------

    def row_placements(self, board: Board) -> list[Placement]:
        """The row's tiles in order; Refusal for a tile lying flat in or across a row band."""
        row, flat = [], []
        for p in board.tiles():
            bands = [i for i, band in enumerate(self.bands) if any(c in band for c in p.cells)]
            if not bands:
                continue
            slot = self.slot_of.get(tuple(sorted(p.cells)))
            if slot is None:
                flat.append((bands[0], p))
            else:
                row.append((slot, p))
        row.sort(key=lambda item: item[0])
        if flat:
            band, p = flat[0]
            col = min(self.geometry.coords(c)[1] for c in p.cells)
            last = self.slots[row[-1][0]] if row else None
            beyond = last is None or (self._band(last[0]), self.geometry.coords(last[0])[1]) < (band, col)
            where = "at the open end" if beyond else "in the row"
            if p.orientation == "vertical":  # upright, but half out of the band
                top = self.tops[band]
                raise Refusal(f"set {p.tile} upright {where}, in rows {top} and {top + 1} "
                              f"(rule {self.row_rules}.1)", p.cells, pending=True)
            raise Refusal(f"stand {p.tile} upright {where} (rule {self.row_rules}.1)", p.cells, pending=True)
        self._check_bands(row)
        return [p for _, p in row]

    def _check_bands(self, row: list[tuple[int, Placement]]) -> None:
        """Refuse new tiles in the second band while the first has room after its last tile
        (rule .2: the row carries on in the second band once the first is used up)."""
        first = sum(1 for far, _ in self.slots if far in self.bands[0])  # the first band's columns
        later = [p for slot, p in row if slot >= first]
        shown = set(self.shown_row())
        last = max((slot for slot, _ in row if slot < first), default=-1)
        if not later or last == first - 1 or any(p.tile in shown for p in later):
            return
        top = self.tops[0]
        after = f", after {row[[slot for slot, _ in row].index(last)][1].tile}" if last >= 0 else ""
        raise Refusal(f"stand {later[0].tile} in the first band (rows {top} and {top + 1}){after}: it still has "
                      f"room (rule {self.row_rules}.2)", later[0].cells)

    def _band(self, cell: int) -> int:
        return next(i for i, band in enumerate(self.bands) if cell in band)

    def read(self, board: Board) -> Verdict:
        return Verdict(moves=tuple(self._explain(self.row_placements(board))))

    def shown_row(self) -> tuple[Tile, ...]:
        """The row the tray must show for the engine's position."""
        return self.game.row()

    def _explain(self, placements: list[Placement]) -> list[Move]:
        row = self.shown_row()
        tiles = [p.tile for p in placements]
        if tuple(tiles) == row:
            return []
        where = set(row)
        old = [t for t in tiles if t in where]
        layout = Refusal(f"{'clear the row, then lay out' if tiles else 'lay out'} the starting row "
                         f"left to right: {fmt(row)}")
        if self.at_deal() and not tiles:
            raise layout
        try:
            return self._moves_to(row, tiles, old, {p.tile: p.cells for p in placements})
        except Refusal:
            if self.at_deal() and old != list(row):  # a new hand or game: the dealt row is not laid yet
                raise layout from None
            raise

    def _moves_to(self, row, tiles, old, cells) -> list[Move]:
        self._check_order(row, old, cells)
        new = [t for t in tiles if t not in old]
        if new:
            first = tiles.index(new[0])
            if any(t in old for t in tiles[first:]):
                after = f", after {old[-1]}" if old else ""
                raise Refusal(f"move {new[0]} to the open end of the row{after} (rule {self.arrival_rule})",
                              cells[new[0]])
        if new:
            readings = [[("captures", before), ("arrive", new), ("captures", old + new)]
                        for before in _before_arrival(row, old)]
        else:
            readings = [[("captures", old)]]
        best = None
        for steps in readings:
            moves, done, refusal = self._try(steps)
            if refusal is None:
                return moves
            if best is None or done > best[0]:
                best = (done, refusal)
        raise best[1]

    def _check_order(self, row: Sequence[Tile], old: list[Tile], cells) -> None:
        """Refuse tiles of the row that stand out of their order: someone moved them."""
        pos = [row.index(t) for t in old]
        if pos == sorted(pos):
            return
        keep = set(_longest_increasing(pos))
        moved = next(t for t, p in zip(old, pos) if p not in keep)
        at = row.index(moved)
        left = next((row[i] for i in range(at - 1, -1, -1) if i in keep), None)
        right = next((row[i] for i in range(at + 1, len(row)) if i in keep), None)
        raise Refusal(f"put {moved} back {_between(left, right)} (the row keeps its order, "
                      f"rule {self.row_rules}.3)", cells[moved], pending=True)

    def _try(self, steps) -> tuple[list[Move], int, Refusal | None]:
        """Push the moves of one reading on the engine and take them back: (moves, steps
        done, None) if every move is legal, else ([], steps done, the refusal)."""
        game = self.game
        pushed: list[Move] = []
        done = 0
        try:
            for kind, tiles in steps:
                if kind == "captures":
                    gone = [t for t in game.row() if t not in tiles]
                    fix = f"put {fmt(gone)} back"
                    moves = self._captures_to(tiles)
                else:
                    fix = f"take {fmt(tiles)} off the row"
                    moves = self.arrivals(tiles) if tiles else []
                for move in moves:
                    game.push(move)
                    pushed.append(move)
                done += 1
            return list(pushed), done, None
        except Refusal as refusal:
            return [], done, refusal
        except DominoError as error:
            return [], done, Refusal(self.explain(error, fix=fix))
        finally:
            for _ in pushed:
                game.pop()

    def _captures_to(self, after: list[Tile]) -> list[Move]:
        """The captures turning the engine's row into `after`; Refusal naming the first group
        of removed tiles that no legal captures take, with where to put them back and why."""
        row = self.game.row()
        if tuple(after) == row:
            return []
        analysis = analyse(row)
        kept = [0, *(row.index(t) + 1 for t in after), len(row) + 1]
        for a, b in pairwise(kept):
            if b > a + 1 and (len(row) < 3 or not analysis.can_clear(a, b)):
                completion = analysis.completion(after)
                if completion is not None:  # a capture being made tile by tile
                    more = [t for t in after if t not in completion]
                    gone = [t for t in row if t not in after]
                    raise Refusal(f"finish the capture: take {fmt(more)} too, or put {fmt(gone)} back "
                                  f"(rule CR-5.3)", pending=True)
                gap = row[a:b - 1]
                left, right = (row[a - 1] if a else None), (row[b - 1] if b <= len(row) else None)
                raise Refusal(f"put {fmt(gap)} back {_between(left, right)}: {_why_kept(row, gap, left, right)}")
        return analysis.captures_to(tuple(after))

    def provisional(self) -> int:
        """The captures since the last placement or draw: this turn's captures are judged
        together against the row they started from, until the turn ends (rule CR-10.10)."""
        count = 0
        for move in reversed(self.game.moves):
            if not isinstance(move, Capture):
                break
            count += 1
        return count

    def expected(self) -> str:
        return f"row: {fmt(self.shown_row()) or '(empty)'} (open end right)"

    # -- what each game supplies --------------------------------------------------------------

    arrival_rule = "CR-4.1"

    @abstractmethod
    def arrivals(self, tiles: list[Tile]) -> list[Move]:
        """The moves that bring `tiles` (in order) to the open end of the row; Refusal if none."""

    @abstractmethod
    def at_deal(self) -> bool:
        """Whether the engine's row is the row as dealt (nothing played on it yet)."""


class CastleRockReader(CastleReader):
    """Castle Rock. In observed mode (CR-11) the engine first waits for the tiles drawn for
    dealer, read seat by seat over the scan pad (draw.py) with the row cleared, then for each
    hand's starting row, laid in the row band (CR-10.8); after the first hand, once the last
    hand's row has been seen cleared away (the deal), so no tile of it is read as the next row."""

    implied = (END,)  # CR-10.5: the next placement closes the turn
    def shown_row(self) -> tuple[Tile, ...]:
        return () if self.game.awaiting() else self.game.row()

    def pad_draw(self) -> Draw | None:
        if self.game.awaiting() != "lots":
            return None
        return Draw(tuple(range(self.game.players)), "for dealer", "CR-10.8")

    def read(self, board: Board) -> Verdict:
        wanted = self.game.awaiting()
        if wanted is None:
            try:
                return super().read(board)
            except Refusal as refusal:  # the row lifted on the last turn: not yet the hand's gathering
                lifted = set(self.shown_row()) - {p.tile for p in board.tiles()}
                if refusal.pending or not lifted or not self._played_out():
                    raise
                raise Refusal(f"End turn first: every tile is played, and End turn scores the hand (rule "
                              f"CR-10.13); {refusal.prompt}", refusal.cells) from None
        count = self.game.row_size
        if wanted == "deal":  # CR-10.12, CR-11.5: every tile of the last hand gathered before the deal
            if board.placements:
                return Verdict(note=f"new hand: gather the tiles ({len(board.placements)} left), then lay out "
                                    f"the starting row ({count} tiles) (rule CR-10.12)")
            return Verdict(moves=(DEAL,))
        tiles = [p.tile for p in self.row_placements(board)]
        if wanted == "lots":
            if tiles:
                return Verdict(problem="clear the row: the tiles drawn for dealer are read over the scan pad "
                                      "(rule CR-10.8)")
            return Verdict(note="draw for dealer over the scan pad, one player at a time")
        if len(tiles) > count:
            return Verdict(problem=f"take {tiles[count]} off: the starting row takes only {count} tiles "
                                  f"(rule CR-11.1)")
        if len(tiles) < count:
            return Verdict(note=f"lay out the starting row ({count} tiles) upright in the row, left to right")
        move = Reveal(wanted, tuple(tiles))
        problem = self.game.why_illegal(move)
        if problem is not None:
            return Verdict(problem=self.explain(problem))
        return Verdict(moves=(move,))

    def expected(self) -> str:
        if self.game.awaiting() == "lots":
            return f"an empty row; then the draw for dealer over the scan pad ({self.game.players} players)"
        return super().expected()

    def arrivals(self, tiles: list[Tile]) -> list[Move]:
        """The next placement; with a tile already placed this turn, first the end of the turn."""
        game = self.game
        if len(tiles) > 1:
            raise Refusal(f"take {tiles[1]} off the row: one tile per turn, and {tiles[0]} came "
                          f"first (rule CR-4.1)")
        if not game.placed():
            return [place(tiles[0])]
        if not game.boneyard() and not any(game.hands()):
            raise Refusal(f"take {tiles[0]} off the row: every hand is played out, so press End turn "
                          f"to score the hand (rule CR-6.1)")
        return [END, place(tiles[0])]

    def at_deal(self) -> bool:
        game = self.game
        return not game.placed() and game.deck().drawn == 2 * game.players + game.row_size

    def _played_out(self) -> bool:
        """The last turn of a hand: the last tile placed, nothing left to draw or hold (CR-6.1)."""
        game = self.game
        return game.placed() and not game.boneyard() and not any(game.hands())

    def button_moves(self, board: Board | None = None) -> list[tuple[str, Move]]:
        return [("End turn", END)] if self.game.is_legal(END) else []


class CastleRockSolitaireReader(CastleReader):
    row_rules = "CRS-8"
    arrival_rule = "CRS-4.1"

    def arrivals(self, tiles: list[Tile]) -> list[Move]:
        """One draw per tile, in order. Without observed mode the engine's shuffle decides
        which tile comes next, and the tray must show that one."""
        game = self.game
        if game.observed:
            return [game.parse_move(f"draw {tile}") for tile in tiles]
        rest = game.deck().rest
        for i, tile in enumerate(tiles):
            if i < len(rest) and rest[i] is not tile:
                raise Refusal(f"take {tile} off the row: the boneyard's next tile is {rest[i]} "
                              f"(rule CRS-4.1)")
        return [DRAW] * len(tiles)

    def at_deal(self) -> bool:
        return self.game.deck().drawn == 3 and self.game.scores == [0]


def _before_arrival(row: Sequence[Tile], old: list[Tile], limit: int = 10) -> list[list[Tile]]:
    """The rows the captures before an arrival may have left, most captured first (CR-10.11):
    removals that do not need the new tile as a pincher came before it. Only the tiles after
    the last one kept can need it; the others all went before. Each candidate keeps `old` and
    some of those tiles (all subsets while they are few, else none or all of them)."""
    last = row.index(old[-1]) + 1 if old else 0
    gap = list(row[last:])
    if len(gap) > limit:
        sizes = [(), tuple(range(len(gap)))]
    else:
        sizes = [kept for size in range(len(gap) + 1) for kept in combinations(range(len(gap)), size)]
    return [old + [gap[i] for i in kept] for kept in sizes]


def _between(left: Tile | None, right: Tile | None) -> str:
    if left and right:
        return f"between {left} and {right}"
    if right:
        return f"at the closed end, before {right}"
    if left:
        return f"at the open end, after {left}"
    return "in the row"


def _why_kept(row, gap, left, right) -> str:
    """Why the tiles of `gap` cannot all be captured while their neighbours stay."""
    if len(row) < 3:
        return "no capture with fewer than three tiles in the row (rule CR-5.5)"
    if len(gap) == 1:
        if left and right:
            return f"{left} and {right} share no suit (rule CR-5.1)"
        return f"{gap[0]} is at an end of the row, so nothing pinches it (rule CR-5.1)"
    return f"no order of captures takes them all while {_both(left, right)} stay (rule CR-5.3)"


def _both(left, right) -> str:
    return " and ".join(str(t) for t in (left, right) if t) or "the row's ends"


def _longest_increasing(values: list[int]) -> list[int]:
    """One longest strictly increasing subsequence of `values` (they are distinct)."""
    best: list[list[int]] = []
    for v in values:
        candidates = [seq for seq in best if seq[-1] < v]
        seq = max(candidates, key=len, default=[]) + [v]
        best.append(seq)
    return max(best, key=len, default=[])
