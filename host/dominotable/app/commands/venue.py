"""`dominotable venue --broker URL [--db FILE|postgresql://...] [--http HOST:PORT] [--simulate N]`:
the venue's scoreboard (venue/server.py) for every table publishing to the broker.

The broker's credentials come from the address or the [venue] section of the configuration.
The store is an SQLite file (default: venue.sqlite3 in the user data directory), or a PostgreSQL
database for a league server (the `venue-pg` extra). `--simulate N` also plays matches on N
simulated tables (`dominotable demo`, one match after another, games in turn) publishing to the
same broker, until Ctrl-C: a venue to look at on one machine; their demo matches are rated.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import threading
from pathlib import Path

from dominotable.app.config import listen_address


def register(subparsers) -> None:
    parser = subparsers.add_parser("venue", help="serve the venue's scoreboard for the tables on a broker",
                                   description="Keep every table's events from the venue's MQTT broker and serve "
                                               "one scoreboard, leaderboard and rating list across the tables.")
    parser.add_argument("--config", help="configuration file (default: config.toml in the user config directory)")
    parser.add_argument("--broker", metavar="URL",
                        help="the venue's MQTT broker, mqtt://[user:pass@]HOST:PORT (mqtts:// for TLS; "
                             "default: [venue] broker)")
    parser.add_argument("--db", metavar="FILE|postgresql://...",
                        help="the venue's database (default: venue.sqlite3 in the user data directory)")
    parser.add_argument("--http", metavar="HOST:PORT", type=listen_address, default=("127.0.0.1", 8090),
                        help="serve the scoreboard here (default 127.0.0.1:8090; 0.0.0.0:8090 for the bar's network)")
    parser.add_argument("--simulate", metavar="N", type=int, default=0,
                        help="also run N simulated tables playing demo matches to the venue")
    parser.set_defaults(func=run)


def run(args) -> int:
    import platformdirs

    from dominotable.app import config as config_module
    from dominotable.app.config import APP
    from dominotable.app.web import wait_for_signal
    from dominotable.venue.broker import Broker, BrokerError
    from dominotable.venue.server import VenueServer
    from dominotable.venue.store import VenueStore

    cfg = config_module.load(args.config).venue
    if args.http is None:
        raise BrokerError("the venue's scoreboard needs an address: --http HOST:PORT")
    if not args.broker and not cfg.broker:
        raise BrokerError("the venue needs its broker: --broker mqtt://HOST:PORT or [venue] broker")
    if not 0 <= args.simulate <= 50:
        raise BrokerError(f"--simulate {args.simulate}: from 0 to 50 tables")
    broker = Broker.parse(args.broker or cfg.broker, cfg.username, cfg.password, cfg.ca)
    data = Path(platformdirs.user_data_dir(APP))
    store = VenueStore(args.db or data / "venue.sqlite3")
    host, port = args.http
    try:
        server = VenueServer(store, broker, host, port, rate_demos=args.simulate > 0).start()
    except OSError as exc:
        store.close()
        raise BrokerError(f"cannot serve the venue's scoreboard on {host}:{port}: {exc.strerror or exc}") from None
    print(f"the venue: {server.url}  (kiosk: {server.url}kiosk), keeping events from {broker} in "
          f"{args.db or data / 'venue.sqlite3'}", flush=True)
    tables = Simulated(args.simulate, args.broker or cfg.broker, data / "simulated").start() if args.simulate else None
    try:
        wait_for_signal("Ctrl-C or SIGTERM stops the venue")
    finally:
        if tables is not None:
            tables.stop()
        server.stop()
        store.close()
    return 0


class Simulated:
    """N simulated tables, each playing demo matches one after another until stopped."""

    def __init__(self, count: int, broker: str, folder: Path):
        self.count, self.broker, self.folder = count, broker, folder
        self.stopping = threading.Event()
        self.children: dict[int, subprocess.Popen] = {}
        self.threads = [threading.Thread(target=self._table, args=(n,), daemon=True) for n in range(1, count + 1)]

    def start(self) -> Simulated:
        self.folder.mkdir(parents=True, exist_ok=True)
        for thread in self.threads:
            thread.start()
        print(f"{self.count} simulated tables (sim-1 ... sim-{self.count}) play demo matches", flush=True)
        return self

    def _table(self, n: int) -> None:
        from dominotable.games import catalog

        games = [spec.name for spec in catalog.GAMES if spec.engine.min_players > 1]  # a venue rates players
        for seed in itertools.count(n * 1000):
            if self.stopping.is_set():
                return
            game = games[(seed + n) % len(games)]
            self.children[n] = child = subprocess.Popen(
                [sys.executable, "-m", "dominotable", "demo", game, "--seed", str(seed), "--quiet",
                 "--broker", self.broker, "--table", f"sim-{n}", "--db", str(self.folder / f"sim-{n}.sqlite3")],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if child.wait() != 0:
                self.stopping.wait(5)  # a table that cannot start (a broker refusing it) tries again later

    def stop(self) -> None:
        self.stopping.set()
        for child in self.children.values():
            if child.poll() is None:
                child.terminate()  # what its table had not sent waits in its database
        for child in self.children.values():
            child.wait(timeout=10)
