"""Broadway at the table: the tableau anywhere on the grid, anchored by the hand's double.

Rules BW-11.x of seeds/broadway.md ("At the table: reading the tray"). The engine's cell
(0,0) is the tray cell under the far or left half of the hand's double (the lead), x runs
to the right (east) and y towards the near edge (south), so the whole tableau may be slid
as one without changing the game (BW-11.1). North and South sit at the far and near edges
and lay tiles along a row; East and West sit at the right and left edges and lay tiles
along a column (BW-11.2). A hand's double is read only on a tray the last hand's tiles have
left: who leads is chosen once the tray is clear, and after the first hand the deal is
recorded once the tray has been seen clear (BW-11.5, BW-10.6).
"""

from __future__ import annotations

import re

from dominotable.reading.prompts import counted, listed, span
from dominotable.reading.reader import Verdict
from dominotable.reading.step import StepReader, first_move, handling, on_its_way, problem, waiting
from dominotable.rules.games.broadway.engine import (
    SEATS,
    Broadway,
    Expose,
    Place,
    axis_of,
)
from dominotable.rules.games.broadway.grid import Cell
from dominotable.rules.hidden import DEAL, Reveal
from dominotable.rules.moves import Pass
from dominotable.tray.board import Board, Placement
from dominotable.tray.errors import TrayError

# A placement in the engine's notation, "6-3@(1,0)-(2,0)" (perhaps in brackets of its own after
# the tile's name), or one cell of it, "(1,0)"
PLACEMENT = re.compile(r"( \()?(\d+)-(\d+)@\((-?\d+),(-?\d+)\)-\((-?\d+),(-?\d+)\)(?(1)\))")
CELL = re.compile(r"\((-?\d+),(-?\d+)\)")

TRAY_AXIS = {(1, 0): ("horizontal", "east-west (along a row)"),
             (0, 1): ("vertical", "north-south (along a column)")}


class BroadwayReader(StepReader):
    game: Broadway

    # -- mapping the engine's grid onto the tray ---------------------------------------------

    def anchor(self, board: Board) -> tuple[int, int] | None:
        """(row, column) of the engine's (0,0): the far or left cell of the lead double."""
        lead = self.game.tableau().lead
        placement = next((p for p in board.tiles() if p.tile is lead), None)
        return None if placement is None else self.geometry.coords(min(placement.cells))

    def to_tray(self, anchor: tuple[int, int], cell: Cell) -> int:
        return self.geometry.cell(anchor[0] + cell[1], anchor[1] + cell[0])

    def to_grid(self, anchor: tuple[int, int], cell: int) -> Cell:
        row, col = self.geometry.coords(cell)
        return col - anchor[1], row - anchor[0]

    def in_tray_terms(self, text: str, board: Board | None) -> str:
        """Engine placements and cells as the tray's cells (the tableau's lead double fixes the
        engine's (0,0)); with no tableau on the tray, a placement is just its tile."""
        anchor = self.anchor(board) if board is not None and self.game.tableau().grid.pips else None

        def cells(*xy) -> str | None:
            try:
                return span(self.geometry, [self.to_tray(anchor, (int(x), int(y))) for x, y in zip(xy[::2], xy[1::2])])
            except TrayError:
                return None

        def placement(m: re.Match) -> str:
            where = cells(*m.groups()[3:]) if anchor is not None else None
            named = f"{m[2]}-{m[3]} on {where}" if where else f"{m[2]}-{m[3]}"
            if m[1]:  # an aside in brackets: without cells to name it says nothing new
                return f" ({named})" if where else ""
            return named

        def cell(m: re.Match) -> str:
            where = cells(*m.groups()) if anchor is not None else None
            return where or "off the tray"

        return CELL.sub(cell, PLACEMENT.sub(placement, text))

    def placer(self) -> tuple[str, tuple[int, int]]:
        """Who lays the next tile and along which engine axis (BW-3.2, BW-7.2)."""
        exposed, turn = self.game.exposed(), self.game.hand_info().turn
        if exposed is not None:
            owner = exposed.owner
            return f"{SEATS[(owner + 1) % 4]}, placing {SEATS[owner]}'s exposed tile,", self.game.exposed_axis(owner)
        return SEATS[turn], axis_of(turn)

    # -- reading -------------------------------------------------------------------------------

    def step(self, board: Board) -> Verdict:
        exposed, (grid, _) = self.game.exposed(), self.game.tableau()
        placed = board.tiles()
        pad = board.on_pad()
        if pad is not None and not (exposed is not None and pad.tile is exposed.tile):
            return problem(f"{pad.tile} is on the scan pad: choose 'expose {pad.tile}' with the buttons "
                           f"if it was shown by accident, or take it off (rule BW-11.4)", pad.cells)
        word = self.game.awaiting()
        if word == "deal":
            return self.read_deal(placed)
        if word is not None:
            return self.read_reveal(word, placed, board)
        if not grid.pips:
            return self.read_lead(placed, board)
        anchor = self.anchor(board)
        lead = self.game.tableau().lead
        if anchor is None:
            return handling(f"put {lead} back: the tableau is read from it (rule BW-11.1)")
        moved = self.moved(anchor, grid, placed)
        if moved is not None:
            return moved
        known = {tile for tile, _, _ in grid.tiles()}
        by_tile = {p.tile: p for p in placed}
        new = [p for p in placed if p.tile not in known]
        if not new:
            return Verdict()
        verdict = first_move([self.read_place(anchor, p, board) for p in new])
        return on_its_way(verdict, new[0], [by_tile[t] for t in known], self.geometry)

    def moved(self, anchor, grid, placed: list[Placement]) -> Verdict | None:
        """A tile of the tableau `grid` lifted or out of its place, relative to the lead (BW-11.1)."""
        by_tile = {p.tile: p for p in placed}
        for tile, first, second in grid.tiles():
            where = self.where(anchor, first, second)
            p = by_tile.get(tile)
            if where is None or p is None or set(p.cells) != set(where) or p.pips_at(where[0]) != grid.pips[first]:
                return self.put_back(tile, where, grid.pips[first], p)
        return None

    def where(self, anchor, first: Cell, second: Cell) -> tuple[int, int] | None:
        try:
            return self.to_tray(anchor, first), self.to_tray(anchor, second)
        except TrayError:
            return None

    def put_back(self, tile, where, pips: int, placement: Placement | None) -> Verdict:
        if where is None:
            return handling(f"slide the whole tableau back onto the tray: {tile} no longer fits (rule BW-11.1)")
        label = self.geometry.label
        return handling(f"put {tile} back at {span(self.geometry, where)}, its {pips} on {label(where[0])} "
                       f"(rule BW-11.1)", placement.cells if placement else where)

    def read_reveal(self, word: str, placed: list[Placement], board: Board) -> Verdict:
        """Observed play (BW-11.5): who leads is chosen with the buttons; at the end of a hand
        each player with tiles left lays them out, one player at a time."""
        game = self.game
        if word == "lead":
            if placed:
                return waiting(f"{self.hand_name()} on {game.hand_info().double}: clear the tray "
                               f"({counted(len(placed), 'tile')}), then choose who leads (rule BW-11.5)")
            return waiting(f"{self.hand_name()} on {game.hand_info().double}: choose who leads with the buttons "
                           f"(rule BW-11.5)")
        grid, lead = game.tableau().grid, game.tableau().lead
        anchor = self.anchor(board)
        if grid.pips and anchor is None:
            return handling(f"put {lead} back: the tableau is read from it (rule BW-11.1)")
        if grid.pips:  # the hand's last tile lifted: its takeback, not a tile gone
            moved = self.moved(anchor, grid, placed)
            if moved is not None:
                return moved
        kept = {t for t, _, _ in grid.tiles()} | game.shown_tiles()
        new = [p for p in placed if p.tile not in kept]
        if new:
            tiles = tuple(sorted(p.tile for p in new))  # whose, the tray cannot tell: whose they can be
            return self.legal(Reveal("show", tiles, game.who_shows(tiles)), board, [c for p in new for c in p.cells])
        return waiting(f"show your tiles: lay those left on the tray, away from the tableau; {self.hand_name()} "
                       f"is over (rule BW-11.5)", listed(SEATS[i] for i in game.to_show()))

    def read_deal(self, placed: list[Placement]) -> Verdict:
        """Between hands (BW-10.6, BW-11.5): the deal once the last hand's tiles have all left the
        tray; until then a note of how many are left, never a lead (a leftover is no play). The
        hand's last tile alone lifted is its takeback: a prompt (pending) the table offers to undo."""
        if not placed:
            return Verdict(moves=(DEAL,))
        game = self.game
        last = game.moves[-1] if game.moves else None
        record = game.past_hands()[-1] if game.past_hands() else None
        if isinstance(last, Place) and record is not None:
            tableau = {t for t, _, _ in record.grid.tiles()}
            lead = next((p for p in placed if p.tile is record.order[0][0]), None)
            where = self.where(self.geometry.coords(min(lead.cells)), *last.cells) if lead is not None else None
            if where is not None and {p.tile for p in placed} == tableau - {last.tile}:
                return handling(f"put {last.tile} back at {span(self.geometry, where)}, its {last.pips[0]} "
                                f"on {self.geometry.label(where[0])}, or clear the tray for {self.hand_name()} "
                                f"(rule BW-11.5)", where)
        return waiting(f"{self.hand_name()} on {game.hand_info().double}: gather the tiles ({len(placed)} left) "
                       f"for the deal (rule BW-11.5)")

    def hand_name(self) -> str:
        info = self.game.hand_info()
        return ("sudden-death hand" if info.sudden_death else "hand") + f" {info.number + 1}"

    def read_lead(self, placed: list[Placement], board: Board) -> Verdict:
        """The hand's double (BW-2.3, BW-11.1). At a real table who leads was chosen on a clear
        tray, so every tile is new: the double is the lead, the others are read after it. Without
        observed play more tiles are the last hand's, to be cleared first."""
        game = self.game
        double, turn = game.hand_info().double, game.hand_info().turn
        lead = game.lead_move()
        leader = SEATS[turn]
        if not placed:
            return Verdict()
        if len(placed) > 1 and not game.observed:
            return waiting(f"{self.hand_name()} opens with {double}: clear the tray ({counted(len(placed), 'tile')}), "
                           f"then {leader} leads {double}")
        first = next((p for p in placed if p.tile is double), placed[0])
        if first.tile is not double:
            return problem(f"{self.hand_name()} opens with {double}: take {first.tile} off and lead {double} "
                           f"(rule BW-2.3)", first.cells)
        verdict = self.orientation(first, SEATS[turn], axis_of(turn))
        return verdict or self.legal(lead, board, first.cells)

    def orientation(self, placement: Placement, who: str, axis) -> Verdict | None:
        """A tile along the other axis: turned in a moment, or the next seat's tile laid at
        once with this seat's and read first, so hands may still be at work (pending)."""
        tray_axis, words = TRAY_AXIS[axis]
        if placement.orientation != tray_axis:
            return handling(f"Broadway: {who} plays tiles {words}; turn {placement.tile} (rule BW-11.2)",
                            placement.cells)
        return None

    def read_place(self, anchor, placement: Placement, board: Board) -> Verdict:
        first, second = placement.cells
        move = Place.of(placement.pips_at(first), placement.pips_at(second),
                        self.to_grid(anchor, first), self.to_grid(anchor, second))
        error = self.game.why_illegal(move)
        if error is None:
            return Verdict(moves=(move,))
        if error.rule == "BW-3.2":
            return self.orientation(placement, *self.placer())
        fix = f"lay {placement.tile} with a half against the same number in the tableau" if error.rule == "BW-4.1" \
            else ""
        return problem(self.explain(error, board, fix), placement.cells)

    # -- buttons, restoring --------------------------------------------------------------------

    def button_moves(self, board: Board | None = None) -> list:
        """Pass; who leads, once the tray is clear (BW-11.5: the last hand's tiles are no lead);
        exposing the tile on the scan pad."""
        clear = board is None or not board.tiles()
        moves = [("pass", Pass())] + [(f"{seat} leads", Reveal("lead", (), seat[0])) for seat in SEATS if clear]
        pad = board.on_pad() if board is not None else None
        if pad is not None:
            moves += [(f"expose {pad.tile} ({SEATS[seat]}'s)", Expose(seat, pad.tile)) for seat in range(4)]
        return self.buttons(*moves)

    def expected(self) -> str:
        game = self.game
        if game.is_over():
            return "match over: the tray may be cleared"
        info, (grid, order) = game.hand_info(), game.tableau()
        if not grid.pips and game.awaiting() is not None:  # who holds the double is not known yet
            return f"hand {info.number + 1}: an empty tray; who leads {info.double} is chosen with the buttons"
        if not grid.pips:
            return f"hand {info.number + 1}: an empty tray; {SEATS[info.turn]} leads {info.double}"
        count = f"{len(order)} tile" + ("s" if len(order) > 1 else "")
        return f"hand {info.number + 1}: the tableau of {count} as it lay, built out from {order[0][0]}"
