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
Wrong tokens are counted per address, and logged as a line now and then."""

from __future__ import annotations

import hashlib
import hmac
import socket
import time
from collections import deque

from dominotable.web.guard import Tally, address, client_key, is_loopback

TOKEN_HEADER = "X-Dominotable-Token"
COOKIE = "dominotable"
LOGIN_DAYS = 30  # a phone stays signed in this long (changing the token signs every phone out)
WRONG_TOKENS = 10  # wrong tokens one address may try in a minute
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def is_local(host: str) -> bool:
    """Does binding `host` keep the page on this machine?"""
    return host.lower() == "localhost" or is_loopback(host)


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
