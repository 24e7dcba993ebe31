"""Who may reach the table page and who may drive it.

The attacks are a web page elsewhere that the bar's PC or a guest's phone opens: it can send
requests to the table's address (cross-site requests) or point a name of its own at that
address (DNS rebinding). So every request must name this table in its Host header, and one
that changes something must be JSON (a cross-site form or `text/plain` body cannot be, without
the browser asking the table first, which it never allows) and, when it names its Origin as
browsers do, come from the table's own page or a configured origin.

Controls are taken from this machine (loopback), or with the `[web] token`: in the
`X-Dominotable-Token` header (scripts), or in the cookie that `POST /api/login` sets (browsers,
HttpOnly and SameSite=Strict); never in the address, where it would end in logs and history.

One address may hold only so many connections and WebSockets, and the server never holds so
many that the table runs out of file descriptors; what it refuses or drops is logged as one
line now and then, never a traceback per connection."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import resource
import socket
import time
from collections import Counter, deque

log = logging.getLogger("dominotable.web")

TOKEN_HEADER = "X-Dominotable-Token"
COOKIE = "dominotable"
LOGIN_DAYS = 30  # a phone stays signed in this long (changing the token signs every phone out)
WRONG_TOKENS = 10  # wrong tokens one address may try in a minute
CONNECTIONS = 400  # at most, all addresses together (200 WebSockets and room for requests)
CONNECTIONS_PER_ADDRESS = 32  # from one other machine (a browser opens about 6, plus its WebSockets)
RESERVED_FDS = 128  # file descriptors kept for the table itself: tray, database, GPIO, threads
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


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


def is_local(host: str) -> bool:
    """Does binding `host` keep the page on this machine?"""
    return host.lower() == "localhost" or is_loopback(host)


def client_key(remote: str | None) -> str:
    """What the per-client limits count by: the IPv4 address, or the IPv6 /64 (one machine can
    hold a whole /64 of addresses)."""
    ip = address(remote)
    if ip is None:
        return remote or "?"
    return str(ipaddress.ip_network(f"{ip}/64", strict=False)) if ip.version == 6 else str(ip)


def split_authority(text: str) -> tuple[str, int | None]:
    """`name[:port]` or `[v6][:port]` as (lowercase name, port or None); ValueError if it is neither."""
    text = text.strip().lower()
    if text.startswith("["):
        name, sep, rest = text[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise ValueError(text)
        port = rest[1:] or None
    else:
        name, _, port = text.partition(":")
        if ":" in (port or ""):
            raise ValueError(text)
        port = port or None
    name = name.rstrip(".")
    if not name or (port is not None and not (port.isdigit() and len(port) <= 5)):
        raise ValueError(text)
    return name, None if port is None else int(port)


def max_connections() -> int:
    """CONNECTIONS, or fewer when the file descriptor limit would not leave RESERVED_FDS."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return CONNECTIONS
    return max(8, min(CONNECTIONS, soft - RESERVED_FDS))


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


class Access:
    """The Host and Origin checks, the token and its cookie, and the count of wrong tokens."""

    def __init__(self, bound: str, token: str = "", hosts=(), origins=()):
        self.port = 0  # set once listening (a port of 0 picks a free one)
        self.token = token
        self.names = set(LOOPBACK_NAMES)
        bound = bound.lower().strip("[]")
        if bound not in ("", "0.0.0.0", "::"):  # a wildcard: the address a request arrived at counts instead
            self.names.add(bound)
        hostname = socket.gethostname().lower()
        if hostname:  # the machine's own name, and its mDNS name (the Pi as raspberrypi.local)
            self.names |= {hostname, hostname.split(".")[0] + ".local"}
        self.hosts: set[tuple[str, int | None]] = {split_authority(host) for host in hosts}
        self.origins = {origin.lower().rstrip("/") for origin in origins}
        self.wrong: dict[str, deque[float]] = {}
        self.wrong_tally = Tally("wrong tokens refused")

    # --- Host and Origin -------------------------------------------------------------------

    def host_ok(self, authority: str | None, local: str | None) -> bool:
        """Does `authority` (a Host header, or an Origin's host and port) name this table?
        `local` is the address the request arrived at."""
        if not authority:
            return False
        try:
            name, port = split_authority(authority)
        except ValueError:
            return False
        if (name, None) in self.hosts or (name, port) in self.hosts:
            return True
        here = address(local)
        named = address(name)
        own = name in self.names or (named is not None and (named.is_loopback or named == here))
        return own and (port or 80) == self.port

    def origin_ok(self, origin: str, local: str | None) -> bool:
        """The table's own page (http:// and a Host that names this table) or a configured origin;
        never `null` (a sandboxed frame, a file, a redirect across sites)."""
        origin = origin.strip().lower()
        if origin in self.origins:
            return True
        scheme, sep, authority = origin.partition("://")
        return scheme == "http" and bool(sep) and "/" not in authority and self.host_ok(authority, local)

    # --- the token -------------------------------------------------------------------------

    def cookie_value(self) -> str:
        """What the login cookie holds: derived from the token, so the cookie is not the token
        itself and a new token signs every browser out."""
        return hmac.new(self.token.encode(), b"dominotable page login", hashlib.sha256).hexdigest()

    def token_matches(self, given: str) -> bool:
        """`given` (from a header or a login form) is the token. A value that is not UTF-8 text is
        a ValueError naming the problem."""
        try:
            given_bytes = given.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("the token is not UTF-8 text") from None
        return bool(self.token) and hmac.compare_digest(given_bytes, self.token.encode())

    def may_control(self, remote: str | None, header: str | None, cookie: str | None) -> bool:
        """From this machine, or with the token in the header or the login cookie. A header that
        is not UTF-8 text is a ValueError, from any machine."""
        given = self.token_matches(header) if header is not None else None
        if is_loopback(remote):
            return True
        if not self.token:
            return False
        if given is not None:
            return given
        return cookie is not None and hmac.compare_digest(cookie.encode("utf-8", "replace"), self.cookie_value().encode())

    def too_many_wrong(self, remote: str | None) -> bool:
        """Has this address given WRONG_TOKENS wrong tokens in the last minute?"""
        tries = self.wrong.get(client_key(remote))
        now = time.monotonic()
        while tries and now - tries[0] > 60:
            tries.popleft()
        return bool(tries) and len(tries) >= WRONG_TOKENS

    def wrong_token(self, remote: str | None) -> None:
        key = client_key(remote)
        if len(self.wrong) > 1000 and key not in self.wrong:  # forget the oldest address, not the newest
            self.wrong.pop(next(iter(self.wrong)))
        self.wrong.setdefault(key, deque(maxlen=WRONG_TOKENS)).append(time.monotonic())
        self.wrong_tally.add(f"from {remote}")


class Limits:
    """How many connections and WebSockets one client and all of them together may hold."""

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
