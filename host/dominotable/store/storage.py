"""Crash-safe scorekeeping: every match and every accepted move in SQLite.

The database runs in WAL mode with `synchronous=FULL`, so a change whose `commit` has returned
is on disk and survives `kill -9` or a power cut. The match's committer writes each change (the
moves taken back and made, what the seats the table plays hold) in one transaction before the
live engine makes it; on the next start `unfinished()` finds the match that was cut off and
the match core rebuilds its engine by replaying its moves (match/replay.py), which gives exactly
the state it had (shuffles are seeded): the store itself knows no game. A write SQLite refuses raises StoreUnavailable after a
rollback: nothing is half-written and the store stays usable.

A bots' demo match is marked `demo`: the table never resumes it and the leaderboard leaves it
out. A match whose stored moves no longer replay is set aside, marked `damaged` with the
reason, and kept for inspection. Opening the database for the table checks it
(`PRAGMA quick_check`); a damaged file raises DamagedDatabase, and `recovery.py` moves it aside
and salvages its matches. Reading commands open the file read-only.

Before anything is written, a file is checked to be ours, and an older one upgraded in one
transaction (schema.py). The table opens the file only after taking its lock (lock.py: a second
table on the same file is refused, naming the process that holds it) and checking that the file
and its folder can be written, so that a read-only database is refused before any play.

Writing, for the committer: every write method (`start_match`, `commit`, `finish`, `add_hint`,
`set_aside`, ...) is one transaction, on disk when it returns. A write SQLite refuses (the disk
full, an I/O error, the file turned read-only, a lock held past the busy timeout) is rolled back
whole and raises StoreUnavailable, whose message says what is wrong for a person to read; the
store stays usable, and `writable()` tells when writes are taken again, to retry with backoff.
Nothing committed before is touched. Any other StorageError is a mistake in what was asked.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from dominotable.rules.game import Game
from dominotable.rules.outcome import Termination
from dominotable.store import outbox, partners, schema
from dominotable.store.errors import DamagedDatabase, StorageError, StoreUnavailable
from dominotable.store.lock import TableLock, probe_writable
from dominotable.store.records import Change, MatchRecord, read_record

HEADROOM = 64 * 1024  # free disk a write needs: a move's WAL frames, and a checkpoint growing the file


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


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
        kind = schema.identify(self.path)
        if self.readonly and kind == "new":
            raise StorageError(f"no database at {self.path}" if not self.path.exists()
                               else f"no matches in {self.path} yet: it is an empty database")
        taken = lock is True
        try:
            if not self.readonly:
                self._lock = TableLock(self.path) if taken else lock or None
                probe_writable(self.path)
            self.db = schema.open_readonly(self.path) if self.readonly else self._connect()
            self.outbox = outbox.Outbox(self.db)  # told nothing until `publish`
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
        if not schema.current(self.db):
            with self._writing():
                schema.set_up(self.db)

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
            self.outbox.committed()
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

    def publish(self) -> int:
        """The table has a venue: every change is told to it from now on, and its history once
        (store/outbox.py); how many matches that told."""
        with self._writing():
            return self.outbox.publish()

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
            self.outbox.started(match_id, partner[2] if partner is not None else None)
        return match_id

    def commit(self, match_id: int, change: Change) -> None:
        """One change of a match, all or nothing (records.py's Change): each move taken back and
        made told to the venue in the outbox; the partner table's events heard recorded with it
        (store/partners.py). When this returns, the change is on disk."""
        keep, moves = change.keep, change.moves
        try:
            with self._writing():
                time = now()
                (last,) = self.db.execute("SELECT coalesce(max(ply), 0) FROM moves WHERE match_id = ?",
                                          (match_id,)).fetchone()
                for ply in range(last, keep, -1):
                    self.outbox.taken_back(match_id, ply, time)
                for ply, notation in enumerate(moves, keep + 1):
                    self.outbox.moved(match_id, ply, notation, time,
                                 change.after if ply == keep + len(moves) else None)
                self.db.execute("DELETE FROM moves WHERE match_id = ? AND ply > ?", (match_id, keep))
                for ply, notation in enumerate(moves, keep + 1):
                    self.db.execute("INSERT INTO moves (match_id, ply, notation, time) VALUES (?, ?, ?, ?)",
                                    (match_id, ply, notation, time))
                if change.holds is not None:
                    self.db.execute("UPDATE matches SET holds = ? WHERE id = ?", (json.dumps(change.holds), match_id))
                if change.heard is not None:
                    heard = change.heard
                    partners.heard(self.db, match_id, heard.seq, heard.moves, heard.ended)
        except sqlite3.IntegrityError:
            raise StorageError(f"match {match_id} has no move {keep}, or there is no such match") from None

    def append_move(self, match_id: int, ply: int, notation: str, after: dict | None = None) -> None:
        """Commit move number `ply` (1-based); when this returns, the move is on disk. `after`
        ({"hand": n, "scores": [...]}): the hand this move ended, told to the venue."""
        time = now()
        try:
            with self._writing():
                self.outbox.moved(match_id, ply, notation, time, after)
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
            self.outbox.taken_back(match_id, ply, now())
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
            self.outbox.ended(match_id, result, time)

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
            self.outbox.set_aside(match_id, why, now())
            self.db.execute("UPDATE matches SET damaged = ? WHERE id = ?", (why, match_id))

    # -- reading ---------------------------------------------------------------------------

    def match(self, match_id: int) -> MatchRecord:
        row = None
        if -2**63 <= match_id < 2**63:  # else no SQLite integer, nor a match
            cur = self.db.execute("SELECT * FROM matches WHERE id = ?", (match_id,))
            row = cur.fetchone()
        if row is None:
            raise StorageError(f"no match {match_id} in {self.path}")
        record = read_record(cur, row)
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
        records = self._seats_and_hints(self._with_sides([read_record(cur, row) for row in cur.fetchall()]))
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

def _text(value: bytes) -> str:
    """SQLite text as str; bytes that are not UTF-8 (a damaged file) shown as U+FFFD."""
    return value.decode("utf-8", "replace")


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
