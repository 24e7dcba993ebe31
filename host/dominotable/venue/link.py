"""The table's link to its venue: publishes the outbox's events in order (QoS 1) and the table's
live state (retained), in its own thread and event loop, so play never waits on the broker.

An event leaves the outbox only when the venue says it has stored it (its ack topic). While the
broker is unreachable the events wait in the table's database and go out in order when it is
back; a table that is switched off meanwhile sends them on its next start. Events the venue has
not acknowledged within `resend` seconds while it is listening (a broker that crashed lost them)
go again, oldest first: the venue drops what it already has. While the venue is away, nothing is
sent twice: the broker keeps what was sent for the venue's session.

The link's state (`state`: connected, offline since when, events waiting) is for the OLED and
the page; `players` is the venue's list of known players, for the table's setup.

A match two tables play (match/remote.py, store/partners.py) goes over the same link. The host
publishes its `started` event, retained, as its invitation (`invite`); every table listens to
the invitations and hands one naming it to the table (`on_invite`). While the match is played,
each table listens to the other's events and hands them to the table (`on_partner`), and says,
retained on its `heard` topic, the last of the partner's events it has applied. A table's events
of the match leave its outbox only once the partner has heard them (and the venue stored them),
and whatever the partner has not heard goes again, from the outbox, once the partner is back or
has heard nothing new for `resend` seconds: so a partition loses nothing, and the partner drops
what it already has (by uid and seq). `partner_state` says why the partner cannot be heard now.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import aiomqtt

from dominotable.store import outbox, partners
from dominotable.store.partners import Partnership
from dominotable.venue import broker as topics
from dominotable.venue.broker import Broker

log = logging.getLogger("dominotable.venue")

WINDOW = 200  # events published and not yet acknowledged by the venue
RESEND = 10.0  # seconds without an ack, while the venue listens, before unacknowledged events go again
RETRY = (0.5, 5.0)  # seconds before reconnecting to the broker: first, then doubling up to this
POLL = 0.5  # seconds between looks at the outbox when nobody says it changed
CLEAR_EVERY = 1.0  # seconds: events the venue has stored leave the outbox together, at most this often
STATE_EVERY = 0.2  # seconds: the live state goes out at most this often


@dataclass(frozen=True)
class LinkState:
    connected: bool
    since: float  # wall-clock time of the last connect or disconnect
    pending: int  # events in the outbox, not yet stored at the venue

    def __str__(self) -> str:
        waiting = f", {self.pending} event{'s' * (self.pending != 1)} waiting" if self.pending else ""
        if self.connected:
            return f"venue connected{waiting}"
        return f"venue offline since {datetime.fromtimestamp(self.since).strftime('%H:%M')}{waiting}"

    def to_dict(self) -> dict[str, Any]:
        return {"connected": self.connected, "since": self.since, "pending": self.pending}


class VenueLink:
    def __init__(self, database: str | Path, table: str, broker: Broker, *, resend: float = RESEND,
                 retry: tuple[float, float] = RETRY):
        self.database = Path(database)
        self.table = topics.table_id(table)
        self.broker = broker
        self.resend = resend
        self.retry = retry
        self.players: list[dict[str, Any]] = []  # the venue's known players, [{"id", "name"}]
        self.on_partner: Callable[[str, dict], None] | None = None  # a partner's event, (its table, event)
        self.on_invite: Callable[[dict], None] | None = None  # another table's invitation to this one
        self.sent = 0  # events published, those sent again included
        self._state = LinkState(False, time.time(), 0)
        self._live: dict[str, Any] | None = None
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._thread_main, name=f"venue-link-{table}", daemon=True)
        self._stopping: asyncio.Event | None = None
        self._changed: asyncio.Event | None = None  # the outbox may have new events
        self._counting: asyncio.Event | None = None  # count them now
        self._shown: asyncio.Event | None = None  # a new live state
        self._counts = 0  # how often the outbox was counted
        self._db: sqlite3.Connection | None = None
        self._reader: sqlite3.Connection | None = None  # the loop's, for the events to send
        self._io = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=f"venue-db-{table}")  # the link's database work
        self._stored: set[tuple[str, int]] = set()  # stored at the venue, still in the outbox
        self._unacked: dict[tuple[str, int], int] = {}  # (uid, seq) -> outbox id, published this connection
        self._sent_to = 0  # the outbox id published last
        self._waiting_since = 0.0  # when the venue last acknowledged, or we began waiting for it
        self._venue_listens = True  # the venue's retained status; unknown counts as listening
        self._in_outbox = 0  # events in the outbox when last counted
        self._shares: list[Partnership] = []  # the matches played with another table, still being served
        self._invitation: dict[str, Any] | None = None  # this table's, for its partner
        self._sharing: asyncio.Event | None = None  # the shares or the invitation changed
        self._their_heard: dict[str, int] = {}  # uid -> the last of our events the partner has applied
        self._online: dict[str, bool] = {}  # partner table -> its retained status
        self._nudged: dict[str, float] = {}  # uid -> when we last sent to the partner, or it heard more
        self._catch_up: set[str] = set()  # uids whose partner is to get what it has not heard at once

    # --- from the table's threads -----------------------------------------------------------

    @property
    def state(self) -> LinkState:
        return self._state

    def start(self) -> VenueLink:
        self._thread.start()
        return self

    def wake(self) -> None:
        """Something was committed: look at the outbox now (any thread; returns at once)."""
        self._call(self._wake)

    def _wake(self) -> None:
        for event in (self._changed, self._counting):
            if event is not None:
                event.set()

    def show(self, live: dict[str, Any]) -> None:
        """The table's live state changed (any thread; returns at once); also looks at the outbox."""
        self._live = live
        self._call(lambda: (self._shown and self._shown.set(), self._wake()))

    def partner_state(self, table: str, uid: str) -> str | None:
        """Why the partner `table` cannot be heard in the match `uid` now, None if it can."""
        if not self._state.connected:
            return "the link is down"
        online = self._online.get(table)
        if online is False:
            return f"table {table} is offline"
        if uid not in self._their_heard:
            return f"table {table} has not joined yet" if online else f"table {table} is not connected"
        return None

    def drain(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds until the venue has stored every event committed before
        this call; whether it has."""
        deadline = time.monotonic() + timeout
        counted = self._counts
        self.wake()
        while (self._counts <= counted or self._state.pending) and time.monotonic() < deadline:
            time.sleep(0.02)
        return self._counts > counted and self._state.pending == 0

    def stop(self) -> None:
        """Say the table is going, disconnect and end the thread; the outbox keeps what was not stored."""
        if self._thread.is_alive():
            self._call(lambda: self._stopping and self._stopping.set())
            self._thread.join(timeout=10)

    def _call(self, fn) -> None:
        try:
            self.loop.call_soon_threadsafe(fn)
        except RuntimeError:  # the loop is closed: the link has stopped
            pass

    # --- the link's thread --------------------------------------------------------------------

    def _thread_main(self) -> None:
        try:
            self.loop.run_until_complete(self._main())
        finally:
            if self._reader is not None:
                self._reader.close()
            gc.collect()  # a client dropped mid-connect closes its socket while its loop still runs
            self.loop.close()
            self._io.submit(self._clear, [key for key in self._stored if self._clearable(key)])
            if self._db is not None:
                self._io.submit(self._db.close)
            self._io.shutdown(wait=True)

    def _open(self) -> None:
        # its own connection, used in the link's database thread only, so the loop never waits
        # for the table's writes; what it deletes need not be durable (a lost delete only sends again)
        self._db = sqlite3.connect(self.database, isolation_level=None, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA synchronous=NORMAL")

    def _read(self, fn, *args):
        """`fn(connection, *args)` on the loop's own connection, which only reads: the events to
        send are read where they are sent, without a trip to the database thread and back (a WAL
        reader never waits for the table's writes)."""
        if self._reader is None:
            self._reader = sqlite3.connect(self.database, isolation_level=None, timeout=5)
        return fn(self._reader, *args)

    async def _db_call(self, fn, *args):
        return await self.loop.run_in_executor(self._io, fn, *args)

    async def _main(self) -> None:
        self._stopping, self._changed, self._shown = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self._counting, self._sharing = asyncio.Event(), asyncio.Event()
        await self._db_call(self._open)
        await self._count()
        clearing = asyncio.ensure_future(self._housekeeping())
        try:
            await self._connect_forever()
        finally:
            clearing.cancel()
            await asyncio.gather(clearing, return_exceptions=True)

    async def _connect_forever(self) -> None:
        delay = self.retry[0]
        while not self._stopping.is_set():
            try:
                async with self.broker.client(f"dominotable-table-{self.table}",
                                              will=(topics.topic(self.table, "status"), topics.status(False))) as client:
                    delay = self.retry[0]
                    self._set(True)
                    log.info("venue link: connected to %s as table %s", self.broker, self.table)
                    await self._connected(client)
            except (aiomqtt.MqttError, OSError) as exc:
                if self._state.connected:
                    log.warning("venue link: lost the broker %s (%s); events wait in the outbox", self.broker, exc)
            except Exception:  # a bug must not end the link: it reconnects
                log.exception("venue link failed; reconnecting")
            if self._state.connected:
                self._set(False)
            if not await _until(self._stopping, delay):
                delay = min(delay * 2, self.retry[1])

    async def _connected(self, client: aiomqtt.Client) -> None:
        await client.subscribe([(topics.topic(self.table, "acks"), 1), (topics.PLAYERS, 1),
                                (topics.VENUE_STATUS, 1)])
        await client.publish(topics.topic(self.table, "status"), topics.status(True), qos=1, retain=True)
        self._unacked.clear()  # everything not yet stored goes (again), in order
        self._sent_to = 0
        self._waiting_since = time.monotonic()
        if self._live is not None:
            self._shown.set()
        await client.subscribe(topics.topic("+", "invite"), qos=1)
        self._online.clear()  # heard again, retained, with the subscriptions
        self._their_heard.clear()
        tasks = [asyncio.ensure_future(c) for c in (self._receive(client), self._send(client), self._publish_state(client),
                                                    self._partners(client), self._stopping.wait())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for task in done:
            task.result()  # a lost connection raises here
        if self._shown.is_set():  # the last state, not yet sent: the venue shows how the table was left
            await client.publish(topics.topic(self.table, "state"), self._state_payload(), qos=1, retain=True,
                                 timeout=2)
        await client.publish(topics.topic(self.table, "status"), topics.status(False), qos=1, retain=True, timeout=2)

    async def _send(self, client: aiomqtt.Client) -> None:
        """Publish the outbox's events in order as they come. The broker's acknowledgements are
        not waited for before the next events go (a round trip each time, under load a long one):
        they are checked as they arrive, and a publish that fails ends the connection."""
        event_topic = topics.topic(self.table, "events")
        inflight: set[asyncio.Future] = set()
        try:
            while True:
                for sent in [s for s in inflight if s.done()]:
                    inflight.discard(sent)
                    sent.result()  # a lost connection raises here
                now = time.monotonic()
                if self._unacked and self._venue_listens and now - self._waiting_since > self.resend:
                    log.info("venue link: %d events not acknowledged for %.0f s: sending them again",
                             len(self._unacked), now - self._waiting_since)
                    self._unacked.clear()
                    self._sent_to = 0
                    self._waiting_since = now
                room = WINDOW - len(self._unacked)
                events = self._read(outbox.pending, self._sent_to, room) if room > 0 else []
                if events and not self._unacked:
                    self._waiting_since = now
                for event in events:
                    self._sent_to = event.id
                events = [e for e in events if (e.uid, e.seq) not in self._stored]
                if events:
                    shared = {share.uid for share in self._shares}
                    for event in events:
                        self._unacked[(event.uid, event.seq)] = event.id
                        if event.uid in shared:
                            self._nudged[event.uid] = now  # the partner has `resend` seconds to hear it
                    self.sent += len(events)
                    # paho sends them in this order
                    sending = asyncio.gather(*(client.publish(event_topic, _payload(event.event, self.table), qos=1)
                                               for event in events))
                    sending.add_done_callback(lambda _: self._changed.set())
                    inflight.add(sending)
                    continue
                self._changed.clear()
                if not any(sent.done() for sent in inflight):
                    await _until(self._changed, POLL)
        finally:
            for sending in inflight:
                sending.cancel()
            await asyncio.gather(*inflight, return_exceptions=True)

    async def _receive(self, client: aiomqtt.Client) -> None:
        acks = topics.topic(self.table, "acks")
        async for message in client.messages:
            if not message.payload:  # a retained message cleared (an invitation withdrawn)
                continue
            try:
                data = json.loads(message.payload)
            except (ValueError, TypeError):
                log.warning("venue link: a message on %s is not JSON", message.topic)
                continue
            about = topics.table_of(message.topic.value)
            if about is not None and about[0] != self.table and about[1] in ("events", "heard", "status", "invite"):
                self._from_table(*about, data)
            elif message.topic.matches(acks) and isinstance(data, dict) and isinstance(data.get("stored"), list):
                stored = [(uid, seq) for uid, seq in (p for p in data["stored"] if isinstance(p, list) and len(p) == 2)
                          if isinstance(uid, str) and isinstance(seq, int)]
                self._stored.update(stored)
                if any(self._unacked.pop(key, None) is not None for key in stored):
                    self._waiting_since = time.monotonic()
                    self._changed.set()  # room in the window
                self._pending(self._in_outbox)
            elif message.topic.matches(topics.PLAYERS) and isinstance(data, list):
                self.players = [p for p in data if isinstance(p, dict) and isinstance(p.get("name"), str)]
            elif message.topic.matches(topics.VENUE_STATUS) and isinstance(data, dict):
                self._venue_listens = bool(data.get("online"))
                self._waiting_since = time.monotonic()

    # --- a match played with another table ----------------------------------------------------

    def _from_table(self, table: str, name: str, data: Any) -> None:
        """A message on another table's topic: its invitation, or, from a partner, an event, what
        it has heard, its status."""
        if name == "invite":
            if isinstance(data, dict) and data.get("partner") == self.table and data.get("table") == table \
                    and self.on_invite is not None:
                self.on_invite(data)
            return
        shares = [share for share in self._shares if share.partner == table]
        if not shares:
            return
        if name == "events" and isinstance(data, dict) and data.get("table") == table and self.on_partner is not None:
            if any(share.uid == data.get("uid") for share in shares):
                self.on_partner(table, data)
        elif name == "status" and isinstance(data, dict):
            online = bool(data.get("online"))
            if online and not self._online.get(table):  # back: what it has not heard goes at once
                self._catch_up.update(share.uid for share in shares)
            self._online[table] = online
        elif name == "heard" and isinstance(data, dict) and isinstance(data.get("heard"), list):
            for pair in data["heard"]:
                if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], int)):
                    continue
                uid, seq = pair
                if not any(share.uid == uid for share in shares):
                    continue
                if uid not in self._their_heard:  # first heard since we connected: send what it lacks now
                    self._catch_up.add(uid)
                elif seq != self._their_heard[uid]:
                    self._nudged[uid] = time.monotonic()
                self._their_heard[uid] = seq
                for key in [k for k in self._unacked if k[0] == uid and k[1] <= seq]:
                    del self._unacked[key]  # heard by the partner: room in the window
                self._changed.set()
            self._sharing.set()

    def _clearable(self, key: tuple[str, int]) -> bool:
        """Whether an event the venue has stored may leave the outbox: not one of a match played
        with another table that the partner has not heard yet."""
        uid, seq = key
        return not any(share.uid == uid for share in self._shares) or seq <= self._their_heard.get(uid, 0)

    async def _partners(self, client: aiomqtt.Client) -> None:
        """Follow the shares: listen to each partner, say what we heard of it, publish or withdraw
        our invitation, and send again what a partner has not heard."""
        listening: set[str] = set()
        said_heard = said_invite = None
        while True:
            wanted = set()
            for share in self._shares:
                wanted |= {topics.topic(share.partner, "heard"), topics.topic(share.partner, "status")}
                if not share.ended:
                    wanted.add(topics.topic(share.partner, "events"))
            for name in sorted(wanted - listening):
                await client.subscribe(name, qos=1)
            for name in sorted(listening - wanted):
                await client.unsubscribe(name)
            listening = wanted
            heard = json.dumps({"heard": [[share.uid, share.seq] for share in self._shares]})
            if heard != said_heard and self._shares:
                await client.publish(topics.topic(self.table, "heard"), heard, qos=1, retain=True)
                said_heard = heard
            invite = json.dumps({**self._invitation, "table": self.table}) if self._invitation else ""
            if invite != said_invite:
                await client.publish(topics.topic(self.table, "invite"), invite, qos=1, retain=True)
                said_invite = invite
            await self._resend_to_partners(client)
            self._sharing.clear()
            await _until(self._sharing, POLL)

    async def _resend_to_partners(self, client: aiomqtt.Client) -> None:
        event_topic = topics.topic(self.table, "events")
        now = time.monotonic()
        for share in self._shares:
            heard = self._their_heard.get(share.uid)
            due = share.uid in self._catch_up or now - self._nudged.get(share.uid, now) > self.resend
            if heard is None or not self._online.get(share.partner) or not due:
                continue
            events = self._read(outbox.of_match, share.uid, heard)
            self._nudged[share.uid] = now
            self._catch_up.discard(share.uid)
            if events:
                log.info("venue link: table %s has heard up to event %d of match %s: sending %d again",
                         share.partner, heard, share.uid, len(events))
                self.sent += len(events)
                await asyncio.gather(*(client.publish(event_topic, _payload(e.event, self.table), qos=1)
                                       for e in events))

    async def _publish_state(self, client: aiomqtt.Client) -> None:
        state_topic = topics.topic(self.table, "state")
        while True:
            await self._shown.wait()
            self._shown.clear()
            await client.publish(state_topic, self._state_payload(), qos=1, retain=True)
            await asyncio.sleep(STATE_EVERY)

    def _state_payload(self) -> bytes:
        return json.dumps({**self._live, "table": self.table}).encode()

    async def _housekeeping(self) -> None:
        """Count the outbox (connected or not), and let the events the venue has stored leave it
        in one transaction a second: a delete per acknowledgement would contend with the table's
        own commits for the database."""
        cleared = time.monotonic()
        while True:
            if self._stored and time.monotonic() - cleared > CLEAR_EVERY:
                stored = [key for key in self._stored if self._clearable(key)]
                await self._db_call(self._clear, stored)
                self._stored.difference_update(stored)
                cleared = time.monotonic()
            await self._count()
            shares, invitation = await self._db_call(self._sharings)
            if (shares, invitation) != (self._shares, self._invitation):
                self._shares, self._invitation = shares, invitation
                self._sharing.set()
            await _until(self._counting, POLL)
            self._counting.clear()

    def _sharings(self) -> tuple[list[Partnership], dict[str, Any] | None]:
        return partners.active(self._db), partners.invitation(self._db)

    def _clear(self, stored: list[tuple[str, int]]) -> None:
        if stored and self._db is not None:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                outbox.acked(self._db, stored)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    async def _count(self) -> None:
        self._in_outbox = await self._db_call(outbox.count, self._db)
        self._pending(self._in_outbox)
        self._counts += 1

    def _pending(self, in_outbox: int) -> None:
        pending = max(in_outbox - len(self._stored), 0)
        if pending != self._state.pending:
            self._state = LinkState(self._state.connected, self._state.since, pending)

    def _set(self, connected: bool) -> None:
        self._state = LinkState(connected, time.time(), self._state.pending)


async def _until(event: asyncio.Event, timeout: float) -> bool:
    """Wait until `event` is set or `timeout` seconds pass; whether it is set. (asyncio.wait_for
    in Python 3.11 swallows a cancellation that comes as the event is set, and the task then never
    ends: a link that would not stop.)"""
    waiter = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait({waiter}, timeout=timeout)
    finally:
        waiter.cancel()
    return event.is_set()


def _payload(event: dict[str, Any], table: str) -> bytes:
    return json.dumps({**event, "table": table}, separators=(",", ":")).encode()
