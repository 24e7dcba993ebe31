"""Up-Down-Stop: a solitaire of columns that climb or fall round the pip cycle.

Rule numbers (UDS-x.y) refer to seeds/up-down-stop.md. The rules proper live in
`Rules`, which works on a bare state so the look-ahead player can try draws the real
game has not made; the Game only adds the shuffles and the one place a tile is drawn.

Observed mode (UDS-9): the drawn tile is face down to the engine until a move names it
(`5-3 c2+4`, `6-6 stop`, `1-4 scrap`); the named tile is swapped with the guessed one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from dominotable.rules.errors import IllegalMove, InvalidNotation
from dominotable.rules.game import ByMoveType, Game, State, applies, checks, replace_at
from dominotable.rules.hidden import rearrange
from dominotable.rules.line import END_NAMES, LEFT, RIGHT, Line, split_end
from dominotable.rules.moves import Move
from dominotable.rules.options import Options, option
from dominotable.rules.position import BadPosition, Position
from dominotable.rules.tiles import Tile, fmt

UP, DOWN = 1, -1
DIRECTION_NAMES = {UP: "up", DOWN: "down", 0: "either way"}


# -- moves: each names the drawn tile it decides about ------------------------------------

@dataclass(frozen=True)
class Start(Move):
    tile: Tile

    def __str__(self) -> str:
        return f"{self.tile} new"


@dataclass(frozen=True)
class Extend(Move):
    tile: Tile
    column: int  # 1-based, in the order columns were started (UDS-3.6)
    active: int
    direction: int
    end: int | None = None  # named only when two ends of the column could take it

    def __str__(self) -> str:
        sign = "+" if self.direction == UP else "-"
        at = "" if self.end is None else f"@{END_NAMES[self.end]}"
        return f"{self.tile} c{self.column}{sign}{self.active}{at}"


@dataclass(frozen=True)
class Stop(Move):
    tile: Tile
    column: int | None = None  # None: the one column the double can stop

    def __str__(self) -> str:
        return f"{self.tile} stop" + ("" if self.column is None else f" c{self.column}")


@dataclass(frozen=True)
class Scrap(Move):
    tile: Tile

    def __str__(self) -> str:
        return f"{self.tile} scrap"


@dataclass(frozen=True)
class Discard(Move):
    tile: Tile

    def __str__(self) -> str:
        return f"{self.tile} discard"


MOVES = (Start, Extend, Stop, Scrap, Discard)


@dataclass(frozen=True)
class UpDownStopOptions(Options):
    set: int = option(6, "domino set: the highest double; the cycle runs 0..set (UDS-1.1)", choices=(6, 9, 12))
    columns: int = option(2, "most columns open at once (UDS-7.1)", choices=(1, 2, 3))
    reshuffles: int = option(1, "times the scrap pile becomes the draw pile (UDS-7.2)", choices=tuple(range(10)))
    both_ways: bool = option(False, "build on both numbers of a column's first tile (UDS-7.3)")
    free_scrap: bool = option(False, "allow scrapping a tile that could be played (UDS-7.4)")


class Extension(NamedTuple):
    """A way to grow a column: at `end` of column `column` (0-based), the number `active`
    may come next, going `direction` (UP or DOWN)."""

    column: int
    end: int
    active: int
    direction: int


class Piles(NamedTuple):
    """The tiles outside the columns: how many are left to draw, the scrap pile, the discarded
    doubles, and how many times the scrap pile has become the draw pile."""

    draw: int
    scrap: tuple[Tile, ...]
    discarded: tuple[Tile, ...]
    reshuffles: int


class Column(NamedTuple):
    """Line ends hold (number, direction) - direction 0 until the end's first extension - or None."""

    line: Line
    stopper: Tile | None = None


@dataclass(slots=True)
class UDSState(State):
    draw: tuple[Tile, ...]  # the draw pile, top last
    drawn: Tile | None = None  # the tile to decide on; None once the game is over
    columns: tuple[Column, ...] = ()
    scrap: tuple[Tile, ...] = ()
    discarded: tuple[Tile, ...] = ()
    reshuffles: int = 0

    def placed(self) -> int:
        return sum(len(c.line) for c in self.columns)


class Rules(ByMoveType):
    """The rules on a bare state: one check and one placement per move type."""

    def __init__(self, options: UpDownStopOptions, tiles: tuple[Tile, ...]):
        self.options = options
        self.cycle = options.set + 1
        self.non_doubles = sum(1 for t in tiles if not t.is_double)

    def open_columns(self, s: UDSState) -> list[int]:
        return [i for i, c in enumerate(s.columns) if c.stopper is None]

    def tops_text(self, s: UDSState) -> str:
        """`2 on c1, 0 and 4 on c3`: the top numbers of the open columns."""
        return ", ".join(" and ".join(str(v[0]) for _, v in s.columns[i].line.open_ends()) + f" on c{i + 1}"
                         for i in self.open_columns(s)) or "none"

    def followers(self, s: UDSState) -> Iterator[tuple[int, int, int, int]]:
        """Every way an open end may grow, as the fields of an Extension (plain tuples: the
        look-ahead player asks for millions): the number that may come next there, and its direction."""
        for i in self.open_columns(s):
            for end, (number, direction) in s.columns[i].line.open_ends():
                for d in (direction,) if direction else (UP, DOWN):
                    yield i, end, (number + d) % self.cycle, d  # rule UDS-2.1

    def extensions(self, s: UDSState, tile: Tile) -> list[tuple[int, int, int, int]]:
        """Every way `tile` extends a column, as the fields of an Extension."""
        return [way for way in self.followers(s) if tile.has(way[2])]

    def _ends(self, s: UDSState, move: Extend) -> list[int]:
        """The ends of its column that `move` can go on."""
        index, active, direction = move.column - 1, move.active, move.direction
        return [end for i, end, a, d in self.extensions(s, move.tile) if (i, a, d) == (index, active, direction)]

    def stoppable(self, s: UDSState, double: Tile) -> list[int]:
        return [i for i in self.open_columns(s)
                if any(v[0] == double.a for _, v in s.columns[i].line.open_ends())]

    def moves_for(self, s: UDSState, tile: Tile) -> list[Move]:
        if tile.is_double:
            stops = self.stoppable(s, tile)
            return [Stop(tile, i + 1) for i in stops] if stops else [Discard(tile)]  # rules UDS-4.1, 4.2
        moves: list[Move] = []
        if len(self.open_columns(s)) < self.options.columns:
            moves.append(Start(tile))
        ways = self.extensions(s, tile)
        keys = [(i, active, d) for i, _, active, d in ways]
        for (i, end, active, d), key in zip(ways, keys):
            moves.append(Extend(tile, i + 1, active, d, end if keys.count(key) > 1 else None))
        if self.options.free_scrap or not moves:
            moves.append(Scrap(tile))
        return moves

    def why_illegal(self, s: UDSState, move: Move) -> IllegalMove | None:
        check = self._checkers.get(type(move))
        if check is None:
            return IllegalMove(f"{move} is not an Up-Down-Stop move")
        tile = move.tile
        if tile is not s.drawn:
            return IllegalMove(f"the drawn tile is {s.drawn}, not {tile}", rule="UDS-1.2", tile=tile)
        return check(self, s, move)

    @staticmethod
    def _why_double(tile: Tile) -> IllegalMove | None:
        if tile.is_double:
            return IllegalMove(f"{tile} is a double: it stops a column or is discarded", rule="UDS-4.2", tile=tile)
        return None

    @checks(Start)
    def _why_not_start(self, s: UDSState, move: Start) -> IllegalMove | None:
        tile = move.tile
        open_now = self.open_columns(s)
        if (error := self._why_double(tile)) is not None:
            return error
        if len(open_now) >= self.options.columns:
            names = " and ".join(f"c{i + 1}" for i in open_now)
            return IllegalMove(f"{tile} cannot start a column: {names} are open, at most "
                               f"{self.options.columns}", rule="UDS-3.1", tile=tile)
        return None

    @checks(Stop)
    def _why_not_stop(self, s: UDSState, move: Stop) -> IllegalMove | None:
        tile = move.tile
        if not tile.is_double:
            return IllegalMove(f"{tile} is not a double; only doubles stop columns", rule="UDS-4.1", tile=tile)
        stops = self.stoppable(s, tile)
        tops = self.tops_text(s)
        if move.column is None:
            if not stops:
                return IllegalMove(f"{tile} cannot stop a column: tops are {tops}", rule="UDS-4.1", tile=tile)
            if len(stops) > 1:
                names = " or ".join(f"stop c{i + 1}" for i in stops)
                return IllegalMove(f"{tile} can stop more than one column; write {names}", rule="UDS-4.1", tile=tile)
            return None
        if move.column - 1 not in stops:
            return IllegalMove(f"{tile} cannot stop c{move.column}: tops of open columns are {tops}",
                               rule="UDS-4.1", tile=tile)
        return None

    @checks(Discard)
    def _why_not_discard(self, s: UDSState, move: Discard) -> IllegalMove | None:
        tile = move.tile
        if not tile.is_double:
            return IllegalMove(f"{tile} is not a double; only doubles are discarded", rule="UDS-4.2", tile=tile)
        stops = self.stoppable(s, tile)
        if stops:
            return IllegalMove(f"{tile} must stop c{stops[0] + 1}, whose top is {tile.a}", rule="UDS-4.1", tile=tile)
        return None

    @checks(Scrap)
    def _why_not_scrap(self, s: UDSState, move: Scrap) -> IllegalMove | None:
        tile = move.tile
        if (error := self._why_double(tile)) is not None:
            return error
        if not self.options.free_scrap:
            playable = [m for m in self.moves_for(s, tile) if type(m) is not Scrap]
            if playable:
                return IllegalMove(f"{tile} can be played ({playable[0]}); only an unplayable tile is scrapped",
                                   rule="UDS-3.7", tile=tile)
        return None

    @checks(Extend)
    def _why_not_extend(self, s: UDSState, move: Extend) -> IllegalMove | None:
        tile, index = move.tile, move.column - 1
        if (error := self._why_double(tile)) is not None:
            return error
        if not 0 <= index < len(s.columns):
            return IllegalMove(f"there is no column c{move.column} for {tile}", rule="UDS-3.6", tile=tile)
        column = s.columns[index]
        if column.stopper is not None:
            return IllegalMove(f"c{move.column} was stopped by {column.stopper}; {tile} cannot go on it",
                               rule="UDS-4.1", tile=tile)
        if not tile.has(move.active):
            return IllegalMove(f"{tile} has no {move.active} to make active", rule="UDS-3.4", tile=tile)
        ends = self._ends(s, move)
        if not ends or (move.end is not None and move.end not in ends):
            shown = "; ".join(f"{END_NAMES[e]} end {n} {DIRECTION_NAMES[d]}" if len(column.line) > 1 or d
                              else f"{n} either way" for e, (n, d) in column.line.open_ends())
            return IllegalMove(f"{tile} cannot go on c{move.column} as {move.active} going "
                               f"{DIRECTION_NAMES[move.direction]}: c{move.column} shows {shown}",
                               rule="UDS-3.4", tile=tile)
        if move.end is None and len(ends) > 1:
            return IllegalMove(f"{tile} fits both ends of c{move.column}; add @left or @right",
                               rule="UDS-3.6", tile=tile)
        return None

    def place(self, s: UDSState, move: Move) -> None:
        """Do what `move` says with the drawn tile (already checked legal)."""
        self._appliers[type(move)](self, s, move)
        s.drawn = None

    @applies(Start)
    def _start(self, s: UDSState, move: Start) -> None:  # rule UDS-3.1
        tile = move.tile
        s.columns = s.columns + (Column(Line.start(tile, (tile.a, 0), (tile.b, 0))),)

    @applies(Extend)
    def _extend(self, s: UDSState, move: Extend) -> None:
        index = move.column - 1
        line = s.columns[index].line
        end = move.end
        if end is None:
            end = self._ends(s, move)[0]
        grown = line.add(end, move.tile, (move.active, move.direction))  # rules UDS-3.3, 3.4
        if len(line) == 1 and not self.options.both_ways:
            grown = grown.close(RIGHT if end == LEFT else LEFT)  # rule UDS-3.3
        s.columns = replace_at(s.columns, index, Column(grown))

    @applies(Stop)
    def _stop(self, s: UDSState, move: Stop) -> None:  # rule UDS-4.1
        index = move.column - 1 if move.column else self.stoppable(s, move.tile)[0]
        line = s.columns[index].line
        s.columns = replace_at(s.columns, index, Column(line.close(LEFT, RIGHT), move.tile))

    @applies(Scrap)
    def _scrap(self, s: UDSState, move: Scrap) -> None:  # rule UDS-5.1
        s.scrap = s.scrap + (move.tile,)

    @applies(Discard)
    def _discard(self, s: UDSState, move: Discard) -> None:  # rule UDS-4.2
        s.discarded = s.discarded + (move.tile,)

    def next_pool(self, s: UDSState) -> tuple[tuple[Tile, ...], bool]:
        """The tiles the next draw comes from, and whether the scrap pile must become the draw pile first."""
        if s.draw:
            return s.draw, False
        if s.scrap and s.reshuffles < self.options.reshuffles:  # rule UDS-5.2
            return s.scrap, True
        return (), False  # rule UDS-5.3

    @staticmethod
    def reshuffle(s: UDSState, order: tuple[Tile, ...]) -> None:
        s.draw, s.scrap, s.reshuffles = tuple(order), (), s.reshuffles + 1

    @staticmethod
    def take(s: UDSState, tile: Tile) -> None:
        """`tile` comes off the draw pile and must be decided on next."""
        s.draw = s.draw[:-1] if s.draw[-1] is tile else tuple(t for t in s.draw if t is not tile)
        s.drawn = tile

    def outlook(self, s: UDSState) -> float:
        """Tiles placed, less the chance that the next unknown non-double could not be placed now."""
        unknown = s.draw + ((s.drawn,) if s.drawn is not None else ())
        if not unknown and s.reshuffles < self.options.reshuffles:
            unknown = s.scrap
        loose = [t for t in unknown if not t.is_double]
        if not loose or len(self.open_columns(s)) < self.options.columns:
            return s.placed()
        need = 0
        for _, _, follower, _ in self.followers(s):
            need |= 1 << follower
        stuck = sum(1 for t in loose if not t.suits & need)
        return s.placed() - stuck / len(loose)


_EXTEND = re.compile(r"^c(\d+)([+-])(\d+)$")
_STOP = re.compile(r"^stop(?:\s*c(\d+))?$")
FORMS = "new, c2+4 (column 2, active 4, going up), c2-4, stop, stop c2, scrap or discard"


class UpDownStop(Game):
    name = "up-down-stop"
    title = "Up-Down-Stop"
    Options = UpDownStopOptions

    @cached_property
    def rules(self) -> Rules:
        return Rules(self.options, self.dset.tiles)

    def _initial_state(self) -> UDSState:
        tiles = list(self.dset)
        self.rng("deal").shuffle(tiles)  # rule UDS-1.2
        s = UDSState(tuple(tiles))
        self._draw(s)
        return s

    def _state_from(self, position: Position) -> UDSState:
        """A deal stacked for a test or a puzzle: `draw` names the first tiles of the draw pile,
        the first of them drawn now; the tiles it does not name follow in the seeded order."""
        first = position.tiles("draw", "in the draw pile")
        if not first:
            raise BadPosition("draw: name at least the tile drawn first")
        position.done("draw")
        rest = [t for t in self._initial_state().draw[::-1] if t not in first]
        s = UDSState(tuple(reversed(first + tuple(rest))))
        self._draw(s)
        return s

    def _draw(self, s: UDSState) -> None:
        """The one place a tile is drawn (a reshuffle first when the draw pile is empty)."""
        pool, reshuffle = self.rules.next_pool(s)
        if reshuffle:
            order = list(pool)
            self.rng(f"reshuffle:{s.reshuffles + 1}").shuffle(order)
            self.rules.reshuffle(s, tuple(order))
        if s.draw:
            self.rules.take(s, s.draw[-1])

    def parse_move(self, text: str) -> Move:
        words = text.split(None, 1)
        tile = self.state.drawn
        named = False
        if words:
            try:
                tile = self.dset.parse(words[0])
                words = words[1:]
                named = True
            except InvalidNotation:
                if re.match(r"^\[?\d", words[0]):
                    raise
        if tile is None:
            raise IllegalMove("the game is over: no tile is drawn", rule="UDS-5.3")
        if self.observed and not named:
            raise InvalidNotation(f"{text.strip()!r}: at the table a move names the drawn tile first (5-3 c2+4)")
        rest = " ".join(words).lower()
        simple = {"new": Start, "scrap": Scrap, "discard": Discard}
        if rest in simple:
            return simple[rest](tile)
        if m := _STOP.match(rest):
            return Stop(tile, int(m.group(1)) if m.group(1) else None)
        core, end = split_end(rest)
        if m := _EXTEND.match(core):
            column, sign, active = m.groups()
            return Extend(tile, int(column), int(active), UP if sign == "+" else DOWN, end)
        raise InvalidNotation(f"{text.strip()!r} is not an Up-Down-Stop move; moves are {FORMS}, "
                              "optionally after the drawn tile (5-3 c2+4)")

    def _unseen(self) -> list[Tile]:
        """Observed mode: the tiles the drawn one may be, face down to the engine (UDS-9.1)."""
        s = self.state
        return sorted(s.draw + (s.drawn,))

    def _moves(self) -> Iterator[Move]:
        s = self.state
        if not self.observed:
            return iter(self.rules.moves_for(s, s.drawn))
        return (move for tile in self._unseen() for move in self.rules.moves_for(s, tile))

    def _why_illegal(self, move: Move) -> IllegalMove | None:
        if not self.observed or type(move) not in MOVES:
            return self.rules.why_illegal(self.state, move)
        s, tile = self.state, move.tile
        if tile not in self._unseen():
            where = next((f"in c{i + 1}" for i, c in enumerate(s.columns)
                          if tile is c.stopper or tile in c.line.tiles()), None)
            where = where or ("on the scrap pile" if tile in s.scrap else "discarded")
            return IllegalMove(f"{tile} is already {where}, so it cannot be the drawn tile", rule="UDS-9.1", tile=tile)
        return self.rules.why_illegal(self._drawing(tile), move)

    def _drawing(self, tile: Tile) -> UDSState:
        """A copy of the state in which the guessed drawn tile is `tile` (swapped with it)."""
        s = self.state.copy()
        (s.drawn,), s.draw = rearrange(((s.drawn,), s.draw), lambda t, pool: (t is tile) == (pool == 0))
        return s

    def _apply(self, move: Move) -> None:
        if self.observed:
            self.state = self._drawing(move.tile)
        self.rules.place(self.state, move)
        self._draw(self.state)

    # -- queries ----------------------------------------------------------------------------

    def position(self) -> UDSState:
        """A copy of the position, for look-ahead with `rules` (which works on bare states)."""
        return self.state.copy()

    def columns(self) -> tuple[Column, ...]:
        """Every column in the order started (UDS-3.6), stopped ones included."""
        return self.state.columns

    def piles(self) -> Piles:
        s = self.state
        return Piles(len(s.draw), s.scrap, s.discarded, s.reshuffles)

    def drawn(self) -> Tile | None:
        """The tile to decide on (the engine's guess in observed mode); None once the game is over."""
        return self.state.drawn

    @property
    def cycle(self) -> int:
        """How many numbers the pip cycle has (UDS-2.1)."""
        return self.rules.cycle

    def extensions(self, tile: Tile) -> list[Extension]:
        """Every way `tile` can extend an open column now."""
        return [Extension(*way) for way in self.rules.extensions(self.state, tile)]

    def stoppable(self, double: Tile) -> list[int]:
        """The indexes of the open columns `double` can stop now."""
        return self.rules.stoppable(self.state, double)

    @property
    def current_player(self) -> int | None:
        return None if self.is_over() else 0

    @property
    def scores(self) -> list[int]:
        """Non-doubles outside every column: the score once the game is over (UDS-6.1)."""
        return [self.rules.non_doubles - self.state.placed()]

    def final_score(self) -> int:
        return self.scores[0]

    def is_over(self) -> bool:
        return self.state.drawn is None

    def winners(self) -> list[int]:
        return [0] if self.is_over() and self.final_score() == 0 else []  # rule UDS-6.2

    def side_names(self) -> list[str]:
        return ["player"]

    def heuristic(self, side: int) -> float:
        return self.rules.outlook(self.state)

    def brief(self) -> str:
        """One line for the demo: the open columns' tops, the scrap pile and the next tile."""
        s = self.state
        tops = self.rules.tops_text(s)
        drawn = f"next {s.drawn}" if s.drawn else "over"
        return f"tops {tops}  scrap {len(s.scrap)}  draw {len(s.draw)}  {drawn}"

    def __str__(self) -> str:
        s, rules = self.state, self.rules
        open_now = len(rules.open_columns(s))
        out = [f"{self.title}  draw pile {len(s.draw)}  columns open {open_now}/{self.options.columns}  "
               f"reshuffles left {self.options.reshuffles - s.reshuffles}"]
        for i, column in enumerate(s.columns):
            out.append(f"c{i + 1}  {column_text(column)}")
        out.append(f"scrap: {fmt(s.scrap) or '-'}    discarded: {fmt(s.discarded) or '-'}")
        if s.drawn is not None:
            out.append(f"drawn: {s.drawn}    outside columns so far: {self.scores[0]}")
        else:
            out.append(f"game over: score {self.final_score()}" + (" (perfect)" if self.final_score() == 0 else ""))
        return "\n".join(out)


def column_text(column: Column) -> str:
    """Tiles as active(dead) from the left end to the right, the first tile as a|b: `1(5) 2|5 3(0)`."""
    line = column.line
    def shown(tile, value):
        return f"{value[0]}({tile.other(value[0])})"
    parts = [shown(t, v) for t, v in reversed(line.sides[LEFT])]
    parts.append(f"{line.first.a}|{line.first.b}")
    parts += [shown(t, v) for t, v in line.sides[RIGHT]]
    if column.stopper is not None:
        return " ".join(parts) + f"  stopped by {column.stopper}"
    ends = ", ".join(f"{n} {DIRECTION_NAMES[d]}" + (f" ({END_NAMES[e]})" if len(line.open_ends()) > 1 else "")
                     for e, (n, d) in line.open_ends())
    return " ".join(parts) + f"  top {ends}"
