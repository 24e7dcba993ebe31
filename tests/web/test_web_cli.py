"""`dominotable run --http` and `dominotable demo --http` as a user starts them: the URL printed,
the page served until SIGTERM or SIGINT, then a clean exit; an address already taken, asked for
explicitly, is one line and exit 2."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from support.polling import until
from support.web_table import lan_address, post

URL = re.compile(r"the table page: (http://\S+/)")


def start(tmp_path, *argv):
    config = tmp_path / "config.toml"
    config.write_text('[tray]\nport = "none"\n[display]\nterminal = false\n[game]\nsettle_ms = 50\n')
    return subprocess.Popen([sys.executable, "-m", "dominotable", *argv, "--config", str(config)]
                            if argv[0] == "run" else [sys.executable, "-m", "dominotable", *argv],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def read_until(proc, pattern, timeout=30.0):
    deadline, lines = time.monotonic() + timeout, []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        found = pattern.search(line) if hasattr(pattern, "search") else pattern in line and line
        if found:
            return found, lines
    proc.kill()
    raise AssertionError(f"never printed {pattern!r}; got {lines} / {proc.stderr.read()[-2000:]}")


def state(url):
    with urllib.request.urlopen(url + "api/state", timeout=10) as response:
        return json.loads(response.read())


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_run_with_http_serves_without_a_terminal_until_a_signal(tmp_path, sig):
    proc = start(tmp_path, "run", "--db", str(tmp_path / "t.sqlite3"), "--http", "127.0.0.1:0")
    try:
        found, _ = read_until(proc, URL)
        url = found[1]
        assert state(url)["virtual"] is True and state(url)["controls"] is True
        _, said = read_until(proc, "the browser is the controls")
        assert not [line for line in said if "warning" in line]  # on loopback: nothing to warn of
        # no bots' match, no exit: the browser is the controls, and the table answers it
        assert state(url)["controls"] is True and proc.poll() is None
        proc.send_signal(sig)
        assert proc.wait(timeout=15) == 0, proc.stderr.read()
        assert "Traceback" not in proc.stderr.read()
    finally:
        proc.kill()


def test_a_page_open_to_other_machines_without_a_token_warns_and_is_read_only_for_them(tmp_path):
    """Bound to a LAN address with no [web] token: one warning line at start; other machines
    watch (the state, the page) but their controls are refused."""
    address = lan_address()
    proc = start(tmp_path, "run", "--db", str(tmp_path / "t.sqlite3"), "--http", f"{address}:0")
    try:
        url = read_until(proc, URL)[0][1]
        assert url.startswith(f"http://{address}:")
        assert state(url)["controls"] is False  # this test's requests come from the LAN address
        assert post(url, "api/button", {"button": "select"})[0] == 403
        _, said = read_until(proc, "the browser is the controls")  # (said once SIGTERM ends the table cleanly)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        warnings = [line.rstrip("\n") for line in said if line.startswith("warning")]
        assert warnings == [f"warning: the table page on {address} is open to other machines without a [web] token: "
                            "they can watch but not control the table (only this machine can); set token in the "
                            "[web] section to let staff control it from a phone"]
    finally:
        proc.kill()


def test_demo_with_http_stays_up_after_the_match(tmp_path):
    proc = start(tmp_path, "demo", "castle-rock-solitaire", "--quiet", "--seed", "2", "--settle-ms", "30",
                 "--speed", "20", "--http", "127.0.0.1:0", "--db", str(tmp_path / "demo.sqlite3"))
    try:
        found, _ = read_until(proc, URL)
        url = found[1]
        read_until(proc, "the page stays up", timeout=90)
        assert state(url)["screen"]["game"]["mode"] == "over"
        assert state(url)["stopped"] == "the table has stopped: the page shows how it was left"  # its controls off
        with urllib.request.urlopen(url + "api/history", timeout=10) as response:
            assert json.loads(response.read())[0]["finished"] is not None
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        proc.kill()


def test_an_address_in_use_asked_for_is_one_line_and_exit_2(tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port = taken.getsockname()[1]
        proc = start(tmp_path, "run", "--db", str(tmp_path / "t.sqlite3"), "--http", f"127.0.0.1:{port}")
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 2, (out, err)
        assert err.strip().count("\n") == 0 and f"cannot serve the table page on 127.0.0.1:{port}" in err
    finally:
        taken.close()


def test_bad_http_option_is_exit_2(tmp_path):
    proc = start(tmp_path, "run", "--http", "nowhere")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "is not HOST:PORT" in err


def test_a_newcomer_opens_the_printed_page_chooses_a_game_and_plays_by_hand(tmp_path):
    """`run --http` as the browser drives it: the setup menu through the page's buttons (Castle
    Rock Solitaire, Start, the offered name), then a tile laid by hand at the row's open end is
    the player's draw (observed mode: the tile shown is the tile drawn)."""
    proc = start(tmp_path, "run", "--db", str(tmp_path / "t.sqlite3"), "--http", "127.0.0.1:0")
    try:
        url = read_until(proc, URL)[0][1]

        def shows(check, what):
            assert until(lambda: check(state(url)), 20), f"waited for {what}: {state(url)['screen']!r}"

        shows(lambda s: (s["screen"].get("menu") or {}).get("title") == "Choose a game", "the setup menu")
        for button in ("down", "down", "select", "up", "select", "long-select"):
            assert post(url, "api/button", {"button": button}) == (200, {"ok": True})
        shows(lambda s: (s["screen"].get("game") or {}).get("name") == "castle-rock-solitaire"
              and s["screen"]["game"]["mode"] == "play", "the match")
        answer = post(url, "api/tray", {"action": "place", "tile": "3-5", "cells": [64, 80]})  # upright at r4c0-r5c0
        assert answer == (200, {"ok": True})
        shows(lambda s: s["screen"]["game"]["moves"] == 1, "the draw read")
        now = state(url)
        assert now["screen"]["last"]["what"] == "draw 3-5" and now["tray"] == [{"tile": "3-5", "cells": [64, 80], "text": "3-5 on r4c0 and r5c0"}]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        proc.kill()


def test_a_damaged_database_is_said_on_the_page(tmp_path):
    """The table starts on a fresh database when its file is damaged (app/recovery.py); the page
    says so, in its prompt as on the OLED and in its repairs, until a button is pressed."""
    from support import damage

    db = tmp_path / "t.sqlite3"
    damage.build(db, 3)
    damage.damage(db, "page")  # a page in the middle overwritten
    proc = start(tmp_path, "run", "--db", str(db), "--http", "127.0.0.1:0")
    try:
        url = read_until(proc, URL)[0][1]
        assert until(lambda: state(url)["screen"].get("kind") is not None, 10)  # the table starting
        now = state(url)
        assert now["repairs"] and now["screen"]["title"] == "Repaired" and now["screen"]["text"] == " ".join(now["repairs"])
        assert post(url, "api/button", {"button": "select"}) == (200, {"ok": True})
        assert until(lambda: state(url)["screen"]["title"] != "Repaired", 10)
        assert state(url)["screen"]["menu"]["title"] == "Choose a game" and state(url)["repairs"] == now["repairs"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        proc.kill()
