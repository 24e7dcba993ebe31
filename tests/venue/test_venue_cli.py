"""The venue's commands: `dominotable venue`, and `demo`/`run` with `--broker` (real processes, a
real Mosquitto); bad input exits 2 naming the problem."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request

import pytest
from dominotable.app import config
from dominotable.app.cli import main
from dominotable.app.config import ConfigError
from support.broker import free_port
from support.polling import until


def api(port: int, path: str):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            return json.loads(response.read())
    except OSError:
        return None


def test_a_demo_table_publishes_its_match_to_a_venue_process(tmp_path, mosquitto):
    port = free_port()
    venue = subprocess.Popen([sys.executable, "-m", "dominotable", "venue", "--broker", mosquitto.url("venue"),
                              "--db", str(tmp_path / "venue.sqlite3"), "--http", f"127.0.0.1:{port}"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert until(lambda: (api(port, "/api/tables") or {}).get("broker"), 15), venue.stderr.read()
        demo = subprocess.run([sys.executable, "-m", "dominotable", "demo", "castle-rock", "--broker",
                               mosquitto.url("t1"), "--table", "t1", "--db", str(tmp_path / "t1.sqlite3"), "--quiet",
                               "--speed", "100"], capture_output=True, text=True, timeout=90)
        assert demo.returncode == 0, demo.stderr
        assert "table t1 publishes to mqtt://t1@127.0.0.1" in demo.stdout and "waiting" not in demo.stderr
        (match,) = api(port, "/api/matches")  # the demo waited for the venue to keep it
        assert (match["table"], match["demo"], match["winners"]) == ("t1", True, ["BOB"]), {k: v for k, v in match.items() if k != "plot"}
        (table,) = api(port, "/api/tables")["tables"]
        assert table["table"] == "t1" and table["state"]["kind"] == "over"
        assert [side["name"] for side in table["state"]["scores"]] == ["ANN", "BOB"]
        assert api(port, "/api/leaderboard") == []  # a bots' demo is not rated
    finally:
        venue.send_signal(signal.SIGTERM)
        out, err = venue.communicate(timeout=20)
    assert venue.returncode == 0, err
    assert f"the venue: http://127.0.0.1:{port}/" in out


@pytest.mark.parametrize("argv, says", [
    (["venue", "--http", "127.0.0.1:0"], "the venue needs its broker"),
    (["venue", "--broker", "http://x"], "is not mqtt://"),
    (["demo", "--broker", "mqtt://127.0.0.1:1", "--table", "a/b", "--quiet"], "table id 'a/b'"),
    (["demo", "--broker", "mqtt://127.0.0.1:1", "--quiet"], "needs its id: --table ID"),
    (["demo", "--table", "t1", "--quiet"], "give the venue's broker too"),
])
def test_bad_venue_arguments_exit_2_naming_the_problem(argv, says, capsys, tmp_path):
    assert main([*argv, *(["--db", str(tmp_path / "t.sqlite3")] if argv[0] == "demo" else [])]) == 2
    assert says in capsys.readouterr().err


def test_the_venue_section_of_the_configuration(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[venue]\nbroker = "mqtts://venue.local"\ntable = "bar-1"\nca = "ca.pem"\n')
    cfg = config.load(path).venue
    assert (cfg.broker, cfg.table, cfg.ca) == ("mqtts://venue.local", "bar-1", str(tmp_path / "ca.pem"))
    for bad, says in (('broker = "venue.local"', "venue.broker"), ('table = "bar 1"', "venue.table"),
                      ('partner = "bar/2"', "venue.partner")):
        path.write_text(f"[venue]\n{bad}\n")
        with pytest.raises(ConfigError, match=says):
            config.load(path)


def test_a_partner_table_needs_the_broker_and_another_table():
    from dominotable.app.venue import start_link
    from dominotable.venue.broker import BrokerError

    with pytest.raises(BrokerError, match="a partner table is at a venue: give the venue's broker too"):
        start_link(None, config.VenueConfig(partner="bar-2"))
    with pytest.raises(BrokerError, match="table bar-1 cannot be its own partner"):
        start_link(None, config.VenueConfig(broker="mqtt://127.0.0.1:1", table="bar-1"), partner="bar-1")


def test_the_live_state_a_venue_sees_is_the_screen_less_the_tray():
    from dominotable.app.venue import live_state
    from dominotable.rules.tiles import DOUBLE_SIX
    from dominotable.ui.screen import Game, Score, Screen, ScreenKind

    screen = Screen(ScreenKind.PLAY, turn="Bob", scores=(Score("Ann", 3), Score("Bob", 5, True)),
                    game=Game("castle-rock", "Castle Rock", 7, 12, "play"), tray=((DOUBLE_SIX.parse("3-5"), (4, 5)),))
    state = live_state(screen)
    assert json.loads(json.dumps(state)) == state and "tray" not in state and "menu" not in state
    assert (state["game"]["title"], state["game"]["match"], state["turn"]) == ("Castle Rock", 7, "Bob")
    assert state["scores"] == [{"name": "Ann", "points": 3, "to_move": False}, {"name": "Bob", "points": 5, "to_move": True}]
