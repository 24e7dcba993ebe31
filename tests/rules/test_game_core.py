"""The framework every engine fits (rules/game.py, moves.py, outcome.py): the legal-move view,
move dispatch by type, shallow state copies, outcomes and resignations."""

import random

import pytest
from dominotable.rules.errors import SealedGame
from dominotable.rules.games.broadway.engine import Broadway
from dominotable.rules.games.castle_rock.engine import END, CastleRock
from dominotable.rules.games.castle_rock.solitaire import CastleRockSolitaire
from dominotable.rules.games.doubles_boneyard.engine import DoublesInTheBoneyard
from dominotable.rules.games.up_down_stop.engine import UpDownStop
from dominotable.rules.moves import PASS
from dominotable.rules.outcome import Outcome, Termination
from dominotable.rules.position import BadPosition
from dominotable.sim.bots.shared import play_out, random_bot

GAMES = [CastleRock, CastleRockSolitaire, Broadway, DoublesInTheBoneyard, UpDownStop]


@pytest.mark.parametrize("cls", GAMES)
def test_legal_moves_is_one_view_type(cls):
    game = cls(seed=1)
    moves = game.legal_moves()
    listed = list(moves)
    assert bool(moves) and moves.count() == len(listed) == len(moves.all())
    assert all(move in moves for move in listed)
    assert tuple(listed) == tuple(moves.all())


def test_legal_moves_of_a_finished_match_are_empty():
    game = play_out(CastleRockSolitaire(seed=2), [random_bot(__import__("random").Random(2))])
    moves = game.legal_moves()
    assert not moves and moves.count() == 0 and list(moves) == [] and moves.all() == ()


def test_a_move_of_another_game_is_refused_by_type():
    assert str(CastleRock(seed=0).why_illegal(PASS)) == "pass is not a Castle Rock move"
    assert PASS not in CastleRock(seed=0).legal_moves()
    assert str(UpDownStop(seed=0).why_illegal(END)) == "end is not an Up-Down-Stop move"


@pytest.mark.parametrize("cls", GAMES)
def test_push_copies_the_state_and_pop_restores_the_very_same_object(cls):
    game = cls(seed=3)
    before = game.state
    game.push(next(iter(game.legal_moves())))
    assert game.state is not before and type(game.state) is type(before)
    game.pop()
    assert game.state is before


@pytest.mark.parametrize("cls", GAMES)
def test_a_look_ahead_or_back_on_a_copy_leaves_the_game_as_it_was(cls):
    """`copy()`: whatever a copy pushes or pops, the game is as it was; a sealed (live) game
    refuses push and pop outside `changing()`, and its copies are not sealed."""
    game = cls(seed=3)
    bot = random_bot(random.Random(1))
    for _ in range(3):
        if not game.is_over():
            game.push(bot(game))
    state, moves, text = game.state, game.moves, game.to_json()
    ahead = game.copy()
    ahead.pop()
    while not ahead.is_over():
        ahead.push(bot(ahead))
    assert game.state is state and game.moves == moves and game.to_json() == text
    game.seal()
    with pytest.raises(SealedGame):
        game.pop()
    with pytest.raises(SealedGame):
        game.push(bot(game.copy()))
    assert game.state is state and game.moves == moves
    copy = game.copy()
    copy.pop()
    assert copy.moves == moves[:-1] and game.moves == moves
    with game.changing():
        game.pop()  # the committer's way: and it plays on as before
    assert game.moves == moves[:-1]
    with pytest.raises(SealedGame):
        game.pop()


def test_outcome_is_none_until_the_rules_end_the_match():
    import random
    game = CastleRock(players=2, seed=4, options={"hands": 1})
    assert game.outcome() is None
    play_out(game, [random_bot(random.Random(4))])
    assert game.outcome() == Outcome(Termination.PLAYED, tuple(game.winners()))


def test_resignation_gives_the_match_to_the_best_other_side():
    game = Broadway.from_position("scores: 7 3\nN: 6-6")
    assert game.resign(0) == Outcome(Termination.RESIGNED, (1,))  # North resigns: East-West win
    assert game.resign(1) == Outcome(Termination.RESIGNED, (0,))
    three = CastleRock.from_position("hand: 2\nrow: 1-2 3-4 5-6 0-0\nP1: 0-1\nP2: 0-3\nP3: 0-5\nscores: 10 40 40")
    assert three.resign(0).winners == (1, 2)  # a tie among the others: both win
    assert UpDownStop(seed=5).resign(0).winners == ()  # a solitaire resigned is lost


def test_termination_values_are_what_old_databases_store():
    assert [t.value for t in Termination] == ["played", "resigned", "abandoned"]
    assert Termination("resigned") is Termination.RESIGNED


def test_a_written_position_refuses_what_no_play_reaches():
    """rules/position.py: BadPosition names the problem; a good position round-trips through to_json."""
    with pytest.raises(BadPosition, match="3-4 is both in the row and in P2's hand"):
        CastleRock.from_position("row: 1-2 3-4\nP1: 0-1\nP2: 3-4")
    with pytest.raises(BadPosition, match="P1 holds 3 tiles; a hand holds at most two"):
        CastleRock.from_position("row: 1-2\nP1: 0-1 0-2 0-3\nP2: 3-4")
    with pytest.raises(BadPosition, match="hand 2 opens with 5-5 at the centre"):
        Broadway.from_position("hand: 2\nturn: N\nN: 5-1\ntableau:\n  6-6")
    with pytest.raises(BadPosition, match="unknown position line 'dealer'"):
        CastleRock.from_position("row: 1-2\nP1: 0-1\nP2: 3-4\ndealer: P2")
    game = CastleRock.from_position("row: 1-2 3-4\nP1: 0-1\nP2: 3-3", seed=4)
    game.push_notation("0-1")
    again = CastleRock.from_json(game.to_json())
    assert str(again) == str(game) and again.moves == game.moves
