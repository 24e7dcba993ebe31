"""Hints for the player to move, from what that player can see.

- Castle Rock: once the player has placed, the capture plan that takes the most tiles (the exact
  analysis, capture.py), as the tiles to take in order. Before the placement the table cannot
  see the player's hand, so the hint says to place first.
- Castle Rock Solitaire: the solver's next step.
- Every other game, and a bot seat's turn: the bots' choice (seats.decide) on the seat's view,
  when the table knows the seat's tiles (a bot's rack, or a game played with its hands known).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from dominotable.games import catalog
from dominotable.match.seats import decide
from dominotable.rules.game import Game
from dominotable.rules.games.castle_rock.capture import Capture, analyse
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.rules.games.castle_rock.solitaire import CastleRockSolitaire
from dominotable.rules.tiles import Tile


@dataclass(frozen=True)
class Hint:
    text: str
    take: tuple[Tile, ...] = ()  # the tiles to take, in order (a capture plan)


def hint(game: Game, hand: Sequence[Tile] | None = None, seed: int = 0) -> Hint:
    """The hint for the player to move; `hand`: that player's tiles, when the table knows them."""
    seat = game.current_player
    if seat is None:
        return Hint("the match is over")
    if game.awaiting():
        return Hint("no hint while the table waits for the tiles to be shown")
    if isinstance(game, CastleRockSolitaire):
        move = catalog.spec(game).strategies["solver"](random.Random(seed))(game)
        return _captures([move]) if isinstance(move, Capture) else Hint("draw the next tile")
    if isinstance(game, CastleRock) and game.placed():
        plan = analyse(game.row()).best()
        if not plan.steps:
            return Hint("no capture: end your turn")
        return _captures(plan.steps, len(plan.remaining) == 0)
    if hand is None and game.observed:
        if isinstance(game, CastleRock):
            return Hint("place a tile at the open end, then ask again for the best captures")
        return Hint("the table cannot see your tiles, so it has no hint")
    turn = decide(game, seat, hand if hand is not None else game.hands()[seat], seed)
    return Hint(" then ".join(str(m) for m in turn) or "pass")


def _captures(steps: list[Capture], clears: bool = False) -> Hint:
    take = tuple(t for step in steps for t in step.tiles)
    text = f"take {' '.join(str(s) for s in steps)}: {len(take)} tile{'s' * (len(take) != 1)}"
    return Hint(text + (", the whole row" if clears else ""), take)
