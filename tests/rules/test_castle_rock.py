"""Castle Rock engine: rules of seeds/castle-rock.md, cited by number."""

import random
import re

import pytest
from dominotable.rules.errors import (
    BadOption,
    DominoError,
    IllegalMove,
    InvalidNotation,
)
from dominotable.rules.games.castle_rock.capture import analyse
from dominotable.rules.games.castle_rock.engine import (
    END,
    CastleRock,
    rank,
    starting_row,
)
from dominotable.rules.tiles import DOUBLE_SIX
from dominotable.sim.bots.shared import greedy_bot, random_bot
from hypothesis import given, settings
from hypothesis import strategies as st
from support.castle_rock_helpers import check_caps, fields

T = DOUBLE_SIX.parse
ROW = DOUBLE_SIX.parse_many


def rigged(row, hands, **options):
    """A game whose current hand has this row and these hands, P1 to move, from its written position."""
    lines = [f"row: {row}"] + [f"P{seat + 1}: {hand}" for seat, hand in enumerate(hands)]
    return CastleRock.from_position("\n".join(lines), options=options)


def snapshot(game):
    return fields(game), list(game.moves)


def tiles_in_play(game):
    """Every uncaptured tile: the row, the hands, the boneyard."""
    return [*game.row(), *(t for h in game.hands() for t in h), *game.deck().rest]


# -- CR-1 players and sets -----------------------------------------------------------------------

@pytest.mark.parametrize("players", [1, 7])
def test_cr1_player_count(players):
    """rule CR-1.1: two to six players."""
    with pytest.raises(BadOption, match=f"2 to 6 players, not {players}"):
        CastleRock(players=players)


@pytest.mark.parametrize("top,players,row", [(6, 2, 4), (6, 3, 4), (6, 4, 4), (6, 5, 3), (6, 6, 4),
                                             (9, 2, 3), (9, 3, 4), (9, 4, 3), (9, 5, 5), (9, 6, 1),
                                             (12, 2, 3), (12, 3, 4), (12, 4, 3), (12, 5, 6), (12, 6, 1)])
def test_cr3_2_starting_row_deals_out_evenly(top, players, row):
    """rule CR-1.2, CR-3.2: 4 tiles, 3 with five players; other sets: nearest count dealing out evenly."""
    game = CastleRock(players=players, options={"set": top})
    assert len(game.row()) == row
    assert (len(game.dset) - row) % players == 0


def test_cr3_2_too_many_players_for_the_set():
    """rule CR-3.2: a player count the set cannot seat is refused."""
    with pytest.raises(BadOption, match="too many players for the set"):
        starting_row(28, 14)


# -- CR-2 dealer, CR-3 deal -------------------------------------------------------------------------

def test_cr2_1_dealer_draws_highest_tile():
    """rule CR-2.1: the dealer drew the highest tile; pip ties go to the higher end (6-0 over 5-1)."""
    assert rank(T("6-0")) > rank(T("5-1")) > rank(T("4-2")) > rank(T("3-3"))
    for seed in range(10):
        game = CastleRock(players=4, seed=seed)
        draw = game.dealer_draw
        assert len(set(draw)) == 4
        assert all(rank(draw[game.dealer()]) >= rank(t) for t in draw)


def test_cr3_1_deal_and_first_player():
    """rule CR-3.1, CR-3.3, CR-3.5: hands of two, rest in the boneyard, dealer's left starts."""
    game = CastleRock(players=4, seed=3)
    assert all(len(h) == 2 for h in game.hands())
    assert game.boneyard() == 28 - 8 - 4
    assert game.current_player == (game.dealer() + 1) % 4
    assert sorted(tiles_in_play(game)) == sorted(game.dset.tiles)


def test_cr2_3_deal_passes_clockwise():
    """rule CR-2.3: the next hand is dealt by the player on the dealer's left."""
    game = CastleRock(players=3, seed=5)
    first = game.dealer()
    bot = random_bot(random.Random(1))
    while game.hand_number() == 0:
        game.push(bot(game))
    assert game.dealer() == (first + 1) % 3
    assert game.current_player == (first + 2) % 3


# -- CR-4 the turn -----------------------------------------------------------------------------------

def test_cr4_1_place_at_open_end_then_end_draws():
    """rule CR-3.4, CR-4.1, CR-4.3, CR-4.4: place at the open (right) end; end draws and passes left."""
    game = rigged("1-2 3-4 5-6 0-0", ["0-1 0-2", "0-3 0-4", "0-5 0-6"])
    game.push_notation("0-2")
    assert game.row()[-1] == T("0-2")
    assert game.hands()[0] == (T("0-1"),)
    before = game.boneyard()
    next_tile = game.deck().rest[0]
    game.push_notation("end")
    assert game.boneyard() == before - 1
    assert game.hands()[0] == (T("0-1"), next_tile)
    assert game.current_player == 1 and not game.placed()


@pytest.mark.parametrize("moves,bad,rule,text", [
    ([], "3-5", "CR-4.1", "3-5 is not in P1's hand"),
    (["0-1"], "0-2", "CR-4.1", "P1 has already placed a tile this turn"),
    ([], "end", "CR-4.1", "P1 must place a tile before ending the turn"),
    ([], "x6-6", "CR-4.2", "P1 must place a tile before capturing 6-6"),
    (["0-1"], "x1-2", "CR-5.1", "1-2 is at the end of the row"),
    (["0-1"], "x3-4", "CR-5.1", "neighbours 1-2 and 5-6 share no suit"),
    (["0-1"], "x1-2+3-4+5-6", "CR-5.2", "do not all share one suit"),
])
def test_cr4_illegal_moves_name_rule_and_tile_and_change_nothing(moves, bad, rule, text):
    """rule CR-4.1, CR-4.2, CR-5.1, CR-5.2: refused moves name the rule and tile, state unchanged."""
    game = rigged("1-2 3-4 5-6 6-6", ["0-1 0-2", "0-3 0-4"])
    for m in moves:
        game.push_notation(m)
    before = snapshot(game)
    with pytest.raises(IllegalMove, match=f"rule {rule}: .*{text}") as err:
        game.push_notation(bad)
    assert err.value.rule == rule
    assert snapshot(game) == before


def test_cr4_3_no_draw_once_boneyard_is_empty():
    """rule CR-4.3: with the boneyard empty the hand shrinks."""
    game = CastleRock.from_position("row: 1-2 3-4 5-6 6-6\nP1: 0-1 0-2\nP2: 0-3 0-4\n"
                                    "boneyard:\ncaptured: 20 0")  # the rest went earlier this hand
    game.push_notation("0-1")
    game.push_notation("end")
    assert game.hands()[0] == (T("0-2"),)


def test_parse_move_errors_name_the_token():
    game = CastleRock()
    with pytest.raises(InvalidNotation, match="tile 7-7 is not in the double-six set; a Castle Rock move"):
        game.parse_move("7-7")
    with pytest.raises(InvalidNotation, match=re.escape("'x1-2+3-4' is not a capture")):
        game.parse_move("x1-2+3-4")
    with pytest.raises(InvalidNotation, match="'draw' is not a tile.* or end$"):
        game.parse_move("draw")


# -- CR-5 captures -----------------------------------------------------------------------------------

def test_cr5_seed_example_leave_middle_or_all_three():
    """rule CR-5.1, CR-5.2, CR-5.4: 6-6 6-3 6-4 may be left, its middle taken, or all three."""
    def fresh():
        game = rigged("1-2 6-6 3-6", ["4-6 0-0", "0-1 0-2"])
        game.push_notation("4-6")
        return game

    game = fresh()
    legal = {str(m) for m in game.legal_moves()}
    assert legal == {"x3-6", "x6-6+3-6+4-6", "end"}
    game.push_notation("x3-6")
    assert game.row() == tuple(ROW("1-2 6-6 4-6")) and game.captured()[0] == 1
    game = fresh()
    game.push_notation("x6-6+3-6+4-6")
    assert game.row() == (T("1-2"),) and game.captured()[0] == 3
    game = fresh()
    game.push_notation("end")  # rule CR-5.4: captures are optional
    assert len(game.row()) == 4 and game.captured()[0] == 0


def test_cr5_3_chained_captures_anywhere_after_gaps_close():
    """rule CR-5.3: a capture away from the new tile, then one that exists only once the gap closes."""
    game = rigged("1-2 0-0 1-3 2-5", ["6-6 0-1", "0-2 0-3"])
    game.push_notation("6-6")
    assert {str(m) for m in game.legal_moves()} == {"x0-0", "end"}
    game.push_notation("x0-0")  # 1-2 and 1-3 pinch it; now 1-2 and 2-5 pinch 1-3
    assert {str(m) for m in game.legal_moves()} == {"x1-3", "end"}
    game.push_notation("x1-3")
    assert game.row() == tuple(ROW("1-2 2-5 6-6")) and game.captured()[0] == 2


def test_cr5_5_no_capture_with_fewer_than_three_tiles():
    """rule CR-5.5: a two-tile row allows no capture."""
    game = rigged("6-6", ["6-5 0-0", "0-1 0-2"])
    game.push_notation("5-6")
    assert [str(m) for m in game.legal_moves()] == ["end"]
    with pytest.raises(IllegalMove, match="rule CR-5.5"):
        game.push_notation("x6-6")


def test_cr5_6_missed_capture_passes_to_next_player():
    """rule CR-5.6: a capture left by one player may be taken by the next, after placing."""
    game = rigged("1-2 3-3 1-4 5-5", ["6-6 0-0", "0-5 0-2"])
    game.push_notation("6-6")
    assert "x3-3" in {str(m) for m in game.legal_moves()}
    game.push_notation("end")
    with pytest.raises(IllegalMove, match="rule CR-4.2"):
        game.push_notation("x3-3")
    game.push_notation("0-5")
    game.push_notation("x3-3")
    assert game.captured() == (0, 1)


# -- CR-6 .. CR-8 scoring and the match -------------------------------------------------------------------

def play_hand(game, bot):
    hand = game.hand_number()
    while not game.is_over() and game.hand_number() == hand:
        game.push(bot(game))


def test_cr6_cr7_hand_scoring_every_player():
    """rule CR-6, CR-7.1, CR-7.2, CR-7.3: tallied only at hand end: +1 per capture, -1 per row tile."""
    game = CastleRock(players=3, seed=11)
    bot = random_bot(random.Random(2))
    while True:
        game.push(bot(game))
        if game.hand_number() == 1:
            break
        assert game.scores == [0, 0, 0]  # not during the hand
        last = fields(game)
    left = len(last["row"])
    assert all(not h for h in last["hands"]) and last["drawn"] == len(last["deck"])
    assert game.scores == [c - left for c in last["captured"]]
    assert sum(last["captured"]) + left == 28


def finished(seed, **options):
    game = CastleRock(players=2, seed=seed, options=options)
    bot = greedy_bot(random.Random(3))
    while not game.is_over():
        game.push(bot(game))
    return game


def test_cr8_match_ends_at_target_highest_wins():
    """rule CR-8.1, CR-8.2: the match ends once a score reaches the target; highest wins."""
    game = finished(1, target=3)
    top = max(game.scores)
    assert top >= 3 and game.hand_number() + 1 < 20  # the target ended it, not the hand limit
    [winner] = game.winners()
    assert game.scores[winner] == top
    assert game.current_player is None and list(game.legal_moves()) == []
    with pytest.raises(IllegalMove, match="match is over"):
        game.push(END)


def test_cr8_3_tie_in_play_goes_to_the_dealer():
    """rule CR-8.3: both pass the target with equal scores; the dealer played last and wins."""
    game = next(g for g in map(lambda seed: finished(seed, target=3), range(30)) if g.scores[0] == g.scores[1])
    assert game.winners() == [game.dealer()]


@pytest.mark.parametrize("dealer,tied,winner", [(0, (0, 2), 0), (1, (0, 2), 0), (2, (0, 2), 2),
                                                (3, (0, 2), 2), (3, (1, 2, 3), 3), (0, (1, 3), 3)])
def test_cr8_3_tie_goes_to_youngest_hand(dealer, tied, winner):
    """rule CR-8.3: tied winners: the one who plays latest in turn order (the dealer plays last)."""
    before = " ".join("53" if seat in tied else "8" for seat in range(4))  # +6 captured -4 left in the row
    hands = "".join(f"P{seat + 1}: {'0-0' if seat == (dealer + 1) % 4 else ''}\n" for seat in range(4))
    game = CastleRock.from_position(f"hand: 2\nscores: {before}\nrow: 1-2 3-4 5-6\n{hands}"
                                    f"turn: P{(dealer + 1) % 4 + 1}\nboneyard:\ncaptured: 6 6 6 6",
                                    options={"hands": 2, "target": 100})
    game.push_notation("0-0")
    game.push_notation("end")  # the last hand is scored
    assert game.is_over() and game.dealer() == dealer
    assert game.scores == [55 if seat in tied else 10 for seat in range(4)]
    assert game.winners() == [winner]


def test_cr8_4_hand_limit():
    """rule CR-8.4: with hands=1 the match is one hand (the round-of-drinks game)."""
    game = CastleRock(players=4, seed=2, options={"hands": 1})
    play_hand(game, random_bot(random.Random(0)))
    assert game.is_over() and game.hand_number() == 0 and len(game.winners()) == 1


@pytest.mark.parametrize("name", ["target", "hands"])
def test_cr8_options_must_be_positive(name):
    with pytest.raises(BadOption, match=f"option {name}: must be at least 1"):
        CastleRock(options={name: 0})


# -- CR-9 the worked example ----------------------------------------------------------------------------

EXAMPLE = "6-1 6-0 0-0 4-2 4-4 4-0 1-1 5-1"  # CR-9 (tiles written heavy end first)


def example_game():
    game = rigged(EXAMPLE, ["1-4 3-3", "2-2 3-5"])
    game.push_notation("1-4")
    return game


@pytest.mark.parametrize("plays", [
    ["x1-5", "x1-1", "x0-4", "x2-4+4-4+1-4"],       # the seed's better play
    ["x2-4+4-4+0-4", "x1-1+1-5+1-4"],               # the editor's remark (JM)
    ["x1-1+1-5+1-4", "x2-4+4-4+0-4"],               # the immediate thought, then the triple left over
])
def test_cr9_worked_example(plays):
    """rule CR-9: the seed's better play and the editor's shortcut each leave 1-6 0-6 0-0 (six taken)."""
    game = example_game()
    for play in plays:
        game.push_notation(play)
    assert game.row() == tuple(ROW("1-6 0-6 0-0"))
    assert game.captured()[0] == 6


def test_cr9_the_whole_row_can_be_cleared():
    """rule CR-9: neither play is best: the analysis clears all nine tiles, and the engine agrees."""
    plan = analyse(ROW(EXAMPLE + " 1-4")).best()
    assert plan.max_captured == 9 and plan.remaining == []
    game = example_game()
    for play in ["x4-4", "x2-4", "x0-6+0-0+0-4", "x1-1", "x1-6+1-5+1-4"]:
        game.push_notation(play)
    assert game.row() == () and game.captured()[0] == 9


def test_cr9_immediate_thought_alone_takes_three():
    """rule CR-9: the final three alone take 3; the 2-4 4-4 0-4 triple then remains available."""
    game = example_game()
    game.push_notation("x1-1+1-5+1-4")
    assert game.captured()[0] == 3
    assert "x2-4+4-4+0-4" in {str(m) for m in game.legal_moves()}


def test_captures_to_judges_a_hand_made_capture():
    """rule CR-5.3, CR-9: the row seen after a player's captures becomes pushable single captures."""
    game = example_game()
    steps = game.captures_to(ROW("1-6 0-6 0-0"))
    for step in steps:
        game.push(step)
    assert game.row() == tuple(ROW("1-6 0-6 0-0")) and game.captured()[0] == 6
    game = example_game()
    with pytest.raises(IllegalMove, match="rule CR-5.3: .*0-0"):
        game.captures_to(ROW("1-6 0-6"))
    with pytest.raises(DominoError, match="3-3"):
        game.captures_to(ROW("1-6 3-3"))
    assert example_game().captures_to(ROW(EXAMPLE + " 1-4")) == []


# -- framework: serialization, push/pop, properties ----------------------------------------------------

def test_json_round_trip_and_pop():
    game = CastleRock(players=3, seed=9)
    bot = random_bot(random.Random(9))
    for _ in range(150):
        game.push(bot(game))
    copy = type(game).from_json(game.to_json())
    assert fields(copy) == fields(game) and str(copy) == str(game)
    states = []
    for _ in range(40):
        states.append(fields(game))
        game.push(bot(game))
    for before in reversed(states):
        game.pop()
        assert fields(game) == before


def test_str_shows_row_hands_boneyard_and_scores():
    game = CastleRock(players=2, seed=1)
    text = str(game)
    assert "boneyard 20" in text and "row: " in text and "P2: hand [" in text and "score 0" in text


def recount(game):
    """Scores recounted from the moves: per hand, each player's captured tiles minus the tiles
    left in the row, which is every tile of the set not captured that hand."""
    replay = type(game)(players=game.players, options=game.options, seed=game.seed)
    scores = [0] * game.players
    captured = [0] * game.players
    for move in game.moves:
        seat, hand = replay.current_player, replay.hand_number()
        replay.push(move)
        if hasattr(move, "kind"):
            captured[seat] += len(move.tiles)
        if replay.is_over() or replay.hand_number() != hand:
            left = len(game.dset) - sum(captured)
            scores = [a + c - left for a, c in zip(scores, captured)]
            captured = [0] * game.players
    return scores


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 6), top=st.sampled_from([6, 6, 9]))
def test_random_play_properties(seed, players, top):
    """No tile in two places, counts conserved, play terminates, final scores equal a recount."""
    game = CastleRock(players=players, seed=seed, options={"set": top, "hands": 3})
    bot = random_bot(random.Random(seed))
    n = len(game.dset)
    for _ in range(5000):
        if game.is_over():
            break
        game.push(bot(game))
        if not game.is_over():
            check_caps(game)
            present = tiles_in_play(game)
            assert len(present) == len(set(present))
            assert len(present) + sum(game.captured()) == n
    assert game.is_over()
    assert game.scores == recount(game)
