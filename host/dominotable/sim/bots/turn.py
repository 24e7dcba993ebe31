"""A seat's turn at the table, chosen by a strategy on what the seat can see."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from dominotable.rules.game import Game, Move
from dominotable.rules.seat_view import seat_view
from dominotable.rules.tiles import Tile
from dominotable.sim.bots.shared import Strategy


def decide(game: Game, seat: int, hand: Sequence[Tile], seed: int, strategy: Callable[[random.Random], Strategy],
           fits=None) -> list[Move]:
    """The moves `seat` makes this turn (to the end of its turn, or the match), chosen by
    `strategy` on the seat's view; the same position and hand always give the same turn.
    `fits(move)`: whether the tray has room for the first move; if not, the first legal move that
    fits, as a player would choose (a Broadway tableau outgrowing its zone)."""
    rng = random.Random(f"{seed}:{len(game.moves)}")
    view = seat_view(game, seat, hand, rng)
    choose = strategy(rng)
    turn: list[Move] = []
    hands = view.hands_played()
    while not view.is_over() and view.current_player == seat and view.hands_played() == hands and len(turn) < 64:
        move = choose(view)
        if fits is not None and not turn and not fits(move):
            move = next((m for m in view.legal_moves() if fits(m)), move)
        turn.append(move)
        view.push(move, trusted=True)
        if not move.placed() and not move.taken():
            break  # a move that ends the turn (the seat may be the next to move again)
    return turn
