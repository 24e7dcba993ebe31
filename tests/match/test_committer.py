"""The committer (match/committer.py): the one place the live position changes, and only after the
store has the change; a refused write leaves the live position as it was. Its last play says the
move in the game's words (issue 28: "taken back: P1 laid 1-4", never "took back 1-4@...")."""

from __future__ import annotations

import pytest
from dominotable.games import catalog
from dominotable.match.committer import Committer
from dominotable.match.position import Play, Position
from dominotable.rules.errors import SealedGame
from dominotable.rules.games.castle_rock.engine import END, place
from dominotable.store.storage import Store, StoreUnavailable
from support.table_helpers import T, rigged

NAMES = ["ANN", "BOB"]


def committer(tmp_path):
    game = rigged("1-6 0-6 0-0 2-4 4-4 0-4 1-1 1-5", ["1-4 3-3", "5-5 6-6"])
    store = Store(tmp_path / "t.db")
    match_id = store.start_match(game, NAMES, False, {}, [], None)
    spec = catalog.spec(game)

    def say(before, moves):
        return spec.say(before, moves, NAMES)

    return Committer(store, match_id, Position(game, {}), lambda seat: NAMES[seat] if seat is not None else "", say), store


def test_a_commit_is_written_then_made_and_its_last_play_is_in_words(tmp_path):
    c, store = committer(tmp_path)
    last = c.commit([Play(place(T("1-4")))])
    assert [str(m) for m in c.live.game.moves] == ["1-4"] == store.match(c.match_id).moves
    assert str(last) == "ANN laid 1-4" and last.what == "1-4"
    with pytest.raises(SealedGame):
        c.live.game.push(END)  # only the committer goes past the seal


def test_a_refused_write_leaves_the_live_position_as_it_was(tmp_path):
    c, store = committer(tmp_path)

    def refuse(*args, **kwargs):
        raise StoreUnavailable("the disk is full")

    store.commit = refuse
    with pytest.raises(StoreUnavailable):
        c.commit([Play(place(T("1-4")))])
    assert c.live.game.moves == []


def test_a_takeback_says_what_was_taken_back_in_the_games_words(tmp_path):
    c, store = committer(tmp_path)
    c.commit([Play(place(T("1-4")))])
    c.commit([Play(END)])
    last = c.take_back(2)
    assert c.live.game.moves == [] and store.match(c.match_id).moves == []
    assert str(last) == "taken back: ANN laid 1-4, then ended the turn" and last.what == "took back 1-4 end"


def test_a_resignation_is_recorded_with_its_winners(tmp_path):
    c, store = committer(tmp_path)
    c.resign(0)
    record = store.match(c.match_id).result
    assert record["ending"] == "resigned" and record["winners"] == [1]
