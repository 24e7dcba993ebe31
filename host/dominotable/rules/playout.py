"""Playout kernels: each game's rules once more, on plain ints, for search and benchmarks.

A kernel holds a whole match position (every tile where the engine has it) in lists and
ints, with no Move objects and no copies per move: a move is an int, `play` changes the
position in place, and `rollout` plays on in one fused loop. Search copies a kernel once
per playout (`redeal`), never per move. Each game's kernel lives beside its engine
(`rules/games/<stem>/playout.py`); tests replay a kernel's moves, by notation, through the
full engine and compare every score, so the two can never drift apart.

Rollout policies: RANDOM picks uniformly among the legal moves (the `random` bot); GREEDY
is each kernel's cheap stand-in for the `greedy` bot (always take points when offered),
which search uses to imagine its opponents.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import ClassVar

from dominotable.rules.game import Game
from dominotable.rules.tiles import MAX_PIP, DominoSet

RANDOM, GREEDY = 0, 1


# Tile facts by tile id (TILES[id] is the tile with that id), for the kernels' int lists.
TILES = DominoSet(MAX_PIP).tiles
A = [t.a for t in TILES]
B = [t.b for t in TILES]
PIPS = [t.pips for t in TILES]
SUITS = [t.suits for t in TILES]
DOUBLE = [t.is_double for t in TILES]
DOUBLE_SIX_IDS = [t.id for t in DominoSet(6).tiles]


class Playout(ABC):
    engine: ClassVar[type[Game]]
    search_budget: ClassVar[int] = 200  # search's default playouts per move: at most 200 ms a move here
    over: bool  # the match is over
    hand_over: bool  # the hand under way has ended (a rollout with `hand_only` stops there)

    @classmethod
    @abstractmethod
    def of(cls, game: Game) -> Playout:
        """The position of `game`, an engine of this kernel's game (not in observed mode)."""

    @classmethod
    def new(cls, players: int | None = None, options=None, seed: int = 0) -> Playout:
        """The start of the seeded match the engine would deal."""
        return cls.of(cls.engine(players=players, options=options, seed=seed))

    @abstractmethod
    def to_move(self) -> int:
        """The seat to move (meaningless once `over`)."""

    @abstractmethod
    def legal(self) -> list[int]:
        """The legal moves, as ints."""

    @abstractmethod
    def play(self, move: int, hand_only: bool = False) -> None:
        """Play a legal move (not checked); with `hand_only`, deal no next hand."""

    @abstractmethod
    def notation(self, move: int) -> str:
        """`move` (legal now) as the engine writes it."""

    @abstractmethod
    def rollout(self, rand, policy: int = RANDOM, hand_only: bool = False, log: list | None = None) -> int:
        """Play on until the match ends (or the hand, with `hand_only`), choosing by `policy`
        with `rand()` in [0, 1); append each move to `log` if given. Returns the moves made."""

    @abstractmethod
    def redeal(self, seat: int, rng: random.Random) -> Playout:
        """A copy in which every tile `seat` cannot see is dealt again at random with `rng`
        (same sizes of hands and boneyard), and later shuffles use `rng` too. The copy depends
        only on what `seat` can see, never on where the hidden tiles really lie."""

    @abstractmethod
    def value(self, seat: int) -> float:
        """How well the hand (or match) has gone for `seat`'s side so far, for search: its
        points this hand less the mean of its opponents'."""

    @abstractmethod
    def scores(self) -> list[int]:
        """Match score per side, as the engine's `scores`."""

    @abstractmethod
    def hands_played(self) -> int:
        """As the engine's `hands_played()` (benchmarks count hands per second)."""


def sorted_shuffle(tiles, rng: random.Random) -> list[int]:
    """`tiles` in an order that depends only on the set of them and `rng`."""
    order = sorted(tiles)
    rng.shuffle(order)
    return order


def redeal_hidden(hands: list[list[int]], seat: int, rng: random.Random, rest=()) -> list[int]:
    """Deal again, in place, every hand but `seat`'s from their tiles and `rest` (an undrawn
    stock, say), shuffled together; returns what is left over for `rest`'s place."""
    order = sorted_shuffle([t for i, hand in enumerate(hands) if i != seat for t in hand] + list(rest), rng)
    for i, hand in enumerate(hands):
        if i != seat:
            hand[:] = order[:len(hand)]
            del order[:len(hand)]
    return order
