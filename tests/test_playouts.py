"""Playout kernels (rules/playout.py) against their engines: the same legal moves at every step,
the same scores after every move, and a kernel's fused rollout replayed move by move through
the full engine ends in the same scores."""

import random

import pytest
from dominotable.app import catalog
from dominotable.rules.playout import GREEDY, RANDOM
from hypothesis import given, settings
from hypothesis import strategies as st

KERNELS = [spec.name for spec in catalog.GAMES if spec.playout is not None]
PLAYERS = {"castle-rock": st.integers(2, 6)}


def setup(name, data):
    spec = catalog.spec(name)
    players = data.draw(PLAYERS[name]) if name in PLAYERS else None
    seed = data.draw(st.integers(0, 10**6), label="seed")
    return spec, players, seed


@pytest.mark.parametrize("name", KERNELS)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_kernel_steps_like_the_engine(name, data):
    """Step by step: the kernel's legal moves are the engine's, by notation; after each
    random move both agree on the scores, the seat to move and whether the match is over."""
    spec, players, seed = setup(name, data)
    game = spec.engine(players=players, seed=seed)
    kernel = spec.playout.of(game)
    rng = random.Random(seed)
    while not game.is_over():
        moves = kernel.legal()
        texts = [kernel.notation(m) for m in moves]
        assert sorted(texts) == sorted(str(m) for m in game.legal_moves())
        k = rng.randrange(len(moves))
        kernel.play(moves[k])
        game.push_notation(texts[k])
        assert kernel.scores() == game.scores
        assert kernel.over == game.is_over()
        if not game.is_over():
            assert kernel.to_move() == game.current_player
    assert kernel.hands_played() == getattr(game, "hands_played", lambda: 1)()


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("policy", [RANDOM, GREEDY])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_rollout_replays_through_the_engine(name, policy, data):
    """A whole match of the fused rollout, replayed through the engine: every move legal,
    the same final scores and hands played."""
    spec, players, seed = setup(name, data)
    kernel = spec.playout.new(players=players, seed=seed)
    log: list[str] = []
    moves = kernel.rollout(random.Random(seed).random, policy, log=log)
    assert moves == len(log)
    game = spec.engine(players=players, seed=seed)
    for text in log:
        game.push_notation(text)
    assert game.is_over() and kernel.over
    assert game.scores == kernel.scores()
    assert getattr(game, "hands_played", lambda: 1)() == kernel.hands_played()


@pytest.mark.parametrize("name", KERNELS)
def test_hand_only_rollout_stops_at_the_end_of_the_hand(name):
    spec = catalog.spec(name)
    game = spec.engine(seed=3)
    kernel = spec.playout.of(game)
    log: list[str] = []
    kernel.rollout(random.Random(3).random, hand_only=True, log=log)
    for text in log:
        game.push_notation(text)
    assert kernel.hand_over and kernel.scores() == game.scores != [0] * len(game.scores)
