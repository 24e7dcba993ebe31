"""The sample hand of the Broadway source text, replayed move by move.

The text gives the deal, every play in order, which plays score, and the hands and score
after each round; its figures (the positions) are missing. The positions below are
ours, built to agree with everything the text does fix:

- East leads 6-6 (lying north-south, BW-3.2); South's 6-3 matches one six; West's 3-3
  leaves a one-cell slot ("a", cell (1,0)) walled east and west, so only a north-south
  tile (East or West) fits it; North's 3-2 leaves it open.
- East's 5-3 in slot "a" touches two threes: 1 point. South's 6-0 scores nothing; West's
  5-2 builds on the two of North's 3-2; North's 2-0 touches South's zero and a two: 1 point.
- East's 2-1 on West's two makes a two-cell north-south slot at x=3; South's 5-1 extends
  from East's one; West's 4-2 drops into the slot touching two twos: 1 point; North's 4-1
  lies across the ends of East's 2-1 and West's 4-2: 1 point.
- East's 6-1 touches the adjacent ones of South's 5-1 and North's 4-1: 1 point, and the
  later scoring plays (South 4-3, East 5-4, 5-5, 0-0, North 4-4) each match two pairs.
- When North plays 6-5 his 4-4 could have scored, and when he plays 4-0 a scoring spot
  next to East's 5-4 is open, as the text says (it calls that tile West's: see the card's
  ambiguity 9).
"""

from dominotable.rules.games.broadway.engine import (
    Broadway,
    Place,
    axis_of,
    match_count,
    placements,
)
from dominotable.rules.games.broadway.grid import Grid
from dominotable.rules.tiles import DOUBLE_SIX, Tile

DEAL = {  # North, East, South, West
    0: "6-5 6-2 4-4 4-1 4-0 3-2 2-0",
    1: "6-6 6-1 5-5 5-4 5-3 2-1 0-0",
    2: "6-3 6-0 5-1 4-3 3-1 2-2 1-0",
    3: "6-4 5-2 5-0 4-2 3-3 3-0 1-1",
}

ROUNDS = [  # East, South, West, North; then the hands (N, E, S, W) and score (N-S, E-W) after it
    (["6-6@(0,0)-(0,1)", "6-3@(0,-1)-(1,-1)", "3-3@(2,-1)-(2,0)", "3-2@(2,1)-(3,1)"],
     ["6-5 6-2 4-4 4-1 4-0 2-0", "6-1 5-5 5-4 5-3 2-1 0-0",
      "6-0 5-1 4-3 3-1 2-2 1-0", "6-4 5-2 5-0 4-2 3-0 1-1"], (0, 0)),
    (["3-5@(1,0)-(1,1)", "6-0@(0,2)-(1,2)", "2-5@(4,1)-(4,2)", "0-2@(2,2)-(3,2)"],
     ["6-5 6-2 4-4 4-1 4-0", "6-1 5-5 5-4 2-1 0-0", "5-1 4-3 3-1 2-2 1-0", "6-4 5-0 4-2 3-0 1-1"], (1, 1)),
    (["2-1@(4,0)-(4,-1)", "1-5@(5,-1)-(6,-1)", "2-4@(3,0)-(3,-1)", "4-1@(3,-2)-(4,-2)"],
     ["6-5 6-2 4-4 4-0", "6-1 5-5 5-4 0-0", "4-3 3-1 2-2 1-0", "6-4 5-0 3-0 1-1"], (2, 2)),
    (["1-6@(5,-2)-(5,-3)", "3-4@(1,-2)-(2,-2)", "5-0@(6,-2)-(6,-3)", "6-5@(5,-4)-(4,-4)"],
     ["6-2 4-4 4-0", "5-5 5-4 0-0", "3-1 2-2 1-0", "6-4 3-0 1-1"], (3, 3)),
    (["5-4@(3,-4)-(3,-3)", "2-2@(2,3)-(3,3)", "6-4@(0,3)-(0,4)", "4-0@(0,5)-(-1,5)"],
     ["6-2 4-4", "5-5 0-0", "3-1 1-0", "3-0 1-1"], (3, 4)),
    (["5-5@(7,-2)-(7,-1)", "0-1@(-1,4)-(-2,4)", "0-3@(-1,6)-(-1,7)", "4-4@(1,-3)-(2,-3)"],
     ["6-2", "0-0", "3-1", "1-1"], (4, 5)),
    (["0-0@(-2,5)-(-2,6)", "1-3@(-3,4)-(-4,4)", "1-1@(-2,2)-(-2,3)", "6-2@(-1,0)-(-2,0)"],
     ["", "", "", ""], (4, 6)),
]

SCORING = set(DOUBLE_SIX.parse_many("5-3 2-0 4-2 4-1 6-1 4-3 5-4 5-5 4-4 0-0"))

FINAL = """
    top-left (-4,-4)
    . . . . . . . 5 5-6 . .
                  |
    . . . . . 4-4 4 . 6 0 .
                      | |
    . . . . . 3-4 4-1 1 5 5
                          |
    . . . . 6-3 3 4 1 1-5 5
                | | |
    . . 2-6 6 3 3 2 2 . . .
            | |
    . . . . 6 5 3-2 2 . . .
                    |
    . . 1 . 6-0 0-2 5 . . .
        |
    . . 1 . 6 . 2-2 . . . .
            |
    3-1 1-0 4 . . . . . . .

    . . 0 0-4 . . . . . . .
        |
    . . 0 0 . . . . . . . .
          |
    . . . 3 . . . . . . . .
    """


class SampleBroadway(Broadway):
    """The text's deal for the first hand; later hands are dealt as usual."""

    def deal(self, number):
        if number == 0:
            return tuple(tuple(sorted(DOUBLE_SIX.parse_many(DEAL[seat]))) for seat in range(4))
        return super().deal(number)


def hands_of(game):
    return [set(hand) for hand in game.hands()]


def scoring_spots(game, seat, tiles):
    grid = game.tableau().grid
    return [m for m in placements(grid, [DOUBLE_SIX.parse(t) for t in tiles], axis_of(seat))
            if match_count(grid, m) >= 2]


def test_sample_hand_round_by_round():
    """Rules BW-1.2 (E, S, W, N order), BW-2.3 (East leads 6-6), BW-4.3 and BW-5.1 (two
    matching pairs score 1), BW-6.2 (the hand ends with every tile down, no penalty)."""
    game = SampleBroadway()
    assert game.current_player == 1  # East holds the 6-6
    for r, (plays, hands, score) in enumerate(ROUNDS):
        for seat, text in zip((1, 2, 3, 0), plays):
            move = game.parse_move(text)
            assert game.current_player == seat, (r, text)
            if text.startswith("6-5"):
                assert scoring_spots(game, 0, ["4-4"]), "North overlooks a scoring 4-4"
            if text.startswith("4-0"):
                assert scoring_spots(game, 0, ["4-0", "4-4"]), "North could have scored"
            before = list(game.scores)
            game.push(move)
            gained = [after - b for after, b in zip(game.scores, before)]
            expected = 1 if move.tile in SCORING else 0
            assert gained[seat % 2] == expected and gained[1 - seat % 2] == 0, (r, text)
        if r < len(ROUNDS) - 1:
            assert hands_of(game) == [set(DOUBLE_SIX.parse_many(h)) for h in hands], f"hands after round {r + 1}"
        assert tuple(game.scores) == score, f"score after round {r + 1}"
    record = game.past_hands()[0]
    assert record.unplayed == ((), (), (), ())
    assert record.grid == Grid.parse(FINAL)
    assert game.hand_info().number == 1 and game.double_of(1) == Tile(5, 5)  # BW-2.1: next hand


def test_slot_a_takes_only_a_north_south_tile():
    """Rule BW-3.2: after round one, cell (1,0) is walled east and west, so a North-South
    player cannot cover it while East's 5-3 there touches two threes (BW-4.3)."""
    game = SampleBroadway()
    for text in ROUNDS[0][0]:
        game.push_notation(text)
    grid = game.tableau().grid
    assert (0, 0) in grid and (2, 0) in grid and (1, 0) not in grid
    assert match_count(grid, Place.of(3, 5, (1, 0), (1, 1))) == 2
    assert not any((1, 0) in m.cells for m in placements(grid, list(DOUBLE_SIX), axis_of(0)))
