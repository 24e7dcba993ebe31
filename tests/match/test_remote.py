"""Remote seats (issue 20, item 4): two tables play one Castle Rock match through a real
Mosquitto, two people at each (table_remote.Crew, following each screen's instructions for the
other table's seats). Rule numbers are those of seeds/castle-rock.md: CR-12 is the match across
two tables, CR-10.6 End turn, CR-11 observed play."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import time
from pathlib import Path

from dominotable.match import opening
from dominotable.match.position import Play
from dominotable.match.replay import replay
from dominotable.match.seats import SeatKind
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.store import partners
from dominotable.store.storage import Store
from dominotable.tray.geometry import default
from dominotable.ui.menu import Setup
from support.polling import until
from support.table_remote import AT_T2, NAMES, Crew, Table, pair, play


def numbered(table: Table) -> int:
    """How many events this table numbered for its match (its outbox's last seq)."""
    return table.store.db.execute("SELECT seq FROM outbox_matches WHERE match_id = ?",
                                  (table.runtime.match_id,)).fetchone()[0]


def same_match(t1: Table, t2: Table) -> None:
    """Both stores hold the same moves, replaying to the same scores and result; each table applied
    every event the other numbered, once."""
    one, two = (t.store.match(t.runtime.match_id) for t in (t1, t2))
    assert one.moves == two.moves and one.result == two.result and one.result is not None
    assert replay(one).scores == replay(two).scores == one.result["scores"]
    for table, other in ((t1, t2), (t2, t1)):  # the last events (the hand, the end) may still be on the way
        assert until(lambda: (table.pump(), table.store.partnership(table.runtime.match_id).seq)[1] == numbered(other))


def test_two_tables_play_one_match_through_a_broker_restart(tmp_path, mosquitto, venue):
    """CR-12: t1 starts Castle Rock with CAT and DAN at t2; t2 joins from t1's invitation. Each
    table's people lay the other table's moves as their screen says; the broker stopped mid-match
    pauses the table that waits, naming whom it waits for, and the moves made meanwhile reach it in
    order once the broker is back. Both stores end with the same match; the venue counts it once
    and every event leaves both outboxes (stored at the venue, heard by the partner)."""
    venue.start()
    t1, t2 = pair(tmp_path, mosquitto)
    try:
        for t in (t1, t2):
            t.link.retry = (0.1, 0.5)
        crews = [Crew(t1, (0, 2), seed=1), Crew(t2, AT_T2, seed=2)]
        assert t2.runtime.session is None and t2.screen().kind == "menu"  # until the invitation comes
        # until t1 waits for a player at t2, who is to move there and has not begun
        play([t1, t2], crews, until=lambda: len(t1.game.moves) >= 20 and t1.referee.waiting() is not None
             and t2.moves() == t1.moves() and t2.game.current_player in AT_T2 and not t2.game.placed())
        assert t2.runtime.session.referee.seating.kinds == (SeatKind.REMOTE, SeatKind.HUMAN) * 2  # mirrored
        waited = t1.referee.waiting()
        assert waited.endswith(" at table t2") and waited.split()[0] in ("CAT", "DAN")

        mosquitto.stop()
        paused = ("Paused", f"waiting for {waited}: the link is down")
        assert until(lambda: (t1.pump(), (t1.screen().title, t1.screen().text))[1] == paused, 10)
        before = len(t2.game.moves)
        play([t1, t2], crews, until=lambda: t2.referee.waiting() is not None and t2.screen().title == "Paused")
        assert len(t2.game.moves) > before and len(t1.game.moves) < len(t2.game.moves)  # made at t2 meanwhile
        assert t2.screen().text.startswith("waiting for ") and t2.screen().text.endswith(": the link is down")

        mosquitto.start()
        play([t1, t2], crews)
        same_match(t1, t2)
        assert until(lambda: venue.store.counts() == {"events": numbered(t1) + numbered(t2), "waiting": 0})
        (kept,) = venue.store.matches()  # reported by both tables: one match
        assert (kept.moves if kept.moves else venue.store.match(kept.id).moves) == t1.store.match(1).moves
        assert until(lambda: all(t.store.db.execute("SELECT count(*) FROM outbox").fetchone()[0] == 0
                                 for t in (t1, t2)), 15)
    finally:
        t1.close()
        t2.close()


def test_a_takeback_is_the_moving_tables_and_the_other_follows(tmp_path, mosquitto):
    """CR-12.5: only the table that made a move takes it back. At t2, ANN's tile lifted off the
    row is no takeback but a prompt to put it back; at t1 it is, and t2 takes the move back too,
    asking for the tile off its row. A takeback of a move the other table has already built on
    (ANN's End turn, after which CAT placed at t2) takes that table's later moves back as well;
    their tiles stay and are read again once ANN's turn ends again."""
    t1, t2 = pair(tmp_path, mosquitto, seed=7)
    try:
        crews = [Crew(t1, (0, 2), seed=1), Crew(t2, AT_T2, seed=2)]
        ann = lambda t: t.game.current_player == 0 and not t.game.awaiting() and not t.game.placed() \
            and t.game.boneyard()  # noqa: E731
        play([t1, t2], crews, until=lambda: t2.runtime.session is not None and ann(t1) and ann(t2)
             and t1.game.moves[-1] == t2.game.moves[-1])
        crews[0].top_up()
        crews[0].turn(t1.screen(), 0)  # ANN places
        t1.settle()
        tile = t1.game.moves[-1].placed()

        play([t2], crews[1:], until=lambda: t2.game.moves[-1].placed() == tile)  # laid at t2 as its screen said

        t2.take(tile)  # at t2 it is ANN's: not theirs to take back
        t2.settle()
        assert t2.screen().title != "Take back?" and t2.game.moves[-1].placed() == tile
        assert f"put {tile} back" in t2.screen().text
        cells = t1.tiles()[tile]
        t2.put(tile, t1.tiles()[tile])
        t2.settle()

        t1.take(tile)
        t1.settle()
        assert t1.screen().title == "Take back?"
        t1.press("select")
        assert t1.game.moves[-1].placed() != tile
        assert until(lambda: (t2.pump(), t2.game.moves[-1].placed() != tile)[1], 10)
        assert t2.screen().text == f"take {tile} off: ANN at table t1 has not played it"
        t2.take(tile)  # back into t2's boneyard
        t2.settle()
        assert t2.screen().text == "waiting for ANN at table t1"
        crews[1].pile.add(tile)

        # ANN places again; at t2 a wrong tile for her is refused (CR-12.3)
        t1.put(tile, cells)
        t1.settle()
        assert until(lambda: (t2.pump(), t2.screen().bot.startswith(f"ANN: put {tile} "))[1], 10)
        said = t2.screen().bot
        wrong = min(crews[1].pile - {tile})
        t2.put(wrong, t1.tiles()[tile])
        t2.settle()
        assert t2.screen().text == f"take {wrong} off; {said}" and str(tile) not in t2.moves()[-1:]
        t2.take(wrong)
        t2.settle()

        # ANN ends her turn; CAT places at t2 before t1 hears of it; t1 takes the end back
        t1.menu("End turn", confirm=True)
        end = len(t1.game.moves)
        play([t2], crews[1:], until=lambda: len(t2.game.moves) == end)
  # ANN's tile laid at t2 again
        crews[1].step()  # CAT places at t2
        assert len(t2.game.moves) == end + 1 and t2.game.current_player == 1
        cat = t2.game.moves[-1]
        t1.menu("Take back End turn", confirm=True)
        assert len(t1.game.moves) == end - 1
        assert until(lambda: (t2.pump(), len(t2.game.moves) == end - 1)[1], 10)  # CAT's placement went too
        assert t2.screen().text == "waiting for ANN at table t1" and cat.placed() in t2.tiles()
        t1.pump()  # CAT's placement, heard at t1 after its takeback: nothing to lay
        assert t1.screen().title not in ("CAT", "Table t2") and len(t1.game.moves) == end - 1
        t1.menu("End turn", confirm=True)
        assert until(lambda: (t2.pump(), len(t2.game.moves) == end + 1)[1], 10)  # CAT's tile read again
        assert t2.game.moves[-1] == cat
        play([t1, t2], crews)
        same_match(t1, t2)
    finally:
        t1.close()
        t2.close()


# -- kill -9 ------------------------------------------------------------------------------------

def guest(folder: str, url: str, state: str) -> None:
    """Table t2 and its people in a process of their own: once t2 has heard a placement of t1's it
    has not laid yet, the people write down what lies where (tiles outlive the process) and the
    parent kills the process."""
    from support.broker import Mosquitto

    broker = Mosquitto.__new__(Mosquitto)
    broker.scheme, broker.port = "mqtt", int(url.rsplit(":", 1)[1])
    t2 = Table(Path(folder), "t2", "t1", broker)
    crew = Crew(t2, AT_T2, seed=2)
    while True:
        t2.settle()
        said = t2.screen().bot if t2.runtime.session is not None else ""
        if said.startswith(("ANN: put", "BOB: put")) and len(t2.game.moves) > 8:
            with open(state + ".new", "w") as f:
                json.dump({"tiles": {str(t): list(c) for t, c in t2.tiles().items()}, "said": said,
                           "pile": sorted(map(str, crew.pile)),
                           "hands": {s: [str(t) for t in h] for s, h in crew.hands.items()}}, f)
            os.replace(state + ".new", state)
            time.sleep(60)
        crew.step()
        time.sleep(0.002)


def test_a_table_killed_mid_turn_resumes_with_the_move_it_heard(tmp_path, mosquitto):
    """kill -9 of t2 once it has heard (and committed) ANN's or BOB's placement but before its
    people laid it. Restarted while t1 is away (nothing can be sent again), t2 resumes from its
    store: once its tray is as it was, it says the same placement to lay; then both play on.
    (What t1 did after the kill and before it went away, the broker kept for t2: it comes in once
    t2's link is up, and is laid too.)"""
    state = str(tmp_path / "t2.json")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["support.table_remote"])
    child = ctx.Process(target=guest, args=(str(tmp_path), mosquitto.url("t2"), state))
    child.start()
    t1 = Table(tmp_path, "t1", "t2", mosquitto, pair_choice(), seed=5)
    t2 = None
    try:
        crew1 = Crew(t1, (0, 2), seed=1)
        deadline = time.monotonic() + 60
        while not os.path.exists(state):
            assert child.is_alive() and time.monotonic() < deadline, "the match did not get going"
            if crew1.step() != "did":
                t1.settle()
                time.sleep(0.005)
        child.kill()
        child.join(10)
        t1.disconnect()  # away: t2 has only its store to go on
        with open(state) as f:
            memory = json.load(f)
        t2 = Table(tmp_path, "t2", "t1", mosquitto)
        assert t2.referee.seating.resumed and t2.screen().title == "Restore the table"
        heard = t2.referee.partner.plan(t2.referee.position)  # from the store: nothing was heard since the start
        assert heard and f"put {heard[0].placed()} " in memory["said"]
        parse = t2.game.dset.parse
        for tile, cells in memory["tiles"].items():
            t2.put(parse(tile), cells)
        t2.settle()
        assert t2.screen().bot == memory["said"]  # the move heard before the kill, from the store
        crew2 = Crew(t2, AT_T2, seed=3)
        crew2.pile = {parse(t) for t in memory["pile"]}
        crew2.hands = {int(s): [parse(t) for t in h] for s, h in memory["hands"].items()}
        # its own link comes up first ("the link is down" until then); then it hears what t1 did
        # before it went away, if anything (its people lay that too), and that t1 is away
        play([t2], [crew2], until=lambda: t2.referee.waiting() is not None
             and t2.screen().text == f"waiting for {t2.referee.waiting()}: table t1 is offline")
        assert t2.screen().title == "Paused"
        t1.connect()
        play([t1, t2], [crew1, crew2])
        same_match(t1, t2)
    finally:
        if child.is_alive():
            child.kill()
        t1.close()
        if t2 is not None:
            t2.close()


# -- the parts ----------------------------------------------------------------------------------

def pair_choice():
    from dominotable.ui.menu import Choice

    return Choice(CastleRock, CastleRock.Options(hands=1), 4, list(NAMES), remote=AT_T2)


def test_the_partners_events_are_applied_once_and_in_order(tmp_path):
    """Dedupe by the partner's uid and seq: the host's events delivered shuffled and each twice
    are heard once each, in order (an early one waits for the gap to fill), and what was heard is
    stored with the commit that heard it."""
    geo = default()
    host_store, guest_store = Store(tmp_path / "t1.db"), Store(tmp_path / "t2.db")
    for store in (host_store, guest_store):
        store.publish()  # tables with a partner have a venue (app/venue.py)
    game = CastleRock(players=4, options={"hands": 1}, seed=3, observed=True)
    kinds = [SeatKind.REMOTE if s in AT_T2 else SeatKind.HUMAN for s in range(4)]
    host = opening.start(host_store, game, NAMES, geo, kinds, partner="t2")
    invitation = {**partners.invitation(host_store.db), "table": "t1"}
    guest = opening.join(guest_store, invitation, geo)
    assert guest.partner.uid == host.partner.uid and guest.partner.seats == frozenset({0, 2})
    rng = random.Random(1)
    for _ in range(12):
        move = rng.choice(list(host.game.legal_moves()))
        host.committer.commit([Play(move)])
    host.take_back()
    events = [json.loads(e) | {"table": "t1"} for (e,) in host_store.db.execute(
        "SELECT event FROM outbox ORDER BY id")]
    assert [e["kind"] for e in events][-1] == "takeback"
    late = events[5]
    shuffled = [e for e in events if e is not late] * 2
    rng.shuffle(shuffled)
    for event in shuffled:
        guest.hear(event)
    assert guest.position.heard.seq == 5  # waiting for event 6
    assert guest.hear(late) and not guest.hear(late)
    heard = guest.position.heard
    assert heard.seq == len(events) and list(heard.moves) == [str(m) for m in host.game.moves]
    stored = guest_store.partnership(guest.seating.match_id)
    assert (stored.seq, stored.moves) == (heard.seq, heard.moves)
    assert guest_store.match(guest.seating.match_id).remote == [0, 2]
    host_store.close()
    guest_store.close()


def test_the_setup_menu_seats_players_at_the_partner_table():
    """With a partner table configured, each seat of Castle Rock is a player here, a bot (where the
    tray has its rack) or a player at the partner table; a game not played across tables does not
    offer it."""
    from dominotable.rules.games.broadway.engine import Broadway

    setup = Setup([CastleRock, Broadway], ["ANN", "BOB", "CAT", "DAN"], {CastleRock: ["south", "west"]}, partner="t2",
                  remote=frozenset({CastleRock}))
    for press in ["select", "up", "select"]:  # Castle Rock, up to Start
        setup.handle(press)
    assert setup.current.items == ["Player", "Bot (south)", "At t2"]
    for press in ["select", "select", "up", "select", "select"]:  # ANN here; BOB at t2
        setup.handle(press)
    assert setup.current.items == ["Player", "At t2"]
    for press in ["select", "select", "up", "select", "select"]:  # CAT here; DAN at t2
        setup.handle(press)
    assert setup.done and setup.value.remote == (1, 3) and setup.value.names == ["ANN", "BOB", "CAT", "DAN"]
    broadway = Setup([Broadway], [], {}, partner="t2", remote=frozenset({CastleRock}))
    for press in ["select", "up", "select"]:
        broadway.handle(press)
    assert broadway.stage == "name"  # no choice of seats to make


def test_the_pages_setup_form_seats_players_at_the_partner_table():
    """The page's form is the same choice (Setup.offer/choose): it offers the partner table for the
    games played across tables, takes a remote seat with its name, and refuses one, naming why,
    where there is no partner table or the game is not played across tables."""
    import pytest
    from dominotable.rules.errors import DominoError
    from dominotable.rules.games.broadway.engine import Broadway
    from dominotable.ui.menu import Seat

    setup = Setup([CastleRock, Broadway], [], {CastleRock: ["south", "west"]}, partner="t2",
                  remote=frozenset({CastleRock}))
    offered = {g["name"]: g for g in setup.offer()["games"]}
    assert offered["castle-rock"]["remote"] == "t2" and offered["broadway"]["remote"] == ""
    seats = [Seat("ANN"), Seat("", bot=True), Seat("CAT", remote=True), Seat("DAN", remote=True)]
    choice = setup.choose(CastleRock, {"hands": 1}, seats)
    assert choice.remote == (2, 3) and list(choice.bots) == [1]
    assert choice.names == ["ANN", "West bot", "CAT", "DAN"]
    with pytest.raises(DominoError, match="seat 2 cannot be at another table: Broadway is not played across two"):
        setup.choose(Broadway, {}, [Seat("ANN"), Seat("BOB", remote=True), Seat("CAT"), Seat("DAN")])
    alone = Setup([CastleRock], [], {CastleRock: ["south", "west"]})
    with pytest.raises(DominoError, match=r"seat 2 cannot be at another table: this table has no partner table"):
        alone.choose(CastleRock, {}, [Seat("ANN"), Seat("BOB", remote=True)])
