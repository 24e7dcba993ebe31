"""The page's hands on the simulated tray, in Chromium (issue 28, items 4, 7, 8 and 9 of the Why,
each a test): a refusal is said beside the prompt in words and outlined on the tray where it
happened, never a silent snap back; a tile that cannot turn says why; a tile is picked up by
typing its pips and focus stays where play goes on; a double's place is listed once; the dragged
tile keeps its pips and each place it may go is outlined apart; the boneyard and the captured
tiles are lists of their own; the setup speaks of strengths and options in plain words; a stopped
table's page turns its controls off and says why."""

from __future__ import annotations

import re

from dominotable.app.demo import TableBots
from dominotable.match.status import Mode
from dominotable.tray.action import Action, ActionKind
from playwright.sync_api import expect
from support.axe import described, violations
from support.browser import PageHands, overflow
from support.web_table import LiveTable

DESK = {"width": 1400, "height": 950}
PHONE = {"width": 360, "height": 740}


def opened(page, table) -> PageHands:
    page.set_viewport_size(DESK)
    page.goto(table.url + "/")
    page.locator("#tray svg rect.cell").first.wait_for()
    page.locator("#off-tray .off-tile").first.wait_for()
    return PageHands(page, table)


def beside_the_prompt(page) -> None:
    """The refusal is just below the prompt, on the screen, not under the tile lists."""
    prompt, error = page.locator("#prompt-box").bounding_box(), page.locator("#error").bounding_box()
    assert 0 <= error["y"] - (prompt["y"] + prompt["height"]) < 40, (prompt, error)
    assert error["y"] + error["height"] <= DESK["height"]


def test_a_tile_dropped_on_a_covered_cell_is_refused_in_words_where_it_happened(page, tmp_path):
    """Dropping a tile on an occupied cell said "pad-left (cell 192) is already covered" under the
    tile lists, and the tile snapped back silently."""
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock")
    try:
        assert table.post("/api/tray", {"action": "place", "tile": "6-6", "cells": [100, 101]})[0] == 200
        hands = opened(page, table)
        hands.tile_shown(table.vtray.dominoes.parse("6-6"), (100, 101))
        tile = table.vtray.dominoes.parse("3-5")
        hands.turn_off_tile(tile, 0)
        with page.expect_response("**/api/tray") as response:
            page.mouse.move(*hands.off_half(tile))
            page.mouse.down()
            page.mouse.move(*hands.cell(100))
            page.mouse.up()
        assert response.value.status == 400
        error = page.locator("#error")
        error.filter(has_text="3-5 cannot go on r6c4: 6-6 lies there").wait_for()
        assert not re.search(r"cell \d|pad-left", error.inner_text())
        beside_the_prompt(page)
        page.locator('#tray rect.refusal[data-cell="100"]').wait_for()
        assert not (found := violations(page)), described(found)
        assert table.vtray.where("3-5") is None and page.locator('#off-tray .off-tile[data-tile="3-5"]').count() == 1
        hands.drag(hands.off_half(tile), hands.cell(120))  # the next move clears it, once its answer is read
        expect(page.locator("#tray rect.refusal")).to_have_count(0)
        expect(error).to_have_text("")
    finally:
        table.close()


def test_a_tile_that_cannot_turn_says_why(page, tmp_path):
    """Clicking a laid tile to turn it showed nothing when it could not turn."""
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock")
    try:
        assert table.post("/api/tray", {"action": "place", "tile": "1-2", "cells": [186, 187]})[0] == 200  # bottom row
        hands = opened(page, table)
        tile = table.vtray.dominoes.parse("1-2")
        hands.tile_shown(tile, (186, 187))
        page.mouse.click(*hands.cell(186))  # turned a quarter: its 2 would go below the tray
        page.locator("#error").filter(has_text="1-2 cannot turn there: it would leave the tray").wait_for()
        beside_the_prompt(page)
        assert page.locator("#tray rect.refusal").count() == 2 and table.vtray.where("1-2") == (186, 187)
    finally:
        table.close()


def test_typing_a_tiles_pips_picks_it_up_and_focus_stays_where_play_goes_on(page, tmp_path):
    """No type-ahead ("35" for 3-5); after a tile was laid with Enter, focus dropped to the page's
    start (14 Tabs to reach a tile again)."""
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock")
    try:
        opened(page, table)
        page.locator("body").focus()
        page.keyboard.type("53")
        holding = page.get_by_role("group", name="Holding 3-5: where does it go?")
        holding.wait_for()
        page.set_viewport_size(PHONE)  # the places listed, at a phone's width
        assert overflow(page) == 0 and not (found := violations(page)), described(found)
        page.set_viewport_size(DESK)
        holding.get_by_role("textbox", name="the first half on").fill("r6c4")
        holding.get_by_role("combobox", name="the other").select_option(label="to the right")
        holding.get_by_role("button", name="lay it").focus()
        page.keyboard.press("Enter")
        page.get_by_role("listitem").filter(has_text="3-5 on r6c4 and r6c5").wait_for()
        page.wait_for_function("() => document.activeElement.matches('.off-tile, .tray-item')")
        assert table.vtray.where("3-5") == (100, 101)
        page.keyboard.type("99")  # no such tile: said, nothing picked up
        page.locator("#error").filter(has_text="no tile 9-9").wait_for()
        assert page.locator("#held").is_hidden()
    finally:
        table.close()


def a_double_with_places(table) -> tuple[str, list[list[int]]]:
    for pips in range(7):
        tile = f"{pips}-{pips}"
        found = table.get(f"/api/targets?tile={tile}")[1]["targets"]
        if found:
            return tile, found
    raise AssertionError("no double may be laid")


def test_a_doubles_place_is_listed_once_and_each_place_is_outlined_apart(page, tmp_path):
    """A double's place was listed twice (once each way round), and the legal places were one green
    blob; the dragged tile was drawn without its pips."""
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock-solitaire", seed=2)
    try:
        table.reaches(lambda r: r.tracker.judged is not None, "the table's first look at the tray")
        TableBots(table.runtime, seed=2).one_move()  # the starting row laid out
        table.reaches(lambda r: r.status.mode == Mode.PLAY, "the match on")
        hands = opened(page, table)
        double, found = a_double_with_places(table)
        places = {frozenset(cells) for cells in found}
        assert len(found) == 2 * len(places)  # the table answers each way round
        hands.turn_off_tile(table.vtray.dominoes.parse(double), 0)
        page.locator(f'#off-tray .off-tile[data-tile="{double}"]').focus()
        page.keyboard.press("Enter")
        holding = page.get_by_role("group", name=f"Holding {double}: where does it go?")
        holding.wait_for()
        listed = holding.get_by_role("button", name=re.compile(f"the {double[0]}s on ")).all_inner_texts()
        assert len(listed) == len(places) == len(set(listed)), listed
        # each outlined apart (the instruction's own outlines are its group g.told)
        assert page.locator("#tray .marks g.places rect.place").count() == len(places)
        page.get_by_role("button", name="put it down where it was").click()

        tile = table.vtray.dominoes.parse(double)
        start = hands.off_half(tile)
        first = min(places, key=min)
        page.mouse.move(*start)
        page.mouse.down()
        page.mouse.move(start[0] + 8, start[1] + 8)
        page.locator("#tray .marks g.places rect.place").first.wait_for()
        assert page.locator("#tray .marks g.places rect.place").count() == len(places)
        page.mouse.move(*hands.cell(min(first)))
        preview = page.locator("#tray .marks g.preview")
        preview.locator("rect.face").wait_for()
        assert preview.locator("circle").count() == 2 * int(double[0])  # the held tile keeps its pips
        page.mouse.move(*hands.off_tray())
        page.mouse.up()
    finally:
        table.close()


def test_the_boneyard_and_the_captured_tiles_are_lists_apart(page, tmp_path):
    """"Off the tray" mixed the boneyard with captured tiles, so a tile picked from the "boneyard"
    for a bot's rack was a captured one."""
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock")
    try:
        assert table.post("/api/tray", {"action": "place", "tile": "6-6", "cells": [20, 36]})[0] == 200  # it stays
        hands = opened(page, table)
        tile = table.vtray.dominoes.parse("4-5")
        hands.do(Action(ActionKind.PLACE, tile, (100, 101)))
        hands.tile_shown(tile, (100, 101))
        hands.do(Action(ActionKind.REMOVE, tile))  # taken off the tray once it lay face up: captured
        page.locator('#captured .off-tile[data-tile="4-5"]').wait_for()
        assert page.locator('#off-tray .off-tile[data-tile="4-5"]').count() == 0
        assert page.get_by_role("list", name=re.compile("^Taken off the tray")).is_visible()
        assert "4-5" not in page.get_by_role("list", name="The boneyard").inner_text().replace("\n", "")
        page.locator('#captured .off-tile[data-tile="4-5"]').focus()  # laid again, by the keyboard
        page.keyboard.press("Enter")
        holding = page.get_by_role("group", name="Holding 4-5: where does it go?")
        holding.get_by_role("textbox", name="the first half on").fill("r6c4")
        holding.get_by_role("button", name="lay it").click()
        page.locator("#captured-box").wait_for(state="hidden")
    finally:
        table.close()


def test_the_setup_speaks_of_strengths_and_options_in_plain_words(page, tmp_path):
    """"Strength: search (the game's own)", "Options (as the rule card names them)"."""
    table = LiveTable(tmp_path / "t.sqlite3", None)
    try:
        page.set_viewport_size(DESK)
        page.goto(table.url + "/")
        form = page.get_by_role("region", name="The next match")
        form.get_by_role("combobox", name="Game").select_option(label="Castle Rock")
        assert form.get_by_role("group", name="Options", exact=True).is_visible()
        seat = form.get_by_role("group", name=re.compile("^Seat 2 "))
        seat.get_by_role("combobox", name="Played by").select_option("bot")
        strengths = seat.get_by_role("combobox", name="Strength").locator("option").all_inner_texts()
        assert sorted(strengths) == ["easy", "hard", "normal"], strengths
        assert not re.search(r"search|greedy|random|game's own|rule card names", form.inner_text())
    finally:
        table.close()


def test_a_stopped_tables_page_turns_its_controls_off_and_says_why(page, tmp_path):
    """A stopped table's page kept every button enabled under a small "offline"."""
    table = LiveTable(tmp_path / "t.sqlite3", "castle-rock")
    try:
        opened(page, table)
        page.wait_for_function("() => !document.querySelector('#act-new').disabled")  # live: New match applies
        table.server.stop()
        said = page.locator("#stopped")
        said.filter(has_text="not answering").wait_for()
        assert "controls are off" in said.inner_text()
        buttons = page.locator("#actions button[data-action], #buttons button")
        assert buttons.count() >= 8 and all(b.is_disabled() for b in buttons.all())
        assert page.locator("#off-tray-box").is_hidden()
    finally:
        table.close()


def test_each_place_is_named_by_what_it_does(page, tmp_path):
    """Places were given only as coordinates: each is named by what laying the tile there does, in
    the game's own words and the score it changes ("at the left end"), then where it is."""
    table = LiveTable(tmp_path / "t.sqlite3", "doubles-in-the-boneyard", seed=1)
    try:
        table.reaches(lambda r: r.tracker.judged is not None, "the table's first look at the tray")
        bots = TableBots(table.runtime, seed=1)
        named = None
        for _ in range(30):
            with table.runtime.lock:
                dset = table.referee.game.dset
            for tile in dset.tiles:
                answer = table.get(f"/api/targets?tile={tile.a}-{tile.b}")[1]
                named = named or next(((f"{tile.a}-{tile.b}", does) for does in answer["does"] if does), None)
            if named:
                break
            bots.one_move()
        assert named, "no place the game's words name"
        tile, does = named
        assert not re.search(r"\+\d|-\d\b|c\d+\b", does), does  # words, not notation
        opened(page, table)
        page.locator("body").focus()
        page.keyboard.type(tile.replace("-", ""))
        holding = page.get_by_role("group", name=f"Holding {tile}: where does it go?")
        place = holding.get_by_role("button", name=re.compile(f"^{re.escape(does)}: the "))
        place.first.wait_for()
        assert re.search(r": the \d on r\d+c\d+, the \d on r\d+c\d+$", place.first.inner_text())
    finally:
        table.close()
