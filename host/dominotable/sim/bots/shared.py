"""Players that choose moves: shared random and greedy bots.

A strategy is a callable `choose(game) -> Move`, made by a factory `factory(rng, **params)`;
each game's strategies (these and its own) are listed by name in app/catalog.py.
Greedy tries each legal move with push/pop and keeps the best `game.heuristic(side)`,
breaking ties at random; a game overrides `heuristic` where its score alone says too little.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from dominotable.rules.game import Game, Move

Strategy = Callable[[Game], Move]


def random_bot(rng: random.Random) -> Strategy:
    def choose(game: Game) -> Move:
        return rng.choice(game.legal_moves().all())

    return choose


def greedy_bot(rng: random.Random) -> Strategy:
    def choose(game: Game) -> Move:
        side = game.side_of(game.current_player)
        best: list[Move] = []
        best_value = None
        for move in list(game.legal_moves()):
            game.push(move, trusted=True)
            value = game.heuristic(side)
            game.pop()
            if best_value is None or value > best_value:
                best, best_value = [move], value
            elif value == best_value:
                best.append(move)
        return rng.choice(best)

    return choose


SHARED = {"random": random_bot, "greedy": greedy_bot}


def play_out(game: Game, players: list[Strategy], max_moves: int = 100_000) -> Game:
    """Play until the match ends, seat i using players[i % len(players)]."""
    for _ in range(max_moves):
        if game.is_over():
            return game
        seat = game.current_player
        game.push(players[seat % len(players)](game), trusted=True)
    raise RuntimeError(f"{game.name} did not end within {max_moves} moves")
