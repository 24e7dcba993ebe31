"""The Castle Rock capture rules (CR-5.x) and the exact analysis, checked against brute force."""

import random

import pytest
from dominotable.rules.errors import (
    DominoError,
    DuplicateTile,
    IllegalMove,
    InvalidNotation,
)
from dominotable.rules.games.castle_rock.capture import (
    MIDDLE,
    TRIPLE,
    Capture,
    analyse,
    apply_capture,
    brute_force,
    check_capture,
    parse_capture,
    single_captures,
)
from dominotable.rules.tiles import DominoSet, Tile
from hypothesis import given, settings
from hypothesis import strategies as st

D6, D9 = DominoSet(6), DominoSet(9)
CR9_ROW = D6.parse_many("6-1 6-0 0-0 4-2 4-4 4-0 1-1 5-1") + [Tile(1, 4)]  # written high end first


def row(text, dset=D6):
    return dset.parse_many(text)


def replay(start, steps):
    """Apply captures one by one, checking each index names where its tile stands."""
    here = list(start)
    for step in steps:
        assert step.index < 0 or here[step.index] is step.tiles[0]
        here = apply_capture(here, step)
    return here


# -- single captures ------------------------------------------------------------------------

def test_six_six_example_leave_middle_or_all_three():
    """CR-5.1, CR-5.2, CR-5.4: 6-6 6-3 6-4 may stay, lose 6-3, or all go."""
    start = row("6-6 6-3 6-4")
    assert [str(c) for c in single_captures(start)] == ["x3-6", "x6-6+3-6+4-6"]
    assert apply_capture(start, parse_capture("x6-3", D6)) == row("6-6 6-4")
    assert apply_capture(start, parse_capture("x6-6+6-3+6-4", D6)) == []
    assert brute_force(start) == {tuple(start), tuple(row("6-6 6-4")), ()}


def test_middle_needs_shared_suit_of_neighbours_not_of_itself():
    """CR-5.1: 1-1 goes between 3-3 and 3-5; no triple since 1-1 lacks a 3."""
    start = row("3-3 1-1 3-5")
    assert single_captures(start) == [Capture(MIDDLE, 1, (Tile(1, 1),))]


def test_no_capture_below_three_tiles():
    """CR-5.5: two tiles sharing a suit still allow nothing."""
    assert single_captures(row("6-6 6-4")) == []
    with pytest.raises(IllegalMove, match="rule CR-5.5"):
        apply_capture(row("6-6 6-4"), parse_capture("x6-6", D6))


@pytest.mark.parametrize("text,capture,rule,tile,words", [
    ("6-6 3-6 4-6", "x2-2", "CR-5.1", "2-2", "not in the row"),
    ("6-6 3-6 4-6", "x6-6", "CR-5.1", "6-6", "end of the row"),
    ("0-0 2-4 4-4", "x2-4", "CR-5.1", "2-4", "0-0 and 4-4 share no suit"),
    ("6-6 3-6 4-6 1-1", "x6-6+4-6+1-1", "CR-5.2", "6-6", "not three adjacent"),
    ("0-6 0-0 2-4 4-4", "x0-0+2-4+4-4", "CR-5.2", "0-0", "do not all share one suit"),
    ("3-3 1-1 3-5", "x3-3+1-1+3-5", "CR-5.2", "3-3", "do not all share one suit"),
])
def test_unavailable_capture_names_rule_and_tile(text, capture, rule, tile, words):
    start = row(text)
    with pytest.raises(IllegalMove, match=words) as caught:
        apply_capture(start, parse_capture(capture, D6))
    assert caught.value.rule == rule and str(caught.value.tile) == tile
    assert str(caught.value).startswith(f"rule {rule}: ")


def test_capture_notation_round_trips():
    start = CR9_ROW
    for capture in single_captures(start):
        parsed = parse_capture(str(capture), D6)
        assert parsed == capture and parsed.kind == capture.kind
    assert parse_capture("X2-4+4-4+0-4", D6).kind == TRIPLE
    for bad in ("x", "x2-4+4-4", "x2-4++0-4", "x9-9"):
        with pytest.raises(InvalidNotation):
            parse_capture(bad, D6)


# -- the worked example (CR-9) --------------------------------------------------------------

def test_worked_example_plays_and_the_exact_best():
    """CR-9 (rule CR-5.3): the seed's plays take 3 and 6 tiles; JM's triple-then-three matches
    the 'better play'; but the exact analysis finds a way to clear all nine."""
    immediate = replay(CR9_ROW, [parse_capture("x1-1+1-5+1-4", D6)])
    better = replay(CR9_ROW, [parse_capture(c, D6) for c in ("x1-5", "x1-1", "x0-4", "x2-4+4-4+1-4")])
    editor = replay(CR9_ROW, [parse_capture(c, D6) for c in ("x2-4+4-4+0-4", "x1-1+1-5+1-4")])
    assert len(CR9_ROW) - len(immediate) == 3
    assert better == editor == row("1-6 0-6 0-0")

    analysis = analyse(CR9_ROW)
    plan = analysis.best()
    assert analysis.clearable and plan.max_captured == 9 > len(CR9_ROW) - len(better)
    assert replay(CR9_ROW, plan.steps) == plan.remaining == []
    assert () in brute_force(CR9_ROW)
    # The seed's better play ends where the editor's shortcut does, and both are legal ends.
    assert analysis.reachable(better)[0] and analysis.reachable(immediate)[0]


# -- check_capture reasons ------------------------------------------------------------------

def test_reason_names_the_gap_and_pinchers():
    """CR-5.1: 2-4 between 0-0 and 4-4 cannot go; the reason says why."""
    verdict = check_capture(CR9_ROW, row("1-6 0-6 0-0 4-4 1-4"))
    assert not verdict.legal
    assert verdict.reason.startswith("2-4 between 0-0 and 4-4 cannot be captured: 0-0 and 4-4 share no suit")


def test_reason_for_a_longer_gap_gives_the_most_possible():
    """CR-5.3: of 0-6 0-0 2-4 4-4 between 1-6 and 0-4 at most three can go while those stay."""
    verdict = check_capture(CR9_ROW, row("1-6 0-4 1-1 1-5 1-4"))
    assert not verdict.legal
    assert verdict.reason == ("0-6 0-0 2-4 4-4 between 1-6 and 0-4 cannot all be captured: while those"
                              " two stay at most 3 of the 4 can be (e.g. x4-4 x2-4 x0-0, leaving 0-6)")
    verdict = check_capture(row("1-2 3-4 5-6 0-0"), row("1-2"))
    assert "none of them can be captured" in verdict.reason


def test_reason_at_the_end_of_the_row():
    """CR-5.1: an end tile has one neighbour."""
    verdict = check_capture(row("6-6 6-3 6-4"), row("6-3 6-4"))
    assert not verdict.legal and "6-6 between the start of the row and 3-6" in verdict.reason


def test_legal_answer_gives_a_replayable_order():
    analysis = analyse(CR9_ROW)
    after = row("1-6 0-6 0-0 1-4")
    legal, reason = analysis.reachable(after)
    steps = analysis.captures_to(after)
    assert legal and reason == "reached by " + " ".join(map(str, steps))
    assert replay(CR9_ROW, steps) == after
    assert check_capture(CR9_ROW, CR9_ROW).legal
    with pytest.raises(IllegalMove, match="rule CR-5.3: 2-4 between"):
        analysis.captures_to(row("1-6 0-6 0-0 4-4 1-4"))


@pytest.mark.parametrize("after,words", [
    ("1-6 0-6 5-5", "tile 5-5 is in the row after but not in the row before"),
    ("0-6 1-6", "tile 1-6 is out of place: before the captures it came before 0-6"),
    ("0-6 0-6", "tile 0-6 appears twice"),
])
def test_after_must_be_the_row_with_tiles_taken_out(after, words):
    with pytest.raises(DominoError, match=words):
        check_capture(CR9_ROW, D6.parse_many(after, unique=False))


def test_duplicate_tiles_in_row_are_refused():
    with pytest.raises(DuplicateTile, match="1-1"):
        analyse([Tile(1, 1), Tile(1, 2), Tile(1, 1)])


# -- exactness against brute force ----------------------------------------------------------

RICH = [Tile(a, b) for b in range(5) for a in range(b + 1)]  # few suits: many chained captures


def assert_matches_brute_force(start, rng):
    """(a), (b) and (c) of the analysis against every order of captures (rules CR-5.1 to CR-5.4)."""
    ends = brute_force(start)
    analysis = analyse(start)
    assert analysis.clearable == (() in ends)
    plan = analysis.best()
    assert plan.max_captured == len(start) - min(map(len, ends))
    assert replay(start, plan.steps) == plan.remaining
    assert len(start) - len(plan.remaining) == plan.max_captured
    for end in ends:
        assert analysis.reachable(end)[0]
    for _ in range(25):
        after = tuple(t for t in start if rng.random() < 0.5)
        legal, reason = analysis.reachable(after)
        assert legal == (after in ends), reason


@settings(max_examples=120, deadline=None)
@given(pool=st.sampled_from([RICH, D6.tiles, D9.tiles]), data=st.data())
def test_analysis_equals_brute_force(pool, data):
    start = data.draw(st.permutations(pool).map(lambda p: p[:12]))[:data.draw(st.integers(0, 12))]
    assert_matches_brute_force(start, random.Random(len(start)))


def test_analysis_equals_brute_force_on_seeded_rows():
    rng = random.Random(2026)
    for _ in range(150):
        pool = rng.choice([RICH, D6.tiles, D6.tiles, D9.tiles])
        assert_matches_brute_force(rng.sample(pool, rng.randint(3, 11)), rng)


def test_full_sets_analyse_and_plans_replay():
    """Whole-set rows: no brute force possible, but the plan must replay to its claim."""
    rng = random.Random(7)
    for top in (6, 9, 12):
        start = list(DominoSet(top).tiles)
        rng.shuffle(start)
        plan = analyse(start).best()
        assert replay(start, plan.steps) == plan.remaining
        assert len(start) - len(plan.remaining) == plan.max_captured
