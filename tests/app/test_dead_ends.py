"""Newcomer dead ends, each tried as a new user would and closed: `tray sim` as the tray of
`run`, keys whatever the tray, the bot demo never touching a real match, `history` after the
quick start, a transcript instead of block art in a pipe, read-only databases, a stored match
that no longer replays, and bad input that gave a traceback instead of one line and exit 2."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
import subprocess
import threading

import pytest
from dominotable.app import demo as bots
from dominotable.app.cli import main
from dominotable.app.commands.tray import sim_command
from dominotable.app.config import Config, DisplayConfig, TrayConfig
from dominotable.app.demo import demo_choice
from dominotable.app.hardware import Keyboard, open_hardware
from dominotable.games import catalog
from dominotable.rules.tiles import DominoSet
from dominotable.store.storage import Store
from dominotable.tray.errors import TrayError
from dominotable.tray.tags import Registry
from dominotable.tray.virtual import VirtualTray
from dominotable.ui.press import Press
from dominotable.views.ratings import rate
from dominotray import wire
from support import damage
from support.polling import until

# --- tray sim as the tray of `run`; keys whatever the tray -----------------------------------


def test_a_virtual_tray_says_so_in_its_hello_and_run_reads_its_tags():
    """`dominotable tray sim` in one terminal, `run` with `[tray] port` set to its path in
    another: the HELLO's board id says "virtual", so the table names the tiles from the virtual
    tag set instead of "unknown tag" from the (empty) enrolled registry."""
    assert wire.Hello(1, (0, 1, 0), b"virtual0", 0, []).virtual
    assert not wire.Hello(1, (0, 1, 0), bytes.fromhex("e6614c311b4d2a21"), 0, []).virtual
    with VirtualTray(Registry.virtual(DominoSet(12)), speed=8) as sim:  # what `tray sim` runs
        hw = open_hardware(Config(tray=TrayConfig(port=sim.path), display=DisplayConfig(terminal=False)))
        try:
            assert not hw.simulated and hw.tray.link.hello.virtual
            sim.place("3-5", 35, "down")
            sim.place("11-12", 40)  # the sim carries every set's tiles
            board = lambda: hw.board(tuple(hw.tray.link.cells))  # noqa: E731 (as a link event carries them)
            assert until(lambda: board() is not None and {str(p.tile) for p in board().placements} == {"3-5", "11-12"},
                         timeout=10)
            assert not board().problems()  # no "unknown tag"
            assert hw.buttons() is not None  # the keyboard's buttons, whatever the tray
        finally:
            hw.close()


def test_keys_press_the_buttons_and_q_quits_without_bots():
    """With a tray that is not the built-in one there are no bots (`b`), but Enter, the arrows
    and q work as ever."""
    hw = open_hardware(Config(tray=TrayConfig(port="none"), display=DisplayConfig(terminal=False)))
    master, slave = os.openpty()
    quit_seen = threading.Event()
    try:
        with os.fdopen(slave, "r") as stream:
            keyboard = Keyboard(hw.buttons(), quit_seen.set, bots=None, stream=stream).start()
            for key in (b"\r", b"b", b"\x1b[A", b"q"):
                os.write(master, key)
            assert quit_seen.wait(5)  # q read last: every key before it was handled
            keyboard.close()
        got = []
        while not hw.events.empty():
            item = hw.events.get()
            if isinstance(item, Press):
                got.append(item)
        assert got == [Press.SELECT, Press.UP]  # `b` did nothing: no bots
    finally:
        os.close(master)
        hw.close()


# --- the bot demo, history after it, the transcript ------------------------------------------


@pytest.fixture
def quick_demo(monkeypatch):
    """`run` without a terminal: its demo match is Up-Down-Stop, the quickest game."""
    monkeypatch.setattr(bots, "demo_choice", lambda: demo_choice("up-down-stop"))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))


def test_the_bot_demo_never_touches_a_real_match(tmp_path, quick_demo, capsys):
    """`run --db FILE` without a terminal used to let the bots resume and finish the real
    unfinished match in FILE. Now the demo plays a new match marked as a demo; the real one is
    untouched and still the one the table resumes, and the leaderboard leaves the demo out."""
    db = tmp_path / "bar.sqlite3"
    damage.build(db, 7)  # match 7: a real match cut off halfway
    with Store(db) as store:
        before = store.match(7)
    frames = tmp_path / "frames"
    assert main(["run", "--db", str(db), "--frames", str(frames)]) == 0
    out = capsys.readouterr().out
    assert f"recorded as demo match 8 in {db}; its moves: dominotable history --db {db} 8" in out
    assert any(frames.iterdir())  # frames only when asked for
    with Store(db) as store:
        assert store.match(7) == before and store.unfinished() == 7
        demo = store.match(8)
        assert demo.demo and demo.finished and demo.names == ["ANN"]
        assert store.unfinished(demo=True) is None
        assert "ANN" not in [p.name for board in rate(store.matches()) for p in board.players]  # the ratings
    assert main(["history", "--db", str(db)]) == 0
    assert " 8  up-down-stop" in (listing := capsys.readouterr().out) and "demo: won by ANN" in listing


def test_after_the_quick_start_history_shows_the_demo_and_the_log_is_a_transcript(quick_demo, capsys):
    """The README's first command, in a pipe: no block art (a few dozen text lines instead of
    about a thousand), the match in the default database, and `history` finds it there."""
    assert main(["history"]) == 2
    assert "no database at" in (err := capsys.readouterr().err) and "`dominotable run`" in err
    assert main([]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert not any(c in out for c in "\u2580\u2584\u2588\u2800")  # no half blocks, no Braille
    assert len(lines) < 80
    assert any(line.startswith("ANN ") and "| ANN " in line for line in lines)  # plays in words, with the score
    assert any(line.startswith("! ") for line in lines)  # prompts
    assert "recorded as demo match 1 in " in out and out.rstrip().endswith("dominotable history 1")
    assert main(["history"]) == 0
    assert "demo: won by ANN" in capsys.readouterr().out
    assert main(["history", "1"]) == 0 and "ANN" in capsys.readouterr().out


# --- read-only databases ---------------------------------------------------------------------


@contextlib.contextmanager
def read_only_folder(path):
    """`path` made read-only for this process: a read-only mount when running as root (root
    writes through permission bits), permission bits otherwise."""
    if os.geteuid() != 0:
        os.chmod(path, 0o555)
        try:
            yield
        finally:
            os.chmod(path, 0o755)
        return
    copy = path.with_name(path.name + "-files")
    path.rename(copy)
    path.mkdir()
    try:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(path)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.fail(f"running as root, this test needs to mount a read-only tmpfs (CAP_SYS_ADMIN): {exc}")
    try:
        for item in copy.iterdir():
            (path / item.name).write_bytes(item.read_bytes())
        subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(path)], check=True)


def test_a_read_only_database_is_read_by_history_and_refused_by_run_with_the_reason(tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "t.sqlite3"
    damage.build(db, 3)
    with read_only_folder(folder):
        assert main(["history", "--db", str(db)]) == 0
        assert "won by" in capsys.readouterr().out
        assert main(["leaderboard", "--db", str(db)]) == 0
        assert "Ann" in capsys.readouterr().out
        assert main(["run", "--db", str(db), "--demo"]) == 2
        err = capsys.readouterr().err
        assert "read-only" in err and "unable to open" not in err and len(err.splitlines()) == 1
        assert sorted(p.name for p in folder.iterdir()) == ["t.sqlite3"]  # nothing written beside it


# --- bad input: one line and exit 2 ----------------------------------------------------------


def one_line_exit_2(argv, capsys, *expected):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for text in expected:
        assert text in err, err


@pytest.mark.parametrize("argv, expected", [
    (["demo", "--frames", "/etc/passwd/x", "up-down-stop"], "cannot write frames into /etc/passwd/x"),
    (["demo", "--speed", "0"], "--speed: 0 is out of range (times real time: 0.1 to 1000)"),
    (["demo", "--speed", "-3"], "out of range"),
    (["demo", "--speed", "nan"], "out of range"),
    (["demo", "up-down-stop", "--speed", "0"], "out of range"),
    (["demo", "--settle-ms", "999999"], "--settle-ms: 999999 is out of range (milliseconds: 0 to 10000)"),
    (["demo", "--settle-ms", "-5"], "out of range"),
    (["tray", "sim", "--speed", "0"], "--speed: 0 is out of range (virtual ms per wall ms: 0.1 to 1000)"),
])
def test_bad_numbers_and_folders_are_one_line_naming_the_valid_range(argv, expected, capsys):
    one_line_exit_2(argv, capsys, expected)


def test_an_unwritable_frames_folder_in_the_config(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text('[display]\nframes = "/etc/passwd/x"\n')
    one_line_exit_2(["run", "--config", str(config), "--db", str(tmp_path / "t.db")], capsys,
                    "cannot write frames into /etc/passwd/x")


def corrupt_schema_text(db):
    data = bytearray(db.read_bytes())
    at = data.index(b"-- JSON")
    data[at + 3:at + 5] = b"\xff\xfe"  # not UTF-8, in the CREATE TABLE text SQLite keeps
    db.write_bytes(bytes(data))


def test_schema_text_that_is_not_utf8_is_read_not_a_traceback(tmp_path, capsys):
    db = tmp_path / "t.sqlite3"
    damage.build(db, 2)
    corrupt_schema_text(db)
    assert main(["history", "--db", str(db)]) == 0 and "won by" in capsys.readouterr().out
    assert main(["leaderboard", "--db", str(db)]) == 0 and "Ann" in capsys.readouterr().out
    with Store(db) as store:  # what `run` opens: it works as ever
        assert len(store.matches()) == 2


def test_a_stored_match_whose_options_are_not_json(tmp_path, capsys):
    db = tmp_path / "t.sqlite3"
    damage.build(db, 2)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE matches SET options = '{not json' WHERE id = 1")
    assert main(["history", "--db", str(db)]) == 0
    assert "damaged" in capsys.readouterr().out  # the other match is listed as ever
    one_line_exit_2(["history", "--db", str(db), "1"], capsys, "match 1 is damaged")
    one_line_exit_2(["history", "--db", str(db), "--export", "1"], capsys, "match 1 is damaged")
    assert main(["leaderboard", "--db", str(db)]) == 0


@pytest.fixture
def exported(tmp_path, capsys):
    db = tmp_path / "t.sqlite3"
    damage.build(db, 7)
    assert main(["history", "--db", str(db), "--export", "7"]) == 0  # an unfinished match
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("field, value, expected", [
    ("players", "four", 'players must be a whole number of seats, not "four"'),
    ("seed", 1.5, "seed must be a whole number, not 1.5"),
    ("options", [], "options must be an object of rule options"),
    ("game", None, "game must be a game's name"),
])
def test_replay_of_a_file_with_a_bad_field_names_the_field(exported, field, value, expected, tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({**exported, field: value}))
    one_line_exit_2(["replay", str(path)], capsys, expected)


def test_replay_of_an_unfinished_match_with_a_result_that_is_not_an_object(exported, tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({**exported, "result": "zzz"}))
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("; unfinished")


def test_demo_help_lists_every_game(capsys):
    assert main(["demo", "--help"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in catalog.names())
    assert "rule options" not in out  # not one game's flags: those come with `demo GAME --help`


# --- tray sim: probabilities in range, a slide off the grid refused ---------------------------


@pytest.fixture(scope="module")
def sim():
    with VirtualTray(Registry.virtual(DominoSet(12)), speed=8) as tray:
        yield tray


@pytest.mark.parametrize("line, expected", [
    ("noise 2", "noise takes a probability from 0 to 1, not 2"),
    ("noise -0.1", "from 0 to 1"),
    ("flicker 6 1.5", "flicker takes a probability from 0 to 1, not 1.5"),
    ("crc 7 -1", "crc takes a count of replies from 0 to 1000000, not -1"),
])
def test_sim_refuses_numbers_out_of_range(sim, line, expected):
    with pytest.raises(TrayError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        sim_command(sim, line)
    assert sim.to_host.drop == 0


def test_sim_refuses_a_slide_off_the_grid_and_the_tile_stays(sim):
    sim_command(sim, "place 3-5 r0c14")
    before = sim.where("3-5")
    with pytest.raises(TrayError, match="off the 16x12 grid"):
        sim_command(sim, "slide 3-5 r0c15")  # facing right: the second half would be off the tray
    assert sim.where("3-5") == before
    assert [uid for _, uid in sim.cells()][before[0]] == sim.uid(sim._tile_halves("3-5")[1])
    sim_command(sim, "remove 3-5")
