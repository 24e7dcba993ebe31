"""Crash-safe scorekeeping: every match and every accepted move in SQLite.

The database runs in WAL mode with `synchronous=FULL`, so a change whose `commit` has returned
is on disk and survives `kill -9` or a power cut. The match's committer writes each change (the
moves taken back and made, what the seats the table plays hold) in one transaction before the
live engine makes it; on the next start `unfinished()` finds the match that was cut off and
`resume()` rebuilds the engine by replaying its moves through the framework, which gives exactly
the state it had (shuffles are seeded). A write SQLite refuses raises StoreUnavailable after a
rollback: nothing is half-written and the store stays usable.

Seats are tied to player names at the start of a match, with the side (partnership) each
seat plays for, so history and the leaderboard need no game engine. A seat is a person or a bot
(`seats.kind`, and a bot's strategy, its strength, in `seats.strategy`); a bot's hand is the tiles
in its rack on the tray, kept with the match as its `holds` (match/position.py: the tiles by slot,
the slot each move took a tile from, its plan), so a resumed match knows them (a database from
before the holds keeps them in `racks`, slot by slot). `hints` records every hint shown.

A bots' demo match is marked `demo`: the table never resumes it and the leaderboard leaves it
out. A match whose stored moves no longer replay is set aside, marked `damaged` with the
reason, and kept for inspection. Opening the database for the table checks it
(`PRAGMA quick_check`); a damaged file raises DamagedDatabase, and `recovery.py` moves it aside
and salvages its matches. Reading commands open the file read-only.

Before anything is written, a file is checked to be ours (`identify`): SQLite's header, then
`PRAGMA application_id` (APPLICATION_ID), or for a file from before the id, our tables; another
program's database, a file that is not SQLite or one written by a newer dominotable (`PRAGMA
user_version` above SCHEMA_VERSION) is refused and left as it was. An older one is upgraded in
one transaction. The table opens the file only after taking its lock (TableLock: a second table
on the same file is refused, naming the process that holds it) and checking that the file and its
folder can be written, so that a read-only database is refused before any play.

Writing, for the committer: every write method (`start_match`, `commit`, `finish`, `add_hint`,
`set_aside`, ...) is one transaction, on disk when it returns. A write SQLite refuses (the disk
full, an I/O error, the file turned read-only, a lock held past the busy timeout) is rolled back
whole and raises StoreUnavailable, whose message says what is wrong for a person to read; the
store stays usable, and `writable()` tells when writes are taken again, to retry with backoff.
Nothing committed before is touched. Any other StorageError is a mistake in what was asked.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dominotable import inputs
from dominotable.games import catalog
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game
from dominotable.rules.outcome import Termination
from dominotable.store import outbox, partners

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON
    seed INTEGER NOT NULL,
    players INTEGER NOT NULL,       -- seat count
    names TEXT NOT NULL,            -- JSON list, one per seat
    started TEXT NOT NULL,          -- ISO 8601 UTC
    finished TEXT,                  -- NULL while the match is being played
    result TEXT,                    -- JSON {"ending", "scores", "winners"} once finished
    observed INTEGER NOT NULL DEFAULT 0, -- 1: played at the table (hidden hands, Game observed mode)
    demo INTEGER NOT NULL DEFAULT 0,     -- 1: a bots' demo match
    damaged TEXT,                        -- why the match was set aside, else NULL
    holds TEXT                           -- JSON: what each seat the table plays holds (match/position.py)
);
CREATE TABLE IF NOT EXISTS seats (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    side INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    kind TEXT NOT NULL DEFAULT 'human',  -- 'human', 'bot' or 'remote' (the table plays the seat)
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS racks (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    slot INTEGER NOT NULL,          -- 1 for the first slot
    tile TEXT NOT NULL,
    PRIMARY KEY (match_id, seat, slot)
);
CREATE TABLE IF NOT EXISTS hints (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    ply INTEGER NOT NULL,           -- moves made before the hint
    seat INTEGER,
    hint TEXT NOT NULL,
    time TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    ply INTEGER NOT NULL,           -- 1 for the first move
    notation TEXT NOT NULL,
    time TEXT NOT NULL,
    PRIMARY KEY (match_id, ply)
);
"""

# Columns added to `matches` before the schema had versions, in order (new columns go at the end,
# here and in SCHEMA alike, so that a migrated file and a new one have the same column order).
ADDED_COLUMNS = (("observed", "INTEGER NOT NULL DEFAULT 0"), ("demo", "INTEGER NOT NULL DEFAULT 0"),
                 ("damaged", "TEXT"), ("holds", "TEXT"))

APPLICATION_ID = int.from_bytes(b"DomT", "big")  # PRAGMA application_id: the file is a dominotable database
# PRAGMA user_version. SCHEMA is version 1 and stays as it is: a change of schema raises the
# version and adds to UPGRADES the SQL that brings a file of the version before up to it; every
# file, a new one too, goes through them in order (`schema`).
SCHEMA_VERSION = 3
UPGRADES: dict[int, str] = {
    2: partners.SCHEMA,  # matches two tables play (store/partners.py)
    3: """ALTER TABLE seats ADD COLUMN strategy TEXT;  -- a bot's strategy (its strength); NULL: the game's own
""",
}
# What a file from before the application id must have to be ours (every version had these).
OUR_TABLES = {"players": {"id", "name"},
              "matches": {"id", "game", "options", "seed", "players", "names", "started", "finished", "result"},
              "seats": {"match_id", "seat", "side", "player_id"},
              "moves": {"match_id", "ply", "notation", "time"}}
SQLITE_HEADER = b"SQLite format 3\x00"
HEADROOM = 64 * 1024  # free disk a write needs: a move's WAL frames, and a checkpoint growing the file


class StorageError(DominoError):
    """A database that cannot be opened, or a match that is not in it or cannot be replayed."""


class DamagedDatabase(StorageError):
    """A database file that SQLite finds corrupt (see recovery.py)."""


class DatabaseInUse(StorageError):
    """A database another table holds (TableLock): `pid` is the holder's, None if it is not known."""

    def __init__(self, message: str, pid: int | None):
        super().__init__(message)
        self.pid = pid


class StoreUnavailable(StorageError):
    """A write SQLite refused (the disk full, an I/O error, read-only, busy): rolled back whole,
    nothing half-written; try again when `Store.writable()` says so."""


def schema(db: sqlite3.Connection, version: int = 0) -> None:
    """Bring the tables of `db`, at `version`, up to SCHEMA_VERSION (user_version is the caller's).
    Version 0 is a new file or one from before versions: SCHEMA's missing tables (and the venue's
    outbox), then the columns it lacks."""
    if version == 0:
        _script(db, SCHEMA)
        _script(db, outbox.SCHEMA)
        matches = {row[1] for row in db.execute("PRAGMA table_info(matches)")}
        for name, kind in ADDED_COLUMNS:
            if name not in matches:
                db.execute(f"ALTER TABLE matches ADD COLUMN {name} {kind}")
        if "kind" not in {row[1] for row in db.execute("PRAGMA table_info(seats)")}:  # from before bot seats
            db.execute("ALTER TABLE seats ADD COLUMN kind TEXT NOT NULL DEFAULT 'human'")
    for upgrade in range(max(version, 1) + 1, SCHEMA_VERSION + 1):
        _script(db, UPGRADES[upgrade])


def _script(db: sqlite3.Connection, sql: str) -> None:
    """Each statement of `sql` in turn, inside the caller's transaction (executescript commits)."""
    statement = ""
    for line in sql.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class MatchRecord:
    id: int
    game: str
    options: dict[str, Any]
    seed: int
    players: int
    names: list[str]
    started: str
    finished: str | None
    result: dict[str, Any] | None
    sides: list[int] = field(default_factory=list)  # the side each seat plays for
    observed: bool = False
    demo: bool = False
    damaged: str | None = None  # why the match was set aside
    bots: list[int] = field(default_factory=list)  # the seats the table plays
    strategies: dict[int, str] = field(default_factory=dict)  # bot seat -> its strategy, where one was chosen
    remote: list[int] = field(default_factory=list)  # the seats played at a partner table (store/partners.py)
    racks: dict[int, dict[int, str]] = field(default_factory=dict)  # bot seat -> slot -> tile (before `holds`)
    holds: dict[str, Any] = field(default_factory=dict)  # seat -> what a seat the table plays holds
    hints: list[dict[str, Any]] = field(default_factory=list)  # {"ply", "seat", "hint", "time"}
    moves: list[str] = field(default_factory=list)
    times: list[str] = field(default_factory=list)
    plies: int = 0  # moves recorded (set also when the moves themselves are not loaded)

    def to_dict(self) -> dict[str, Any]:
        """The framework's `Game.to_dict()` plus names, timestamps and the recorded result."""
        return {
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "options": self.options,
            "moves": self.moves,
            "match_id": self.id,
            "names": self.names,
            "sides": self.sides,
            "started": self.started,
            "finished": self.finished,
            "times": self.times,
            "result": self.result,
        } | ({"observed": True} if self.observed else {}) | ({"demo": True} if self.demo else {}) | (
            {"damaged": self.damaged} if self.damaged else {}) | ({"bots": self.bots} if self.bots else {}) | (
            {"strategies": {str(k): v for k, v in self.strategies.items()}} if self.strategies else {}) | (
            {"remote": self.remote} if self.remote else {}) | (
            {"hints": self.hints} if self.hints else {})


class Store:
    def __init__(self, path: str | Path, create: bool = True, *, lock: TableLock | bool = True):
        """The database at `path`, opened to record matches (`create`: made if missing, checked
        for damage, upgraded if older), or only to read them (`create=False`: read-only; it must
        exist). Recording takes the table's lock: `lock` is one already taken on `path` (the
        Store then holds it until closed), True to take it here, False for a file no one else
        can know of (a recovery's new file)."""
        self.path = Path(path)
        self.readonly = not create
        self.db: sqlite3.Connection | None = None
        self._lock: TableLock | None = None
        self._broken = False  # a rollback failed: the connection may still be in the transaction
        kind = identify(self.path)
        if self.readonly and kind == "new":
            raise StorageError(f"no database at {self.path}" if not self.path.exists()
                               else f"no matches in {self.path} yet: it is an empty database")
        taken = lock is True
        try:
            if not self.readonly:
                self._lock = TableLock(self.path) if taken else lock or None
                _probe_writable(self.path)
            self.db = _open_readonly(self.path) if self.readonly else self._connect()
            self.db.text_factory = _text
            self._check()
            if not self.readonly:
                self._set_up()
            self._schema = {name: self.columns(name) for (name,) in
                            self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()}
        except sqlite3.Error as exc:
            self._close_quietly(taken)
            if (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
                raise DamagedDatabase(self._damaged(str(exc))) from None
            raise StorageError(f"cannot open the database {self.path}: {exc}") from None
        except BaseException:
            self._close_quietly(taken)
            raise

    def _close_quietly(self, release: bool = True) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        if self._lock is not None and release:
            self._lock.release()
        self._lock = None

    def _connect(self) -> sqlite3.Connection:
        # autocommit: each statement commits by itself, groups use an explicit BEGIN
        self.db = db = sqlite3.connect(self.path, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def _set_up(self) -> None:
        """A new file made ours, or an older one brought up to SCHEMA_VERSION: one transaction."""
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION and self.db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
            return
        with self._writing():
            schema(self.db, version)
            self.db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def columns(self, table: str) -> set[str]:
        """The columns the file's `table` has now."""
        return {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}

    def add_seat(self, match_id: int, seat: int, side: int, name: str, kind: str = "human",
                 strategy: str | None = None) -> None:
        """A seat of a match and the player named there (made if new)."""
        self.db.execute("INSERT OR IGNORE INTO players (name) VALUES (?)", (name,))
        self.db.execute("INSERT INTO seats (match_id, seat, side, player_id, kind, strategy) "
                        "SELECT ?, ?, ?, id, ?, ? FROM players WHERE name = ?",
                        (match_id, seat, side, kind, strategy, name))

    def _has(self, table: str, column: str | None = None) -> bool:
        """Whether the file has `table` (and its `column`): a read-only file may predate them."""
        columns = self._schema.get(table)
        return columns is not None and (column is None or column in columns)

    def _check(self) -> None:
        problems = [line for (text,) in self.db.execute("PRAGMA quick_check") for line in str(text).splitlines()]
        if problems != ["ok"]:
            more = f" (and {len(problems) - 1} more problems)" if problems[1:] else ""
            raise DamagedDatabase(self._damaged(f"{problems[0]}{more}"))

    def _damaged(self, why: str) -> str:
        hint = "; `dominotable run` moves it aside and recovers its matches" if self.readonly else ""
        return f"the database {self.path} is damaged: {why}{hint}"

    def close(self) -> None:
        self._close_quietly()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------------------

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One write transaction, on disk when the block ends, rolled back whole if it raises; a
        write SQLite refuses raises StoreUnavailable. Inside a transaction the caller began, a
        savepoint of it: the change (and its event in the outbox) both or neither."""
        if self._broken:
            self._roll_back()
        elif self.db.in_transaction:
            self.db.execute("SAVEPOINT change")
            try:
                yield
                self.db.execute("RELEASE change")
            except BaseException:
                self.db.execute("ROLLBACK TO change")
                self.db.execute("RELEASE change")
                raise
            return
        try:
            self.db.execute("BEGIN IMMEDIATE")
            yield
            self.db.execute("COMMIT")
        except BaseException as exc:
            self._roll_back()
            why = _unavailable(exc, self.path) if isinstance(exc, sqlite3.Error) else None
            if why is not None:
                raise StoreUnavailable(why) from None
            raise

    def _roll_back(self) -> None:
        try:
            if self.db.in_transaction:  # SQLite rolls back by itself after some errors (a full disk)
                self.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass
        self._broken = self.db.in_transaction

    def writable(self) -> bool:
        """Whether writes are taken now (after a StoreUnavailable: to know when to try again): a
        real write transaction commits, and the disk and the database's size limit leave room for
        a move."""
        if self.readonly:
            return False
        try:
            with self._writing():
                version = self.db.execute("PRAGMA user_version").fetchone()[0]
                self.db.execute(f"PRAGMA user_version = {int(version)}")  # page 1 written as it is
            pages, most = (self.db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "max_page_count"))
            size = self.db.execute("PRAGMA page_size").fetchone()[0]
        except StorageError:
            return False
        disk = os.statvfs(self.path.parent)
        free = (disk.f_bfree if os.geteuid() == 0 else disk.f_bavail) * disk.f_frsize  # root may use the reserve
        return free >= HEADROOM and (most - pages) * size >= HEADROOM

    def start_match(self, game: Game, names: list[str], demo: bool = False, bots=(), remote=(),
                    partner: tuple[str, bool, str] | None = None) -> int:
        """Record a new match of `game` (before its first move) with one name per seat; `demo`:
        a bots' demo match; `bots`: the seats the table plays (a mapping: with each one's strategy);
        `remote`: the seats played at another table, `partner` = (its id, whether this table hosts
        the match, the match's uid)."""
        if len(names) != game.players:
            raise StorageError(f"{game.title} has {game.players} seats but {len(names)} names were given")
        if any(not n.strip() for n in names):
            raise StorageError("every seat needs a player name")
        folded = [n.casefold() for n in names]
        if len(set(folded)) != len(folded):
            twice = next(n for n in names if folded.count(n.casefold()) > 1)
            raise StorageError(f"{twice} is named for two seats; each seat needs its own name")
        with self._writing():
            cur = self.db.execute(
                "INSERT INTO matches (game, options, seed, players, names, started, observed, demo) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game.name, json.dumps(game.options.to_dict()), game.seed, game.players, json.dumps(names), now(),
                 int(game.observed), int(demo)),
            )
            match_id = cur.lastrowid
            for seat, name in enumerate(names):
                kind = "bot" if seat in bots else "remote" if seat in remote else "human"
                strategy = (bots.get(seat) or None) if isinstance(bots, dict) else None
                self.add_seat(match_id, seat, game.side_of(seat), name, kind, strategy)
            if partner is not None:
                table, host, uid = partner
                partners.add(self.db, match_id, table, host, uid, seq=0 if host else 1)  # a guest joined from seq 1
            outbox.started(self.db, match_id, partner[2] if partner is not None else None)
        return match_id

    def commit(self, match_id: int, keep: int, moves: list[str], holds: dict[str, Any] | None = None,
               after: dict[str, Any] | None = None, heard: tuple[int, list[str], bool] | None = None) -> None:
        """One change of a match, all or nothing: its moves after the first `keep` taken back,
        `moves` recorded after them, and (if given) what the seats the table plays hold; each
        told to the venue in the outbox, with `after` ({"hand": n, "scores": [...]}): the hand
        the last of them ended; `heard` = (seq, moves, ended): the partner table's events applied
        (store/partners.py). When this returns, the change is on disk."""
        try:
            with self._writing():
                time = now()
                (last,) = self.db.execute("SELECT coalesce(max(ply), 0) FROM moves WHERE match_id = ?",
                                          (match_id,)).fetchone()
                for ply in range(last, keep, -1):
                    outbox.taken_back(self.db, match_id, ply, time)
                for ply, notation in enumerate(moves, keep + 1):
                    outbox.moved(self.db, match_id, ply, notation, time, after if ply == keep + len(moves) else None)
                self.db.execute("DELETE FROM moves WHERE match_id = ? AND ply > ?", (match_id, keep))
                for ply, notation in enumerate(moves, keep + 1):
                    self.db.execute("INSERT INTO moves (match_id, ply, notation, time) VALUES (?, ?, ?, ?)",
                                    (match_id, ply, notation, time))
                if holds is not None:
                    self.db.execute("UPDATE matches SET holds = ? WHERE id = ?", (json.dumps(holds), match_id))
                if heard is not None:
                    partners.heard(self.db, match_id, *heard)
        except sqlite3.IntegrityError:
            raise StorageError(f"match {match_id} has no move {keep}, or there is no such match") from None

    def append_move(self, match_id: int, ply: int, notation: str, after: dict[str, Any] | None = None) -> None:
        """Commit move number `ply` (1-based); when this returns, the move is on disk. `after`
        ({"hand": n, "scores": [...]}): the hand this move ended, told to the venue."""
        time = now()
        try:
            with self._writing():
                outbox.moved(self.db, match_id, ply, notation, time, after)
                self.db.execute("INSERT INTO moves (match_id, ply, notation, time) VALUES (?, ?, ?, ?)",
                                (match_id, ply, notation, time))
        except sqlite3.IntegrityError:
            raise StorageError(f"match {match_id} already has a move {ply}, or no such match") from None

    def take_back(self, match_id: int, ply: int) -> None:
        """Delete move `ply`, which must be the last one recorded."""
        with self._writing():
            last = self.db.execute("SELECT max(ply) FROM moves WHERE match_id = ?", (match_id,)).fetchone()[0]
            if last != ply:
                raise StorageError(f"match {match_id}: move {ply} is not the last move (that is {last})")
            outbox.taken_back(self.db, match_id, ply, now())
            self.db.execute("DELETE FROM moves WHERE match_id = ? AND ply = ?", (match_id, ply))

    def finish(self, match_id: int, game: Game, ending: Termination = Termination.PLAYED,
               winners: list[int] | None = None) -> None:
        """Close the match with the engine's scores; `winners` overrides the engine's (a resignation).
        The stored ending is the Termination's value."""
        ending = Termination(ending)
        if winners is None:
            winners = game.winners() if game.is_over() else []
        result = {"ending": ending, "scores": list(game.scores), "winners": list(winners)}
        time = now()
        with self._writing():
            cur = self.db.execute(
                "UPDATE matches SET finished = ?, result = ? WHERE id = ? AND finished IS NULL",
                (time, json.dumps(result), match_id),
            )
            if cur.rowcount != 1:
                raise StorageError(f"match {match_id} is not an unfinished match")
            outbox.ended(self.db, match_id, result, time)

    def set_rack(self, match_id: int, seat: int, slot: int, tile: str | None) -> None:
        """Record what slot `slot` of bot seat `seat`'s rack holds (None: empty); durable on return."""
        with self._writing():
            if tile is None:
                self.db.execute("DELETE FROM racks WHERE match_id = ? AND seat = ? AND slot = ?",
                                (match_id, seat, slot))
            else:
                self.db.execute("INSERT OR REPLACE INTO racks (match_id, seat, slot, tile) VALUES (?, ?, ?, ?)",
                                (match_id, seat, slot, tile))

    def add_hint(self, match_id: int, ply: int, seat: int | None, hint: str) -> None:
        """Record that the players asked for a hint (shown as `hint`) after `ply` moves."""
        with self._writing():
            self.db.execute("INSERT INTO hints (match_id, ply, seat, hint, time) VALUES (?, ?, ?, ?, ?)",
                            (match_id, ply, seat, hint, now()))

    def heard_late(self, uid: str, seq: int, ended: bool) -> None:
        """The partner's next event of a match that is over here (its last `hand` or `ended`):
        counted as heard, so the partner can let it go. Events out of order change nothing."""
        with self._writing():
            self.db.execute("UPDATE partners SET seq = ?, ended = ended OR ? WHERE uid = ? AND seq = ? AND match_id "
                            "IN (SELECT id FROM matches WHERE finished IS NOT NULL)", (seq, int(ended), uid, seq - 1))

    def set_aside(self, match_id: int, why: str) -> None:
        """Mark a match damaged (its moves no longer replay, say), kept for inspection: the table
        no longer resumes it and the leaderboard leaves it out."""
        with self._writing():
            outbox.set_aside(self.db, match_id, why, now())
            self.db.execute("UPDATE matches SET damaged = ? WHERE id = ?", (why, match_id))

    # -- reading ---------------------------------------------------------------------------

    def match(self, match_id: int) -> MatchRecord:
        row = None
        if -2**63 <= match_id < 2**63:  # else no SQLite integer, nor a match
            cur = self.db.execute("SELECT * FROM matches WHERE id = ?", (match_id,))
            row = cur.fetchone()
        if row is None:
            raise StorageError(f"no match {match_id} in {self.path}")
        record = _record(cur, row)
        if not record.game:
            raise StorageError(f"match {match_id} is damaged: {record.damaged}")
        record.sides = [side for (side,) in self.db.execute(
            "SELECT side FROM seats WHERE match_id = ? ORDER BY seat", (match_id,))]
        if not all(isinstance(side, int) for side in record.sides):
            raise StorageError(f"match {match_id} is damaged: its seats are not stored as numbers")
        self._seats_and_hints([record])
        if self._has("racks") and not record.holds:  # a match from before the holds
            for seat, slot, tile in self.db.execute(
                    "SELECT seat, slot, tile FROM racks WHERE match_id = ? ORDER BY seat, slot", (match_id,)):
                if isinstance(seat, int) and isinstance(slot, int) and isinstance(tile, str):  # else damaged
                    record.racks.setdefault(seat, {})[slot] = tile
        for ply, notation, time in self.db.execute(
            "SELECT ply, notation, time FROM moves WHERE match_id = ? ORDER BY ply", (match_id,)
        ):
            if ply != len(record.moves) + 1:
                raise StorageError(f"match {match_id}: move {len(record.moves) + 1} is missing")
            if not isinstance(notation, str) or not isinstance(time, str):
                raise StorageError(f"match {match_id} is damaged: its move {ply} is not stored as text")
            record.moves.append(notation)
            record.times.append(time)
        record.plies = len(record.moves)
        return record

    def matches(self) -> list[MatchRecord]:
        """Every match, newest first, with its number of moves but not the moves."""
        cur = self.db.execute("SELECT * FROM matches ORDER BY id DESC")
        records = self._seats_and_hints(self._with_sides([_record(cur, row) for row in cur.fetchall()]))
        counts = dict(self.db.execute("SELECT match_id, count(*) FROM moves GROUP BY match_id"))
        for record in records:
            record.plies = counts.get(record.id, 0)
        return records

    def _with_sides(self, records: list[MatchRecord]) -> list[MatchRecord]:
        by_id = {r.id: r for r in records}
        for match_id, side in self.db.execute("SELECT match_id, side FROM seats ORDER BY match_id, seat"):
            if match_id in by_id:
                by_id[match_id].sides.append(side)
        return records

    def _seats_and_hints(self, records: list[MatchRecord]) -> list[MatchRecord]:
        """`records` with their bot seats and the hints asked for."""
        by_id = {r.id: r for r in records}
        one = f"WHERE match_id = {records[0].id}" if len(records) == 1 else ""
        if self._has("seats", "kind"):
            strategy = "strategy" if self._has("seats", "strategy") else "NULL"
            for match_id, seat, kind, played in self.db.execute(
                    f"SELECT match_id, seat, kind, {strategy} FROM seats WHERE kind IN ('bot', 'remote') "
                    f"{one.replace('WHERE', 'AND')} ORDER BY match_id, seat"):
                if match_id in by_id and isinstance(seat, int):
                    (by_id[match_id].bots if kind == "bot" else by_id[match_id].remote).append(seat)
                    if kind == "bot" and isinstance(played, str) and played:
                        by_id[match_id].strategies[seat] = played
        if self._has("hints"):
            for match_id, ply, seat, hint, time in self.db.execute(
                    f"SELECT match_id, ply, seat, hint, time FROM hints {one} ORDER BY match_id, rowid"):
                if match_id in by_id and isinstance(ply, int) and isinstance(seat, int | None) and isinstance(
                        hint, str) and isinstance(time, str):  # else a damaged row: left out
                    by_id[match_id].hints.append({"ply": ply, "seat": seat, "hint": hint, "time": time})
        return records

    def partnership(self, match_id: int) -> partners.Partnership | None:
        """The other table of a match two tables play, and what was heard of it; None for others."""
        return partners.of(self.db, match_id) if self._has("partners") else None

    def move_count(self, match_id: int) -> int:
        return self.db.execute("SELECT count(*) FROM moves WHERE match_id = ?", (match_id,)).fetchone()[0]

    def unfinished(self, demo: bool = False) -> int | None:
        """The most recent match (a demo match with `demo`) that was cut off before it finished
        and is not set aside as damaged."""
        row = self.db.execute("SELECT id FROM matches WHERE finished IS NULL AND damaged IS NULL AND demo = ? "
                              "ORDER BY id DESC LIMIT 1", (int(demo),)).fetchone()
        return None if row is None else row[0]

    def resume(self, match_id: int) -> Game:
        """The engine of match `match_id`, rebuilt by replaying its recorded moves."""
        return replay(self.match(match_id))


def replay(record: MatchRecord | dict[str, Any]) -> Game:
    """Rebuild a game from a record or an exported dict through the framework's replay."""
    data = record.to_dict() if isinstance(record, MatchRecord) else record
    if not isinstance(data, dict):
        raise StorageError("not a recorded match: expected a JSON object")
    moves = data.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise StorageError("not a recorded match: moves must be a list of notations")
    for key, kind, what in (("game", str, "a game's name"), ("players", int, "a whole number of seats"),
                            ("seed", int, "a whole number"), ("options", dict, "an object of rule options")):
        value = data.get(key, {} if key == "options" else None)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise StorageError(f"not a recorded match: {key} must be {what}, not {json.dumps(value)[:40]}")
    return catalog.load(data)


def _text(value: bytes) -> str:
    """SQLite text as str; bytes that are not UTF-8 (a damaged file) shown as U+FFFD."""
    return value.decode("utf-8", "replace")


# -- is it ours, can it be written, who holds it ------------------------------------------------

def identify(path: Path) -> str:
    """What the file at `path` is, found without writing anything: "new" (no file, an empty one, or
    an SQLite file with nothing in it), "ours" (a dominotable database this version reads),
    "damaged" (SQLite cannot read it; its header says it is ours) or "unknown" (SQLite cannot
    read it, nor tell whose it is: recovery.py looks for matches in it). Anything else raises
    StorageError, naming it: a file that is not SQLite, another program's database, one written
    by a newer dominotable."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "new"
    except OSError as exc:
        raise StorageError(f"cannot open the database {path}: {exc.strerror}") from None
    if (what := inputs.kind(info.st_mode)) is not None:
        raise StorageError(f"{path} is not a database: it is {what}, not a file")
    if info.st_size == 0:
        return "new"
    try:
        with open(path, "rb") as file:
            header = file.read(100)
    except OSError as exc:
        raise StorageError(f"cannot open the database {path}: {exc.strerror}") from None
    foreign = f"{path} is not a dominotable database"
    if not header.startswith(SQLITE_HEADER):
        raise StorageError(f"{foreign}: it is not an SQLite file (left as it is)")
    stamped = int.from_bytes(header[68:72], "big")  # the application id in the file itself
    if stamped not in (0, APPLICATION_ID):
        raise StorageError(f"{foreign}: it is another program's SQLite database "
                           f"(application id {stamped:#010x}; left as it is)")
    try:
        with _closing(_open_readonly(path, Path(f"{path}-wal").exists())) as db:
            app, version = (db.execute(f"PRAGMA {name}").fetchone()[0] for name in ("application_id", "user_version"))
            tables = {name: {row[1] for row in db.execute(f"PRAGMA table_info({_quoted(name)})")}
                      for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            objects = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        if (getattr(exc, "sqlite_errorcode", 0) & 0xFF) not in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
            raise StorageError(f"cannot open the database {path}: {exc}") from None
        return "damaged" if stamped == APPLICATION_ID else "unknown"
    if app == 0 and version == 0 and objects == 0:
        return "new"
    before_ids = app == 0 and version == 0 and all(columns <= tables.get(table, set())
                                                   for table, columns in OUR_TABLES.items())
    if app != APPLICATION_ID and not before_ids:
        what = f"application id {app:#010x}" if app else f"its tables are {', '.join(sorted(tables)) or 'none'}"
        raise StorageError(f"{foreign}: it is another program's SQLite database ({what}; left as it is)")
    if version > SCHEMA_VERSION:
        raise StorageError(f"the database {path} was written by a newer dominotable (schema version {version}; "
                           f"this one reads up to {SCHEMA_VERSION}): upgrade dominotable to use it (left as it is)")
    return "ours"


def _open_readonly(path: Path, wal: bool = True) -> sqlite3.Connection:
    """A read-only connection. Without a WAL to read (`wal` False) the file is opened as
    immutable, so that nothing is made beside it; so too in a folder that cannot be written, where
    SQLite cannot make the WAL's index and no one else can be writing."""
    uri = path.resolve().as_uri()
    if wal:
        try:
            db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None)
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.OperationalError:
            if os.access(path.parent, os.W_OK):
                raise
    return sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None)


@contextmanager
def _closing(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    try:
        yield db
    finally:
        db.close()


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _read_only(path: Path, why: str) -> StorageError:
    return StorageError(f"database {path} is read-only: {why}; the table must write every move "
                        f"(`history` and `leaderboard` can still read it)")


def _probe_writable(path: Path) -> None:
    """Refuse a database this process cannot write before any play: SQLite would open it
    read-only without a word, and the first move would fail. Opening for writing changes nothing;
    the folder is tried by making (and removing) a file in it, as SQLite makes its WAL there."""
    for target in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            os.close(os.open(target, os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC))
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise _read_only(path, f"{target.name} cannot be opened for writing ({_why(exc)})") from None
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=path.parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise _read_only(path, f"no file can be made in its folder {path.parent} for SQLite's log "
                               f"({_why(exc)})") from None


def _why(exc: OSError) -> str:
    if exc.errno == errno.EPERM:
        return f"{exc.strerror}: is it immutable? lsattr shows an i"
    if exc.errno == errno.EACCES:
        return f"{exc.strerror} to uid {os.geteuid()}"
    return exc.strerror or str(exc)


class TableLock:
    """The table's hold on its database: `NAME.lock` beside it, under flock. The kernel lets go of
    it when the process ends however it ends (kill -9 too), so a crash never leaves it held; a
    clean release removes the file. It holds the holder's pid and command line, for the message a
    second table gets. Readers (history, the scoreboard) take no lock: WAL lets them read while
    the table writes."""

    def __init__(self, database: Path):
        self.database = Path(database)
        self.path = Path(f"{self.database}.lock")
        self.fd: int | None = None
        try:
            self.database.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot make the folder of the database {self.database}: {exc.strerror}") from None
        while self.fd is None:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid, command = _holder(fd)
                os.close(fd)
                who = f"pid {pid}" + (f" ({command})" if command else "") if pid else f"a process (see {self.path})"
                raise DatabaseInUse(f"database {self.database} is in use by another table: {who}; stop it first, "
                                    f"or give this one another database with --db", pid) from None
            if _same_file(fd, self.path):
                self.fd = fd
            else:  # its holder let go and removed it while this one was opening it: try the new one
                os.close(fd)
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n{_command(os.getpid())}\n".encode(), 0)

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise _read_only(self.database, f"no file can be made in its folder {self.database.parent} "
                                                f"({_why(exc)})") from None
            raise StorageError(f"cannot lock the database {self.database}: {exc.strerror} ({self.path})") from None

    def release(self) -> None:
        if self.fd is not None:
            try:
                self.path.unlink()  # while still held: a table waiting on it opens it anew
            except OSError:
                pass
            os.close(self.fd)  # closing lets go of the flock
            self.fd = None

    def __del__(self) -> None:
        self.release()


def _holder(fd: int) -> tuple[int | None, str]:
    """The pid and command line written in a held lock file."""
    lines = os.pread(fd, 4096, 0).decode(errors="replace").splitlines()
    pid = int(lines[0]) if lines and lines[0].strip().isdigit() else None
    return pid, (_command(pid) or (lines[1] if len(lines) > 1 else "")) if pid else ""


def _same_file(fd: int, path: Path) -> bool:
    try:
        opened, named = os.fstat(fd), os.stat(path)
    except FileNotFoundError:
        return False
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)


def _command(pid: int) -> str:
    """The command line of process `pid`, "" if it cannot be read."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return b" ".join(file.read(4096).split(b"\0")).decode(errors="replace").strip()
    except OSError:
        return ""


UNAVAILABLE = {
    sqlite3.SQLITE_FULL: "the disk is full: the database {path} cannot grow",
    sqlite3.SQLITE_IOERR: "a disk error: the database {path} could not be read or written",
    sqlite3.SQLITE_READONLY: "the database {path} has become read-only",
    sqlite3.SQLITE_BUSY: "the database {path} is busy: another program holds it locked",
    sqlite3.SQLITE_LOCKED: "the database {path} is busy: another program holds it locked",
    sqlite3.SQLITE_CANTOPEN: "the database {path} cannot be opened (its file or folder is gone?)",
    sqlite3.SQLITE_PERM: "the database {path} may not be written",
    sqlite3.SQLITE_NOMEM: "out of memory writing the database {path}",
    sqlite3.SQLITE_CORRUPT: "the database {path} is damaged (a restart of the table recovers it)",
    sqlite3.SQLITE_NOTADB: "the database {path} is damaged (a restart of the table recovers it)",
}


def _unavailable(exc: sqlite3.Error, path: Path) -> str | None:
    """What a person should read about a write SQLite refused for want of a working disk or file;
    None for any other error (a mistake in the SQL or the data)."""
    code = getattr(exc, "sqlite_errorcode", None)
    text = UNAVAILABLE.get(code & 0xFF) if code is not None else None
    return None if text is None else f"{text.format(path=path)} (SQLite: {exc})"


def parse_result(text: str | None) -> dict[str, Any] | None:
    """A stored result, None when there is none or it is not the shape `finish` writes."""
    try:
        result = json.loads(text) if text else None
    except ValueError:
        return None
    if not (isinstance(result, dict) and isinstance(result.get("ending"), str)
            and result["ending"] in {t.value for t in Termination} and isinstance(result.get("scores"), list)
            and isinstance(result.get("winners"), list) and all(isinstance(v, int) for v in result["scores"])):
        return None
    return result


def _record(cursor: sqlite3.Cursor, row: tuple) -> MatchRecord:
    """A row of `matches` by column name (a read-only file may predate the newer columns). A row
    whose JSON fields do not decode comes back with game "" and `damaged` saying why."""
    values = dict(zip((d[0] for d in cursor.description), row))
    damaged = values.get("damaged")
    record = MatchRecord(values["id"], "", {}, 0, 0, [], "", None, None,
                         observed=bool(values.get("observed")), demo=bool(values.get("demo")),
                         damaged=damaged if damaged is None or isinstance(damaged, str) else repr(damaged))
    try:
        options, names = json.loads(values["options"]), json.loads(values["names"])
        result = parse_result(values["result"])
        if not isinstance(options, dict) or not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError("not the stored shape")
        if values["result"] and result is None:
            raise ValueError("result is not the stored shape")
        if not isinstance(values["game"], str) or not isinstance(values["seed"], int) or not isinstance(
                values["players"], int) or not isinstance(values["started"], str) or not isinstance(
                values["finished"], str | None):
            raise ValueError("game, seed, players or a time is not the stored type")
    except (ValueError, TypeError) as exc:
        record.damaged = f"its stored options, names or result cannot be read ({exc})"
        return record
    record.game, record.options, record.seed, record.players, record.names, record.result = (
        values["game"], options, values["seed"], values["players"], names, result)
    record.started, record.finished = values["started"], values["finished"]
    try:
        holds = json.loads(values.get("holds") or "{}")
        record.holds = holds if isinstance(holds, dict) else {}
        record.racks = {int(seat): {int(slot): tile for slot, tile in hold["rack"].items()}
                        for seat, hold in record.holds.items() if hold.get("rack")}
    except (ValueError, TypeError, KeyError, AttributeError):
        record.damaged = "what its bot seats hold cannot be read"
    return record
