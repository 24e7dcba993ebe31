"""Broadway in observed mode (rules BW-10.x of seeds/broadway.md): hidden hands at a real table."""

import random

import pytest
from dominotable.rules.errors import IllegalMove
from dominotable.rules.games.broadway.engine import PASS, SEATS, Broadway
from dominotable.rules.hidden import DEAL, Reveal
from dominotable.rules.tiles import Tile, fmt
from hypothesis import given, settings
from hypothesis import strategies as st
from test_broadway import written

N, E, S, W = range(4)


def observed_position(diagram, turn, hands):
    """An observed game in mid-hand: `diagram` on the table, and the unseen tiles are exactly the
    tiles of `hands` ({seat: "tiles"}), which is also the engine's guess of who holds them."""
    return Broadway.from_position(written(diagram, turn, hands), observed=True)


def refused(game, text, rule, match=""):
    before = (str(game), game.to_json(), game.hands())
    with pytest.raises(IllegalMove, match=f"rule {rule}: .*{match}") as caught:
        game.push_notation(text)
    assert (str(game), game.to_json(), game.hands()) == before
    return caught.value


def observed_replay(ref, seed):
    """Replay `ref` (a finished non-observed match) into an observed game with another deal, adding
    what the table says: who leads each hand, passes the engine cannot rule out, the tiles shown."""
    shadow = Broadway(options=ref.options, seed=ref.seed)
    game = Broadway(options=ref.options, seed=seed, observed=True)
    for move in ref.moves:
        if game.awaiting() == "deal":
            game.push_notation("deal")
        if game.awaiting() == "lead":
            game.push_notation(f"lead {SEATS[shadow.hand_info().turn][0]}")
        hands_done = len(shadow.past_hands())
        shadow.push(move)
        game.push(move)
        if len(shadow.past_hands()) > hands_done and any(shadow.past_hands()[-1].unplayed):
            while game.awaiting() is None:
                game.push(PASS)
            for seat, hand in enumerate(shadow.past_hands()[-1].unplayed):
                if hand:
                    game.push_notation(f"show {SEATS[seat][0]} {fmt(hand)}")
        assert game.scores == shadow.scores
    assert game.is_over() and game.winners() == ref.winners()
    return game


@pytest.mark.parametrize("seed", [1, 2])
def test_bw10_observed_replay_with_another_deal(seed):
    """rules BW-10.1, BW-10.2: the same placements, with `lead` naming each leader, score the same
    from another deal; the JSON replay of the observed game is exact."""
    ref = Broadway(options={"hands": 2}, seed=seed)
    rng = random.Random(seed)
    while not ref.is_over():
        ref.push(rng.choice(list(ref.legal_moves())))
    game = observed_replay(ref, seed + 40)
    data = game.to_json()
    again = type(game).from_json(data)
    assert again.observed and again.to_json() == data and again.scores == game.scores


def test_bw10_1_each_hand_opens_by_naming_the_leader():
    """rule BW-10.1: before the lead the table names the seat holding the double; that seat then
    lays it crosswise to itself (BW-2.3)."""
    game = Broadway(seed=3, observed=True)
    assert sorted(str(m) for m in game.legal_moves()) == ["lead E", "lead N", "lead S", "lead W"]
    refused(game, "6-6@(0,0)-(1,0)", "BW-10.1", match="who leads")
    refused(game, "pass", "BW-10.1", match="who leads")
    game.push_notation("lead West")
    assert game.current_player == W and Tile(6, 6) in game.hands()[W]
    assert [str(m) for m in game.legal_moves()] == ["6-6@(0,0)-(0,1)"]
    refused(game, "6-6@(0,0)-(1,0)", "BW-2.3")
    refused(game, "show W 6-6", "BW-10.1", match="a play or pass")
    game.push_notation("6-6@(0,0)-(0,1)")
    assert game.current_player == N
    assert "? ? ? ? ? ? ?" in str(game)  # the guess is never shown


def test_bw10_2_unseen_tiles_are_swapped_in_and_seen_tiles_refused():
    """rule BW-10.2: any unseen tile may be played or exposed; a tile on the table may not."""
    game = observed_position("6-6", N, {N: "1-2 3-4", E: "6-1 5-5", S: "6-2", W: "6-3 0-0"})
    error = refused(game, "6-6@(2,0)e", "BW-10.2", match="6-6 is already on the table")
    assert error.tile == Tile(6, 6)
    game.push_notation("6-3@(2,0)e")  # the guess gave 6-3 to West: North gets it, West takes one back
    assert [len(h) for h in game.hands()] == [1, 2, 1, 2] and Tile(3, 6) not in game._unseen()
    game.push_notation("expose W 6-1")
    assert Tile(1, 6) in game.hands()[W] and game.current_player == N
    game.push_notation("1-6@(-2,0)e")
    assert game.current_player == E


def test_bw10_3_pass_is_the_players_word_within_reason():
    """rule BW-10.3: a pass moves every tile the passer could place out of its guessed hand; it is
    refused when no deal agrees, and a later play of a ruled-out tile is refused."""
    game = observed_position("6-6", N, {N: "6-1", E: "6-2", S: "6-3", W: "6-4"})
    refused(game, "pass", "BW-10.3", match="every unseen tile North could hold fits")
    game = observed_position("6-6", N, {N: "6-1 2-3", E: "4-5", S: "1-1", W: "0-5"})
    game.push(PASS)
    assert Tile(1, 6) not in game.hands()[N] and Tile(1, 6) in game.ruled_out(N)
    game.push(PASS)  # East: 6-1 fits East too, so it goes to South or West
    assert game.current_player == S and Tile(1, 6) in game.hands()[S] + game.hands()[W]
    game.push(PASS)  # South: 6-1 must be West's
    assert Tile(1, 6) in game.hands()[W]
    refused(game, "pass", "BW-10.3", match="West cannot be unable to play")
    game.push_notation("6-1@(0,1)s")
    assert game.current_player == N
    game = observed_position("6-6", N, {N: "6-1 2-3", E: "6-2 4-5", S: "1-1 3-3", W: "0-5 4-4"})
    game.push(PASS)  # North holds neither 6-1 nor 6-2
    game.push_notation("6-1@(0,1)s")  # East
    game.push(PASS)  # South
    game.push(PASS)  # West
    refused(game, "2-6@(-2,0)e", "BW-10.3", match="North passed when 2-6 could have been placed")


def test_bw10_5_a_blocked_hand_waits_for_the_tiles_left_to_be_shown():
    """rules BW-10.4, BW-10.5, BW-6.3: nobody can hold a six or a zero once 6-0 is down, so the
    hand ends; each seat with tiles shows them, exact count, and then pays a point per tile."""
    game = observed_position("6-6", N, {N: "6-0", E: "1-2", S: "1-3", W: "2-3 1-1"})
    game.push_notation("6-0@(2,0)-(3,0)")
    assert game.awaiting() == "show" and game.scores == [0, 0]
    assert sorted(str(m) for m in game.legal_moves()) == ["show E 1-2", "show S 1-3", "show W 1-1 2-3"]
    refused(game, "pass", "BW-10.1", match="tiles left in each hand")
    refused(game, "show E 1-2 1-3", "BW-10.5", match="East holds 1 tile;")
    refused(game, "show E 6-0", "BW-10.2", match="0-6 is already on the table")
    refused(game, "show N 1-2", "BW-10.5", match="North has no hidden tiles")
    game.push_notation("show W 1-2 1-3")  # not the guess: the engine swaps
    game.push_notation("show E 1-1")
    assert game.awaiting() == "show"
    game.push_notation("show S 2-3")
    record = game.past_hands()[-1]
    assert record.unplayed == ((), (Tile(1, 1),), (Tile(2, 3),), (Tile(1, 2), Tile(1, 3)))
    assert game.scores == [-1, -3] and game.awaiting() == "deal" and game.hand_info().number == 1
    assert [str(m) for m in game.legal_moves()] == ["deal"]  # BW-10.6: the tableau cleared away first
    refused(game, "lead S", "BW-10.1", match=r"cleared away \(deal\)")
    refused(game, "deal 1-2", "BW-10.6", match="names no tiles")
    game.push_notation("deal")
    assert game.awaiting() == "lead"


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_random_observed_play_properties(seed):
    """Every generated move is legal, pop restores the position and the JSON replay is exact."""
    game = Broadway(seed=seed, options={"hands": 1}, observed=True)
    rng = random.Random(seed)
    while not game.is_over() and len(game.moves) < 120:
        move = rng.choice(list(game.legal_moves()))
        assert game.why_illegal(move) is None
        before = game.to_json()
        game.push(move)
        if rng.random() < 0.05:
            game.pop()
            assert game.to_json() == before
            game.push(move)
    assert type(game).from_json(game.to_json()).to_json() == game.to_json()


def test_bw10_1_a_reveal_is_credited_to_the_seat_it_names_not_to_the_guess():
    """rule BW-10.1, issue 17 ("P4 lead S", South being P3): the engine's player to move while the
    lead is owed is only its guess at who holds the double; the record credits `lead S` to South,
    a show to the seat shown, and the deal to nobody (the table)."""
    from dominotable.app.commands.replay import match_lines
    from dominotable.rules.hidden import made_by

    game = next(g for seed in range(20) if (g := Broadway(seed=seed, observed=True, options={"hands": 2}))
                .current_player != S)
    assert made_by(game, game.parse_move("lead S")) == S != game.current_player
    game.push_notation("lead S")
    names = ["Ann", "Bob", "Cat", "Dan"]
    lines = match_lines({"hints": []}, game, names)
    assert lines[1].split() == ["1.", "Cat", "leads", "[lead", "S]"]  # in words, the notation beside
    assert made_by(game, game.lead_move()) == S  # South lays the double
    assert made_by(game, DEAL) is None and made_by(game, Reveal("show", (Tile(1, 2),), "W")) == W
