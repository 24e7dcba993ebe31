"""The page's setup form, its controls and its held tiles through the JSON API (issue 18), over
real HTTP on loopback: the setup is the OLED menu's (one Setup, one Choice; bad input a 4xx naming
the problem), remembered from the database across a restart, with a strength per bot seat kept
with the match; the actions are the in-game menu's list, each taken exactly when it applies; Clear
tray goes through the virtual tray; where a held tile may go is asked of copies in the match core."""

from __future__ import annotations

from dominotable.match.status import Mode
from dominotable.ui.press import Press
from support.web_table import LiveTable

GOOD = {"game": "castle-rock", "options": {"hands": 1},
        "seats": [{"name": "ANN"}, {"kind": "bot", "strategy": "greedy"}, {"name": "Norah", "kind": "bot"},
                  {"kind": "bot", "strategy": "random"}]}


def test_the_setup_form_starts_the_match_the_menu_would_and_a_restart_remembers_it(tmp_path):
    db = tmp_path / "t.sqlite3"
    table = LiveTable(db, game=None)
    try:
        status, offer = table.get("/api/setup")
        castle = next(g for g in offer["games"] if g["name"] == "castle-rock")
        assert status == 200 and castle["positions"][:4] == ["south", "west", "north", "east"]
        assert castle["strategies"][0] == "search" and set(castle["strategies"]) == {"search", "greedy", "random"}
        hands = next(o for o in castle["options"] if o["name"] == "hands")
        assert hands["value"] == 20 and hands["help"].startswith("the match also ends after this many hands")
        before = table.get("/api/state")[1]["screen"]["menu"]
        for body, status, why in (
                ({**GOOD, "game": "chess"}, 400, "unknown game 'chess'"),
                ({**GOOD, "options": {"hands": "many"}}, 400, "option hands: 'many' is not a int"),
                ({**GOOD, "seats": GOOD["seats"] * 2}, 400, "Castle Rock takes 2 to 6 players, not 8"),
                ({**GOOD, "game": "castle-rock-solitaire", "options": {}, "seats": [{"kind": "bot"}]}, 400,
                 "seat 1 cannot be a bot: the tray has no racks for Castle Rock Solitaire"),
                ({**GOOD, "seats": [{"name": "ANN"}, {"name": "ann"}]}, 400, "ann is named for two seats"),
                ({**GOOD, "seats": [{"name": "ANN"}, {"kind": "robot"}]}, 400, "seat 2: kind must be person, bot or remote"),
                ({**GOOD, "seats": "ANN, BOB"}, 400, "seats must be a list"),
                ({**GOOD, "seats": [{"name": "ANN"}, {"kind": "bot", "strategy": "psychic"}]}, 400,
                 "Castle Rock's bots play search, random, greedy, not 'psychic'")):
            got, answer = table.post("/api/setup", body)
            assert got == status and why in answer["error"], (body, answer)
        assert table.get("/api/state")[1]["screen"]["menu"] == before  # nothing changed
        assert table.post("/api/setup", GOOD) == (200, {"ok": True})
        table.reaches(lambda r: r.game.name == "castle-rock", "the match the form chose")
        seating = table.referee.seating
        assert seating.names == ("ANN", "West bot", "Norah", "East bot")
        assert dict(seating.strategies) == {1: "greedy", 2: "search", 3: "random"}
        assert table.post("/api/setup", GOOD)[0] == 409  # a match is on
        assert table.post("/api/action", {"action": "new-match"}) == (200, {"ok": True})
        table.reaches(lambda rt: rt.setup is not None, "the setup open again", session=False)
    finally:
        table.close()
    table = LiveTable(db, game=None)  # a restart: the setup starts as the last match was
    try:
        offer = table.get("/api/setup")[1]
        castle = next(g for g in offer["games"] if g["name"] == "castle-rock")
        assert offer["game"] == "castle-rock" and next(o for o in castle["options"] if o["name"] == "hands")["value"] == 1
        assert castle["players"] == 4 and castle["seats"][:4] == [
            {"name": "ANN", "bot": False, "strategy": "", "remote": False},
            {"name": "West bot", "bot": True, "strategy": "greedy", "remote": False},
            {"name": "Norah", "bot": True, "strategy": "search", "remote": False},
            {"name": "East bot", "bot": True, "strategy": "random", "remote": False}]
        menu = table.get("/api/state")[1]["screen"]["menu"]  # and so does the OLED's menu
        assert menu["items"][menu["selected"]] == "Castle Rock"
        table.hw.buttons().press(Press.SELECT)
        table.reaches(lambda rt: rt.setup.stage == "options", "the options", session=False)
        assert "hands: 1" in table.get("/api/state")[1]["screen"]["menu"]["items"]
    finally:
        table.close()


def test_the_actions_are_the_in_game_menus_and_each_applies_exactly_when_offered(tmp_path):
    """Issue 28: while nobody is to move (Castle Rock's draw for dealer) neither Hint nor Resign is
    offered; a solitaire's first turn offers its hint, resigning and a new match."""
    drawing = LiveTable(tmp_path / "d.sqlite3", "castle-rock", players=2, options={"hands": 1}, seed=3)
    try:
        drawing.reaches(lambda r: r.status.mode == Mode.PLAY, "the match on")
        assert [a["action"] for a in drawing.get("/api/state")[1]["screen"]["actions"]] == ["new-match"]
    finally:
        drawing.close()
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock-solitaire", seed=3)
    try:
        table.reaches(lambda r: r.status.mode == Mode.PLAY and r.tracker.judged is not None, "the match on")
        with table.runtime.lock:
            offered = table.referee.actions()
        shown = table.get("/api/state")[1]["screen"]["actions"]
        assert [(a["action"], a["label"]) for a in shown] == [(a.kind, a.label) for a in offered]
        assert [a["action"] for a in shown] == ["hint", "resign", "new-match"]  # nothing laid yet: no takeback
        assert next(a for a in shown if a["action"] == "resign")["ask"].endswith("resign the match?")
        status, answer = table.post("/api/action", {"action": "take-back"})
        assert status == 409 and answer["error"] == "take-back does not apply now; what does: Hint, Resign, New match"
        assert table.post("/api/action", {"action": "move", "move": "end"})[0] == 409
        assert table.post("/api/action", {"action": "dance"})[0] == 409
        assert table.post("/api/action", {"action": 3})[0] == 400
        assert table.post("/api/action", {"action": "hint"}) == (200, {"ok": True})
        table.shows(lambda s: s["screen"]["title"] == "Hint", "the hint")
        with table.runtime.lock:
            table.runtime.session.on_button(Press.LONG_SELECT)  # the OLED's menu open: the page's choice closes it
        assert table.post("/api/action", {"action": "resign"}) == (200, {"ok": True})
        table.reaches(lambda r: r.status.mode == Mode.OVER, "resigned")
        assert table.runtime.session.menu is None
        state = table.shows(lambda s: s["screen"]["kind"] == "over", "the match over")
        assert [a["action"] for a in state["screen"]["actions"]] == ["new-match"]
        assert state["screen"]["actions"][0]["ask"] == ""  # nothing to lose once the match is over
    finally:
        table.close()


def test_clear_tray_takes_every_tile_off_the_virtual_tray(tmp_path):
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock")
    try:
        for tile, cells in (("3-5", [100, 101]), ("6-6", [20, 36])):
            assert table.post("/api/tray", {"action": "place", "tile": tile, "cells": cells})[0] == 200
        assert table.post("/api/tray", {"action": "pad", "tile": "0-0"})[0] == 200
        assert table.get("/api/state")[1]["clearable"] is True
        assert table.post("/api/tray", {"action": "clear"}) == (200, {"ok": True})
        assert table.vtray.tiles() == {}
        table.reaches(lambda r: r.tracker.settled is not None and not r.tracker.settled.placements, "the tray read empty")
        state = table.get("/api/state")[1]
        assert state["tray"] == [] and state["pad"] is None and state["clearable"] is False and len(state["off_tray"]) == 28
    finally:
        table.close()


def test_a_held_tiles_targets_are_where_laying_it_reads_as_a_legal_move(tmp_path):
    """Asked of copies (the live engine unchanged), kept for the position, and right: the tile laid
    on a target is committed as the move."""
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock-solitaire", seed=2)
    try:
        table.reaches(lambda r: r.tracker.judged is not None, "the empty tray judged")
        from dominotable.app.demo import TableBots

        TableBots(table.runtime, seed=2).one_move()  # the first tile drawn and laid
        table.reaches(lambda r: r.status.mode == Mode.PLAY, "the match on")
        state = table.get("/api/state")[1]
        tile = state["off_tray"][0]
        with table.runtime.lock:
            moves = list(table.referee.game.moves)
        status, answer = table.get(f"/api/targets?tile={tile}")
        assert status == 200 and answer["tile"] == tile and answer["targets"]
        first, second = answer["targets"][0]
        reverse = "-".join(reversed(tile.split("-")))
        turned = table.get(f"/api/targets?tile={reverse}")[1]["targets"]  # named the other way round
        assert sorted(list(reversed(c)) for c in turned) == sorted(answer["targets"])
        with table.runtime.lock:
            assert table.referee.game.moves == moves  # nothing pushed on the live engine
            cached = table.referee.judge.targets._known
        assert any(str(t) == tile for t in cached)
        assert table.get("/api/targets?tile=7-7")[0] == 400
        assert table.post("/api/tray", {"action": "place", "tile": tile, "cells": [first, second]})[0] == 200
        table.reaches(lambda r: len(r.game.moves) == len(moves) + 1, "the tile laid on its target taken as a move")
        assert table.referee.game.moves[-1].placed() == table.referee.game.dset.parse(tile)
    finally:
        table.close()
