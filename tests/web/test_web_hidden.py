"""A bot's face-down tiles stay hidden from the page (issue 28, item 2; the Why's 3c): a person
plays Castle Rock against three bots at the whole simulated table (table_seats.Person, doing for
the bots what the screen says) while the page is polled over HTTP, as a viewer and as one who may
move the tiles, and followed over its WebSocket. No tile lying face down in a rack is ever named
in the state (its tray, its lists of what is off the tray, the screen), the updates or the
overlay's SVG, except in the one instruction that moves it, on that bot's own turn; nor at the
match's end, nor after New match."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import urllib.request

import aiohttp
from dominotable.app.config import WebConfig
from dominotable.app.web import serve
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.ui.menu import Choice
from support.table_seats import Person, PtyTable
from support.web_table import _call, lan_address

TOKEN = "staff-only-7"
NAMES = ["ANN", "West bot", "North bot", "East bot"]
TILE = re.compile(r"(?<![\w.-])(\d{1,2})-(\d{1,2})(?![\w.-])")


class Follower:
    """Every WebSocket update of the page (the hello aside), as a phone following it receives them."""

    def __init__(self, url: str):
        self.messages: list[str] = []
        self.lock = threading.Lock()
        self.loop = asyncio.new_event_loop()
        self.done = asyncio.Event()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self._follow(url),), daemon=True)
        self.thread.start()

    async def _follow(self, url: str) -> None:
        self.done = asyncio.Event()
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws") as ws:
            stop = asyncio.ensure_future(self.done.wait())
            while not self.done.is_set():
                got = asyncio.ensure_future(ws.receive())
                await asyncio.wait([got, stop], return_when=asyncio.FIRST_COMPLETED)
                if got.done() and got.result().type == aiohttp.WSMsgType.TEXT and "layout" in got.result().data:
                    with self.lock:
                        self.messages.append(got.result().data)
                elif not got.done():
                    got.cancel()

    def take(self) -> list[str]:
        with self.lock:
            taken, self.messages = self.messages, []
        return taken

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.done.set)
        self.thread.join(timeout=10)


def hidden(table) -> dict[str, str]:
    """Every tile lying face down in a bot's rack now, by both its names, and whose rack it is."""
    racks = {frozenset(cells): rack.name for rack in table.geometry.racks("castle-rock") for cells in rack.slots}
    out = {}
    for tile, cells in table.tiles().items():
        if frozenset(cells) in racks:
            seat = table.names[table.geometry.racks("castle-rock").index(
                next(r for r in table.geometry.racks("castle-rock") if r.name == racks[frozenset(cells)]))]
            out[f"{tile.a}-{tile.b}"] = out[f"{tile.b}-{tile.a}"] = seat
    return out


def named(text: str) -> set[str]:
    return {m.group(0) for m in TILE.finditer(text)}


def leaks(message: str, face_down: dict[str, str], shown: set[str]) -> list[str]:
    """The face-down tiles a state names outside the instruction that moves one on its bot's turn
    (its words, the title and text, and the typed instruction the screen carries).
    A past move (the last play, a takeback's label) may name a tile the table read face up then
    (`shown`: a draw for dealer over the scan pad, say) that has since gone into a rack."""
    state = json.loads(message)
    screen = state.get("screen") or {}
    told = screen.get("text") if screen.get("text") != screen.get("last_text") else ""  # (a play screen's note: the last play)
    said = named(f"{screen.get('title')} {told} {json.dumps(screen.get('instruction'))}")
    allowed = {t for t in said if face_down.get(t) == screen.get("seat") == screen.get("turn") != ""}
    before = named(json.dumps([screen.get(k) for k in ("last", "last_text", "actions")]))
    rest = {**state, "screen": {k: v for k, v in screen.items()
                                if k not in ("title", "text", "instruction", "last", "last_text", "actions")}}
    found = named(json.dumps(rest)) | (said - allowed) | (before - shown)
    return sorted(f"{tile} ({face_down[tile]}'s rack) in {_where(state, tile)}" for tile in found & set(face_down))


def public(message: str) -> set[str]:
    """The tiles a state shows face up (on the tray or over the scan pad), by both their names."""
    state = json.loads(message)
    tiles = [t["tile"] for t in state["tray"] if "tile" in t] + ([state["pad"]] if state["pad"] else [])
    return {name for t in tiles for name in (t, "-".join(reversed(t.split("-"))))}


def _where(state: dict, tile: str) -> str:
    screen = state.get("screen") or {}
    said = f"{screen.get('title')!r} {screen.get('text')!r}, {screen.get('turn')!r} to play"
    keys = [k for k, v in screen.items() if tile in json.dumps(v)]
    return ", ".join(f"{said} {keys}" if key == "screen" else key for key, value in state.items()
                     if tile in json.dumps(value)) or "?"


def test_a_bots_face_down_tiles_are_never_named_to_the_page(tmp_path):
    lan = lan_address()
    choice = Choice(CastleRock, CastleRock.Options(hands=1), 4, NAMES, {1: "greedy", 2: "random", 3: "search"})
    servers = []
    table = PtyTable(tmp_path / "t.sqlite3", choice, seed=5,
                     before_start=lambda rt: servers.append(serve(rt, WebConfig(lan, 0, TOKEN), lan, 0)))
    url = f"http://{lan}:{servers[0].port}"
    follower = Follower(url)
    found, polls, seen, shown = [], 0, 0, set()
    staff = {"X-Dominotable-Token": TOKEN}

    def poll(before: dict[str, str], now: dict[str, str]) -> None:
        nonlocal polls, seen
        for headers in ({}, staff):  # a phone that watches, and one that may move the tiles
            status, state = _call(urllib.request.Request(url + "/api/state", headers=headers))
            assert status == 200 and state["controls"] == bool(headers)
            shown.update(public(json.dumps(state)))
            found.extend(leaks(json.dumps(state), now, shown))
            polls += 1
        steady = {t: seat for t, seat in now.items() if before.get(t) == seat}  # face down all the while
        for message in follower.take():
            shown.update(public(message))
            found.extend(leaks(message, steady, shown))
            seen += 1

    try:
        table.reaches(lambda: table.referee.tracker.judged is not None, "the first board")
        person = Person(table, 0, seed=1)
        before = hidden(table)
        racked = set()
        while person.step():
            table.settle()
            now = hidden(table)
            racked |= set(now)
            poll(before, now)
            before = now
        assert racked, "no tile ever lay in a bot's rack"
        at_end = hidden(table)
        poll(before, at_end)  # the match over: its racks still face down
        status, _ = _call(urllib.request.Request(url + "/api/action", data=b'{"action": "new-match"}', method="POST",
                                                 headers={"Content-Type": "application/json", **staff}))
        assert status == 200
        table.reaches(lambda: table.runtime.setup is not None, "the setup open")
        poll(at_end, hidden(table))  # New match: the last match's racks still hidden
        assert polls > 100 and seen > 100, (polls, seen)
        assert not found, "\n".join(found[:20])
    finally:
        follower.close()
        table.close()
        for server in servers:
            server.stop()
