"""A damaged database does not take the table down (app/recovery.py): the file is moved aside
under a timestamped name, a fresh database takes its place, and every match that can still be
read goes back into it, whole or set aside as damaged; the OLED says so until a button.

Each damage kind (tests/support/damage.py) is applied to a real file of real matches; the recovered
matches are compared with the ones recorded."""

from __future__ import annotations

import shutil
import sqlite3

import pytest
from dominotable.app import cli
from dominotable.app.runtime import Runtime
from dominotable.match.replay import replay
from dominotable.store.errors import DamagedDatabase, StorageError
from dominotable.store.recovery import open_for_table, read_records
from dominotable.store.storage import Store
from dominotable.ui.oled import screens
from dominotable.ui.press import Press
from support import damage
from support.table_match import SETTLE_MS, open_table

MATCHES = 35


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A database of MATCHES real matches, and each match's moves."""
    path = tmp_path_factory.mktemp("recovery") / "table.sqlite3"
    return path, damage.build(path, MATCHES)


def damaged_copy(recorded, tmp_path, kind):
    base, moves = recorded
    path = tmp_path / "table.sqlite3"
    shutil.copy(base, path)
    damage.damage(path, kind)
    return path, moves


# the least that must come back whole, of 35 (measured: truncated 18, page 34, index and schema 35)
FLOOR = {"truncated": 15, "page": 32, "index": MATCHES, "schema": MATCHES}


@pytest.mark.parametrize("kind", FLOOR)
def test_a_damaged_file_is_moved_aside_and_its_readable_matches_recovered(recorded, tmp_path, kind, capsys):
    path, moves = damaged_copy(recorded, tmp_path, kind)
    damaged_bytes = path.read_bytes()
    assert not damage.readable_with_sqlite(path)
    with pytest.raises(DamagedDatabase, match="is damaged"):
        Store(path)
    assert cli.main(["history", "--db", str(path)]) == 2  # reading commands say so, and what repairs it
    err = capsys.readouterr().err
    assert "is damaged" in err and "`dominotable run` moves it aside" in err and len(err.splitlines()) == 1
    assert path.read_bytes() == damaged_bytes  # only `run` repairs

    store, repairs = open_for_table(path, replay)
    with store:
        aside = sorted(p for p in tmp_path.glob("table.sqlite3.damaged-*") if not p.name.endswith(("-wal", "-shm")))
        assert len(aside) == 1 and aside[0].read_bytes() == damaged_bytes  # kept, byte for byte
        assert repairs == [f"The database table.sqlite3 was damaged: moved aside to {aside[0].name}. "
                           + repairs[0].split(". ", 1)[1]]
        records = store.matches()
        whole = [r for r in records if r.damaged is None]
        assert len(whole) >= FLOOR[kind]
        assert f"Recovered {len(whole)} of" in repairs[0]
        for record in whole:
            stored = store.match(record.id)
            if record.finished:  # a finished match comes back exactly: moves, result, names
                assert stored.moves == moves[record.id]
                assert record.names == damage.NAMES[:record.players]
            else:  # an unfinished one may lose moves at its end, never in the middle
                assert stored.moves == moves[record.id][:len(stored.moves)]
        for record in records:
            if record.damaged:
                assert record.id in moves and record.damaged
    assert damage.readable_with_sqlite(path)
    assert Store(path).matches() == records  # opens as an ordinary database now, no repair


def test_random_bytes_are_refused_but_a_damaged_file_from_before_the_id_is_recovered(recorded, tmp_path):
    """Nothing in a file of random bytes says it was ours, not even SQLite's header: `run` refuses
    it and leaves it as it was. A file from before the application id whose schema page is gone
    is known as ours by what can be read in it: its matches."""
    path, _ = damaged_copy(recorded, tmp_path, "random")
    before = path.read_bytes()
    with pytest.raises(StorageError, match="is not a dominotable database: it is not an SQLite file"):
        open_for_table(path, replay)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["table.sqlite3"]
    old = tmp_path / "old.sqlite3"
    shutil.copy(recorded[0], old)
    db = sqlite3.connect(old)
    db.execute("PRAGMA application_id = 0")
    db.execute("PRAGMA user_version = 0")
    db.commit()
    db.close()
    damage.damage(old, "schema")
    store, repairs = open_for_table(old, replay)
    with store:
        assert f"Recovered {MATCHES} of {MATCHES}" in repairs[0]


def test_records_are_read_without_the_schema_or_any_index(recorded, tmp_path):
    """Every match row and every move comes from the table pages themselves, told apart by
    their shapes; the seats and players too."""
    path, moves = damaged_copy(recorded, tmp_path, "schema")
    found = read_records(path)
    assert sorted(found["matches"]) == sorted(moves)
    by_match: dict[int, dict[int, str]] = {}
    for row in found["moves"].values():
        by_match.setdefault(row["match_id"], {})[row["ply"]] = row["notation"]
    assert all([by_match.get(m, {})[ply] for ply in sorted(by_match.get(m, {}))] == moves[m] for m in moves)
    assert {row["name"] for row in found["players"].values()} == set(damage.NAMES)
    assert len(found["seats"]) == sum(record["players"] for record in found["matches"].values())


def test_rows_of_every_other_table_go_back_with_their_match(tmp_path, monkeypatch):
    """Bot seats, racks and hints come back with their match, and so do the rows of a table the
    recovery does not know by name (a later feature's): each is read by its shape in the schema."""
    from dominotable.store import schema as storage

    later = "CREATE TABLE notes (match_id INTEGER NOT NULL REFERENCES matches(id), note TEXT NOT NULL, stamp REAL);"
    monkeypatch.setattr(storage, "UPGRADES", {**storage.UPGRADES, storage.SCHEMA_VERSION + 1: later})
    monkeypatch.setattr(storage, "SCHEMA_VERSION", storage.SCHEMA_VERSION + 1)
    path = tmp_path / "t.sqlite3"
    moves = damage.build(path, 10)
    with Store(path) as store:
        store.db.execute("UPDATE seats SET kind = 'bot' WHERE match_id = 3 AND seat = 1")
        store.set_rack(3, 1, 2, "4-6")
        store.add_hint(3, 5, 1, "play 4-6")
        store.db.executemany("INSERT INTO notes VALUES (?, ?, ?)", [(m, f"note {m}", m / 2) for m in moves])
        before = store.match(3)
    damage.damage(path, "index")
    store, repairs = open_for_table(path, replay)
    with store:
        assert "Recovered 10 of 10" in repairs[0]
        after = store.match(3)
        assert (after.bots, after.racks, after.hints) == (before.bots, before.racks, before.hints) == (
            [1], {1: {2: "4-6"}}, before.hints)
        assert after.hints[0]["hint"] == "play 4-6"
        assert sorted(store.db.execute("SELECT match_id, note, stamp FROM notes")) == [
            (m, f"note {m}", m / 2) for m in sorted(moves)]


def test_an_undamaged_file_is_left_alone(recorded, tmp_path):
    path, _ = damaged_copy(recorded, tmp_path, "truncated")
    shutil.copy(recorded[0], path)
    store, repairs = open_for_table(path, replay)
    store.close()
    assert repairs == [] and list(tmp_path.glob("*.damaged-*")) == []


def test_the_oled_says_the_database_was_repaired_until_a_button_is_pressed(recorded, tmp_path):
    path, _ = damaged_copy(recorded, tmp_path, "page")
    hw, frames = open_table()
    try:
        store, repairs = open_for_table(path, replay)
        with store:
            runtime = Runtime(hw, store, SETTLE_MS, repairs=repairs).start()
            assert runtime.repairs == repairs  # the data a web page can show too
            expected = screens.prompt("Repaired", repairs[0])
            assert frames.images[-1].tobytes() == expected.tobytes()
            hw.buttons().press(Press.SELECT)
            while runtime.notice is not None:
                runtime.step(0.01)
            # then the table goes on: here it resumes the latest unfinished match recovered (a new
            # game's empty tray, so there may be nothing to restore)
            assert runtime.session is not None and runtime.session.referee.status.mode in ("restore", "play")
            assert frames.images[-1].tobytes() == screens.draw(runtime.screen()).tobytes()
    finally:
        hw.close()


def test_a_stored_match_that_no_longer_replays_is_set_aside_and_the_table_starts_fresh(tmp_path, capsys):
    """Its moves do not replay (here a move the engine refuses): instead of stopping at every
    power-on, the table marks it damaged, keeps it, says so, and opens the setup menu."""
    db = tmp_path / "t.sqlite3"
    damage.build(db, 7)  # match 7 is unfinished
    with sqlite3.connect(db) as con:
        con.execute("UPDATE moves SET notation = 'bogus' WHERE match_id = 7 AND ply = 2")
    hw, frames = open_table()
    try:
        with Store(db) as store:
            runtime = Runtime(hw, store, SETTLE_MS).start()
            assert runtime.session is None and runtime.setup is not None
            assert "Match 7 could not be resumed" in runtime.notice.text
            assert "set aside as damaged" in runtime.notice.text
            record = store.match(7)
            assert record.damaged and "bogus" in record.damaged and len(record.moves) > 2  # kept
            assert store.unfinished() is None
    finally:
        hw.close()
    assert cli.main(["history", "--db", str(db)]) == 0
    assert "damaged, set aside: " in capsys.readouterr().out
