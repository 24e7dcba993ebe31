"""The table's outbox: every committed change of a match, as an event for the venue, written in
the same transaction as the change itself (store and forward).

An event is named by its match's `uid` (random, made when the match's first event is written:
a table whose database was replaced never reuses one, though its match numbers start again)
and `seq`, counted from 1 per match, so the venue can put a match's events in order, see a gap
and drop a duplicate. The table's id is not stored: the venue link adds it when it publishes.
An event stays here until the venue says it has stored it (`acked`); a broker's acknowledgement
is not enough, since a broker that crashes loses what it had not saved yet.

Events, with the fields each adds to `kind`, `match`, `uid`, `seq` and `time`:

- `started`: game, options, seed, players, names, sides, bots, observed, demo, started, moves
  (the moves already made: none for a new match, all so far for one begun before the outbox);
  for a match two tables play together (store/partners.py) also remote (the seats played at
  the other table), partner (its id) and host (whether this table started it);
- `move`: ply, notation;
- `takeback`: ply (the last move, taken back);
- `hand`: hand, scores (written only when the committer says a hand has ended);
- `ended`: ending, scores, winners, finished;
- `aside`: why (a match set aside as damaged).

The store writes them through `Outbox`, inside its own transaction, before the change they
describe is made (so a `started` made for an older match lists the moves before it). A table
without a venue writes none; the first time it has one, its history is told once (`publish`).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dominotable.store.records import parse_result

SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT, -- the order of publication (never reused: the link reads on from the last it sent)
    match_id INTEGER NOT NULL,
    uid TEXT NOT NULL,
    seq INTEGER NOT NULL,           -- 1 for the match's first event
    event TEXT NOT NULL,            -- JSON, as published (less the table's id)
    UNIQUE (uid, seq)
);
CREATE TABLE IF NOT EXISTS outbox_matches (
    match_id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL,
    seq INTEGER NOT NULL            -- the last event's
);
"""


@dataclass(frozen=True)
class Event:
    id: int
    uid: str
    seq: int
    event: dict[str, Any]


def describe(db: sqlite3.Connection, match_id: int) -> dict[str, Any] | None:
    """What a `started` event of the match says now (None if it cannot be read)."""
    return _started(db, match_id)


class Outbox:
    """The events the table's store writes of its matches, inside its transactions. Only a table
    with a venue (`on`, set by `publish`) starts telling a match; without one nothing gathers
    here, except the rest of a match the venue already heard of (it must hear all of it)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self.on = False
        self.told: list[Callable[[], None]] = []  # called once a transaction that wrote events is on disk
        self._wrote = False

    def committed(self) -> None:
        """The store's transaction is on disk: whoever publishes is told if it wrote events."""
        if self._wrote:
            self._wrote = False
            for tell in self.told:
                tell()

    def publish(self) -> int:
        """Tell the venue every change from now on, and, once, each match it never heard of
        (played before a venue was configured): how it started, with the moves it has, then how
        it ended or why it was set aside. How many such matches."""
        self.on = True
        told = 0
        for match_id, finished, result, damaged in self.db.execute(
                "SELECT id, finished, result, damaged FROM matches m WHERE NOT EXISTS "
                "(SELECT 1 FROM outbox_matches o WHERE o.match_id = m.id) ORDER BY id").fetchall():
            first = _started(self.db, match_id)
            if first is None:
                continue  # its record cannot be read: nothing to tell
            self._add(match_id, "started", first, fresh=True)
            outcome = parse_result(result)
            if finished is not None and outcome is not None:
                self.ended(match_id, outcome, finished)
            if damaged is not None:
                self.set_aside(match_id, str(damaged), finished or first["started"])
            told += 1
        return told

    def started(self, match_id: int, uid: str | None = None) -> None:
        """A new match's first event; `uid`: the match's, when another table made it (a shared match)."""
        if self.on:
            self._add(match_id, "started", _started(self.db, match_id), fresh=True, uid=uid)

    def moved(self, match_id: int, ply: int, notation: str, time: str, after: dict[str, Any] | None = None) -> None:
        """Move `ply`; `after` ({"hand": n, "scores": [...]}): the hand it ended."""
        self._add(match_id, "move", {"ply": ply, "notation": notation}, time)
        if after is not None:
            self._add(match_id, "hand", {"hand": after["hand"], "scores": list(after["scores"])}, time)

    def taken_back(self, match_id: int, ply: int, time: str) -> None:
        self._add(match_id, "takeback", {"ply": ply}, time)

    def ended(self, match_id: int, result: dict[str, Any], time: str) -> None:
        self._add(match_id, "ended", {"ending": str(result["ending"]), "scores": result["scores"],
                                      "winners": result["winners"], "finished": time}, time)

    def set_aside(self, match_id: int, why: str, time: str) -> None:
        self._add(match_id, "aside", {"why": why}, time)

    def _add(self, match_id: int, kind: str, body: dict[str, Any], time: str | None = None,
             fresh: bool = False, uid: str | None = None) -> None:
        if self.on or self.db.execute("SELECT 1 FROM outbox_matches WHERE match_id = ?", (match_id,)).fetchone():
            _add(self.db, match_id, kind, body, time, fresh, uid)
            self._wrote = True


def _add(db: sqlite3.Connection, match_id: int, kind: str, body: dict[str, Any], time: str | None = None,
         fresh: bool = False, uid: str | None = None) -> None:
    row = db.execute("SELECT uid, seq FROM outbox_matches WHERE match_id = ?", (match_id,)).fetchone()
    if row is None:
        first = None if fresh else _started(db, match_id)  # a match begun before the outbox
        if not fresh and first is None:
            return  # no such match (the change fails), or one whose record cannot be read
        uid, seq = uid or secrets.token_hex(8), 0
        db.execute("INSERT INTO outbox_matches (match_id, uid, seq) VALUES (?, ?, 0)", (match_id, uid))
        if first is not None:  # the venue first hears how it started
            _write(db, match_id, uid, 1, "started", first)
            seq = 1
    else:
        uid, seq = row
    _write(db, match_id, uid, seq + 1, kind, body if time is None else {**body, "time": time})


def _write(db: sqlite3.Connection, match_id: int, uid: str, seq: int, kind: str, body: dict[str, Any]) -> None:
    event = {"kind": kind, "match": match_id, "uid": uid, "seq": seq, **body}
    db.execute("INSERT INTO outbox (match_id, uid, seq, event) VALUES (?, ?, ?, ?)",
               (match_id, uid, seq, json.dumps(event, separators=(",", ":"))))
    db.execute("UPDATE outbox_matches SET seq = ? WHERE match_id = ?", (seq, match_id))


def _started(db: sqlite3.Connection, match_id: int) -> dict[str, Any] | None:
    row = db.execute("SELECT game, options, seed, players, names, started, observed, demo FROM matches "
                     "WHERE id = ?", (match_id,)).fetchone()
    if row is None:
        return None
    game, options, seed, players, names, time, observed, demo = row
    try:
        options, names = json.loads(options), json.loads(names)
    except (ValueError, TypeError):
        return None
    seats = db.execute("SELECT side, kind FROM seats WHERE match_id = ? ORDER BY seat", (match_id,)).fetchall()
    moves = [n for (n,) in db.execute("SELECT notation FROM moves WHERE match_id = ? ORDER BY ply", (match_id,))]
    shared = db.execute("SELECT partner, host FROM partners WHERE match_id = ?", (match_id,)).fetchone()
    return {"game": game, "options": options, "seed": seed, "players": players,
            "names": names, "sides": [side for side, _ in seats],
            "bots": [seat for seat, (_, kind) in enumerate(seats) if kind == "bot"],
            "observed": bool(observed), "demo": bool(demo), "started": time, "moves": moves, "time": time} | ({
                "remote": [seat for seat, (_, kind) in enumerate(seats) if kind == "remote"],
                "partner": shared[0], "host": bool(shared[1])} if shared else {})


# --- read and cleared by the venue link (its own connection) ----------------------------------

def pending(db: sqlite3.Connection, after: int = 0, limit: int = 100) -> list[Event]:
    """Events not yet stored by the venue, in order, from the one after id `after`."""
    return [Event(i, uid, seq, json.loads(text)) for i, uid, seq, text in db.execute(
        "SELECT id, uid, seq, event FROM outbox WHERE id > ? ORDER BY id LIMIT ?", (after, limit))]


def of_match(db: sqlite3.Connection, uid: str, after: int) -> list[Event]:
    """The events of match `uid` after its event `after` still in the outbox, in order."""
    return [Event(i, uid, seq, json.loads(text)) for i, seq, text in db.execute(
        "SELECT id, seq, event FROM outbox WHERE uid = ? AND seq > ? ORDER BY seq", (uid, after))]


def count(db: sqlite3.Connection) -> int:
    return db.execute("SELECT count(*) FROM outbox").fetchone()[0]


def acked(db: sqlite3.Connection, stored: list[tuple[str, int]]) -> int:
    """The venue has stored these (uid, seq): they leave the outbox. How many did."""
    cur = db.executemany("DELETE FROM outbox WHERE uid = ? AND seq = ?", stored)
    return cur.rowcount
