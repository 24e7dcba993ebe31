"""The whole table end to end: bots place physical tiles on the virtual tray (a real pty, the
tray firmware over emulated readers), the link reads them, the session judges the settled tray,
SQLite records every move, the emulated OLED shows frames. Rule numbers are those of the cards
the readers read (seeds/*.md, "At the table" sections)."""

from __future__ import annotations

import threading
import time

import pytest
from dominotable.app.cli import main
from dominotable.app.config import load as load_config
from dominotable.app.demo import demo_choice
from dominotable.app.runtime import Runtime
from dominotable.match.replay import replay
from dominotable.match.status import Mode
from dominotable.store.storage import Store
from dominotable.tray.geometry import default as default_geometry
from support.polling import until
from support.table_match import SETTLE_MS, SHORT, ThreadedTable, bot_match, open_table

GAMES = sorted(set(SHORT) - {"castle-rock-solitaire"})  # the solitaire: through the demo command below


@pytest.mark.parametrize("game", GAMES)
def test_whole_match_through_the_pty_scores_as_the_engine_replaying_it(game, tmp_path):
    final, record, frames = bot_match(tmp_path / "table.sqlite3", game, seed=3)
    assert final.is_over() and record.finished is not None
    assert record.moves == [str(m) for m in final.moves] and len(record.moves) > 5
    if game in ("castle-rock", "doubles-in-the-boneyard"):  # rules CR-10.8, DB-8.5: drawn over the scan pad
        assert record.moves[0].startswith("lots ")
    replayed = replay(record)  # the rules engine alone, from the stored notations
    assert replayed.is_over()
    assert replayed.scores == final.scores == record.result["scores"]
    assert replayed.winners() == record.result["winners"]
    assert len(frames.images) >= 3 and all(f.size == (128, 64) for f in frames.images)


class Table(ThreadedTable):
    """The table in its own thread, the test's hands on the virtual tray."""

    def __init__(self, tmp_path, game, players=None):
        super().__init__(tmp_path / "table.sqlite3", demo_choice(game, players, SHORT[game]))
        self.tray = self.vtray

    def stored_moves(self):
        with Store(self.db, create=False) as store:  # a reader beside the table, as `history` is
            return store.move_count(self.runtime.match_id)

    @property
    def session(self):
        return self.runtime.session

    def prompt(self, *words):
        self.reaches(lambda: self.session.screen().kind == "prompt"
                     and all(w in self.session.screen().text for w in words), f"a prompt naming {words}")
        return self.session.screen().text

    def moves(self, n):
        self.reaches(lambda: len(self.session.referee.game.moves) == n and self.session.referee.status.mode == Mode.PLAY
                     and self.session.screen().kind == "play", f"{n} moves")



@pytest.fixture
def solitaire(tmp_path):
    table = Table(tmp_path, "castle-rock-solitaire")
    yield table
    table.close()


def test_illegal_physical_actions_are_prompted_and_recovered(solitaire):
    """Over the real pipeline: an unknown tag (CR board check), a tile lying flat in the row and
    a tile moved inside the row each get a prompt naming tile or cell and change nothing, and
    the game goes on once the tray is put right (rules CRS-8 on reading the row). The unknown
    tag sounds the alarm; the other two may be hands still at work, so they are prompted only
    after the prompt pause, without the alarm (the moved tile may be judged while it is away:
    a tile lifted off the closed end is a capture no captures can complete, an alarm)."""
    t, geo = solitaire, default_geometry()
    t.reaches(lambda: t.session.referee.status.mode == Mode.PLAY, "the empty row accepted")
    row = sorted(geo.zone("castle-row"))
    top = [c for c in row if geo.coords(c)[0] == 4]  # the row's upper cells, left to right
    alarms = t.session.referee.status.alarms

    t.tray.place_tag(top[5], bytes.fromhex("04deadbeef0001"))  # a tag the registry does not know
    assert "04deadbeef0001" in t.prompt("unknown tag")
    t.tray.remove(top[5])
    assert t.session.referee.status.alarms == alarms + 1

    deck = t.session.referee.game.deck().tiles
    first, second, third = deck[0], deck[1], deck[2]
    for i, tile in enumerate((first, second, third)):  # three draws, upright at the open end
        t.tray.place(f"{tile.a}-{tile.b}", top[i], "down")
    t.moves(3)

    t.tray.place(f"{deck[3].a}-{deck[3].b}", top[3], "right")  # lying flat across the row
    t.prompt(str(deck[3]))
    t.tray.remove(deck[3])
    t.reaches(lambda: t.session.screen().kind == "play", "the prompt cleared")

    t.tray.remove(first)  # a tile moved inside the row: the first one put after the third
    t.tray.place(f"{first.a}-{first.b}", top[4], "down")
    t.prompt(str(first))
    t.tray.slide(f"{first.a}-{first.b}", top[0], "down")
    t.reaches(lambda: t.session.screen().kind == "play", "the row put back")

    assert len(t.session.referee.game.moves) == 3 and t.stored_moves() == 3
    assert alarms + 1 <= t.session.referee.status.alarms <= alarms + 2


def test_unplugged_mid_turn_and_replugged_the_game_is_intact(solitaire):
    """The cable comes out after two draws; the OLED says "Tray lost" (spinner frames). The
    player draws a third tile meanwhile. Once the cable is back (the tray rebooted too) the
    link resyncs from a fresh snapshot and the third draw is read as the move it is."""
    t = solitaire
    geo = default_geometry()
    top = [c for c in sorted(geo.zone("castle-row")) if geo.coords(c)[0] == 4]
    t.reaches(lambda: t.session.referee.status.mode == Mode.PLAY, "the empty row accepted")
    deck = t.session.referee.game.deck().tiles
    for i in range(2):
        t.tray.place(f"{deck[i].a}-{deck[i].b}", top[i], "down")
    t.moves(2)
    lost_frames = len(t.frames.images)
    t.tray.unplug()
    t.reaches(lambda: t.session.referee.status.mode == Mode.LOST and t.session.screen().kind == "lost", "the tray lost")
    t.tray.place(f"{deck[2].a}-{deck[2].b}", top[2], "down")
    lost_screen = len(t.frames.images)
    t.reaches(lambda: len(t.frames.images) >= lost_screen + 2, "the spinner turned twice")  # the table looking
    assert len(t.session.referee.game.moves) == 2  # nothing is judged while the tray is away
    t.tray.replug(reboot=True)
    t.moves(3)
    assert [str(m).split()[-1] for m in t.session.referee.game.moves] == [str(deck[i]) for i in range(3)]
    assert t.stored_moves() == 3
    assert len(t.frames.images) - lost_frames >= 3  # tray lost, its spinner turning, the game again


def test_install_script_config_is_a_valid_table_config(tmp_path):
    from pathlib import Path

    script = (Path(__file__).parents[2] / "hardware" / "pi" / "install.sh").read_text()
    toml = script.split("<<'TOML'\n", 1)[1].split("\nTOML\n", 1)[0]
    (tmp_path / "config.toml").write_text(toml)
    cfg = load_config(tmp_path / "config.toml")
    assert cfg.tray.port == "/dev/domino-tray" and cfg.display.driver in ("ssd1306", "sh1106")
    assert cfg.buttons.pin_factory == "lgpio"  # apt's python3-lgpio, every Pi model


def test_demo_command_plays_a_whole_solitaire_that_scores_as_the_engine_replaying_it(capsys, tmp_path):
    db = tmp_path / "demo.sqlite3"
    assert main(["demo", "castle-rock-solitaire", "--quiet", "--seed", "2", "--db", str(db),
                 "--settle-ms", "30", "--speed", "20", "--frames", str(tmp_path / "frames")]) == 0
    out = capsys.readouterr().out
    with Store(db) as store:
        record = store.match(store.matches()[0].id)
    assert record.finished is not None and len(record.moves) > 20
    replayed = replay(record)
    assert replayed.is_over() and replayed.scores == record.result["scores"]
    assert f"scores: ANN {record.result['scores'][0]}" in out
    assert sorted(p.name for p in (tmp_path / "frames").iterdir())[0] == "frame-000001.png"


def test_run_without_a_terminal_plays_a_bot_match_on_the_simulator_and_ends(capsys, tmp_path, monkeypatch):
    """`dominotable` alone is `dominotable run`; with no tray configured and no terminal on
    stdin it plays a demo match with bots (here Up-Down-Stop, to be quick) and exits."""
    import io

    from dominotable.app import cli
    from dominotable.app import demo as bots

    assert cli.DEFAULT_COMMAND == "run"
    config = tmp_path / "config.toml"
    config.write_text(f'[tray]\nport = "none"\n[display]\nterminal = false\nframes = "{tmp_path / "frames"}"\n')
    monkeypatch.setattr(bots, "demo_choice", lambda: demo_choice("up-down-stop"))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["run", "--config", str(config), "--db", str(tmp_path / "run.sqlite3")]) == 0
    out = capsys.readouterr().out
    assert "bots play a demo match" in out and "Up-Down-Stop:" in out
    with Store(tmp_path / "run.sqlite3") as store:
        assert store.matches()[0].finished is not None
    assert any((tmp_path / "frames").iterdir())
    assert main(["run", "--config", str(tmp_path / "missing.toml")]) == 2
    assert "missing.toml does not exist" in capsys.readouterr().err


def test_power_on_setup_and_new_match_with_the_three_buttons(tmp_path):
    """From power-on with the buttons only (gpiozero mock pins): choose the first game, go up
    to Start, accept the prefilled names, play; while the table waits for the draw for dealer
    nobody is to move, so the menu offers no Resign and no Hint (issue 28); menu -> New match ->
    Yes ends the match (recorded as abandoned), and select opens the setup menu again with the
    names kept."""
    from dominotable.games import catalog
    hw, frames = open_table()
    buttons = hw.buttons()
    try:
        with Store(tmp_path / "t.sqlite3") as store:
            runtime = Runtime(hw, store, SETTLE_MS, seed=4).start()
            assert runtime.setup is not None and runtime.setup.current.title == "Choose a game"

            def press(*names):
                for name in names:
                    buttons.press(name)  # queued by the time it returns (the mock pins call back at once)
                while not hw.events.empty():
                    runtime.step(0.01)

            first = catalog.GAMES[0].engine
            press("select")  # the first game
            assert runtime.setup.stage == "options" and runtime.setup.game is first
            press("up", "select")  # up wraps to Start
            for seat in range(first.default_players):
                assert runtime.setup.stage == "seat"  # the tray has racks for bots: Player first
                press("select")
                assert runtime.setup.stage == "name"
                press("select")  # "P1", ... prefilled: one select accepts
            assert runtime.setup is None and runtime.session is not None
            # the empty tray settles: the new match's position
            assert until(lambda: runtime.step(0.01) or runtime.session.referee.status.mode == "play")
            assert list(runtime.session.referee.seating.names) == [f"P{i + 1}" for i in range(first.default_players)]
            match_id = runtime.match_id
            press("long-select")
            items = runtime.session.menu.model.items
            assert "Resign" not in items and "Hint" not in items
            press(*["down"] * items.index("New match"), "select", "up", "select")
            assert store.match(match_id).result["ending"] == "abandoned"
            assert runtime.setup is not None and runtime.setup.last_names == runtime.names
            assert frames.images and hw.display.sent == len(frames.images) + 1  # + the "Starting" frame
    finally:
        hw.close()


def test_keyboard_keys_press_the_mock_buttons(tmp_path):
    """The simulated table's keys, read from a real pty in cbreak mode."""
    import os

    from dominotable.app.hardware import Keyboard

    hw, _ = open_table()
    master, slave = os.openpty()
    quit_seen = threading.Event()
    try:
        with os.fdopen(slave, "r") as stream:
            keyboard = Keyboard(hw.buttons(), quit_seen.set, stream=stream).start()
            os.write(master, b"w")
            os.write(master, b"\x1b[B")
            time.sleep(0.05)
            os.write(master, b" ")
            time.sleep(0.05)
            os.write(master, b"q")
            assert quit_seen.wait(5)
            keyboard.close()
        got = []
        while not hw.events.empty():
            item = hw.events.get()
            if isinstance(item, str):
                got.append(item)
        assert got == ["up", "down", "select"]
    finally:
        os.close(master)
        hw.close()
