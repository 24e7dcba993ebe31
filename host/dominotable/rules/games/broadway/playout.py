"""Playout kernel of Broadway (see rules/playout.py).

The tableau is a flat board: cell (x, y) is the int `(y + OFF) * W + x + OFF`, so its
neighbours are +-1 and +-W, and for two adjacent cells the smaller int is the western or
northern one (the cell `Place.of` writes first). `board` maps covered cells to their pips.
The frontier is kept as the tiles land, not rebuilt: `wants[cell]` is the bitmask of pips
beside an empty cell, `near[pip]` the list of empty cells beside that pip (BW-4.1), and
`beside[cell << 4 | pip]` how many tiles' halves showing `pip` touch the cell (so a
placement's match count, BW-4.3, is two lookups).
A placement is the int `((low << 16 | high) << 4 | pip_low) << 4 | pip_high` (cells
`low` < `high`); PASS is -1.
"""

from __future__ import annotations

import random

from dominotable.rules.game import seeded
from dominotable.rules.games.broadway.engine import HAND_SIZE, POINTS, Broadway, opening_pip
from dominotable.rules.playout import DOUBLE_SIX_IDS, GREEDY, A, B, Playout, redeal_hidden
from dominotable.rules.tiles import MAX_PIP, DominoSet, Tile

PASS = -1
W, OFF = 256, 128  # a hand's tableau spans at most 57 cells from the centre


def cell_of(x: int, y: int) -> int:
    return (y + OFF) * W + x + OFF


def text_of(cell: int) -> str:
    return f"({cell % W - OFF},{cell // W - OFF})"


class BroadwayPlayout(Playout):
    engine = Broadway

    @classmethod
    def of(cls, game: Broadway) -> BroadwayPlayout:
        s = game.state
        k = cls._blank(game.options.hands, game.seed, game.dset.top)
        k.number, k.turn, k.match, k.hands_done = s.number, s.turn, list(s.scores), len(s.past)
        k.hands = [[t.id for t in hand] for hand in s.hands]
        k.over = k.hand_over = s.winner is not None
        for first, second in ((c, m) for c, m in s.grid.mate.items() if c < m):
            k._lay(cell_of(*first), cell_of(*second), s.grid.pips[first], s.grid.pips[second])
        return k

    @classmethod
    def _blank(cls, hands: int, seed: int, top: int) -> BroadwayPlayout:
        k = cls.__new__(cls)
        k.max_hands, k.seed, k.top = hands, seed, top
        k.rng = None  # None: the engine's seeded deals
        k.board, k.wants, k.beside = {}, {}, {}
        k.near = [[] for _ in range(MAX_PIP + 1)]
        return k

    @classmethod
    def new(cls, players=None, options=None, seed=0) -> BroadwayPlayout:
        if options is not None:
            return super().new(players, options, seed)
        k = cls._blank(Broadway.Options().hands, seed, 6)
        k.match, k.hands_done, k.over = [0, 0], 0, False
        k.hands = [[] for _ in range(4)]
        k._start_hand(0)
        return k

    def _copy(self) -> BroadwayPlayout:
        k = BroadwayPlayout.__new__(BroadwayPlayout)
        k.__dict__.update(self.__dict__)
        k.board, k.wants, k.beside = self.board.copy(), self.wants.copy(), self.beside.copy()
        k.near = [cells[:] for cells in self.near]
        k.hands = [hand[:] for hand in self.hands]
        k.match = self.match[:]
        return k

    def redeal(self, seat: int, rng: random.Random) -> BroadwayPlayout:
        k = self._copy()
        redeal_hidden(k.hands, seat, rng)
        k.rng = rng
        return k

    # -- the deal (BW-2) ----------------------------------------------------------------------

    def _start_hand(self, number: int) -> None:
        tiles = DOUBLE_SIX_IDS[:] if self.top == 6 else [t.id for t in DominoSet(self.top).tiles]
        (self.rng or seeded(Broadway, self.seed, f"deal {number}")).shuffle(tiles)
        for seat in range(4):
            self.hands[seat][:] = sorted(tiles[seat * HAND_SIZE:(seat + 1) * HAND_SIZE])
        pip = opening_pip(number, self.max_hands, self.top)
        double = Tile(pip, pip).id
        self.number = number
        self.turn = next(seat for seat in range(4) if double in self.hands[seat])
        self.board.clear()
        self.wants.clear()
        self.beside.clear()
        for cells in self.near:
            cells.clear()
        self.hand_over = False

    # -- the tableau ---------------------------------------------------------------------------

    def _lay(self, low: int, high: int, pip_low: int, pip_high: int) -> int:
        """Put a tile on two empty cells, keep the frontier, and return its match count (BW-4.3)."""
        board, wants, near, beside = self.board, self.wants, self.near, self.beside
        count = 0
        for cell, pip in ((low, pip_low), (high, pip_high)):
            board[cell] = pip
            mask = wants.pop(cell, 0)
            p = 0
            while mask:
                if mask & 1:
                    near[p].remove(cell)
                mask >>= 1
                p += 1
        bits = (1 << pip_low, 1 << pip_high)
        for k, (cell, pip, mate) in enumerate(((low, pip_low, high), (high, pip_high, low))):
            bit = bits[k]
            for n in (cell + 1, cell - 1, cell + W, cell - W):
                if n == mate:
                    continue
                got = board.get(n)
                if got is None:
                    key = n << 4 | pip
                    beside[key] = beside.get(key, 0) + 1
                    mask = wants.get(n, 0)
                    if not mask & bit:
                        wants[n] = mask | bit
                        near[pip].append(n)
                elif got == pip:
                    count += 1
        return count

    def _placements(self, seat: int) -> list[int]:
        """Every legal placement of `seat`'s tiles (BW-3, BW-4), one int each."""
        board, wants, near = self.board, self.wants, self.near
        step = 1 if seat % 2 == 0 else W
        found = []
        for tile in self.hands[seat]:
            a, b = A[tile], B[tile]
            for pip, other in ((a, b),) if a == b else ((a, b), (b, a)):
                other_bit = 1 << other
                for cell in near[pip]:
                    for mate in (cell + step, cell - step):
                        if mate in board or (mate < cell and wants.get(mate, 0) & other_bit):
                            continue
                        if cell < mate:
                            found.append(((cell << 16 | mate) << 4 | pip) << 4 | other)
                        else:
                            found.append(((mate << 16 | cell) << 4 | other) << 4 | pip)
        return found

    def _random_placement(self, seat: int, rand) -> int:
        """A legal placement drawn uniformly, or PASS. Draws a (tile, pip, cell, direction) slot of
        the enumeration in `_placements` and keeps it if `_placements` would yield it; only after
        a few misses does it enumerate them all."""
        board, wants, near = self.board, self.wants, self.near
        step = 1 if seat % 2 == 0 else W
        slots = []
        total = 0
        for tile in self.hands[seat]:
            a, b = A[tile], B[tile]
            for pip, other in ((a, b),) if a == b else ((a, b), (b, a)):
                if near[pip]:
                    slots.append((pip, other, near[pip]))
                    total += len(near[pip])
        for _ in range(8 if total else 0):
            r = int(rand() * 2 * total)
            mate_step = step if r & 1 else -step
            r >>= 1
            for pip, other, cells in slots:
                if r < len(cells):
                    break
                r -= len(cells)
            cell = cells[r]
            mate = cell + mate_step
            if mate in board or (mate < cell and wants.get(mate, 0) >> other & 1):
                continue
            if cell < mate:
                return ((cell << 16 | mate) << 4 | pip) << 4 | other
            return ((mate << 16 | cell) << 4 | other) << 4 | pip
        found = self._placements(seat)
        return found[int(rand() * len(found))] if found else PASS

    def _can_play(self, seat: int) -> bool:
        board, near = self.board, self.near
        step = 1 if seat % 2 == 0 else W
        for tile in self.hands[seat]:
            for pip in (A[tile], B[tile]):
                for cell in near[pip]:
                    if cell + step not in board or cell - step not in board:
                        return True
        return False

    def _lead(self) -> int:
        pip = opening_pip(self.number, self.max_hands, self.top)
        centre = cell_of(0, 0)
        return ((centre << 16 | centre + (1 if self.turn % 2 == 0 else W)) << 4 | pip) << 4 | pip

    # -- moves -----------------------------------------------------------------------------------

    def to_move(self) -> int:
        return self.turn

    def legal(self) -> list[int]:
        if not self.board:
            return [self._lead()]
        return self._placements(self.turn) or [PASS]

    def notation(self, move: int) -> str:
        if move == PASS:
            return "pass"
        pip_high, pip_low = move & 15, move >> 4 & 15
        cells = move >> 8
        return f"{pip_low}-{pip_high}@{text_of(cells >> 16)}-{text_of(cells & 0xFFFF)}"

    def play(self, move: int, hand_only: bool = False) -> None:
        if move == PASS:
            self.turn = (self.turn + 1) % 4
            self._settle(hand_only)
            return
        pip_high, pip_low = move & 15, move >> 4 & 15
        cells = move >> 8
        owner = self.turn
        self.turn = (owner + 1) % 4
        self.hands[owner].remove(Tile(pip_low, pip_high).id)
        points = POINTS[self._lay(cells >> 16, cells & 0xFFFF, pip_low, pip_high)]
        if points:
            self.match[owner % 2] += points
            if self._decided():
                return
        self._settle(hand_only)

    def _decided(self) -> bool:
        """BW-8.2: in sudden death, two points ahead wins at once."""
        ns, ew = self.match
        if self.number >= self.max_hands and abs(ns - ew) >= 2:
            self.over = self.hand_over = True
        return self.over

    def _settle(self, hand_only: bool) -> None:
        """BW-6.1, BW-6.2: skip empty hands; end the hand when nobody can play."""
        hands = self.hands
        if not any(hands):
            self._end_hand(hand_only)
            return
        while not hands[self.turn]:
            self.turn = (self.turn + 1) % 4
        for k in range(4):
            seat = (self.turn + k) % 4
            if hands[seat] and self._can_play(seat):
                return
        self._end_hand(hand_only)

    def _end_hand(self, hand_only: bool) -> None:
        """BW-6.3 and BW-8.1: tiles left cost a point each; the match ends or goes on."""
        self.hands_done += 1
        left = [len(hand) for hand in self.hands]
        self.match[0] -= left[0] + left[2]
        self.match[1] -= left[1] + left[3]
        self.hand_over = True
        if self._decided():
            return
        ns, ew = self.match
        if self.number == self.max_hands - 1 and ns != ew:
            self.over = True
            return
        if not hand_only:
            self._start_hand(self.number + 1)

    def rollout(self, rand, policy=0, hand_only=False, log=None) -> int:
        greedy = policy == GREEDY
        moves = 0
        board = self.board
        while not self.over and not (hand_only and self.hand_over):
            moves += 1
            if not board:
                move = self._lead()
            elif not greedy:
                move = self._random_placement(self.turn, rand)
            else:
                found = self._placements(self.turn)
                beside = self.beside
                move = max(found, key=lambda m: beside.get((m >> 24) << 4 | m >> 4 & 15, 0)
                           + beside.get((m >> 8 & 0xFFFF) << 4 | m & 15, 0)) if found else PASS
            if log is not None:
                log.append(self.notation(move))
            self.play(move, hand_only)
        return moves

    def value(self, seat: int) -> float:
        return self.match[seat % 2] - self.match[1 - seat % 2]

    def scores(self) -> list[int]:
        return self.match[:]

    def hands_played(self) -> int:
        return self.hands_done
