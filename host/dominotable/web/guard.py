"""What every request to a server of the table's meets before its handler: the connection gate
(one machine holds only so many connections, all of them together never so many that the table
runs out of file descriptors), request bodies read as hardened JSON, and every refusal said as a
4xx with `{"error": "..."}`, never a 500. Slow or malformed clients are dropped with a line in
the log now and then, never a traceback each."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import math
import re
import resource
import time
from collections import Counter
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

log = logging.getLogger("dominotable.web")
HTTP_LOG = logging.getLogger("dominotable.web.http")  # aiohttp's server log, for these servers' connections

HEADER_TIMEOUT = 5.0  # seconds to send a request's line and headers; also how long a kept-alive connection may idle
BODY_TIMEOUT = 5.0  # seconds to send a request's body once its headers are in
MAX_BODY = 16 * 1024
MAX_DEPTH = 8  # nesting of a request body (the API's are 2 deep)
MAX_DIGITS = 15  # of a whole number in a request body
CONNECTIONS = 400  # at most, all addresses together (200 WebSockets and room for requests)
CONNECTIONS_PER_ADDRESS = 32  # from one other machine (a browser opens about 6, plus its WebSockets)
RESERVED_FDS = 128  # file descriptors kept for the table itself: tray, database, GPIO, threads


class Refused(Exception):
    """A request that cannot be carried out (a 400 unless `status` says otherwise); the message
    names the problem."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


# --- addresses ------------------------------------------------------------------------------------

def address(text: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An IP address from a socket or a header (an IPv4 address mapped into IPv6 unwrapped), or None."""
    try:
        ip = ipaddress.ip_address((text or "").split("%")[0])
    except ValueError:
        return None
    return ip.ipv4_mapped or ip if ip.version == 6 else ip


def is_loopback(remote: str | None) -> bool:
    ip = address(remote)
    return ip is not None and ip.is_loopback


def client_key(remote: str | None) -> str:
    """What the per-client limits count by: the IPv4 address, or the IPv6 /64 (one machine can
    hold a whole /64 of addresses)."""
    ip = address(remote)
    if ip is None:
        return remote or "?"
    return str(ipaddress.ip_network(f"{ip}/64", strict=False)) if ip.version == 6 else str(ip)


def peer(transport) -> str | None:
    found = transport.get_extra_info("peername") if transport is not None else None
    return found[0] if isinstance(found, tuple) else None


# --- the log: a line now and then -----------------------------------------------------------------

class Tally:
    """Counts one kind of event (a refused connection, a wrong token) and logs it as one line
    at most every `every` seconds, with how many there were since the last line."""

    def __init__(self, what: str, every: float = 10.0):
        self.what = what
        self.every = every
        self.count = 0
        self.logged = -every

    def add(self, detail: str = "") -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.logged >= self.every:
            since = f" ({self.count} since the last such line)" if self.count > 1 else ""
            log.warning("web: %s%s%s", self.what, f": {detail}" if detail else "", since)
            self.count, self.logged = 0, now


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


# --- the connection gate ---------------------------------------------------------------------------

def max_connections() -> int:
    """CONNECTIONS, or fewer when the file descriptor limit would not leave RESERVED_FDS."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return CONNECTIONS
    return max(8, min(CONNECTIONS, soft - RESERVED_FDS))


class Limits:
    """How many connections one client and all of them together may hold."""

    def __init__(self, connections: int, per_address: int = CONNECTIONS_PER_ADDRESS):
        self.connections = connections
        self.per_address = per_address
        self.refused = Tally("connections refused")

    def admit(self, peer: str | None, open_peers: list[str | None]) -> bool:
        """May a new connection from `peer` stay, beside those open from `open_peers`?"""
        if len(open_peers) >= self.connections:
            self.refused.add(f"{len(open_peers)} open, the most this table holds")
            return False
        if not is_loopback(peer):
            key = client_key(peer)
            count = Counter(client_key(p) for p in open_peers)[key]
            if count >= self.per_address:
                self.refused.add(f"{key} holds {count}, the most one machine may")
                return False
        return True


class Gate(asyncio.Protocol):
    """What a new connection meets first: it is handed to aiohttp if `admit` gives a handler for
    it, else closed at once (so a flood never takes the file descriptors the table needs)."""

    def __init__(self, admit):
        self.admit = admit

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        handler = self.admit(transport)
        if handler is None:
            transport.abort()
            return
        transport.set_protocol(handler)
        handler.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        pass


# --- refusals as JSON -------------------------------------------------------------------------------

def error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def said(exc: web.HTTPException, request: web.Request) -> str:
    """aiohttp's own refusals in words."""
    if exc.status == 404 and exc.text in (None, "404: Not Found"):
        return f"nothing here: {request.path}"
    if exc.status == 405:
        return f"{request.method} is not taken at {request.path}"
    if exc.status == 413:
        return f"the request body is too large ({MAX_BODY // 1024} KiB at most)"
    return exc.text or exc.reason


@web.middleware
async def refusals(request: web.Request, handler) -> web.StreamResponse:
    """Every refusal, the server's own or aiohttp's, said as a 4xx with `{"error": ...}`."""
    try:
        return await handler(request)
    except Refused as refused:
        return error(refused.status, str(refused))
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return error(exc.status, said(exc, request))


# --- hardened JSON ---------------------------------------------------------------------------------

async def body(request: web.Request) -> dict:
    """The request's body as a JSON object, or Refused naming what is wrong with it (a 408 when it
    does not arrive within BODY_TIMEOUT)."""
    try:
        raw = await asyncio.wait_for(request.read(), BODY_TIMEOUT)
    except TimeoutError:
        raise Refused(f"the request body did not arrive within {BODY_TIMEOUT:g} s", 408) from None
    found = parse_json(raw)
    if not isinstance(found, dict):
        raise Refused("the request body must be a JSON object")
    return found


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


def show(value) -> str:
    """A value a request gave, short, for a refusal naming it."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
