"""Load on the table page (bounded: 50 clients, 60 s): 50 WebSocket clients on loopback follow a
bots' match at the simulated table, beside a client that stops reading and one that sends
garbage to the port. The table plays on, every client keeps getting updates, the stuck one is
dropped, and the API still answers afterwards."""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import socket
import time

import aiohttp
from dominotable.app.demo import TableBots
from dominotable.ui.web.push import SEND_TIMEOUT
from support.polling import until
from support.web_table import LiveTable

CLIENTS = 50
SECONDS = 60.0


async def follow(url: str, stats: dict, end: float) -> None:
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        while time.monotonic() < end:
            try:
                msg = await asyncio.wait_for(ws.receive(), timeout=max(0.1, end - time.monotonic()))
            except TimeoutError:
                break
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            stats["messages"] += 1
            stats["last"] = time.monotonic()


def stuck_client(port: int) -> socket.socket:
    """Upgrades to a WebSocket and never reads a byte."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" % port)
    return sock


async def garbage(port: int, end: float) -> int:
    rng, sent = random.Random(1), 0
    while time.monotonic() < end:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(rng.randbytes(rng.randrange(1, 2000)))
            await writer.drain()
            writer.close()
            sent += 1
        except OSError:
            pass
        await asyncio.sleep(0.1)
    return sent


def test_fifty_clients_for_a_minute_while_bots_play(tmp_path):
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock", options={})  # a whole match: longer than a minute
    try:
        port = table.server.port
        stuck = stuck_client(port)
        bots = TableBots(table.runtime, seed=1).start()
        frames_before, moves_before = table.hw.display.sent, bots.moves
        stats = [{"messages": 0, "last": 0.0} for _ in range(CLIENTS)]
        stop = time.monotonic() + SECONDS

        async def load():
            url = f"ws://127.0.0.1:{port}/ws"
            return await asyncio.gather(*(follow(url, s, stop) for s in stats), garbage(port, stop))

        with concurrent.futures.ThreadPoolExecutor(1) as thread:  # (a browser test's loop may run in this one)
            *_, junk = thread.submit(asyncio.run, load()).result()
        end = time.monotonic()
        bots.stop()
        assert bots.error is None, bots.error
        assert junk >= 30  # garbage connections were made throughout the minute (one every 2 s at least)
        assert bots.moves - moves_before >= 30 and table.hw.display.sent - frames_before >= 30  # the table played on
        assert all(s["messages"] >= 20 for s in stats), sorted(s["messages"] for s in stats)[:5]
        assert all(end - s["last"] < 5 for s in stats)  # no client was left behind
        assert len(table.server.clients) <= 1 + CLIENTS  # closed clients are gone (the stuck one too, below)
        assert until(lambda: len(table.server.clients) == 0, SEND_TIMEOUT + 5)  # the stuck client was dropped
        stuck.close()
        status, state = table.get("/api/state")
        assert status == 200 and state["screen"]["game"]["name"] == "castle-rock"
    finally:
        table.close()
