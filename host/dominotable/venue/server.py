"""The venue: one scoreboard and one rating list for every table of a bar (or a league).

It subscribes to every table's events, live state and status with a fixed client id and a
persistent session (so what the tables publish while it is down waits at the broker for it),
keeps the events in its store (store.py: duplicates and reorderings are harmless) and
acknowledges each one kept to its table. It publishes the known players (retained) for the
tables' setup, and its own status, so the tables resend only while it listens.

It serves, on the web base (web/base.py, as the table's page does), every table's live state, the
leaderboard and openskill ratings across tables (the same ratings as a table's, views/ratings.py,
over the venue's players), the recent matches each replayable, and a kiosk view for a screen
across the bar. Nothing can be controlled from the page: it only shows.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from typing import Any

import aiomqtt
from aiohttp import web

from dominotable.rules.errors import DominoError
from dominotable.tray.geometry import Geometry, default
from dominotable.venue import broker as topics
from dominotable.venue.broker import Broker
from dominotable.venue.store import VenueStore
from dominotable.views import boards, review
from dominotable.web.base import WebBase
from dominotable.web.guard import Refused

log = logging.getLogger("dominotable.venue")

BATCH = 500  # events kept in one transaction at most
RECENT = 20  # matches on the scoreboard


class VenueServer(WebBase):
    name = "venue"
    stop_timeout = 10.0  # what came in kept, the broker told, the tasks ended

    def __init__(self, store: VenueStore, broker: Broker, host: str = "127.0.0.1", port: int = 8090, *,
                 rate_demos: bool = False, geometry: Geometry | None = None, retry: tuple[float, float] = (0.5, 5.0)):
        """`rate_demos`: rate the bots' demo matches too (a venue of simulated tables); `retry`:
        seconds before reconnecting to the broker, first and at most."""
        super().__init__(host, port, __package__)
        self.retry = retry
        self.store = store
        self.broker = broker
        self.rate_demos = rate_demos
        self.geometry = geometry or default()  # the tray a replay is laid out on
        self.tables: dict[str, dict[str, Any]] = {}  # table -> {"state", "online", "seen"}
        self.connected = False
        self.version = 0  # bumped when the store changes: the page fetches again
        self._queue: asyncio.Queue | None = None
        self._client: aiomqtt.Client | None = None
        self._tasks: list[asyncio.Task] = []
        self._acking: set[asyncio.Task] = set()  # acknowledgements on their way
        self._boards: tuple[int, list] | None = None  # (version, leaderboard)
        self._plots: dict[tuple, list[list[int]]] = {}  # (match, moves, finished) -> scores after every hand

    # --- life cycle (the web base's, with the broker) ---------------------------------------------

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/", self.page("venue.html")), web.get("/kiosk", self.page("kiosk.html")),
            web.get("/api/tables", self._api_tables),
            web.get("/api/leaderboard", self._api(self.leaderboard)), web.get("/api/matches", self._api(self.matches)),
            web.get("/api/players", self._api(self.store.players)), web.get("/replay/{id}", self._replay),
        ]

    async def started(self) -> None:
        """Listen to the broker once the page is served."""
        self._queue = asyncio.Queue()
        self._tasks = [asyncio.ensure_future(self._listen()), asyncio.ensure_future(self._keep())]

    async def closing(self) -> None:
        deadline = time.monotonic() + 5
        while self._queue.qsize() and time.monotonic() < deadline:  # keep (and acknowledge) what came in
            await asyncio.sleep(0.05)
        client = self._client
        if client is not None:
            try:
                await client.publish(topics.VENUE_STATUS, topics.status(False), qos=1, retain=True, timeout=2)
            except aiomqtt.MqttError:
                pass
        tasks = [*self._tasks, *self._acking]
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks, timeout=3)  # a broker that does not answer the disconnect is left

    # --- the broker ------------------------------------------------------------------------

    async def _listen(self) -> None:
        delay = self.retry[0]
        while True:
            try:
                async with self.broker.client("dominotable-venue", will=(topics.VENUE_STATUS, topics.status(False))) \
                        as client:
                    delay = self.retry[0]
                    await client.subscribe([(topics.ALL_TABLES + name, 1) for name in ("events", "state", "status")])
                    await client.publish(topics.VENUE_STATUS, topics.status(True), qos=1, retain=True)
                    self._client, self.connected = client, True
                    log.info("venue: listening to %s", self.broker)
                    await self._publish_players()
                    async for message in client.messages:
                        self._message(message)
            except aiomqtt.MqttError as exc:
                if self.connected:
                    log.warning("venue: lost the broker %s (%s); reconnecting", self.broker, exc)
            finally:
                self._client, self.connected = None, False
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.retry[1])

    def _message(self, message: aiomqtt.Message) -> None:
        where = topics.table_of(message.topic.value)
        if where is None:
            return
        table, name = where
        try:
            data = json.loads(message.payload)
        except (ValueError, TypeError):
            log.warning("venue: a message on %s is not JSON", message.topic)
            return
        if name == "events":
            self._queue.put_nowait((table, data))
            return
        seen = self.tables.setdefault(table, {"state": None, "online": False, "seen": None})
        if name == "state" and isinstance(data, dict):
            seen["state"] = data
        elif name == "status" and isinstance(data, dict):
            seen["online"] = bool(data.get("online"))
        seen["seen"] = time.time()

    async def _keep(self) -> None:
        """Keep the events in batches, then acknowledge them to their tables."""
        while True:
            batch = [await self._queue.get()]
            while len(batch) < BATCH and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                received = await self.query(self.store.receive, batch)
            except Exception:  # the store failed (a full disk, the server gone): not acknowledged, so sent again
                log.exception("venue: could not keep %d events", len(batch))
                await asyncio.sleep(1)
                continue
            if received.new:
                self.version += 1
            if self._client is not None:  # not awaited: keeping goes on while the broker answers
                task = asyncio.ensure_future(self._acknowledge(self._client, received))
                self._acking.add(task)
                task.add_done_callback(self._acking.discard)

    async def _acknowledge(self, client, received) -> None:
        try:
            for table, stored in received.stored.items():
                await client.publish(topics.topic(table, "acks"), json.dumps({"stored": stored}), qos=1, timeout=5)
            if received.players:
                await self._publish_players()
        except aiomqtt.MqttError:
            pass  # the broker went away: the tables send those events again, and are acknowledged then

    async def _publish_players(self) -> None:
        players = await self.query(self.store.players)
        await self._client.publish(topics.PLAYERS, json.dumps(players), qos=1, retain=True)

    # --- what the page shows (the database's thread) -----------------------------------------

    def leaderboard(self) -> list[dict[str, Any]]:
        version = self.version
        if self._boards is None or self._boards[0] != version:
            records = self.store.matches()
            if self.rate_demos:
                records = [dataclasses.replace(r, demo=False) for r in records]
            self._boards = (version, boards.leaderboards(records))
        return self._boards[1]

    def matches(self) -> list[dict[str, Any]]:
        out, plots = [], {}
        for record in self.store.matches(RECENT):
            key = (record.id, record.plies, record.finished)
            if key not in self._plots:
                try:
                    self._plots[key] = review.hand_scores(self.store.match(record.id))
                except DominoError:
                    self._plots[key] = ("hand", [])  # moves that no longer replay: no plot
            plots[key] = self._plots[key]
            state = "damaged" if record.damaged else "live" if record.finished is None else \
                (record.result or {}).get("ending") or "played"
            out.append({**boards.match(record, state, plots[key]), "table": record.table,
                        "table_match": record.table_match})
        self._plots = plots
        return out

    def replay(self, match_id: int, step: int) -> dict[str, Any] | None:
        record = self.store.match(match_id)
        if record is None:
            return None
        data = review.position(record, step, self.geometry)
        data["name"] = f"table {record.table}, match {record.table_match}"
        return data

    # --- handlers --------------------------------------------------------------------------

    async def _api_tables(self, request: web.Request) -> web.Response:
        tables = [{"table": table, **seen} for table, seen in sorted(self.tables.items())]
        return web.json_response({"tables": tables, "version": self.version, "broker": self.connected})

    def _api(self, fn):
        async def handler(request: web.Request) -> web.Response:
            return web.json_response(await self.query(fn))
        return handler

    async def _replay(self, request: web.Request) -> web.Response:
        try:
            match_id = int(request.match_info["id"])
            step = int(request.query.get("step", "0"))
        except ValueError:
            raise Refused("a match number and a step number, as whole numbers") from None
        try:
            data = await self.query(self.replay, match_id, step)
        except DominoError as exc:
            raise Refused(f"match {match_id} cannot be replayed: {exc}", 404) from None
        if data is None:
            raise Refused(f"no match {match_id} at this venue", 404)
        return web.Response(text=review.page(data, data["name"], f"/replay/{match_id}", "/"), content_type="text/html")

