"""Playout kernels of Castle Rock and its solitaire (see rules/playout.py).

Tiles are their `Tile.id`; the row is a list of ids, each with its suit bitmask in `SUITS`.
The captures on offer are kept as ints `middle << 1 | triple` (`middle`: the row index of
the pinched tile) and updated where the row changed: a tile added at the open end can only
pinch the old last tile, and a capture only changes the captures whose three tiles touch
the gap it closed, while those to its right shift left (CR-5.1 to CR-5.3).
Moves: a tile id places it, END ends the turn, DRAW draws (solitaire), CAPTURE + code takes.
"""

from __future__ import annotations

import random

from dominotable.rules.game import seeded
from dominotable.rules.games.castle_rock.engine import CastleRock, starting_row
from dominotable.rules.games.castle_rock.solitaire import ANY_TIME, TABLEAU_EMPTY, CastleRockSolitaire
from dominotable.rules.playout import (
    DOUBLE_SIX_IDS,
    GREEDY,
    SUITS,
    TILES,
    Playout,
    redeal_hidden,
    sorted_shuffle,
)

END, DRAW, CAPTURE = -1, -2, 1000


def found_at(row: list[int], j: int) -> tuple[int, ...]:
    """The captures whose pinched tile stands at `j` (1 <= j <= len(row) - 2)."""
    common = SUITS[row[j - 1]] & SUITS[row[j + 1]]
    if not common:
        return ()
    if common & SUITS[row[j]]:
        return (j << 1, j << 1 | 1)
    return (j << 1,)


def greedy_capture(caps: list[int], rand) -> int:
    """The greedy bots' capture: one that takes three tiles if any, else any, at random."""
    triples = [c for c in caps if c & 1]
    return triples[int(rand() * len(triples))] if triples else caps[int(rand() * len(caps))]


def scan(row: list[int]) -> list[int]:
    caps: list[int] = []
    for j in range(1, len(row) - 1):
        caps += found_at(row, j)
    return caps


class RowKernel(Playout):
    """The row and its captures, shared by Castle Rock and the solitaire."""

    row: list[int]
    caps: list[int]

    def _extend(self, tile: int) -> None:
        row = self.row
        row.append(tile)
        if len(row) >= 3 and SUITS[row[-3]] & SUITS[tile]:
            self.caps += found_at(row, len(row) - 2)

    def _take(self, code: int) -> int:
        """Make capture `code`; the number of tiles taken."""
        row, caps = self.row, self.caps
        start, taken = ((code >> 1) - 1, 3) if code & 1 else (code >> 1, 1)
        del row[start:start + taken]
        below, above, shift = (start - 1) << 1, (start + taken + 1) << 1, taken << 1
        kept = []
        for c in caps:  # untouched on the left, or shifted left past the gap
            if c < below:
                kept.append(c)
            elif c >= above:
                kept.append(c - shift)
        last = len(row) - 2
        for j in (start - 1, start):  # the two tiles now either side of the gap
            if 1 <= j <= last:
                kept += found_at(row, j)
        caps[:] = kept
        return taken

    def _capture_text(self, code: int) -> str:
        k = code >> 1
        tiles = self.row[k - 1:k + 2] if code & 1 else self.row[k:k + 1]
        return "x" + "+".join(str(TILES[t]) for t in tiles)

    def notation(self, move: int) -> str:
        if move >= CAPTURE:
            return self._capture_text(move - CAPTURE)
        if move == END:
            return "end"
        if move == DRAW:
            return "draw"
        return str(TILES[move])


class CastleRockPlayout(RowKernel):
    engine = CastleRock

    @classmethod
    def of(cls, game: CastleRock) -> CastleRockPlayout:
        s = game.state
        k = cls.__new__(cls)
        k.players = game.players
        k.target, k.max_hands = game.options.target, game.options.hands
        k.row_size = starting_row(len(game.dset), game.players)
        k.ids = [t.id for t in game.dset.tiles]
        k.rng = game.rng
        k.row = [t.id for t in s.row]
        k.caps = scan(k.row)
        k.hands = [[t.id for t in hand] for hand in s.hands]
        k.deck = [t.id for t in s.deck]
        k.drawn = s.drawn
        k.captured = list(s.captured)
        k.match = list(s.scores)
        k.turn, k.placed, k.hand_no, k.dealer = s.turn, s.placed, s.hand_no, s.dealer
        k.over = s.over
        k.hand_over = s.over
        return k

    def _copy(self) -> CastleRockPlayout:
        k = CastleRockPlayout.__new__(CastleRockPlayout)
        k.__dict__.update(self.__dict__)
        k.row, k.caps, k.deck = self.row[:], self.caps[:], self.deck[:]
        k.hands = [hand[:] for hand in self.hands]
        k.captured, k.match = self.captured[:], self.match[:]
        return k

    def redeal(self, seat: int, rng: random.Random) -> CastleRockPlayout:
        k = self._copy()
        k.deck[k.drawn:] = redeal_hidden(k.hands, seat, rng, k.deck[k.drawn:])
        k.rng = lambda label: rng
        return k

    def to_move(self) -> int:
        return self.turn

    def legal(self) -> list[int]:
        if not self.placed:
            return list(self.hands[self.turn])
        return [CAPTURE + c for c in self.caps] + [END]

    def play(self, move: int, hand_only: bool = False) -> None:
        if move >= CAPTURE:
            self.captured[self.turn] += self._take(move - CAPTURE)
        elif move == END:
            self._end_turn(hand_only)
        else:
            self.hands[self.turn].remove(move)
            self._extend(move)
            self.placed = True

    def _end_turn(self, hand_only: bool) -> None:
        """CR-4.3, CR-4.4: draw, pass to the next seat holding tiles, or score the hand."""
        hands = self.hands
        if self.drawn < len(self.deck):
            hands[self.turn].append(self.deck[self.drawn])
            self.drawn += 1
        self.placed = False
        p = self.players
        for step in range(1, p + 1):
            seat = (self.turn + step) % p
            if hands[seat]:
                self.turn = seat
                return
        self._score_hand(hand_only)

    def _score_hand(self, hand_only: bool) -> None:
        """CR-7, CR-8; then the next deal (CR-3), unless only the hand was wanted."""
        left = len(self.row)
        scores = self.match
        for i, c in enumerate(self.captured):
            scores[i] += c - left
        self.captured = [0] * self.players
        self.hand_over = True
        if max(scores) >= self.target or self.hand_no + 1 >= self.max_hands:
            self.over = True
            return
        if hand_only:
            return
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % self.players
        self._deal()

    def _deal(self) -> None:
        deck = self.ids[:]
        self.rng(("hand", self.hand_no)).shuffle(deck)
        p = self.players
        first = (self.dealer + 1) % p
        for k in range(p):
            self.hands[(first + k) % p][:] = deck[2 * k:2 * k + 2]
        self.drawn = 2 * p + self.row_size
        self.row[:] = deck[2 * p:self.drawn]
        self.caps[:] = scan(self.row)
        self.deck = deck
        self.turn = first
        self.placed = False
        self.hand_over = False

    def rollout(self, rand, policy=0, hand_only=False, log=None) -> int:
        greedy = policy == GREEDY
        moves = 0
        caps, captured, hands = self.caps, self.captured, self.hands
        take, extend = self._take, self._extend
        while not self.over and not (hand_only and self.hand_over):
            turn = self.turn
            if not self.placed:
                hand = hands[turn]
                tile = hand[int(rand() * len(hand))]
                if log is not None:
                    log.append(self.notation(tile))
                hand.remove(tile)
                extend(tile)
                self.placed = True
                moves += 1
            while True:
                moves += 1
                n = len(caps)
                if greedy:
                    if not n:
                        break
                    code = greedy_capture(caps, rand)
                else:
                    i = int(rand() * (n + 1))
                    if i == n:
                        break
                    code = caps[i]
                if log is not None:
                    log.append(self._capture_text(code))
                captured[turn] += take(code)
            if log is not None:
                log.append("end")
            self._end_turn(hand_only)
            if self.captured is not captured:  # a new hand was dealt: fresh lists
                captured = self.captured
        return moves

    def value(self, seat: int) -> float:
        totals = [s + c for s, c in zip(self.match, self.captured)]
        own = totals[seat]
        return own - (sum(totals) - own) / (self.players - 1)

    def scores(self) -> list[int]:
        return self.match[:]

    def hands_played(self) -> int:
        return self.hand_no + 1


class SolitairePlayout(RowKernel):
    """Castle Rock Solitaire: draws and captures on one row (CRS-4, CR-5)."""

    engine = CastleRockSolitaire

    @classmethod
    def of(cls, game: CastleRockSolitaire) -> SolitairePlayout:
        s = game.state
        k = cls.__new__(cls)
        k._options(game.options)
        k.row = [t.id for t in s.row]
        k.caps = scan(k.row)
        k.deck = [t.id for t in s.deck]
        k.drawn, k.captured, k.won = s.drawn, s.captured, s.won
        k.over = k.hand_over = s.over
        return k

    @classmethod
    def new(cls, players=None, options=None, seed=0) -> SolitairePlayout:
        if options is not None:
            return super().new(players, options, seed)
        k = cls.__new__(cls)
        k._options(CastleRockSolitaire.Options())
        k.deck = DOUBLE_SIX_IDS[:]
        seeded(cls.engine, seed, "deal").shuffle(k.deck)
        k.row, k.drawn = k.deck[:3], 3
        k.caps = scan(k.row)
        k.captured, k.won, k.over, k.hand_over = 0, False, False, False
        return k

    def _options(self, opts) -> None:
        self.any_time, self.empty_wins = opts.draw == ANY_TIME, opts.win == TABLEAU_EMPTY

    def redeal(self, seat: int, rng: random.Random) -> SolitairePlayout:
        k = SolitairePlayout.__new__(SolitairePlayout)
        k.__dict__.update(self.__dict__)
        k.row, k.caps = self.row[:], self.caps[:]
        k.deck = self.deck[:self.drawn] + sorted_shuffle(self.deck[self.drawn:], rng)
        return k

    def to_move(self) -> int:
        return 0

    def legal(self) -> list[int]:
        moves = [CAPTURE + c for c in self.caps]
        if self.drawn < len(self.deck) and (self.any_time or not moves):
            moves.append(DRAW)
        return moves

    def play(self, move: int, hand_only: bool = False) -> None:
        if move == DRAW:
            self._extend(self.deck[self.drawn])
            self.drawn += 1
        else:
            self.captured += self._take(move - CAPTURE)
            if not self.row and (self.empty_wins or self.drawn == len(self.deck)):
                self.won = self.over = self.hand_over = True
                return
        if self.drawn == len(self.deck) and not self.caps:
            self.over = self.hand_over = True

    def rollout(self, rand, policy=0, hand_only=False, log=None) -> int:
        greedy = policy == GREEDY
        row, caps, deck = self.row, self.caps, self.deck
        size, drawn, any_time = len(self.deck), self.drawn, self.any_time
        moves = 0
        while not self.over:
            moves += 1
            n = len(caps)
            can_draw = drawn < size and (any_time or not n)
            if greedy and n:
                code = greedy_capture(caps, rand)
            else:
                i = int(rand() * (n + can_draw))
                code = -1 if i == n else caps[i]
            if code < 0:
                if log is not None:
                    log.append("draw")
                tile = deck[drawn]
                drawn += 1
                row.append(tile)
                if len(row) >= 3 and SUITS[row[-3]] & SUITS[tile]:
                    caps += found_at(row, len(row) - 2)
            else:
                if log is not None:
                    log.append(self._capture_text(code))
                self.captured += self._take(code)
                if not row and (self.empty_wins or drawn == size):
                    self.won = True
                    break
            if drawn == size and not caps:
                break
        self.drawn = drawn
        self.over = self.hand_over = True
        return moves

    def value(self, seat: int) -> float:
        return self.captured + len(self.deck) * self.won

    def scores(self) -> list[int]:
        return [self.captured]

    def hands_played(self) -> int:
        return 1
