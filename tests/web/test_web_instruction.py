"""Issue 28, "Done when", in Chromium (tests/support/browser.py): Castle Rock against three bots, Broadway for
two people against two bots and Up-Down-Stop, played at the table's page. At every turn of a person
the page's prompt (its status region, found by role) says the turn: non-empty, naming cells or the
open end, and how the turn finishes (End turn, Pass, or that it ends once the tile is read). The
people press the page's own buttons (found by role and name: End turn, Pass, who leads) and lay
tiles where the page offers them (tests/support/http_person.py)."""

from __future__ import annotations

import re

import pytest
from support.http_person import People
from support.web_table import LiveTable
from test_instruction_http import BOT_NAMES, MATCHES

WHERE = re.compile(r"r\d+c\d+|open end")
FINISH = re.compile(r"End turn|pass|the turn ends once the table reads it")


class PagePeople(People):
    """People who read their turn on the page and press its buttons."""

    def __init__(self, page, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.page = page
        self.read: list[str] = []  # every turn of theirs as the page's prompt said it

    def my_turn(self, name: str, said: dict, state: dict) -> None:
        words = state["screen"]["text"]
        prompt = self.page.get_by_role("status").filter(has_text=words)
        prompt.wait_for(timeout=10_000)  # the page has shown this turn: a positive sign
        shown = prompt.inner_text()
        self.read.append(shown)
        offered = sorted(a["label"] for a in state["screen"]["actions"] if a["action"] == "move")
        buttons = sorted(self.page.locator("#moves button:visible").all_inner_texts())
        assert buttons == offered, (buttons, offered)  # a move shows only where it can act (item 7)
        lays = any(step["do"] in ("lay", "take") for step in said["steps"])  # else it only finishes
        assert name in shown and (WHERE.search(shown) or not lays) and FINISH.search(shown), shown
        super().my_turn(name, said, state)

    def choose(self, state: dict, label: str) -> bool:
        if not any(a["label"].lower() == label.lower() for a in state["screen"]["actions"]):
            return False
        if label == "Resign":
            return super().choose(state, label)  # its confirmation dialog is the page tests' own
        button = self.page.get_by_role("button", name=label, exact=True)
        button.wait_for(timeout=10_000)
        self.page.wait_for_function("(b) => !b.disabled", arg=button.element_handle(), timeout=10_000)
        button.click()
        self.state_when(lambda now: now["screen"] != state["screen"], f"{label} pressed")
        return True


@pytest.mark.parametrize("match", list(MATCHES))
def test_every_persons_turn_is_said_on_the_page(browser, tmp_path, match):
    game, players, options, people, bots, dealt = MATCHES[match]
    names = [next((n for n, s in people.items() if s == seat), BOT_NAMES[seat]) for seat in range(players)]
    table = LiveTable(tmp_path / "t.sqlite3", game, players, options, seed=7, names=names, bots=bots)
    page = browser.new_page(viewport={"width": 1400, "height": 950})
    try:
        page.goto(table.url)
        crowd = PagePeople(page, table, game, people, seed=7, dealt=dealt)
        for _ in range(600):
            if not crowd.step():
                break
        assert crowd.silent == [] and crowd.refused == [] and crowd.stuck == [], \
            "\n".join(crowd.silent + crowd.refused + crowd.stuck)
        assert len(crowd.read) >= 5 and len(crowd.read) == crowd.turns
        page.get_by_role("status").filter(has_text=re.compile("Won by|Match over")).wait_for(timeout=10_000)
    finally:
        page.close()
        table.close()
