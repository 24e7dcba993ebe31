"""Playout kernel of Doubles in the Boneyard (see rules/playout.py).

Tiles are their `Tile.id`; the line is only its two open ends (-1 before the first tile).
`held[pip]` counts the tiles in all hands showing `pip`, so a blocked game (DB-4.2) is two
lookups. Moves: `id << 1 | end` (the first tile of a game: `id << 1`), PASS.
"""

from __future__ import annotations

import random

from dominotable.rules.games.doubles_boneyard.engine import SEATS, DoublesInTheBoneyard
from dominotable.rules.playout import GREEDY, PIPS, TILES, A, B, Playout, redeal_hidden
from dominotable.rules.tiles import MAX_PIP

PASS = -1


class DoublesPlayout(Playout):
    engine = DoublesInTheBoneyard

    @classmethod
    def of(cls, game: DoublesInTheBoneyard) -> DoublesPlayout:
        s = game.state
        k = cls.__new__(cls)
        k.target = game.options.target
        k.ids = [t.id for t in game.dset if not t.is_double]
        k.doubles = [t.a for t in game.dset.doubles]
        k.rng = game.rng
        k.hands = [[t.id for t in hand] for hand in s.hands]
        k.left, k.right = (-1, -1) if s.line is None else s.line.ends
        k.held = [0] * (MAX_PIP + 1)
        for hand in k.hands:
            for t in hand:
                k.held[A[t]] += 1
                k.held[B[t]] += 1
        k.match = list(s.scores)
        k.turn, k.game_no, k.games = s.turn, s.game_no, len(s.results)
        k.over = k.hand_over = s.winner is not None
        return k

    def _copy(self) -> DoublesPlayout:
        k = DoublesPlayout.__new__(DoublesPlayout)
        k.__dict__.update(self.__dict__)
        k.hands = [hand[:] for hand in self.hands]
        k.held, k.match = self.held[:], self.match[:]
        return k

    def redeal(self, seat: int, rng: random.Random) -> DoublesPlayout:
        k = self._copy()
        redeal_hidden(k.hands, seat, rng)
        k.rng = lambda label: rng
        return k

    def to_move(self) -> int:
        return self.turn

    def legal(self) -> list[int]:
        hand, left, right = self.hands[self.turn], self.left, self.right
        if left < 0:
            return [t << 1 for t in hand]
        moves = [t << 1 | end for t in hand for end, pip in ((0, left), (1, right)) if pip == A[t] or pip == B[t]]
        return moves or [PASS]

    def notation(self, move: int) -> str:
        if move == PASS:
            return "pass"
        tile = str(TILES[move >> 1])
        if self.left < 0:
            return tile
        return tile + ">" if move & 1 else "<" + tile

    def play(self, move: int, hand_only: bool = False) -> None:
        if move == PASS:
            self.turn = (self.turn + 1) % SEATS
            return
        self._play(move >> 1, move & 1, hand_only)

    def _play(self, tile: int, end: int, hand_only: bool) -> None:
        """DB-3: lay `tile` on `end`; DB-4: end the game if its player is out or all are blocked."""
        hand = self.hands[self.turn]
        hand.remove(tile)
        a, b = A[tile], B[tile]
        held = self.held
        held[a] -= 1
        held[b] -= 1
        if self.left < 0:
            self.left, self.right = a, b
        elif end:
            self.right = b if a == self.right else a
        else:
            self.left = b if a == self.left else a
        if not hand:
            self._score(True, hand_only)
        elif not held[self.left] and not held[self.right]:
            self._score(False, hand_only)
        else:
            self.turn = (self.turn + 1) % SEATS

    def _score(self, out: bool, hand_only: bool) -> None:
        """DB-4, DB-5: score the game; the match ends or the next game is dealt."""
        totals = [sum(PIPS[t] for t in hand) for hand in self.hands]
        deltas = [0] * SEATS
        if out:
            deltas[self.turn] = sum(totals)
            leader = self.turn
        else:
            low = min(totals)
            lowest = [i for i in range(SEATS) if totals[i] == low]
            if len(lowest) == 1:
                deltas[lowest[0]] = sum(totals)
                leader = lowest[0]
            else:
                for i in range(SEATS):
                    if i not in lowest:
                        deltas[i] = -totals[i]
                doubles = self.doubles[:]
                self.rng(f"doubles:tie:{self.game_no}").shuffle(doubles)
                leader = lowest[max(range(len(lowest)), key=doubles.__getitem__)]
        self.games += 1
        match = self.match
        for i in range(SEATS):
            match[i] += deltas[i]
        self.hand_over = True
        if max(match) >= self.target:
            self.over = True
            return
        if not hand_only:
            self._deal(leader)

    def _deal(self, leader: int) -> None:
        """DB-2.3: seven tiles each, every hand sorted as the engine sorts it."""
        tiles = self.ids[:]
        self.game_no += 1
        self.rng(f"deal:{self.game_no}").shuffle(tiles)
        for i in range(SEATS):
            self.hands[i][:] = sorted(tiles[7 * i:7 * i + 7])
        held = self.held
        held[:] = [0] * len(held)
        for t in tiles:
            held[A[t]] += 1
            held[B[t]] += 1
        self.left = self.right = -1
        self.turn = leader
        self.hand_over = False

    def rollout(self, rand, policy=0, hand_only=False, log=None) -> int:
        greedy = policy == GREEDY
        moves = 0
        hands = self.hands
        play = self._play
        while not self.over and not (hand_only and self.hand_over):
            moves += 1
            hand = hands[self.turn]
            left, right = self.left, self.right
            if left < 0:
                tile = max(hand, key=PIPS.__getitem__) if greedy else hand[int(rand() * len(hand))]
                end = 0
            else:
                fit_left = [t for t in hand if A[t] == left or B[t] == left]
                fit_right = [t for t in hand if A[t] == right or B[t] == right]
                n = len(fit_left) + len(fit_right)
                if not n:
                    if log is not None:
                        log.append("pass")
                    self.turn = (self.turn + 1) % SEATS
                    continue
                if greedy:
                    best = max(fit_left + fit_right, key=PIPS.__getitem__)
                    tile, end = best, int(best not in fit_left)
                else:
                    i = int(rand() * n)
                    tile, end = (fit_left[i], 0) if i < len(fit_left) else (fit_right[i - len(fit_left)], 1)
            if log is not None:
                log.append(self.notation(tile << 1 | end))
            play(tile, end, hand_only)
        return moves

    def value(self, seat: int) -> float:
        match = self.match
        return match[seat] - (sum(match) - match[seat]) / (SEATS - 1)

    def scores(self) -> list[int]:
        return self.match[:]


    def hands_played(self) -> int:
        return self.games
