"""The web server: the table page, the JSON API, pushed updates over a WebSocket and the
scoreboard, on aiohttp in its own thread and event loop.

The server knows the table only through `Table` (the app implements it), so the front end
stays below the app. It can never stall the table: the runtime only calls `publish()`, which
hands a wake-up to the server's loop and returns; each client has its own sender that sends
the newest state (intermediate ones are skipped) and is dropped when a send stalls.

Who may reach it and who may drive it is `access.py`'s: every request must name this table in
its Host; one that changes something must be JSON, and not from another site's page; controls
come from this machine or with the token (a header, or the cookie `/login` sets); one machine
holds only so many connections and WebSockets, and slow or malformed clients are dropped with a
line in the log now and then, never a traceback each. Every refusal is a 4xx with
`{"error": "..."}`. Files are served from memory by fixed names: no request reads a path.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import errno
import io
import json
import logging
import math
import re
import socket
import threading
from collections.abc import Callable
from html import escape
from importlib import resources
from typing import Any, Protocol

import segno
from aiohttp import WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError
from PIL import Image

from dominotable.tray.errors import TrayError
from dominotable.tray.geometry import Geometry
from dominotable.ui.web.access import (
    COOKIE,
    LOGIN_DAYS,
    TOKEN_HEADER,
    Access,
    Limits,
    Tally,
    client_key,
    is_loopback,
    max_connections,
)
from dominotable.views import cards, review, svg

COALESCE = 0.01  # seconds: changes within this time go out as one update (a tile placed over several scans)
SEND_TIMEOUT = 5.0  # seconds a client may take to accept one update before it is dropped
MAX_CLIENTS = 200  # WebSockets, all machines together
CLIENTS_PER_ADDRESS = 4  # WebSockets from one other machine (the table, the scoreboard, a spare tab)
HEADER_TIMEOUT = 5.0  # seconds to send a request's line and headers; also how long a kept-alive connection may idle
BODY_TIMEOUT = 5.0  # seconds to send a request's body once its headers are in
MAX_BODY = 16 * 1024
MAX_DEPTH = 8  # nesting of a request body (the API's are 2 deep)
MAX_DIGITS = 15  # of a whole number in a request body
BUTTONS = ("up", "down", "select", "long-select")
STATIC = {"table.js": "text/javascript", "lights.js": "text/javascript", "scores.js": "text/javascript",
          "login.js": "text/javascript", "rules.js": "text/javascript", "style.css": "text/css", "table.css": "text/css"}
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class Refused(Exception):
    """A request that cannot be carried out (a 400 unless `status` says otherwise); the message
    names the problem."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def parse_json(raw: bytes) -> Any:
    """A request body as JSON, or Refused naming what is wrong with it: not UTF-8, not JSON,
    nested deeper than MAX_DEPTH, a number too large or not finite."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(f"the request body is not JSON: byte {exc.start} (0x{raw[exc.start]:02x}) is not UTF-8") from None
    depth = deepest(text)
    if depth > MAX_DEPTH:
        raise Refused(f"the request body is nested {depth} deep; {MAX_DEPTH} is the most")
    try:
        return json.loads(text, parse_int=_whole, parse_float=_real, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise Refused(f"the request body is not JSON: {exc}") from None


STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')


def deepest(text: str) -> int:
    """How deep the brackets of a JSON text nest (brackets inside strings do not count)."""
    depth = most = 0
    for char in STRINGS.sub("", text):
        if char in "[{":
            depth += 1
            most = max(most, depth)
        elif char in "]}":
            depth -= 1
    return most


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise Refused(f"the number {text[:12]}... in the request body has {len(text.lstrip('-'))} digits; "
                      f"{MAX_DIGITS} is the most")
    return int(text)


def _real(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise Refused(f"the number {text[:20]} in the request body is too large")
    return value


def _constant(name: str):
    raise Refused(f"the request body is not JSON: {name} is not a number JSON has")


HTTP_LOG = logging.getLogger("dominotable.web.http")  # aiohttp's server log, for this server's connections


class Malformed(logging.Filter):
    """A request aiohttp could not parse (garbage on the port, a header too long) is a line now
    and then, not a traceback each; other errors pass with their tracebacks."""

    def __init__(self):
        super().__init__()
        self.tally = Tally("malformed requests refused")

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            self.tally.add(f"{record.getMessage()}: {type(exc).__name__}")
            return False
        return True


if not any(isinstance(f, Malformed) for f in HTTP_LOG.filters):
    HTTP_LOG.addFilter(Malformed())


class Gate(asyncio.Protocol):
    """What a new connection meets first: it is handed to aiohttp if the limits admit it, else
    closed at once (so a flood never takes the file descriptors the table needs)."""

    def __init__(self, server: WebServer):
        self.server = server

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        handler = self.server.admit(transport)
        if handler is None:
            transport.abort()
            return
        transport.set_protocol(handler)
        handler.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        pass


def _peer(transport) -> str | None:
    peer = transport.get_extra_info("peername") if transport is not None else None
    return peer[0] if isinstance(peer, tuple) else None


class Table(Protocol):
    """What the server needs from the table. `state()` and `png()` are called in the server's
    thread and must be cheap and thread-safe; the others run in a worker thread."""

    geometry: Geometry  # the tray drawn

    def state(self) -> dict[str, Any]: ...

    def png(self) -> bytes | None: ...

    def tray(self, request: Any) -> None: ...

    def button(self, name: str) -> None: ...

    def fault(self, request: Any) -> None: ...

    def setup_offer(self) -> dict[str, Any]: ...

    def setup(self, request: Any) -> None: ...

    def action(self, request: Any) -> None: ...

    def targets(self, tile: Any) -> list[list[int]]: ...

    def leaderboard(self) -> list[dict[str, Any]]: ...

    def history(self) -> list[dict[str, Any]]: ...

    def replay(self, match_id: int, step: int) -> dict[str, Any]: ...

    def moves(self, match_id: int) -> dict[str, Any]: ...


def reachable(host: str) -> str:
    """A wildcard listening address ("0.0.0.0", "::", "") as the address this machine's default
    route leaves by (nothing is sent), or its name when it has no route; any other as it is."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    family, target = (socket.AF_INET6, "2001:db8::1") if host == "::" else (socket.AF_INET, "198.51.100.1")
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((target, 9))  # picks the outgoing address; a UDP connect sends nothing
            return probe.getsockname()[0]
    except OSError:
        return socket.gethostname()


def _page(name: str) -> bytes:
    return (resources.files(__package__) / "static" / name).read_bytes()


class WebServer:
    """The page on `host:port`. `token` lets other machines control the table; `hosts` are more
    names it answers to and `origins` more pages that may drive it (the `[web]` section)."""

    def __init__(self, table: Table, host: str = "127.0.0.1", port: int = 8080, token: str = "",
                 hosts=(), origins=()):
        self.table = table
        self.host = host
        self.port = port
        self.access = Access(host, token, hosts, origins)
        self.limits = Limits(max_connections())
        self.version = 0
        self.clients: dict[web.WebSocketResponse, str] = {}  # each WebSocket and the client it counts against
        self.loop = asyncio.new_event_loop()
        self._files = {name: _page(name) for name in [*STATIC, "table.html", "scores.html", "login.html", "rules.html"]}
        self._listener: asyncio.AbstractServer | None = None
        self._starved = Tally("out of file descriptors: new connections wait")
        self._crowded = Tally("WebSockets refused")
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
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._guard])
        app.add_routes([
            web.get("/", self._html("table.html")), web.get("/scores", self._html("scores.html")),
            web.get("/login", self._html("login.html")),
            web.get("/static/{name}", self._static), web.get("/oled.png", self._oled),
            web.get("/tray.svg", self._tray_svg),
            web.get("/api/state", self._state), web.get("/ws", self._ws),
            web.post("/api/tray", self._control(self.table.tray)), web.post("/api/button", self._control(self._button)),
            web.post("/api/fault", self._control(self.table.fault)),
            web.get("/api/setup", self._setup_offer), web.post("/api/setup", self._control(self.table.setup)),
            web.post("/api/action", self._control(self.table.action)), web.get("/api/targets", self._targets),
            web.post("/api/login", self._login), web.post("/api/logout", self._logout),
            web.get("/api/leaderboard", self._leaderboard), web.get("/api/history", self._history),
            web.get("/replay/{id}", self._replay), web.get("/favicon.ico", self._no_icon),
            web.get("/api/match/{id}", self._moves), web.get("/api/link", self._link), web.get("/qr.svg", self._qr),
            web.get("/rules", self._rules), web.get("/rules/{name}", self._rules),
        ])
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=2,
                                     keepalive_timeout=HEADER_TIMEOUT, logger=HTTP_LOG)
        await self._runner.setup()
        self.loop.set_exception_handler(self._loop_error)
        try:
            self._listener = await self.loop.create_server(lambda: Gate(self), self.host, self.port, backlog=128)
        except OSError:
            await self._runner.cleanup()
            raise
        self.port = self._listener.sockets[0].getsockname()[1]
        self.access.port = self.port

    def admit(self, transport) -> Any:
        """aiohttp's handler for a new connection, or None when the limits refuse it."""
        server = self._runner.server if self._runner is not None else None
        if server is None:
            return None
        peers = [_peer(handler.transport) for handler in server.connections]
        return server() if self.limits.admit(_peer(transport), peers) else None

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict) -> None:
        """Out of file descriptors while accepting: one line now and then (asyncio tries again
        in a second), not a traceback each time."""
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
            self._starved.add(str(exc))
            return
        loop.default_exception_handler(context)

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
        if self._listener is not None:
            self._listener.close()
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

    @property
    def public_url(self) -> str:
        """The address other machines (phones at the bar) open: the page's own, or on a
        wildcard address this machine's address on its network."""
        host = reachable(self.host)
        host = f"[{host}]" if ":" in host else host
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

    async def _setup_offer(self, request: web.Request) -> web.Response:
        return web.json_response(await self.loop.run_in_executor(None, self.table.setup_offer))

    async def _targets(self, request: web.Request) -> web.Response:
        """`?tile=3-5`: where the tile may be laid now (only for those who may move tiles)."""
        self._authorize(request)
        tile = request.query.get("tile")
        return web.json_response({"tile": tile, "targets": await self.loop.run_in_executor(
            None, self.table.targets, tile)})

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
        controls = self.may_control(request)
        ws = web.WebSocketResponse(heartbeat=30, max_msg_size=1024, compress=False)
        await ws.prepare(request)
        self.clients[ws] = key
        await ws.send_str(json.dumps({"controls": controls, "login": bool(self.access.token) and not controls}))
        sender = asyncio.ensure_future(self._feed(ws, request))
        try:
            async for msg in ws:  # clients only listen; anything they send is ignored
                if msg.type == WSMsgType.ERROR:
                    break
        finally:
            sender.cancel()
            self.clients.pop(ws, None)
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
                self.clients.pop(ws, None)
                if request.transport is not None:  # a client that stopped reading: cut it off
                    request.transport.abort()
                return

    # --- who may do what --------------------------------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler) -> web.StreamResponse:
        """Every request: the Host checked, the token kept out of the address, a request that
        changes something (or opens a WebSocket) checked for its Origin and its type; and every
        refusal said as a 4xx with `{"error": ...}`."""
        try:
            self._check(request)
            return await handler(request)
        except Refused as refused:
            return error(refused.status, str(refused))
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            return error(exc.status, self._say(exc, request))

    def _check(self, request: web.Request) -> None:
        local = request.transport.get_extra_info("sockname") if request.transport is not None else None
        local = local[0] if isinstance(local, tuple) else None
        host = request.headers.get("Host")
        if not self.access.host_ok(host, local):
            raise Refused(f"this table answers to its own addresses only, not to Host {host!r} "
                          "(a name of your own for it goes in [web] hosts)", 403)
        try:
            request.headers.get(TOKEN_HEADER, "").encode("utf-8")
        except UnicodeEncodeError:
            raise Refused(f"the {TOKEN_HEADER} header is not UTF-8 text") from None
        if "token" in request.query:
            raise Refused("the token never goes in the address (it would be kept in logs and the browser's "
                          f"history): send it in the {TOKEN_HEADER} header, or log in at /login", 400)
        upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
        if request.method in SAFE_METHODS and not upgrade:
            return
        origin = request.headers.get("Origin")
        if origin is not None and not self.access.origin_ok(origin, local):
            raise Refused(f"the page at {origin} may not drive this table: only its own page may "
                          "(another one goes in [web] origins)", 403)
        if not upgrade and request.content_type != "application/json":
            given = request.headers.get("Content-Type") or "none"
            raise Refused(f"a request that changes the table must be JSON (Content-Type: application/json), "
                          f"not {given}", 415)

    @staticmethod
    def _say(exc: web.HTTPException, request: web.Request) -> str:
        if exc.status == 404 and exc.text in (None, "404: Not Found"):
            return f"nothing here: {request.path}"
        if exc.status == 405:
            return f"{request.method} is not taken at {request.path}"
        if exc.status == 413:
            return f"the request body is too large ({MAX_BODY // 1024} KiB at most)"
        return exc.text or exc.reason

    def may_control(self, request: web.Request) -> bool:
        return self.access.may_control(request.remote, request.headers.get(TOKEN_HEADER), request.cookies.get(COOKIE))

    def _authorize(self, request: web.Request) -> None:
        """Refused (403, or 429 after too many wrong tokens) unless the request may control the table."""
        remote = request.remote
        given = request.headers.get(TOKEN_HEADER)
        if given is not None and not is_loopback(remote) and self.access.too_many_wrong(remote):
            raise Refused(f"too many wrong tokens from {remote}; wait a minute", 429)
        if self.may_control(request):
            return
        if given is not None and self.access.token:
            self.access.wrong_token(remote)
        why = ("with the token of the [web] section (log in at /login)" if self.access.token
               else "the [web] section has no token for other machines")
        raise Refused(f"controls are taken only from this machine or {why}; {remote} may only watch", 403)

    async def _body(self, request: web.Request) -> dict:
        try:
            raw = await asyncio.wait_for(request.read(), BODY_TIMEOUT)
        except TimeoutError:
            raise Refused(f"the request body did not arrive within {BODY_TIMEOUT:g} s", 408) from None
        body = parse_json(raw)
        if not isinstance(body, dict):
            raise Refused("the request body must be a JSON object")
        return body

    def _control(self, action: Callable[[Any], None]):
        async def handler(request: web.Request) -> web.Response:
            self._authorize(request)
            body = await self._body(request)
            await self.loop.run_in_executor(None, action, body)
            self.publish()
            return web.json_response({"ok": True})
        return handler

    async def _login(self, request: web.Request) -> web.Response:
        """`{"token": "..."}`: the cookie that lets this browser control the table (the login page's form)."""
        remote = request.remote
        body = await self._body(request)
        if is_loopback(remote):
            return web.json_response({"ok": True, "controls": True})  # this machine needs no token
        if not self.access.token:
            raise Refused("this table has no token in its [web] section: other machines may only watch", 403)
        if self.access.too_many_wrong(remote):
            raise Refused(f"too many wrong tokens from {remote}; wait a minute", 429)
        given = body.get("token")
        if not isinstance(given, str):
            raise Refused(f"token must be text, not {json.dumps(given)}")
        try:
            right = self.access.token_matches(given)
        except ValueError as exc:
            raise Refused(str(exc)) from None
        if not right:
            self.access.wrong_token(remote)
            raise Refused("that is not the table's token", 403)
        response = web.json_response({"ok": True, "controls": True})
        response.set_cookie(COOKIE, self.access.cookie_value(), max_age=LOGIN_DAYS * 86400, path="/",
                            httponly=True, samesite="Strict")
        return response

    async def _logout(self, request: web.Request) -> web.Response:
        await self._body(request)
        response = web.json_response({"ok": True, "controls": is_loopback(request.remote)})
        response.del_cookie(COOKIE, path="/", samesite="Strict")
        return response

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
            match["plot"] = svg.score_plot(match["names"], match["points"], match.get("target"), per=match["per"],
                                           scoring=match["scoring"], lower_wins=match["lower_wins"],
                                           title=match["title"])
        return web.json_response(matches)

    async def _moves(self, request: web.Request) -> web.Response:
        """A recorded match's moves in plain words (`{"moves": [{ply, who, notation, words}]}`)."""
        return web.json_response(await self._query(self.table.moves, self._match_id(request)))

    @staticmethod
    def _match_id(request: web.Request) -> int:
        try:
            return int(request.match_info["id"])
        except ValueError:
            raise Refused(f"matches are named by their numbers, whole numbers, not {request.match_info['id'][:20]!r}"
                          ) from None

    def scoreboard_url(self) -> str:
        return self.public_url + "scores"

    async def _link(self, request: web.Request) -> web.Response:
        """The scoreboard's address for phones, and whether only this machine can open it."""
        return web.json_response({"url": self.scoreboard_url(), "local_only": is_loopback(reachable(self.host))})

    async def _qr(self, request: web.Request) -> web.Response:
        """The scoreboard's address as a QR code (dark modules on white, a quiet zone of four)."""
        code = segno.make(self.scoreboard_url(), error="m", micro=False)
        out = io.BytesIO()
        code.save(out, kind="svg", scale=4, border=4, dark="#000", light="#fff", xmldecl=False,
                  title=f"QR code of {self.scoreboard_url()}")
        return web.Response(body=out.getvalue(), content_type="image/svg+xml", headers={"Cache-Control": "no-store"})

    async def _rules(self, request: web.Request) -> web.Response:
        """`/rules`: the cards; `/rules/castle-rock`: a card; `/rules/CR-5.2`: that rule in its card."""
        name = request.match_info.get("name")
        known = cards.cards()
        if name is not None and name not in known:
            card = cards.card_of(name) if cards.RULE.fullmatch(name) else None
            if card is None:
                raise web.HTTPNotFound(text=f"no rule card and no rule {name[:40]!r}; the cards are at /rules")
            raise web.HTTPFound(f"/rules/{card.name}#{name}")
        if name is None:
            title = "Rule cards"
            body = "<ul>" + "".join(f'<li><a href="/rules/{c.name}">{escape(c.title)}</a></li>'
                                    for c in known.values()) + "</ul>"
        else:
            title, body = f"{known[name].title}: rule card", known[name].html
        page = self._files["rules.html"].decode().replace("{title}", escape(title)).replace("{body}", body)
        return web.Response(text=page, content_type="text/html")

    async def _replay(self, request: web.Request) -> web.Response:
        match_id = self._match_id(request)
        try:
            step = int(request.query.get("step", "0"))
        except ValueError:
            raise web.HTTPBadRequest(text="a step number, as a whole number") from None
        try:
            data = await self._query(self.table.replay, match_id, step)
        except Refused as refused:
            raise web.HTTPNotFound(text=str(refused)) from None
        name = f"{' v '.join(data['names'])}, {data['started'][:16].replace('T', ' ')}"
        body = review.page(data, name, f"/replay/{match_id}", "/scores")
        return web.Response(text=body, content_type="text/html")
