"""The database file: its schema, how an older one is brought up to it, and whose a file is.

Seats are tied to player names at the start of a match, with the side (partnership) each
seat plays for, so history and the leaderboard need no game engine. A seat is a person or a bot
(`seats.kind`, and a bot's strategy, its strength, in `seats.strategy`); a bot's hand is the tiles
in its rack on the tray, kept with the match as its `holds` (match/position.py: the tiles by slot,
the slot each move took a tile from, its plan), so a resumed match knows them (a database from
before the holds keeps them in `racks`, slot by slot). `hints` records every hint shown.

Before anything is written, a file is checked to be ours (`identify`): SQLite's header, then
`PRAGMA application_id` (APPLICATION_ID), or for a file from before the id, our tables; another
program's database, a file that is not SQLite or one written by a newer dominotable (`PRAGMA
user_version` above SCHEMA_VERSION) is refused and left as it was. An older one is upgraded in
one transaction (`set_up`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dominotable import inputs
from dominotable.store import outbox, partners
from dominotable.store.errors import StorageError

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


def current(db: sqlite3.Connection) -> bool:
    """Whether the file is ours at this version: nothing to set up."""
    return (db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            and db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID)


def set_up(db: sqlite3.Connection) -> None:
    """Make a new file ours, or bring an older one up to SCHEMA_VERSION, in the caller's write
    transaction."""
    schema(db, db.execute("PRAGMA user_version").fetchone()[0])
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


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
        with _closing(open_readonly(path, Path(f"{path}-wal").exists())) as db:
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


def open_readonly(path: Path, wal: bool = True) -> sqlite3.Connection:
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
