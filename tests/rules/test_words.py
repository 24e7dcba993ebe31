"""Moves in plain words (issue 18, item 4): each game says its own moves (GameSpec.words, in the
game's own spec file), naming players by name, never by seat letters or numbers, and columns,
ends and pinchers as people see them; `history ID` and the pages show them beside the notation.
Also what ends a match and which way its scores run, as each game states them."""

import random
import re

import pytest
from dominotable.games import catalog
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.rules.games.up_down_stop.engine import UpDownStop
from dominotable.sim.bots.shared import play_out, random_bot

NAMES = ["ANN", "BOB", "CAT", "DAN"]


@pytest.mark.parametrize("name", catalog.names())
@pytest.mark.parametrize("observed", [False, True])
def test_every_move_of_a_match_is_said_by_the_games_own_words(name, observed):
    spec = catalog.spec(name)
    game = spec.new(None, dict(spec.demo), seed=3, observed=observed)
    names = NAMES[:game.players]
    play_out(game, [random_bot(random.Random(3))], max_moves=400)
    start = type(game).from_dict({**game.to_dict(), "moves": []})
    said = spec.narrate(start, [str(m) for m in game.moves], names)
    assert [s.notation for s in said] == [str(m) for m in game.moves]
    for s in said:
        assert s.words != f"{s.who} played {s.notation}", s  # the game's own words, not the fallback
        assert not re.search(r"\bP\d\b|\b[NESW]\b", s.words), s  # seats by their players' names
        assert s.words.startswith((*names, "lots drawn", "the starting row", "the tiles cleared")), s


def test_a_capture_names_the_tiles_that_pinched_it():
    """rules CR-5.1, CR-5.2: the middle capture between its pinchers, the triple as three tiles."""
    spec = catalog.spec(CastleRock.name)
    game = CastleRock.from_position("row: 0-0 2-4 4-4\nP1: 4-0 1-1\nP2: 5-5 6-6")
    game.push_notation("4-0")
    names = ["ANN", "BOB"]
    middle, triple = game.parse_move("x4-4"), game.parse_move("x2-4+4-4+4-0")
    assert spec.word(game, middle, names) == "ANN captured 4-4 between 2-4 and 0-4"
    assert spec.word(game, triple, names) == "ANN captured the triple 2-4, 4-4 and 0-4"
    before = CastleRock.from_position("row: 0-0 2-4 4-4\nP1: 4-0 1-1\nP2: 5-5 6-6")
    moves = [before.copy().parse_move("4-0"), middle]
    assert spec.say(before, moves, names) == "ANN laid 0-4, then captured 4-4 between 2-4 and 0-4"
    assert before.moves == []  # said on copies


def test_up_down_stop_says_columns_by_number_and_which_way_they_run():
    spec = catalog.spec(UpDownStop.name)
    game = UpDownStop(seed=0, observed=True)  # the drawn tile is named by the move (UDS-9)
    said = spec.narrate(game, ["3-6 new", "0-4 c1+4", "2-5 c1+5"], ["ANN"])
    assert [s.words for s in said] == ["ANN started column 1 with 3-6", "ANN laid 0-4 on column 1, up to 4",
                                       "ANN laid 2-5 on column 1, up to 5"]


def test_each_game_says_what_ends_its_match_and_which_way_its_scores_run():
    goals = {spec.name: spec.goal(spec.options.from_dict(dict(spec.demo))) for spec in catalog.GAMES}
    assert goals == {"castle-rock": "one hand", "broadway": "one hand, ties play on",
                     "doubles-in-the-boneyard": "first to 50", "castle-rock-solitaire": "capture every tile",
                     "up-down-stop": "until the tiles run out"}
    rock = catalog.spec(CastleRock.name)
    assert rock.goal(rock.options()) == "first to 50 or 20 hands"  # not "to 50" when one hand ends it
    assert catalog.spec(UpDownStop.name).scores_run == "tiles left out: lower is better"
    assert rock.scores_run == "points: higher is better"


@pytest.mark.parametrize("columns", [1, 2, 3])
def test_up_down_stop_uses_one_ladder_zone_per_column(columns):
    """rule UDS-10.4: as many ladder zones as columns may be open at once (UDS-7.1), and the piles."""
    spec = catalog.spec(UpDownStop.name)
    zones = spec.zones_for(spec.options(columns=columns))
    assert zones == tuple(f"uds-column-{n}" for n in range(1, columns + 1)) + ("scrap", "discard")
