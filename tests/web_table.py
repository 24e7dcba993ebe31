"""A table with its web page, in this process: the runtime in its own thread (which owns the
database connection), the server on a free loopback port (or any address), the virtual tray
behind a real pty, mock buttons, the emulated OLED. Plain HTTP helpers for the API."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

from dominotable.app.config import WebConfig
from dominotable.app.demo import demo_choice
from dominotable.app.runtime import Runtime
from dominotable.app.storage import Store
from dominotable.app.web import serve
from dominotable.ui.menu import Choice
from table_match import SETTLE_MS, SHORT, open_table


class LiveTable:
    def __init__(self, db, game: str = "castle-rock", players: int | None = None, options: dict | None = None,
                 seed: int = 1, names: list[str] | None = None, host: str = "127.0.0.1", token: str = "",
                 settle_ms: int = SETTLE_MS, stop_when_over: bool = False, repairs: list[str] | None = None):
        self.hw, self.frames = open_table()
        self.vtray = self.hw.tray.virtual
        self.db = db
        choice = demo_choice(game, players, SHORT[game] if options is None else options)
        if names is not None:
            choice = Choice(choice.game, choice.options, choice.players, names)
        self.runtime: Runtime | None = None
        self.server = None
        ready = threading.Event()
        self.error: BaseException | None = None

        def run():
            try:
                with Store(db) as store:
                    self.runtime = Runtime(self.hw, store, settle_ms, seed=seed, choice=choice,
                                           stop_when_over=stop_when_over, repairs=repairs)
                    self.server = serve(self.runtime, WebConfig(token=token), host=host, port=0)
                    self.runtime.start()
                    ready.set()
                    self.runtime.run()
            except BaseException as exc:
                self.error = exc
                ready.set()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.wait(15) and self.error is None, self.error
        self.url = f"http://127.0.0.1:{self.server.port}"

    @property
    def controller(self):
        return self.runtime.session.controller

    def until(self, predicate, what: str, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        while True:
            with self.runtime.lock:
                if self.runtime.session is not None and predicate(self.controller):
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"waited for {what}; the table shows {self.get('/api/state')[1].get('prompt')!r}")
            time.sleep(0.01)

    def get(self, path: str, base: str | None = None):
        return _call(urllib.request.Request((base or self.url) + path))

    def post(self, path: str, body, base: str | None = None, headers: dict | None = None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request((base or self.url) + path, data=data, method="POST",
                                         headers={"Content-Type": "application/json", **(headers or {})})
        return _call(request)

    def close(self):
        if self.runtime is not None:
            self.runtime.stop()
        self.thread.join(timeout=5)
        if self.server is not None:
            self.server.stop()
        self.hw.close()


def _call(request):
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
            status = response.status
            kind = response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        body, status, kind = error.read(), error.code, error.headers.get("Content-Type", "")
    return status, json.loads(body) if "json" in kind else body
