"""The table page wired to the runtime: the PageApi (ui/web/api.py) over the runtime and its
hardware, the page started on the configured address (with a warning when other machines can
reach it without a token), and the signals that end a table serving it."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable

from dominotable.app.config import WebConfig
from dominotable.rules.errors import DominoError
from dominotable.rules.tiles import Tile
from dominotable.tray.virtual import VirtualTray
from dominotable.ui.web.access import is_local
from dominotable.ui.web.server import WebServer


class TrayHands:
    """The simulated tray for the page's hands and faults (ui/web/api.py `Hands`)."""

    def __init__(self, vtray: VirtualTray):
        self.vtray = vtray
        self.tiles, self.apply, self.unplug, self.replug = vtray.tiles, vtray.apply, vtray.unplug, vtray.replug
        self.flicker = vtray.set_flicker

    def noise(self, probability: float) -> None:
        self.vtray.to_host.bit_flip = self.vtray.to_host.garbage = probability

    def dead(self, cell: int, dead: bool) -> None:
        self.vtray.set_dead(cell, dead)


class RuntimePage:
    """What the page may ask of the table (ui/web/api.py `PageApi`), answered by the runtime."""

    def __init__(self, runtime):
        self.runtime = runtime
        self.hw = runtime.hw
        self.geometry = runtime.hw.geometry
        self.hands = TrayHands(runtime.hw.tray.virtual) if runtime.hw.tray.virtual is not None else None
        self.database = runtime.store.path
        self._buttons = runtime.hw.buttons()

    def observe(self, screen_shown, frame_sent) -> None:
        self.hw.display.sinks.append(frame_sent)
        def observe(screen) -> None:
            screen_shown(screen)

        observe.part = "the page"  # how a fault in it is named
        self.runtime.observers.append(observe)

    def board(self) -> list:
        board = self.runtime.board
        return [(p.tile, p.cells) for p in board.placements] if board is not None else []

    def lights(self) -> dict:
        return self.hw.lights.state()

    def repairs(self) -> list[str]:
        return list(self.runtime.repairs)

    def stopped(self) -> str:
        return "the table has stopped: the page shows how it was left" if self.runtime.stopped else ""

    def press(self, button: str) -> None:
        if self._buttons is None:
            raise DominoError("the buttons are real ones: press them at the table")
        self._buttons.press(button)

    def offer(self) -> dict:
        return self.runtime.offer()

    def choose(self, game: str, options: dict, seats) -> None:
        self.runtime.choose(game, options, seats)

    def setup_open(self) -> bool:
        return self.runtime.setup is not None

    def act(self, kind: str, move: str | None) -> None:
        self.runtime.act(kind, move)

    def targets(self, tile: Tile) -> tuple:
        return self.runtime.targets(tile)


def serve(runtime, cfg: WebConfig, host: str, port: int) -> WebServer:
    """Start the page for `runtime` (before `runtime.start()`) with the `[web]` section's token,
    hosts and origins; raises OSError if the address is taken."""
    server = WebServer(RuntimePage(runtime), host, port, cfg.token, hosts=cfg.hosts, origins=cfg.origins)
    server.start()
    runtime.link = server.scoreboard_url()  # for the OLED's page that phones scan
    return server


def start(runtime, cfg: WebConfig, listen: tuple[str, int], explicit: bool,
          say: Callable[[str, str], None] = lambda line, about: print(line, flush=True)) -> WebServer | None:
    """The page for `runtime` on `listen`, its address said (`say(line, about)`: printed, or kept
    under the OLED drawn in the terminal, one line per `about`), with a warning when other
    machines reach it without a token. An address already in use is an error when it was asked
    for on the command line, else only said (the table runs on)."""
    host, port = listen
    try:
        server = serve(runtime, cfg, host, port)
    except OSError as exc:
        why = f"cannot serve the table page on {host}:{port}: {exc.strerror or exc}"
        if explicit:
            raise DominoError(why + " (choose another with --http HOST:PORT, or --http off)") from None
        say(f"{why}; running without it (--http HOST:PORT picks another address)", "page")
        return None
    say(f"the table page: {server.url}  (scoreboard: {server.url}scores)", "page")
    if not is_local(host):
        say(f"other machines control the table after logging in at {server.url}login with the [web] token; "
            "without it they only watch" if cfg.token else
            f"warning: the table page on {host} is open to other machines without a [web] token: they can watch "
            "but not control the table (only this machine can); set token in the [web] section to let staff "
            "control it from a phone", "page access")
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
