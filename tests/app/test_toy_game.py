"""A game is its own files plus one spec (issue 16): a toy game defined wholly under tests/
(toy_game.py: engine, reader, hands, spec), registered, is chosen in the setup menu through the
page's buttons and played to its end on the virtual tray by the bots' hands, judged and committed
by the match core, shown on the OLED and the page, with no change anywhere else."""

import pytest
from dominotable.app.demo import TableBots
from dominotable.games import catalog
from dominotable.match.replay import replay
from dominotable.store.storage import Store
from dominotable.ui.oled import screens
from support.toy_game import SPEC, HighTile
from support.web_table import LiveTable


def _question(runtime):
    """The setup menu's question (in the game list: the game chosen), as the page gets it; None
    once a match is on."""
    menu = runtime.screen().to_dict()["menu"]
    if menu is None or "stage" not in menu:
        return None
    return menu["items"][menu["selected"]] if menu["stage"] == "game" else menu["title"]


@pytest.fixture
def high_tile():
    catalog.register(SPEC)
    yield SPEC
    catalog.unregister(SPEC.name)


def test_a_toy_game_registered_from_its_own_files_plays_on_the_tray_the_page_and_the_oled(high_tile, tmp_path):
    table = LiveTable(tmp_path / "t.db", game=None)
    try:
        items = table.get("/api/state")[1]["screen"]["menu"]["items"]
        assert items[-2:] == ["High Tile", "Lights: on"]  # the last game in the setup menu, the lights after it
        for button, title in (("up", "Lights: on"), ("up", "High Tile"), ("select", "High Tile"),
                              ("select", "Name for seat 1"), ("select", "Name for seat 2"),
                              ("select", None)):  # the game, Start, P1, P2
            assert table.post("/api/button", {"button": button})[0] == 200
            table.reaches(lambda rt: _question(rt) == title, f"{title!r} after {button}", session=False)
        table.reaches(lambda r: r.game.name == "high-tile", "the match started")
        bots = TableBots(table.runtime, seed=3).start()
        table.reaches(lambda r: r.game.is_over(), "the match played out", timeout=20)
        bots.stop()
        shown = table.get("/api/state")[1]
        with Store(tmp_path / "t.db", create=False) as store:  # a reader beside the table
            record = store.match(shown["screen"]["game"]["match"])
        game = replay(record)
        assert isinstance(game, HighTile) and len(game.moves) == 2 and record.result["scores"] == game.scores
        assert shown["screen"]["game"]["name"] == "high-tile" and shown["screen"]["game"]["mode"] == "over"
        assert [s["points"] for s in shown["screen"]["scores"]] == game.scores
        assert {t["tile"] for t in shown["tray"]} == {f"{m.tile.a}-{m.tile.b}" for m in game.moves}
        with table.runtime.lock:
            drawn = screens.draw(table.runtime.screen())
        assert table.frames.images[-1].tobytes() == drawn.tobytes()  # the OLED shows the same screen
    finally:
        table.close()
