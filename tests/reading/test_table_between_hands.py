"""Between hands at a real table (observed play): the last hand's tiles are cleared off the tray,
one at a time, before anything of the next hand is read (issue 17: a leftover stored as a lead).

Rules: DB-7.6 and DB-8.1 of seeds/doubles-in-the-boneyard.md, BW-10.6 and BW-11.5 of
seeds/broadway.md, CR-11.5 of seeds/castle-rock.md (test_table_castle.py). Each reads the
tray as the table would at every pause while a person clears it: a note of what is left, never
a move, until the tray is clear; then the deal is recorded, and only then a tile laid is read.
"""

from __future__ import annotations

import random

import pytest
from dominotable.games import catalog
from dominotable.reading.prompts import listed
from dominotable.rules.games.broadway.engine import Broadway, Place
from dominotable.rules.games.doubles_boneyard.engine import DoublesInTheBoneyard, Play
from dominotable.rules.hidden import DEAL, Reveal
from dominotable.sim.bots.shared import random_bot
from dominotable.sim.hands.base import fitting
from dominotable.tray.action import Action, ActionKind
from support.table_helpers import SETTLE, Table
from support.table_sim import SimTray, hands_of, read_draw


def first_hand(game, seed: int, until=lambda game: game.hands_played() > 0):
    """`game` played by random bots through the table's own reading until its first hand (game)
    is over (or `until(game)`): each move made by the hands on a SimTray and read back."""
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    choose = random_bot(random.Random(seed))
    while not until(game):
        move, actions = fitting(game, hands_of(reader), tray.board(), choose(game))
        if isinstance(move, Reveal) and move.word == "show":
            move = Reveal("show", move.tiles, game.who_shows(move.tiles))
        if reader.pad_draw() is not None:
            assert read_draw(reader, tray, actions).moves == (move,)
        elif actions:
            tray.apply(actions)
            assert reader.judge(tray.board()).moves == (move,), move
        game.push(move)
    return reader, tray


def table_at(tmp_path, game, tiles) -> Table:
    """A session at the table (fake clock, real store) whose match has `game`'s moves so far and
    whose tray shows `tiles`."""
    table = Table(tmp_path, game, names=["Ann", "Bob", "Cat", "Dan"][:game.players])
    for ply, move in enumerate(game.moves, 1):
        table.store.append_move(table.session.referee.seating.match_id, ply, str(move))
    table.layout.tiles = dict(tiles)
    table.show()
    return table


def cleared_one_by_one(reader, tray, keep=None):
    """Take the tiles off one at a time (all but `keep`), reading the tray at every pause: what
    the table says then."""
    verdicts = []
    for tile in sorted(tray.tiles, key=str):
        if tile is not keep:
            tray.take(tile)
            verdicts.append(reader.judge(tray.board()))
    return verdicts


@pytest.mark.parametrize("seed", [7, 4, 1])
def test_db8_1_a_leftover_of_the_last_game_is_never_the_next_lead(seed):
    """rules DB-7.6, DB-8.1, issue 17 (`run --seed 7`, 4, 1): "gather the tiles (21 left); then
    P2 leads game 2". Cleared a tile at a time, every pause reads as that note, the last tile too;
    the empty tray is the deal; only a tile laid after it is the lead."""
    game = DoublesInTheBoneyard(seed=seed, observed=True)
    reader, tray = first_hand(game, seed)
    leader = game.side_names()[game.current_player]
    assert game.awaiting() == "deal" and len(tray.tiles) == 21
    verdict = reader.judge(tray.board())
    assert verdict.same and verdict.note == f"gather the tiles (21 left); then {leader} leads game 2"
    pauses = cleared_one_by_one(reader, tray)
    for verdict in pauses[:-1]:  # one tile left included: a note, never a play
        assert verdict.same and verdict.note.startswith("gather the tiles (")
    assert pauses[-2].note == f"gather the tiles (1 left); then {leader} leads game 2"  # issue 28: "(1 tiles)"
    assert pauses[-1].moves == (DEAL,)
    game.push(DEAL)
    assert reader.judge(tray.board()).same
    tile = game.dset.parse("2-3")
    tray.lay("2-3", 5, 7)
    assert reader.judge(tray.board()).moves == (Play(tile),)


def test_db8_1_the_table_stores_no_lead_while_the_tray_is_cleared(tmp_path):
    """rule DB-8.1, issue 17 at the table (seed 7): pauses longer than the settle time with one
    tile still down store nothing; the clear tray stores the deal; the tile laid then, the lead."""
    game = DoublesInTheBoneyard(seed=7, observed=True)
    reader, tray = first_hand(game, 7)
    table = table_at(tmp_path, game, tray.tiles)
    stored = len(table.stored())
    for tile in sorted(tray.tiles, key=str):
        table.act(Action(ActionKind.REMOVE, tile))
        table.clock.advance(3 * SETTLE)
        table.session.tick()
        if table.layout.tiles:
            assert len(table.stored()) == stored and table.session.referee.status.alarms == 0
    assert table.stored()[stored:] == ["deal"]
    table.act(Action(ActionKind.PLACE, game.dset.parse("2-3"), (table.layout.geometry.cell(5, 7),
                                                                table.layout.geometry.cell(5, 8))))
    assert table.stored()[stored:] == ["deal", "2-3"]


def test_db8_5_the_first_draw_for_the_lead_waits_for_a_clear_tray():
    """rules DB-8.1, DB-8.5: tiles of another match on the tray hold up the draw for the lead
    (quietly: hands are clearing it), so none of them can be read as the first lead."""
    game = DoublesInTheBoneyard(seed=1, observed=True)
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    tray.lay("2-3", 5, 7)
    verdict = reader.judge(tray.board())
    assert verdict.pending and verdict.problem.startswith("clear the tray (1 tile): the doubles drawn for the lead")
    tray.take("2-3")
    assert reader.judge(tray.board()).same


def test_db8_2_the_last_play_lifted_is_its_takeback_not_a_tile_left_out(tmp_path):
    """rule DB-8.2, issue 17 (seed 4, `1-6>` ends game 1 and is lifted): while the hands are to
    be shown the line must stay whole, so the lifted play is offered back, not scored without it."""
    game = DoublesInTheBoneyard(seed=4, observed=True)
    reader, tray = first_hand(game, 4, until=lambda game: game.awaiting() == "show")
    table = table_at(tmp_path, game, tray.tiles)
    last = game.moves[-1]
    table.act(Action(ActionKind.REMOVE, last.tile))
    assert table.screen.title == "Take back?" and table.session.referee.status.alarms == 0
    reader = catalog.reader_for(game, table.layout.geometry)
    verdict = reader.judge(table.layout.board())
    assert verdict.pending and verdict.problem.startswith(f"put {last.tile} back in the line")


def broadway_after_hand_one(seed):
    game = Broadway(seed=seed, observed=True, options={"hands": 2})
    reader, tray = first_hand(game, seed)
    assert game.awaiting() == "deal" and game.hand_info().double == game.dset.parse("5-5")
    return game, reader, tray


@pytest.mark.parametrize("seed", [7, 9, 1])
def test_bw11_5_a_leftover_5_5_is_never_the_next_hands_lead(seed):
    """rules BW-10.6, BW-11.5, issue 17 (seeds 7 and 9; seed 1 with the 5-5 along the other
    axis): every tile but the 5-5 lifted reads as "clear the tray", never as a lead nor as a tile
    to turn; nobody can choose who leads on it; the clear tray is the deal, then the buttons."""
    game, reader, tray = broadway_after_hand_one(seed)
    five = game.dset.parse("5-5")
    pauses = cleared_one_by_one(reader, tray, keep=five)
    assert all(v.same and v.note.endswith("for the deal (rule BW-11.5)") for v in pauses[1:])
    assert pauses[-1].note == "hand 2 on 5-5: gather the tiles (1 left) for the deal (rule BW-11.5)"
    assert [label for label, _ in reader.button_moves(tray.board())] == []
    assert reader.expected() == "hand 2: an empty tray; who leads 5-5 is chosen with the buttons"  # not a guess
    tray.take(five)
    assert reader.judge(tray.board()).moves == (DEAL,)
    game.push(DEAL)
    assert [label for label, _ in reader.button_moves(tray.board())][-1] == "West leads"
    game.push(dict(reader.button_moves(tray.board()))["East leads"])
    assert reader.judge(tray.board()).same  # the button stores who leads, and nothing else
    tray.lay("5-5", 4, 5, "down")
    assert reader.judge(tray.board()).moves == (game.lead_move(),)


def test_bw11_5_who_leads_is_chosen_on_a_clear_tray():
    """rule BW-11.5: with a tile of another match on the tray the table asks for the tray to be
    cleared before anyone chooses who leads (the first hand has no deal to wait for)."""
    game = Broadway(seed=1, observed=True, options={"hands": 1})
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    tray.lay("6-6", 4, 5)
    verdict = reader.judge(tray.board())
    assert verdict.same
    assert verdict.note == "hand 1 on 6-6: clear the tray (1 tile), then choose who leads (rule BW-11.5)"
    assert "East leads" not in dict(reader.button_moves(tray.board()))
    tray.take("6-6")
    assert "East leads" in dict(reader.button_moves(tray.board()))


def test_bw11_5_the_table_stores_who_leads_alone(tmp_path):
    """Issue 17 at the table (seed 7): "East leads" in the menu stores `lead E` and no placement
    nobody made; the tray cleared before is the deal."""
    game, reader, tray = broadway_after_hand_one(7)
    table = table_at(tmp_path, game, {t: c for t, c in tray.tiles.items() if t is game.dset.parse("5-5")})
    assert [label for label, _ in table.session.referee.button_moves()] == []
    stored = len(table.stored())
    table.act(Action(ActionKind.REMOVE, game.dset.parse("5-5")))
    assert table.stored()[stored:] == ["deal"]
    table.menu("East leads")
    assert table.stored()[stored:] == ["deal", "lead E"]
    table.act(Action(ActionKind.PLACE, game.dset.parse("5-5"), (table.layout.geometry.cell(4, 5),
                                                                table.layout.geometry.cell(5, 5))))
    assert table.stored()[stored:] == ["deal", "lead E", "5-5@(0,0)-(0,1)"]


def test_bw11_5_the_hands_last_tile_lifted_offers_its_takeback(tmp_path):
    """Issue 17: the tile that ended a hand (every tile down, no shows) lifted right after is its
    takeback (a quiet prompt the table turns into "Take back?"), not the start of the deal."""
    for seed in range(40):
        game = Broadway(seed=seed, observed=True, options={"hands": 2})
        reader, tray = first_hand(game, seed)
        if isinstance(game.moves[-1], Place):
            break
    last = game.moves[-1]
    table = table_at(tmp_path, game, tray.tiles)
    tray.take(last.tile)
    verdict = reader.judge(tray.board())
    assert verdict.pending and verdict.problem.startswith(f"put {last.tile} back at r")
    assert verdict.problem.endswith("or clear the tray for hand 2 (rule BW-11.5)")
    table.act(Action(ActionKind.REMOVE, last.tile))
    assert table.screen.title == "Take back?" and table.session.referee.status.alarms == 0
    stored = table.stored()
    table.press("long-select")  # the menu offers it too, named by its tile, not the engine's notation
    items = table.screen.menu.items
    assert f"Take back {last.tile}" in items and not any("@" in item for item in items), items
    table.press(*["down"] * items.index(f"Take back {last.tile}"), "select", "up", "select")
    assert table.stored() == stored[:-1]


@pytest.mark.parametrize("seed", [7, 4])
def test_a_match_resumed_between_hands_on_a_cleared_tray_goes_on_with_the_deal(tmp_path, seed):
    """Resumed after closing time while owing the deal, with the tray already cleared: the empty
    tray is the deal (committed as the table restores), not a restore screen for ever."""
    game = DoublesInTheBoneyard(seed=seed, observed=True)
    first_hand(game, seed)
    assert game.legal_moves().count() == 1 and next(iter(game.legal_moves())) == DEAL
    table = table_at(tmp_path, game, {})
    match_id = table.session.referee.seating.match_id
    table.store.close()  # closing time: the first table's process is gone, and its hold on the database
    again = Table(tmp_path, None, resumed=match_id)
    again.show()
    assert again.session.referee.status.mode == "play", again.screen.text
    assert again.stored()[-1] == "deal"


def test_regression_bw11_5_a_last_hand_tile_where_a_rack_would_lie_is_cleared_too():
    """Found by the chaos test: without bot seats Broadway's tableau may reach the tray's edge, where
    the bots' racks lie in a match with bots. The deal's steps (the hands: a bots' demo, the replay
    page, a restore) left the hand's last tile, 6-4 on the east rack's cells, on the tray, and who
    leads could be chosen with it still there; the next hand's reading then said "take 4-6 off and
    lead 6-6" even on the tray as the hands laid it out. Every tile is cleared, and who leads waits."""
    moves = ["lead N", "6-6@(0,0)-(1,0)", "1-6@(2,-1)-(2,0)", "1-1@(0,-1)-(1,-1)", "6-2@(2,1)-(2,2)",
             "0-6@(0,1)-(1,1)", "1-5@(3,-1)-(3,0)", "0-2@(0,2)-(1,2)", "0-0@(-1,1)-(-1,2)", "2-2@(1,3)-(2,3)",
             "1-0@(-1,-1)-(-1,0)", "2-5@(3,2)-(4,2)", "2-1@(3,3)-(3,4)", "6-5@(3,1)-(4,1)", "4-5@(4,-1)-(4,0)",
             "1-4@(3,-2)-(4,-2)", "4-4@(5,-2)-(5,-1)", "3-1@(1,-2)-(2,-2)", "5-5@(5,1)-(5,2)", "5-0@(5,0)-(6,0)",
             "4-0@(6,-2)-(6,-1)", "2-3@(4,3)-(5,3)", "5-3@(6,2)-(6,3)", "3-3@(5,4)-(6,4)", "3-0@(4,4)-(4,5)",
             "4-2@(4,-3)-(5,-3)", "6-3@(7,2)-(7,3)", "3-4@(7,4)-(8,4)", "6-4@(8,2)-(8,3)"]
    game = catalog.load({"game": "broadway", "players": 4, "seed": 14, "options": {"hands": 1}, "moves": moves,
                         "observed": True})
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    tray.apply(hands_of(reader).setup(tray.board()))
    left = tray.tiles[game.dset.parse("4-6")]
    assert set(left) <= tray.geometry.racks("broadway")[1].cells  # where the east bot's rack would lie
    tray.apply(hands_of(reader).actions(DEAL, tray.board()))
    assert tray.tiles == {}
    tray.put(game.dset.parse("4-6"), left)
    game.push(DEAL)
    assert not any(isinstance(move, Reveal) for _, move in reader.button_moves(tray.board()))
    assert "clear the tray (1 tile), then choose who leads" in reader.judge(tray.board()).note


def test_regression_db_tiles_just_shown_can_be_taken_back_until_the_next_step(tmp_path):
    """Issue 28, Why 5: at the end of a Doubles game the tiles a player shows are scored at once;
    lifting the just-shown tiles (3 players, seed 8714, target 50) said "clear the tray", never
    "Take back?". Lifted right after, they are the show's takeback; the tray cleared on from there
    withdraws the offer (the next step)."""
    game = DoublesInTheBoneyard(players=3, options={"target": 50}, seed=8714, observed=True)
    reader, tray = first_hand(game, 8714, until=lambda g: bool(g.moves) and isinstance(g.moves[-1], Reveal)
                              and g.moves[-1].word == "show")
    shown, before = game.moves[-1], [str(m) for m in game.moves[:-1]]
    table = table_at(tmp_path, game, tray.tiles)
    assert table.session.referee.status.mode == "play"
    for tile in shown.tiles:
        table.layout.apply(Action(ActionKind.REMOVE, tile))
    table.show()
    assert table.screen.title == "Take back?", (table.screen.title, table.screen.text)
    assert table.screen.text == f"take back the tiles shown ({' and '.join(map(str, shown.tiles))})? press select"
    table.press("select")
    assert [str(m) for m in table.session.referee.game.moves] == before and table.stored() == before


def test_the_hand_over_card_says_who_scored_what_then_gather_the_tiles(tmp_path):
    """Issue 28, Why 5: the next deal came with no word of the hand just over. Between hands the
    table shows what each side scored in it, then the step before any deal: gather the tiles."""
    game = Broadway(options={"hands": 2}, seed=7, observed=True)
    reader, tray = first_hand(game, 7, until=lambda g: g.awaiting() == "deal")
    table = table_at(tmp_path, game, tray.tiles)
    screen = table.screen
    names = table.session.referee.seating.side_names(game)
    gained = [now for now in game.scores]  # the first hand: from nothing
    assert screen.title == "Hand over" and screen.instruction.scored == tuple(gained)
    assert screen.text.startswith(f"{names[0]} scored {gained[0]}, {names[1]} {gained[1]} (points); hand 2 on ")
    assert f"gather the tiles ({len(tray.tiles)} left) for the deal" in screen.text


def test_db8_5_the_players_still_to_show_are_named_as_seated_and_so_is_the_next_leader(tmp_path):
    """Plain words (seed 8714, 3 players): at the end of a game the table named them "P1, then P3"
    and the next leader "P2", the engine's names. Those still to show their tiles head the screen,
    named as seated, as the person to move heads the play page; the hand over names the leader so."""
    game = DoublesInTheBoneyard(players=3, options={"target": 50}, seed=8714, observed=True)
    reader, tray = first_hand(game, 8714, until=lambda g: g.awaiting() == "show")
    table = table_at(tmp_path, game, tray.tiles)
    names = table.session.referee.seating.side_names(game)
    who = listed(names[seat] for seat in game.to_show())
    screen = table.screen
    assert (screen.title, screen.instruction.who) == (who, who)
    assert screen.text == "show your tiles: lay those left on the tray, clear of the line; game 1 is over (rule DB-8.5)"
    game = DoublesInTheBoneyard(players=3, options={"target": 50}, seed=8714, observed=True)
    reader, tray = first_hand(game, 8714, until=lambda g: g.awaiting() == "deal")
    (tmp_path / "deal").mkdir()
    table = table_at(tmp_path / "deal", game, tray.tiles)
    assert table.screen.title == "Hand over"
    assert table.screen.text.endswith(f"then {names[game.current_player]} leads game 2"), table.screen.text
