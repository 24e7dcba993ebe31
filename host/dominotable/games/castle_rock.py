"""Castle Rock and Castle Rock Solitaire at the table (seeds/castle-rock.md,
seeds/castle-rock-solitaire.md), with their hints: the capture plan taking the most tiles, by the
exact analysis, and the solitaire solver's next step."""

from __future__ import annotations

import random
from collections.abc import Sequence

from dominotable.games.spec import GameSpec, Hint, shared_words, who, with_search
from dominotable.reading.castle_rock import CastleRockReader, CastleRockSolitaireReader
from dominotable.reading.prompts import counted, listed
from dominotable.rules.game import Game, Move
from dominotable.rules.games.castle_rock.capture import MIDDLE, Capture, analyse
from dominotable.rules.games.castle_rock.engine import CastleRock, Draw, End, Place
from dominotable.rules.games.castle_rock.playout import CastleRockPlayout, SolitairePlayout
from dominotable.rules.games.castle_rock.solitaire import ALL_CAPTURED, CastleRockSolitaire, DrawTile
from dominotable.rules.options import Options
from dominotable.rules.tiles import Tile
from dominotable.sim.bots.castle_rock import SOLITAIRE
from dominotable.sim.hands.castle_rock import CastleRockHands, CastleRockSolitaireHands

ZONES = ("castle-row", "castle-row-2", "captures")


def captures(steps: Sequence[Move], clears: bool = False) -> Hint:
    """A capture plan in words, one capture after another ("take 4-4, then 2-4, then 0-6, 0-0 and
    0-4: 5 tiles"), never the notation (issue 28)."""
    take = tuple(t for step in steps for t in step.taken())
    text = f"take {', then '.join(listed(step.taken()) for step in steps)}: {counted(len(take), 'tile')}"
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


def words(before: Game, move: Move, names: Sequence[str]) -> str:
    """A move on the row in words; a capture names the tiles that pinched it (CR-5)."""
    name = who(before, names)
    if isinstance(move, Place):
        return f"{name} laid {move.tile}"
    if isinstance(move, DrawTile):
        return f"{name} drew {move.tile}"
    if isinstance(move, Draw):
        after = before.copy()
        after.push(move, trusted=True)
        return f"{name} drew {after.row()[-1]}"
    if isinstance(move, End):
        return f"{name} ended the turn"
    if isinstance(move, Capture):
        if move.kind != MIDDLE:
            return f"{name} captured the triple {listed(move.tiles)}"
        row = before.row()
        at = row.index(move.tiles[0])
        return f"{name} captured {move.tiles[0]} between {row[at - 1]} and {row[at + 1]}"
    return shared_words(before, move, names)


def match_goal(options: Options) -> str:
    """The match ends after a hand in which someone reached the target (CR-8.1), or after the last hand (CR-8.4)."""
    if options.hands == 1:
        return "one hand"
    return f"first to {options.target} or {options.hands} hands"


def solitaire_goal(options: Options) -> str:
    return "capture every tile" if options.win == ALL_CAPTURED else "empty the row"


CASTLE_ROCK = GameSpec(CastleRock, CastleRockReader, CastleRockHands, "castle-rock.md", zones=ZONES,
                       racks="castle-rock", remote=True, strategies=with_search(CastleRockPlayout), bot="search",
                       playout=CastleRockPlayout, own_hint=best_captures, demo={"hands": 1}, words=words,
                       goal=match_goal)
SOLITAIRE_SPEC = GameSpec(CastleRockSolitaire, CastleRockSolitaireReader, CastleRockSolitaireHands,
                          "castle-rock-solitaire.md", zones=ZONES, strategies=with_search(SolitairePlayout, SOLITAIRE),
                          bot="search", playout=SolitairePlayout, own_hint=solver_step, words=words,
                          goal=solitaire_goal, scoring="tiles captured")
