"""Up-Down-Stop; rule numbers refer to seeds/up-down-stop.md."""

import random
from collections import Counter

import pytest
from dominotable.games import catalog
from dominotable.rules.errors import IllegalMove, InvalidNotation
from dominotable.rules.games.up_down_stop.engine import (
    DOWN,
    UP,
    UpDownStop,
)
from dominotable.rules.line import LEFT, RIGHT
from dominotable.rules.tiles import DOUBLE_SIX
from dominotable.sim.bots.shared import play_out, random_bot
from dominotable.sim.bots.up_down_stop import lookahead_bot
from hypothesis import given, settings
from hypothesis import strategies as st


def T(text):
    return DOUBLE_SIX.parse(text)


def stacked(order, **options):
    """A game whose draw pile yields `order` first (then the other tiles), drawn the normal way."""
    return UpDownStop.from_position(f"draw: {order}", options=options, seed=5)


def legal(game):
    return {str(m) for m in game.legal_moves()}


EXAMPLE = "2-5 1-5 1-3 3-6 2-4 0-2 4-4 0-4 6-6 3-5 1-6 0-6"


def test_example_game():
    """The source's twelve-step example; tiles other than 6-3, 4-4, 6-6 are our construction
    (see the rule card), each chosen so that the step's stated reason holds.
    rules UDS-2.1, UDS-3.1 to UDS-3.8, UDS-4.1 to UDS-4.3, UDS-5.1."""
    game = stacked(EXAMPLE)
    # 1: the first tile starts a column
    assert legal(game) == {"2-5 new"}
    game.push_notation("new")
    # 2: 1-5 could start column 2 but goes on column 1 building down from 2 (UDS-3.3, 3.8)
    assert legal(game) == {"1-5 new", "1-5 c1-1"}
    game.push_notation("c1-1")
    assert game.columns()[0].line.open_ends() == [(LEFT, (1, DOWN))]
    # 3: 1-3 cannot follow 1 going down (needs 0), so it can only start column 2
    assert legal(game) == {"1-3 new"}
    game.push_notation("new")
    # 4: 6-3 goes nowhere: column 1 needs a 0, column 2 (1|3) a 0, 2 or 4; no place free (UDS-3.7)
    assert legal(game) == {"3-6 scrap"}
    game.push_notation("scrap")
    # 5: 2-4 builds on column 2 either way; up (from 3 to 4) is chosen
    assert legal(game) == {"2-4 c2+4", "2-4 c2-2", "2-4 c2+2"}
    game.push_notation("2-4 c2+4")
    assert game.columns()[1].line.open_ends() == [(RIGHT, (4, UP))]
    # 6: a blank follows a 1 going down
    assert legal(game) == {"0-2 c1-0"}
    game.push_notation("c1-0")
    # 7: 4-4 must stop column 2, whose top is 4 (UDS-4.1)
    assert legal(game) == {"4-4 stop c2"}
    game.push_notation("stop")
    assert game.columns()[1].stopper == T("4-4")
    # 8: a stop frees a place (UDS-4.3); 0-4 cannot follow 0 going down, so it starts a column
    assert legal(game) == {"0-4 new"}
    game.push_notation("new")
    # 9: tops are 0, and 0 and 4: 6-6 stops nothing and is discarded (UDS-4.2)
    assert legal(game) == {"6-6 discard"}
    game.push_notation("discard")
    # 10, 11: build column 3 up: 4, 5, 6
    game.push_notation("3-5 c3+5")
    game.push_notation("1-6 c3+6")
    # 12: 0-6 fits both: 6 follows 0 going down (c1), 0 follows 6 going up (c3) (UDS-2.1)
    assert legal(game) == {"0-6 c1-6", "0-6 c3+0"}
    game.push_notation("c3+0")
    assert game.piles().scrap == (T("3-6"),) and game.piles().discarded == (T("6-6"),)
    assert game.scores == [21 - 9]
    assert "c2  1|3 4(2)  stopped by 4-4" in str(game)


def example_after(steps):
    game = stacked(EXAMPLE)
    for text in ["new", "c1-1", "new", "scrap", "c2+4", "c1-0", "stop", "new", "discard", "c3+5"][:steps]:
        game.push_notation(text)
    return game


@pytest.mark.parametrize("steps,text,message", [
    (3, "new", r"rule UDS-3.1: 3-6 cannot start a column: c1 and c2 are open, at most 2"),
    (2, "scrap", r"rule UDS-3.7: 1-3 can be played \(1-3 new\); only an unplayable tile is scrapped"),
    (3, "3-6 c1-0", r"rule UDS-3.4: 3-6 has no 0"),
    (3, "c2+3", r"rule UDS-3.4: 3-6 cannot go on c2 as 3 going up: c2 shows 1 either way; 3 either way"),
    (3, "c4+1", r"rule UDS-3.6: there is no column c4 for 3-6"),
    (3, "5-5 scrap", r"rule UDS-1.2: the drawn tile is 3-6, not 5-5"),
    (4, "c1-0", r"rule UDS-3.4: 2-4 has no 0"),
    (5, "c1-1", r"rule UDS-3.4: 0-2 has no 1"),
    (5, "c2+5", r"rule UDS-3.4: 0-2 has no 5"),
    (6, "discard", r"rule UDS-4.1: 4-4 must stop c2, whose top is 4"),
    (6, "stop c1", r"rule UDS-4.1: 4-4 cannot stop c1: tops of open columns are 0 on c1, 4 on c2"),
    (6, "c1+4", r"rule UDS-4.2: 4-4 is a double: it stops a column or is discarded"),
    (8, "stop", r"rule UDS-4.1: 6-6 cannot stop a column: tops are 0 on c1, 0 and 4 on c3"),
    (8, "scrap", r"rule UDS-4.2: 6-6 is a double"),
    (9, "discard", r"rule UDS-4.2: 3-5 is not a double; only doubles are discarded"),
    (9, "stop c3", r"rule UDS-4.1: 3-5 is not a double; only doubles stop columns"),
    (9, "c2+5", r"rule UDS-4.1: c2 was stopped by 4-4; 3-5 cannot go on it"),
    (9, "c3-5", r"rule UDS-3.4: 3-5 cannot go on c3 as 5 going down: c3 shows 0 either way; 4 either way"),
    (10, "c3-6", r"rule UDS-3.4: 1-6 cannot go on c3 as 6 going down: c3 shows right end 5 up"),
])
def test_illegal_moves_name_rule_and_tile_and_change_nothing(steps, text, message):
    """rules UDS-1.2, 3.1, 3.4, 3.6, 3.7, 4.1, 4.2."""
    game = example_after(steps)
    before = (str(game), game.position().draw, len(game.moves))
    with pytest.raises(IllegalMove, match=message) as info:
        game.push_notation(text)
    assert info.value.tile is not None and info.value.rule.startswith("UDS-")
    assert (str(game), game.position().draw, len(game.moves)) == before


def test_bad_notation_names_the_move():
    game = stacked(EXAMPLE)
    with pytest.raises(InvalidNotation, match="'2-5 sideways' is not an Up-Down-Stop move"):
        game.parse_move("2-5 sideways")
    with pytest.raises(InvalidNotation, match="tile 2-7 is not in the double-six set"):
        game.parse_move("2-7 new")


def test_cycle_wraps_both_ways():
    """rule UDS-2.1: 0 follows 6 going up, 6 follows 0 going down."""
    game = stacked("0-6 0-3 5-6")
    game.push_notation("new")
    game.push_notation("new")
    # 5-6 on c1 (0|6): 6 down from 0, 5 down from 6; on c2 (0|3): 6 down from 0
    assert legal(game) == {"5-6 c1-6", "5-6 c1-5", "5-6 c2-6"}


def test_one_tile_column_can_be_stopped_by_either_number():
    """rules UDS-3.5, UDS-4.1: both numbers of a lone first tile are tops; two fits -> choose."""
    game = stacked("2-5 3-5 5-5")
    game.push_notation("new")
    game.push_notation("new")
    assert legal(game) == {"5-5 stop c1", "5-5 stop c2"}
    with pytest.raises(IllegalMove, match=r"rule UDS-4.1: 5-5 can stop more than one column; write stop c1 or stop c2"):
        game.push_notation("stop")
    game.push_notation("stop c2")
    assert game.columns()[1].stopper == T("5-5") and game.columns()[1].line.open_ends() == []


def test_second_tile_closes_the_other_number():
    """rule UDS-3.3: once built on 2 going up, the first tile's 5 is dead."""
    game = stacked("2-5 3-4 4-6")
    game.push_notation("new")
    game.push_notation("c1+3")
    assert game.columns()[0].line.open_ends() == [(LEFT, (3, UP))]
    assert legal(game) == {"4-6 new", "4-6 c1+4"}  # 4-6 would have followed 5 down; no longer


def test_both_ways_variant():
    """rule UDS-7.3: both numbers of the first tile stay open; ends named when both fit."""
    game = stacked("2-5 3-4 4-6 1-3 0-2 5-5", both_ways=True, columns=1)
    game.push_notation("new")
    game.push_notation("c1+3")  # left end: 2 -> 3 up
    assert game.columns()[0].line.open_ends() == [(LEFT, (3, UP)), (RIGHT, (5, 0))]
    # 4-6: 4 up from 3 (left) or 4 down from 5 (right) or 6 up from 5 (right)
    assert legal(game) == {"4-6 c1+4", "4-6 c1-4", "4-6 c1+6"}
    game.push_notation("c1-4")  # right end now 4 going down
    # 1-3: 3 follows 4 going down (right); nothing follows 3 up on the left with a 1 or 3
    assert legal(game) == {"1-3 c1-3"}
    game.push_notation("c1-3")
    assert [v for _, v in game.columns()[0].line.open_ends()] == [(3, UP), (3, DOWN)]
    # 0-2: 2 follows 3 going down (right end) only
    game.push_notation("c1-2")
    # 5-5 matches neither end (3 up, 2 down): discarded; the column shows both ends
    assert legal(game) == {"5-5 discard"}
    assert "3 up (left), 2 down (right)" in str(game)


def test_both_ways_ambiguous_end_must_be_named():
    """rules UDS-3.6, UDS-7.3: both ends at 3 going up -> `@left` / `@right`."""
    game = stacked("2-6 3-4 0-6 0-1 1-2 2-3 4-5", both_ways=True, columns=1)
    for text in ["new", "c1+3", "c1+0", "c1+1", "c1+2", "c1+3"]:
        game.push_notation(text)
    assert [v for _, v in game.columns()[0].line.open_ends()] == [(3, UP), (3, UP)]
    assert legal(game) == {"4-5 c1+4@left", "4-5 c1+4@right"}
    with pytest.raises(IllegalMove, match=r"rule UDS-3.6: 4-5 fits both ends of c1; add @left or @right"):
        game.push_notation("c1+4")
    game.push_notation("4-5 c1+4@right")
    assert [v for _, v in game.columns()[0].line.open_ends()] == [(3, UP), (4, UP)]


def test_column_limit_option():
    """rules UDS-3.1, UDS-7.1."""
    one = stacked("2-5 0-2", columns=1)
    one.push_notation("new")
    assert legal(one) == {"0-2 scrap"}
    three = stacked("2-5 0-3 4-6 1-1", columns=3)
    for _ in range(3):
        three.push_notation("new")
    assert len(three.rules.open_columns(three.position())) == 3
    assert legal(three) == {"1-1 discard"}


def test_free_scrap_option():
    """rule UDS-7.4: a playable tile may be scrapped only with free_scrap."""
    assert "1-5 scrap" not in legal(example_after(1))
    game = stacked(EXAMPLE, free_scrap=True)
    game.push_notation("new")
    assert legal(game) == {"1-5 new", "1-5 c1-1", "1-5 scrap"}


def test_reshuffle_once_then_score():
    """rules UDS-5.2, UDS-5.3, UDS-6.1: the scrap pile comes back once, then the game ends."""
    game = UpDownStop(seed=2)
    reshuffled = 0
    while not game.is_over():
        scrap, drawn, count = set(game.piles().scrap), game.drawn(), game.piles().reshuffles
        move = next(iter(game.legal_moves()))
        game.push(move)
        if game.piles().reshuffles > count:
            reshuffled += 1
            pool = set(game.position().draw) | {game.drawn()}
            assert pool == scrap | ({drawn} if str(move).endswith("scrap") else set())
            assert game.piles().scrap == ()
    assert reshuffled == 1
    assert game.final_score() == len(game.piles().scrap) > 0


@pytest.mark.parametrize("reshuffles", [0, 3])
def test_reshuffle_count_option(reshuffles):
    """rule UDS-7.2."""
    game = UpDownStop(seed=4, options={"reshuffles": reshuffles})
    play_out(game, [random_bot(random.Random(0))])
    assert game.piles().reshuffles <= reshuffles
    assert game.piles().reshuffles == reshuffles or not game.piles().scrap


def test_reshuffle_is_seeded():
    """rule UDS-5.2: the same seed and moves give the same reshuffled order."""
    a, b = UpDownStop(seed=9), UpDownStop(seed=9)
    play_out(a, [random_bot(random.Random(3))])
    for move in a.moves:
        b.push(move)
    assert str(a) == str(b)


def test_json_replay_is_exact():
    game = UpDownStop(seed=13, options={"both_ways": True, "columns": 3})
    play_out(game, [random_bot(random.Random(2))])
    again = type(game).from_json(game.to_json())
    assert again.moves == game.moves and str(again) == str(game)
    assert again.final_score() == game.final_score()


def test_lookahead_ignores_the_draw_order():
    """The look-ahead player knows which tiles are unseen, not their order: permuting the
    draw pile never changes its choice."""
    for seed in range(4):
        game = UpDownStop(seed=seed)
        for _ in range(12):
            game.push(random.Random(seed).choice(list(game.legal_moves())))
        if game.is_over():
            continue
        drawn = [move.tile for move in game.moves] + [game.drawn()]
        order = [t for t in game.dset.tiles if t not in drawn]
        random.Random(1).shuffle(order)  # the same game, its draw pile in another order
        shuffled = UpDownStop.from_position("draw: " + " ".join(map(str, drawn + order)), seed=seed)
        for move in game.moves:
            shuffled.push(move)
        assert str(shuffled) == str(game)
        # a generous budget so that both searches reach the same depth
        choose = [lookahead_bot(random.Random(0), depth=2, budget=10**6) for _ in range(2)]
        assert choose[0](game) == choose[1](shuffled)


def test_strategies_rank():
    """lookahead and greedy are registered, and lookahead scores no worse than random on average."""
    names = catalog.spec(UpDownStop).strategies
    assert {"random", "greedy", "lookahead"} <= set(names)
    totals = Counter()
    for seed in range(12):
        for name in ("random", "lookahead"):
            game = UpDownStop(seed=seed)
            play_out(game, [names[name](random.Random(seed), **({"depth": 1} if name == "lookahead" else {}))])
            totals[name] += game.final_score()
    assert totals["lookahead"] <= totals["random"]


def check_tiles(game):
    """Every tile in exactly one place (UDS-1.3); column numbers step round the cycle (UDS-3.4)."""
    s = game.position()
    places = list(s.draw) + ([s.drawn] if s.drawn else []) + list(s.scrap) + list(s.discarded)
    for column in s.columns:
        places += column.line.tiles() + ([column.stopper] if column.stopper else [])
        for side in column.line.sides:
            for (tile, (active, direction)), nxt in zip(side, side[1:]):
                assert nxt[1] == ((active + direction) % (game.dset.top + 1), direction) and tile.has(active)
    assert Counter(places) == Counter(game.dset.tiles)
    assert not any(t.is_double for t in s.scrap) and all(t.is_double for t in s.discarded)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), rng=st.randoms(use_true_random=False),
       columns=st.sampled_from([1, 2, 3]), reshuffles=st.integers(0, 3), both_ways=st.booleans(),
       free_scrap=st.booleans(), top=st.sampled_from([6, 6, 6, 9, 12]))
def test_random_play_properties(seed, rng, columns, reshuffles, both_ways, free_scrap, top):
    """Tiles conserved, random legal play ends, score matches a recount (UDS-1.1, 6.1, 6.2)."""
    game = UpDownStop(seed=seed, options={"columns": columns, "reshuffles": reshuffles,
                                          "both_ways": both_ways, "free_scrap": free_scrap, "set": top})
    non_doubles = sum(1 for t in game.dset if not t.is_double)
    for _ in range(len(game.dset) + non_doubles * reshuffles + 1):
        check_tiles(game)
        if game.is_over():
            break
        game.push(rng.choice(list(game.legal_moves())))
    assert game.is_over()
    in_columns = sum(len(c.line) for c in game.columns())
    assert game.final_score() == non_doubles - in_columns == len(game.piles().scrap)
    assert game.winners() == ([0] if game.final_score() == 0 else [])


def test_uds4_2_a_double_drawn_first_is_discarded_not_a_column():
    """rules UDS-3.1, UDS-4.2 (ambiguity 11): with no column to stop, a first double is discarded."""
    game = stacked("3-3 1-2")
    assert [str(m) for m in game.legal_moves()] == ["3-3 discard"]
    assert "rule UDS-4.2" in str(game.why_illegal(game.parse_move("new")))
    game.push_notation("discard")
    assert [str(m) for m in game.legal_moves()] == ["1-2 new"]
