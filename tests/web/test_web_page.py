"""The table page in a real browser (Debian's Chromium under Playwright, tests/support/browser.py): a
Castle Rock hand played by dragging tiles on the page, with an illegal capture prompted on the
page and in its OLED mirror and then put right (rules CR-5.x, CR-10); a Broadway lead laid in
the wrong orientation, refused naming the seat (rule BW-11.2); the scoreboard following a bots'
match live; a phone logging in with the token (README, Security). The README's screenshots come
from here (DOMINOTABLE_WRITE_DOCS=1 writes them into docs/)."""

from __future__ import annotations

import base64
import io
import time

from dominotable.app.demo import TableBots
from dominotable.games import catalog
from dominotable.match.status import Mode
from dominotable.rules.games.broadway.engine import SEATS
from dominotable.sim.memtray import MemoryTray
from dominotable.store.storage import Store
from dominotable.tray.action import Action, ActionKind
from dominotable.ui.oled import screens
from PIL import Image
from support.browser import PageHands, screenshot
from support.polling import until
from support.web_table import LiveTable, lan_address

TOKEN = "staff-only-7"


def mirror(page) -> bytes:
    """The OLED mirror's pixels, as the page shows them."""
    src = page.locator("#oled").get_attribute("src")
    assert src.startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))
    assert image.size == (128, 64)
    return image.convert("1").tobytes()


def snapshot(table):
    with table.runtime.lock:
        r = table.referee
        return r.game.copy(), r.status.mode, table.runtime.session.menu is None


def illegal_capture(table):
    """A tile of the row whose taking away the reader refuses now, with its cells; or None."""
    game, mode, no_menu = snapshot(table)
    if mode != Mode.PLAY or not no_menu or game.is_over():
        return None
    reader = catalog.reader_for(game, table.vtray.geometry)
    if reader.pad_draw() is not None or reader.provisional():  # this turn's captures are judged as a whole
        return None
    tray = MemoryTray(table.vtray.registry, table.vtray.geometry)
    tray.tiles = table.vtray.tiles()
    row = reader.row_placements(tray.board())
    if len(row) < 4:
        return None
    for placement in row[1:-1]:
        after = MemoryTray(tray.registry, tray.geometry)
        after.tiles = {t: c for t, c in tray.tiles.items() if t is not placement.tile}
        verdict = reader.judge(after.board())
        if verdict.problem and not verdict.pending and str(placement.tile) in verdict.problem \
                and "(rule CR-5.1)" in verdict.problem:
            return placement.tile, tray.tiles[placement.tile], verdict.problem
    return None


def by_hand(page, table, seed: int) -> tuple[PageHands, TableBots]:
    """The table page open, and bots whose hands drag and click on it."""
    page.goto(table.url + "/")
    page.locator("#tray svg").wait_for()
    hands = PageHands(page, table)
    return hands, TableBots(table.runtime, seed=seed, perform=hands.perform, press=hands.press, timeout=15)


def play(table, bots, until, limit=600):
    for _ in range(limit):
        if until():
            return
        before = bots.moves
        bots.one_move()
        assert bots.error is None, bots.error
        if bots.moves == before:
            time.sleep(0.02)
    raise AssertionError("the match did not get there")


def test_castle_rock_hand_by_dragging_tiles_with_an_illegal_capture_and_its_recovery(page, tmp_path):
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock", seed=2)
    try:
        hands, bots = by_hand(page, table, seed=2)
        found = []

        def illegal_or_over():
            if not found:
                found.extend(illegal_capture(table) or [])
            return bool(found) or table.referee.game.is_over()

        play(table, bots, illegal_or_over)
        assert found, "no illegal capture came up in the hand"
        tile, cells, prompt = found
        moves, alarms = len(table.referee.game.moves), table.referee.status.alarms
        hands.do(Action(ActionKind.REMOVE, tile))  # dragged off the tray: a capture the rules refuse
        page.locator("#prompt", has_text=prompt).wait_for(timeout=10_000)
        with table.runtime.lock:
            notice = table.referee.status.notice
        assert notice.text == prompt and table.referee.status.alarms > alarms  # the alarm sounded
        shown = screens.prompt(notice.title, notice.text).convert("1").tobytes()
        until(lambda: mirror(page) == shown, 5)
        assert mirror(page) == shown == table.frames.images[-1].convert("1").tobytes()  # pixel-exact
        assert len(table.referee.game.moves) == moves
        screenshot(page, "table-page.png", tmp_path)

        hands.do(Action(ActionKind.PLACE, tile, cells))  # put back where it stood
        table.reaches(lambda r: r.status.problem is None, "the row put right")
        page.locator("#prompt-box:not(.problem)").wait_for(timeout=10_000)
        assert len(table.referee.game.moves) == moves

        play(table, bots, lambda: table.referee.game.is_over())
        game = table.referee.game
        with Store(table.db, create=False) as store:  # a reader beside the table
            record = store.match(table.runtime.match_id)
        assert record.finished is not None and record.moves == [str(m) for m in game.moves]
        page.locator("#prompt-title", has_text="Match over").wait_for(timeout=10_000)
        shown = [int(p) for p in page.locator("#scores td:nth-child(2)").all_inner_texts()]
        assert shown == game.scores
    finally:
        table.close()


def wrongly_turned(table):
    """A placement the engine would take, turned across the placer's axis: the tile, its cells,
    and the refusal the reader gives for it; or None."""
    game, mode, no_menu = snapshot(table)
    if mode != Mode.PLAY or not no_menu or len(game.tableau().order) < 2 or game.awaiting() is not None:
        return None  # (past the lead: a refused second tile would read as the lead taken back)
    geo = table.vtray.geometry
    reader = catalog.reader_for(game, geo)
    hands = catalog.hands_for(game, geo)
    tray = MemoryTray(table.vtray.registry, geo)
    tray.tiles = table.vtray.tiles()
    taken = {c for cells in tray.tiles.values() for c in cells}
    for move in game.legal_moves():
        places = [a for a in hands.actions(move, tray.board()) if a.kind == ActionKind.PLACE]
        if len(places) != 1:
            continue
        tile, (here, there) = places[0].tile, places[0].cells
        (r0, c0), (r1, c1) = geo.coords(here), geo.coords(there)
        row, col = r0 + (c1 - c0), c0 + (r1 - r0)  # the other half turned a quarter round
        if not (0 <= row < geo.rows and 0 <= col < geo.columns) or geo.cell(row, col) in taken:
            continue
        wrong = (here, geo.cell(row, col))
        after = MemoryTray(tray.registry, geo)
        after.tiles = {**tray.tiles, tile: wrong}
        verdict = reader.judge(after.board())
        if verdict.problem and "plays tiles" in verdict.problem:
            return tile, wrong, (here, there), verdict.problem
    return None


def test_broadway_placement_turned_the_wrong_way_is_refused_naming_the_seat(page, tmp_path):
    table = LiveTable(tmp_path / "t.sqlite3", "broadway", seed=1)
    try:
        hands, bots = by_hand(page, table, seed=1)
        found = []

        def placement_due():
            found.extend(wrongly_turned(table) or [])
            return bool(found)

        play(table, bots, placement_due)
        tile, wrong, right, refusal = found
        moves = len(table.referee.game.moves)
        hands.do(Action(ActionKind.PLACE, tile, wrong))
        page.locator("#prompt", has_text=refusal).wait_for(timeout=10_000)
        seat = SEATS[table.referee.game.current_player]
        assert f"Broadway: {seat} plays tiles" in refusal and f"turn {tile} (rule BW-11.2)" in refusal
        assert page.locator("#tray rect.named").count() == 2  # the refused tile's two cells
        assert len(table.referee.game.moves) == moves

        hands.do(Action(ActionKind.SLIDE, tile, right))  # turned on the page: r while dragging
        table.reaches(lambda r: len(r.game.moves) == moves + 1 and r.status.problem is None, "the placement taken")
        page.locator("#prompt-box:not(.problem)").wait_for(timeout=10_000)

        page.keyboard.press("m")  # the buttons on the keys: m holds select, the in-game menu opens
        page.locator("#prompt-title", has_text="Menu").wait_for(timeout=10_000)
        page.keyboard.press("w")  # up from the first item: the last one, Back
        page.keyboard.press("Enter")
        table.reaches(lambda c: table.runtime.session.menu is None, "the menu closed")
        assert len(table.referee.game.moves) == moves + 1
    finally:
        table.close()


def test_scoreboard_follows_a_bots_match_live_and_escapes_names(page, tmp_path):
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock", seed=3, names=["ANN <THE ROCK>", "BOB & CO"])
    try:
        page.goto(table.url + "/scores")
        page.locator("#live-title", has_text="Castle Rock").wait_for()
        seen = set()
        bots = TableBots(table.runtime, seed=3)
        while not table.referee.game.is_over():  # in step: the page caught up with each move before the next
            with table.runtime.lock:
                made = len(table.referee.game.moves)
            page.wait_for_function("(n) => document.body.dataset.moves === n", arg=str(made))
            seen.add((tuple(page.locator("#live-scores .points").all_inner_texts()),
                      page.locator("#live-turn").inner_text(), page.locator("body").get_attribute("data-moves")))
            bots.one_move()
            assert bots.error is None, bots.error
        final = [str(s) for s in table.referee.game.scores]
        page.locator("#live-scores .points").first.wait_for()
        page.wait_for_function("(want) => [...document.querySelectorAll('#live-scores .points')]"
                               ".map((e) => e.textContent).join(',') === want", arg=",".join(final))
        assert len({moves for _, _, moves in seen}) >= 5  # the page followed the moves as they were made
        assert {turn for _, turn, _ in seen} >= {"ANN <THE ROCK> to play", "BOB & CO to play"}
        assert ("0", "0") in {points for points, _, _ in seen} and final != ["0", "0"]
        assert page.locator("#live-scores .name").all_inner_texts() == ["ANN <THE ROCK>", "BOB & CO"]
        assert page.locator("#live the, #live rock").count() == 0  # names are text, never markup
        # the card drawn as the match began has its plot too: wait for the one fetched once it ended
        page.locator('#matches .match[data-match="1"]', has_text="won by").locator("svg.plot").wait_for(timeout=10_000)
        page.locator("#boards th", has_text="ANN <THE ROCK>").wait_for()
        assert page.locator("#matches the, #boards the").count() == 0
        assert "ANN &lt;THE ROCK&gt;" in page.locator('#matches .match[data-match="1"] svg.plot').inner_html()
        screenshot(page, "scoreboard.png", tmp_path, full_page=True)

        page.goto(table.url + "/replay/1?step=3")
        assert "move 3 of" in page.locator(".step").inner_text()
        assert page.locator("#tray g.tile").count() >= 1
        page.click("#next")
        assert "move 4 of" in page.locator(".step").inner_text()
    finally:
        table.close()


def test_a_phone_logs_in_with_the_token_and_then_controls_the_page(page, tmp_path):
    """What the README's Security section tells the staff: open the page from another machine,
    follow "log in to play", type the [web] token once; the browser keeps an HttpOnly cookie."""
    lan = LiveTable(tmp_path / "t.sqlite3", "castle-rock", host=lan_address(), token=TOKEN)
    try:
        page.goto(lan.url + "/")
        login = page.locator("#login")
        login.wait_for()  # offered: the page is read-only here
        assert page.locator("#buttons").is_hidden()
        login.click()
        page.locator("#status", has_text="may only watch").wait_for()
        page.fill("#token", "not-it")
        page.click("#login button")
        page.locator("#error", has_text="not the table's token").wait_for()
        page.fill("#token", TOKEN)
        with page.expect_navigation():
            page.click("#login button")
        page.locator("#buttons").wait_for()
        assert page.locator("#login").is_hidden()
        with page.expect_response("**/api/button") as response:
            page.click("#btn-down")
        assert response.value.ok
        cookie = next(c for c in page.context.cookies() if c["name"] == "dominotable")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert page.evaluate("document.cookie") == ""  # the page's scripts never see it
        page.goto(lan.url + "/login")
        page.locator("#status", has_text="controls the table").wait_for()
        page.click("#logout")
        page.locator("#status", has_text="may only watch").wait_for()
    finally:
        lan.close()
