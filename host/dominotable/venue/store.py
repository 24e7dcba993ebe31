"""The venue's store: every table's events, kept idempotently, and the matches they make.

`receive()` takes a batch of events as they came from the broker, in one transaction. An event
is named by its table, its match's uid and its sequence number; one already kept is a duplicate
and changes nothing. A match's events are applied in sequence order: one that comes early (its
predecessor lost on the way and sent again later) is kept and waits until the gap is filled.
Every event kept, new or duplicate, is acknowledged to its table afterwards, so the table can
drop it from its outbox.

Players are one person across tables: a name is matched to a player id by its case-folded
spelling, and the first spelling seen is the one shown.

SQLite (a file path) is the default; a `postgresql://` address keeps the same tables in
PostgreSQL (psycopg 3, the `venue-pg` extra) for a league server that many venues report to.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dominotable.rules.errors import DominoError
from dominotable.store.records import MatchRecord, parse_result

log = logging.getLogger("dominotable.venue")

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id {id},
    name TEXT NOT NULL,
    fold TEXT NOT NULL UNIQUE           -- the name case-folded: one person across tables
);
CREATE TABLE IF NOT EXISTS matches (
    id {id},
    table_id TEXT NOT NULL,
    uid TEXT NOT NULL,                  -- the match's id at its table, never reused
    table_match INTEGER NOT NULL,       -- the match's number at its table
    applied INTEGER NOT NULL,           -- events applied, in sequence order
    game TEXT NOT NULL,
    options TEXT NOT NULL,              -- JSON
    seed BIGINT NOT NULL,
    players INTEGER NOT NULL,
    names TEXT NOT NULL,                -- JSON, as the table had them
    sides TEXT NOT NULL,                -- JSON
    bots TEXT NOT NULL,                 -- JSON: the seats the table played
    observed INTEGER NOT NULL,
    demo INTEGER NOT NULL,
    started TEXT NOT NULL,
    finished TEXT,
    result TEXT,                        -- JSON: ending, scores, winners
    damaged TEXT,
    UNIQUE (table_id, uid)
);
CREATE TABLE IF NOT EXISTS seats (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    ply INTEGER NOT NULL,
    notation TEXT NOT NULL,
    time TEXT NOT NULL,
    PRIMARY KEY (match_id, ply)
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    uid TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    event TEXT NOT NULL,                -- JSON, as published
    time TEXT NOT NULL,                 -- committed at the table
    stored TEXT NOT NULL,               -- kept here
    PRIMARY KEY (table_id, uid, seq)
);
"""

KINDS = {"started": {"game": str, "options": dict, "seed": int, "players": int, "names": list, "sides": list,
                     "started": str},
         "move": {"ply": int, "notation": str}, "takeback": {"ply": int}, "hand": {"hand": int, "scores": list},
         "ended": {"ending": str, "scores": list, "winners": list}, "aside": {"why": str}}


class VenueStoreError(DominoError):
    """A venue database that cannot be opened."""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def check(table: str, event: Any) -> str | None:
    """Why `event` (from `table`'s topic) is not one the venue can keep, else None."""
    if not isinstance(event, dict):
        return "not a JSON object"
    if event.get("table") != table:
        return f"it names table {event.get('table')!r} but came on table {table!r}'s topic"
    kind = event.get("kind")
    if kind not in KINDS:
        return f"unknown kind {kind!r}"
    fields = {"uid": str, "seq": int, "match": int, "time": str} | KINDS[kind]
    for name, kind_of in fields.items():
        value = event.get(name)
        if not isinstance(value, kind_of) or isinstance(value, bool):
            return f"{name} must be {kind_of.__name__}, not {json.dumps(value)[:30]}"
    if event["seq"] < 1 or (kind == "started") != (event["seq"] == 1):
        return f"a {kind} event cannot have seq {event['seq']}"
    return None


@dataclass
class VenueRecord(MatchRecord):
    table: str = ""  # where it was played
    table_match: int = 0  # its number there


@dataclass
class Received:
    stored: dict[str, list[list]] = field(default_factory=lambda: defaultdict(list))  # table -> [uid, seq] to ack
    new: int = 0  # events not seen before
    applied: int = 0
    players: bool = False  # a new player appeared


class VenueStore:
    def __init__(self, where: str | Path):
        """`where`: an SQLite file (made if missing), or a postgresql:// address."""
        self.where = str(where)
        self.postgres = self.where.startswith(("postgresql://", "postgres://"))
        self._lock = threading.Lock()  # one batch at a time on the one connection
        try:
            if self.postgres:
                self.db = self._connect_postgres()
            else:
                Path(self.where).parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(self.where, isolation_level=None, check_same_thread=False, timeout=30)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
            with self._transaction():
                for statement in SCHEMA.format(id="BIGSERIAL PRIMARY KEY" if self.postgres
                                               else "INTEGER PRIMARY KEY").split(";"):
                    if statement.strip():
                        self._run(statement)
        except (sqlite3.Error, OSError) as exc:
            raise VenueStoreError(f"cannot open the venue database {self.where}: {exc}") from None

    def _connect_postgres(self):
        try:
            import psycopg
        except ImportError:
            raise VenueStoreError("a PostgreSQL venue database needs psycopg 3: pip install "
                                  "'dominotable[venue-pg]'") from None
        try:
            return psycopg.connect(self.where, connect_timeout=10, autocommit=True)
        except psycopg.Error as exc:
            raise VenueStoreError(f"cannot open the venue database {_safe(self.where)}: {exc}") from None

    def close(self) -> None:
        self.db.close()

    # --- SQL for both ----------------------------------------------------------------------

    def _run(self, sql: str, args: tuple | list = ()):
        return self.db.execute(sql.replace("?", "%s") if self.postgres else sql, args)

    def _one(self, sql: str, args: tuple | list = ()):
        return self._run(sql, args).fetchone()

    def _all(self, sql: str, args: tuple | list = ()) -> list:
        return self._run(sql, args).fetchall()

    @contextmanager
    def _transaction(self):
        self.db.execute("BEGIN" if self.postgres else "BEGIN IMMEDIATE")
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    # --- events in -------------------------------------------------------------------------

    def receive(self, batch: list[tuple[str, Any]]) -> Received:
        """Keep `batch`'s events, each (table, event), and apply what can be applied, in one
        transaction; what to acknowledge to each table once it returns."""
        out = Received()
        touched: set[tuple[str, str]] = set()
        with self._lock, self._transaction():
            stored = now()
            for table, event in batch:
                why = check(table, event)
                if why is not None:
                    log.warning("venue: refused an event from table %s: %s", table, why)
                    continue
                cur = self._run("INSERT INTO events (table_id, uid, seq, kind, event, time, stored) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                                (table, event["uid"], event["seq"], event["kind"], json.dumps(event), event["time"],
                                 stored))
                if cur.rowcount == 1:
                    out.new += 1
                    touched.add((table, event["uid"]))
                out.stored[table].append([event["uid"], event["seq"]])
            for table, uid in sorted(touched):
                self._catch_up(table, uid, out)
        return out

    def _catch_up(self, table: str, uid: str, out: Received) -> None:
        """Apply the match's kept events that follow the last one applied, in order, up to a gap."""
        row = self._one("SELECT id, applied FROM matches WHERE table_id = ? AND uid = ?", (table, uid))
        match_id, applied = row if row else (None, 0)
        while True:
            found = self._one("SELECT event FROM events WHERE table_id = ? AND uid = ? AND seq = ?",
                              (table, uid, applied + 1))
            if found is None:
                break
            event = json.loads(found[0])
            if event["kind"] == "started":
                match_id = self._start(table, event, out)
            else:
                why = self._apply(match_id, event)
                if why:
                    log.warning("venue: table %s match %s: %s", table, event["match"], why)
                    self._run("UPDATE matches SET damaged = ? WHERE id = ? AND damaged IS NULL", (why, match_id))
            applied += 1
            out.applied += 1
        if match_id is not None:
            self._run("UPDATE matches SET applied = ? WHERE id = ?", (applied, match_id))

    def _start(self, table: str, e: dict[str, Any], out: Received) -> int:
        (match_id,) = self._one(
            "INSERT INTO matches (table_id, uid, table_match, applied, game, options, seed, players, names, sides, "
            "bots, observed, demo, started) VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (table, e["uid"], e["match"], e["game"], json.dumps(e["options"]), e["seed"], e["players"],
             json.dumps(e["names"]), json.dumps(e["sides"]), json.dumps(e.get("bots", [])), int(bool(e.get("observed"))),
             int(bool(e.get("demo"))), e["started"]))
        for seat, name in enumerate(e["names"]):
            self._run("INSERT INTO seats (match_id, seat, player_id) VALUES (?, ?, ?)",
                      (match_id, seat, self._player(str(name), out)))
        for ply, notation in enumerate(e.get("moves") or [], 1):
            self._run("INSERT INTO moves (match_id, ply, notation, time) VALUES (?, ?, ?, ?)",
                      (match_id, ply, str(notation), e["time"]))
        return match_id

    def _player(self, name: str, out: Received) -> int:
        cur = self._run("INSERT INTO players (name, fold) VALUES (?, ?) ON CONFLICT DO NOTHING",
                        (name.strip(), name.strip().casefold()))
        out.players |= cur.rowcount == 1
        return self._one("SELECT id FROM players WHERE fold = ?", (name.strip().casefold(),))[0]

    def _apply(self, match_id: int, e: dict[str, Any]) -> str | None:
        """Apply one event after its match began; why it could not be, else None."""
        kind = e["kind"]
        last = self._one("SELECT max(ply) FROM moves WHERE match_id = ?", (match_id,))[0] or 0
        if kind == "move":
            if e["ply"] != last + 1:
                return f"move {e['ply']} came after move {last}"
            self._run("INSERT INTO moves (match_id, ply, notation, time) VALUES (?, ?, ?, ?)",
                      (match_id, e["ply"], e["notation"], e["time"]))
        elif kind == "takeback":
            if e["ply"] != last:
                return f"a takeback of move {e['ply']} came when the last move was {last}"
            self._run("DELETE FROM moves WHERE match_id = ? AND ply = ?", (match_id, last))
        elif kind == "ended":
            result = {"ending": e["ending"], "scores": e["scores"], "winners": e["winners"]}
            self._run("UPDATE matches SET finished = ?, result = ? WHERE id = ?",
                      (e.get("finished", e["time"]), json.dumps(result), match_id))
        elif kind == "aside":
            self._run("UPDATE matches SET damaged = ? WHERE id = ?", (e["why"], match_id))
        return None  # a hand's end is kept as an event; the venue reads hands from the moves

    # --- reading ---------------------------------------------------------------------------

    def players(self) -> list[dict[str, Any]]:
        with self._lock:
            return [{"id": i, "name": n} for i, n in self._all("SELECT id, name FROM players ORDER BY id")]

    def matches(self, limit: int | None = None) -> list[VenueRecord]:
        """Matches newest first, without their moves (`plies` counts them); names are the
        players' as the venue knows them. A match two tables played together is one match: both
        tables report it under one uid, and the first report kept stands for it."""
        with self._lock:
            rows = self._all("SELECT id, table_id, table_match, game, options, seed, players, sides, bots, observed, "
                             "demo, started, finished, result, damaged FROM matches "
                             "WHERE id IN (SELECT min(id) FROM matches GROUP BY uid) ORDER BY started DESC, id DESC"
                             + (f" LIMIT {int(limit)}" if limit else ""))
            names = defaultdict(list)
            for match_id, name in self._all("SELECT s.match_id, p.name FROM seats s JOIN players p "
                                            "ON p.id = s.player_id ORDER BY s.match_id, s.seat"):
                names[match_id].append(name)
            plies = dict(self._all("SELECT match_id, count(*) FROM moves GROUP BY match_id"))
        return [_record(row, names[row[0]], plies.get(row[0], 0)) for row in rows]

    def match(self, match_id: int) -> VenueRecord | None:
        """A match with its moves, None if there is none."""
        with self._lock:
            row = self._one("SELECT id, table_id, table_match, game, options, seed, players, sides, bots, observed, "
                            "demo, started, finished, result, damaged FROM matches WHERE id = ?", (match_id,))
            if row is None:
                return None
            names = [n for (n,) in self._all("SELECT p.name FROM seats s JOIN players p ON p.id = s.player_id "
                                             "WHERE s.match_id = ? ORDER BY s.seat", (match_id,))]
            moves = self._all("SELECT notation, time FROM moves WHERE match_id = ? ORDER BY ply", (match_id,))
        record = _record(row, names, len(moves))
        record.moves, record.times = [m for m, _ in moves], [t for _, t in moves]
        return record

    def counts(self) -> dict[str, int]:
        """Events kept, and events still waiting for an earlier one."""
        with self._lock:
            (events,) = self._one("SELECT count(*) FROM events")
            (applied,) = self._one("SELECT coalesce(sum(applied), 0) FROM matches")
        return {"events": events, "waiting": events - applied}

    def latencies(self) -> list[float]:
        """Seconds from each event's commit at its table to its keeping here."""
        with self._lock:
            rows = self._all("SELECT time, stored FROM events")
        return [(datetime.fromisoformat(s) - datetime.fromisoformat(t)).total_seconds() for t, s in rows]


def _record(row: tuple, names: list[str], plies: int) -> VenueRecord:
    (match_id, table, table_match, game, options, seed, players, sides, bots, observed, demo, started, finished,
     result, damaged) = row
    return VenueRecord(match_id, game, json.loads(options), seed, players, names, started, finished,
                       parse_result(result), sides=json.loads(sides), observed=bool(observed), demo=bool(demo),
                       damaged=damaged, bots=json.loads(bots), plies=plies, table=table, table_match=table_match)


def _safe(address: str) -> str:
    """An address without its password."""
    return re.sub(r"://([^:/@]*):[^@/]*@", r"://\1:...@", address)
