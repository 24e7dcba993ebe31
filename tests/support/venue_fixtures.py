"""In-process tables and venues for the venue tests, over the real Mosquitto of broker.py: a table
is a real SQLite store whose matches greedy bots play move by move (no tray: the tray's own tests
cover it), with a VenueLink publishing its outbox; the venue is a VenueServer over a real store.
Also a throwaway PostgreSQL cluster (initdb/pg_ctl in a temporary folder)."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import urllib.request
from pathlib import Path

import pytest
from dominotable.games import catalog
from dominotable.sim.bots.shared import greedy_bot
from dominotable.store import outbox
from dominotable.store.lock import TableLock
from dominotable.store.storage import Store
from dominotable.venue.broker import Broker
from dominotable.venue.link import VenueLink
from dominotable.venue.server import VenueServer
from dominotable.venue.store import VenueStore

from support.broker import Mosquitto, free_port
from support.polling import until

PG_BIN = Path("/usr/lib/postgresql/15/bin")
SHORT = {"castle-rock": {"hands": 1}}  # one hand: a match of about sixty moves
WAIT = 20.0


class SimTable:
    """A table `name` with its own database and, once `connect`ed, its link to the venue."""

    def __init__(self, folder: Path, name: str, broker: Mosquitto):
        self.name = name
        self.broker = broker
        self.path = folder / f"{name}.sqlite3"
        self._local = threading.local()  # a store per thread: tables play in threads of their own
        self._stores: list[Store] = []
        self.link: VenueLink | None = None
        self.played: list[int] = []  # match ids
        self.store.close()  # made now
        self.lock = TableLock(self.path)  # the table's, held as its process would; its threads' stores share it

    @property
    def store(self) -> Store:
        store = getattr(self._local, "store", None)
        if store is None or store.db is None:
            store = self._local.store = Store(self.path, lock=False)
            store.db.execute("PRAGMA synchronous=OFF")  # a test's table: no fsync per move
            store.publish()  # a table with a venue (app/venue.py)
            self._stores.append(store)
        return store

    @property
    def db(self):
        return self.store.db

    def connect(self) -> SimTable:
        self.link = VenueLink(self.path, self.name, Broker.parse(self.broker.url(self.name)),
                              resend=2.0, retry=(0.1, 0.5)).start()
        return self

    def disconnect(self) -> None:
        if self.link is not None:
            self.link.stop()
            self.link = None

    def play(self, names: list[str], seed: int = 0, moves: int | None = None, game: str = "castle-rock",
             takeback: bool = True) -> int:
        """A match played at this table (`play_match`), the link nudged after each move; its id."""
        match_id = play_match(self.store, names, seed, moves, game, takeback,
                              self.link.wake if self.link is not None else None)
        self.played.append(match_id)
        return match_id

    def events(self) -> int:
        """Every event the table's outbox has numbered (sent or not)."""
        return sum(seq for (seq,) in self.store.db.execute("SELECT seq FROM outbox_matches"))

    def pending(self) -> int:
        return outbox.count(self.store.db)

    def close(self) -> None:
        self.disconnect()
        for store in self._stores:
            try:
                store.close()
            except sqlite3.ProgrammingError:
                pass  # another thread's: closed when it goes
        self.lock.release()


def play_match(store: Store, names: list[str], seed: int = 0, moves: int | None = None, game: str = "castle-rock",
               takeback: bool = True, moved=None) -> int:
    """A match of `game` by greedy bots recorded in `store` (`moves`: only that many, left
    unfinished), with one move taken back and made again along the way, `moved()` after each
    move; its id."""
    cls = catalog.engine(game)
    match = cls(players=len(names), seed=seed, options=SHORT.get(game))
    match_id = store.start_match(match, names)
    bot = greedy_bot(random.Random(seed))
    while not match.is_over() and (moves is None or len(match.moves) < moves):
        move = bot(match)
        match.push(move)
        store.append_move(match_id, len(match.moves), str(move))
        if takeback and len(match.moves) == 3:
            store.take_back(match_id, 3)
            store.append_move(match_id, 3, str(move))
        if moved is not None:
            moved()
    if match.is_over():
        store.finish(match_id, match)
    return match_id


class Venue:
    def __init__(self, where: str | Path, broker: Mosquitto):
        self.where, self.broker = where, broker
        self.ca = ""  # the CA file of a TLS broker
        self.store: VenueStore | None = None
        self.server: VenueServer | None = None

    def start(self) -> Venue:
        self.store = VenueStore(self.where)
        self.server = VenueServer(self.store, Broker.parse(self.broker.url("venue"), ca=self.ca), port=0,
                                  retry=(0.1, 0.5)).start()
        assert until(lambda: self.server.connected, 10) or self.broker.process is None
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.store.close()
            self.server = None

    def get(self, path: str):
        with urllib.request.urlopen(self.server.url + path.lstrip("/"), timeout=10) as response:
            body = response.read()
        return json.loads(body) if path.startswith("/api/") else body.decode()

    def has(self, tables: list[SimTable]) -> bool:
        """Whether every event of `tables` is kept and applied here (and their outboxes are empty)."""
        expected = sum(t.events() for t in tables)
        counts = self.store.counts()
        return counts == {"events": expected, "waiting": 0} and all(t.pending() == 0 for t in tables)

    def wait_until_kept(self, tables: list[SimTable], timeout: float = WAIT) -> None:
        assert until(lambda: self.has(tables), timeout), (
            f"the venue has {self.store.counts()}, the tables numbered {sum(t.events() for t in tables)} events; "
            f"still in their outboxes: {[t.pending() for t in tables]}")


def same_matches(venue: Venue, tables: list[SimTable]) -> None:
    """Every match of every table is at the venue exactly once, with the same moves and result."""
    kept = {(r.table, r.table_match): r for r in venue.store.matches()}
    assert len(kept) == len(venue.store.matches()) == sum(len(t.played) for t in tables)  # none twice
    for table in tables:
        for match_id in table.played:
            mine = table.store.match(match_id)
            theirs = venue.store.match(kept[(table.name, match_id)].id)
            assert (theirs.moves, theirs.result, theirs.game, theirs.seed) == (mine.moves, mine.result, mine.game,
                                                                                mine.seed)


@pytest.fixture
def tables(tmp_path, mosquitto):
    made: list[SimTable] = []

    def make(count: int = 1) -> list[SimTable]:
        new = [SimTable(tmp_path, f"t{len(made) + n + 1}", mosquitto) for n in range(count)]
        made.extend(new)
        return new
    yield make
    for table in made:
        table.close()


@pytest.fixture
def venue(tmp_path, mosquitto):
    v = Venue(tmp_path / "venue.sqlite3", mosquitto)
    yield v
    v.stop()


# --- PostgreSQL --------------------------------------------------------------------------------

class Postgres:
    """A throwaway PostgreSQL cluster on a free loopback port, run by the `postgres` user when the
    tests run as root (PostgreSQL refuses to run as root)."""

    def __init__(self, folder: Path):
        for tool in ("initdb", "pg_ctl"):
            if not os.access(PG_BIN / tool, os.X_OK):
                pytest.fail(f"{PG_BIN / tool} is missing: install Debian's postgresql package "
                            "(apt-get install postgresql)")
        self.folder, self.port = folder, free_port()
        self.data = folder / "data"
        folder.mkdir(parents=True, exist_ok=True)
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(folder, "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "venue", "--no-sync")
        self._run("pg_ctl", "-D", str(self.data), "-w", "-l", str(folder / "log"), "-o",
                  f"-p {self.port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off", "start")
        self.url = f"postgresql://venue@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        result = subprocess.run([*self.as_user, str(PG_BIN / tool), *args], capture_output=True, text=True,
                                timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr

    def fresh(self, name: str) -> str:
        """The address of a new, empty database."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url.rsplit("/", 1)[0] + f"/{name}"

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")


@pytest.fixture(scope="module")
def postgres():
    folder = Path(tempfile.mkdtemp(prefix="dominotable-pg-"))  # not under pytest's root-only folder
    try:
        server = Postgres(folder)
        yield server
        server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
