"""Castle Rock and Castle Rock Solitaire at the table (seeds/castle-rock.md,
seeds/castle-rock-solitaire.md), with their hints: the capture plan taking the most tiles, by the
exact analysis, and the solitaire solver's next step."""

from __future__ import annotations

import random
from collections.abc import Sequence

from dominotable.games.spec import GameSpec, Hint, with_search
from dominotable.reading.castle_rock import CastleRockReader, CastleRockSolitaireReader
from dominotable.rules.game import Game, Move
from dominotable.rules.games.castle_rock.capture import analyse
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.rules.games.castle_rock.playout import CastleRockPlayout, SolitairePlayout
from dominotable.rules.games.castle_rock.solitaire import CastleRockSolitaire
from dominotable.rules.tiles import Tile
from dominotable.sim.bots.castle_rock import SOLITAIRE
from dominotable.sim.hands.castle_rock import CastleRockHands, CastleRockSolitaireHands

ZONES = ("castle-row", "castle-row-2", "captures")


def captures(steps: Sequence[Move], clears: bool = False) -> Hint:
    take = tuple(t for step in steps for t in step.taken())
    text = f"take {' '.join(str(s) for s in steps)}: {len(take)} tile{'s' * (len(take) != 1)}"
    return Hint(text + (", the whole row" if clears else ""), take)


def best_captures(game: Game, hand: Sequence[Tile] | None, seed: int, spec: GameSpec) -> Hint | None:
    """Once the player has placed, the capture plan taking the most tiles; before, the table cannot
    see the player's hand, so the hint says to place first."""
    if game.placed():
        plan = analyse(game.row()).best()
        if not plan.steps:
            return Hint("no capture: end your turn")
        return captures(plan.steps, len(plan.remaining) == 0)
    if hand is None and game.observed:
        return Hint("place a tile at the open end, then ask again for the best captures")
    return None


def solver_step(game: Game, hand: Sequence[Tile] | None, seed: int, spec: GameSpec) -> Hint:
    move = spec.strategy("solver")(random.Random(seed))(game)
    return captures([move]) if move.taken() else Hint("draw the next tile")


CASTLE_ROCK = GameSpec(CastleRock, CastleRockReader, CastleRockHands, "castle-rock.md", zones=ZONES,
                       racks="castle-rock", strategies=with_search(CastleRockPlayout), bot="search",
                       playout=CastleRockPlayout, own_hint=best_captures, demo={"hands": 1})
SOLITAIRE_SPEC = GameSpec(CastleRockSolitaire, CastleRockSolitaireReader, CastleRockSolitaireHands,
                          "castle-rock-solitaire.md", zones=ZONES, strategies=with_search(SolitairePlayout, SOLITAIRE),
                          bot="search", playout=SolitairePlayout, own_hint=solver_step)
