"""The table page is the whole table (issue 18), in Chromium (tests/support/browser.py): a person alone
with three bots plays Castle Rock from the setup form to the final score using only what the page
shows (the prompt, the turn line, the marked cells and the racks drawn on the tray, the tiles off
the tray) and what a person does with it (drags, clicks, role and name queries), doing for the
bots what the page says; the page is checked at 360 px and by axe-core on the way."""

from __future__ import annotations

import random
import re
import time

from dominotable.match.replay import replay
from dominotable.store.storage import Store
from support.axe import described, violations
from support.browser import overflow
from support.table_seats import slot_numbers
from support.web_table import LiveTable

DESK = {"width": 1400, "height": 950}
PHONE = {"width": 360, "height": 740}
RACK = re.compile(r"^(?:a tile|(\d+) tiles) from the boneyard, face down, into (slots? [-\d and]+)")
PLACE = re.compile(r"^slot (\d+) \(\d+-\d+\) -> ")
TAKE = re.compile(r"^take (.+) off the (?:row|tray)")
SPENT = re.compile(r"^hand over: take the tiles out of (slots? [-\d and]+)")
ROW = re.compile(r"lay out the starting row \((\d+) tiles\)")

WHERE = """() => {
  const middle = (e) => { const b = e.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; };
  const cells = Object.fromEntries([...document.querySelectorAll("#tray rect.cell")].map((r) => [r.dataset.cell, middle(r)]));
  const slots = Object.fromEntries([...document.querySelectorAll("#tray g.slot")].map((g) => {
    const b = g.querySelector("rect").getBoundingClientRect(), side = Math.min(b.width, b.height);
    return [`${g.dataset.rack} ${g.dataset.slot}`, [b.x + side / 2, b.y + side / 2]];
  }));
  const header = document.querySelector("header").getBoundingClientRect();
  return {cells, slots, away: [header.x + 20, header.y + header.height / 2]};
}"""
SEEN = """() => {
  const text = (sel) => document.querySelector(sel).textContent.trim();
  return {title: text("#prompt-title"), text: text("#prompt"), turn: text("#turn"),
          tray: [...document.querySelectorAll("#tray-list li")].map((li) => li.textContent.trim()),
          marked: [...document.querySelectorAll("#tray rect.named")].map((r) => Number(r.dataset.cell)),
          off: [...document.querySelectorAll("#off-tray .off-tile")].map((t) => t.dataset.tile),
          faint: document.querySelectorAll("#tray g.tile.ghost, #tray g.tile.lifted").length};
}"""


class PagePerson:
    """A person at the page: they read what it says and shows, and use the mouse. Their own hand
    lies off the tray with the boneyard (they remember which tiles are theirs)."""

    def __init__(self, page, name: str, seed: int):
        self.page = page
        self.name = name
        self.rng = random.Random(seed)
        self.mine: list[str] = []
        self.captured: set[str] = set()
        self.asked = False  # a hint this turn
        self.hints = 0

    # -- what the person sees -------------------------------------------------------------------

    def seen(self) -> dict:
        return self.page.evaluate(SEEN)

    def boneyard(self, seen: dict) -> list[str]:
        return [t for t in seen["off"] if t not in self.mine and t not in self.captured]

    def box(self, selector: str) -> dict:
        """Where an element is (the page redraws the tray with every update: asked again if it went)."""
        for _ in range(100):
            locator = self.page.locator(selector).first
            locator.wait_for(timeout=10_000)
            box = locator.bounding_box()
            if box is not None:
                return box
            self.page.wait_for_timeout(20)
        raise AssertionError(f"{selector} is not on the page")

    def look(self) -> None:
        """Where the tray's cells and the racks' numbered slots are on the screen now."""
        self.page.locator("#tray rect.cell").first.wait_for(timeout=10_000)
        found = self.page.evaluate(WHERE)
        self.cells = {int(cell): xy for cell, xy in found["cells"].items()}
        self.slots = found["slots"]
        self.away = found["away"]  # off the tray: over the page's header

    def cell(self, cell: int) -> tuple[float, float]:
        return tuple(self.cells[cell])

    def slot(self, who: str, number: int) -> tuple[float, float]:
        """The middle of the slot's first cell (the slot is drawn numbered on the bot's rack)."""
        return tuple(self.slots[f"{who} {number}"])

    def off_tray(self) -> tuple[float, float]:
        return tuple(self.away)

    def landing(self) -> set[int]:
        return set(self.page.evaluate("() => [...document.querySelectorAll('#tray rect.cell.target')]"
                                      ".map((r) => Number(r.dataset.cell))"))

    # -- what the person does ----------------------------------------------------------------------

    def drop(self) -> None:
        with self.page.expect_response("**/api/tray") as response:
            self.page.mouse.up()
        assert response.value.ok, response.value.json()

    def drag(self, start, end) -> None:
        mouse = self.page.mouse
        mouse.move(*start)
        mouse.down()
        mouse.move(start[0] + 8, start[1] + 8)
        mouse.move(*end)
        self.drop()

    def drag_onto(self, start, cells: set[int]) -> None:
        """Pick the tile up, turn it (r) and move it until it would land on `cells`; let go."""
        mouse = self.page.mouse
        mouse.move(*start)
        mouse.down()
        mouse.move(start[0] + 8, start[1] + 8)
        for _ in range(4):
            for cell in sorted(cells):
                mouse.move(*self.cell(cell))
                if self.landing() == cells:
                    return self.drop()
            self.page.keyboard.press("r")
        mouse.up()
        raise AssertionError(f"no way of holding the tile lands it on {sorted(cells)}")

    def off_tile(self, tile: str) -> tuple[float, float]:
        b = self.box(f'#off-tray .off-tile[data-tile="{tile}"] .half')
        return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2

    def click(self, name: str) -> None:
        button = self.page.get_by_role("button", name=name, exact=True)
        assert button.is_enabled(), f"{name} is not enabled"
        with self.page.expect_response("**/api/action") as response:
            button.click()
        assert response.value.ok, response.value.json()

    def take(self, cells) -> None:
        """Every tile lying on the marked cells off the tray, one after another."""
        lying = self.page.evaluate("(marked) => [...document.querySelectorAll('#tray g.tile:not(.ghost):not(.lifted)')]"
                                   ".map((g) => [g.dataset.tile, g.dataset.cells.split(',').map(Number)])"
                                   ".filter(([tile, cells]) => cells.some((c) => marked.includes(c)))", list(cells))
        for tile, tile_cells in lying:
            self.drag(self.cell(tile_cells[0]), self.off_tray())
            self.captured.add(tile)  # kept by whoever captured it: not back in the boneyard

    # -- a step at the table -----------------------------------------------------------------------

    def step(self) -> bool:
        """One thing done as the page says; False once the match is over."""
        self.look()
        seen = self.seen()
        title, text, me = seen["title"], seen["text"], self.name
        pad = next((t.split()[0] for t in seen["tray"] if t.endswith("over the scan pad")), None)
        bot = title.removesuffix("'s rack") if title.endswith(" bot") or title.endswith(" bot's rack") else None
        if title == "Match over":
            return False
        if "drew for dealer over the scan pad" in text:  # each seat draws a tile for dealer, in turn
            if pad:
                self.drag(self.cell(seen["marked"][0]), self.off_tray())
            else:
                self.drag(self.off_tile(self.rng.choice(self.boneyard(seen))), self.cell(seen["marked"][0]))
        elif pad:
            self.drag(self.box_centre("#tray rect.cell.pad"), self.off_tray())
        elif m := ROW.search(text):
            self.lay_out_row(seen, int(m[1]))
        elif bot is not None:
            self.for_bot(bot, seen)
        elif seen["turn"] == f"{me} to play":
            self.my_turn(seen)
        else:
            return self.wait(seen)
        return self.wait(seen)

    def box_centre(self, selector: str) -> tuple[float, float]:
        b = self.box(selector)
        return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2

    def wait(self, before: dict, timeout: float = 8.0, still: float = 0.05) -> bool:
        """Until the page shows something new and the table has read the whole tray (no tile drawn
        faint: laid and not yet read, or gone and not yet read gone), for a moment."""
        deadline = time.monotonic() + timeout
        judged = lambda seen: {k: v for k, v in seen.items() if k != "off"}  # noqa: E731 (off the tray: at once)
        last, since = None, time.monotonic()
        while True:
            now = judged(self.seen())
            if now != last:
                last, since = now, time.monotonic()
            elif now != judged(before) and not now["faint"] and time.monotonic() - since >= still:
                return True
            if time.monotonic() > deadline:
                raise AssertionError(f"the page stays at {before['title']!r} {before['text']!r} ({before['turn']!r})")
            time.sleep(0.03)

    def lay_out_row(self, seen: dict, count: int) -> None:
        """The starting row: tiles from the boneyard, upright in the row's band, left to right."""
        zone = self.box('#tray rect.zone[data-zone="castle-row"]')
        pitch = self.box("#tray rect.cell")["width"]
        for k, tile in enumerate(self.rng.sample(self.boneyard(seen), count)):
            top = (zone["x"] + pitch * (k + .5), zone["y"] + pitch * .5)
            self.drag_onto(self.off_tile(tile), {self.cell_at(*top), self.cell_at(top[0], top[1] + pitch)})

    def cell_at(self, x: float, y: float) -> int:
        return self.page.evaluate("([x, y]) => Number(document.elementsFromPoint(x, y)"
                                  ".find((e) => e.matches('rect.cell')).dataset.cell)", [x, y])

    def for_bot(self, bot: str, seen: dict) -> None:
        what = re.sub(r"^after [^:]+: ", "", seen["text"])
        if seen["text"].startswith(f"after {self.name}: ") and not self.asked and self.hints < 2:
            self.asked = True  # my own turn is done: a hint first, as a player might ask
            self.hints += 1
            return self.click("Hint")
        if m := RACK.match(what):
            for number in slot_numbers(m[2]):
                tile = self.rng.choice(self.boneyard(self.seen()))
                self.drag(self.off_tile(tile), self.slot(bot, number))
        elif m := SPENT.match(what):
            for number in slot_numbers(m[1]):
                self.drag(self.slot(bot, int(number)), self.off_tray())
        elif m := PLACE.match(what):
            slot = self.slot(bot, int(m[1]))
            rack = set(self.page.evaluate(
                "([who, k]) => [...document.querySelectorAll(`#tray g.tile`)].filter((g) => g.classList.contains('face-down'))"
                ".map((g) => g.dataset.cells.split(',').map(Number)).flat()", [bot, m[1]]))
            target = {c for c in seen["marked"] if c not in rack}
            assert len(target) == 2, (seen, rack)
            self.drag_onto(slot, target)
        elif TAKE.match(what):
            self.take(seen["marked"])
        else:
            raise AssertionError(f"what the page says for {bot} is not understood: {seen['text']!r}")

    def my_turn(self, seen: dict) -> None:
        if seen["title"] == "Hint":
            if seen["marked"]:
                return self.take(seen["marked"])  # the captures the hint marks
            return self.click("End turn")
        end = self.page.get_by_role("button", name="End turn", exact=True)
        if end.count() and end.is_enabled():  # placed already
            if not self.asked and self.hints < 2:
                self.asked = True
                self.hints += 1
                return self.click("Hint")
            return self.click("End turn")
        boneyard = self.boneyard(seen)
        while len(self.mine) < 2 and boneyard:  # my hand: two tiles, drawn from the boneyard
            self.mine.append(boneyard.pop(self.rng.randrange(len(boneyard))))
        tile = self.rng.choice(self.mine)
        self.asked = False
        mouse = self.page.mouse
        start = self.off_tile(tile)
        mouse.move(*start)
        mouse.down()
        mouse.move(start[0] + 8, start[1] + 8)
        self.page.locator("#tray rect.cell.legal").first.wait_for(timeout=5000)  # where it may go, shown
        legal = set(self.page.evaluate("() => [...document.querySelectorAll('#tray rect.cell.legal')]"
                                       ".map((r) => Number(r.dataset.cell))"))
        mouse.up()
        self.drag_onto(self.off_tile(tile), legal)
        self.mine.remove(tile)


def test_a_castle_rock_match_against_three_bots_from_the_setup_form_to_the_final_score(browser, tmp_path):
    table = LiveTable(tmp_path / "t.sqlite3", game=None)
    context = browser.new_context(viewport=DESK)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(table.url + "/")
        form = page.get_by_role("region", name="The next match")
        form.get_by_role("combobox", name="Game").select_option(label="Castle Rock")
        assert form.get_by_text("the match ends when someone reaches this score").is_visible()  # a line of help each
        form.get_by_role("spinbutton", name="hands").fill("1")
        form.get_by_role("combobox", name="Players").select_option("4")
        seat = lambda n: form.get_by_role("group", name=re.compile(f"^Seat {n} "))  # noqa: E731
        seat(1).get_by_role("textbox", name="Name").fill("ANN")
        for n, strength in ((2, "greedy"), (3, "random"), (4, "search")):
            seat(n).get_by_role("combobox", name="Played by").select_option("bot")
            seat(n).get_by_role("combobox", name="Strength").select_option(strength)
        assert seat(3).get_by_role("textbox", name="Name").input_value() == "North bot"
        assert not (found := violations(page)), described(found)
        form.get_by_role("button", name="Start the match").click()
        page.get_by_role("status").filter(has_text="drew for dealer").wait_for()
        assert form.is_hidden()
        person = PagePerson(page, "ANN", seed=4)
        checked = glowed = False
        for _ in range(400):
            if not person.step():
                break
            glowed = glowed or page.evaluate(GLOWING)
            if not checked and person.page.locator("#tray g.tile.face-down").count() >= 4 and person.mine:
                checked = True  # mid-match, the racks drawn: axe, and a phone's width
                assert not (found := violations(page)), described(found)
                page.set_viewport_size(PHONE)
                assert overflow(page) == 0 and not (found := violations(page)), described(found)
                for button in page.get_by_role("group", name="Match controls").get_by_role("button").all():
                    box = button.bounding_box()
                    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], button.inner_text()
                page.set_viewport_size(DESK)
        assert checked and glowed
        page.get_by_role("status").filter(has_text="Match over").wait_for()
        with Store(table.db, create=False) as store:  # a reader beside the table
            record = store.match(store.matches()[0].id)
        game = replay(record)
        assert game.is_over() and record.bots == [1, 2, 3] and record.strategies == {1: "greedy", 2: "random", 3: "search"}
        shown = [int(p) for p in page.locator("#scores td:nth-child(2)").all_inner_texts()]
        assert shown == game.scores == record.result["scores"]
        assert len(record.hints) == person.hints > 0
        assert not errors, errors
    finally:
        context.close()
        table.close()


GLOWING = """async () => {  // a bot's step on the screen, and exactly its cells glowing under the tiles, in its colours
  const s = await (await fetch("/api/state")).json();
  if (!s.screen || !s.screen.seat || !s.lights.cells.length) return false;
  const drawn = [...document.querySelectorAll("#tray g.lights circle.glow")].map((c) => `${c.dataset.cell} ${c.classList[1]}`);
  const lit = s.lights.cells.map((c) => `${c.cell} ${c.meaning}`);
  const cells = [...new Set(s.screen.cells)].sort();
  return JSON.stringify(drawn.sort()) === JSON.stringify(lit.sort())
    && JSON.stringify(s.lights.cells.map((c) => c.cell).sort()) === JSON.stringify(cells);
}"""


COUNT_BEEPS = """(() => {  // the page's sound, counted: every tone started on an AudioContext
  window.beeps = 0;
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    createOscillator() { const tone = super.createOscillator(); const start = tone.start.bind(tone);
      tone.start = (...args) => { window.beeps += 1; return start(...args); }; return tone; }
  };
})();"""


def focused(page) -> str:
    """The focused control's role and accessible name, as a screen reader would say it."""
    return page.evaluate("""() => { const e = document.activeElement;
        const label = e.labels && e.labels.length ? e.labels[0].textContent : (e.getAttribute("aria-label") || e.textContent);
        return `${e.tagName.toLowerCase()}: ${label.trim().replace(/\\s+/g, " ")}`; }""")


def test_by_keyboard_alone_at_a_phones_width_with_sound_and_clear_tray(browser, tmp_path):
    """A phone-sized page driven by the keyboard alone: Tab walks the setup form, then the controls
    in a sensible order and never presses a button of the table's; Enter starts the match (the draw
    spoken by the live region; no Hint nor Resign while nobody is to move, issue 28), picks a tile
    up and lays it where the page offers; the OLED's
    menu is in the text; the buzzer's alarm beeps once Sound is on; Clear tray empties the tray."""
    table = LiveTable(tmp_path / "t.sqlite3", game=None)
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.add_init_script(COUNT_BEEPS)
    pressed = []
    page.on("request", lambda r: pressed.append(r.post_data) if r.url.endswith("/api/button") else None)
    try:
        page.goto(table.url + "/")
        form = page.get_by_role("region", name="The next match")
        form.get_by_role("combobox", name="Game").select_option(label="Castle Rock")
        assert overflow(page) == 0 and not (found := violations(page)), described(found)
        page.locator("body").focus()
        order = []
        for _ in range(40):
            page.keyboard.press("Tab")
            order.append(focused(page))
        assert not pressed  # Tab is the browser's: it never holds select
        expected = ["a: scoreboard", "select: Game", "input: target", "input: hands", "select: Players",
                    "input: Name", "select: Played by", "button: Start the match"]
        at = [next(i for i, f in enumerate(order) if f == want) for want in expected]
        assert at == sorted(at), order  # the form top to bottom
        page.get_by_role("button", name="Start the match").focus()
        page.keyboard.press("Enter")
        live = page.get_by_role("status").filter(has_text="drew for dealer")
        live.wait_for()
        assert live.get_attribute("aria-live") == "polite"
        assert overflow(page) == 0 and not (found := violations(page)), described(found)
        controls = [focused(page) for _ in range(60) if page.keyboard.press("Tab") is None]
        names = ["button: Sound off", "button: ▲ up", "button: hold select", "button: 0-0"]
        at = [controls.index(name) for name in names]
        assert at == sorted(at), controls  # the match's controls, the table's buttons, the tiles
        for absent in ("Take back", "Clear tray", "Hint", "Resign"):  # none applies while the dealer is drawn
            assert f"button: {absent}" not in controls, controls

        page.get_by_role("button", name="Sound off").focus()
        page.keyboard.press("Enter")
        assert page.get_by_role("button", name="Sound on").get_attribute("aria-pressed") == "true"

        page.get_by_role("button", name=re.compile(r"^0\s*-\s*0$")).focus()
        page.keyboard.press("Enter")  # picked up: where may it go?
        holding = page.get_by_role("group", name="Holding 0-0: where does it go?")
        holding.get_by_role("textbox", name="the first half on").fill("r4c0")
        holding.get_by_role("combobox", name="the other").select_option(label="downwards")
        holding.get_by_role("button", name="lay it").focus()
        page.keyboard.press("Enter")  # upright in the row while the dealer is drawn: a problem, the alarm
        page.get_by_role("status").filter(has_text="clear the row").wait_for()
        page.wait_for_function("() => window.beeps === 1")
        assert page.get_by_role("listitem").filter(has_text="0-0 on r4c0 and r5c0").count() == 1
        legend = page.get_by_role("list", name="The tray's lights")
        assert legend.get_by_role("listitem").filter(has_text="red: a misplaced or unknown tile").count() == 1

        page.get_by_role("button", name="Clear tray").focus()
        page.keyboard.press("Enter")
        dialog = page.get_by_role("dialog")
        assert dialog.get_by_role("button", name="No").evaluate("(b) => b === document.activeElement")
        dialog.get_by_role("button", name="Yes").focus()
        page.keyboard.press("Enter")
        page.get_by_role("listitem").filter(has_text="no tile").wait_for()
        assert table.vtray.tiles() == {}

        page.locator("body").focus()
        page.keyboard.press("m")  # the OLED's keys still work where no control has the focus
        menu = page.locator("#menu")
        menu.get_by_text("On the OLED: Menu").wait_for()
        assert menu.locator("[aria-current=true]").inner_text() == "New match"  # nobody to move: no Hint
        assert page.get_by_role("img", name="The OLED shows a menu: Menu: New match").count() == 1  # its text alternative
        page.keyboard.press("w")
        page.keyboard.press("Enter")  # Back to the game
        menu.wait_for(state="hidden")
        assert len(pressed) == 3 and overflow(page) == 0
    finally:
        context.close()
        table.close()
