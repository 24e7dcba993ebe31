"""A match two tables play together (remote seats, match/remote.py): which table is the partner,
whether this one started it (the host), the match's uid (the same at both tables, so a venue
counts it once), and what this table has heard of the partner's moves.

The partner's events (its outbox, published on its topic) are applied here in sequence order,
each once: `seq` is the last one applied and `moves` the partner's moves as that event left them,
written in the same transaction as what they change (the committer's), so a table killed at any
moment resumes knowing exactly what it had heard, and an event that comes again is dropped.
`ended` says the partner's `ended` event (or `aside`) has been heard: nothing more will come.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

SCHEMA = """
CREATE TABLE IF NOT EXISTS partners (
    match_id INTEGER PRIMARY KEY,
    partner TEXT NOT NULL,          -- the other table's id at the venue
    host INTEGER NOT NULL,          -- 1: this table started the match
    uid TEXT NOT NULL,              -- the match's uid at both tables
    seq INTEGER NOT NULL DEFAULT 0, -- the partner's last event applied here
    moves TEXT NOT NULL DEFAULT '[]', -- the partner's moves as heard (JSON notations)
    ended INTEGER NOT NULL DEFAULT 0  -- 1: the partner's match has ended
);
"""


@dataclass(frozen=True)
class Partnership:
    match_id: int
    partner: str
    host: bool
    uid: str
    seq: int
    moves: tuple[str, ...]
    ended: bool = False


def add(db: sqlite3.Connection, match_id: int, partner: str, host: bool, uid: str, seq: int = 0,
        moves=()) -> None:
    db.execute("INSERT INTO partners (match_id, partner, host, uid, seq, moves) VALUES (?, ?, ?, ?, ?, ?)",
               (match_id, partner, int(host), uid, seq, json.dumps(list(moves))))


def heard(db: sqlite3.Connection, match_id: int, seq: int, moves, ended: bool = False) -> None:
    db.execute("UPDATE partners SET seq = ?, moves = ?, ended = ended OR ? WHERE match_id = ?",
               (seq, json.dumps(list(moves)), int(ended), match_id))


def of(db: sqlite3.Connection, match_id: int) -> Partnership | None:
    row = db.execute("SELECT match_id, partner, host, uid, seq, moves, ended FROM partners WHERE match_id = ?",
                     (match_id,)).fetchone()
    return _partnership(row) if row is not None else None


def by_uid(db: sqlite3.Connection, uid: str) -> Partnership | None:
    row = db.execute("SELECT match_id, partner, host, uid, seq, moves, ended FROM partners WHERE uid = ?",
                     (uid,)).fetchone()
    return _partnership(row) if row is not None else None


# --- for the venue link (its own connection) ------------------------------------------------

def active(db: sqlite3.Connection) -> list[Partnership]:
    """The shared matches the link still serves: the partner's events not all heard yet (its match
    not ended), or this table's not all heard by the partner yet (still in the outbox)."""
    rows = db.execute("SELECT match_id, partner, host, uid, seq, moves, ended FROM partners p WHERE ended = 0 "
                      "OR EXISTS (SELECT 1 FROM outbox o WHERE o.uid = p.uid) ORDER BY match_id").fetchall()
    return [_partnership(row) for row in rows]


def invitation(db: sqlite3.Connection) -> dict | None:
    """The `started` event of the latest unfinished match this table hosts, for its partner to
    join (outbox.py's fields, with the uid)."""
    from dominotable.store import outbox

    row = db.execute("SELECT p.match_id, p.uid FROM partners p JOIN matches m ON m.id = p.match_id "
                     "WHERE p.host = 1 AND m.finished IS NULL AND m.damaged IS NULL "
                     "ORDER BY p.match_id DESC LIMIT 1").fetchone()
    if row is None:
        return None
    started = outbox.describe(db, row[0])
    if started is None:
        return None
    # the moves it began with (none): the partner hears the rest as the host's events, by ply
    return {**started, "moves": [], "kind": "started", "match": row[0], "uid": row[1], "seq": 1}


def _partnership(row) -> Partnership:
    match_id, partner, host, uid, seq, moves, ended = row
    try:
        notations = tuple(str(m) for m in json.loads(moves))
    except (ValueError, TypeError):
        notations = ()
    return Partnership(match_id, partner, bool(host), uid, seq, notations, bool(ended))
