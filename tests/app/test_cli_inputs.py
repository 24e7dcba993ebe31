"""Every file a command reads is looked at before it is read (dominotable/inputs.py): devices and
FIFOs refused by type, files over their size refused unread, brackets nested too deep refused
before a parser recurses; each is one line on stderr and exit 2 (issue 17, inputs).

`replay /dev/zero` and `--config /dev/zero` hung: they run as real processes with a timeout."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest
from dominotable import inputs
from dominotable.app import cli
from dominotable.tray import geometry
from dominotable.tray.errors import TrayError
from dominotable.tray.tags import Registry


def one_line_exit_2(argv, capsys, *expected):
    """`dominotable argv` in this process, given 10 s: one line naming the problem, exit 2."""
    result = []
    worker = threading.Thread(target=lambda: result.append(cli.main(argv)), daemon=True)
    worker.start()
    worker.join(10)
    assert result, f"dominotable {' '.join(argv)} did not end within 10 s"
    err = capsys.readouterr().err
    assert result == [2] and len(err.splitlines()) == 1 and "Traceback" not in err, (result, err)
    for text in expected:
        assert text in err, err


@pytest.mark.parametrize("argv, expected", [
    (["replay", "/dev/zero"], "dominotable replay: error: /dev/zero: not a saved game: it is a character device"),
    (["run", "--config", "/dev/zero"], "dominotable run: error: config file /dev/zero is a character device, "
                                       "not a file"),
], ids=["replay", "config"])
def test_dev_zero_is_refused_at_once_not_read_forever(argv, expected):
    done = subprocess.run([sys.executable, "-m", "dominotable", *argv], capture_output=True, text=True,
                          timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stderr.startswith(expected), done.stderr
    assert len(done.stderr.splitlines()) == 1 and not done.stdout


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)  # opening it to read would wait for a writer that never comes
    return path


def test_fifos_folders_and_devices_are_refused_by_type(fifo, tmp_path, capsys):
    one_line_exit_2(["replay", str(fifo)], capsys, f"{fifo}: not a saved game: it is a FIFO (named pipe), not a file")
    one_line_exit_2(["history", "--config", str(fifo)], capsys, f"config file {fifo} is a FIFO (named pipe)")
    one_line_exit_2(["leaderboard", "--config", str(tmp_path)], capsys, f"config file {tmp_path} is a folder")
    one_line_exit_2(["history", "--db", str(fifo)], capsys, f"{fifo} is not a database: it is a FIFO (named pipe)")
    for load in (Registry.load, geometry.load):
        for path in (fifo, "/dev/zero"):
            with pytest.raises(TrayError, match="not a file"):
                load(path)


def test_files_over_their_size_are_refused_unread(tmp_path, capsys):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(inputs.MATCH + 1)  # sparse: refused by its size, so never read
    one_line_exit_2(["replay", str(big)], capsys, "not a saved game: it is 4 MB, more than the 4 MB it may be")
    config = tmp_path / "config.toml"
    with open(config, "wb") as f:
        f.truncate(inputs.SMALL + 1)
    one_line_exit_2(["run", "--config", str(config)], capsys, f"config file {config} is 1 MB, more than the 1 MB")
    tags = tmp_path / "tags.json"
    tags.write_text('{"format": 1, "set": 6, "tags": {' + ", ".join(f'"{i:014x}": ["1-2", 0]' for i in range(40000))
                    + "}}")
    with pytest.raises(TrayError, match="more than the 1 MB it may be"):
        Registry.load(tags)


def test_brackets_nested_too_deep_are_refused_without_recursing(tmp_path, capsys):
    """15,000 `[` made the parsers recurse into a RecursionError (replay's traceback); a
    configuration nests two deep, an export four: the limits are 16 and 32."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 15000 + "]" * 15000)
    one_line_exit_2(["replay", str(deep)], capsys, "not a saved game: it nests brackets more than 32 deep")
    config = tmp_path / "deep.toml"
    config.write_text("[game]\nsettle_ms = " + "[" * 15000 + "]" * 15000 + "\n")
    one_line_exit_2(["history", "--config", str(config)], capsys, "nests brackets more than 16 deep")
    tags = tmp_path / "tags.json"
    tags.write_text('{"tags": ' + "{" * 5000 + "}" * 5000 + "}")
    with pytest.raises(TrayError, match="nests brackets more than 32 deep"):
        Registry.load(tags)
    # brackets in strings and comments are not nesting; a file cut short is named as that
    assert inputs.parse_json('{"a": "' + "[" * 100 + '"}') == {"a": "[" * 100}
    config.write_text('[web]\ntoken = "' + "[" * 100 + "'''\"  # " + "{" * 100 + "\n")
    assert cli.main(["history", "--config", str(config), "--db", str(tmp_path / "none.db")]) == 2
    assert "no database at" in capsys.readouterr().err
    cut = tmp_path / "cut.json"
    cut.write_text('{"game": "castle-rock", "moves": ["1-2", ')
    one_line_exit_2(["replay", str(cut)], capsys, "not a saved game: it is not JSON: Expecting value")


def test_a_number_too_long_to_convert_is_one_line(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text('{"game": "castle-rock", "players": 2, "seed": ' + "7" * 5000 + ', "moves": []}')
    one_line_exit_2(["replay", str(path)], capsys, "not a saved game: it is not JSON: Exceeds the limit")


def test_a_stdin_line_without_end_is_refused_in_pieces(capsys, monkeypatch):
    """`solve --row -` reads rows from stdin: a line of /dev/zero's length is not held in memory."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("\0" * 200_000 + "\n1-2 2-3\n"))
    assert cli.main(["solve", "castle-rock", "--row", "-"]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines == ['{"error": "a line longer than 64 KB is not a row"}',
                     '{"clearable": false, "max_captured": 0, "plan": []}']


def test_a_match_number_sqlite_cannot_hold_is_no_match(tmp_path, capsys):
    from dominotable.store.storage import Store

    Store(tmp_path / "t.db").close()
    for argv in (["history", "99999999999999999999"], ["history", "--export", "-99999999999999999999"]):
        one_line_exit_2([*argv, "--db", str(tmp_path / "t.db")], capsys, "no match")
