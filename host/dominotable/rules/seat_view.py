"""What one seat can know of an observed game (played at a real table, hands hidden): the tiles
nobody has seen, every hand's size, and a view of the game for a seat that holds a known hand.

A bot seat at the table holds real tiles the table reads from its rack; the engine's own
guess at the hidden tiles is no information at all. `seat_view` deals every tile the seat
cannot see again at random, keeping every hand's size and the boneyard's, and hands the copy
over as a game whose hands are known (not observed), so any strategy can play it. The copy
depends only on what the seat sees: its hand, the tiles played, the moves made.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from dominotable.rules.game import Game
from dominotable.rules.tiles import Tile


def unseen(game: Game) -> set[Tile]:
    """Tiles no player has seen: the hands (the engine's guess at them) but for tiles shown, and
    the boneyard; every tile while the table waits for the tiles dealt to be shown."""
    if game.awaiting():
        return set(game.dset.tiles)
    s = game.state
    public = _public(game)
    tiles = {t for hand in s.hands for t in hand if t not in public}
    if hasattr(s, "deck"):
        tiles.update(s.deck[s.drawn:])
    return tiles


def hand_size(game: Game, seat: int) -> int:
    """How many hidden tiles `seat` holds now (none once they were shown, or before the deal)."""
    if game.is_over() or game.awaiting() == "lots":
        return 0
    hand = game.state.hands[seat]
    return 0 if set(hand) <= game.shown_tiles() else len(hand)


def _public(game: Game) -> frozenset[Tile]:
    """Tiles in hands that every player has seen: the hands shown, the tiles held face up."""
    return game.shown_tiles() | game.face_up()


def seat_view(game: Game, seat: int, hand: Sequence[Tile], rng: random.Random) -> Game:
    """A copy of `game` in which `seat` holds `hand` and every other unseen tile is dealt again
    with `rng` (sizes kept), as a game whose hands are known."""
    view = type(game).from_dict(game.to_dict())
    s = view.state
    others = sorted(unseen(view) - set(hand))
    rng.shuffle(others)
    public = _public(view)
    hands = []
    for k, held in enumerate(s.hands):
        if k == seat:
            hands.append(tuple(hand))
            continue
        kept = tuple(t for t in held if t in public)  # shown tiles stay with their owner
        dealt = len(held) - len(kept)
        hands.append(kept + tuple(others[:dealt]))
        others = others[dealt:]
    s.hands = tuple(hands)
    if hasattr(s, "deck"):
        s.deck = s.deck[:s.drawn] + tuple(others)
    view.observed = False
    return view
