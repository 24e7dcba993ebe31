"""`dominotable demo [GAME] [--seed S] [--players P] [rule option flags]`: greedy bots play a
whole match, shown turn by turn. Generic over games: it prints each seat's moves in their
notation, then the game's one-line `brief()` if it has one (else its full picture), and the
scores whenever they change (a game for several players then shows its picture: a new hand)."""

from __future__ import annotations

import random

from ..bots import greedy_bot
from ..gameargs import add_game_command, parse_game_args


def common(parser, d) -> None:
    parser.add_argument("--seed", type=int, default=d(0), help="the match's seed (default 0)")
    parser.add_argument("--players", type=int, default=d(None), help="number of players (default: the game's)")


def register(subparsers) -> None:
    add_game_command(subparsers, "demo", common, run, default_game="castle-rock",
                     help="watch greedy bots play a whole match",
                     description="Greedy bots play a whole match of GAME, shown turn by turn.")


def run(args) -> int:
    cls = parse_game_args(args, "dominotable demo")
    if cls is None:
        return 0
    game = cls(players=args.players, options=args.options, seed=args.seed)
    bots = [greedy_bot(random.Random(f"{args.seed}:{seat}")) for seat in range(game.players)]
    names = game.side_names()
    print(game)
    scores = game.scores
    while not game.is_over():
        seat = game.current_player
        moves = []
        while not game.is_over() and game.current_player == seat:
            move = bots[seat](game)
            game.push(move)
            moves.append(str(move))
            if game.scores != scores:
                break
        brief = getattr(game, "brief", None)
        picture = not brief or (game.scores != scores and game.players > 1 and not game.is_over())
        print(f"P{seat + 1}: {' '.join(moves):<24} {'' if picture else brief()}".rstrip())
        if game.scores != scores:
            scores = game.scores
            print("scores: " + ", ".join(f"{name} {score}" for name, score in zip(names, scores)))
        if picture:
            print(game)
    print("final:")
    print(game)
    winners = game.winners()
    print("winner: " + (", ".join(names[side] for side in winners) if winners else "none"))
    return 0
