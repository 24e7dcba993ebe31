"""A venue of tables on a real Mosquitto (issue 20): every committed event reaches the venue once,
whatever the broker and the network do, and the venue serves one scoreboard across tables.

Each fault test ends with the same check: every event each table numbered is kept at the venue,
every table's outbox is empty (nothing lost), and the venue has each match once with the
table's own moves and result (nothing counted twice)."""

from __future__ import annotations

import asyncio
import json
import random
import threading

import pytest
from dominotable.store import outbox
from dominotable.store.storage import Store
from dominotable.venue.broker import Broker
from dominotable.venue.link import VenueLink
from dominotable.venue.store import VenueStore
from support.broker import Mosquitto
from support.polling import until
from support.venue_fixtures import Venue, play_match, same_matches

PLAYERS = ["Ann", "Bob", "Cat", "Dan", "Eve"]


def test_the_outbox_numbers_each_change_in_the_same_transaction(tmp_path, mosquitto, tables):
    """Store level: started, moves, a takeback, ended, in order from seq 1; a change that fails
    leaves no event; a match begun before the outbox is first told as started with its moves."""
    (table,) = tables()
    match_id = table.play(PLAYERS[:2], moves=5)
    kinds = [(json.loads(e)["kind"], seq) for seq, e in table.store.db.execute(
        "SELECT seq, event FROM outbox WHERE match_id = ? ORDER BY id", (match_id,))]
    assert kinds == [("started", 1), ("move", 2), ("move", 3), ("move", 4), ("takeback", 5), ("move", 6),
                     ("move", 7), ("move", 8)]
    with pytest.raises(Exception):
        table.store.append_move(match_id, 2, "x")  # a ply it already has: refused, no event
    assert table.events() == 8
    table.store.db.execute("DELETE FROM outbox_matches")  # as if the match had begun before the outbox
    table.store.db.execute("DELETE FROM outbox")
    table.store.set_aside(match_id, "a test")
    started, aside = [json.loads(e) for (e,) in table.store.db.execute("SELECT event FROM outbox ORDER BY id")]
    assert started["kind"] == "started" and started["moves"] == table.store.match(match_id).moves
    assert (aside["kind"], aside["seq"], aside["why"]) == ("aside", 2, "a test")


def test_without_a_venue_no_outbox_rows_accumulate(tmp_path):
    """Was: every change went into the outbox whether the table had a venue or not, so the outbox
    of a table without one grew with every move, forever."""
    with Store(tmp_path / "t1.sqlite3") as store:
        play_match(store, PLAYERS[:2], seed=1)
        play_match(store, PLAYERS[:3], seed=2, moves=7)
        assert [len(store.matches()), outbox.count(store.db)] == [2, 0]
        assert store.db.execute("SELECT count(*) FROM outbox_matches").fetchone() == (0,)


def test_a_venue_first_configured_hears_the_tables_stored_history_once(tmp_path, mosquitto, tables, venue):
    """The matches played before the table had a venue (finished, unfinished, set aside) reach it
    when one is first configured, each once, with their moves and results; later starts tell it
    nothing more of them, and what the table plays next goes as ever."""
    with Store(tmp_path / "t1.sqlite3") as store:
        before = [play_match(store, PLAYERS[:2], seed=1), play_match(store, PLAYERS[:3], seed=2, moves=7),
                  play_match(store, PLAYERS[1:3], seed=3, moves=4)]
        store.set_aside(before[2], "its moves no longer replay (a test)")
        assert outbox.count(store.db) == 0
    (t1,) = tables()  # the table's next start, now with a venue
    t1.played = list(before)
    t1.connect()
    venue.start()
    venue.wait_until_kept([t1])
    same_matches(venue, [t1])
    assert {r.table_match: r.damaged for r in venue.store.matches()}[before[2]]
    numbered = t1.events()
    with Store(tmp_path / "t1.sqlite3", lock=False) as again:
        assert again.publish() == 0  # told once: the next start tells it nothing
    t1.play(PLAYERS[:2], seed=4)
    venue.wait_until_kept([t1])
    same_matches(venue, [t1])
    assert t1.events() > numbered


def test_events_reach_the_venue_once_and_the_scoreboard_shows_them(mosquitto, tables, venue):
    t1, t2 = (t.connect() for t in tables(2))
    venue.start()
    t1.play(["Ann", "Bob"], seed=1)
    t2.play(["ann", "Cat"], seed=2)  # the same Ann, spelt otherwise at another table
    venue.wait_until_kept([t1, t2])
    same_matches(venue, [t1, t2])
    assert [p["name"] for p in venue.get("/api/players")] == ["Ann", "Bob", "Cat"]
    assert until(lambda: [p["name"] for p in t1.link.players] == ["Ann", "Bob", "Cat"])  # for the table's setup
    (board,) = venue.get("/api/leaderboard")
    assert {p["name"]: p["matches"] for p in board["players"]} == {"Ann": 2, "Bob": 1, "Cat": 1}
    matches = venue.get("/api/matches")
    assert {m["table"] for m in matches} == {"t1", "t2"} and all("<svg" in m["plot"] for m in matches)
    page = venue.get(f"/replay/{matches[0]['id']}?step=4")
    assert "move 4 of" in page and 'class="tile"' in page
    assert "Leaderboard" in venue.get("/kiosk") and "venue.js" in venue.get("/")
    assert until(lambda: str(t1.link.state) == "venue connected"), str(t1.link.state)  # its outbox acknowledged


def test_a_table_goes_on_after_its_outbox_emptied(mosquitto, tables, venue):
    """Once the venue has stored everything and the outbox is empty, the next events still go:
    an outbox id is never reused (the link reads on from the last it sent)."""
    t1 = tables()[0].connect()
    venue.start()
    t1.play(PLAYERS[:2], seed=21, moves=10)
    venue.wait_until_kept([t1])
    t1.play(PLAYERS[:2], seed=22, moves=10)
    venue.wait_until_kept([t1], timeout=1.5)  # sooner than the link would send anything again
    same_matches(venue, [t1])


def test_the_live_state_is_retained_and_the_status_follows_the_table(mosquitto, tables, venue):
    (table,) = tables()
    table.connect()
    table.link.show({"kind": "play", "game": {"name": "castle-rock", "title": "Castle Rock", "match": 1},
                     "scores": [{"name": "Ann", "points": 3}, {"name": "Bob", "points": 5}], "turn": "Ann"})
    assert until(lambda: table.link.state.connected)
    venue.start()  # after the table: the state was retained for it
    live = lambda: {t["table"]: t for t in venue.get("/api/tables")["tables"]}  # noqa: E731
    assert until(lambda: (live().get("t1") or {}).get("state", {}) and live()["t1"]["online"])
    assert [side["points"] for side in live()["t1"]["state"]["scores"]] == [3, 5]
    table.disconnect()
    assert until(lambda: not live()["t1"]["online"])


def test_the_broker_down_at_start(tmp_path, tables, mosquitto):
    mosquitto.stop()
    t1 = tables()[0].connect()
    t1.play(PLAYERS[:2], seed=3)  # play does not wait for the broker
    assert t1.pending() == t1.events() > 60 and not t1.link.state.connected
    assert until(lambda: t1.link.state.pending == t1.events())  # counted in the link's own time
    assert "offline since" in str(t1.link.state) and f"{t1.events()} events waiting" in str(t1.link.state)
    mosquitto.start()
    v = Venue(tmp_path / "venue.sqlite3", mosquitto).start()
    try:
        v.wait_until_kept([t1])
        same_matches(v, [t1])
    finally:
        v.stop()


def test_the_broker_restarted_mid_match(mosquitto, tables, venue):
    """SIGTERM: Mosquitto saves and exits; the table goes on, its events wait, then go in order."""
    t1, t2 = (t.connect() for t in tables(2))
    venue.start()
    t1.play(PLAYERS[:2], seed=4, moves=20)
    mosquitto.stop()
    t1.play(PLAYERS[:2], seed=5)
    t2.play(PLAYERS[2:4], seed=6)
    mosquitto.start()
    venue.wait_until_kept([t1, t2])
    same_matches(venue, [t1, t2])


def test_the_broker_killed_mid_run(mosquitto, tables, venue):
    """kill -9 rolls the broker back to its last save (autosave 60 s here): the events it queued for
    the venue, which was away, are gone with it. The tables still hold them and send them again."""
    t1, t2 = (t.connect() for t in tables(2))
    venue.start()
    t1.play(PLAYERS[:2], seed=7)
    venue.wait_until_kept([t1])
    venue.stop()
    t1.play(PLAYERS[:2], seed=8)
    t2.play(PLAYERS[1:3], seed=9)
    assert until(lambda: "dominotable-venue" in mosquitto.log() and t1.link.state.pending == t1.pending() > 0)
    mosquitto.kill()
    mosquitto.start()
    venue.start()
    venue.wait_until_kept([t1, t2])
    same_matches(venue, [t1, t2])


def test_the_broker_killed_while_delivering(mosquitto, tables, venue):
    """kill -9 while events flow: some were acknowledged by the broker and never delivered, others
    delivered and then delivered again after the restart. Lost ones are sent again by the table
    once the venue has not acknowledged them for a while; duplicates are dropped."""
    t1 = tables()[0].connect()
    venue.start()
    stop = threading.Event()

    def killer():
        if until(lambda: venue.store.counts()["events"] > 30 or stop.is_set(), 20):
            mosquitto.kill()
            mosquitto.start()
    thread = threading.Thread(target=killer)
    thread.start()
    t1.play(PLAYERS[:2], seed=10)
    t1.play(PLAYERS[:2], seed=11)
    stop.set()
    thread.join()
    venue.wait_until_kept([t1])
    same_matches(venue, [t1])


def test_events_published_while_the_venue_is_away_wait_at_the_broker(mosquitto, tables, venue):
    """The venue's persistent session: what the tables publish while it is down is queued for it
    (the tables do not send it twice meanwhile) and delivered in order when it is back."""
    t1 = tables()[0].connect()
    venue.start()
    venue.stop()
    t1.play(PLAYERS[:2], seed=12)
    assert until(lambda: t1.link.sent == t1.events() and not t1.link._venue_listens)
    venue.start()
    venue.wait_until_kept([t1])
    same_matches(venue, [t1])
    assert t1.link.sent == t1.events()  # each sent once: the broker kept them for the venue


def test_a_table_offline_for_a_whole_match_then_back(tmp_path, mosquitto, tables, venue):
    """The table's network is down (its link not running) for a whole match, and the table is
    switched off and on: its next start sends the match from its outbox."""
    t1, t2 = tables(2)
    t2.connect()
    venue.start()
    t1.play(PLAYERS[:2], seed=13)
    t2.play(PLAYERS[2:4], seed=14)
    venue.wait_until_kept([t2])
    assert t1.pending() == t1.events()
    t1.connect()  # back
    venue.wait_until_kept([t1, t2])
    same_matches(venue, [t1, t2])


def test_twenty_tables_publishing_at_once(mosquitto, tables, venue):
    """Twenty tables, each a match, all at once; players shared between tables are rated as one."""
    twenty = [t.connect() for t in tables(20)]
    venue.start()
    threads = [threading.Thread(target=t.play, args=([PLAYERS[n % 5], PLAYERS[(n + 1) % 5]],),
                                kwargs={"seed": 100 + n}) for n, t in enumerate(twenty)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    venue.wait_until_kept(twenty, timeout=40)
    same_matches(venue, twenty)
    (board,) = venue.get("/api/leaderboard")
    assert sorted(p["matches"] for p in board["players"]) == [8, 8, 8, 8, 8]  # each of five played eight


def test_duplicated_and_reordered_deliveries(mosquitto, tables, venue):
    """Events published straight to the venue, each one to three times, in random order: the
    venue holds the early ones until their gap is filled, keeps each once, and acknowledges all."""
    (t1,) = tables()
    t1.play(PLAYERS[:2], seed=15)
    events = [json.loads(e) | {"table": "t1"} for (e,) in t1.db.execute("SELECT event FROM outbox")]
    sent = [e for e in events for _ in range(random.Random(1).randint(1, 3))]
    random.Random(2).shuffle(sent)
    venue.start()
    acked = set()

    async def publish():
        async with Broker.parse(mosquitto.url("t1")).client("dominotable-table-t1") as client:
            await client.subscribe("dominotable/tables/t1/acks", qos=1)
            for event in sent:
                await client.publish("dominotable/tables/t1/events", json.dumps(event), qos=1)
            async with asyncio.timeout(20):
                async for message in client.messages:
                    acked.update(map(tuple, json.loads(message.payload)["stored"]))
                    if len(acked) == len(events):
                        return
    asyncio.run(publish())
    assert acked == {(e["uid"], e["seq"]) for e in events}
    assert venue.store.counts() == {"events": len(events), "waiting": 0}
    t1.db.execute("DELETE FROM outbox")  # acknowledged (by hand: this table had no link)
    same_matches(venue, [t1])


def test_a_table_cannot_publish_to_another_tables_topic(mosquitto, tables, venue):
    """The ACL: table t1's user may publish only under dominotable/tables/t1/; for remote seats it
    may read another table's events, invitation, heard and status, never its acks."""
    (t1,) = tables()
    t1.play(PLAYERS[:2], seed=16)
    events = [json.loads(e) for (e,) in t1.db.execute("SELECT event FROM outbox ORDER BY id")]
    venue.start()
    got: list[str] = []

    async def publish():
        async with Broker.parse(mosquitto.url("t2")).client("dominotable-table-t2") as reader, \
                Broker.parse(mosquitto.url("t1")).client("dominotable-table-t1") as client:
            await reader.subscribe([(f"dominotable/tables/{table}/{name}", 1) for table in ("t1", "t2")
                                    for name in ("events", "invite", "heard", "status", "acks")])

            async def listen():
                async for message in reader.messages:
                    got.append(message.topic.value.removeprefix("dominotable/tables/"))
            listening = asyncio.ensure_future(listen())
            for event in events:  # forged as t2's, on t2's topics
                await client.publish("dominotable/tables/t2/events", json.dumps(event | {"table": "t2"}), qos=1)
            for name in ("state", "invite", "heard"):
                await client.publish(f"dominotable/tables/t2/{name}", json.dumps({"names": ["Mallory"]}), qos=1,
                                     retain=True)
            for name in ("invite", "heard", "events"):  # its own: the partner reads them
                await client.publish(f"dominotable/tables/t1/{name}", json.dumps(events[0] | {"table": "t1"}), qos=1)
            deadline = asyncio.get_running_loop().time() + 10
            while len(got) < 3 and asyncio.get_running_loop().time() < deadline:  # t1's, sent after the forged
                await asyncio.sleep(0.005)
            listening.cancel()
    asyncio.run(publish())
    assert until(lambda: venue.store.counts()["events"] == 1)  # t1's own event, sent after the forged ones
    assert {m.table for m in venue.store.matches()} == {"t1"} and "t2" not in venue.server.tables
    assert "Denied PUBLISH" in mosquitto.log()
    # t1's acks (the venue's) are no other table's to read; what t1 forged on t2's topics never came
    assert sorted(got) == ["t1/events", "t1/heard", "t1/invite"]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_venue_store_keeps_events_idempotently(backend, tmp_path, mosquitto, tables, request):
    """The same store interface on SQLite and on a real PostgreSQL: batches with duplicates, gaps
    filled later, an event from a table that is not its topic's refused."""
    where = request.getfixturevalue("postgres").fresh("idempotent") if backend == "postgresql" else \
        tmp_path / "venue.sqlite3"
    (t1,) = tables()
    t1.play(PLAYERS[:2], seed=17)
    events = [json.loads(e) | {"table": "t1"} for (e,) in t1.db.execute("SELECT event FROM outbox ORDER BY id")]
    store = VenueStore(where)
    try:
        late = [e for e in events if e["kind"] == "move"][30]  # held up: the moves after it wait for it
        first = [e for e in events if e is not late]
        random.Random(3).shuffle(first)
        got = store.receive([("t1", e) for e in first + first[:10]] + [("t2", events[0])])
        assert (got.new, dict(got.stored).keys(), store.counts()["waiting"]) == (
            len(events) - 1, {"t1"}, len(events) - late["seq"])
        assert store.match(store.matches()[0].id).moves == t1.store.match(1).moves[:late["ply"] - 1]
        store.receive([("t1", late), ("t1", late)])
        assert store.counts() == {"events": len(events), "waiting": 0}
        record = store.match(store.matches()[0].id)
        assert (record.moves, record.result) == (t1.store.match(1).moves, t1.store.match(1).result)
    finally:
        store.close()


def test_a_venue_in_postgresql_behind_the_broker(postgres, mosquitto, tables):
    (t1,) = tables()
    t1.connect()
    v = Venue(postgres.fresh("league"), mosquitto).start()
    try:
        t1.play(PLAYERS[:2], seed=18)
        v.wait_until_kept([t1])
        same_matches(v, [t1])
        assert v.get("/api/leaderboard")[0]["players"][0]["matches"] == 1
    finally:
        v.stop()


def test_tables_and_the_venue_over_tls(tmp_path):
    """mqtts:// with the CA file of the broker's (here self-signed) certificate; without it the
    certificate is refused."""
    import subprocess

    from support.venue_fixtures import SimTable

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    broker = Mosquitto(tmp_path / "tls", tables=("t1",), tls=(cert, key)).start()
    try:
        table = SimTable(tmp_path, "t1", broker)
        table.link = VenueLink(table.path, "t1", Broker.parse(broker.url("t1"), ca=str(cert)), retry=(0.1, 0.5)).start()
        v = Venue(tmp_path / "venue.sqlite3", broker)
        v.ca = str(cert)
        v.start()
        table.play(PLAYERS[:2], seed=19)
        v.wait_until_kept([table])
        same_matches(v, [table])
        v.stop()
        untrusted = VenueLink(table.path, "t1", Broker.parse(broker.url("t1")), retry=(0.1, 0.5)).start()
        table.play(PLAYERS[:2], seed=20, moves=3)
        assert not until(lambda: untrusted.state.connected, 1.5)
        untrusted.stop()
        table.close()
    finally:
        broker.stop()


def test_broker_addresses_and_table_ids():
    from dominotable.venue.broker import BrokerError, table_id

    b = Broker.parse("mqtt://bar-1:p%40ss@venue.local:1884")
    assert (b.host, b.port, b.username, b.password, b.tls) == ("venue.local", 1884, "bar-1", "p@ss", False)
    assert str(b) == "mqtt://bar-1@venue.local:1884"  # no password in what is printed
    assert Broker.parse("mqtts://venue.local", "u", "p").port == 8883
    for bad in ("http://x:1", "mqtt://", "mqtt://h:99999", "mqtt://h:1/topic"):
        with pytest.raises(BrokerError):
            Broker.parse(bad)
    for bad in ("a/b", "t+", "", "#"):
        with pytest.raises(BrokerError):
            table_id(bad)


def test_the_sample_mosquitto_conf_is_one_mosquitto_accepts(tmp_path):
    """deploy/mosquitto/mosquitto.conf, with its paths moved into a temporary folder."""
    import os

    from support.broker import ACL, free_port, need_mosquitto

    need_mosquitto()
    conf = (ACL.parent / "mosquitto.conf").read_text()
    assert "persistence_location /var/lib/mosquitto/\n" in conf and "max_queued_messages 200000" in conf
    port = free_port()
    (tmp_path / "passwd").write_text("")
    moved = (conf.replace("/var/lib/mosquitto/", f"{tmp_path}/").replace("/run/mosquitto/", f"{tmp_path}/")
             .replace("/var/log/mosquitto/", f"{tmp_path}/").replace("/etc/mosquitto/dominotable.passwd",
                                                                     f"{tmp_path}/passwd")
             .replace("/etc/mosquitto/dominotable.acl", str(ACL)).replace("listener 1883", f"listener {port} 127.0.0.1")
             .replace("include_dir /etc/mosquitto/conf.d", "") + ("user root\n" if os.geteuid() == 0 else ""))
    broker = Mosquitto.__new__(Mosquitto)
    broker.folder, broker.port, broker.process = tmp_path, port, None
    (tmp_path / "mosquitto.conf").write_text(moved)
    broker.start()
    broker.stop()
    assert "Error" not in (tmp_path / "mosquitto.log").read_text()
