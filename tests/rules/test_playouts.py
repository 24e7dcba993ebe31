"""Playout kernels (rules/playout.py) against their engines: the same legal moves at every step,
the same scores after every move, and a kernel's fused rollout replayed move by move through
the full engine ends in the same scores."""

import random

import pytest
from dominotable.games import catalog
from dominotable.rules.playout import GREEDY, RANDOM
from hypothesis import given, settings
from hypothesis import strategies as st

KERNELS = [spec.name for spec in catalog.GAMES if spec.playout is not None]
PLAYERS = {"castle-rock": st.integers(2, 6)}
OPTIONS = {
    "castle-rock": st.fixed_dictionaries({"set": st.sampled_from([6, 9]), "hands": st.integers(1, 4)}),
    "castle-rock-solitaire": st.fixed_dictionaries({"draw": st.sampled_from(["any-time", "when-blocked"]),
                                                    "win": st.sampled_from(["all-captured", "tableau-empty"])}),
    "broadway": st.fixed_dictionaries({"hands": st.integers(1, 3)}),
    "doubles-in-the-boneyard": st.fixed_dictionaries({"target": st.sampled_from([50, 100])}),
    "up-down-stop": st.fixed_dictionaries({"set": st.sampled_from([6, 9]), "columns": st.integers(1, 3),
                                           "reshuffles": st.integers(0, 2), "both_ways": st.booleans(),
                                           "free_scrap": st.booleans()}),
}


def setup(name, data):
    """A game, its player count, options (the defaults, or drawn) and a seed."""
    spec = catalog.spec(name)
    players = data.draw(PLAYERS[name]) if name in PLAYERS else None
    options = data.draw(st.none() | OPTIONS[name], label="options")
    seed = data.draw(st.integers(0, 10**6), label="seed")
    return spec, players, options, seed


@pytest.mark.parametrize("name", KERNELS)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_kernel_steps_like_the_engine(name, data):
    """Step by step: the kernel's legal moves are the engine's, by notation; after each
    random move both agree on the scores, the seat to move and whether the match is over."""
    spec, players, options, seed = setup(name, data)
    game = spec.engine(players=players, options=options, seed=seed)
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
    assert kernel.hands_played() == game.hands_played()


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("policy", [RANDOM, GREEDY])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_rollout_replays_through_the_engine(name, policy, data):
    """A whole match of the fused rollout, replayed through the engine: every move legal,
    the same final scores and hands played."""
    spec, players, options, seed = setup(name, data)
    kernel = spec.playout.new(players=players, options=options, seed=seed)
    log: list[str] = []
    moves = kernel.rollout(random.Random(seed).random, policy, log=log)
    assert moves == len(log)
    game = spec.engine(players=players, options=options, seed=seed)
    for text in log:
        game.push_notation(text)
    assert game.is_over() and kernel.over
    assert game.scores == kernel.scores()
    assert game.hands_played() == kernel.hands_played()


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


def test_broadway_random_placement_is_uniform():
    """The kernel's random placement (drawn without listing them all) gives every legal
    placement about equally often."""
    from dominotable.rules.games.broadway.playout import BroadwayPlayout

    kernel = BroadwayPlayout.new(seed=5)
    rng = random.Random(5)
    for _ in range(6):
        kernel.play(kernel.legal()[rng.randrange(len(kernel.legal()))])
    legal = kernel.legal()
    counts = dict.fromkeys(legal, 0)
    draws = 300 * len(legal)
    for _ in range(draws):
        counts[kernel._random_placement(kernel.turn, rng.random)] += 1
    assert len(counts) == len(legal) > 5
    assert all(200 < n < 400 for n in counts.values())
