"""A damaged database must not take the table down: move the file aside, start a fresh one and
salvage into it every match that can still be read.

SQLite's own `.recover` lives in its command-line shell, which Python's `sqlite3` module does
not have (nor does every Pi), so the salvage reads the file format itself
(https://www.sqlite.org/fileformat2.html): every table b-tree leaf page of the file (and of its
WAL, whose newer page images win), every cell on it, every record in a cell. It needs neither
the schema nor any index, and a truncated file or a destroyed page loses only the rows on the
pages that are gone. Records are told apart by their shape: the column count and types of each
table of the schema (as the damaged file's own CREATE TABLE has it when that is readable, else
as ours does). Players and seats are rebuilt from each match's names (a seat's other columns
taken from its salvaged row); any other table's rows go back with their match.

Each match salvaged is checked by replaying it: whole (its moves replay, to the recorded
result if it finished) it goes back as it was; otherwise it goes back set aside as damaged,
saying why, for inspection. Ids, names, times and results are kept.
"""

from __future__ import annotations

import json
import os
import sqlite3
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game
from dominotable.store.errors import DamagedDatabase, StorageError
from dominotable.store.lock import TableLock
from dominotable.store.records import parse_result
from dominotable.store.schema import identify, schema
from dominotable.store.storage import Store

Replay = Callable[[dict[str, Any]], Game]  # a recorded match's engine (match/replay.py): the store knows no game

HEADER = b"SQLite format 3\x00"
WAL_MAGIC = (0x377F0682, 0x377F0683)
TABLE_LEAF = 0x0D
PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)


@dataclass
class Salvage:
    """What a recovery found and did."""

    damaged_file: Path  # where the damaged database now lies
    matches: int = 0  # match rows found in the damaged file
    whole: list[int] = field(default_factory=list)  # recovered as they were
    set_aside: dict[int, str] = field(default_factory=dict)  # recovered, marked damaged: why

    def message(self, path: Path) -> str:
        text = (f"The database {path.name} was damaged: moved aside to {self.damaged_file.name}. "
                f"Recovered {len(self.whole)} of {self.matches} matches")
        if self.set_aside:
            text += f", and {len(self.set_aside)} more set aside as damaged"
        return text + "."


def open_for_table(path: str | Path, replay: Replay) -> tuple[Store, list[str]]:
    """The table's database, and what had to be repaired to open it: a damaged file is moved
    aside (with its WAL) under a timestamped name, and its matches recovered into a new one. The
    table's lock is taken first and held throughout, so no second table sees the file midway;
    a file that is not ours is refused before anything is made beside it, and a damaged one is
    recovered only if it is ours (its header says so, or matches of ours can be read in it);
    `replay` rebuilds a match salvaged, to check it."""
    path = Path(path)
    if identify(path) == "unknown" and not any(_ours(row, replay)
                                                for row in read_records(path).get("matches", {}).values()):
        raise StorageError(f"{path} is not a dominotable database: it is a damaged SQLite file with no match "
                           f"of ours in it (left as it is)")
    lock = TableLock(path)
    try:
        try:
            return Store(path, lock=lock), []
        except DamagedDatabase:
            pass
        salvage = recover(path, replay)
        return Store(path, lock=lock), [salvage.message(path)]
    except BaseException:
        lock.release()
        raise


def _ours(row: dict, replay: Replay) -> bool:
    """Whether a row read as a match is one: a game we know, its options and names JSON."""
    try:
        return _game(row, replay) is not None and isinstance(json.loads(row["names"]), list)
    except (DominoError, ValueError, TypeError, KeyError):
        return False


def _game(row: dict, replay: Replay, moves: list[str] | None = None) -> Game:
    """The engine of a salvaged match, its `moves` made (none: as it began)."""
    data = {"game": row["game"], "players": row["players"], "seed": row["seed"],
            "options": json.loads(row["options"]), "moves": moves or []}
    if row.get("observed"):
        data["observed"] = True
    return replay(data)


def recover(path: Path, replay: Replay) -> Salvage:
    """Rebuild the damaged `path` from what can be read, keeping the damaged file (and its WAL)
    beside it under a timestamped name. The salvage is built in a file of its own and renamed
    over `path` last, so a power cut midway leaves the damaged file in place to try again. Each
    match salvaged is checked by `replay`."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    found = read_records(path)
    matches = {rowid: {**row, "id": rowid} for rowid, row in found.pop("matches", {}).items()}
    moves: dict[int, dict[int, tuple[str, str]]] = {}
    for row in found.pop("moves", {}).values():
        moves.setdefault(row["match_id"], {}).setdefault(row["ply"], (row["notation"], row["time"]))
    found.pop("players", None)  # rebuilt from the names
    others: dict[int, list[tuple[str, dict]]] = {}  # match -> (table, row) of every other table
    for table, rows in found.items():
        for row in rows.values():
            others.setdefault(row.get("match_id"), []).append((table, row))
    salvage = Salvage(aside, matches=len(matches))
    building = path.with_name(f"{path.name}.recovering")
    for stale in (building, Path(f"{building}-wal"), Path(f"{building}-shm")):
        stale.unlink(missing_ok=True)
    with Store(building, lock=False) as store:
        store.db.execute("BEGIN IMMEDIATE")
        for match_id in sorted(matches):
            why = _restore(store, matches[match_id], moves.get(match_id, {}), others.get(match_id, []), replay)
            if why is None:
                salvage.whole.append(match_id)
            else:
                salvage.set_aside[match_id] = why
        store.db.execute("COMMIT")
    for suffix in ("-wal", "-shm", ""):  # the WAL first: it must never meet the new file
        if Path(f"{path}{suffix}").exists():
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    os.replace(building, path)
    return salvage


# --- putting matches back ---------------------------------------------------------------------

def _restore(store: Store, row: dict, moves: dict[int, tuple[str, str]], others: list[tuple[str, dict]],
             replay: Replay) -> str | None:
    """Insert a salvaged match; None if it is whole, else why it was set aside."""
    match_id = row["id"]
    plies = []
    while len(plies) + 1 in moves:
        plies.append(moves[len(plies) + 1])
    why = _why_damaged(row, [notation for notation, _ in plies], replay)
    if why is None and len(plies) < len(moves):
        why = f"moves after {len(plies)} were lost"
    _insert(store, "matches", {**row, "damaged": why})
    for seat, (name, side) in enumerate(_seats(row, replay)):
        store.add_seat(match_id, seat, side, name)
    store.db.executemany("INSERT INTO moves (match_id, ply, notation, time) VALUES (?, ?, ?, ?)",
                         [(match_id, ply, notation, time) for ply, (notation, time) in enumerate(plies, 1)])
    for table, other in others:
        if table == "seats":  # the seat as rebuilt, with the rest of what the salvaged row says
            extra = {c: v for c, v in other.items() if c not in ("match_id", "seat", "side", "player_id")
                     and c in store.columns("seats")}
            if extra:
                store.db.execute(f"UPDATE seats SET {', '.join(f'{c} = ?' for c in extra)} "
                                 "WHERE match_id = ? AND seat = ?", [*extra.values(), match_id, other.get("seat")])
        else:
            _insert(store, table, other, "OR IGNORE")
    return why


def _insert(store: Store, table: str, row: dict, conflict: str = "") -> None:
    columns = [c for c in row if c in store.columns(table)]
    store.db.execute(f"INSERT {conflict} INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                     [row[c] for c in columns])



def _why_damaged(row: dict, moves: list[str], replay: Replay) -> str | None:
    """Why a salvaged match is not whole, or None: it must replay, to its result if it has one."""
    try:
        game = _game(row, replay, moves)
    except (DominoError, ValueError, TypeError, KeyError) as exc:
        return f"its moves no longer replay: {exc}"
    result = parse_result(row.get("result"))
    if row.get("result") and result is None:
        return "its result cannot be read"
    if result is not None and result["ending"] == "played" and result["scores"] != game.scores:
        return f"moves were lost: {len(moves)} replay to {game.scores}, the result is {result['scores']}"
    return None


def _seats(row: dict, replay: Replay) -> list[tuple[str, int]]:
    """(name, side) per seat, from the match's names and its game's partnerships."""
    try:
        names = json.loads(row["names"])
        game = _game(row, replay)
    except (DominoError, ValueError, TypeError, KeyError):
        return []
    if not isinstance(names, list) or len(names) != game.players or not all(isinstance(n, str) for n in names):
        return []
    return [(name, game.side_of(seat)) for seat, name in enumerate(names)]


# --- reading the damaged file -------------------------------------------------------------------

def read_records(path: Path) -> dict[str, dict[int, dict[str, Any]]]:
    """The rows found on the pages of the file at `path` and its WAL, by table of the schema:
    table -> rowid -> column -> value (an INTEGER PRIMARY KEY column holds the rowid)."""
    data = path.read_bytes() if path.exists() else b""
    wal = Path(f"{path}-wal")
    wal_data = wal.read_bytes() if wal.exists() else b""
    best: tuple[int, list] = (-1, [])
    for size in _page_sizes(data, wal_data):
        records = list(_records(_pages(data, wal_data, size), size - _reserved(data)))
        if len(records) > best[0]:
            best = (len(records), records)
    shapes = _shapes(best[1])
    found: dict[str, dict[int, dict[str, Any]]] = {}
    for rowid, values in best[1]:
        fitting = [shape for shape in shapes if shape.fits(values)]
        if len(fitting) > 1:  # the same count and types: the one with exactly as many columns
            fitting = [shape for shape in fitting if len(shape.columns) == len(values)]
        if len(fitting) == 1:
            found.setdefault(fitting[0].table, {}).setdefault(rowid, fitting[0].row(rowid, values))
    return found


@dataclass(frozen=True)
class Shape:
    """What a record of a table looks like: per column its name, the Python types its values
    may have, whether a short record may leave it out (it has a default, or may be NULL), and
    whether it is the rowid (an INTEGER PRIMARY KEY, stored as NULL in the record)."""

    table: str
    columns: tuple[tuple[str, tuple[type, ...], bool, bool], ...]

    def fits(self, values: list) -> bool:
        if not 1 <= len(values) <= len(self.columns):
            return False
        if not all(optional for _, _, optional, _ in self.columns[len(values):]):
            return False
        return all(isinstance(value, kinds) for value, (_, kinds, _, _) in zip(values, self.columns))

    def row(self, rowid: int, values: list) -> dict[str, Any]:
        return {name: rowid if is_rowid else value
                for value, (name, _, _, is_rowid) in zip(values, self.columns)}


def _shapes(records: list) -> list[Shape]:
    """The shape of each table of our schema, with its columns as the damaged file's own CREATE
    TABLE has them when one is readable (a row of sqlite_schema: type, name, tbl_name, rootpage,
    sql), else as ours has them."""
    db = sqlite3.connect(":memory:")
    try:
        schema(db)
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table' "
                                                  "AND name NOT LIKE 'sqlite_%'")]  # not SQLite's own
        theirs = {values[1]: values[4] for _, values in records
                  if len(values) == 5 and values[0] == "table" and values[1] in tables and isinstance(values[4], str)}
        shapes = []
        for table in tables:
            info = list(db.execute(f"PRAGMA table_info({table})"))
            if table in theirs:
                try:
                    scratch = sqlite3.connect(":memory:")
                    scratch.execute(theirs[table])
                    info = list(scratch.execute(f"PRAGMA table_info({table})")) or info
                except sqlite3.Error:
                    pass
                finally:
                    scratch.close()
            keys = [i for i in info if i[5]]
            columns = []
            for _, name, kind, notnull, default, pk in info:
                is_rowid = pk and len(keys) == 1 and kind.upper() == "INTEGER"
                kinds = {"INTEGER": (int,), "TEXT": (str,)}.get(kind.upper(), (int, float, str, bytes))
                if is_rowid:
                    kinds = (type(None),)
                elif not notnull:
                    kinds += (type(None),)
                columns.append((name, kinds, bool(is_rowid or not notnull or default is not None), bool(is_rowid)))
            shapes.append(Shape(table, tuple(columns)))
        return shapes
    finally:
        db.close()


def _page_sizes(data: bytes, wal: bytes) -> list[int]:
    if data.startswith(HEADER):
        size = struct.unpack_from(">H", data, 16)[0]
        size = 65536 if size == 1 else size
        if size in PAGE_SIZES:
            return [size]
    if len(wal) >= 32 and struct.unpack_from(">I", wal)[0] in WAL_MAGIC:
        size = struct.unpack_from(">I", wal, 8)[0]
        if size in PAGE_SIZES:
            return [size]
    return list(PAGE_SIZES)  # the header is gone: try each size, keep the one that reads most


def _reserved(data: bytes) -> int:
    return data[20] if data.startswith(HEADER) else 0


def _pages(data: bytes, wal: bytes, size: int) -> dict[int, bytes]:
    """Page number -> the newest image of that page: the file's, then each committed WAL frame's."""
    pages = {n + 1: data[n * size:(n + 1) * size] for n in range((len(data) + size - 1) // size)}
    if len(wal) >= 32 and struct.unpack_from(">I", wal)[0] in WAL_MAGIC and struct.unpack_from(">I", wal, 8)[0] == size:
        salt = wal[16:24]
        frames: dict[int, bytes] = {}
        offset = 32
        while offset + 24 + size <= len(wal):  # frames: page number, commit size, salt, checksum, page
            number, commit = struct.unpack_from(">II", wal, offset)
            if wal[offset + 8:offset + 16] != salt:
                break
            frames[number] = wal[offset + 24:offset + 24 + size]
            if commit:  # a committed transaction: its frames count
                pages.update(frames)
                frames = {}
            offset += 24 + size
    for number in _freelist(pages, size):
        pages.pop(number, None)
    return pages


def _freelist(pages: dict[int, bytes], size: int) -> set[int]:
    """Pages on the freelist (they may still hold rows that were deleted)."""
    data = pages.get(1, b"")
    if not data.startswith(HEADER) or len(data) < 40:
        return set()
    free: set[int] = set()
    trunk = struct.unpack_from(">I", data, 32)[0]
    while trunk in pages and trunk not in free:
        free.add(trunk)
        page = pages[trunk]
        try:
            following, count = struct.unpack_from(">II", page, 0)
            for i in range(min(count, size // 4 - 2)):
                free.add(struct.unpack_from(">I", page, 8 + 4 * i)[0])
        except struct.error:  # a truncated trunk page
            break
        trunk = following
    return free


def _records(pages: dict[int, bytes], usable: int):
    """(rowid, values) of every cell on every table leaf page that parses."""
    for number, page in pages.items():
        start = 100 if number == 1 else 0
        if len(page) < start + 8 or page[start] != TABLE_LEAF:
            continue
        cells = struct.unpack_from(">H", page, start + 3)[0]
        for i in range(cells):
            at = start + 8 + 2 * i
            if at + 2 > len(page):
                break
            try:
                yield _cell(pages, page, struct.unpack_from(">H", page, at)[0], usable)
            except (IndexError, ValueError, struct.error):
                continue  # a damaged cell: the others on the page may still read


def _cell(pages: dict[int, bytes], page: bytes, at: int, usable: int) -> tuple[int, list]:
    size, at = _varint(page, at)
    rowid, at = _varint(page, at)
    if rowid >= 1 << 63:
        rowid -= 1 << 64
    local = _local(size, usable)
    payload = bytearray(page[at:at + local])
    if len(payload) != local:
        raise ValueError("cell runs off its page")
    if local < size:  # the rest is on a chain of overflow pages
        following = struct.unpack_from(">I", page, at + local)[0]
        seen = set()
        while len(payload) < size:
            if following not in pages or following in seen:
                raise ValueError("overflow chain broken")
            seen.add(following)
            overflow = pages[following]
            following = struct.unpack_from(">I", overflow, 0)[0]
            payload += overflow[4:min(usable, 4 + size - len(payload))]
    return rowid, _record(bytes(payload))


def _local(size: int, usable: int) -> int:
    """How much of a payload of `size` bytes a table leaf cell holds on its page."""
    most = usable - 35
    if size <= most:
        return size
    least = (usable - 12) * 32 // 255 - 23
    local = least + (size - least) % (usable - 4)
    return local if local <= most else least


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for i in range(9):
        byte = data[at + i]
        if i == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    raise AssertionError("unreachable")


INT_SIZES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8}


def _record(payload: bytes) -> list:
    header, at = _varint(payload, 0)
    if not 1 <= header <= len(payload):
        raise ValueError("bad record header")
    types = []
    while at < header:
        kind, at = _varint(payload, at)
        types.append(kind)
    body = header
    values: list = []
    for kind in types:
        if kind == 0:
            values.append(None)
        elif kind in INT_SIZES:
            n = INT_SIZES[kind]
            values.append(int.from_bytes(payload[body:body + n], "big", signed=True))
            body += n
        elif kind == 7:
            values.append(struct.unpack_from(">d", payload, body)[0])
            body += 8
        elif kind in (8, 9):
            values.append(kind - 8)
        elif kind >= 12:
            n = (kind - 12) // 2
            chunk = payload[body:body + n]
            values.append(chunk.decode("utf-8", "replace") if kind % 2 else chunk)
            body += n
        else:
            raise ValueError(f"reserved serial type {kind}")
        if body > len(payload):
            raise ValueError("record runs past its payload")
    if body != len(payload):
        raise ValueError("record does not fill its payload")
    return values
