"""The table page wired to the runtime: started on the configured address, and the signals that
end a table serving it."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from functools import partial

from dominotable.app.config import WebConfig
from dominotable.rules.errors import DominoError
from dominotable.ui.web.server import WebServer
from dominotable.ui.web.table import serve


def start(runtime, cfg: WebConfig, listen: tuple[str, int], explicit: bool,
          say: Callable[[str], None] = partial(print, flush=True)) -> WebServer | None:
    """The page for `runtime` on `listen`, its address said (`say`: printed, or kept under the
    OLED drawn in the terminal). An address already in use is an error when it was asked for on
    the command line, else only said (the table runs on)."""
    host, port = listen
    try:
        server = serve(runtime, host, port, cfg.token)
    except OSError as exc:
        why = f"cannot serve the table page on {host}:{port}: {exc.strerror or exc}"
        if explicit:
            raise DominoError(why + " (choose another with --http HOST:PORT, or --http off)") from None
        say(f"{why}; running without it (--http HOST:PORT picks another address)")
        return None
    say(f"the table page: {server.url}  (scoreboard: {server.url}scores)")
    return server


def on_signals(stop) -> None:
    """SIGINT and SIGTERM call `stop()` (the table then exits cleanly) instead of killing it."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, frame: stop())


def wait_for_signal(say: str = "the page stays up until Ctrl-C or SIGTERM") -> None:
    """Say so, then block until SIGINT or SIGTERM."""
    stopped = threading.Event()
    on_signals(stopped.set)
    print(say, flush=True)
    while not stopped.wait(0.5):
        pass
