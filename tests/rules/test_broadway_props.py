"""Property tests for Broadway: random legal play with random exposures (BW-7) mixed in."""

import random

from dominotable.rules.games.broadway.engine import POINTS, Broadway, Expose
from dominotable.rules.games.broadway.grid import Grid, neighbours
from dominotable.rules.tiles import DOUBLE_SIX
from hypothesis import given, settings
from hypothesis import strategies as st


def check_tiles(game):
    """Rules BW-2.2, BW-3.1: every tile is in exactly one place: one hand or the tableau."""
    grid, order = game.tableau()
    on_table = [tile for tile, _, _ in grid.tiles()]
    in_hands = [tile for hand in game.hands() for tile in hand]
    assert sorted(on_table + in_hands) == sorted(DOUBLE_SIX.tiles)
    assert sorted(on_table) == sorted(tile for tile, _ in order)
    assert Grid.parse(grid.diagram()) == grid


def recount(game):
    """Scores from the finished tableaux alone (BW-4.3, BW-5.1, BW-6.3): each matching pair of
    touching segments belongs to the later of its two tiles."""
    past = game.past_hands()
    hands = [(r.grid, r.order, r.unplayed) for r in past]
    if not past or past[-1].number != game.hand_info().number:
        hands.append((*game.tableau(), ()))  # a sudden-death win in mid-hand
    scores = [0, 0]
    for grid, order, unplayed in hands:
        rank = {tile: i for i, (tile, _) in enumerate(order)}
        tile_at = {cell: DOUBLE_SIX.parse(f"{grid.pips[cell]}-{grid.pips[grid.mate[cell]]}") for cell in grid.pips}
        pairs = dict.fromkeys(rank, 0)
        for cell, pip in grid.pips.items():
            for n in neighbours(cell):
                if n != grid.mate[cell] and grid.pips.get(n) == pip and rank[tile_at[cell]] > rank[tile_at[n]]:
                    pairs[tile_at[cell]] += 1
        for tile, side in order:
            assert pairs[tile] >= 1 or rank[tile] == 0  # BW-4.1 (the lead touches nothing)
            scores[side] += POINTS[pairs[tile]]
        for seat, left in enumerate(unplayed):
            scores[seat % 2] -= len(left)
    return scores


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([1, 2]), st.sampled_from(["placer", "owner"]),
       st.integers(0, 10**6))
def test_random_play_keeps_the_invariants(seed, hands, orientation, choices):
    rng = random.Random(choices)
    game = Broadway(seed=seed, options={"hands": hands, "exposed_orientation": orientation})
    for _ in range(2000):
        if game.is_over():
            break
        hidden = [Expose(seat, t) for seat, hand in enumerate(game.hands()) for t in hand if t not in game.face_up()]
        if game.tableau().grid.pips and game.exposed() is None and hidden and rng.randrange(10) == 0:
            move = rng.choice(hidden)
        else:
            moves = list(game.legal_moves())
            assert len(set(moves)) == len(moves) and all(game.is_legal(m) for m in moves)
            move = rng.choice(moves)
        before = str(game)
        game.push(move)
        check_tiles(game)
        assert game.pop() == move and str(game) == before  # undo restores everything
        game.push(move)
    assert game.is_over(), "random play ends"  # BW-6.2, BW-8
    assert game.scores == recount(game)
    ns, ew = game.scores
    assert game.winners() == [0 if ns > ew else 1] and ns != ew
    replayed = type(game).from_json(game.to_json())
    assert replayed.moves == game.moves and str(replayed) == str(game)
