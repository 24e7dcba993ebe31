"""The scoreboard for the bar (issue 18, item 5 and the Why's "Scoreboard" list), the replay and
the rule cards: each point a test.

- an empty leaderboard (and history) says why and what will appear;
- no stale "being played": a match is live only while it is the table's;
- Broadway's plot labels do not overlap; a solitaire's score is plotted as its own number
  (Up-Down-Stop starts at 21 and runs down, not 0 against 21);
- the header says what ends the match (not "to 50" for a one-hand match);
- Up-Down-Stop with two columns draws two ladder zones, names no zone by its id, says lower is better;
- moves in plain words with the notation as a tooltip (scoreboard, replay);
- a rule named in a prompt links to its rule card's section;
- the kiosk view rotates in large type; a QR code of the page's address that a decoder reads;
- at 360 px nothing overflows, and axe-core finds no serious or critical violation.

The browser tests share one Chromium (tests/support/browser.py) and two tables."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest
import zxingcpp
from dominotable.games import catalog
from dominotable.sim.bots.shared import play_out, random_bot
from dominotable.store.storage import Store
from dominotable.ui.web.server import reachable
from dominotable.views import cards, svg
from PIL import Image
from support.axe import described, violations
from support.web_table import LiveTable, lan_address

PHONE = {"width": 360, "height": 740}


def record(store: Store, name: str, names: list[str], seed: int, options: dict | None = None, finish=True,
           demo=False, moves: int | None = None) -> int:
    """A match played by random bots, recorded as the table records one (move by move, then its end)."""
    spec = catalog.spec(name)
    game = spec.new(len(names), options or {}, seed=seed, observed=False)
    fresh = spec.new(len(names), options or {}, seed=seed, observed=False)
    match_id = store.start_match(fresh, names, demo=demo)
    play_out(game, [random_bot(random.Random(seed))])
    for ply, move in enumerate(game.moves[:moves], 1):
        store.append_move(match_id, ply, str(move))
    if finish:
        store.finish(match_id, game)
    return match_id


@pytest.fixture(scope="module")
def bar(tmp_path_factory):
    """A bar's database (rated matches of every kind, a demo left unfinished long ago) and a table
    playing Up-Down-Stop with two columns on it."""
    db = tmp_path_factory.mktemp("bar") / "t.sqlite3"
    with Store(db) as store:
        ids = {"castle-rock": record(store, "castle-rock", ["ANN", "BOB", "CAT"], 1, {"hands": 1}),
               "broadway": record(store, "broadway", ["ANN", "BOB", "CAT", "DAN"], 2, {"hands": 2}),
               "stale": record(store, "castle-rock", ["ANN", "BOB"], 3, finish=False, demo=True, moves=5)}
    table = LiveTable(db, "up-down-stop", options={"columns": 2})
    table.ids = ids
    yield table
    table.close()


def history(table) -> dict[int, dict]:
    return {m["id"]: m for m in table.get("/api/history")[1]}


# -- the data ------------------------------------------------------------------------------------

def test_a_match_is_being_played_only_while_it_is_the_tables(bar):
    table = bar
    table.reaches(lambda r: True, "the match")
    matches = history(table)
    live = table.runtime.match_id
    assert matches[live]["state"] == "live"
    assert matches[table.ids["stale"]]["state"] == "unfinished"  # a demo nobody finished: not "being played"
    assert matches[table.ids["castle-rock"]]["state"] == "played"


def test_each_match_says_what_ends_it_and_which_way_its_scores_run(bar):
    matches = history(bar)
    rock, uds = matches[bar.ids["castle-rock"]], matches[bar.runtime.match_id]
    assert rock["goal"] == "one hand" and "to 50" not in rock["plot"]  # the header's "to 50" of a one-hand match
    assert rock["scores_run"] == "points: higher is better"
    assert uds["scores_run"] == "tiles left out: lower is better" and "lower is better" in uds["plot"]
    state = bar.get("/api/state")[1]
    assert state["screen"]["game"]["goal"] == "until the tiles run out" and state["screen"]["game"]["lower_wins"]


def test_up_down_stop_draws_the_zones_of_its_columns_by_their_names(bar):
    """Two columns: two ladder zones and the two piles; zone ids never shown (rule UDS-10.4)."""
    state = bar.get("/api/state")[1]
    assert state["screen"]["game"]["zones"] == ["uds-column-1", "uds-column-2", "scrap", "discard"]
    status, picture = bar.get(state["base"])
    assert status == 200 and picture.count(b'class="zone"') == 4
    assert b">uds-" not in picture and b">zone 1<" in picture and b">zone 2<" in picture and b">zone 3<" not in picture


def test_a_solitaires_plot_starts_at_its_own_score():
    """Up-Down-Stop's score is the tiles left out: 21 at the start, running down (not 0 vs 21)."""
    plot = svg.score_plot(["ANN"], [[21], [20], [12], [3]], per="scoring play", scoring="tiles left out",
                          lower_wins=True, title="Up-Down-Stop")
    points = [tuple(map(float, p.split(","))) for p in re.search(r'points="([^"]+)"', plot).group(1).split()]
    assert len(points) == 4 and points[0][1] < points[-1][1]  # starts at the top (21), ends near the bottom
    assert ">21<" in plot and ">3 scoring plays<" in plot and "lower is better" in plot


def test_plot_labels_never_overlap():
    """Broadway's two partnerships a point apart: their names at the lines' ends stay 12 px apart."""
    names = ["ANN & CAT", "BOB & DAN", "EVE", "FLO"]
    plot = svg.score_plot(names, [[0, 0, 0, 0], [7, 8, 8, 7]], target=None)
    ys = sorted(float(y) for y in re.findall(r'class="side-name[^"]*" x="[^"]+" y="([^"]+)"', plot))
    assert len(ys) == 4 and all(b - a >= svg.LABEL_GAP - 0.01 for a, b in zip(ys, ys[1:]))
    assert svg.spread([100.0, 100.0, 100.0], 0, 105) == [81.0, 93.0, 105.0]  # pushed up at the bottom edge


def test_every_rule_the_table_names_has_a_section_in_its_card():
    """A prompt's "rule CR-5.2" links to /rules/CR-5.2: every rule cited in the package is an anchor."""
    from pathlib import Path

    package = Path(cards.__file__).resolve().parents[1]  # dominotable itself, installed or not
    cited = {rule for path in package.rglob("*.py") for said in re.findall(r"\(rules? ([^)]*)\)", path.read_text())
             for rule in cards.RULE.findall(said)}
    assert len(cited) > 30
    assert {rule for rule in cited if cards.card_of(rule) is None} == set()
    html, rules = cards.render("## CR-5 Captures\n\n- **CR-5.1** A *tile* `x2-4` <b>\n  goes on.\n")
    assert rules == ["CR-5", "CR-5.1"]
    assert '<li id="CR-5.1"><strong>CR-5.1</strong> A <em>tile</em> <code>x2-4</code> &lt;b&gt; goes on.</li>' in html


def test_rule_pages_and_moves_in_words_through_the_api(bar):
    status, _ = bar.get("/rules/UDS-10.4")  # urllib follows the redirect to the card
    assert status == 200
    status, page = bar.get("/rules/up-down-stop")
    assert status == 200 and b'id="UDS-10.4"' in page and b"<main>" in page
    assert bar.get("/rules/XX-9.9")[0] == 404
    said = bar.get(f"/api/match/{bar.ids['castle-rock']}")[1]["moves"]
    assert said[0]["words"] and all(m["words"] != m["notation"] for m in said if m["notation"] != "pass")
    assert any(re.fullmatch(r"(ANN|BOB|CAT) laid \d-\d", m["words"]) and m["notation"] in m["words"] for m in said)
    assert bar.get("/api/match/nine")[0] == 400 and bar.get("/api/match/999")[0] == 404


def test_the_qr_code_names_an_address_phones_can_open(tmp_path):
    """On the bar's network (a wildcard address) the code holds the table's address there, never 0.0.0.0."""
    assert reachable("127.0.0.1") == "127.0.0.1" and reachable("0.0.0.0") not in ("0.0.0.0", "")
    lan = LiveTable(tmp_path / "t.sqlite3", None, host="0.0.0.0")
    try:
        link = lan.get("/api/link", base=lan.url.replace("127.0.0.1", lan_address()))[1]
        assert link == {"url": f"http://{reachable('0.0.0.0')}:{lan.server.port}/scores", "local_only": False}
        assert lan.runtime.link == link["url"]  # what the OLED's info page shows
    finally:
        lan.close()


# -- in Chromium ---------------------------------------------------------------------------------

def no_overflow(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width} px wide at {page.viewport_size['width']} px"


def accessible(page) -> None:
    found = violations(page)
    assert not found, described(found)


def decode(png: bytes) -> str:
    (found,) = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))
    return found.text


def test_the_scoreboard_on_a_phone(bar, page):
    page.set_viewport_size(PHONE)
    page.goto(bar.url + "/scores")
    page.locator("#live-title", has_text="Up-Down-Stop").wait_for()
    page.locator('#matches .match[data-state="live"]').wait_for()
    assert "until the tiles run out" in page.locator("#live-goal").inner_text()
    assert "lower is better" in page.locator("#live-goal").inner_text()
    assert "to 50" not in page.locator("#live").inner_text()
    rock = page.locator(f'#matches .match[data-match="{bar.ids["castle-rock"]}"]')
    assert "one hand" in rock.inner_text() and "to 50" not in rock.inner_text()
    stale = page.locator(f'#matches .match[data-match="{bar.ids["stale"]}"]')
    assert "left unfinished" in stale.inner_text() and "being played" not in stale.inner_text()
    assert "being played now" in page.locator('#matches .match[data-state="live"]').inner_text()
    assert not re.search(r"match \d|uds-|\bP\d\b", page.locator("main").inner_text())  # no internal ids
    page.locator("#boards table caption", has_text="Broadway").wait_for()
    boxes = page.evaluate("""(id) => [...document.querySelectorAll(`.match[data-match="${id}"] text.side-name`)]
        .map((t) => { const b = t.getBoundingClientRect(); return [b.top, b.bottom]; })""", bar.ids["broadway"])
    assert len(boxes) == 2 and (boxes[0][1] <= boxes[1][0] or boxes[1][1] <= boxes[0][0]), boxes  # no overlap
    rock.locator("summary").click()
    first = rock.locator("details li span").first
    first.wait_for()
    assert first.get_attribute("title") and first.get_attribute("title") not in first.inner_text().split(": ")[:1]
    no_overflow(page)
    accessible(page)
    url = page.locator("#follow-url").inner_text()
    assert url == f"http://127.0.0.1:{bar.server.port}/scores" and page.locator("#follow-local").is_visible()
    qr = page.locator("#qr")
    qr.scroll_into_view_if_needed()
    assert decode(qr.screenshot()) == url

    page.goto(f"{bar.url}/replay/{bar.ids['castle-rock']}?step=3")
    current = page.locator("#moves li.current a")
    assert current.get_attribute("title") and re.match(r"(ANN|BOB|CAT) ", current.inner_text())
    assert page.locator("#move").inner_text() == current.inner_text()
    no_overflow(page)
    accessible(page)

    page.goto(bar.url + "/rules/CR-5.2")
    assert page.url.endswith("/rules/castle-rock#CR-5.2")
    assert page.locator(":target").inner_text().startswith("CR-5.2")
    no_overflow(page)
    accessible(page)


def test_the_kiosk_view_rotates_in_large_type(bar, page):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(bar.url + "/scores")
    page.locator("#matches .match").first.wait_for()
    normal = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    page.goto(bar.url + "/scores?kiosk=1&every=1")
    page.locator("body.kiosk").wait_for()
    shown = set()
    for _ in range(40):
        panel, visible = page.evaluate("""() => [document.body.dataset.panel, ['live', 'leaderboard', 'history']
            .filter((id) => document.getElementById(id).getBoundingClientRect().height > 0)]""")
        assert visible == [panel]  # one panel at a time
        shown.add(panel)
        if len(shown) == 3:
            break
        page.wait_for_timeout(150)
    assert shown == {"live", "leaderboard", "history"}
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 1.4 * normal
    assert page.locator("#qr").is_visible() and page.locator("footer").is_hidden()
    assert page.locator("#matches .match").count() <= 3  # the latest matches only


def test_empty_scoreboard_says_what_will_appear(tmp_path, page):
    table = LiveTable(tmp_path / "t.sqlite3", None)  # the setup menu: no match yet, nothing recorded
    try:
        page.set_viewport_size(PHONE)
        page.goto(table.url + "/scores")
        page.locator("#matches-empty").wait_for()
        assert "When a match starts at the table" in page.locator("#live-empty").inner_text()
        assert "No rated matches yet" in page.locator("#boards-empty").inner_text()
        assert "Every match played at this table will be listed here" in page.locator("#matches-empty").inner_text()
        no_overflow(page)
        accessible(page)
    finally:
        table.close()


# -- issue 28, item 10: the scoreboard, the kiosk and the leaderboards ----------------------------

TVS = [{"width": 1280, "height": 720}, {"width": 1920, "height": 1080}, {"width": 1280, "height": 800}]


@pytest.mark.parametrize("tv", TVS, ids=lambda tv: f"{tv['width']}x{tv['height']}")
def test_the_kiosk_fits_a_tv_and_rotates(bar, page, tv):
    """On a 1280x800 TV the kiosk's matches panel was cut off: every panel it turns to fits the
    screen, neither cut off below nor scrolled sideways."""
    page.set_viewport_size(tv)
    page.goto(bar.url + "/scores?kiosk=1&every=1")
    page.locator("body.kiosk").wait_for()
    page.locator("#matches .match svg.plot").first.wait_for()
    shown = set()
    for _ in range(60):
        panel, tall, wide = page.evaluate("""() => [document.body.dataset.panel,
            document.documentElement.scrollHeight - innerHeight, document.documentElement.scrollWidth - innerWidth]""")
        assert tall <= 0 and wide <= 0, (panel, tall, wide)
        shown.add(panel)
        if len(shown) == 3:
            break
        page.wait_for_timeout(150)
    assert shown == {"live", "leaderboard", "history"}


def text_boxes(page, selector: str) -> list[dict]:
    return page.evaluate("""(sel) => [...document.querySelectorAll(sel)].map((plot) => [...plot.querySelectorAll('text')]
        .map((t) => { const b = t.getBoundingClientRect(); return {text: t.textContent, x: b.left, y: b.top, r: b.right, b: b.bottom}; }))""",
                         selector)


def test_no_two_words_of_a_plot_overlap(tmp_path, page):
    """"…lower is bet11 scoring plays": what the scores count and how many plays there were ran into
    each other; and no name, tick or target is drawn over another, at a phone's width either."""
    plots = [svg.score_plot(["ANN"], [[21], *[[21 - k] for k in range(1, 12)]], per="scoring play",
                            scoring="tiles left out", lower_wins=True, title="Up-Down-Stop"),
             svg.score_plot(["ANN & CAT", "BOB & DAN"], [[0, 0], [3, 4], [7, 8]], target=10, title="Broadway"),
             svg.score_plot(["ANN", "BOB", "CAT"], [[0, 0, 0], [2, 8, 5]], target=50, title="Castle Rock")]
    (tmp_path / "plots.html").write_text("<!doctype html><link rel=stylesheet href=style.css>" + "".join(
        f'<div style="width:360px">{plot}</div>' for plot in plots))
    (tmp_path / "style.css").write_bytes((Path(svg.__file__).parents[1] / "ui/web/static/style.css").read_bytes())
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto((tmp_path / "plots.html").as_uri())
        for boxes in text_boxes(page, "svg.plot"):
            for i, a in enumerate(boxes):
                for b in boxes[i + 1:]:
                    apart = a["r"] <= b["x"] or b["r"] <= a["x"] or a["b"] <= b["y"] or b["b"] <= a["y"]
                    assert apart, (a, b)


def test_a_far_target_does_not_squash_the_plot():
    """A Castle Rock match to 50 with scores of a few points: the lines use the plot's height (the
    target, far above them, is not the top of the scale: the match's goal says it)."""
    plot = svg.score_plot(["ANN", "BOB"], [[0, 0], [3, 1], [8, 5]], target=50, title="Castle Rock")
    ys = [float(p.split(",")[1]) for line in re.findall(r'points="([^"]+)"', plot) for p in line.split()]
    assert max(ys) - min(ys) >= 0.6 * (160 - 22 - 20)  # most of the plot's height, not a sixth of it
    assert 'class="target"' not in plot
    near = svg.score_plot(["ANN", "BOB"], [[0, 0], [30, 41]], target=50)
    assert 'class="target"' in near  # within reach: drawn


def test_won_by_names_the_real_winners_with_their_scores(tmp_path, page):
    """"won by BOB & DAN, 1–0" when the winners had 0: each side's score is said by its name; a
    resignation says so."""
    db = tmp_path / "t.sqlite3"
    with Store(db) as store:
        spec = catalog.spec("broadway")
        game = spec.new(4, {"hands": 2}, seed=2, observed=False)
        match_id = store.start_match(game, ["ANN", "BOB", "CAT", "DAN"])
        store.append_move(match_id, 1, str(next(iter(game.legal_moves()))))
        store.finish(match_id, game, "resigned", [1])  # ANN & CAT resign: BOB & DAN win, 0 points each
    table = LiveTable(db, None)
    try:
        page.goto(table.url + "/scores")
        said = page.locator(f'#matches .match[data-match="{match_id}"] .result').inner_text()
        assert said == "won by BOB & DAN by resignation: ANN & CAT 0, BOB & DAN 0", said
    finally:
        table.close()


def test_bots_are_listed_apart_and_never_rated(tmp_path, page):
    """The leaderboards rated the table's bots with the people: a bot is listed apart with its
    strength, matches and wins, and a match against bots alone rates nobody."""
    db = tmp_path / "t.sqlite3"
    with Store(db) as store:
        for seed in (1, 2, 3):
            spec = catalog.spec("castle-rock")
            game = spec.new(3, {"hands": 1}, seed=seed, observed=False)
            fresh = spec.new(3, {"hands": 1}, seed=seed, observed=False)
            people = ["ANN", "BOB", "West bot"] if seed < 3 else ["ANN", "North bot", "West bot"]
            match_id = store.start_match(fresh, people, bots={2: "greedy"} if seed < 3 else {1: "search", 2: "greedy"})
            play_out(game, [random_bot(random.Random(seed))])
            for ply, move in enumerate(game.moves, 1):
                store.append_move(match_id, ply, str(move))
            store.finish(match_id, game)
    table = LiveTable(db, None)
    try:
        (board,) = table.get("/api/leaderboard")[1]
        assert [p["name"] for p in board["players"]] == sorted(["ANN", "BOB"], key=lambda n: -next(
            p["rating"] for p in board["players"] if p["name"] == n))
        assert {p["name"]: p["matches"] for p in board["players"]} == {"ANN": 3, "BOB": 2}
        assert {(b["name"], b["strength"], b["matches"]) for b in board["bots"]} == {
            ("West bot", "normal", 3), ("North bot", "hard", 1)}
        page.goto(table.url + "/scores")
        page.locator("#boards table caption", has_text="the table's bots (not rated)").wait_for()
        people = page.locator("#boards table").first.inner_text()
        assert "ANN" in people and "bot" not in people
    finally:
        table.close()
