"""One aiohttp server in a thread and event loop of its own: the base of the table's page
(ui/web/server.py) and of the venue's scoreboard (venue/server.py). The thread that starts it
goes on at once; work that may block (the store, the match) runs in worker threads, the store's
reads in one thread of their own (one connection, one thread).

Every connection passes the gate first (guard.py), every refusal is said as JSON, and files are
served from memory by the names their package ships: no request reads a path."""

from __future__ import annotations

import asyncio
import concurrent.futures
import errno
import socket
import threading
from importlib import resources
from typing import Any

from aiohttp import web

from dominotable.web.guard import (
    HEADER_TIMEOUT,
    HTTP_LOG,
    MAX_BODY,
    Gate,
    Limits,
    Tally,
    max_connections,
    peer,
    refusals,
)

TYPES = {"html": "text/html", "js": "text/javascript", "css": "text/css", "svg": "image/svg+xml"}


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


def bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


SHARED = "dominotable.views"  # what every server shows alike (views/static: the boards, the replay)


class Files:
    """The `static/` folders of a server's package and of the shared views, read into memory once:
    a file by its name, with its type."""

    def __init__(self, package: str):
        self.files = {entry.name: entry.read_bytes() for name in (SHARED, package)
                      for entry in (resources.files(name) / "static").iterdir()
                      if entry.is_file() and entry.name.rsplit(".", 1)[-1] in TYPES}

    def __contains__(self, name: str) -> bool:
        return name in self.files

    def text(self, name: str) -> str:
        return self.files[name].decode("utf-8")

    def response(self, name: str) -> web.Response:
        kind = TYPES[name.rsplit(".", 1)[-1]]
        return web.Response(body=self.files[name], content_type=kind, charset="utf-8")


class WebBase:
    """A server on `host:port` with the `routes()` and `middlewares()` a subclass gives, its
    `static/` files at /static/NAME. `started()` and `closing()` run in the server's loop after it
    listens and before it lets go of its connections."""

    name = "web"  # its threads'
    stop_timeout = 10.0  # seconds for `closing()` and the connections to end

    def __init__(self, host: str, port: int, package: str):
        self.host = host
        self.port = port
        self.files = Files(package)
        self.limits = Limits(max_connections())
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=self.name, daemon=True)
        self._db = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=f"{self.name}-db")
        self._listener: asyncio.AbstractServer | None = None
        self._runner: web.AppRunner | None = None
        self._starved = Tally("out of file descriptors: new connections wait")

    # --- what a server adds ---------------------------------------------------------------------

    def routes(self) -> list[web.RouteDef]:
        raise NotImplementedError

    def middlewares(self) -> list:
        return []

    async def started(self) -> None:
        pass

    async def closing(self) -> None:
        pass

    # --- life cycle ------------------------------------------------------------------------------

    def start(self):
        """Listen (raises OSError when the address is taken) and serve in the server's thread."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=10)
        return self

    async def _start(self) -> None:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[refusals, *self.middlewares()])
        app.add_routes([*self.routes(), web.get("/static/{name}", self._static),
                        web.get("/favicon.ico", self._no_icon)])
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=2,
                                     keepalive_timeout=HEADER_TIMEOUT, logger=HTTP_LOG)
        await self._runner.setup()
        self.loop.set_exception_handler(self._loop_error)
        try:
            self._listener = await self.loop.create_server(lambda: Gate(self.admit), self.host, self.port,
                                                           backlog=128)
        except OSError:
            await self._runner.cleanup()
            raise
        self.port = self._listener.sockets[0].getsockname()[1]
        await self.started()

    def admit(self, transport) -> Any:
        """aiohttp's handler for a new connection, or None when the limits refuse it."""
        server = self._runner.server if self._runner is not None else None
        if server is None:
            return None
        peers = [peer(handler.transport) for handler in server.connections]
        return server() if self.limits.admit(peer(transport), peers) else None

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
            asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(timeout=self.stop_timeout + 5)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=5)
            self._db.shutdown(wait=True, cancel_futures=True)

    async def _stop(self) -> None:
        if self._listener is not None:
            self._listener.close()
        await self.closing()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://{bracketed(self.host)}:{self.port}/"

    @property
    def public_url(self) -> str:
        """The address other machines (phones at the bar) open: the server's own, or on a
        wildcard address this machine's address on its network."""
        return f"http://{bracketed(reachable(self.host))}:{self.port}/"

    # --- serving ---------------------------------------------------------------------------------

    def page(self, name: str):
        """A handler serving the static page `name`."""
        async def handler(request: web.Request) -> web.Response:
            return self.files.response(name)
        return handler

    async def _static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in self.files or name.endswith(".html"):
            raise web.HTTPNotFound(text=f"no file {name!r}")
        return self.files.response(name)

    async def _no_icon(self, request: web.Request) -> web.Response:
        return web.Response(status=204)

    def work(self, fn, *args):
        """`fn(*args)` in a worker thread (it may block: the match, the runtime's lock)."""
        return self.loop.run_in_executor(None, fn, *args)

    def query(self, fn, *args):
        """`fn(*args)` in the one thread that reads the store."""
        return self.loop.run_in_executor(self._db, fn, *args)
