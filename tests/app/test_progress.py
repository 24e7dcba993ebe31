"""Long commands show a progress bar on a terminal (tqdm on standard error) and nothing more
anywhere else; what they print on standard output is the same either way."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import termios

import pytest
from dominotable.app.cli import main
from dominotable.tray.enroll import arrangement
from dominotable.tray.geometry import default
from dominotable.tray.tags import Registry


def run(argv, monkeypatch, capsys, tty: bool) -> tuple[str, str]:
    """The command's standard output, and what its standard error got: a pty's (tty) or a pipe's."""
    capsys.readouterr()
    if not tty:
        assert main(argv) == 0
        out = capsys.readouterr()
        return out.out, out.err
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    stream = os.fdopen(slave, "w")
    monkeypatch.setattr("sys.stderr", stream)
    try:
        assert main(argv) == 0
        stream.flush()
        os.set_blocking(master, False)
        err = b""
        while True:
            try:
                err += os.read(master, 1 << 16)
            except BlockingIOError:
                break
        err = err.decode()
    finally:
        monkeypatch.undo()
        stream.close()
        os.close(master)
    return capsys.readouterr().out, err


@pytest.mark.parametrize("argv, done, unit", [
    (["stats", "castle-rock-solitaire", "--deals", "40", "--strategy", "greedy"], "40/40", "deals"),
    (["tournament", "up-down-stop", "--bots", "greedy,random", "--matches", "6", "--processes", "2"], "6/6", "matches"),
])
def test_long_commands_show_a_bar_on_a_terminal_only(argv, done, unit, monkeypatch, capsys):
    piped_out, piped_err = run(argv, monkeypatch, capsys, tty=False)
    tty_out, tty_err = run(argv, monkeypatch, capsys, tty=True)
    assert piped_err == "" and piped_out  # a pipe or a log: nothing but the result
    assert f" 0/{done.split('/')[1]} " in tty_err and "100%" in tty_err and f"| {done} " in tty_err
    assert f" {unit}/s]" in tty_err and "\r" in tty_err  # drawn over in place
    assert tty_out == piped_out


def test_enroll_layout_shows_its_snapshots_on_a_terminal_only(vtray, tmp_path, monkeypatch, capsys):
    reg = Registry(tmp_path / "tags.json")
    for half, cell in arrangement(reg, default()).items():
        if half.side == 0:
            vtray.place(half.tile, at=cell)
    monkeypatch.setattr("sys.stdin", open("/dev/null"))
    argv = ["enroll", "layout", "--port", vtray.path, "--tags", str(reg.path), "--votes", "3", "--settle", "0.3"]
    piped_out, piped_err = run(argv, monkeypatch, capsys, tty=False)
    monkeypatch.setattr("sys.stdin", open("/dev/null"))
    tty_out, tty_err = run(argv, monkeypatch, capsys, tty=True)
    assert piped_err == "" and "enrolled: 56 tags" in piped_out
    assert "| 3/3 " in tty_err and " snapshots/s]" in tty_err
    assert tty_out.replace("56 new", "0 new") == piped_out.replace("56 new", "0 new")
