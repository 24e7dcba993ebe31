"""Castle Rock Solitaire: rules of seeds/castle-rock-solitaire.md, and the solver's claims."""

import random

import pytest
from dominotable.rules.errors import IllegalMove
from dominotable.rules.games.castle_rock.capture import (
    analyse,
    single_captures,
    squeeze,
)
from dominotable.rules.games.castle_rock.engine import DRAW
from dominotable.rules.games.castle_rock.solitaire import (
    CastleRockSolitaire,
    can_win,
)
from dominotable.rules.tiles import DOUBLE_SIX
from dominotable.sim.bots.castle_rock import solver_bot
from dominotable.sim.bots.shared import play_out, random_bot
from hypothesis import given, settings
from hypothesis import strategies as st
from support.castle_rock_helpers import check_caps, fields

T = DOUBLE_SIX.parse
ROW = DOUBLE_SIX.parse_many
RULES = [(d, w) for d in ("any-time", "when-blocked") for w in ("all-captured", "tableau-empty")]


def dealt(order, draw="any-time", win="all-captured"):
    """A solitaire whose tiles come out in `order` (a small deck, as a later observed mode would)."""
    order = tuple(ROW(order)) if isinstance(order, str) else tuple(order)

    class Dealt(CastleRockSolitaire):
        def _shuffled(self, label):
            return order

    return Dealt(options={"draw": draw, "win": win})


def test_crs2_deal():
    """rule CRS-1.1, CRS-2.1: one player, a row of three, the rest in the boneyard."""
    game = CastleRockSolitaire(seed=4)
    assert game.players == 1 and game.current_player == 0
    assert len(game.row()) == 3 and game.boneyard() == 25
    assert sorted(game.row() + game.deck().rest) == sorted(DOUBLE_SIX.tiles)


def test_crs4_draw_goes_to_right_end():
    """rule CRS-4.1, CRS-4.2: a draw adds the next boneyard tile at the right end, even with captures."""
    game = dealt("3-3 1-1 3-5 2-6 0-0")
    assert {str(m) for m in game.legal_moves()} == {"x1-1", "draw"}
    game.push_notation("draw")
    assert game.row() == tuple(ROW("3-3 1-1 3-5 2-6"))


def test_crs4_2_when_blocked_draw_refused_while_a_capture_exists():
    """rule CRS-4.2: under draw=when-blocked a draw waits until no capture is left."""
    game = dealt("3-3 1-1 3-5 2-6 0-0", draw="when-blocked")
    assert "draw" not in {str(m) for m in game.legal_moves()}
    before = fields(game)
    with pytest.raises(IllegalMove, match="rule CRS-4.2: .*x1-1 is available") as err:
        game.push(DRAW)
    assert err.value.tile == T("1-1") and fields(game) == before


def test_crs4_no_placing_and_no_draw_from_empty_boneyard():
    """rule CRS-4.1: tiles come only from the boneyard, and only while it lasts."""
    game = dealt("3-3 1-1 3-5 2-6")
    with pytest.raises(IllegalMove, match="rule CRS-4.1: .*2-6 cannot be placed"):
        game.push_notation("2-6")
    game.push_notation("draw")
    with pytest.raises(IllegalMove, match="rule CRS-4.1: the boneyard is empty"):
        game.push(DRAW)


def test_crs3_captures_are_castle_rocks():
    """rule CRS-3.1 (CR-5.1, CR-5.2, CR-5.5): the seed's 3-3 1-1 3-5 and 3-3 1-3 3-5 examples."""
    game = dealt("3-3 1-1 3-5 0-0")
    with pytest.raises(IllegalMove, match="rule CR-5.2"):
        game.push_notation("x3-3+1-1+3-5")
    game.push_notation("x1-1")
    assert game.row() == tuple(ROW("3-3 3-5"))
    with pytest.raises(IllegalMove, match="rule CR-5.5"):
        game.push_notation("x3-3")
    game = dealt("3-3 1-3 3-5 0-0")
    game.push_notation("x3-3+1-3+3-5")
    assert game.row() == () and game.scores == [3]


def test_crs5_all_captured_needs_empty_boneyard():
    """rule CRS-5.1: an empty row with tiles still in the boneyard is not yet a win."""
    game = dealt("3-3 1-3 3-5 0-0 0-1 0-2")
    game.push_notation("x3-3+1-3+3-5")
    assert not game.is_over() and [str(m) for m in game.legal_moves()] == ["draw"]
    for _ in range(3):
        game.push(DRAW)
    game.push_notation("x0-0+0-1+0-2")
    assert game.is_over() and game.winners() == [0] and game.current_player is None


def test_crs5_1_tableau_empty_wins_at_once():
    """rule CRS-5.2: with win=tableau-empty, emptying the row wins though the boneyard is not empty."""
    game = dealt("3-3 1-3 3-5 0-0 0-1 0-2", win="tableau-empty")
    game.push_notation("x3-3+1-3+3-5")
    assert game.is_over() and game.winners() == [0] and game.boneyard() == 3


def test_crs6_lost_when_boneyard_empty_and_no_capture():
    """rule CRS-6.1: boneyard empty and no capture left: lost."""
    game = dealt("1-2 3-4 5-6 0-0")
    game.push(DRAW)
    assert game.is_over() and game.winners() == [] and list(game.legal_moves()) == []


EXAMPLE = "6-1 6-0 0-0 4-2 4-4 4-0 1-1 5-1 4-1"  # CR-9 and the drawn 1-4


def test_crs7_worked_example():
    """rule CRS-7 (CR-9): the row of eight and the drawn 1-4; the seed's play leaves three tiles,
    the whole row can be cleared."""
    game = dealt(EXAMPLE)
    for _ in range(6):
        game.push(DRAW)
    for play in ["x1-5", "x1-1", "x0-4", "x2-4+4-4+1-4"]:
        game.push_notation(play)
    assert game.row() == tuple(ROW("1-6 0-6 0-0")) and game.is_over() and game.winners() == []
    game = dealt(EXAMPLE)
    chooser = solver_bot(random.Random(0))
    play_out(game, [chooser])
    assert game.winners() == [0] and game.scores == [9]


# -- the solver's claims, against exhaustive search on small decks ---------------------------------------

def test_captures_never_depend_on_tiles_to_the_right():
    """Every capture of a row is still a capture after tiles are appended, with the same result."""
    rng = random.Random(7)
    for _ in range(300):
        tiles = rng.sample(DOUBLE_SIX.tiles, 9)
        row, extra = tuple(tiles[:6]), tuple(tiles[6:])
        while True:
            here = single_captures(row)
            longer = single_captures(row + extra)
            assert set(here) <= set(longer)
            if not here:
                break
            capture = rng.choice(here)
            assert squeeze(row, capture) + extra == squeeze(row + extra, capture)
            row = squeeze(row, capture)


def small_decks(count, size, seed):
    rng = random.Random(seed)
    return [tuple(rng.sample(DOUBLE_SIX.tiles, size)) for _ in range(count)]


def test_any_time_all_captured_is_whole_deal_clearable():
    """Draw any time + win all-captured: a win exists iff the whole deal, laid out, clears."""
    for deck in small_decks(150, 9, 1):
        expected = analyse(deck).clearable
        assert can_win(deck, deck[:3], 3, "any-time", "all-captured") == expected


def test_any_time_tableau_empty_is_some_prefix_clearable():
    """Draw any time + win tableau-empty: a win exists iff some prefix of the deal (3 + k) clears."""
    for deck in small_decks(150, 9, 2):
        expected = any(analyse(deck[:k]).clearable for k in range(3, len(deck) + 1))
        assert can_win(deck, deck[:3], 3, "any-time", "tableau-empty") == expected


@pytest.mark.parametrize("draw,win", RULES)
def test_solver_against_exhaustive_search(draw, win):
    """Draw any time: the solver, blind to the boneyard, wins exactly when a win exists.
    Draw when blocked: the clairvoyant wins exactly when a win exists, the solver never more."""
    for deck in small_decks(60, 10, 3):
        best = can_win(deck, deck[:3], 3, draw, win)
        results = {}
        for clairvoyant in (False, True):
            game = dealt(deck, draw, win)
            play_out(game, [solver_bot(random.Random(0), clairvoyant=clairvoyant)])
            results[clairvoyant] = game.winners() == [0]
        assert results[True] == best
        assert results[False] <= best
        if draw == "any-time":
            assert results[False] == best


def test_when_blocked_strategy_matters():
    """Some deal is won under draw=when-blocked only by choosing captures with foresight."""
    found = False
    for deck in small_decks(300, 10, 4):
        game = dealt(deck, "when-blocked")
        play_out(game, [solver_bot(random.Random(0))])
        if game.winners() == [] and can_win(deck, deck[:3], 3, "when-blocked", "all-captured"):
            found = True
            break
    assert found


# -- framework ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("draw,win", RULES)
def test_json_round_trip_and_pop(draw, win):
    game = CastleRockSolitaire(seed=5, options={"draw": draw, "win": win})
    bot = random_bot(random.Random(5))
    states = []
    while not game.is_over():
        states.append(fields(game))
        game.push(bot(game))
    copy = type(game).from_json(game.to_json())
    assert fields(copy) == fields(game) and str(copy) == str(game)
    for before in reversed(states):
        game.pop()
        assert fields(game) == before


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), rules=st.sampled_from(RULES), top=st.sampled_from([6, 9]),
       strategy=st.sampled_from(["random", "solver"]))
def test_random_play_properties(seed, rules, top, strategy):
    """No tile in two places, counts conserved, play terminates, the result matches the rules."""
    draw, win = rules
    game = CastleRockSolitaire(seed=seed, options={"draw": draw, "win": win, "set": top})
    bot = (random_bot if strategy == "random" else solver_bot)(random.Random(seed))
    n = len(game.dset)
    for _ in range(1000):
        if game.is_over():
            break
        game.push(bot(game))
        check_caps(game)
        present = game.row() + game.deck().rest
        assert len(set(present)) == len(present) == n - game.scores[0]
    assert game.is_over()
    if game.winners():
        assert game.row() == () and (win == "tableau-empty" or game.boneyard() == 0)
    else:
        assert game.boneyard() == 0 and not single_captures(game.row()) and game.row()


def test_str_picture():
    game = CastleRockSolitaire(seed=1)
    assert "boneyard 25, captured 0" in str(game) and "draw any-time, win all-captured" in str(game)
