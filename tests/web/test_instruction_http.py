"""Issue 28, "Done when": driven over HTTP alone (tests/support/http_person.py), a person against three bots
in Castle Rock, one person in Up-Down-Stop and two people against two bots in Broadway get a
non-empty instruction on every turn of theirs, naming where to lay and how the turn finishes; no
place the page offers for a tile is refused or asked back, and no position leaves them without a
way on."""

from __future__ import annotations

import pytest
from support.http_person import People
from support.web_table import LiveTable

MATCHES = {  # game, players, options, the people (name: seat), the bots' seats, tiles dealt to people
    "castle-rock against three bots": ("castle-rock", 4, {"hands": 1}, {"ANN": 0}, (1, 2, 3), 0),
    "up-down-stop alone": ("up-down-stop", 1, {"columns": 3}, {"ANN": 0}, (), 0),
    "broadway, two people against two bots": ("broadway", 4, {"hands": 1}, {"ANN": 0, "CAT": 2}, (1, 3), 7),
}
BOT_NAMES = ["North bot", "East bot", "South bot", "West bot"]


@pytest.mark.parametrize("match", list(MATCHES))
def test_people_over_http_always_have_an_instruction_and_a_way_on(tmp_path, match):
    game, players, options, people, bots, dealt = MATCHES[match]
    names = [next((n for n, s in people.items() if s == seat), BOT_NAMES[seat]) for seat in range(players)]
    table = LiveTable(tmp_path / "t.sqlite3", game, players, options, seed=5, names=names, bots=bots)
    try:
        crowd = People(table, game, people, seed=5, dealt=dealt)
        for _ in range(600):  # a match's steps: its moves, the bots' steps, the deals, with room to spare
            if not crowd.step():
                break
        else:
            raise AssertionError(f"the match did not end in 600 steps: {crowd.said[-3:]}")
        assert crowd.silent == [] and crowd.refused == [] and crowd.stuck == [], "\n".join(crowd.silent + crowd.refused + crowd.stuck)
        assert crowd.turns >= 5 and all(said for said in crowd.said)
    finally:
        table.close()
