"""Host latency of the table: from the last byte of the tray frame that settles a play to the
OLED frame handed to the display driver.

Greedy bots play Castle Rock (4 players, one hand per match) through the real chain, in one
thread: each physical move (`reader.actions`) changes an in-memory tray, which is sent as a
full-tray SNAPSHOT frame (every one of the 194 cells, as the tray's heartbeat snapshot);
the clock starts when the frame's last byte goes into the link's decoder (`wire.Decoder`,
as `TrayLink` runs it) and stops when `Display.show` hands the new frame to the writer of
luma.oled's real `ssd1306` (ui/oled/ram.py, on an I2C bus that only counts bytes). In
between: cells -> Board -> the runtime's event step -> Session (settle time 0: the settle
wait is deliberate, not latency) -> reader.judge -> push -> SQLite commit -> screen drawn ->
frame sent. The commit (WAL, synchronous=FULL: an fsync) is timed separately and reported
apart; the target (p99 < 5 ms) is for the rest.

With `--clients N` the same matches are played twice in one run, without and then with the
table page served (app/web.py) and N WebSocket clients following it on loopback (another
process), plays GAP apart so that the page's updates go out between them as at a
table: the page must not slow the table (target p99 < 5 ms with 50 clients).

Run: python benchmarks/table_latency.py [--matches 8] [--db-dir /tmp] [--clients 50]
(one untimed warm-up match first)
"""

from __future__ import annotations

import argparse
import queue
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from dominotable.app.demo import choose
from dominotable.app.runtime import Runtime
from dominotable.games import catalog
from dominotable.match.status import Mode
from dominotable.rules.tiles import DominoSet
from dominotable.sim.memtray import MemoryTray
from dominotable.sim.stats import percentile
from dominotable.store.storage import Store
from dominotable.tray.action import ActionKind
from dominotable.tray.board import Board
from dominotable.tray.geometry import default
from dominotable.tray.link import Event, TrayEvent
from dominotable.tray.tags import Registry
from dominotable.ui.lights import TrayLights
from dominotable.ui.menu import Choice
from dominotable.ui.oled.display import DisplayConfig, open_display
from dominotable.ui.press import Press
from dominotray import wire
from targets import Targets


class CountingBus:
    def __init__(self):
        self.bytes = 0

    def write_i2c_block_data(self, address, register, data):
        self.bytes += len(data) + 2


GAP = 0.06  # with the page: plays 60 ms apart (a table's come seconds apart; the demo settles in 60 ms)


FOLLOW = """
import asyncio, signal, sys
import aiohttp

count = 0

async def one(url):
    global count
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        async for msg in ws:
            count += 1

async def main(url, n):
    tasks = [asyncio.ensure_future(one(url)) for _ in range(n)]
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    for task in tasks:
        task.cancel()
    print(count, flush=True)

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


class Clients:
    """N WebSocket clients reading every update of the page, in a process of their own (as
    browsers are: their work must not be counted against the table's)."""

    def __init__(self, count: int):
        self.count = count
        self.messages = 0
        self.proc: subprocess.Popen | None = None

    def follow(self, url: str) -> None:
        ws_url = url.replace("http://", "ws://") + "ws"
        self.proc = subprocess.Popen([sys.executable, "-c", FOLLOW, ws_url, str(self.count)],
                                     stdout=subprocess.PIPE, text=True)

    def close(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.messages += int(self.proc.communicate(timeout=30)[0].strip() or 0)


def play_match(seed: int, db: Path, latencies: list, commits: list, clients: Clients | None = None,
               gap: float = 0.0) -> int:
    geometry = default()
    registry = Registry.virtual(DominoSet(6))
    layout = MemoryTray(registry, geometry)
    decoder = wire.Decoder(types=wire.FROM_TRAY, parse=True)
    cells = {"now": layout.cells()}
    display = open_display(DisplayConfig(driver="ssd1306"), bus=CountingBus())
    handed = {}
    update = display.ram.update

    def display_spy(image):
        handed["at"] = time.perf_counter()
        return update(image)

    display.ram.update = display_spy
    link = SimpleNamespace(watch=lambda *a, **k: None, light=lambda lit: None, connected=True)
    hw = SimpleNamespace(board=lambda cells: Board(cells, registry, geometry) if cells else None, display=display,
                         controls=SimpleNamespace(illegal=lambda: None), events=queue.Queue(), geometry=geometry,
                         tray=SimpleNamespace(virtual=None, link=link), buttons=lambda: None, lights=TrayLights(link))
    with Store(db) as store:
        write = store.commit

        def timed_commit(*args):
            start = time.perf_counter()
            write(*args)
            commits.append(time.perf_counter() - start)

        store.commit = timed_commit
        cls = catalog.engine("castle-rock")
        choice = Choice(cls, cls.Options(hands=1), 4, ["ANN", "BOB", "CAT", "DAN"])
        runtime = Runtime(hw, store, 0, seed=seed, choice=choice, stop_when_over=True)
        server = None
        if clients is not None:
            from dominotable.app.config import WebConfig
            from dominotable.app.web import serve

            server = serve(runtime, WebConfig(), "127.0.0.1", 0)
            clients.follow(server.url)
            while len(server.clients) < clients.count:
                time.sleep(0.01)
        hw.events.put(Event(TrayEvent.SNAPSHOT, None, tuple(cells["now"])))  # the handshake's
        runtime.start()
        seq = 0
        while not runtime.stopped:
            session = runtime.session
            game = session.referee.game.copy()
            hands = catalog.hands_for(game, hw.geometry)
            if session.referee.status.mode != Mode.PLAY:
                layout.apply_all(hands.setup(hw.board(layout.cells())))
                actions = None
            else:
                move = choose(game, seed)
                actions = hands.actions(move, hw.board(layout.cells()))
                if not actions:  # a button move: through the in-game menu, not timed
                    index = [m for _, m in session.referee.button_moves()].index(move)
                    for press in ["long-select", *["down"] * index, "select", "up", "select"]:
                        hw.events.put(Press(press))
                    runtime.step(0)
                    continue
                if any(action.kind == ActionKind.PAD for action in actions):  # a draw over the scan pad: not timed
                    for action in actions:  # each tile read before the next
                        layout.apply(action)
                        cells["now"] = layout.cells()
                        hw.events.put(Event(TrayEvent.SNAPSHOT, None, tuple(cells["now"])))
                        runtime.step(0)
                    continue
                layout.apply_all(actions)
            seq = (seq + 1) & 0xFF
            data = wire.frame(wire.SNAPSHOT, seq, wire.encode_snapshot(wire.HEARTBEAT, layout.cells()))
            decoder.feed(data[:-1])
            ply = len(session.referee.game.moves)
            commits_before = len(commits)
            handed.clear()
            start = time.perf_counter()
            for kind, _, msg in decoder.feed(data[-1:]):  # the frame's last byte
                cells["now"] = list(msg.cells)
                hw.events.put(Event(TrayEvent.SNAPSHOT, None, tuple(cells["now"])))
            runtime.step(0)
            if actions is not None and len(runtime.session.referee.game.moves) != ply and "at" in handed:
                commit = sum(commits[commits_before:])
                latencies.append(handed["at"] - start - commit)
            if gap:
                time.sleep(gap)
        if server is not None:
            clients.close()
            server.stop()
        return len(runtime.session.referee.game.moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--db-dir", help="where the SQLite files go (default: a temporary folder)")
    parser.add_argument("--clients", type=int, default=0, help="also with the page served to this many clients")
    args = parser.parse_args()
    targets = Targets()
    for clients in [None, Clients(args.clients)] if args.clients else [None]:
        latencies: list[float] = []
        commits: list[float] = []
        moves = 0
        with tempfile.TemporaryDirectory(dir=args.db_dir) as folder:
            play_match(999, Path(folder) / "warm-up.sqlite3", [], [])  # imports and caches, not timed
            for seed in range(args.matches):
                moves += play_match(seed, Path(folder) / f"m{seed}.sqlite3", latencies, commits, clients,
                                    GAP if args.clients else 0.0)
        if clients is None and args.clients:
            print(f"without the page (plays {GAP * 1000:.0f} ms apart):")
        if clients is not None:
            print(f"with the page served to {clients.count} WebSocket clients ({clients.messages} updates received):")
        report(args.matches, moves, latencies, commits, targets,
               "latency" if clients is None else f"latency with {clients.count} clients")
    targets.done()


def report(matches: int, moves: int, latencies: list[float], commits: list[float], targets: Targets,
           name: str) -> None:
    ms = [x * 1000 for x in latencies]
    cms = [x * 1000 for x in commits]
    p99 = percentile(ms, 0.99)
    targets.check(name, p99, lambda p: p < 5)
    print(f"{matches} Castle Rock matches, {moves} moves, {len(ms)} plays timed, full 194-cell snapshots")
    print(f"host latency without the commit: p50 {_ms(percentile(ms, 0.5))}, p99 {_ms(p99)}"
          f" (target p99 < 5 ms: {targets.said(name)})")
    print(f"SQLite commit per change (fsync): p50 {_ms(percentile(cms, 0.5))}, p99 {_ms(percentile(cms, 0.99))}")


def _ms(value: float | None) -> str:
    return "not measured" if value is None else f"{value:.2f} ms"


if __name__ == "__main__":
    main()
