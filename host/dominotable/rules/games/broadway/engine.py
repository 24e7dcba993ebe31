"""Broadway (seeds/broadway.md): four players in partnerships build one two-dimensional
tableau per hand and score for every extra matching segment.

Seats are 0 North, 1 East, 2 South, 3 West; play passes clockwise N -> E -> S -> W
(BW-1.2); partnerships are seat % 2 (0 North-South, 1 East-West). The tableau is a
`Grid` of half-tile cells (x east, y south). North and South lay tiles along x, East
and West along y (BW-3.2). Moves: `6-3@(1,0)-(2,0)` puts the 6 on (1,0) and the 3 on
(2,0) (shorthand `6-3@(1,0)e`: the second half east of the first; moves print with the
western or northern cell first), `pass`, and
`expose W 5-2` (West showed the 5-2 by accident; the opponents place it next, BW-7).

Tiles enter play only through `deal()` (one call per hand). In observed mode (BW-10) the
deal is only the engine's guess at the hidden hands: each hand opens with `lead S` (the
seat holding the double; after the first hand, once the last one's tiles are cleared away:
`deal`), any unseen tile may be played and is swapped into the player's guessed hand, a pass
bars the tiles that would fit, and a finished hand waits for the tiles left to be shown
(`show W 3-5 1-2`): observed.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import NamedTuple

from dominotable.rules.errors import IllegalMove, InvalidNotation
from dominotable.rules.game import Game, State, applies, checks
from dominotable.rules.games.broadway.grid import (
    Cell,
    Frontier,
    Grid,
    fmt_cell,
    neighbours,
)
from dominotable.rules.games.broadway.observed import ObservedPlay
from dominotable.rules.games.broadway.room import room_of
from dominotable.rules.games.broadway.seats import SEATS, axis_name, axis_of, parse_seat
from dominotable.rules.hidden import Reveal, parse_reveal
from dominotable.rules.moves import PASS, Move, Pass
from dominotable.rules.options import Options, option
from dominotable.rules.position import BadPosition, Position
from dominotable.rules.tiles import Tile

HAND_SIZE = 7
CENTRE: Cell = (0, 0)
POINTS = (0, 0, 1, 5, 10, 10, 10)  # by matching segment pairs, BW-5.1 (at most 6 are possible)
_PLACE = re.compile(
    r"^(\d+)\s*[-:]\s*(\d+)\s*@\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)\s*"
    r"(?:-\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)|([nesw]))$", re.IGNORECASE)
_DIRECTIONS = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}


@dataclass(frozen=True)
class Place(Move):
    """`pips[0]` on `cells[0]`, `pips[1]` on `cells[1]`. Build with `of`, which lists the
    western (or northern) cell first, so each placement has one notation."""

    pips: tuple[int, int]
    cells: tuple[Cell, Cell]

    @classmethod
    def of(cls, first_pip: int, second_pip: int, first: Cell, second: Cell) -> Place:
        if second < first:
            return cls((second_pip, first_pip), (second, first))
        return cls((first_pip, second_pip), (first, second))

    @property
    def tile(self) -> Tile:
        return Tile(*self.pips)

    def __str__(self) -> str:
        return f"{self.pips[0]}-{self.pips[1]}@{fmt_cell(self.cells[0])}-{fmt_cell(self.cells[1])}"


@dataclass(frozen=True)
class Expose(Move):
    seat: int
    tile: Tile

    def __str__(self) -> str:
        return f"expose {SEATS[self.seat][0]} {self.tile}"



def match_count(grid: Grid, move: Place) -> int:
    """Matching pairs between the new tile's halves and their tableau neighbours (BW-4.3)."""
    count = 0
    pips = grid.pips
    for cell, pip, mate in ((move.cells[0], move.pips[0], move.cells[1]),
                            (move.cells[1], move.pips[1], move.cells[0])):
        for n in neighbours(cell):
            if n != mate and pips.get(n) == pip:
                count += 1
    return count


def placements(grid: Grid, tiles, axis: Cell, frontier: Frontier | None = None) -> Iterator[Place]:
    """Every placement of `tiles` along `axis` touching at least one matching segment, lazily."""
    pips = grid.pips
    if frontier is None:
        frontier = Frontier(grid)
    wants = frontier.wants
    dx, dy = axis
    for tile in tiles:
        for pip in ((tile.a,) if tile.is_double else (tile.a, tile.b)):
            other = tile.other(pip)
            for cell in frontier.cells[pip]:
                x, y = cell
                for mate in ((x + dx, y + dy), (x - dx, y - dy)):
                    if mate in pips:
                        continue
                    # A placement whose both halves match is met from both cells: keep one.
                    if mate < cell and wants.get(mate, 0) >> other & 1:
                        continue
                    yield Place.of(pip, other, cell, mate)


class Tableau(NamedTuple):
    """This hand's tableau: the grid (treat it as read-only) and the tiles in the order placed,
    each with the side credited."""

    grid: Grid
    order: tuple[tuple[Tile, int], ...]

    @property
    def lead(self) -> Tile | None:
        return self.order[0][0] if self.order else None


def opening_pip(number: int, hands: int, top: int) -> int:
    """Hand k opens on double 6-k; sudden death starts again at double-six (BW-2.1, BW-8.2)."""
    k = number if number < hands else number - hands
    return top - k % (top + 1)


class Exposure(NamedTuple):
    """A tile its owner showed by accident, which the owner's left-hand opponent places (BW-7)."""

    owner: int
    tile: Tile


class HandInfo(NamedTuple):
    number: int  # the hand under way, from 0 (sudden-death hands follow the last regular one)
    double: Tile  # the double it opens on (BW-2.1)
    turn: int  # the seat whose turn it is
    sudden_death: bool


@dataclass(frozen=True)
class HandRecord:
    """A finished hand: its tableau, the tiles in the order placed with the side credited,
    and the tiles left in each seat's hand (BW-6.3)."""

    number: int
    grid: Grid
    order: tuple[tuple[Tile, int], ...]
    unplayed: tuple[tuple[Tile, ...], ...]


@dataclass(slots=True)
class BroadwayState(State):
    """One match position; every field an immutable value replaced on change."""

    scores: tuple[int, int] = (0, 0)
    past: tuple[HandRecord, ...] = ()
    winner: int | None = None
    number: int = 0  # the hand under way, from 0
    hands: tuple[tuple[Tile, ...], ...] = ()
    turn: int = 0
    exposed: Exposure | None = None  # an exposed tile to be placed (BW-7)
    shown: frozenset = frozenset()  # exposed tiles that fit nowhere and went back face up (BW-7.3)
    grid: Grid = field(default_factory=Grid)
    frontier: Frontier | None = None  # a cache, see seat_moves
    order: tuple[tuple[Tile, int], ...] = ()  # the tiles placed this hand, with the side credited
    barred: tuple[frozenset, ...] = (frozenset(),) * 4  # observed mode: tiles each seat's passes rule out (BW-10.3)
    revealed: frozenset = frozenset()  # observed mode: seats whose tiles left were shown (BW-10.5)
    awaiting: str | None = None  # observed mode: "deal", "lead" or "show", the reveal owed (BW-10)


@dataclass(frozen=True)
class BroadwayOptions(Options):
    hands: int = option(7, "hands before the winner is decided (sudden death follows a tie)",
                        choices=tuple(range(1, 8)))
    exposed_orientation: str = option(
        "placer", "an exposed tile lies horizontally for the opponents placing it, or for its owner",
        choices=("placer", "owner"))
    room: str = option("", "the tray the tableau must fit on (BW-11.6; room.py): set by the table", hidden=True)

    def __post_init__(self):
        room_of(self.room)  # a room that does not read is refused as the options are made


class Broadway(ObservedPlay, Game):
    name = "broadway"
    title = "Broadway"
    Options = BroadwayOptions
    min_players = max_players = default_players = 4

    # -- the deal: the only place tiles enter play -------------------------------------------

    def deal(self, number: int) -> tuple[tuple[Tile, ...], ...]:
        """The four hands of hand `number`, seven tiles each (BW-2.2)."""
        tiles = list(self.dset.tiles)
        self.rng(f"deal {number}").shuffle(tiles)
        return tuple(tuple(sorted(tiles[seat * HAND_SIZE:(seat + 1) * HAND_SIZE])) for seat in range(4))

    def double_of(self, number: int) -> Tile:
        pip = opening_pip(number, self.options.hands, self.dset.top)
        return Tile(pip, pip)

    def _initial_state(self) -> BroadwayState:
        return self._hand_state(BroadwayState(), 0)

    def _state_from(self, position: Position) -> BroadwayState:
        """A hand under way: `hand` (from 1; past the last comes sudden death), `scores` (two
        numbers), the `tableau` diagram (grid.py) under its name, a hand per seat (`N: 6-1 2-3`,
        at most seven tiles) and `turn` (N, E, S or W). The tableau holds the hand's double at
        the centre (BW-2.3). A tile named nowhere is out of the position, like a tile of a
        problem setter's box: no hand holds it."""
        number = position.number("hand", 1) - 1
        if number < 0:
            raise BadPosition(f"hand: {number + 1} is not a hand; hands count from 1")
        double = self.double_of(number)
        try:
            grid = Grid.parse(position.take("tableau", ""))
        except InvalidNotation as exc:
            raise BadPosition(f"tableau: {exc}") from None
        order = tuple(sorted(((tile, 0) for tile, _, _ in grid.tiles()), key=lambda item: item[0] is not double))
        for tile, _ in order:
            if tile.b > self.dset.top:
                raise BadPosition(f"tableau: {tile} is not in the double-{self.dset.top} set")
            position.place(tile, "on the tableau")
        if grid.pips and not (grid.pips.get(CENTRE) == double.a and grid.mate[CENTRE] in ((1, 0), (0, 1))):
            raise BadPosition(f"tableau: hand {number + 1} opens with {double} at the centre (0,0) (rule BW-2.3)")
        hands = tuple(position.tiles(name[0].lower(), f"in {name}'s hand") for name in SEATS)
        for name, hand in zip(SEATS, hands):
            if len(hand) > HAND_SIZE:
                raise BadPosition(f"{name} holds {len(hand)} tiles; a hand holds {HAND_SIZE} (rule BW-2.2)")
        turn_name = position.take("turn")
        if turn_name is None:
            if grid.pips or double not in chain(*hands):
                raise BadPosition("turn: name the seat to play (N, E, S or W)")
            turn = next(seat for seat in range(4) if double in hands[seat])
        else:
            try:
                turn = parse_seat(turn_name)
            except InvalidNotation as exc:
                raise BadPosition(f"turn: {exc}") from None
        if not hands[turn]:
            raise BadPosition(f"{SEATS[turn]} is to play but holds no tile")
        scores = position.numbers("scores", 2, (0, 0))
        position.done("hand, scores, tableau, N, E, S, W, turn")
        return BroadwayState(scores=scores, number=number, hands=hands, turn=turn, grid=grid, order=order)

    def _hand_state(self, s: BroadwayState, number: int) -> BroadwayState:
        """`s` at the start of hand `number`: the match fields kept, the hand's fields fresh."""
        hands = self.deal(number)
        double = self.double_of(number)
        return BroadwayState(scores=s.scores, past=s.past, winner=s.winner, number=number, hands=hands,
                             turn=next(seat for seat in range(4) if double in hands[seat]),
                             awaiting=("deal" if number else "lead") if self.observed else None)  # BW-10.1, 10.6

    # -- queries -----------------------------------------------------------------------------

    @property
    def current_player(self) -> int | None:
        s = self.state
        if s.winner is not None:
            return None
        if s.exposed is not None:
            return (s.exposed[0] + 1) % 4  # the owner's left-hand opponent speaks for the pair
        return s.turn

    def is_over(self) -> bool:
        return self.state.winner is not None

    def winners(self) -> list[int]:
        return [] if self.state.winner is None else [self.state.winner]

    def side_of(self, seat: int) -> int:
        return seat % 2

    def side_names(self) -> list[str]:
        return ["North-South", "East-West"]

    def heuristic(self, side: int) -> float:
        return self.state.scores[side] - self.state.scores[1 - side]

    def awaiting(self) -> str | None:
        return self.state.awaiting

    def hands_played(self) -> int:
        return len(self.state.past)

    def hands(self) -> tuple[tuple[Tile, ...], ...]:
        """Each seat's hand (in observed mode, the engine's guess at the hidden tiles)."""
        return self.state.hands

    def past_hands(self) -> tuple[HandRecord, ...]:
        """The hands finished so far, first first."""
        return self.state.past

    def tableau(self) -> Tableau:
        return Tableau(self.state.grid, self.state.order)

    def exposed(self) -> Exposure | None:
        """The exposed tile to be placed before play goes on, if any."""
        return self.state.exposed

    def hand_info(self) -> HandInfo:
        s = self.state
        return HandInfo(s.number, self.double_of(s.number), s.turn, self.in_sudden_death)

    def face_up(self) -> frozenset[Tile]:
        """Exposed tiles that fit nowhere and went back to their owners face up (BW-7.3)."""
        return self.state.shown

    @property
    def in_sudden_death(self) -> bool:
        return self.state.number >= self.options.hands

    def exposed_axis(self, owner: int) -> Cell:
        placer = owner if self.options.exposed_orientation == "owner" else owner + 1
        return axis_of(placer)

    def lead_move(self) -> Place:
        double = self.double_of(self.state.number)
        dx, dy = axis_of(self.state.turn)
        return Place.of(double.a, double.a, CENTRE, (CENTRE[0] + dx, CENTRE[1] + dy))

    def _frontier(self) -> Frontier:
        s = self.state
        if s.frontier is None:  # once per position: the hand-end check and the moves share it
            s.frontier = Frontier(s.grid)
        return s.frontier

    def seat_moves(self, seat: int) -> Iterator[Place]:
        return self._placements_of(self._holdable(seat), seat)

    def _placements_of(self, tiles, seat: int, axis: Cell | None = None) -> Iterator[Place]:
        """Every placement of `tiles` that `seat` could make now (along `axis`, if not the seat's),
        lazily; at the table only those the tray has room for (BW-11.6)."""
        grid = self.state.grid
        found = placements(grid, tiles, axis or axis_of(seat), self._frontier())
        room = room_of(self.options.room)
        return found if room is None else (p for p in found if room.holds(grid, p.cells))

    def _placements_now(self) -> Iterator[Place]:
        """The legal placements for whoever is to move: the lead, an exposed tile, or a turn."""
        s = self.state
        if not s.grid.pips:
            return iter((self.lead_move(),))
        if s.exposed is not None:
            owner, tile = s.exposed
            return self._placements_of((tile,), owner, self.exposed_axis(owner))
        return self.seat_moves(s.turn)

    def _moves(self) -> Iterator[Move]:
        s = self.state
        if s.awaiting is not None:
            yield from self._guessed_reveals()
            return
        found = self._placements_now()
        first = next(found, None)
        if self.observed and s.grid.pips and s.exposed is None:
            if self._why_not_pass() is None:
                yield PASS  # BW-10.3
        elif first is None:
            yield PASS  # BW-6.1, BW-7.3
            return
        if first is not None:
            yield first
            yield from found

    # -- legality ----------------------------------------------------------------------------

    def _why_illegal(self, move: Move) -> IllegalMove | None:
        if self.state.awaiting is not None:
            return self._why_not_reveal(move)
        return super()._why_illegal(move)

    @checks(Pass)
    def _why_not_pass_move(self, move: Pass) -> IllegalMove | None:
        s = self.state
        if self.observed and s.grid.pips and s.exposed is None:
            return self._why_not_pass()
        fit = next(self._placements_now(), None)
        if fit is None:
            return None
        if not s.grid.pips:
            return IllegalMove(f"{SEATS[s.turn]} must lead {fit.tile} ({fit})", "BW-2.3", fit.tile)
        if s.exposed is not None:
            return IllegalMove(f"the exposed {fit.tile} fits ({fit}), so it must be placed", "BW-7.3", fit.tile)
        return IllegalMove(f"{SEATS[s.turn]} can play ({fit}), so may not pass", "BW-6.1", fit.tile)

    @checks(Expose)
    def _why_not_expose(self, move: Expose) -> IllegalMove | None:
        s = self.state
        who = SEATS[move.seat]
        if s.exposed is not None:
            owner, tile = s.exposed
            return IllegalMove(f"{SEATS[owner]}'s exposed {tile} must be placed first", "BW-7.5", move.tile)
        if not s.grid.pips:
            return IllegalMove(f"no exposure before the lead; {who}'s {move.tile} stays in hand", "BW-7.5",
                               move.tile)
        if move.tile in s.shown and move.tile in s.hands[move.seat]:
            return IllegalMove(f"{who}'s {move.tile} is already face up", "BW-7.3", move.tile)
        if self.observed:
            return self._why_not_hold(move.seat, move.tile)
        if move.tile not in s.hands[move.seat]:
            return IllegalMove(f"{who} does not hold {move.tile}", "BW-7.1", move.tile)
        return None

    @checks(Place)
    def _why_not_place(self, move: Place) -> IllegalMove | None:
        s = self.state
        tile = move.tile
        if s.exposed is not None:
            owner, exposed = s.exposed
            placer = SEATS[(owner + 1) % 4]
            if tile is not exposed:
                return IllegalMove(f"{placer} must first place {SEATS[owner]}'s exposed {exposed}, not {tile}",
                                   "BW-7.1", tile)
            axis = self.exposed_axis(owner)
            who = f"the exposed {tile}"
        else:
            if self.observed:
                error = self._why_not_hold(s.turn, tile)
                if error is not None:
                    return error
            elif tile not in s.hands[s.turn]:
                return IllegalMove(f"{SEATS[s.turn]} does not hold {tile}", "BW-2.2", tile)
            axis = axis_of(s.turn)
            who = SEATS[s.turn]
        if not s.grid.pips:
            lead = self.lead_move()
            if move != lead:
                return IllegalMove(f"the hand opens with {lead.tile} at the centre: {lead}", "BW-2.3", tile)
            return None
        (x1, y1), (x2, y2) = move.cells
        step = (x2 - x1, y2 - y1)
        if abs(step[0]) + abs(step[1]) != 1:
            return IllegalMove(f"{move}: the two halves of {tile} must lie on adjacent cells", "BW-3.1", tile)
        if (abs(step[0]), abs(step[1])) != axis:
            placed = "is placed" if s.exposed is not None else "places tiles"
            return IllegalMove(f"{who} {placed} {axis_name(axis)}; {move} lies {axis_name(step)}",
                               "BW-3.2", tile)
        for cell in move.cells:
            if cell in s.grid:
                covering = Tile(s.grid.pips[cell], s.grid.pips[s.grid.mate[cell]])
                return IllegalMove(f"{move}: cell {fmt_cell(cell)} is covered by {covering}", "BW-3.1", tile)
        if match_count(s.grid, move) == 0:
            return IllegalMove(f"{move} touches no matching segment", "BW-4.1", tile)
        room = room_of(self.options.room)
        if room is not None and not room.holds(s.grid, move.cells):
            wide, deep = room.size(s.grid, move.cells)
            racks = " and its bots' racks" if room.blocked else ""
            return IllegalMove(f"{move}: no room on the tray; the tableau would be {wide} cells wide and {deep} deep, "
                               f"and the tray has {room.columns} by {room.rows}{racks}", "BW-11.6", tile)
        return None

    # -- playing -----------------------------------------------------------------------------

    @applies(Expose)
    def _expose(self, move: Expose) -> None:
        s = self.state
        if self.observed:
            s.hands = self._holding(move.seat, move.tile)
        s.exposed = Exposure(move.seat, move.tile)

    @applies(Place)
    def _place(self, move: Place) -> None:
        s = self.state
        if s.exposed is not None:
            owner = s.exposed[0]
            side = 1 - owner % 2  # BW-7.1: the opponents claim the points
            s.exposed = None
        else:
            if self.observed:
                s.hands = self._holding(s.turn, move.tile)
            owner = s.turn
            side = owner % 2
            s.turn = (s.turn + 1) % 4
        tile = move.tile
        s.hands = tuple(tuple(t for t in hand if t is not tile) if seat == owner else hand
                        for seat, hand in enumerate(s.hands))
        points = POINTS[match_count(s.grid, move)]
        s.grid = s.grid.with_tile(*move.cells, move.pips)
        s.frontier = None
        s.order += ((tile, side),)
        if points:
            self._add(s, (points, 0) if side == 0 else (0, points))
            if s.winner is not None:
                return
        self._settle(s)

    @applies(Pass)
    def _pass(self, move: Pass) -> None:
        s = self.state
        if s.exposed is not None:  # the exposed tile fits nowhere: back to its owner, face up
            s.shown = s.shown | {s.exposed[1]}
            s.exposed = None
        else:
            if self.observed:
                s.hands = self._pass_arrangement()
                s.barred = tuple(b | self._fitting(s.turn) if seat == s.turn else b
                                 for seat, b in enumerate(s.barred))
            s.turn = (s.turn + 1) % 4
        self._settle(s)

    def _add(self, s: BroadwayState, points: tuple[int, int]) -> None:
        ns, ew = s.scores[0] + points[0], s.scores[1] + points[1]
        s.scores = (ns, ew)
        if self.in_sudden_death and abs(ns - ew) >= 2:
            s.winner = 0 if ns > ew else 1  # BW-8.2: at once, even mid-hand

    def _settle(self, s: BroadwayState) -> None:
        """Skip seats with no tiles; end the hand when all tiles are down or nobody can play."""
        if not any(s.hands):
            self._end_hand(s)
            return
        while not s.hands[s.turn]:
            s.turn = (s.turn + 1) % 4
        for k in range(4):
            seat = (s.turn + k) % 4
            if s.hands[seat] and next(self.seat_moves(seat), None) is not None:
                return
        self._end_hand(s)

    def _end_hand(self, s: BroadwayState) -> None:
        if self.observed and any(hand and seat not in s.revealed for seat, hand in enumerate(s.hands)):
            s.awaiting = "show"  # BW-10.5
            return
        s.past = s.past + (HandRecord(s.number, s.grid, tuple(s.order), s.hands),)
        left = [len(hand) for hand in s.hands]
        self._add(s, (-left[0] - left[2], -left[1] - left[3]))  # BW-6.3
        if s.winner is not None:
            return
        ns, ew = s.scores
        if s.number == self.options.hands - 1 and ns != ew:
            s.winner = 0 if ns > ew else 1  # BW-8.1
            return
        self.state = self._hand_state(s, s.number + 1)

    # -- notation and display ----------------------------------------------------------------

    def parse_move(self, text: str) -> Move:
        words = text.split()
        if [w.lower() for w in words] == ["pass"]:
            return PASS
        reveal = parse_reveal(text, self.dset, {"lead": True, "show": True, "deal": False})
        if reveal is not None:
            seat = SEATS[parse_seat(reveal.seat)][0] if reveal.seat else None
            return Reveal(reveal.word, reveal.tiles, seat)
        if words and words[0].lower() == "expose":
            if len(words) != 3:
                raise InvalidNotation(f"{text!r}: write an exposure as `expose W 5-2` (seat, tile)")
            return Expose(parse_seat(words[1]), self.dset.parse(words[2]))
        m = _PLACE.match(text.strip())
        if not m:
            raise InvalidNotation(
                f"{text!r} is not a Broadway move; write `6-3@(1,0)-(2,0)`, `6-3@(1,0)e`, `pass` or `expose W 5-2`")
        a, b, x, y = (int(g) for g in m.group(1, 2, 3, 4))
        self.dset.parse(f"{a}-{b}")
        if m.group(7):
            dx, dy = _DIRECTIONS[m.group(7).lower()]
            second = (x + dx, y + dy)
        else:
            second = (int(m.group(5)), int(m.group(6)))
        return Place.of(a, b, (x, y), second)

    def __str__(self) -> str:
        s = self.state
        double = self.double_of(s.number)
        phase = (f"sudden-death hand {s.number - self.options.hands + 1}" if self.in_sudden_death
                 else f"hand {s.number + 1} of {self.options.hands}")
        lines = [f"Broadway, {phase}, on {double}", s.grid.diagram(), ""]
        for seat, hand in enumerate(s.hands):
            if self.observed and seat not in s.revealed:
                hand = tuple(t for t in hand if t in s.shown) + (len(hand) - len(s.shown & set(hand))) * ("?",)
            lines.append(f"{SEATS[seat]:<6} {' '.join(map(str, hand)) or '-'}")
        names = self.side_names()
        lines.append("Score: " + ", ".join(f"{names[side]} {s.scores[side]}" for side in (0, 1)))
        if s.winner is not None:
            lines.append(f"{names[s.winner]} win")
        elif s.exposed is not None:
            owner, tile = s.exposed
            lines.append(f"{SEATS[(owner + 1) % 4]} places {SEATS[owner]}'s exposed {tile}")
        else:
            lines.append(f"{SEATS[s.turn]} to play")
        return "\n".join(lines)
