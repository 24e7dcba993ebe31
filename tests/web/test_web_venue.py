"""The venue's pages in Chromium (issue 28, item 10): the scoreboard fits a phone's 360 px and
links to each table's own page; the kiosk view for a TV fits 1280x720 and 1920x1080 and turns
from panel to panel; a match is said by its goal ("one hand"), never "to 50" of a one-hand match;
axe-core finds no serious or critical violation at a phone's width or a desktop's. Two tables play
on a real Mosquitto (tests/support/venue_fixtures.py)."""

from __future__ import annotations

import pytest
from support.axe import described, violations
from support.polling import until

PHONE = {"width": 360, "height": 740}
TABLE_PAGE = "http://10.0.0.5:8080/scores"  # what a table's screen gives as its address for phones


@pytest.fixture
def bar(mosquitto, tables, venue):
    t1, t2 = (t.connect() for t in tables(2))
    venue.start()
    t1.play(["Ann", "Bob"], seed=1)
    t2.play(["Cat", "Dan", "Eve"], seed=2)
    venue.wait_until_kept([t1, t2])
    t1.link.show({"kind": "play", "title": "", "text": "", "turn": "Ann", "link": TABLE_PAGE,
                  "scores": [{"name": "Ann", "points": 3, "to_move": True}, {"name": "Bob", "points": 5, "to_move": False}],
                  "game": {"title": "Castle Rock", "goal": "one hand", "match": 2, "moves": 9}, "target": 50})
    until(lambda: (venue.server.tables.get("t1") or {}).get("state") is not None, what="the venue to show t1")
    return venue


def no_overflow(page) -> None:
    wide, tall = page.evaluate("[document.documentElement.scrollWidth - innerWidth, "
                               "document.documentElement.scrollHeight - innerHeight]")
    assert wide <= 0, f"{wide} px too wide at {page.viewport_size['width']} px"
    return tall


def test_the_venue_page_fits_a_phone_and_links_to_its_tables(bar, page):
    for size in (PHONE, {"width": 1400, "height": 950}):
        page.set_viewport_size(size)
        page.goto(bar.server.url)
        card = page.locator('.table-card[data-table="t1"]')
        card.get_by_role("link", name="Table t1").wait_for()
        assert card.get_by_role("link", name="Table t1").get_attribute("href") == TABLE_PAGE
        assert "Castle Rock, one hand" in card.inner_text() and "to 50" not in page.locator("main").inner_text()
        page.locator("#matches .match svg.plot").first.wait_for()
        assert "won by" in page.locator("#matches .match").first.inner_text()
        no_overflow(page)
        assert not (found := violations(page)), described(found)


@pytest.mark.parametrize("tv", [{"width": 1280, "height": 720}, {"width": 1920, "height": 1080}],
                         ids=lambda tv: f"{tv['width']}x{tv['height']}")
def test_the_venue_kiosk_fits_a_tv_and_rotates(bar, page, tv):
    """The venue's kiosk was 992 px tall on a 720 px TV and never turned to another panel."""
    page.set_viewport_size(tv)
    page.goto(bar.server.url + "kiosk?every=1")
    page.locator("body.kiosk").wait_for()
    page.locator("#matches .match svg.plot").first.wait_for(state="attached")
    shown = set()
    for _ in range(60):
        panel = page.evaluate("document.body.dataset.panel")
        assert no_overflow(page) <= 0, panel
        shown.add(panel)
        if len(shown) == 3:
            break
        page.wait_for_timeout(150)
    assert shown == {"live", "leaderboard", "history"}
