"""Bot seats at the physical table, and hints (issue 10, parts 1 and 2).

One person plays their own seat from their own hand (table_seats.Person) and does for the bots
exactly what the table's screen says: tiles from a bot's rack to the row, captures, tiles from
the boneyard into a rack's next free slot. Rule numbers are those of seeds/castle-rock.md: the
table reads the row (CR-10), draws for dealer over the pad (CR-10.8), the next placement closes
a turn (CR-10.5), observed play (CR-11); the worked example is CR-9."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import re
import time

import pytest
from dominotable.games import catalog
from dominotable.match import opening
from dominotable.match.replay import replay
from dominotable.reading import prompts
from dominotable.rules.games.castle_rock.engine import CastleRock, place
from dominotable.rules.seat_view import hand_size, seat_view, unseen
from dominotable.rules.tiles import Tile
from dominotable.sim.bots.turn import decide
from dominotable.sim.memtray import MemoryTray
from dominotable.store.storage import Store
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.geometry import default
from dominotable.tray.tags import Registry
from dominotable.ui.menu import Choice, Setup
from dominotable.ui.oled.screens import SIZE, banded
from dominotable.ui.session import Session
from support.polling import until
from support.table_helpers import ROW, rigged
from support.table_seats import PLACE, TAKE, Person, PtyTable, SessionTable

NAMES = ["ANN", "West bot", "North bot", "East bot"]
BOTS = (1, 2, 3)
STRENGTHS = {1: "greedy", 2: "random", 3: "search"}


def castle_rock(seed=5, hands=1):
    return CastleRock(players=4, options={"hands": hands}, seed=seed, observed=True)


def play_out(table, person, limit=600) -> list:
    """Play to the end of the match; the screens of the bots' instructions seen on the way."""
    said = []
    for _ in range(limit):
        screen = table.screen()
        if screen.bot:
            said.append(screen)
        if not person.step():
            return said
    raise AssertionError("the match did not end")


def play_at(table: PtyTable, seat: int) -> tuple[Person, object, set[str]]:
    """A person at `seat` plays the match at the pty table to its end: the person, the final
    game and the titles of the screens seen on the way."""
    try:
        table.reaches(lambda: table.referee.tracker.judged is not None, "the first board")
        person = Person(table, seat, seed=1)
        shown = set()
        while person.step():
            shown.add(table.screen().title)
        return person, table.game, shown
    finally:
        table.close()


def fit_the_oled(screens) -> None:
    """Each instruction for a bot is one step short enough for the OLED, never cut short."""
    for screen in screens:
        lines = banded(screen.text, SIZE[0])[1][-1]  # the prompt's last page
        assert not lines[-1].endswith("..."), screen.text
        assert screen.bot == f"{screen.seat}: {screen.text}" and screen.seat.endswith(" bot")
        assert screen.title in (screen.seat, f"{screen.seat}'s rack")


def test_racks_lie_clear_of_their_games_zones_and_of_each_other():
    geo = default()
    for game, hand in (("castle-rock", 2), ("broadway", 7)):  # most tiles a hand holds (CR-4.3, BW-2.2)
        spec = catalog.spec(game)
        racks = geo.racks(spec.racks)
        zones = [geo.zone(name) for name in spec.zones  # but the whole grid: a game without bots
                 if len(geo.zone(name)) < geo.playing]
        assert zones
        for i, rack in enumerate(racks):
            assert len(rack.slots) >= hand
            assert all(geo.cell(*geo.coords(b)) in geo.neighbours(a) for a, b in rack.slots)
            assert all(rack.cells.isdisjoint(zone) for zone in zones), (game, rack.name)
            assert all(rack.cells.isdisjoint(other.cells) for other in racks[i + 1:]), (game, rack.name)
    assert [r.name for r in geo.racks("castle-rock")][:4] == ["south", "west", "north", "east"]
    assert len(geo.racks("castle-rock")) == CastleRock.max_players
    assert [r.name for r in geo.racks("broadway")] == ["north", "east", "south", "west"]  # the engine's seats
    assert geo.racks(catalog.spec("castle-rock-solitaire").racks) == ()  # one player: no bot seats
    racks = frozenset(c for rack in geo.racks("castle-rock") for c in rack.cells)
    assert racks <= catalog.spec("castle-rock").cells(geo)  # the tray reads them first, as the row


def test_setup_menu_makes_seats_bots_named_after_their_racks_at_a_strength_each():
    positions = [r.name for r in default().racks("castle-rock")]
    setup = Setup([CastleRock], ["ANN"], {CastleRock: positions}, {CastleRock: ["search", "greedy", "random"]})
    for press in ["select", "up", "select"]:  # Castle Rock, up to Start
        setup.handle(press)
    assert setup.stage == "seat" and setup.current.items == [
        "Player", "Bot (south, hard)", "Bot (south, normal)", "Bot (south, easy)"]  # strengths in words (issue 28, item 7)
    setup.handle("select")  # seat 1: a person, named ANN (prefilled)
    setup.handle("select")
    for strength in range(3):  # search, greedy, random
        assert setup.current.title.startswith("Seat")
        for _ in range(strength + 1):
            setup.handle("down")
        setup.handle("select")
    assert setup.done and setup.value.bots == {1: "search", 2: "greedy", 3: "random"}
    assert setup.value.names == ["ANN", "West bot", "North bot", "East bot"]


def test_a_bot_decides_on_what_its_seat_sees_whatever_the_unseen_tiles_are():
    """Shuffling every tile the bot cannot see (the others' hands, the boneyard) changes
    neither its view of the game nor its turn."""
    game = castle_rock(seed=8)
    rng = random.Random(1)
    while len(game.moves) < 9:
        game.push(rng.choice(list(game.legal_moves())))
    seat = game.current_player
    hand = list(game.state.hands[seat])
    strategy = catalog.spec(game).strategy()
    before = decide(game, seat, hand, 3, strategy)
    s = game.state
    for trial in range(5):
        others = [t for k, h in enumerate(s.hands) if k != seat for t in h] + list(s.deck[s.drawn:])
        random.Random(trial).shuffle(others)
        sizes = [len(h) for h in s.hands]
        hands = []
        for k in range(game.players):
            hands.append(tuple(hand) if k == seat else tuple(others[:sizes[k]]))
            others = others[sizes[k]:] if k != seat else others
        s.hands, s.deck = tuple(hands), s.deck[:s.drawn] + tuple(others)
        assert decide(game, seat, hand, 3, strategy) == before
        view = seat_view(game, seat, hand, random.Random(0))
        assert view.state.hands[seat] == tuple(hand) and not view.observed


def test_a_seats_view_keeps_what_everyone_has_seen():
    """Tiles shown are no secret: a hand shown at the end of a game (DB-7.4) is no hidden hand,
    and a tile held face up (BW-7.3) stays with its owner in every redeal of the unseen tiles."""
    from dominotable.rules.games.broadway.engine import Broadway
    from dominotable.rules.games.doubles_boneyard.engine import DoublesInTheBoneyard

    doubles = DoublesInTheBoneyard.from_position(
        "line: 4-0 0-2 2-4 4-1 1-3 3-4 4-5 5-0 0-6 6-1 1-5 5-2 2-6 6-3 3-5 5-6 6-4\n"
        "P1: 1-2\nP2: 0-3\nP3: 0-1 2-3\nending: blocked\nshown: P2", observed=True)
    assert [hand_size(doubles, seat) for seat in range(3)] == [1, 0, 2]

    game = Broadway.from_position("hand: 1\nscores: 0 0\nturn: N\nN: 6-1 0-0\nE: 2-3 4-4\ntableau:\n  6-6")
    game.push_notation("expose E 2-3")
    game.push_notation("pass")  # 2-3 fits nowhere: back to East, face up
    up = Tile(2, 3)
    assert up in game.face_up() and up not in unseen(game)
    for trial in range(5):
        view = seat_view(game, 0, game.state.hands[0], random.Random(trial))
        assert up in view.state.hands[1]
        assert [len(h) for h in view.state.hands] == [len(h) for h in game.state.hands]


def test_a_castle_rock_match_against_three_bots_session(tmp_path):
    """Three hands at the session (in-memory tray, fake clock): the bots' turns are made by the
    person from the instructions, the last turn of a hand ended by the table (CR-6.1), each new
    hand dealt into the racks again; the stored match replays to the same scores."""
    table = SessionTable(tmp_path, castle_rock(hands=3), NAMES, BOTS)
    table.settle()
    person = Person(table, 0, seed=1)
    fit_the_oled(play_out(table, person))
    game = table.game
    record = table.store.match(table.session.referee.seating.match_id)
    assert game.is_over() and record.bots == [1, 2, 3]
    assert replay(record).scores == game.scores == record.result["scores"]
    assert len(record.hints) == person.hints > 0 and record.racks == {}


def test_the_turn_line_and_the_prompt_speak_with_one_voice(tmp_path):
    """Issue 18: on every screen of a match against three bots, a seat told what to do is the seat
    the turn line names, or the title names only its rack; nobody's turn while a draw is awaited; a
    rack's slots said plainly. Issue 28: a bot's step never shows while the person is still to move
    (it was "after ANN: ..."): the person's own turn does, up to "then End turn"."""
    table = SessionTable(tmp_path, castle_rock(hands=1), NAMES, BOTS)
    table.settle()
    person = Person(table, 0, seed=3)
    screens, racks = [], set()
    while True:
        screen = table.screen()
        game = table.game
        screens.append(screen)
        if screen.kind in ("play", "prompt") and not game.awaiting() and table.session.referee.status.mode == "play":
            assert screen.turn == NAMES[game.current_player]
            assert [s.name for s in screen.scores if s.to_move] == [screen.turn]
        if game.awaiting():
            assert screen.turn == ""  # the table waits for a draw or the starting row: nobody's turn
        if screen.seat:
            assert screen.turn in ("", screen.seat) or screen.title == f"{screen.seat}'s rack", \
                (screen.turn, screen.title, screen.text)
            assert "slots 1" not in screen.text or "slots 1 and" in screen.text or "slots 1-" in screen.text
        if screen.title.endswith("'s rack"):
            racks.add(screen.title)
        if not person.step():
            break
    assert len(racks) == 3 and not any("after ANN" in s.text for s in screens)
    assert any(s.turn == "ANN" and s.title == "ANN" and s.text.startswith("take any captures") and s.text.endswith("; then End turn")
               for s in screens)
    assert screens[-1].kind == "over" and screens[-1].turn == ""
    p = table.session.referee.position.copy()
    p.holds = {1: p.holds[1]}
    p.holds[1].rack = {2: Tile(3, 5)}
    assert prompts.racks_held(table.session.referee.seats.expected(p)) == "West bot's tiles face down in slot 2"


def test_wrong_slot_wrong_end_and_lying_flat_are_prompted_and_put_right(tmp_path, monkeypatch):
    """East bot moves first. Its tile from the wrong slot, its tile at the closed end of the
    row (CR-10.4), its tile lying flat (CR-10.1): each is refused with a prompt, nothing is
    recorded, and once put right the turn goes on; the tile put back in its slot offers the
    takeback, which gives the bot its tile back."""
    table = SessionTable(tmp_path, castle_rock(), NAMES, BOTS)
    table.session.referee.seats.strategy = catalog.spec("castle-rock").strategy("greedy")  # this deal: East bot
    # places, then captures
    table.settle()
    person = Person(table, 0, seed=2, first_column=1)  # the row from column 1: the closed end has room
    while not table.screen().bot.startswith("East bot: slot"):
        person.step()
    told = table.screen().bot
    m = re.fullmatch(r"East bot: slot (\d) \((\d-\d)\) -> upright at the open end, r4c(\d+)-r5c\3", told)
    assert m, told
    assert (table.screen().title, table.screen().text) == ("East bot", told.removeprefix("East bot: "))
    geo, rack = table.geometry, default().racks("castle-rock")[3]
    moves = len(table.game.moves)
    slot, right, end = int(m[1]), table.game.dset.parse(m[2]), int(m[3])
    wrong = next(t for t, cells in table.tiles().items() if cells == rack.slots[2 - slot])

    table.take(wrong)  # the tile in the other slot
    table.put(wrong, (geo.cell(4, end), geo.cell(5, end)))
    table.settle()
    assert table.screen().text == (f"East bot's rack: put the tile from slot {3 - slot} back, face down; "
                                   f"East bot plays the tile in slot {slot}")
    table.take(wrong)
    table.put(wrong, rack.slots[2 - slot])
    table.settle()
    assert table.screen().bot == told

    table.take(right)  # the right tile at the closed end
    table.put(right, (geo.cell(4, 0), geo.cell(5, 0)))
    table.settle()
    assert f"move {right} to the open end of the row" in table.screen().text
    table.take(right)
    table.put(right, (geo.cell(4, end), geo.cell(4, end + 1)))  # lying flat at the open end: being stood up?
    table.settle()
    table.now += table.session.referee.tracker.prompt_after_ms / 1000  # prompted once it stays so, no alarm
    table.session.tick()
    assert f"stand {right} upright at the open end (rule CR-10.1)" in table.screen().text
    assert len(table.game.moves) == moves and table.session.referee.status.alarms >= 2
    table.take(right)
    table.put(right, (geo.cell(4, end), geo.cell(5, end)))
    table.settle()
    assert len(table.game.moves) == moves + 1 and table.game.moves[-1] == place(right)

    table.take(right)  # back in its slot: the table offers to take the placement back
    table.put(right, rack.slots[slot - 1])
    table.settle()
    assert table.screen().title == "Take back?"
    table.press("select")
    assert len(table.game.moves) == moves and table.screen().bot == told
    assert table.store.match(table.session.referee.seating.match_id).racks[3][slot] == str(right)
    table.take(right)
    table.put(right, (geo.cell(4, end), geo.cell(5, end)))
    table.settle()
    assert len(table.game.moves) == moves + 1

    assert table.screen().bot.startswith("East bot: take ")  # the rest of its turn, once the tile is read
    play_out(table, person)
    record = table.store.match(table.session.referee.seating.match_id)
    assert replay(record).scores == table.game.scores == record.result["scores"]


def test_the_hint_for_the_worked_example_is_the_whole_row(tmp_path):
    """CR-9: after placing 1-4 the best plan takes all nine tiles; the hint names them in
    order, the screen model carries them for drawing, and the store records the hint."""
    game = rigged("6-1 6-0 0-0 4-2 4-4 4-0 1-1 5-1 4-1", ["3-3", "5-5"], placed=True)
    store = Store(tmp_path / "t.db")
    session = Session(opening.start(store, game, ["ANN", "BOB"], default()))
    session.referee.status.mode = "play"
    session.referee.hint()
    screen = session.screen()
    assert screen.title == "Hint"
    assert screen.text == ("take 4-4, then 2-4, then 0-6, 0-0 and 0-4, then 1-1, then 1-6, 1-5 and 1-4: 9 tiles, "
                           "the whole row")  # issue 28: it said "take x4-4 x2-4 x0-6+0-0+0-4 ..."
    assert sorted(screen.take) == sorted(str(t) for t in ROW("6-1 6-0 0-0 4-2 4-4 4-0 1-1 5-1 4-1"))
    hints = store.match(session.referee.seating.match_id).hints
    assert [(h["ply"], h["seat"], h["hint"]) for h in hints] == [(0, 0, screen.text)]
    session.on_button("select")  # put away
    assert session.screen().title != "Hint"


def test_a_castle_rock_match_against_three_bots_through_the_pty(tmp_path):
    """The same person at the whole simulated table: real pty, tray firmware, link, buttons
    (the hints through the menu), OLED frames, SQLite."""
    db = tmp_path / "table.sqlite3"
    table = PtyTable(db, Choice(CastleRock, CastleRock.Options(hands=1), 4, NAMES, dict.fromkeys(BOTS, "")), seed=5)
    person, final, shown = play_at(table, 0)
    assert {"East bot", "North bot", "West bot", "Hint"} <= shown
    with Store(db) as store:
        record = store.match(store.matches()[0].id)
    assert final.is_over() and record.bots == [1, 2, 3] and len(record.hints) == person.hints
    assert replay(record).scores == final.scores == record.result["scores"]
    assert table.frames.images


# -- kill -9 ------------------------------------------------------------------------------------

def host(db: str, state: str) -> None:
    """The table and the person in one process. Once the bots hold tiles (one of them two), the
    person writes down where every tile lies (tiles outlive the process: after the crash they
    still lie there) and the parent kills the process."""
    table = PtyTable(db, Choice(CastleRock, CastleRock.Options(hands=1), 4, NAMES, STRENGTHS), seed=5)
    table.reaches(lambda: table.referee.tracker.judged is not None, "the first board")
    person = Person(table, 0, seed=1)
    while person.step():
        known = {seat: hold.rack for seat, hold in table.referee.position.holds.items()}
        if len(table.game.moves) >= 20 and max(map(len, known.values())) == 2 and table.screen().kind != "hint":
            with open(state + ".new", "w") as f:
                json.dump(person.memory(), f)
            os.replace(state + ".new", state)  # the parent sees it whole or not at all
            time.sleep(60)


def test_killed_mid_match_the_bots_hands_come_back_from_the_store(tmp_path):
    """kill -9 once the bots hold tiles; on restart the match waits until the row and every
    bot's rack are as stored (a tile in the wrong slot is named by slot, never by tile), then
    plays on to the end and scores as the engine replaying it."""
    db, state = tmp_path / "table.sqlite3", str(tmp_path / "person.json")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["support.table_seats"])
    p = ctx.Process(target=host, args=(str(db), state))
    p.start()
    deadline = time.monotonic() + 60
    while not os.path.exists(state):
        assert p.is_alive() and time.monotonic() < deadline, "the match did not get going"
        time.sleep(0.01)
    p.kill()
    p.join(10)
    with Store(db) as store:
        unfinished = store.unfinished()
        assert unfinished is not None
        record = store.match(unfinished)
    assert record is not None and sum(len(r) for r in record.racks.values()) >= 4

    table = PtyTable(db, None, seed=5)
    try:
        referee = table.referee
        assert referee.seating.resumed and {seat: h.rack for seat, h in referee.position.holds.items()} == {
            seat: {slot: table.game.dset.parse(t) for slot, t in rack.items()} for seat, rack in record.racks.items()}
        assert table.screen().title == "Restore the table" and "tiles face down in slots" in table.screen().text
        spec = catalog.spec(table.game)  # each bot plays on at the strength chosen for it
        assert referee.seating.strategies == STRENGTHS
        assert referee.seats.strategies == {seat: spec.strategy(name) for seat, name in STRENGTHS.items()}
        with open(state) as f:
            person = Person.remembered(table, 0, json.load(f))
        seat, rack = next((s, r) for s, r in record.racks.items() if len(r) == 2)
        geo_rack = default().racks("castle-rock")[seat]
        person.lay_out(swap=geo_rack.slots)  # the bot's two tiles the wrong way round
        table.settle()
        assert table.screen().title == "Restore the table"
        assert f"{NAMES[seat]}'s rack: move the tile in slot 2 back to slot 1" in table.screen().text
        assert not any(t in table.screen().text for t in rack.values())
        person.lay_out()
        table.settle()
        assert referee.status.mode == "play"
        while person.step():
            pass
        final = table.game
    finally:
        table.close()
    with Store(db) as store:
        record = store.match(record.id)
    assert final.is_over() and replay(record).scores == final.scores == record.result["scores"]


def test_a_person_lays_tiles_from_the_keyboard_on_the_simulated_table(tmp_path):
    """`dominotable run` in a terminal: `:` and a line lay tiles by hand (the tray's sim
    commands), draw from the boneyard into one's hand or face down into a bot's rack slot."""
    from dominotable.app.hardware import Keyboard
    from dominotable.app.offtray import OffTray
    from support.table_match import open_table

    hw, _ = open_table()
    vtray = hw.tray.virtual
    hands = OffTray(vtray, lambda: CastleRock().dset.tiles, random.Random(2))
    master, slave = os.openpty()
    said = []

    class Out:
        def write(self, text):
            said.append(text)

        def flush(self):
            pass

    try:
        with os.fdopen(slave, "r") as stream:
            keyboard = Keyboard(hw.buttons(), lambda: None, stream=stream, command=hands.command, out=Out()).start()
            os.write(master, b":draw\r:draw r11c6\r:draw r11c7 right\r:plx\x7face 3-5 r4c1 down\r:remove 3-5\r")
            assert until(lambda: hands.aside, 10), "".join(said)  # the last line's work done
            keyboard.close()
    finally:
        os.close(master)
        hw.close()
    text = "".join(said)
    assert "you drew" in text and len(hands.hand) == 1
    assert "error: r11c6 (cell 182) is already covered" not in text and "already covered" in text
    assert ":place 3-5 r4c1 down" in text.replace("\b \b", "").replace("plx", "pl")
    assert [t for t, cells in vtray.tiles().items() if cells[0] in (182, 183)]  # one face down in the rack
    assert str(hands.aside.pop()) == "3-5" and hands.hand[0] not in vtray.tiles()
    assert len(hands.boneyard()) == 28 - 1 - 1
    assert hands.command("collect") == "boneyard: 27 tiles"


# -- Broadway -----------------------------------------------------------------------------------

BW_NAMES = ["North bot", "East bot", "ANN", "West bot"]  # BW-1.2: seats N, E, S, W; ANN sits South


def test_a_broadway_match_against_three_bots_through_the_pty(tmp_path):
    """The bots' racks hold seven tiles each (BW-2.2); the table names who leads from the racks
    (BW-10.1); each bot's tile goes where and as the screen says, the tableau inside the racks."""
    from dominotable.rules.games.broadway.engine import Broadway

    db = tmp_path / "table.sqlite3"
    choice = Choice(Broadway, Broadway.Options(hands=1), 4, BW_NAMES, dict.fromkeys((0, 1, 3), ""))
    _, final, shown = play_at(PtyTable(db, choice, seed=3), 2)
    assert {"North bot", "East bot", "West bot"} <= shown
    with Store(db) as store:
        record = store.match(store.matches()[0].id)
    assert record.moves[0] == "lead S" and record.bots == [0, 1, 3]
    assert final.is_over() and replay(record).scores == final.scores == record.result["scores"]


def test_two_broadway_hands_against_three_bots_session(tmp_path):
    """BW-2: a second hand opens on the next double, the racks dealt again once the tray is
    cleared; the stored match replays to the same scores."""
    from dominotable.rules.games.broadway.engine import Broadway

    table = SessionTable(tmp_path, Broadway(options={"hands": 2}, seed=3, observed=True), BW_NAMES, (0, 1, 3))
    table.settle()
    fit_the_oled(play_out(table, Person(table, 2, seed=1)))
    record = table.store.match(table.session.referee.seating.match_id)
    assert table.game.hands_played() >= 2 and sum(m.startswith("lead ") for m in record.moves) >= 2
    assert replay(record).scores == table.game.scores == record.result["scores"]


def test_broadway_a_bot_tile_turned_round_or_at_the_wrong_end_is_prompted_and_put_right(tmp_path, monkeypatch):
    """BW-11.2: the tile as the bot placed it, its halves as the screen says; the same tile
    turned round, or laid where it also fits but the bot did not choose, is refused with the
    screen's instruction, and nothing is recorded until the tile lies as told."""
    from dominotable.rules.games.broadway.engine import Broadway, Place

    table = SessionTable(tmp_path, Broadway(options={"hands": 1}, seed=3, observed=True), BW_NAMES, (0, 1, 3))
    table.session.referee.seats.strategy = catalog.spec("broadway").strategy("greedy")  # a tile that also fits
    # elsewhere, this deal
    table.settle()
    person = Person(table, 2, seed=1)
    turned = elsewhere = False
    while person.step():
        told = table.screen().bot or ""
        if len(table.game.tableau().order) < 4 or not (m := re.search(r"\((\d+-\d+)\) -> r\d", told)):
            continue  # a tableau of a few tiles first: a tile turned round next to the lead reads as no lead
        game, moves = table.game, len(table.game.moves)
        tile = game.dset.parse(m[1])
        rack = default().racks("broadway")[game.current_player]
        slot = next(cells for t, cells in table.tiles().items() if t is tile)
        assert slot in rack.slots
        referee = table.session.referee
        wanted = referee.seats.turn(referee.position, referee.area)[0][0]
        hands = referee.seats.hands.on(game.copy())
        others = [p for p in game.seat_moves(game.current_player) if isinstance(p, Place) and p.tile is tile
                  and p != wanted]
        for other in others[:1] if not elsewhere else []:
            place = next(a for a in hands.actions(other, table.session.referee.area) if a.kind == "place")
            table.take(tile)
            table.put(tile, place.cells)
            table.settle()
            assert table.screen().text.startswith(f"{BW_NAMES[game.current_player]} plays {tile} elsewhere: ")
            elsewhere = True
        if not turned and not tile.is_double:
            place = next(a for a in hands.actions(wanted, table.session.referee.area) if a.kind == "place")
            if tile in table.tiles():
                table.take(tile)
            table.put(tile, place.cells[::-1])
            table.settle()
            text = table.screen().text  # the prompt names the tile as it lies: 3-2 or 2-3
            assert table.screen().title == "Fix the tray" and (str(tile) in text or f"{tile.b}-{tile.a}" in text)
            turned = True
        if turned or elsewhere:
            assert len(table.game.moves) == moves and table.session.referee.status.alarms
            table.take(tile)
            table.put(tile, slot)  # back in its slot: the instruction again
            table.settle()
            assert table.screen().bot == told
        if turned and elsewhere:
            break
    assert turned and elsewhere
    play_out(table, person)
    record = table.store.match(table.session.referee.seating.match_id)
    assert replay(record).scores == table.game.scores == record.result["scores"]


def test_broadway_a_blocked_hand_shows_the_bots_tiles_from_their_racks(tmp_path):
    """BW-10.5: at the end of a blocked hand the table shows each bot's tiles left itself, from
    its rack; the person then takes them out of the rack (the hand is over) before the next deal."""
    from dominotable.match.position import Hold, Play, Position
    from dominotable.match.seats import SeatKind, TableSeats
    from dominotable.rules.games.broadway.engine import Broadway
    from dominotable.sim.memtray import MemoryTray
    from dominotable.tray.tags import Registry

    rng = random.Random(4)
    game = Broadway(options={"hands": 2}, seed=7, observed=True)
    while len(game.tableau().order) < 12:
        game.push(rng.choice(list(game.legal_moves())))
    game.state.awaiting = "show"  # test set-up: the hand blocked here (BW-6.2), as _end_hand leaves it
    geo = default()
    racks = geo.racks("broadway")
    held = {seat: {k + 1: t for k, t in enumerate(game.state.hands[seat])} for seat in (0, 1, 3)}
    kinds = [SeatKind.HUMAN if seat == 2 else SeatKind.BOT for seat in range(4)]
    seats = TableSeats(racks, kinds, BW_NAMES, 7, catalog.hands_for(game, geo),
                       dict.fromkeys((0, 1, 3), catalog.spec(game).strategy()))
    p = Position(game, {seat: Hold(dict(rack)) for seat, rack in held.items()})
    tray = MemoryTray(Registry.virtual(game.dset), geo)
    for seat, rack in held.items():
        for slot, tile in rack.items():
            tray.place(tile, racks[seat].slots[slot - 1])
    board, problem, dealt = seats.read(p, tray.board())
    assert problem is None and not dealt and not seats.short(p)
    shown = []
    while (move := seats.traceless(p, board)[0]) is not None:
        seat = "NESW".index(move.seat)
        assert sorted(move.tiles) == sorted(held[seat].values())
        p.apply(Play(move))
        shown.append(seat)
        assert not p.holds[seat].rack and p.holds[seat].spent  # no longer the bot's hand, still in its rack
    assert sorted(shown) == [s for s in (0, 1, 3) if held[s]]
    notes = seats.short(p)
    assert all(prompts.said(n, geo).startswith("hand over: take the tiles out of slot") for n in notes)
    assert [n.who for n in notes] == [BW_NAMES[seat] for seat in sorted(shown)]
    assert seats.read(p, tray.board())[1] is None  # still there: not a problem, a step
    for seat in shown:
        for tile in held[seat].values():
            tray.apply(Action(ActionKind.REMOVE, tile))
    _, _, cleared = seats.read(p, tray.board())
    assert cleared and not any(h.spent for h in p.holds.values())


def test_the_solitaire_hint_is_the_solvers_next_step():
    """Castle Rock Solitaire: the hint is the solver's move (a draw, or its next capture) at
    every position of a game the solver plays to its end."""
    from dominotable.rules.games.castle_rock.capture import Capture
    from dominotable.rules.games.castle_rock.solitaire import CastleRockSolitaire
    from dominotable.sim.bots.castle_rock import solver_bot

    game = CastleRockSolitaire(seed=4)
    solver = solver_bot(random.Random(0))
    kinds = set()
    while not game.is_over():
        move = solver(game)
        shown = catalog.spec(game).hint(game)
        if isinstance(move, Capture):
            assert shown.take == move.tiles and shown.text.startswith(f"take {prompts.listed(move.tiles)}:")
        else:
            assert shown.text == "draw the next tile" and not shown.take
        kinds.add(type(move).__name__)
        game.push(move)
    assert kinds == {"Draw", "Capture"}


def test_resuming_a_bot_match_on_a_tray_without_racks_names_the_problem(tmp_path):
    """A tray.toml without the racks (a tray built before them) cannot resume a match with bot
    seats: the error names the seats and where racks are declared (the runtime sets it aside)."""
    import tomllib

    import pytest
    from dominotable.match.seats import SeatKind
    from dominotable.rules.errors import DominoError
    from dominotable.tray.geometry import Geometry, packaged_path

    store = Store(tmp_path / "t.db")
    kinds = [SeatKind.BOT if seat in BOTS else SeatKind.HUMAN for seat in range(len(NAMES))]
    match = opening.start(store, castle_rock(), NAMES, default(), kinds).seating.match_id
    data = tomllib.loads(packaged_path().read_text())
    del data["racks"]
    with pytest.raises(DominoError, match="racks for 0 of Castle Rock's seats, not for its bot seats West bot, "
                                          r"North bot, East bot: see \[racks\] in tray.toml"):
        opening.resume(store, match, Geometry(data))


@pytest.mark.parametrize("order", ["in order", "shuffled", "one at a time"])
@pytest.mark.parametrize("seed", [124645435, 3, 11])
def test_regression_a_bots_capture_taken_off_tile_by_tile_in_any_order_is_stored_whole(tmp_path, order, seed):
    """Issue 17: the OLED says "North bot: take 0-2, 0-0 and 0-1"; taking them off one at a
    time, the tray settling after each, in that order or any other, ended `run` (the screen was
    computed by replaying a stale plan on the live engine) and stored the capture short. Now every
    partial row is a provisional capture, the instruction follows the tray, and the whole capture
    is stored. "One at a time" (found by the chaos test): a tile of the instruction taken alone,
    then the instruction read again. It said nothing once a tile taken alone was read as a capture
    of its own (the plan's capture of it could no longer be made), and the bot's just-placed tile
    taken first, as its capture says, was offered as a takeback."""
    game = CastleRock(players=4, options={"hands": 1}, seed=seed, observed=True)
    table = SessionTable(tmp_path, game, NAMES, BOTS)
    table.settle()
    person = Person(table, 0, seed=seed, captures=order)
    play_out(table, person)
    assert any(len(tiles) > 1 for tiles in person.taken), "no capture of more than one tile to take off"
    record = table.store.match(table.session.referee.seating.match_id)
    game = replay(record)
    assert [str(m) for m in game.moves] == [str(m) for m in table.game.moves]
    captured = [set(m.taken()) for m in game.moves if m.taken()]
    for told in person.taken:
        assert set(told) <= set().union(*captured), f"{told} not all stored: {captured}"


def test_while_a_bots_capture_is_pending_the_menu_offers_no_move_of_its_turn(tmp_path):
    """Issue 17: with a bot's capture still to take off, the menu offered "End turn" first, which
    would have ended the bot's turn without it. A seat the table plays makes its own button moves,
    so while it is to move the menu (OLED and page alike) offers none: only taking back, a hint,
    resigning and a new match."""

    game = CastleRock(players=4, options={"hands": 1}, seed=124645435, observed=True)
    table = SessionTable(tmp_path, game, NAMES, BOTS)
    table.settle()
    person = Person(table, 0, seed=124645435, captures="one at a time")
    pending = 0
    while person.step():
        referee = table.session.referee
        said = table.screen().bot
        if referee.seats.plays(referee.game.current_player) and TAKE.match(said.partition(": ")[2]):
            pending += 1
            offered = referee.actions()
            assert not [a for a in offered if a.kind == "move"], [a.label for a in offered]
            assert referee.button_moves(), "the engine would take a move of the buttons here"
    assert pending, "no bot capture came"


class Misplacing(Person):
    """A person who lays each bot tile wrong once (one row off, or turned across the instruction's
    line, sharing one of its cells) before laying it as told."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.wrong: list[str] = []  # what the table said while a bot's tile lay wrong

    def follow(self, said: str) -> bool:
        who, _, what = said.partition(": ")
        m = PLACE.match(re.sub(r"^after [^:]+: ", "", what)) if who.endswith(" bot") else None
        if m is None or not self.t.game.tableau().order:  # the opening double may lie anywhere
            return super().follow(said)
        slot = self.rack(who).slots[int(m[1]) - 1]
        tile = next(t for t, cells in self.t.tiles().items() if set(cells) == set(slot))
        first, second = self.cells(tile, *m.groups()[3:])
        (r0, c0), (r1, c1) = self.geo.coords(first), self.geo.coords(second)
        free = {c for c in range(self.geo.playing)} - {c for cells in self.t.tiles().values() for c in cells}
        shifted = [(self.geo.cell(r0 + d, c0), self.geo.cell(r1 + d, c1)) for d in (1, -1)
                   if 0 <= min(r0, r1) + d and max(r0, r1) + d < self.geo.rows]
        across = [(first, self.geo.cell(r0 + dr, c0 + dc)) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                  if (dr, dc) != (r1 - r0, c1 - c0) and 0 <= r0 + dr < self.geo.rows and 0 <= c0 + dc < self.geo.columns]
        wrong = next((cells for cells in shifted[:1] + across[-1:] if set(cells) <= free | set(slot)), None)
        if wrong is not None:
            moves = len(self.t.game.moves)
            self.t.take(tile)
            self.t.put(tile, wrong)
            self.t.settle()
            self.t.now += 3  # left there: whatever may be hands at work is prompted too
            self.t.settle()
            screen = self.t.screen()
            self.wrong.append(f"{screen.title}: {screen.text}")
            assert len(self.t.game.moves) == moves, f"{tile} laid wrong was taken as a move: {self.t.game.moves[-1]}"
            self.t.take(tile)
            self.t.put(tile, slot)
            self.t.settle()
        return super().follow(said)


@pytest.mark.parametrize("seed", [13, 21])
def test_regression_a_broadway_bot_tile_laid_off_its_cells_is_a_prompt_not_a_crash(tmp_path, seed):
    """Issue 17: "South bot: slot 6 (5-6) -> r6c8-r6c9" laid on r7c9-r7c8 (a row off), or along
    the other axis sharing a cell, ended `run` (the instruction replayed the plan on an in-memory
    tray that already held the tile). Each such board is now a prompt, nothing is committed, and
    laid as told the match goes on to its end."""
    from dominotable.rules.games.broadway.engine import Broadway

    names = ["ANN", "East bot", "South bot", "West bot"]
    table = SessionTable(tmp_path, Broadway(options={"hands": 1}, seed=seed, observed=True), names, (1, 2, 3))
    table.settle()
    person = Misplacing(table, 0, seed=seed)
    play_out(table, person)
    assert person.wrong and all("bot" in said or "Fix" in said or "Check" in said for said in person.wrong)
    record = table.store.match(table.session.referee.seating.match_id)
    assert replay(record).scores == table.game.scores == record.result["scores"]


def test_regression_after_a_restart_a_bots_tile_put_back_in_its_slot_offers_the_takeback(tmp_path):
    """Issue 17: where a bot's played tile came from was kept only in memory, so after kill -9 and
    a restart, putting it back in its slot said "Fix the tray ... West bot holds 1 tiles" instead
    of offering the takeback. The slot is stored with every commit (the seats' holds)."""
    from dominotable.match import opening
    from dominotable.match.referee import Table as Reflexes
    from dominotable.ui.session import Session

    table = SessionTable(tmp_path, CastleRock(players=4, options={"hands": 1}, seed=5, observed=True), NAMES, BOTS)
    table.settle()
    person = Person(table, 0, seed=5)
    while True:  # until a bot's placement has just been committed
        screen = table.screen()
        moves = len(table.game.moves)
        m = PLACE.match(screen.bot.split(": ", 1)[1]) if screen.bot and " bot: slot " in screen.bot else None
        person.step()
        if m is not None and len(table.game.moves) > moves and table.game.moves[-1].placed() is not None:
            break
    who = screen.title
    tile, slot = table.game.moves[-1].placed(), person.rack(who).slots[int(m[1]) - 1]
    # the process is killed: a new session on the same store, the tray as it lies
    table.session = Session(opening.resume(table.store, table.session.referee.seating.match_id, table.geometry,
                                           Reflexes(table.settle_ms, clock=lambda: table.now)))
    table.settle()
    assert table.session.referee.status.mode == "play", table.screen().text
    table.take(tile)
    table.put(tile, slot)
    table.settle()
    assert table.screen().title == "Take back?", table.screen().text
    table.press("select")
    assert table.game.moves[-1].placed() is not tile and table.screen().bot.startswith(who)


def _until_a_bots_placement(table, person, enough) -> None:
    for _ in range(300):
        screen = table.screen()
        if screen.bot and " slot " in screen.bot and enough():
            return
        person.step()
    raise AssertionError("no bot placement came")


def _broadway_against_three_bots(moves, seed, bound=True):
    """A chaos run's position: Broadway, ANN against East, South and West bot, `moves` made and the
    tableau laid out by the bots' hands (off their racks); the game, the seats and the tray.
    `bound`: the match bound to the tray off the racks, as the table records it (BW-11.6); not: as
    a match recorded before the room was."""
    from dominotable.match.seats import SeatKind, TableSeats
    from dominotable.rules.games.broadway.engine import Broadway

    geo, spec = default(), catalog.spec(Broadway)
    racks = geo.racks(spec.racks)
    room = spec.bounds(geo, frozenset(c for seat in (1, 2, 3) for c in racks[seat].cells)) if bound else {}
    game = Broadway(options={"hands": 1, **room}, seed=seed, observed=True)
    for move in moves:
        game.push(game.parse_move(move))
    seats = TableSeats(geo.racks(spec.racks), [SeatKind.HUMAN, *[SeatKind.BOT] * 3],
                       ["ANN", "East bot", "South bot", "West bot"], game.seed, spec.hands_for(game, geo),
                       {seat: spec.strategy(spec.bot) for seat in (1, 2, 3)})
    tray = MemoryTray(Registry.virtual(game.dset), geo)
    tray.apply_all(seats.hands.on(game.copy()).setup(tray.board()))
    return game, seats, tray


def _racked(game, racks):
    """The position with each bot seat's rack holding `racks[seat]` (tile names, slot 1 first)."""
    from dominotable.match.position import Hold, Position

    return Position(game, {seat: Hold({k + 1: game.dset.parse(t) for k, t in enumerate(tiles)}, {}, {})
                           for seat, tiles in racks.items()})


def test_regression_a_row_tile_knocked_out_of_place_while_a_bot_is_to_play_is_a_screen_not_a_crash(tmp_path):
    """Found by the chaos test: with "West bot: slot 1 (3-6) -> upright at the open end" on the OLED,
    a row tile knocked one row down (hands at work: a pending problem, not yet prompted) made drawing
    the screen raise the reader's refusal ("set 1-1 upright in the row", CR-10.1) through the bot's
    instruction, planned on the tray as it lay, and `run` ended. Now the instruction waits for a tray
    it can be planned on; the tile put back, it is there again."""
    table = SessionTable(tmp_path, castle_rock(seed=5), NAMES, BOTS)
    table.settle()
    person = Person(table, 0, seed=5)
    _until_a_bots_placement(table, person, lambda: len(table.game.row()) >= 2)
    said = table.screen().bot
    tile = table.game.row()[0]
    cells = table.tiles()[tile]
    geo = table.geometry
    table.take(tile)
    table.put(tile, tuple(geo.cell(geo.coords(c)[0] + 1, geo.coords(c)[1]) for c in cells))
    table.settle()
    assert table.screen().bot == ""  # the person's hands are at work on the row
    table.take(tile)
    table.put(tile, cells)
    table.settle()
    assert table.screen().bot == said


def test_regression_broadways_first_double_lifted_while_a_bot_is_to_play_is_a_screen_not_a_crash(tmp_path):
    """Found by the chaos test: the hand's first double lifted off the tableau while a bot's placement
    was on the OLED: planning the bot's tile needs the double (the tableau's anchor), and drawing the
    screen raised TypeError; `run` ended."""
    from dominotable.rules.games.broadway.engine import Broadway

    names = ["ANN", "East bot", "South bot", "West bot"]
    table = SessionTable(tmp_path, Broadway(options={"hands": 1}, seed=3, observed=True), names, (1, 2, 3))
    table.settle()
    person = Person(table, 0, seed=3)
    _until_a_bots_placement(table, person, lambda: len(table.game.tableau().order) >= 2)
    said = table.screen().bot
    lead = table.game.tableau().lead
    cells = table.tiles()[lead]
    table.take(lead)
    table.settle()
    assert table.screen().bot == ""
    table.put(lead, cells)
    table.settle()
    assert table.screen().bot == said


def test_regression_broadways_hands_lay_out_a_position_clear_of_the_bots_racks():
    """Found by the chaos test: the hands' layout of a stored position (`setup`, the tray as it should
    lie) replayed the moves with hands that had forgotten the racks they keep clear, so a tableau that
    had slid back inside the racks while it was played was laid out over West bot's rack; the table
    then (rightly) asked for the tile on r11c0-r11c1 to go in a slot or off the rack."""
    from dominotable.rules.games.broadway.engine import Broadway

    moves = ["lead E", "6-6@(0,0)-(0,1)", "6-3@(1,0)-(2,0)", "3-0@(2,1)-(2,2)", "2-6@(-2,1)-(-1,1)",
             "5-6@(-1,-1)-(-1,0)", "6-0@(0,2)-(1,2)", "5-5@(-1,-3)-(-1,-2)", "0-5@(-3,-3)-(-2,-3)",
             "0-4@(-3,-2)-(-3,-1)", "0-2@(-4,1)-(-3,1)", "2-4@(-2,2)-(-2,3)", "0-0@(-5,-2)-(-4,-2)",
             "2-3@(-3,2)-(-3,3)", "4-1@(-1,3)-(0,3)", "4-6@(1,-2)-(1,-1)", "3-5@(-3,-4)-(-2,-4)",
             "3-4@(1,-4)-(1,-3)", "4-5@(-1,4)-(0,4)", "3-1@(0,-4)-(0,-3)", "4-4@(-5,-1)-(-4,-1)",
             "1-6@(0,-2)-(0,-1)", "1-0@(-5,-3)-(-4,-3)", "2-2@(-4,2)-(-4,3)", "1-2@(-6,3)-(-5,3)", "1-1@(-6,1)-(-6,2)"]
    game = Broadway(options={"hands": 1}, seed=15, observed=True)
    for move in moves:
        game.push(game.parse_move(move))
    geo = default()
    racks = frozenset().union(*(rack.cells for rack in geo.racks("broadway")[1:]))
    hands = catalog.hands_for(game.copy(), geo)
    hands.keep_clear(racks)
    tray = MemoryTray(Registry.virtual(game.dset), geo)
    tray.apply_all(hands.setup(tray.board()))
    assert len(tray.tiles) == 25 and not {c for cells in tray.tiles.values() for c in cells} & racks


def test_regression_a_tile_left_from_another_match_is_no_lead_when_the_bots_racks_say_who_leads(tmp_path):
    """Found by the chaos test (Broadway with bots, after "New match"): a 6-6 left on the tray from
    the match before was stored as the new match's lead once the bots' racks were filled: the racks
    showed who leads (the one seat without a rack), and that reveal did not wait for the clear tray
    the buttons wait for (BW-11.5). Now it does: nothing is stored until the tray is cleared."""
    from dominotable.rules.games.broadway.engine import Broadway

    names = ["ANN", "East bot", "South bot", "West bot"]
    table = SessionTable(tmp_path, Broadway(options={"hands": 1}, seed=3, observed=True), names, (1, 2, 3))
    six, geo = table.game.dset.parse("6-6"), table.geometry
    table.put(six, (geo.cell(5, 7), geo.cell(5, 8)))
    table.settle()
    person = Person(table, 0, seed=3)
    person.pile.discard(six)
    person.mine = [six]  # ANN's, left on the tray
    while "from the boneyard" in table.screen().bot:
        person.step()
    assert table.game.moves == [] and table.screen().text.startswith("hand 1 on 6-6: clear the tray (1 tile)")
    table.take(six)
    table.settle()
    assert [str(m) for m in table.game.moves] == ["lead N"]
    table.put(six, (geo.cell(5, 7), geo.cell(5, 8)))
    table.settle()
    assert [str(m) for m in table.game.moves] == ["lead N", "6-6@(0,0)-(1,0)"]


def test_regression_a_bots_turn_is_worked_out_once_while_its_plan_cannot_be_stored(tmp_path, monkeypatch):
    """Found by the chaos test at length (Broadway with bots slowed to a crawl): a bot's turn not yet
    stored (here the store refuses the move that gives it the turn) was worked out again by its
    strategy on every read of the tray, and a search bot's turn takes seconds on a Pi. Now it is
    worked out once for the position and hand; the store freed, that turn is the one stored and
    shown."""
    from dominotable.match import seats
    from dominotable.rules.games.broadway.engine import Broadway

    worked = []
    monkeypatch.setattr(seats, "decide", lambda *args, **kw: worked.append(args[:2]) or decide(*args, **kw))
    names = ["ANN", "East bot", "South bot", "West bot"]
    table = SessionTable(tmp_path, Broadway(options={"hands": 1}, seed=3, observed=True), names, (1, 2, 3))
    table.settle()
    person = Person(table, 0, seed=3)
    while not (table.game.current_player == 0 and len(table.game.tableau().order) >= 3 and not table.screen().bot):
        person.step()
    moves = len(table.game.moves)
    table.store.db.execute("PRAGMA query_only = 1")
    del worked[:]
    person.broadway_turn()
    for _ in range(5):  # the table tries the refused write again, and again
        table.now += 31
        table.settle()
        assert table.screen().title == "Not recorded" and len(table.game.moves) == moves
    assert len(worked) == 1 and worked[0][1] == 1  # East bot's turn, once
    table.store.db.execute("PRAGMA query_only = 0")
    table.now += 31
    table.settle()
    plan = table.session.referee.position.holds[1].plan
    assert len(worked) == 1 and len(table.game.moves) == moves + 1
    assert plan is not None and plan.start == moves + 1
    assert table.screen().bot.startswith("East bot: ") and str(plan.moves[0].tile) in table.screen().bot


def test_regression_against_three_bots_a_pass_is_refused_while_a_tile_the_racks_leave_the_person_fits(tmp_path):
    """Found by the chaos test at length (Broadway with bots): the engine sees no rack, so it took
    a pass from the one person at the table while a tile of their hand fitted, and ruled out for
    them the tiles that fitted then (BW-10.3). Later a bot's own tile was one the engine could no
    longer place in its hand, the bot's turn could not be made and the table waited with nothing
    asked. With three bots the racks tell the person's hand (no tile is left to draw): the pass is
    refused, naming the rule, and nothing is stored (BW-11.8, BW-6.1). Issue 28: it is not even
    offered (Pass only where it can act), and the person's turn says where a tile goes instead."""
    from dominotable.rules.games.broadway.engine import Broadway, Place

    names = ["ANN", "East bot", "South bot", "West bot"]
    table = SessionTable(tmp_path, Broadway(options={"hands": 1}, seed=3, observed=True), names, (1, 2, 3))
    table.settle()
    person = Person(table, 0, seed=3)

    def fits():
        game = table.game
        return [m for m in game.legal_moves() if isinstance(m, Place) and m.tile in person.mine]

    while not (table.game.current_player == 0 and table.game.tableau().order and not table.screen().bot and fits()):
        person.step()
    moves = [str(m) for m in table.game.moves]
    referee = table.session.referee
    assert "pass" not in [a.label for a in referee.actions()] and "or pass" not in table.screen().text
    assert table.screen().text.startswith("put a tile on ")
    refused = referee.seats.why_not(referee.position, referee.game.parse_move("pass"))
    assert refused is not None and refused.rule == "BW-6.1" and "may not pass" in str(refused)
    referee.button_move(referee.game.parse_move("pass"))  # the page's old button, pressed all the same
    screen = table.screen()
    assert screen.title == "Not now" and "BW-6.1" in screen.text and "may not pass" in screen.text, screen.text
    assert [str(m) for m in table.game.moves] == moves and not table.game.state.barred[0]
    table.press("select")
    person.broadway_turn()
    assert len(table.game.moves) == len(moves) + 1 and isinstance(table.game.moves[-1], Place)


def test_regression_a_bots_tile_the_engine_rules_out_is_said_not_waited_on():
    """Found by the chaos test at length (the position is its): after a person's wrong pass
    (BW-10.3) the engine could no longer place South bot's last tile, 5-5, in its hand, and the
    table showed nothing and waited. Where the racks cannot tell a person's hand (more than one
    person at the table) such a pass still goes in; the instruction now names the rule and the
    way out (BW-11.8)."""
    from dominotable.match import steps
    from dominotable.match.position import Hold, Plan, Position

    moves = ["lead W", "6-6@(0,0)-(0,1)", "pass", "6-1@(1,1)-(1,2)", "6-2@(2,1)-(3,1)", "4-6@(2,-1)-(2,0)",
             "0-1@(0,3)-(1,3)", "1-3@(1,4)-(1,5)", "5-4@(0,-1)-(1,-1)", "1-4@(1,-3)-(1,-2)", "4-4@(2,-2)-(3,-2)",
             "0-0@(-1,3)-(-1,4)", "6-3@(3,0)-(4,0)", "2-3@(4,-2)-(4,-1)", "1-1@(2,4)-(3,4)", "2-5@(3,2)-(3,3)",
             "0-5@(-1,5)-(0,5)", "2-1@(2,2)-(2,3)", "5-3@(0,6)-(1,6)", "3-0@(-2,2)-(-2,3)", "6-5@(-2,-1)-(-1,-1)",
             "0-2@(-2,4)-(-2,5)", "2-2@(3,-3)-(4,-3)", "0-4@(0,-3)-(0,-2)", "1-5@(4,4)-(5,4)", "3-3@(5,-1)-(5,0)",
             "4-2@(-3,6)-(-2,6)", "4-3@(-1,1)-(-1,2)"]
    game, seats, tray = _broadway_against_three_bots(moves, 1356164813)
    five = game.parse_move("5-5@(4,3)-(5,3)")
    p = Position(game, {1: Hold({}, {}, {}), 2: Hold({4: five.tile}, {}, {}, Plan(2, len(moves), (five,))),
                        3: Hold({}, {}, {})})
    assert game.current_player == 2 and not game.is_legal(five)
    said = steps.waited(seats, p, tray.board())
    assert said is not None and said.who == "South bot"
    what = prompts.said(said, seats.geometry)
    assert what.startswith("5-5 is ruled out (rule BW-10.3: ") and "take back" in what


def test_regression_between_broadway_hands_the_bots_deal_waits_for_the_tray_to_be_gathered():
    """Found by the chaos test at length (the position is its): a hand over with every bot's rack
    played out, all 28 tiles on the tray, and the screen said "East bot: 7 tiles from the boneyard,
    face down, into slots 1-7": there was no boneyard to take them from. The deal is dealt from the
    last hand's tiles gathered off the tray (BW-10.6): the racks wait until it is recorded, and
    the reader's "clear the tray" is what shows meanwhile."""
    from dominotable.match import steps
    from dominotable.match.position import Hold, Position
    from dominotable.rules.hidden import DEAL

    moves = ["lead W", "6-6@(0,0)-(0,1)", "pass", "6-0@(-1,0)-(-1,1)", "6-2@(1,1)-(2,1)", "3-6@(1,-1)-(1,0)",
             "2-1@(2,0)-(3,0)", "0-1@(3,-2)-(3,-1)", "1-6@(4,0)-(5,0)", "0-3@(1,-3)-(1,-2)", "1-5@(4,-1)-(5,-1)",
             "1-3@(4,1)-(4,2)", "2-3@(2,2)-(3,2)", "5-0@(3,-4)-(3,-3)", "3-3@(3,3)-(4,3)", "2-2@(1,2)-(1,3)",
             "5-2@(-1,3)-(0,3)", "1-4@(5,1)-(5,2)", "5-4@(4,-4)-(5,-4)", "5-5@(5,-3)-(5,-2)", "0-0@(0,-4)-(1,-4)",
             "6-5@(6,0)-(6,1)", "4-0@(-2,2)-(-1,2)", "2-0@(2,-4)-(2,-3)", "4-6@(6,2)-(7,2)", "4-2@(6,3)-(6,4)",
             "4-4@(5,-5)-(6,-5)", "5-3@(4,-3)-(4,-2)", "4-3@(6,-4)-(7,-4)", "show N 1-1"]
    game, seats, tray = _broadway_against_three_bots(moves, 1356164813)
    p = Position(game, {seat: Hold({}, {}, {}) for seat in (1, 2, 3)})
    assert game.awaiting() == "deal" and len(tray.tiles) == 28  # the tableau and the 1-1 shown
    assert steps.waited(seats, p, tray.board()) is None
    assert "gather the tiles (28 left) for the deal" in seats.hands.reader.on(game.copy()).judge(tray.board()).note
    game.push(DEAL)
    said = steps.waited(seats, p, MemoryTray(Registry.virtual(game.dset), seats.geometry).board())
    assert (said.who, prompts.said(said, seats.geometry)) == ("East bot", "7 tiles from the boneyard, face down, into slots 1-7")


def test_regression_a_bots_instruction_waits_while_a_tile_lies_on_another(tmp_path):
    """Found by the chaos test at length (Broadway with bots): with "West bot: slide every tile 2
    left, 2 up" on the OLED, a tile dropped onto another left the tray unreadable, and the
    instruction planned on the tray as it lay before stayed on the screen until the prompt pause;
    a person who had slid some tiles already would slide them off the tray. Now a bot's step waits
    while the tray cannot be read, and comes back once it can (BW-11.7)."""
    from dominotable.rules.games.broadway.engine import Broadway
    from dominotable.tray.board import Board
    from dominotray import wire

    names = ["ANN", "East bot", "South bot", "West bot"]
    table = SessionTable(tmp_path, Broadway(options={"hands": 1}, seed=3, observed=True), names, (1, 2, 3))
    table.settle()
    person = Person(table, 0, seed=3)
    _until_a_bots_placement(table, person, lambda: len(table.game.tableau().order) >= 2)
    said = table.screen().bot
    cells = table.layout.cells()
    lead = table.tiles()[table.game.tableau().lead][0]
    cells[lead] = (wire.STACK, b"")
    table.session.on_board(Board(cells, table.layout.registry, table.geometry))
    table.now += table.settle_ms / 1000
    table.session.tick()
    screen = table.screen()
    assert screen.bot == "" and screen.kind == "play" and table.game.moves  # no prompt yet: hands at work
    table.settle()
    assert table.screen().bot == said


def test_regression_broadways_tableau_may_grow_over_the_side_of_the_tray_where_a_person_sits():
    """Found by the chaos test at length (the position is its): the tableau was ten rows deep, the
    depth of the zone inside all four racks, and East bot's last tile, 4-4, fitted only one row
    further out. The hands kept to the zone, so the bot's step could not be said and the table
    waited with nothing asked; a person's tile laid there was read, and then the hands could not
    lay out the stored position. North is a person and has no rack: the tableau may use that edge
    of the tray (BW-11.6)."""
    from dominotable.match import steps
    from dominotable.match.position import Hold, Plan, Position

    moves = ["lead N", "6-6@(0,0)-(1,0)", "pass", "6-1@(2,0)-(3,0)", "0-6@(2,-2)-(2,-1)", "3-6@(-1,1)-(0,1)",
             "0-3@(1,-2)-(1,-1)", "1-3@(-3,1)-(-2,1)", "6-4@(2,1)-(2,2)", "3-3@(-2,0)-(-1,0)", "1-2@(-3,2)-(-3,3)",
             "2-4@(0,2)-(1,2)", "6-2@(-2,2)-(-2,3)", "4-5@(1,3)-(2,3)", "4-3@(1,4)-(1,5)", "5-2@(2,4)-(3,4)",
             "4-0@(1,-4)-(1,-3)", "5-6@(2,5)-(3,5)", "2-3@(0,3)-(0,4)", "4-1@(2,-4)-(3,-4)", "1-5@(3,-3)-(3,-2)",
             "5-3@(-1,-1)-(0,-1)", "2-2@(-1,2)-(-1,3)", "2-0@(-1,-3)-(0,-3)", "0-5@(3,2)-(3,3)", "5-5@(4,3)-(5,3)",
             "1-0@(4,1)-(4,2)", "1-1@(4,0)-(5,0)", "0-0@(5,1)-(5,2)"]
    game, seats, tray = _broadway_against_three_bots(moves, 1356164813)
    four = game.parse_move("4-4@(0,-5)-(0,-4)")
    p = Position(game, {1: Hold({2: four.tile}, {}, {}, Plan(1, len(moves), (four,))), 2: Hold({}, {}, {}),
                        3: Hold({}, {}, {})})
    rows = [seats.geometry.coords(c)[0] for cells in tray.tiles.values() for c in cells]
    assert max(rows) - min(rows) + 1 == 10 and game.is_legal(four)
    said = steps.waited(seats, p, tray.board())
    assert (said.who, prompts.said(said, seats.geometry)) == ("East bot", "slot 2 (4-4) -> r0c7-r1c7")


def test_regression_a_broadway_tile_that_fits_only_beside_a_rack_is_laid_there():
    """Found by the chaos test at length (the position is its): the tableau filled the twelve
    columns inside the side racks, and the person's one legal tile, 1-1, fitted only in the column
    beside West bot's rack, where no slot lies. The hands kept to the rectangle inside the racks,
    so they had no room for it and the person could neither play nor pass (BW-6.1). The readers
    reach under every cell: the tile goes there, and so does laying out that position again
    (BW-11.6)."""

    moves = ["lead E", "6-6@(0,0)-(0,1)", "2-6@(-1,2)-(0,2)", "1-2@(-1,0)-(-1,1)", "1-6@(-1,-1)-(0,-1)",
             "0-1@(-1,-3)-(-1,-2)", "2-0@(-3,-3)-(-2,-3)", "4-2@(-3,-5)-(-3,-4)", "0-0@(-2,-4)-(-1,-4)",
             "6-5@(1,-1)-(1,0)", "5-2@(-3,2)-(-2,2)", "3-5@(-3,0)-(-3,1)", "0-6@(0,-2)-(1,-2)", "3-2@(-2,0)-(-2,1)",
             "0-5@(0,-4)-(1,-4)", "3-3@(-3,-2)-(-3,-1)", "2-2@(-5,-4)-(-4,-4)", "0-3@(-2,-2)-(-2,-1)",
             "5-4@(2,0)-(3,0)", "0-4@(3,-2)-(3,-1)", "3-6@(0,-3)-(1,-3)", "1-3@(-4,-3)-(-4,-2)", "4-6@(4,0)-(5,0)",
             "4-4@(4,-2)-(4,-1)", "4-1@(-6,-3)-(-5,-3)", "3-4@(-4,-1)-(-4,0)", "5-5@(1,1)-(2,1)", "1-5@(-5,-2)-(-5,-1)"]
    game, seats, tray = _broadway_against_three_bots(moves, 1156181830)
    geo, hands = seats.geometry, seats.hands
    racks = geo.racks("broadway")
    one = game.parse_move("1-1@(-7,-2)-(-6,-2)")
    assert [str(m) for m in game.legal_moves()] == [str(one)] and not game.is_legal(game.parse_move("pass"))
    actions = hands.on(game.copy()).actions(one, tray.board())
    assert [(a.kind, [geo.label(c) for c in a.cells]) for a in actions] == [
        (ActionKind.PLACE, ["r4c1 (cell 65)", "r4c2 (cell 66)"])]
    assert not set(actions[0].cells) & racks[3].cells
    game.push(one)
    again = MemoryTray(Registry.virtual(game.dset), geo)
    again.apply_all(hands.on(game.copy()).setup(again.board()))
    assert len(again.tiles) == len(tray.tiles) + 1 and not {c for cs in again.tiles.values() for c in cs} & (
        frozenset().union(*(rack.cells for rack in racks[1:])))


def test_regression_in_a_match_recorded_before_the_room_a_bots_tile_with_no_room_is_said_not_waited_on():
    """Found by the chaos test at length (the position is its): the tableau was eleven rows deep,
    every row off South bot's rack, and East bot's one tile, 0-0, fitted only in a twelfth. Its
    turn could not be shown and the table waited with nothing asked. A match recorded before the
    table bound the tableau to the tray (its engine knows no room) still can get there: the
    instruction says there is no room, how much the tableau would need, and the way out."""
    from dominotable.match import steps
    from dominotable.match.position import Hold, Plan, Position

    moves = ["lead E", "6-6@(0,0)-(0,1)", "0-6@(-1,2)-(0,2)", "0-3@(-1,3)-(-1,4)", "5-0@(-2,1)-(-1,1)",
             "3-1@(-2,4)-(-2,5)", "1-0@(-3,2)-(-2,2)", "1-2@(-2,6)-(-2,7)", "2-0@(-2,0)-(-1,0)", "2-4@(-2,8)-(-2,9)",
             "3-5@(0,4)-(1,4)", "3-4@(0,5)-(0,6)", "6-3@(0,-1)-(1,-1)", "5-5@(-3,0)-(-3,1)", "4-1@(1,6)-(2,6)",
             "1-6@(1,0)-(1,1)", "3-2@(1,5)-(2,5)", "4-4@(-1,8)-(-1,9)", "6-5@(0,3)-(1,3)", "4-5@(1,7)-(1,8)",
             "4-6@(2,7)-(3,7)", "5-2@(-1,6)-(-1,7)", "2-2@(-2,-1)-(-1,-1)", "1-1@(-3,5)-(-3,6)", "1-5@(-4,-1)-(-3,-1)",
             "pass", "6-2@(-4,7)-(-3,7)", "4-0@(0,7)-(0,8)", "3-3@(-3,3)-(-2,3)"]
    game, seats, tray = _broadway_against_three_bots(moves, 1356164813, bound=False)
    zero = game.parse_move("0-0@(0,9)-(0,10)")
    p = Position(game, {1: Hold({3: zero.tile}, {}, {}, Plan(1, len(moves), (zero,))), 2: Hold({}, {}, {}),
                        3: Hold({}, {}, {})})
    assert game.is_legal(zero) and all(m.tile == zero.tile for m in game.legal_moves())
    said = steps.waited(seats, p, tray.board())
    what = prompts.said(said, seats.geometry)
    assert said is not None and said.who == "East bot" and what.startswith("no room on the tray for 0-0 (")
    assert "12 deep" in what and what.endswith("take back a move, or resign")


def test_broadway_at_the_table_is_bound_to_the_tray_off_the_bots_racks(tmp_path):
    """Rule BW-11.6: a new match records, in its options, the tray it is played on and the cells
    the bots' racks take, and the store's replay judges with them. In the chaos run's position
    where East bot's only tile, 0-0, needed a twelfth row (row 11 is South bot's rack), 0-0 is
    refused by the rule, nobody can play on the tray, so the hand ends and the table shows East
    bot's 0-0 from its rack itself (BW-10.5): no "take back or resign" for a tray too small."""
    from dominotable.app.commands.replay import match_lines
    from dominotable.rules.games.broadway.engine import Broadway
    from dominotable.rules.games.broadway.room import room_of
    from dominotable.rules.hidden import Reveal

    names = ["ANN", "East bot", "South bot", "West bot"]
    table = SessionTable(tmp_path, Broadway(options={"hands": 1}, seed=3, observed=True), names, (1, 2, 3))
    game, geo = table.game, default()
    racks = geo.racks(catalog.spec(game).racks)
    room = room_of(game.options.room)
    assert (room.columns, room.rows) == (geo.columns, geo.rows)
    assert room.blocked == {geo.coords(c) for seat in (1, 2, 3) for c in racks[seat].cells}
    record = table.store.match(table.session.referee.seating.match_id)
    assert record.options["room"] == game.options.room and replay(record).options.room == game.options.room
    head = match_lines(record.to_dict(), replay(record), names)[0]
    assert "hands=1" in head and "room" not in head  # the history says what people chose, not the tray's cells

    moves = ["lead E", "6-6@(0,0)-(0,1)", "0-6@(-1,2)-(0,2)", "0-3@(-1,3)-(-1,4)", "5-0@(-2,1)-(-1,1)",
             "3-1@(-2,4)-(-2,5)", "1-0@(-3,2)-(-2,2)", "1-2@(-2,6)-(-2,7)", "2-0@(-2,0)-(-1,0)", "2-4@(-2,8)-(-2,9)",
             "3-5@(0,4)-(1,4)", "3-4@(0,5)-(0,6)", "6-3@(0,-1)-(1,-1)", "5-5@(-3,0)-(-3,1)", "4-1@(1,6)-(2,6)",
             "1-6@(1,0)-(1,1)", "3-2@(1,5)-(2,5)", "4-4@(-1,8)-(-1,9)", "6-5@(0,3)-(1,3)", "4-5@(1,7)-(1,8)",
             "4-6@(2,7)-(3,7)", "5-2@(-1,6)-(-1,7)", "2-2@(-2,-1)-(-1,-1)", "1-1@(-3,5)-(-3,6)", "1-5@(-4,-1)-(-3,-1)",
             "pass", "6-2@(-4,7)-(-3,7)", "4-0@(0,7)-(0,8)"]
    game, seats, tray = _broadway_against_three_bots(moves, 1356164813)
    zero = game.parse_move("0-0@(0,9)-(0,10)")
    game.push(game.parse_move("3-3@(-3,3)-(-2,3)"))
    assert not room_of(game.options.room).holds(game.tableau().grid, zero.cells)
    assert game.awaiting() == "show" and game.hands_played() == 0
    show = seats.hands.on(game.copy()).rack_reveal({1: [zero.tile], 2: [], 3: []}, tray.board())
    assert show == Reveal("show", (zero.tile,), "E")


def test_a_stray_tile_on_the_tray_is_named_not_taken_for_a_tableau_with_no_room():
    """Found by the chaos test (Broadway against three bots): a tile lying on the tray outside the
    tableau (on its way, or left there) made the hands count it into the tableau's size, and a bot's
    placement the tray has room for was said as "no room on the tray: take back a move, or
    resign". The hands now name the stray tile instead (NotShown: nothing is said for the bot until
    it is off, and the reader prompts for it); without it the placement is laid and reads back."""
    from dominotable.sim.hands.base import NotShown

    moves = ["lead N", "6-6@(0,0)-(1,0)", "3-6@(1,-2)-(1,-1)", "1-6@(0,1)-(1,1)", "3-5@(0,-2)-(0,-1)",
             "2-3@(-2,-2)-(-1,-2)", "2-2@(-2,-1)-(-2,0)", "1-2@(-3,-3)-(-2,-3)", "0-2@(-2,-5)-(-2,-4)",
             "2-6@(-1,-3)-(0,-3)", "6-5@(1,2)-(1,3)", "6-4@(0,-4)-(1,-4)", "3-1@(-3,-5)-(-3,-4)", "1-1@(-2,1)-(-1,1)",
             "3-0@(-1,-6)-(-1,-5)", "4-2@(2,-4)-(3,-4)", "1-5@(-3,1)-(-3,2)"]
    game, seats, tray = _broadway_against_three_bots(moves, 0)
    geo, three = seats.geometry, game.parse_move("3-3@(-1,-7)-(0,-7)")
    assert game.is_legal(three)  # the tray has room for it (BW-11.6)
    stray = MemoryTray.of(tray.board())
    stray.place(game.dset.parse("0-0"), (geo.cell(10, 1), geo.cell(10, 2)))
    with pytest.raises(NotShown, match="0-0 on the tray but not in the tableau: take it off first"):
        seats.hands.on(game.copy()).actions(three, stray.board())
    tray.apply_all(seats.hands.on(game.copy()).actions(three, tray.board()))
    assert seats.hands.reader.on(game.copy()).judge(tray.board()).moves == (three,)


def test_regression_a_bots_captures_taken_in_another_grouping_leave_a_plan_the_row_allows():
    """Found by the chaos test (Castle Rock with bots; the position and plan are its): West bot's
    plan took 1-1, 0-6, 4-6, 2-6 and 1-6 as x1-1, x0-6, x4-6+2-6+1-6. Its tiles taken off read as
    x1-1 and then x2-6+0-6+1-6, the same tiles in another grouping, which the table took (CR-10).
    The plan kept x4-6+2-6+1-6 for what was left, a capture of tiles already gone, and the OLED said
    it was "ruled out (rule CR-5.2 ...): take back ..., or resign". Now what is left is regrouped into
    captures the row allows after the reading; where none can take it, the reading is refused and
    the tiles are put back."""
    from dominotable.match.position import Hold, Plan, Position
    from dominotable.match.seats import SeatKind, TableSeats

    game = CastleRock(players=4, options={"hands": 1}, seed=1616483960, observed=True)
    for text in ["lots 1-2 3-4 1-3 0-1", "row 2-3 0-5 4-6 4-4", "2-6", "x4-4", "end", "1-1", "end", "0-6", "end",
                 "1-6"]:
        game.push(game.parse_move(text))
    geo, spec = default(), catalog.spec(game)
    seats = TableSeats(geo.racks(spec.racks), [SeatKind.HUMAN, *[SeatKind.BOT] * 3], NAMES, game.seed,
                       spec.hands_for(game, geo), {seat: spec.strategy(spec.bot) for seat in BOTS})
    tray = MemoryTray(Registry.virtual(game.dset), geo)
    tray.apply_all(seats.hands.on(game.copy()).setup(tray.board()))
    parse = game.parse_move

    def position(plan):
        holds = {1: Hold({1: game.dset.parse("1-4")}, {}, {}, Plan(1, 10, tuple(map(parse, plan)))),
                 2: Hold({1: game.dset.parse("1-3"), 2: game.dset.parse("3-4")}, {}, {}),
                 3: Hold({1: game.dset.parse("0-2"), 2: game.dset.parse("1-5")}, {}, {})}
        return Position(game.copy(), holds)

    p = position(["x1-1", "x0-6", "x4-6+2-6+1-6", "end"])
    problem, plans = seats.vet(p, [parse("x1-1"), parse("x2-6+0-6+1-6")], tray.board())
    assert problem is not None and prompts.fixed(problem, geo).startswith(
        "put 2-6, 0-6 and 1-6 back: West bot takes them another way")
    assert plans == []

    p = position(["x0-6", "x1-1", "x4-6+2-6+1-6", "end"])
    problem, plans = seats.vet(p, [parse("x1-1")], tray.board())
    assert problem is None
    after = p.copy()
    for plan in plans:
        after.apply(plan)
    after.game.push(parse("x1-1"))
    rest, _ = seats.turn(after, tray.board())
    for move in rest:  # every move left is legal in turn
        assert after.game.why_illegal(move) is None, move
        after.game.push(move)
    assert {str(t) for m in rest for t in m.taken()} == {"0-6", "4-6", "2-6", "1-6"} and str(rest[-1]) == "end"


def test_regression_a_tile_exposed_as_a_bots_is_refused_unless_its_rack_holds_it():
    """Found by the chaos test (Broadway against three bots): a person held their own 1-4 over the
    pad and chose "expose 1-4 (South's)". The engine took it, counted it out of South's hand, and
    later left ANN to play with only tiles lying in the bots' racks: no move could be made. The
    racks say whose a tile is, so the exposure is refused naming the rack (BW-11.4)."""
    from dominotable.rules.games.broadway.engine import Expose

    moves = ["lead S", "6-6@(0,0)-(1,0)", "5-6@(1,-2)-(1,-1)", "2-6@(-1,-1)-(0,-1)", "3-2@(-1,-3)-(-1,-2)"]
    game, seats, tray = _broadway_against_three_bots(moves, 1156181830)
    parse = game.dset.parse
    racks = {1: ["0-0", "1-1", "2-2", "3-3", "4-4", "5-5"], 2: ["0-1", "0-2", "0-3", "0-4", "0-5", "0-6"],
             3: ["1-2", "1-3", "1-5", "1-6", "2-4", "2-5"]}
    p = _racked(game, racks)
    assert game.is_legal(Expose(2, parse("1-4")))  # the engine cannot tell
    assert str(seats.why_not(p, Expose(2, parse("1-4")))) == "rule BW-11.4: South bot's rack does not hold 1-4"
    assert seats.why_not(p, Expose(0, parse("1-4"))) is None  # ANN's own tile
    assert game.is_legal(Expose(0, parse("1-1")))
    assert str(seats.why_not(p, Expose(0, parse("1-1")))) == ("rule BW-11.4: 1-1 lies in East bot's rack: a bot's tile "
                                                            "is never exposed, put it back in slot 2")


def test_regression_who_leads_against_bots_waits_for_the_racks_and_follows_them():
    """Found by the chaos test at length (Broadway against three bots, seed 1156181830): before the
    bots' racks were full the person chose "North leads" with the buttons; then the deal put 6-6 in
    South bot's rack, and the hand waited for North to lay a double no one could lay. Who leads is
    what the racks say once they are full, so a choice before then waits, and a choice they
    contradict is refused naming the rack (BW-11.5)."""
    from dominotable.rules.hidden import Reveal

    game, seats, tray = _broadway_against_three_bots([], 1156181830)
    racks = {1: ["2-6", "1-6", "2-3", "0-2", "0-1", "0-6", "1-2"], 2: ["6-6", "3-6", "1-3", "5-6", "2-2", "4-5", "3-3"],
             3: ["0-3", "2-5", "0-0", "4-4", "1-1", "1-5", "4-6"]}
    north, south = Reveal("lead", (), "N"), Reveal("lead", (), "S")
    assert game.awaiting() == "lead" and game.is_legal(north)
    dealing = _racked(game, {**racks, 2: racks[2][1:]})  # 6-6 not yet dealt to South
    assert str(seats.why_not(dealing, north)) == ("rule BW-11.5: who leads waits until every bot's rack is full: "
                                                  "the racks tell who holds 6-6")
    full = _racked(game, racks)
    assert str(seats.why_not(full, north)) == "rule BW-11.5: 6-6 lies in South's rack: South leads"
    assert seats.why_not(full, south) is None
    swapped = _racked(game, {**racks, 2: ["5-5", *racks[2][1:]]})  # 6-6 in no rack: the person's
    assert str(seats.why_not(swapped, Reveal("lead", (), "E"))) == "rule BW-11.5: East's rack does not hold 6-6"
    assert seats.why_not(swapped, north) is None


def test_regression_a_bots_own_tile_is_never_exposed():
    """Found by the chaos test at length (Broadway against three bots, seed 1156181830): a tile
    lifted out of West bot's rack, held over the pad and exposed as West's was taken (the rack
    held it). The table then asked for it back in the rack ("put the tile from slot 6 back") while
    the engine waited for its placers to lay it; laid, it stayed in West's hold, so the rack still
    asked for a tile lying on the tableau, and put back, no person could lay it: a match nobody
    could move on. A bot shows nothing: its tile goes back to its slot, and choosing to expose it
    is refused naming the slot (BW-11.4)."""
    from dominotable.rules.games.broadway.engine import Expose
    from dominotable.tray.action import Action, ActionKind

    moves = ["lead S", "6-6@(0,0)-(1,0)", "0-6@(-1,-1)-(-1,0)"]
    game, seats, tray = _broadway_against_three_bots(moves, 1156181830)
    parse = game.dset.parse
    racks = {1: ["1-1", "2-2", "3-3", "4-4", "5-5", "1-2", "1-3"], 2: ["0-1", "0-2", "0-3", "0-4", "0-5", "1-4"],
             3: ["1-5", "1-6", "2-3", "2-4", "2-5", "3-6"]}
    p = _racked(game, racks)
    for seat, tiles in racks.items():
        for slot, tile in enumerate(tiles):
            tray.place(parse(tile), seats.racks[seat].slots[slot])
    tile = parse("3-6")
    tray.apply(Action(ActionKind.REMOVE, tile))
    tray.apply(Action(ActionKind.PAD, tile))
    expose = Expose(3, tile)
    assert game.is_legal(expose) and any(m == expose for _, m in seats.hands.reader.on(game.copy()).button_moves(
        seats.without_racks(tray.board())[0]))
    assert prompts.fixed(seats.read(p.copy(), tray.board())[1], seats.geometry) == (
        "take the tile off the scan pad and put it back in slot 6 of West bot's rack, face down: a bot's tile "
        "is never shown (rule BW-11.4)")  # issue 28, Why 3b: it said to choose 'expose' instead
    assert str(seats.why_not(p, expose)) == ("rule BW-11.4: 3-6 lies in West bot's rack: a bot's tile is never "
                                             "exposed, put it back in slot 6")


def test_regression_against_three_bots_a_pass_waits_while_a_bots_rack_is_not_full(tmp_path):
    """Found by the chaos test (Broadway against three bots, on the final code of the stop that
    added BW-11.8): a person passed while a bot's tile was out of its rack, so the table could not
    tell their hand and took the pass on trust; it ruled out tiles the person really held, and
    later they had no move. The pass now waits until every rack is full (BW-11.8)."""
    from dominotable.rules.moves import Pass

    moves = ["lead S", "6-6@(0,0)-(1,0)", "0-6@(-1,-1)-(-1,0)"]
    game, seats, tray = _broadway_against_three_bots(moves, 1156181830)
    racks = {1: ["1-1", "2-2", "3-3", "4-4", "5-5", "1-2", "1-3"], 2: ["0-1", "0-2", "0-3", "0-4", "0-5", "1-4"],
             3: ["1-5", "1-6", "2-3", "2-4", "2-5", "2-6"]}
    full = _racked(game, racks)
    assert game.current_player == 0 and seats.why_not(full, Pass()) is not None  # ANN holds a tile that fits
    short = full.copy()
    del short.holds[1].rack[7]
    assert "a pass waits until every bot's rack is full again" in str(seats.why_not(short, Pass()))


def test_regression_the_racks_lead_only_once_every_bots_rack_is_full():
    """Issue 28, Why 3b: the lead was recorded before every bot's rack was full: `lead S` right after
    South's rack was filled, West's dealt 20 s later (seed 3, hand 1). The racks decide who leads
    once every bot's rack is full (BW-11.5): until then no lead is made, then the one they say."""
    from dominotable.rules.hidden import Reveal

    game, seats, tray = _broadway_against_three_bots([], 3)
    racks = {1: ["2-6", "1-6", "2-3", "0-2", "0-1", "0-6", "1-2"], 2: ["6-6", "3-6", "1-3", "5-6", "2-2", "4-5", "3-3"],
             3: ["0-3", "2-5", "0-0", "4-4", "1-1", "1-5", "4-6"]}
    board = tray.board()
    assert seats.traceless(_racked(game, {1: racks[1], 2: racks[2], 3: racks[3][:3]}), board)[0] is None
    assert seats.traceless(_racked(game, {1: racks[1], 2: racks[2]}), board)[0] is None  # West's not dealt
    assert seats.traceless(_racked(game, racks), board)[0] == Reveal("lead", (), "S")


def test_regression_who_leads_is_offered_whoever_the_engine_guesses_is_to_move(tmp_path):
    """Issue 28, Why 3c: Broadway against bots stuck on "choose who leads with the buttons" with no
    lead offered, when the deal the engine guessed gave the double to a bot (about half the runs):
    the buttons were not offered while a bot was "to move". A reveal is the table's to make: the
    leads the racks allow are offered (two people, two bots, the double in no rack: either person)."""
    from dominotable.rules.games.broadway.engine import Broadway

    names = ["ANN", "East bot", "CAT", "West bot"]
    for seed in range(1, 40):  # a deal the engine guesses with a bot to move
        game = Broadway(options={"hands": 1}, seed=seed, observed=True)
        if game.current_player in (1, 3):
            break
    table = SessionTable(tmp_path, game, names, (1, 3))
    table.settle()
    referee = table.session.referee
    double = referee.game.hand_info().double
    pile = [t for t in referee.game.dset.tiles if t is not double]
    for seat in (1, 3):  # the racks dealt, the double in neither
        for k, slot in enumerate(referee.seats.racks[seat].slots):
            table.put(pile.pop(), slot)
    table.settle()
    assert referee.game.awaiting() == "lead" and referee.game.current_player in (1, 3)
    assert "choose who leads" in table.screen().text
    leads = [a.label for a in referee.actions() if a.kind == "move"]
    assert leads == ["North leads", "South leads"], leads
