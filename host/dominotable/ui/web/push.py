"""The WebSocket fan-out: every page open on the table gets the newest state pushed as it changes.

The table never waits for a client: `publish()` (any thread) only hands a wake-up to the server's
loop, changes within COALESCE go out as one update, and each client has its own sender that
sends the newest state (intermediate ones are skipped) and is cut off when a send stalls. One
machine holds only so many WebSockets, and all of them together only so many."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from aiohttp import WSMsgType, web

from dominotable.web.guard import Refused, Tally, client_key, is_loopback

COALESCE = 0.01  # seconds: changes within this time go out as one update (a tile placed over several scans)
SEND_TIMEOUT = 5.0  # seconds a client may take to accept one update before it is dropped
MAX_CLIENTS = 200  # WebSockets, all machines together
CLIENTS_PER_ADDRESS = 4  # WebSockets from one other machine (the table, the scoreboard, a spare tab)


class Push:
    """`message(controls)`: the state as JSON for a viewer or for one who may move the tiles;
    `audience(request)`: (may it control the table, is it offered the login)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, message: Callable[[bool], str],
                 audience: Callable[[web.Request], tuple[bool, bool]]):
        self.loop = loop
        self.message = message
        self.audience = audience
        self.version = 0
        self.clients: dict[web.WebSocketResponse, str] = {}  # each WebSocket and the client it counts against
        self._changed: asyncio.Event | None = None
        self._pending = False  # an update is on its way
        self._crowded = Tally("WebSockets refused")

    def publish(self) -> None:
        """The table changed: wake the senders (any thread; returns at once)."""
        if not self._pending:
            self._pending = True
            self.loop.call_soon_threadsafe(self.loop.call_later, COALESCE, self._publish)

    def _publish(self) -> None:
        self._pending = False
        self.version += 1
        event, self._changed = self._changed, asyncio.Event()
        if event is not None:
            event.set()

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """`GET /ws`: a hello saying what this client may do, then the state as it changes; what
        clients send is ignored."""
        key = client_key(request.remote)
        if len(self.clients) >= MAX_CLIENTS:
            self._crowded.add(f"{MAX_CLIENTS} open, the most this table holds")
            raise Refused(f"too many pages are open ({MAX_CLIENTS}); try again later", 503)
        if not is_loopback(request.remote):
            count = sum(1 for other in self.clients.values() if other == key)
            if count >= CLIENTS_PER_ADDRESS:
                self._crowded.add(f"{key} holds {count}, the most one machine may")
                raise Refused(f"{key} already has {count} pages of this table open, the most one machine may; "
                              "close one", 429)
        controls, login = self.audience(request)
        ws = web.WebSocketResponse(heartbeat=30, max_msg_size=1024, compress=False)
        await ws.prepare(request)
        self.clients[ws] = key
        await ws.send_str(json.dumps({"controls": controls, "login": login}))
        sender = asyncio.ensure_future(self._feed(ws, request, controls))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.ERROR:
                    break
        finally:
            sender.cancel()
            self.clients.pop(ws, None)
        return ws

    async def _feed(self, ws: web.WebSocketResponse, request: web.Request, controls: bool) -> None:
        sent = None
        while not ws.closed:
            if self._changed is None:
                self._changed = asyncio.Event()
            changed = self._changed
            message = self.message(controls)
            if message is sent:
                await changed.wait()
                continue
            try:
                await asyncio.wait_for(ws.send_str(message), SEND_TIMEOUT)
            except (TimeoutError, ConnectionError, RuntimeError):
                self.clients.pop(ws, None)
                if request.transport is not None:  # a client that stopped reading: cut it off
                    request.transport.abort()
                return
            sent = message

    async def close(self) -> None:
        for ws in list(self.clients):
            try:
                await asyncio.wait_for(ws.close(), 1)
            except TimeoutError:  # a client that does not answer the close
                pass
