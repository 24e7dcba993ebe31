"""A table with its web page, in this process: the runtime in its own thread (which owns the
database connection), the server on a free loopback port (or any address), the virtual tray
behind a real pty, mock buttons, the emulated OLED. Plain HTTP helpers for the API."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request

import pytest
from dominotable.app.config import WebConfig
from dominotable.app.demo import demo_choice
from dominotable.app.web import serve
from dominotable.ui.menu import Choice

from support.polling import WAIT, until
from support.table_match import SETTLE_MS, SHORT, ThreadedTable


class LiveTable(ThreadedTable):
    def __init__(self, db, game: str | None = "castle-rock", players: int | None = None, options: dict | None = None,
                 seed: int = 1, names: list[str] | None = None, host: str = "127.0.0.1", token: str = "",
                 hosts: tuple[str, ...] = (), origins: tuple[str, ...] = (), settle_ms: int = SETTLE_MS,
                 stop_when_over: bool = False, repairs: list[str] | None = None, bots: tuple[int, ...] = ()):
        """`game`: the match to start; None: the setup menu first; `bots`: the seats the table plays
        (with the game's own strategy)."""
        choice = None if game is None else demo_choice(game, players, SHORT[game] if options is None else options)
        if names is not None:
            choice = Choice(choice.game, choice.options, choice.players, names, dict.fromkeys(bots, ""))
        self.server = None

        def with_page(runtime):
            self.server = serve(runtime, WebConfig(host, 0, token, hosts, origins), host, 0)

        super().__init__(db, choice, seed=seed, settle_ms=settle_ms, before_start=with_page,
                         stop_when_over=stop_when_over, repairs=repairs)
        here = "127.0.0.1" if host in ("0.0.0.0", "127.0.0.1") else host
        self.url = f"http://{here}:{self.server.port}"

    def reaches(self, predicate, what: str, timeout: float | None = None, session: bool = True) -> None:
        """Wait until `predicate(referee)` (with `session=False`: `predicate(runtime)`)."""
        runtime = self.runtime
        super().reaches(lambda: predicate(runtime) if not session else
                        runtime.session is not None and predicate(runtime.session.referee), what, timeout)

    def shows(self, predicate, what: str, timeout: float = WAIT) -> dict:
        """Wait until the page's /api/state satisfies `predicate` (what the page shows, not the
        referee: a change made off the loop, such as a hint worked out, is shown a step later)."""
        seen: list[dict] = []

        def shown() -> bool:
            seen[:] = [self.get("/api/state")[1]]
            return predicate(seen[0])

        until(shown, timeout, what=f"the page to show {what}", shows=lambda: seen[0].get("screen"))
        return seen[0]

    def get(self, path: str, base: str | None = None):
        return _call(urllib.request.Request((base or self.url) + path))

    def post(self, path: str, body, base: str | None = None, headers: dict | None = None):
        return post(base or self.url, path, body, headers)

    def close(self):
        super().close()
        if self.server is not None:
            self.server.stop()


def post(url: str, path: str, body, headers: dict | None = None):
    """POST `body` (JSON, or bytes as they are) to `url` + `path`: the status and the answer."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return _call(urllib.request.Request(url + path, data=data, method="POST",
                                        headers={"Content-Type": "application/json", **(headers or {})}))


def _call(request):
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
            status = response.status
            kind = response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        body, status, kind = error.read(), error.code, error.headers.get("Content-Type", "")
    return status, json.loads(body) if "json" in kind else body


def lan_address():
    """An address of this machine that is not loopback (the one its default route leaves by)."""
    address = None
    for target in ("10.255.255.255", "198.51.100.1"):
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            probe.connect((target, 9))  # no packet is sent: this only picks the outgoing address
            address = probe.getsockname()[0]
            break
        except OSError:
            continue
        finally:
            probe.close()
    if address is None or address.startswith("127."):
        pytest.fail("this machine has no network address besides loopback: the tests of what other machines may do need one")
    return address
