"""The web server: the table page, the JSON API, pushed updates over a WebSocket and the
scoreboard, on aiohttp in its own thread and event loop.

The server knows the table only through `Table` (the app implements it), so the front end
stays below the app. It can never stall the table: the runtime only calls `publish()`, which
hands a wake-up to the server's loop and returns; each client has its own sender that sends
the newest state (intermediate ones are skipped) and is dropped when a send stalls.

Controls (tray actions, buttons, faults) are taken from the loopback address, or from
anywhere with the configured token (header `X-Dominotable-Token` or `?token=`); everything else
is read-only. Files are served from memory by fixed names: no request reads a path.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hmac
import io
import ipaddress
import json
import threading
from collections.abc import Callable
from html import escape
from importlib import resources
from typing import Any, Protocol

from aiohttp import WSMsgType, web
from PIL import Image

from dominotable.tray.errors import TrayError
from dominotable.tray.geometry import Geometry
from dominotable.ui.web import svg

COALESCE = 0.01  # seconds: changes within this time go out as one update (a tile placed over several scans)
SEND_TIMEOUT = 5.0  # seconds a client may take to accept one update before it is dropped
MAX_CLIENTS = 200
BUTTONS = ("up", "down", "select", "long-select")
STATIC = {"table.js": "text/javascript", "scores.js": "text/javascript", "style.css": "text/css"}


class Refused(Exception):
    """A request that cannot be carried out (a 400); the message names the problem."""


class Table(Protocol):
    """What the server needs from the table. `state()` and `png()` are called in the server's
    thread and must be cheap and thread-safe; the others run in a worker thread."""

    geometry: Geometry  # the tray drawn

    def state(self) -> dict[str, Any]: ...

    def png(self) -> bytes | None: ...

    def tray(self, request: Any) -> None: ...

    def button(self, name: str) -> None: ...

    def fault(self, request: Any) -> None: ...

    def leaderboard(self) -> list[dict[str, Any]]: ...

    def history(self) -> list[dict[str, Any]]: ...

    def replay(self, match_id: int, step: int) -> dict[str, Any]: ...


def _page(name: str) -> bytes:
    return (resources.files(__package__) / "static" / name).read_bytes()


def is_loopback(remote: str | None) -> bool:
    try:
        return remote is not None and ipaddress.ip_address(remote.split("%")[0]).is_loopback
    except ValueError:
        return False


class WebServer:
    def __init__(self, table: Table, host: str = "127.0.0.1", port: int = 8080, token: str = ""):
        self.table = table
        self.host = host
        self.port = port
        self.token = token
        self.version = 0
        self.clients: set[web.WebSocketResponse] = set()
        self.loop = asyncio.new_event_loop()
        self._files = {name: _page(name) for name in [*STATIC, "table.html", "scores.html", "replay.html"]}
        self._changed: asyncio.Event | None = None
        self._pending = False  # an update is on its way
        self._message: tuple[int, str] | None = None
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, name="web", daemon=True)
        self._db = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="web-db")  # one connection, one thread

    # --- life cycle ------------------------------------------------------------------------

    def start(self) -> WebServer:
        """Listen (raises OSError when the address is taken) and serve in the server's thread."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=10)
        return self

    async def _start(self) -> None:
        self._changed = asyncio.Event()
        app = web.Application(client_max_size=16 * 1024)
        app.add_routes([
            web.get("/", self._html("table.html")), web.get("/scores", self._html("scores.html")),
            web.get("/static/{name}", self._static), web.get("/oled.png", self._oled),
            web.get("/tray.svg", self._tray_svg),
            web.get("/api/state", self._state), web.get("/ws", self._ws),
            web.post("/api/tray", self._control(self.table.tray)), web.post("/api/button", self._control(self._button)),
            web.post("/api/fault", self._control(self.table.fault)),
            web.get("/api/leaderboard", self._leaderboard), web.get("/api/history", self._history),
            web.get("/replay/{id}", self._replay), web.get("/favicon.ico", self._no_icon),
        ])
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=2)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        try:
            await site.start()
        except OSError:
            await self._runner.cleanup()
            raise
        if self.port == 0:
            self.port = self._runner.addresses[0][1]

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        try:
            asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(timeout=10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=5)
            self._db.shutdown(wait=False)

    async def _stop(self) -> None:
        for ws in list(self.clients):
            try:
                await asyncio.wait_for(ws.close(), 1)
            except TimeoutError:  # a client that does not answer the close
                pass
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def publish(self) -> None:
        """The table changed: wake the senders (any thread; returns at once)."""
        if not self._pending:
            self._pending = True
            self.loop.call_soon_threadsafe(self.loop.call_later, COALESCE, self._publish)

    def _publish(self) -> None:
        self._pending = False
        self.version += 1
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    # --- pages and state -------------------------------------------------------------------

    def _html(self, name: str):
        async def handler(request: web.Request) -> web.Response:
            return web.Response(body=self._files[name], content_type="text/html", charset="utf-8")
        return handler

    async def _no_icon(self, request: web.Request) -> web.Response:
        return web.Response(status=204)

    async def _static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC:
            raise web.HTTPNotFound(text=f"no file {name!r}")
        return web.Response(body=self._files[name], content_type=STATIC[name], charset="utf-8")

    def message(self) -> str:
        """The state as JSON, built once per version for every client."""
        if self._message is None or self._message[0] != self.version:
            self._message = (self.version, json.dumps(self.table.state()))
        return self._message[1]

    async def _state(self, request: web.Request) -> web.Response:
        state = json.loads(self.message())
        state["controls"] = self.may_control(request)
        return web.json_response(state)

    async def _oled(self, request: web.Request) -> web.Response:
        png = self.table.png()
        if png is None:
            out = io.BytesIO()
            Image.new("1", (128, 64)).save(out, "PNG")
            png = out.getvalue()
        return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "no-store"})

    async def _tray_svg(self, request: web.Request) -> web.Response:
        """The tray's cells and the named zones (`?zones=a,b`): what the state's `base` names, fetched
        once per game instead of sent with every update."""
        zones = tuple(zone for zone in request.query.get("zones", "").split(",") if zone)
        try:
            picture = svg.base(self.table.geometry, zones)
        except TrayError as exc:
            raise web.HTTPBadRequest(text=str(exc)) from None
        return web.Response(text=picture, content_type="image/svg+xml")

    async def _ws(self, request: web.Request) -> web.WebSocketResponse:
        if len(self.clients) >= MAX_CLIENTS:
            raise web.HTTPServiceUnavailable(text=f"too many clients ({MAX_CLIENTS})")
        ws = web.WebSocketResponse(heartbeat=30, max_msg_size=1024, compress=False)
        await ws.prepare(request)
        self.clients.add(ws)
        await ws.send_str(json.dumps({"controls": self.may_control(request)}))
        sender = asyncio.ensure_future(self._feed(ws, request))
        try:
            async for msg in ws:  # clients only listen; anything they send is ignored
                if msg.type == WSMsgType.ERROR:
                    break
        finally:
            sender.cancel()
            self.clients.discard(ws)
        return ws

    async def _feed(self, ws: web.WebSocketResponse, request: web.Request) -> None:
        seen = -1
        while not ws.closed:
            changed = self._changed
            if seen == self.version:
                await changed.wait()
                continue
            seen = self.version
            try:
                await asyncio.wait_for(ws.send_str(self.message()), SEND_TIMEOUT)
            except (TimeoutError, ConnectionError, RuntimeError):
                self.clients.discard(ws)
                if request.transport is not None:  # a client that stopped reading: cut it off
                    request.transport.abort()
                return

    # --- controls --------------------------------------------------------------------------

    def may_control(self, request: web.Request) -> bool:
        if is_loopback(request.remote):
            return True
        given = request.headers.get("X-Dominotable-Token") or request.query.get("token", "")
        return bool(self.token) and hmac.compare_digest(given.encode(), self.token.encode())

    def _control(self, action: Callable[[Any], None]):
        async def handler(request: web.Request) -> web.Response:
            if not self.may_control(request):
                why = ("with the token of the [web] section" if self.token
                       else "the [web] section has no token for other machines")
                return web.json_response({"error": f"controls are taken only from this machine or {why}; "
                                                   f"{request.remote} may only watch"}, status=403)
            try:
                body = json.loads(await request.text())
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                return web.json_response({"error": f"the request body is not JSON: {exc}"}, status=400)
            except web.HTTPRequestEntityTooLarge:
                return web.json_response({"error": "the request body is too large"}, status=400)
            if not isinstance(body, dict):
                return web.json_response({"error": "the request body must be a JSON object"}, status=400)
            try:
                await self.loop.run_in_executor(None, action, body)
            except Refused as refused:
                return web.json_response({"error": str(refused)}, status=400)
            self.publish()
            return web.json_response({"ok": True})
        return handler

    def _button(self, body: dict) -> None:
        name = body.get("button")
        if name not in BUTTONS:
            raise Refused(f"button must be one of {', '.join(BUTTONS)}, not {json.dumps(name)}")
        self.table.button(name)

    # --- scoreboard ------------------------------------------------------------------------

    def _query(self, fn, *args):
        return self.loop.run_in_executor(self._db, fn, *args)

    async def _leaderboard(self, request: web.Request) -> web.Response:
        return web.json_response(await self._query(self.table.leaderboard))

    async def _history(self, request: web.Request) -> web.Response:
        matches = await self._query(self.table.history)
        for match in matches:
            match["plot"] = svg.score_plot(match["names"], match["hands"], match.get("target"))
        return web.json_response(matches)

    async def _replay(self, request: web.Request) -> web.Response:
        try:
            match_id = int(request.match_info["id"])
            step = int(request.query.get("step", "0"))
        except ValueError:
            raise web.HTTPBadRequest(text="a match number and a step number, as whole numbers") from None
        try:
            data = await self._query(self.table.replay, match_id, step)
        except Refused as refused:
            raise web.HTTPNotFound(text=str(refused)) from None
        picture = svg.tray(data["geometry"], data["tiles"], zones=data["zones"], title=f"match {match_id}")
        scores = ", ".join(f"{escape(n)} {p}" for n, p in zip(data["names"], data["scores"]))
        step, steps = data["step"], data["steps"]
        nav = "".join([
            f'<a href="/replay/{match_id}?step=0" id="first">first</a>',
            f'<a href="/replay/{match_id}?step={max(step - 1, 0)}" id="prev" accesskey="p">previous</a>',
            f'<span class="step">move {step} of {steps}</span>',
            f'<a href="/replay/{match_id}?step={min(step + 1, steps)}" id="next" accesskey="n">next</a>',
            f'<a href="/replay/{match_id}?step={steps}" id="last">last</a>',
        ])
        body = self._files["replay.html"].decode().format(
            title=escape(f"{data['title']}, match {match_id}"), nav=nav, tray=picture,
            move=escape(data["move"] or "the deal"), scores=scores)
        return web.Response(text=body, content_type="text/html")
