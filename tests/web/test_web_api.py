"""The table's JSON API (ui/web/server.py, app/web.py) over real HTTP on loopback: the state, the
OLED frame, tray actions through the virtual tray, buttons, faults; every malformed request
refused with a 400 naming the problem and the tray and engine unchanged; controls from another
machine refused with a 403 unless they carry the configured token; spectators read-only."""

from __future__ import annotations

import io
import json
import re

import pytest
from dominotable.app.config import listen_address
from dominotable.match.status import Mode
from PIL import Image
from support.web_table import LiveTable, lan_address


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    table = LiveTable(tmp_path_factory.mktemp("web") / "table.sqlite3", "castle-rock")
    yield table
    table.close()


def picture(table):
    """Everything a refusal must leave alone: the tiles on the tray, what its readers see, the engine."""
    with table.runtime.lock:
        game = table.referee.game.to_dict()
    return table.vtray.tiles(), table.vtray.cells(), game


def test_state_names_game_turn_scores_tray_and_pad(table):
    table.reaches(lambda c: c.status.mode in (Mode.PLAY, Mode.RESTORE), "the match started")
    status, state = table.get("/api/state")
    assert status == 200
    screen = state["screen"]
    assert screen["game"]["name"] == "castle-rock" and state["virtual"] is True and state["controls"] is True
    assert [s["name"] for s in screen["scores"]] == ["ANN", "BOB"] and all(s["points"] == 0 for s in screen["scores"])
    assert state["tray"] == [] and state["pad"] is None
    assert isinstance(screen["turn"], str) and isinstance(screen["text"], str)
    assert len(state["off_tray"]) == 28  # the double-six set, none on the tray


def test_the_trays_cells_and_zones_are_fetched_apart_from_the_updates(table):
    """The state names the drawing of the cells and the game's zones (it changes once a game),
    and the updates carry only what changes with a play."""
    table.reaches(lambda c: c.status.mode in (Mode.PLAY, Mode.RESTORE), "the match started")
    state = table.get("/api/state")[1]
    assert "svg" not in state and state["screen"]["game"]["zones"]
    status, picture = table.get(state["base"])
    assert status == 200 and picture.startswith(b"<svg")
    labels = table.vtray.geometry.labels
    assert all(f'>{labels[zone]}<'.encode() in picture for zone in state["screen"]["game"]["zones"])
    assert b">castle-row<" not in picture  # zones are named as people call them; the id is only data
    assert len(json.dumps(state)) < len(picture)
    status, answer = table.get("/tray.svg?zones=castle-row,nowhere")
    assert status == 400 and "no zone 'nowhere'" in answer["error"]


def test_oled_png_is_the_frame_the_display_was_sent(table):
    table.reaches(lambda c: True, "the table")
    status, body = table.get("/oled.png")
    assert status == 200
    image = Image.open(io.BytesIO(body))
    assert image.size == (128, 64)
    assert image.convert("1").tobytes() == table.frames.images[-1].convert("1").tobytes()


def test_a_tile_placed_and_taken_through_the_api_reaches_the_settled_board(table):
    status, answer = table.post("/api/tray", {"action": "place", "tile": "5-3", "cells": [100, 101]})
    assert (status, answer) == (200, {"ok": True})
    table.reaches(lambda c: c.tracker.settled is not None and c.tracker.settled.at(100) is not None, "the tile read")
    status, state = table.get("/api/state")
    assert {"tile": "3-5", "cells": [101, 100], "text": "3-5 on r6c5 and r6c4"} in state["tray"]  # the 5 on 100
    assert "3-5" not in state["off_tray"]
    assert table.post("/api/tray", {"action": "slide", "tile": "3-5", "cells": [116, 117]})[0] == 200
    assert table.vtray.tiles()[table.vtray.dominoes.parse("3-5")] == (116, 117)
    assert table.post("/api/tray", {"action": "remove", "tile": "3-5"})[0] == 200
    assert table.post("/api/tray", {"action": "pad", "tile": "6-6"})[0] == 200
    table.reaches(lambda c: c.tracker.settled is not None and c.tracker.settled.on_pad() is not None, "the tile on the pad")
    assert table.get("/api/state")[1]["pad"] == "6-6"
    assert table.post("/api/tray", {"action": "unpad", "tile": "6-6"})[0] == 200
    table.reaches(lambda c: c.tracker.settled is not None and c.tracker.settled.on_pad() is None and not c.tracker.settled.placements,
                "the tray empty again")


MALFORMED = [
    ("/api/tray", b"{not json", "not JSON"),
    ("/api/tray", b"\xff\xfe", "not JSON"),
    ("/api/tray", [1, 2], "JSON object"),
    ("/api/tray", {"action": "fly", "tile": "1-2"}, "action must be one of"),
    ("/api/tray", {"tile": "1-2", "cells": [0, 1]}, "action must be one of"),
    ("/api/tray", {"action": "place", "tile": "7-9", "cells": [0, 1]}, "unknown tile"),
    ("/api/tray", {"action": "place", "tile": "banana", "cells": [0, 1]}, "unknown tile"),
    ("/api/tray", {"action": "place", "tile": 35, "cells": [0, 1]}, "tile must be written like"),
    ("/api/tray", {"action": "place", "tile": "1-2"}, "cells must be two cell numbers"),
    ("/api/tray", {"action": "place", "tile": "1-2", "cells": [0]}, "cells must be two cell numbers"),
    ("/api/tray", {"action": "place", "tile": "1-2", "cells": ["a", "b"]}, "cells must be two cell numbers"),
    ("/api/tray", {"action": "place", "tile": "1-2", "cells": [True, False]}, "cells must be two cell numbers"),
    ("/api/tray", {"action": "place", "tile": "1-2", "cells": [500, 501]}, "cell 500 does not exist"),
    ("/api/tray", {"action": "place", "tile": "1-2", "cells": [-1, 0]}, "cell -1 does not exist"),
    ("/api/tray", {"action": "place", "tile": "1-2", "cells": [0, 5]}, "would not touch"),
    ("/api/tray", {"action": "place", "tile": "1-2", "cells": [15, 16]}, "would not touch"),  # across the edge
    ("/api/tray", {"action": "place", "tile": "1-2", "cells": [40, 41]}, "1-2 cannot go on r2c8: 0-0 lies there"),
    ("/api/tray", {"action": "place", "tile": "0-0", "cells": [60, 61]}, "tile 0-0 is already on the tray"),
    ("/api/tray", {"action": "pad", "tile": "0-0"}, "tile 0-0 is already on the tray"),
    ("/api/tray", {"action": "remove", "tile": "4-4"}, "tile 4-4 is not on the tray"),
    ("/api/tray", {"action": "slide", "tile": "4-4", "cells": [60, 61]}, "tile 4-4 is not on the tray"),
    ("/api/tray", {"action": "unpad", "tile": "0-0"}, "tile 0-0 is not on the scan pad"),
    ("/api/button", {"button": "sideways"}, "button must be one of up, down, select, long-select"),
    ("/api/button", {}, "button must be one of"),
    ("/api/button", b"", "not JSON"),
    ("/api/fault", {"fault": "fire"}, "fault must be one of"),
    ("/api/fault", {"fault": "dead", "cell": "x"}, "cell must be a cell number"),
    ("/api/fault", {"fault": "dead", "cell": 999}, "cell must be a cell number 0-193"),
    ("/api/fault", {"fault": "flicker", "cell": 3, "probability": 2}, "probability must be a number from 0 to 1"),
    ("/api/fault", {"fault": "noise", "probability": -0.1}, "probability must be a number from 0 to 1"),
]


def test_every_malformed_request_gets_a_400_naming_it_and_changes_nothing(table):
    table.reaches(lambda c: True, "the table")
    assert table.post("/api/tray", {"action": "place", "tile": "0-0", "cells": [40, 24]})[0] == 200
    table.reaches(lambda c: c.tracker.settled is not None and c.tracker.settled.at(40) is not None, "0-0 read on r2c8")
    for path, body, words in MALFORMED:
        before = picture(table)
        status, answer = table.post(path, body)
        assert status == 400, (path, body, status, answer)
        assert isinstance(answer, dict) and words in answer["error"], (body, answer)
        assert picture(table) == before, (path, body)
    status, answer = table.post("/api/tray", b"[" * 20000)
    assert status == 413 and "too large (16 KiB at most)" in answer["error"]
    assert table.post("/api/tray", {"action": "remove", "tile": "0-0"})[0] == 200


@pytest.mark.parametrize("token", ["", "s3cret"])
def test_controls_from_another_machine_need_the_token_spectators_only_watch(tmp_path, token):
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock", host="0.0.0.0", token=token)
    try:
        lan = f"http://{lan_address()}:{table.server.port}"
        status, state = table.get("/api/state", base=lan)
        assert status == 200 and state["controls"] is False and state["screen"]["game"]["name"] == "castle-rock"
        assert table.get("/scores", base=lan)[0] == 200
        for path, body in [("/api/tray", {"action": "place", "tile": "1-2", "cells": [0, 1]}),
                           ("/api/button", {"button": "select"}), ("/api/fault", {"fault": "unplug"}),
                           ("/api/tray", b"{not json")]:
            before = picture(table)
            status, answer = table.post(path, body, base=lan, headers={"X-Dominotable-Token": "wrong"})
            assert status == 403 and "may only watch" in answer["error"], answer
            assert ("token of the [web] section" if token else "has no token") in answer["error"]
            assert picture(table) == before
        status, answer = table.post("/api/login", {"token": "wrong"}, base=lan)
        assert status == 403 and ("not the table's token" if token else "has no token") in answer["error"]
        if token:
            status, _ = table.post("/api/tray", {"action": "place", "tile": "1-2", "cells": [0, 1]}, base=lan,
                                   headers={"X-Dominotable-Token": token})
            assert status == 200 and table.vtray.where("1-2") == (0, 1)
        assert table.post("/api/button", {"button": "down"})[0] == 200  # loopback: always
    finally:
        table.close()


def test_web_config_section():
    from dominotable.app.config import ConfigError, from_dict

    cfg = from_dict({"web": {"host": "0.0.0.0", "port": 9000, "token": "s3cret"}}).web
    assert (cfg.host, cfg.port, cfg.token, cfg.off) == ("0.0.0.0", 9000, "s3cret", False)
    assert from_dict({"web": {"host": "off"}}).web.off and from_dict({}).web.port == 8080
    for bad, words in [({"port": 70000}, "web.port = 70000 is not a TCP port"), ({"host": ""}, "web.host"),
                       ({"token": 5}, "web.token"), ({"tokn": "x"}, "unknown key web.tokn")]:
        with pytest.raises(ConfigError, match=re.escape(words)):
            from_dict({"web": bad})


def test_http_address_option():
    assert listen_address("0.0.0.0:9000") == ("0.0.0.0", 9000)
    assert listen_address(":8181") == ("127.0.0.1", 8181)
    assert listen_address("[::1]:80") == ("::1", 80)
    assert listen_address("OFF") is None
    for bad in ("8080", "host:port", "h:70000", ""):
        with pytest.raises(Exception, match="is not HOST:PORT"):
            listen_address(bad)


def test_history_and_leaderboard_api_escape_nothing_they_hold_data(table):
    status, history = table.get("/api/history")
    assert status == 200 and history[0]["names"] == ["ANN", "BOB"] and history[0]["finished"] is None
    assert history[0]["plot"].startswith("<svg") and json.dumps(history)
    assert table.get("/api/leaderboard") == (200, [])


def test_repairs_of_the_database_are_on_the_page(tmp_path):
    said = "The database was damaged: moved aside as t.sqlite3.damaged-2026, 3 matches recovered."
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock", repairs=[said])
    try:
        assert table.get("/api/state")[1]["repairs"] == [said]
    finally:
        table.close()


def test_history_plots_the_score_after_every_hand(tmp_path):
    from dominotable.app.demo import choose
    from dominotable.games import catalog
    from dominotable.store.storage import Store

    db = tmp_path / "t.sqlite3"
    game = catalog.engine("doubles-in-the-boneyard")(players=3, options={"target": 100}, seed=4)
    with Store(db) as store:
        match_id = store.start_match(game, ["ANN", "BOB", "CAT"])
        while not game.is_over():
            game.push(choose(game, 4))
            store.append_move(match_id, len(game.moves), str(game.moves[-1]))
        store.finish(match_id, game)
    table = LiveTable(db, "castle-rock")
    try:
        (stored,) = [m for m in table.get("/api/history")[1] if m["id"] == match_id]
    finally:
        table.close()
    assert game.hands_played() >= 2
    points = stored["points"]  # the scores at the start, then after every hand
    assert stored["per"] == "hand" and points[0] == [0, 0, 0]
    assert len(points) == game.hands_played() + 1 and points[-1] == game.scores
    assert all(a <= b for earlier, later in zip(points, points[1:]) for a, b in zip(earlier, later))
    assert stored["plot"].count("<polyline") == 3 and stored["winners"] == [["ANN", "BOB", "CAT"][w] for w in game.winners()]


def test_faults_through_the_api_reach_the_table(tmp_path):
    """Unplugged: the table says the tray is lost, and is back after the replug; a dead reader
    is a warning naming its cell, marked on the page; noise and flicker are set."""
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock-solitaire", options={})
    try:
        table.reaches(lambda c: c.status.mode == Mode.PLAY, "the match started")
        assert table.post("/api/fault", {"fault": "unplug"}) == (200, {"ok": True})
        table.reaches(lambda c: c.status.mode == Mode.LOST, "the tray lost")
        state = table.get("/api/state")[1]
        assert state["faults"]["unplugged"] and state["screen"]["game"]["mode"] == "lost" and "not answering" in state["screen"]["text"]
        assert table.post("/api/fault", {"fault": "replug"})[0] == 200
        table.reaches(lambda c: c.status.mode == Mode.PLAY, "the tray back")

        cell = table.vtray.geometry.cell(2, 3)
        assert table.post("/api/fault", {"fault": "dead", "cell": cell})[0] == 200
        table.reaches(lambda c: c.status.warning is not None and "r2c3" in c.status.warning, "the dead reader reported")
        state = table.get("/api/state")[1]
        assert cell in state["screen"]["cells"] and state["faults"]["dead"] == [cell] and "r2c3" in state["screen"]["warning"]
        assert table.post("/api/fault", {"fault": "alive", "cell": cell})[0] == 200
        table.reaches(lambda c: c.status.warning is None, "the reader revived")

        assert table.post("/api/fault", {"fault": "noise", "probability": 0.001})[0] == 200
        assert table.post("/api/fault", {"fault": "flicker", "cell": 5, "probability": 0.2})[0] == 200
        state = table.get("/api/state")[1]
        assert state["faults"]["noise"] == 0.001 and state["faults"]["flicker"] == {"5": 0.2}
    finally:
        table.close()
