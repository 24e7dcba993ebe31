"""Castle Rock Solitaire's own player: the `solver` (see the solitaire engine's docstring for why
it needs no look at the boneyard under `draw=any-time`)."""

from __future__ import annotations

import random

from dominotable.rules.game import Move
from dominotable.rules.games.castle_rock.capture import analyse, squeeze
from dominotable.rules.games.castle_rock.solitaire import (
    ALL_CAPTURED,
    ANY_TIME,
    WHEN_BLOCKED,
    CastleRockSolitaire,
    can_win,
)


def solver_bot(rng: random.Random, clairvoyant: bool = False):
    """The best play the capture analysis allows without looking at the boneyard; with
    `clairvoyant`, knowing the draw order (an upper bound on any player)."""
    memo: dict = {}
    seen_deck: list = [None]
    planned: dict = {}  # row -> the next capture of the plan being followed

    def choose(game: CastleRockSolitaire) -> Move:
        opts, row = game.options, game.row()
        captures = game.captures()
        if clairvoyant and opts.draw == WHEN_BLOCKED and len(captures) > 1:
            deck = game.deck()
            if seen_deck[0] is not deck.tiles:
                memo.clear()
                seen_deck[0] = deck.tiles
            for capture in captures:
                if can_win(deck.tiles, squeeze(row, capture), deck.drawn, opts.draw, opts.win, memo):
                    return capture
        if game.boneyard() and (opts.draw == ANY_TIME or not captures):
            if opts.win == ALL_CAPTURED or not captures or not analyse(row).clearable:
                return game.draw_move()
        return planned.get(row) or plan(row)

    def plan(row):
        """First step of a best plan for `row`; remember the rest (a plan depends only on the row)."""
        planned.clear()
        for step in analyse(row).best().steps:
            planned[row] = step
            row = squeeze(row, step)
        return next(iter(planned.values()))

    return choose


solver_bot.flags = {"clairvoyant": "the solver sees the draw order (an upper bound)"}


SOLITAIRE = {"solver": solver_bot}
