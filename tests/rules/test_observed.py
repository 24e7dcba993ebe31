"""Observed mode: play at a real table, where hands and the boneyard are hidden.

Rule numbers refer to the "At the table" sections of the rule cards: CR-11, CRS-9, DB-7,
UDS-9 (and BW-10 in test_broadway_observed.py). The main check for each game: a match
played from seed A (the physical deal) is replayed, move for move plus the explicit reveal
moves, into an observed game whose guess comes from seed B; scores and winners agree.
"""

import itertools
import random

import pytest
from dominotable.games import catalog
from dominotable.rules.errors import IllegalMove, InvalidNotation
from dominotable.rules.games.castle_rock.engine import END, CastleRock, place
from dominotable.rules.games.castle_rock.solitaire import CastleRockSolitaire, DrawTile
from dominotable.rules.games.doubles_boneyard.engine import DoublesInTheBoneyard
from dominotable.rules.games.up_down_stop.engine import UpDownStop
from dominotable.rules.hidden import rearrange
from dominotable.rules.moves import Pass
from dominotable.rules.tiles import DOUBLE_SIX, fmt
from hypothesis import given, settings
from hypothesis import strategies as st

T = DOUBLE_SIX.parse


def random_match(cls, seed, **kw):
    game = cls(seed=seed, **kw)
    rng = random.Random(seed)
    while not game.is_over():
        game.push(rng.choice(list(game.legal_moves())), trusted=True)
    return game


def replayed(ref_game, observed, owed):
    """Replay `ref_game`'s moves into `observed`, pushing what `owed(observed, ref, move)` says the
    table reveals around each move (a fresh copy of the reference game runs alongside)."""
    ref = type(ref_game)(players=ref_game.players, options=ref_game.options, seed=ref_game.seed)
    for move in ref_game.moves + [None]:
        if move is not None:
            ref.push(move)
        for text in owed(observed, ref, move):
            observed.push_notation(text)
        assert observed.scores == ref.scores
    assert observed.is_over() and observed.winners() == ref_game.winners()
    return observed


def same_replay(game):
    """JSON replay of an observed game is exact, and says it is observed."""
    data = game.to_json()
    assert '"observed": true' in data
    again = type(game).from_json(data)
    assert again.observed and again.moves == game.moves and again.scores == game.scores
    assert again.to_json() == data


def refused(game, text, rule, tile=None, match=""):
    before = game.to_json()
    with pytest.raises(IllegalMove, match=f"rule {rule}: .*{match}") as err:
        game.push_notation(text)
    assert game.to_json() == before
    if tile is not None:
        assert err.value.tile == T(tile)
    return str(err.value)


# -- the shared guess ---------------------------------------------------------------------


def test_rearrange_moves_few_tiles_and_keeps_order():
    """hidden.rearrange: a tile pinned to a pool is exchanged, every other tile keeps its slot."""
    pools = ((T("0-1"), T("0-2")), (T("3-4"), T("5-5"), T("2-6")))
    out = rearrange(pools, lambda t, p: t is not T("5-5") or p == 0)
    assert out == ((T("5-5"), T("0-2")), (T("3-4"), T("0-1"), T("2-6")))
    # a chain: pool 0 may only hold tiles with a 0; pool 2 must take 2-6
    pools = ((T("0-1"),), (T("0-3"),), (T("2-6"),))
    fits = {T("0-1"): {0, 1}, T("0-3"): {0, 1, 2}, T("2-6"): {0, 1}}
    out = rearrange(pools, lambda t, p: p in fits[t] and (t is not T("0-1") or p == 1))
    assert sorted(map(len, out)) == [1, 1, 1] and T("0-1") in out[1]
    assert rearrange(((T("0-1"),), (T("0-2"),)), lambda t, p: p == 0) is None


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(0, 3), min_size=2, max_size=3), data=st.data())
def test_rearrange_is_exact_against_brute_force(sizes, data):
    """hidden.rearrange finds an arrangement whenever one exists, and only allowed ones."""
    tiles = DOUBLE_SIX.tiles[:sum(sizes)]
    allowed = {t: data.draw(st.sets(st.integers(0, len(sizes) - 1))) for t in tiles}
    pools, at = [], 0
    for size in sizes:
        pools.append(tiles[at:at + size])
        at += size
    fits = lambda tile, pool: pool in allowed[tile]  # noqa: E731
    exists = any(all(fits(t, p) for t, p in zip(tiles, seats)) and
                 all(seats.count(p) == size for p, size in enumerate(sizes))
                 for seats in itertools.product(range(len(sizes)), repeat=len(tiles)))
    out = rearrange(pools, fits)
    assert (out is not None) == exists
    if out is not None:
        assert list(map(len, out)) == sizes and sorted(t for pool in out for t in pool) == sorted(tiles)
        assert all(fits(t, p) for p, pool in enumerate(out) for t in pool)


# -- Castle Rock Solitaire ------------------------------------------------------------------


def crs_owed(observed, ref, move):
    if move is None:
        return []
    return [f"draw {ref.row()[-1]}"] if str(move) == "draw" else [str(move)]


@pytest.mark.parametrize("draw", ["any-time", "when-blocked"])
def test_crs9_observed_replay_with_another_deal(draw):
    """rule CRS-9.1: the row starts empty, each draw names the tile that lands; scores agree."""
    for seed in range(3):
        ref = random_match(CastleRockSolitaire, seed, options={"draw": draw})
        game = CastleRockSolitaire(seed=seed + 50, options={"draw": draw}, observed=True)
        assert game.row() == () and {type(m) for m in game.legal_moves()} == {DrawTile}
        for tile in CastleRockSolitaire(seed=seed, options={"draw": draw}).row():
            game.push_notation(f"draw {tile}")
        replayed(ref, game, crs_owed)
        same_replay(game)


def test_crs9_draws_name_an_unseen_tile():
    """rule CRS-9.1: a plain `draw` is refused at the table, so is a tile already face up; the
    ordinary game refuses a named draw."""
    game = CastleRockSolitaire(seed=1, observed=True)
    refused(game, "draw", "CRS-9.1", match="names the tile")
    game.push_notation("draw 3-5")
    assert game.row() == (T("3-5"),) and game.boneyard() == 27
    refused(game, "draw 3-5", "CRS-9.1", tile="3-5", match="in the row")
    refused(CastleRockSolitaire(seed=1), "draw 3-5", "CRS-9.1", match="just `draw`")
    with pytest.raises(InvalidNotation, match="draw 3-5"):
        game.parse_move("draw 3-9")


# -- Castle Rock ----------------------------------------------------------------------------


def cr_replay(ref, game):
    """Replay `ref` into the observed `game`, naming the lots and each hand's row first (after the
    first hand, once the last row is cleared away: the deal)."""
    moves = list(ref.moves)
    shadow = CastleRock(players=ref.players, options=ref.options, seed=ref.seed)
    game.push_notation("lots " + fmt(ref.dealer_draw))
    for move in moves:
        if game.awaiting() == "deal":
            game.push_notation("deal")
        if game.awaiting() == "row":
            game.push_notation("row " + fmt(shadow.row()))
        shadow.push(move)
        game.push(move)
        assert game.scores == shadow.scores
    assert game.is_over() and game.winners() == ref.winners()


def test_cr11_observed_replay_with_another_deal():
    """rules CR-11.1-11.3, CR-11.5: lots, a deal and a row per hand, placements of unseen tiles;
    scores agree."""
    for seed, players in ((1, 3), (2, 4), (3, 6)):
        ref = random_match(CastleRock, seed, players=players, options={"hands": 3})
        game = CastleRock(seed=seed + 50, players=players, options={"hands": 3}, observed=True)
        cr_replay(ref, game)
        same_replay(game)


def test_cr11_reveals_come_first_and_are_checked():
    """rule CR-11.1: lots names one tile per seat, then the row; nothing else is accepted first."""
    game = CastleRock(seed=4, players=3, observed=True)
    assert [str(m) for m in game.legal_moves()] == ["lots " + fmt(game.dealer_draw)]
    refused(game, "3-5", "CR-11.1", match="dealer")
    refused(game, "lots 6-6 3-4", "CR-11.1", match="3 different tiles")
    refused(game, "row 6-6 3-4 1-1", "CR-11.1", match="first name the tiles drawn for dealer")
    assert "waiting for `lots`" in str(game) and fmt(game.row()) not in str(game)
    game.push_notation("lots 0-1 6-6 2-3")  # P2 draws highest and deals: P3 plays first
    assert game.dealer() == 1 and game.current_player == 2
    refused(game, "lots 0-1 6-6 2-3", "CR-11.1", match="starting row")
    refused(game, "row 1-6 0-6 0-0", "CR-11.1", match="4 different tiles")  # 28 - 4 = 3 stacks of 8
    game.push_notation("row 1-6 0-6 0-0 4-6")
    assert game.row() == tuple(DOUBLE_SIX.parse_many("1-6 0-6 0-0 4-6"))
    assert T("1-6") not in game._unseen() and len(game._unseen()) == 24
    assert sorted(map(len, game.hands())) == [2, 2, 2]


def test_cr11_3_unseen_tile_is_swapped_in_and_seen_tiles_refused():
    """rule CR-11.3: any unseen tile may be placed; the guess gives the player that tile."""
    game = CastleRock(seed=4, players=3, observed=True)
    game.push_notation("lots 0-1 6-6 2-3")
    game.push_notation("row 1-6 0-6 0-0 4-6")
    seat = game.current_player
    other = next(t for t in game._unseen() if t not in game.hands()[seat])
    refused(game, "0-6", "CR-11.3", tile="0-6", match="0-6 is in the row")
    game.push(place(other))
    assert game.row()[-1] is other and len(game.hands()[seat]) == 1
    assert other not in game._unseen() and len(game._unseen()) == 23
    game.push(END)
    refused(game, "0-0", "CR-11.3", tile="0-0")
    assert "hidden" in str(game) and fmt(game.hands()[0]) not in str(game)


# -- Doubles in the Boneyard ----------------------------------------------------------------


def lots(draws):
    return "lots " + " ".join(str(double) for _, double in draws)


def db_replay(ref, game):
    """Replay `ref` into the observed `game`: the lots first, and after each game the hands left
    (the tiles the reference held before the last play, less the tile played), any tie draw and
    the deal of the next game."""
    shadow = DoublesInTheBoneyard(options=ref.options, seed=ref.seed)
    game.push_notation(lots(shadow.lead_draw()))
    for move in ref.moves:
        before = shadow.hands(), shadow.results()
        shadow.push(move)
        game.push(move)
        if shadow.results() != before[1]:
            hands = [tuple(t for t in h if t is not move.tile) for h in before[0]]
            for seat, hand in enumerate(hands):
                if hand:
                    game.push_notation(f"show P{seat + 1} {fmt(hand)}")
            if shadow.results()[-1].draws:
                game.push_notation(lots(shadow.results()[-1].draws))
            if not shadow.is_over():
                assert game.awaiting() == "deal" and [str(m) for m in game.legal_moves()] == ["deal"]
                game.push_notation("deal")
        assert game.scores == shadow.scores
    assert game.is_over() and game.winners() == ref.winners()


def test_db7_observed_replay_with_another_deal_including_a_tie():
    """rules DB-7.1-7.6: lots, plays of unseen tiles, passes, shows, the tie draw and each later
    game's deal; scores agree."""
    ties = 0
    for seed in (5, 15, 3):  # seeds 5 and 15 have a blocked game tied for fewest pips
        ref = random_match(DoublesInTheBoneyard, seed, options={"target": 100})
        ties += sum(1 for r in ref.results() if r.draws)
        game = DoublesInTheBoneyard(seed=seed + 50, options={"target": 100}, observed=True)
        db_replay(ref, game)
        same_replay(game)
    assert ties >= 2


def db_started(lead="3-4"):
    """An observed game: P3 drew 6-6 and leads `lead`."""
    game = DoublesInTheBoneyard(seed=9, observed=True)
    refused(game, "3-4", "DB-7.1", match="doubles drawn")
    refused(game, "lots 6-6 5-5 4-5", "DB-7.1", match="3 different doubles")
    game.push_notation("lots 1-1 0-0 6-6")
    assert game.current_player == 2
    game.push_notation(lead)
    return game


def test_db7_2_unseen_tiles_play_and_seen_tiles_are_refused():
    """rules DB-7.2, DB-1.1: any unseen non-double may be played; a tile on the line may not."""
    game = db_started()
    refused(game, "3-4>", "DB-7.2", tile="3-4", match="already on the line")
    refused(game, "4-4>", "DB-1.1", tile="4-4")
    moves = list(game.legal_moves())
    assert Pass() in moves  # P1 may say so: unseen tiles without a 3 or 4 are plenty
    assert {m.tile for m in moves if m != Pass()} == {t for t in DOUBLE_SIX if not t.is_double
                                                      and (t.has(3) or t.has(4)) and t is not T("3-4")}
    game.push_notation("4-5>")
    assert [len(h) for h in game.hands()] == [6, 7, 6]
    assert T("4-5") not in game._unseen()


def test_db7_3_pass_is_the_players_word_within_reason():
    """rule DB-7.3: a pass moves every fitting tile out of the passer's guessed hand; a pass that
    cannot be true is refused, and so is a later play contradicting a pass."""
    game = DoublesInTheBoneyard(seed=9, observed=True)
    game.push_notation("lots 1-1 0-0 6-6")
    refused(game, "pass", "DB-7.3", match="any tile opens the line")
    game.push_notation("3-4")  # P3 leads
    game.push_notation("pass")  # P1: no 3 or 4
    assert not any(t.has(3) or t.has(4) for t in game.hands()[0])
    # ten unseen tiles carry a 3 or a 4; P3 holds only 6 of them
    refused(game, "pass", "DB-7.3", match="leave a tile that fits 3 or 4 only for P2, so P2 cannot be unable")
    game.push_notation("4-5>")  # ends 3 and 5
    game.push_notation("pass")  # P3: no 3 or 5, so the nine 3s and 5s are with P1 (its 5s) and P2
    assert not any(t.has(3) or t.has(5) for t in game.hands()[2])
    refused(game, "pass", "DB-7.3", match="P1 holds 7 tiles and only 6 unseen tiles fit neither 3 nor 5")
    refused(game, "<1-3", "DB-7.3", tile="1-3", match="P1 passed when 1-3 would have fitted")
    game.push_notation("5-6>")
    assert [len(h) for h in game.hands()] == [6, 6, 6]
    late = DoublesInTheBoneyard.from_position(  # late in a game: the five unseen tiles all have a 3 or a 6
        "line: 3-2 2-0 0-1 1-2 2-4 4-0 0-5 5-1 1-4 4-3 3-5 5-2 2-6 6-4 4-5 5-6\n"
        "P1: 1-6\nP2: 3-6 0-3\nP3: 0-6 1-3\nturn: P2", observed=True)
    refused(late, "pass", "DB-7.3", match="every unseen tile fits 3 or 6, so P2 cannot be unable to play")


def test_db7_4_show_reveals_exact_hands_then_scores():
    """rule DB-7.4: at the end of a game each hand with tiles is shown, exact count, unseen tiles
    the seat could hold; then DB-4 scores it."""
    ref = random_match(DoublesInTheBoneyard, 3, options={"target": 50})
    game = DoublesInTheBoneyard(seed=60, options={"target": 50}, observed=True)
    shadow = DoublesInTheBoneyard(options={"target": 50}, seed=3)
    game.push_notation(lots(shadow.lead_draw()))
    for move in ref.moves:
        before = shadow.hands()
        shadow.push(move)
        game.push(move)
        if shadow.results():
            break
    assert game.awaiting() == "show" and game.scores == [0, 0, 0]
    hands = [tuple(t for t in h if t is not move.tile) for h in before]
    seat = next(i for i, h in enumerate(hands) if h)
    name = f"P{seat + 1}"
    refused(game, "3-4", "DB-7.1", match="tiles left in each hand")
    held = len(hands[seat])
    refused(game, f"show {name} {fmt(hands[seat][1:])}", "DB-7.4", match=f"holds {held} tile{'s' * (held != 1)};")
    on_line = game.line().first
    refused(game, f"show {name} {fmt((on_line,) + hands[seat][1:])}", "DB-7.4", tile=str(on_line))
    refused(game, f"show P9 {fmt(hands[seat])}", "DB-7.4", match="not a seat")
    for i, hand in enumerate(hands):
        if hand:
            game.push_notation(f"show P{i + 1} {fmt(hand)}")
    assert game.scores == shadow.scores and game.results() == shadow.results()


# -- Up-Down-Stop -------------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"both_ways": True, "columns": 3, "reshuffles": 2}])
def test_uds9_observed_replay_with_another_deal(options):
    """rule UDS-9.1: every move names its tile; the same notation replays into another deal."""
    for seed in range(4):
        ref = random_match(UpDownStop, seed, options=options)
        game = UpDownStop(seed=seed + 50, options=options, observed=True)
        for move in ref.moves:
            game.push_notation(str(move))
        assert game.is_over() and game.scores == ref.scores and game.winners() == ref.winners()
        same_replay(game)


def test_uds9_moves_name_an_unseen_tile():
    """rule UDS-9.1: at the table a move must name the drawn tile, which must still be face down;
    the other rules are checked against the named tile (UDS-4.2, UDS-3.7)."""
    game = UpDownStop(seed=2, observed=True)
    with pytest.raises(InvalidNotation, match="names the drawn tile"):
        game.parse_move("new")
    guess = game.drawn()
    other = next(t for t in game._unseen() if t is not guess and not t.is_double)
    game.push_notation(f"{other} new")
    assert game.columns()[0].line.first is other and other not in game._unseen()
    refused(game, f"{other} scrap", "UDS-9.1", tile=str(other), match="already in c1")
    refused(game, "5-5 new", "UDS-4.2", tile="5-5")
    playable = next(t for t in game._unseen() if not t.is_double)  # it can start column 2
    refused(game, f"{playable} scrap", "UDS-3.7", tile=str(playable))


# -- all games: random observed play --------------------------------------------------------


OBSERVED = [("castle-rock-solitaire", {}), ("castle-rock", {"hands": 2}),
            ("doubles-in-the-boneyard", {"target": 50}), ("up-down-stop", {})]


@settings(max_examples=12, deadline=None)
@given(which=st.sampled_from(OBSERVED), seed=st.integers(0, 10**6))
def test_random_observed_play_properties(which, seed):
    """Every generated move is legal; pop restores the position; the JSON replay is exact."""
    name, options = which
    game = catalog.engine(name)(seed=seed, options=options, observed=True)
    rng = random.Random(seed)
    while not game.is_over():
        moves = list(game.legal_moves())
        move = rng.choice(moves)
        assert game.why_illegal(move) is None
        if rng.random() < 0.05:
            before = game.to_json()
            game.push(move)
            game.pop()
            assert game.to_json() == before
        game.push(move)
    assert type(game).from_json(game.to_json()).scores == game.scores
