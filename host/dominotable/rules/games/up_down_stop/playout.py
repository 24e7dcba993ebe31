"""Playout kernel of Up-Down-Stop (see rules/playout.py).

A column is a list `[number, direction, number, direction, tiles, stopped]`: one number
and direction per end (number -1 once the end is closed, direction 0 until the end's
first extension, UDS-3.3); `ways[i]` lists what column i takes next, `(number, move)`,
redone only when the column changes. Piles are lists of tile ids, the draw pile's top last. A move is
`kind | column << 2 | end << 6 | up << 7 | active << 8 | named << 12`, kind START,
PUT_ASIDE (scrap a non-double, discard a double), STOP or EXTEND.
"""

from __future__ import annotations

import random

from dominotable.rules.game import seeded
from dominotable.rules.games.up_down_stop.engine import UpDownStop
from dominotable.rules.playout import (
    DOUBLE,
    DOUBLE_SIX_IDS,
    GREEDY,
    SUITS,
    TILES,
    A,
    B,
    Playout,
    sorted_shuffle,
)

START, PUT_ASIDE, STOP, EXTEND = 0, 1, 2, 3


NON_DOUBLES_SIX = sum(not DOUBLE[t] for t in DOUBLE_SIX_IDS)


class UpDownStopPlayout(Playout):
    engine = UpDownStop
    search_budget = 1000  # few decisions, short games: more playouts beat the look-ahead by more

    @classmethod
    def of(cls, game: UpDownStop) -> UpDownStopPlayout:
        s = game.state
        k = cls.__new__(cls)
        k._options(game.options)
        k.non_doubles = game.rules.non_doubles
        k.rng = game.rng
        k.draw = [t.id for t in s.draw]
        k.drawn = -1 if s.drawn is None else s.drawn.id
        k.scrap = [t.id for t in s.scrap]
        k.reshuffles = s.reshuffles
        k.columns = []
        for column in s.columns:
            ends = []
            for value in column.line.ends:
                ends += (-1, 0) if value is None else value
            k.columns.append(ends + [len(column.line), column.stopper is not None])
        k.ways = [k._ways(i, c) for i, c in enumerate(k.columns)]
        k.open = sum(1 for c in k.columns if not c[5])
        k.placed = sum(c[4] for c in k.columns)
        k.over = k.hand_over = s.drawn is None
        return k

    @classmethod
    def new(cls, players=None, options=None, seed=0) -> UpDownStopPlayout:
        if options is not None:
            return super().new(players, options, seed)
        k = cls.__new__(cls)
        k._options(UpDownStop.Options())  # the defaults: the double-six set
        k.non_doubles = NON_DOUBLES_SIX
        k.rng = lambda label: seeded(UpDownStop, seed, label)
        k.draw = DOUBLE_SIX_IDS[:]
        k.rng("deal").shuffle(k.draw)
        k.drawn = k.draw.pop()
        k.scrap, k.columns, k.ways = [], [], []
        k.reshuffles = k.open = k.placed = 0
        k.over = k.hand_over = False
        return k

    def _options(self, opts) -> None:
        self.cycle, self.limit, self.max_reshuffles = opts.set + 1, opts.columns, opts.reshuffles
        self.both_ways, self.free_scrap = opts.both_ways, opts.free_scrap

    def redeal(self, seat: int, rng: random.Random) -> UpDownStopPlayout:
        k = UpDownStopPlayout.__new__(UpDownStopPlayout)
        k.__dict__.update(self.__dict__)
        k.draw = sorted_shuffle(self.draw, rng)
        k.scrap = self.scrap[:]
        k.columns = [c[:] for c in self.columns]
        k.ways = self.ways[:]
        k.rng = lambda label: rng
        return k

    def to_move(self) -> int:
        return 0

    def legal(self) -> list[int]:
        return self._moves(self.drawn)

    def _moves(self, tile: int) -> list[int]:
        """The engine's `moves_for` (UDS-3, UDS-4), as ints."""
        columns = self.columns
        a, b = A[tile], B[tile]
        if a == b:
            stops = [STOP | i << 2 for i, c in enumerate(columns) if not c[5] and a in (c[0], c[2])]
            return stops or [PUT_ASIDE]
        moves = [START] if self.open < self.limit else []
        for ways in self.ways:
            for number, move in ways:
                if number == a or number == b:
                    moves.append(move)
        if self.both_ways and len(moves) > 1:  # an extension the same on both ends of a column names its end
            keys = [m & ~(1 << 6) for m in moves]
            moves = [m | (1 << 12) if m & 3 == EXTEND and keys.count(m & ~(1 << 6)) > 1 else m for m in moves]
        if self.free_scrap or not moves:
            moves.append(PUT_ASIDE)
        return moves

    def _ways(self, i: int, c: list) -> list[tuple[int, int]]:
        """(number, extension) for every number column i, `c`, takes next (UDS-2.1, UDS-3.4)."""
        if c[5]:
            return []
        found = []
        for end in (0, 1):
            number, direction = c[2 * end], c[2 * end + 1]
            if number >= 0:
                for d in (direction,) if direction else (1, -1):
                    active = (number + d) % self.cycle
                    found.append((active, EXTEND | i << 2 | end << 6 | (d > 0) << 7 | active << 8))
        return found

    def notation(self, move: int) -> str:
        tile = TILES[self.drawn]
        kind, column = move & 3, (move >> 2 & 15) + 1
        if kind == START:
            return f"{tile} new"
        if kind == PUT_ASIDE:
            return f"{tile} {'discard' if tile.is_double else 'scrap'}"
        if kind == STOP:
            return f"{tile} stop c{column}"
        at = ("@right" if move >> 6 & 1 else "@left") if move >> 12 & 1 else ""
        return f"{tile} c{column}{'+' if move >> 7 & 1 else '-'}{move >> 8 & 15}{at}"

    def play(self, move: int, hand_only: bool = False) -> None:
        tile = self.drawn
        kind = move & 3
        if kind == EXTEND:  # UDS-3.3, UDS-3.4
            c = self.columns[move >> 2 & 15]
            end = move >> 6 & 1
            c[2 * end] = move >> 8 & 15
            c[2 * end + 1] = 1 if move >> 7 & 1 else -1
            if c[4] == 1 and not self.both_ways:
                c[2 - 2 * end] = -1
            c[4] += 1
            self.placed += 1
            self.ways[move >> 2 & 15] = self._ways(move >> 2 & 15, c)
        elif kind == START:  # UDS-3.1
            c = [A[tile], 0, B[tile], 0, 1, False]
            self.columns.append(c)
            self.ways.append(self._ways(len(self.columns) - 1, c))
            self.open += 1
            self.placed += 1
        elif kind == STOP:  # UDS-4.1
            c = self.columns[move >> 2 & 15]
            c[0] = c[2] = -1
            c[5] = True
            self.ways[move >> 2 & 15] = []
            self.open -= 1
        elif not DOUBLE[tile]:  # UDS-5.1; a discarded double just leaves (UDS-4.2)
            self.scrap.append(tile)
        self._draw()

    def _draw(self) -> None:
        """UDS-1.2, UDS-5.2, UDS-5.3: the next tile, after a reshuffle if one is due."""
        if not self.draw and self.scrap and self.reshuffles < self.max_reshuffles:
            self.reshuffles += 1
            self.draw, self.scrap = self.scrap, []
            self.rng(f"reshuffle:{self.reshuffles}").shuffle(self.draw)
        if self.draw:
            self.drawn = self.draw.pop()
        else:
            self.drawn = -1
            self.over = self.hand_over = True

    def rollout(self, rand, policy=0, hand_only=False, log=None) -> int:
        greedy = policy == GREEDY
        moves = 0
        while not self.over:
            moves += 1
            options = self._moves(self.drawn)
            if len(options) == 1:
                move = options[0]
            elif greedy:
                move = max(options, key=self._outlook_after)
            else:
                move = options[int(rand() * len(options))]
            if log is not None:
                log.append(self.notation(move))
            self.play(move)
        return moves

    def _outlook_after(self, move: int) -> float:
        """The engine's `Rules.outlook` after `move`: tiles placed, less the share of the
        tiles still to come that no open end could take then."""
        placed = self.placed + (move & 3 in (START, EXTEND))
        open_after = self.open + (move & 3 == START) - (move & 3 == STOP)
        unknown = self.draw or (self.scrap if self.reshuffles < self.max_reshuffles else ())
        loose = [t for t in unknown if not DOUBLE[t]]
        if not loose or open_after < self.limit:
            return placed
        need = 0
        cycle = self.cycle
        changed = move >> 2 & 15 if move & 3 in (STOP, EXTEND) else -1
        for i, c in enumerate(self.columns):
            if c[5] or i == changed:
                continue
            need |= self._followers(c)
        if move & 3 == EXTEND:
            c = self.columns[changed][:]
            end = move >> 6 & 1
            c[2 * end], c[2 * end + 1] = move >> 8 & 15, 1 if move >> 7 & 1 else -1
            if c[4] == 1 and not self.both_ways:
                c[2 - 2 * end] = -1
            need |= self._followers(c)
        elif move & 3 == START:
            tile = self.drawn
            need |= 1 << (A[tile] + 1) % cycle | 1 << (A[tile] - 1) % cycle
            need |= 1 << (B[tile] + 1) % cycle | 1 << (B[tile] - 1) % cycle
        stuck = sum(1 for t in loose if not SUITS[t] & need)
        return placed - stuck / len(loose)

    def _followers(self, c: list) -> int:
        need = 0
        for end in (0, 2):
            number, direction = c[end], c[end + 1]
            if number >= 0:
                for d in (direction,) if direction else (1, -1):
                    need |= 1 << (number + d) % self.cycle
        return need

    def value(self, seat: int) -> float:
        return self.placed

    def scores(self) -> list[int]:
        return [self.non_doubles - self.placed]

    def hands_played(self) -> int:
        return 1
