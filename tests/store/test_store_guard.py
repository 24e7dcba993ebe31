"""The store refuses what it must not touch and survives what it cannot help (issue 17, storage).

Real files, real processes, real SQLite: a file made read-only by a read-only bind mount in a
mount namespace of the test's own (`unshare -m`: chmod does not stop root), other programs'
databases and files left byte for byte as they were, a database from today's schema upgraded,
one from a newer dominotable refused, a second `dominotable run` on a held database, and a full
disk both as SQLite's page limit and as a real small file system (a tmpfs in a namespace).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from dominotable.app.cli import main
from dominotable.games import catalog
from dominotable.match.replay import replay
from dominotable.store.errors import DatabaseInUse, StorageError, StoreUnavailable
from dominotable.store.lock import TableLock
from dominotable.store.records import Change
from dominotable.store.recovery import open_for_table
from dominotable.store.schema import APPLICATION_ID, SCHEMA_VERSION
from dominotable.store.storage import Store

DOMINOTABLE = [sys.executable, "-m", "dominotable"]


def game(seed=1):
    return catalog.engine("castle-rock")(players=2, options={"hands": 1}, seed=seed)


def moves(seed=1, count=12):
    """The first `count` moves of a seeded match, as notations."""
    g, out = game(seed), []
    for _ in range(count):
        move = next(iter(g.legal_moves()))
        g.push(move)
        out.append(str(move))
    return out


def recorded(path: Path, count=12) -> int:
    with Store(path) as store:
        match_id = store.start_match(game(), ["Ann", "Bob"])
        store.commit(match_id, Change(0, tuple(moves(count=count))))
    return match_id


def digest(folder: Path) -> dict[str, str]:
    """Every file in `folder` and the hash of its bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def one_line_exit_2(capsys, argv, *says: str) -> None:
    """`dominotable argv`, in this process: one line on stderr, exit 2, nothing on stdout."""
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and not out, (code, out, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for text in says:
        assert text in err, err


def namespace(script: str, timeout=60) -> subprocess.CompletedProcess:
    """`script` (sh) in a mount namespace of its own: its mounts vanish with it."""
    if shutil.which("unshare") is None:
        pytest.fail("needs unshare (Debian package util-linux) to make read-only and small file systems")
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-ec", script],
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if "unshare failed" in done.stderr or "mount: " in done.stderr and "permission denied" in done.stderr.lower():
        pytest.fail(f"cannot make a mount namespace (needs root, as CI runs): {done.stderr.strip()}")
    return done


# -- read-only -------------------------------------------------------------------------------------

def test_a_read_only_database_file_or_folder_is_refused_in_one_line_before_any_play(tmp_path):
    """Issue 17: an unwritable file in a writable folder crashed at the first move with exit 1.
    The file (then its folder) is made read-only by a bind mount; `run` and `demo` refuse it with
    one line naming the file and why, exit 2, and change nothing."""
    path = tmp_path / "table.db"
    recorded(path)
    before = digest(tmp_path)
    out = tmp_path.parent / f"{tmp_path.name}-out"
    out.mkdir()
    py = sys.executable
    done = namespace(f"""
        mount --bind {path} {path} && mount -o remount,ro,bind {path} {path}
        {py} -m dominotable run --db {path} --http off > {out}/run.out 2> {out}/run.err || echo $? > {out}/run.rc
        umount {path}
        mount --bind {tmp_path} {tmp_path} && mount -o remount,ro,bind {tmp_path} {tmp_path}
        {py} -m dominotable demo --db {path} --quiet > {out}/demo.out 2> {out}/demo.err || echo $? > {out}/demo.rc
    """)
    assert done.returncode == 0, done.stderr
    for command, where in (("run", f"{path.name} cannot be opened for writing (Read-only file system)"),
                           ("demo", f"no file can be made in its folder {tmp_path}")):
        err = (out / f"{command}.err").read_text()
        assert (out / f"{command}.rc").read_text().strip() == "2", err
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err
        assert f"database {path} is read-only: {where}" in err, err
        assert not (out / f"{command}.out").read_text().strip()  # nothing started: no play, no page
    assert digest(tmp_path) == before  # (tests/app/test_dead_ends.py reads a read-only database with history)


# -- not ours, newer, older --------------------------------------------------------------------------

def foreign_files(folder: Path) -> list[Path]:
    """Other programs' files: SQLite databases (rollback journal and WAL, with and without an
    application id, one with a `matches` table of its own, one damaged), and files that are not SQLite."""
    made = []
    for name, sql in (("notes.sqlite", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
                                       "INSERT INTO notes (body) VALUES ('keep me');"),
                      ("wal.sqlite", "PRAGMA journal_mode=WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);"),
                      ("stamped.sqlite", "PRAGMA application_id = 1234; CREATE TABLE t (x);"),
                      ("football.sqlite", "CREATE TABLE matches (id INTEGER PRIMARY KEY, home TEXT, away TEXT);"
                                          "CREATE TABLE moves (x);"),
                      ("damaged.sqlite", "CREATE TABLE big (x); INSERT INTO big SELECT randomblob(3000) "
                                         "FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n "
                                         "WHERE i < 20) SELECT i FROM n);")):
        db = sqlite3.connect(folder / name)
        db.executescript(sql)
        db.close()
        made.append(folder / name)
    damaged = folder / "damaged.sqlite"
    data = bytearray(damaged.read_bytes())
    data[4096:8192] = os.urandom(4096)  # the first page of the table
    data[100:4096] = os.urandom(3996)  # and the schema
    damaged.write_bytes(bytes(data))
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(5000))
    (folder / "notes.txt").write_text("shopping: milk, tiles\n" * 200)
    return [*made, folder / "photo.png", folder / "notes.txt"]


def test_another_programs_database_or_file_is_refused_and_left_byte_for_byte(tmp_path, capsys):
    """Issue 17: pointing --db at another program's database altered it (columns added, tables
    created) before a traceback. Each is refused in one line; no byte of it, and no file beside
    it, changes, whether opened for the table, for reading, or by `run`."""
    files = foreign_files(tmp_path)
    before = digest(tmp_path)
    for path in files:
        with pytest.raises(StorageError, match=f"{path} is not a dominotable database: it is "):
            open_for_table(path, replay)
        with pytest.raises(StorageError, match="is not a dominotable database|is damaged"):
            Store(path, create=False)
    assert digest(tmp_path) == before
    one_line_exit_2(capsys, ["run", "--db", str(tmp_path / "wal.sqlite"), "--http", "off"],
                    "wal.sqlite is not a dominotable database: it is another program's SQLite database")
    one_line_exit_2(capsys, ["history", "--db", str(tmp_path / "photo.png")],
                    "photo.png is not a dominotable database: it is not an SQLite file")
    assert digest(tmp_path) == before


def stamp(path: Path, application_id: int, version: int) -> None:
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA application_id = {application_id}")
    db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()


def test_a_database_written_before_versions_is_upgraded_and_replays_the_same(tmp_path):
    """A file as main wrote it until now (SCHEMA, no application id, user_version 0) opens, is
    stamped ours at SCHEMA_VERSION in one transaction, and its match replays move for move."""
    path = tmp_path / "old.db"
    match_id = recorded(path)
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE seats DROP COLUMN strategy")  # what later versions added, gone again
    db.commit()
    db.close()
    stamp(path, 0, 0)
    with Store(path) as store:
        assert "strategy" in store.columns("seats")
        assert store.db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.match(match_id).moves == moves()
        assert [str(m) for m in replay(store.match(match_id)).moves] == moves()


def test_a_database_of_a_newer_dominotable_is_refused_and_left_alone(tmp_path, capsys):
    path = tmp_path / "new.db"
    recorded(path)
    stamp(path, APPLICATION_ID, SCHEMA_VERSION + 1)
    before = digest(tmp_path)
    for create in (True, False):
        with pytest.raises(StorageError, match=rf"written by a newer dominotable \(schema version "
                                               rf"{SCHEMA_VERSION + 1}; this one reads up to {SCHEMA_VERSION}\)"):
            Store(path, create=create)
    one_line_exit_2(capsys, ["run", "--db", str(path), "--http", "off"], "written by a newer dominotable")
    assert digest(tmp_path) == before


# -- the lock ----------------------------------------------------------------------------------------

def test_a_second_table_on_a_held_database_names_the_first_and_exits_2(tmp_path, capsys):
    """Issue 17: nothing stopped two `run` processes on one database. A real `run` holds it; in
    this process, a second `run` and a `demo` are refused naming its pid and command, and `history`
    still reads it. After kill -9 of the first (no clean exit), the lock is free again."""
    path = tmp_path / "table.db"
    recorded(path)
    first = subprocess.Popen([*DOMINOTABLE, "run", "--db", str(path), "--http", "127.0.0.1:0"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        lock = Path(f"{path}.lock")
        deadline = time.monotonic() + 30
        while not (lock.exists() and lock.read_text().startswith(f"{first.pid}\n")):
            assert first.poll() is None and time.monotonic() < deadline, first.stderr.read() if first.poll() else ""
            time.sleep(0.05)
        for argv in (["run", "--http", "off"], ["demo", "--quiet"]):
            one_line_exit_2(capsys, [*argv, "--db", str(path)],
                            f"database {path} is in use by another table: pid {first.pid} (", "dominotable run --db")
        assert main(["history", "--db", str(path)]) == 0 and "Ann, Bob" in capsys.readouterr().out
        with pytest.raises(DatabaseInUse) as held:
            TableLock(path)
        assert held.value.pid == first.pid
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    TableLock(path).release()  # the kernel let go of it with the process
    with Store(path) as store:
        assert store.match(1).moves == moves()


# -- disk full and I/O errors ------------------------------------------------------------------------

def test_a_full_database_refuses_the_write_whole_keeps_going_and_loses_nothing(tmp_path):
    """SQLITE_FULL, exactly as a full disk gives it (the page limit): the change is rolled back
    whole, StoreUnavailable says the disk is full, writable() says no; once there is room the
    same write succeeds, and the match replays to the same position."""
    path = tmp_path / "full.db"
    all_moves = moves(count=40)
    with Store(path) as store:
        match_id = store.start_match(game(), ["Ann", "Bob"])
        store.commit(match_id, Change(0, tuple(all_moves[:2])))
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages}")
        ply, refused = 2, None
        while refused is None and ply < len(all_moves):
            try:  # what the bot seats hold grows: the file must grow with it
                store.commit(match_id, Change(ply, tuple(all_moves[ply:ply + 2]), {"pad": "x" * 1500 * ply}))
                ply += 2
            except StoreUnavailable as exc:
                refused = exc
        assert str(refused).startswith(f"the disk is full: the database {path} cannot grow (SQLite: ")
        assert store.match(match_id).moves == all_moves[:ply]  # nothing of the refused change
        assert not store.db.in_transaction and not store.writable()
        store.db.execute(f"PRAGMA max_page_count = {pages + 100}")
        assert store.writable()
        store.commit(match_id, Change(ply, tuple(all_moves[ply:ply + 2])))
    with Store(path) as store:
        assert [str(m) for m in replay(store.match(match_id)).moves] == all_moves[:ply + 2]


CHILD = textwrap.dedent("""
    import json, os, sys
    sys.path[:0] = [{tests!r}]
    from test_store_guard import game, moves
    from dominotable.match.replay import replay
    from dominotable.store.errors import StoreUnavailable
    from dominotable.store.records import Change
    from dominotable.store.storage import Store
    folder = sys.argv[1]
    path = os.path.join(folder, "table.db")
    report = {{}}
    all_moves = moves(count=60)
    store = Store(path)
    match_id = store.start_match(game(), ["Ann", "Bob"])
    store.commit(match_id, Change(0, tuple(all_moves[:2])))
    filler = os.path.join(folder, "filler")
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)  # the rest of the disk, as a log or photos would take it
    try:
        while True:
            os.write(fd, b"x" * 4096)
    except OSError as exc:
        report["filled"] = exc.strerror
    os.close(fd)
    ply = 2
    while ply < 50:
        try:
            store.commit(match_id, Change(ply, tuple(all_moves[ply:ply + 2]), {{"pad": "y" * 3000}}))
            ply += 2
        except StoreUnavailable as exc:
            report["refused"] = str(exc)
            break
    report["stored"] = store.match(match_id).moves == all_moves[:ply]
    report["writable_full"] = store.writable()
    os.unlink(filler)
    report["writable_freed"] = store.writable()
    store.commit(match_id, Change(ply, tuple(all_moves[ply:ply + 2])))
    ply += 2
    store.close()
    with Store(path) as again:
        report["replayed"] = [str(m) for m in replay(again.match(match_id)).moves] == all_moves[:ply]
    print(json.dumps(report))
""")


def test_a_full_file_system_mid_match_refuses_moves_until_space_returns(tmp_path):
    """The real thing: the database on a 256 KB tmpfs (in a mount namespace of the test's own),
    filled by another file mid-match, then the file deleted."""
    folder = tmp_path / "small"
    folder.mkdir()
    child = tmp_path / "child.py"
    child.write_text(CHILD.format(tests=str(Path(__file__).parent)))
    done = namespace(f"mount -t tmpfs -o size=256k dominotable-test {folder}\n{sys.executable} {child} {folder}")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["filled"] == "No space left on device"
    assert report["refused"].startswith("the disk is full: the database ")
    assert report["stored"] and not report["writable_full"] and report["writable_freed"]
    assert report["replayed"]


def test_a_lock_held_past_the_busy_timeout_is_unavailable_and_then_clears(tmp_path):
    """Another program holding SQLite's write lock (a shell left in a transaction): SQLITE_BUSY
    after the timeout is StoreUnavailable too, and writes go on once it lets go."""
    path = tmp_path / "busy.db"
    match_id = recorded(path, count=2)
    with Store(path) as store:
        store.db.execute("PRAGMA busy_timeout = 50")
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreUnavailable, match=f"the database {path} is busy: another program holds it locked"):
            store.commit(match_id, Change(2, tuple(moves(count=4)[2:])))
        assert not store.writable()
        other.execute("ROLLBACK")
        other.close()
        assert store.writable()
        store.commit(match_id, Change(2, tuple(moves(count=4)[2:])))
        assert store.match(match_id).moves == moves(count=4)
