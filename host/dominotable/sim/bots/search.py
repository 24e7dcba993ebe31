"""The `search` player: determinized Monte Carlo search over the tiles its seat cannot see.

Each playout deals the unseen tiles again at random (`Playout.redeal`: the other hands and
the boneyard keep their sizes, nothing else about them is used), plays one candidate move,
and plays the hand out with every seat taking points whenever offered (the kernel's GREEDY
policy, a model of the greedy bot); the outcome is the seat's `value` at the end of the hand.
Candidates share each deal and each rollout's random numbers (common random numbers), and
the budget is spent by successive halving: evaluate all candidates on a few deals, keep
the better half, and so on until one is left.

The budget is counted in playouts, so the same position and seed give the same move on any
machine; `seconds`, for the table, also stops the search when time runs out (the best
candidate so far is played).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from dominotable.rules.game import Game, Move
from dominotable.rules.playout import GREEDY, Playout
from dominotable.sim.bots.shared import greedy_bot


def search_bot(kernel: type[Playout], rng: random.Random, playouts: int | None = None,
               seconds: float | None = None) -> Callable[[Game], Move]:
    """`playouts`: the budget per move (default: the kernel's `search_budget`)."""
    playouts = playouts or kernel.search_budget

    def choose(game: Game) -> Move:
        moves = {str(move): move for move in game.legal_moves()}
        if len(moves) == 1:
            return next(iter(moves.values()))
        root = kernel.of(game)
        seat = root.to_move()
        candidates = [c for c in root.legal() if root.notation(c) in moves]  # the engine's bounds too (BW-11.6)
        if not candidates:  # a position the kernel does not play (Broadway's exposed tile, BW-7)
            return greedy_bot(rng)(game)
        return moves[root.notation(candidates[halving(root, seat, candidates, rng, playouts, seconds)])]

    return choose


def halving(root: Playout, seat: int, candidates: list[int], rng: random.Random, playouts: int,
            seconds: float | None) -> int:
    """The index in `candidates` of the move successive halving keeps."""
    deadline = None if seconds is None else time.monotonic() + seconds
    alive = list(range(len(candidates)))
    total = [0.0] * len(candidates)
    count = [0] * len(candidates)
    phases = max(1, math.ceil(math.log2(len(candidates))))
    for phase in range(phases):
        deals = max(1, playouts // (phases * len(alive)))
        for _ in range(deals):
            stream = rng.getrandbits(64)
            for i in alive:
                k = root.redeal(seat, random.Random(stream))
                k.play(candidates[i], hand_only=True)
                k.rollout(random.Random(stream).random, GREEDY, hand_only=True)
                total[i] += k.value(seat)
                count[i] += 1
            if deadline is not None and time.monotonic() > deadline:
                return max(alive, key=lambda i: total[i] / count[i])
        alive.sort(key=lambda i: -total[i] / count[i])
        alive = alive[:max(1, (len(alive) + 1) // 2)]
        if len(alive) == 1:
            break
    return alive[0]


def searcher(kernel: type[Playout]):
    """The `search` strategy factory for the game of `kernel`: `factory(rng) -> choose`."""

    def factory(rng: random.Random, playouts: int | None = None, seconds: float | None = None):
        return search_bot(kernel, rng, playouts, seconds)

    return factory
