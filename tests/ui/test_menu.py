"""The three-button models: menus, numbers, questions, the letter wheel and power-on setup."""

import re
from dataclasses import dataclass

import pytest
from dominotable.games import catalog
from dominotable.rules.errors import BadOption, DominoError
from dominotable.rules.options import Options, option
from dominotable.ui.menu import (
    WHEEL,
    Choice,
    Confirm,
    ListMenu,
    Message,
    NameEntry,
    NumberChoice,
    Seat,
    Setup,
)
from dominotable.ui.oled import screens


def press(model, *events):
    for event in events:
        assert not model.done, f"{type(model).__name__} finished before {event}"
        model.handle(event)
    return model


def test_list_menu_moves_wraps_and_chooses():
    menu = ListMenu("Game", ["A", "B", "C"], values=[1, 2, 3])
    press(menu, "up")
    assert menu.selected == 2  # wrapped to the bottom
    press(menu, "down", "down", "select")
    assert menu.done and menu.value == 2 and not menu.cancelled


def test_long_select_backs_out_of_a_menu_a_number_and_a_question():
    for model in (ListMenu("M", ["a"]), NumberChoice("N", 1, 3), Confirm("Q?")):
        press(model, "long-select")
        assert model.done and model.cancelled


def test_number_stays_within_bounds():
    number = press(NumberChoice("Players", 2, 4, 3), "up", "up", "up")
    assert number.number == 4
    press(number, "down", "down", "down", "down", "select")
    assert number.value == 2


def test_confirm_starts_on_no():
    assert press(Confirm("Resign?"), "select").value is False
    assert press(Confirm("Resign?"), "down", "select").value is True


def test_name_entry_spells_deletes_and_finishes():
    entry = NameEntry("Name")
    assert entry.wheel == "A"
    press(entry, "select")  # A
    press(entry, "down", "down", "select")  # down from A: OK, then DEL -> deletes the A
    assert entry.text == ""
    assert entry.wheel == "DEL"  # it stays there, for deleting more
    press(entry, "up", "up", "up", "up", "select")  # past OK and A to C
    press(entry, *["up"] * (ord("Y") - ord("C")), "select")  # Y
    assert entry.text == "CY" and not entry.done
    press(entry, "long-select")
    assert entry.done and entry.value == "CY"


def test_name_entry_needs_a_name_and_stops_at_the_maximum_length():
    entry = press(NameEntry("Name", max_len=3), "long-select")
    assert not entry.done  # nothing typed yet
    press(entry, "select", "select", "select")
    assert entry.text == "AAA" and entry.wheel == "OK"  # full: the wheel jumps to OK
    press(entry, "select")
    assert entry.value == "AAA"


def test_prefilled_name_is_accepted_with_one_select():
    assert press(NameEntry("Name", "ANN"), "select").value == "ANN"


def test_wheel_holds_letters_digits_space_and_actions():
    assert WHEEL[:3] == ["A", "B", "C"] and "9" in WHEEL and " " in WHEEL and WHEEL[-2:] == ["DEL", "OK"]


def test_in_game_actions_and_their_questions():
    from dominotable.match import actions
    from dominotable.rules.moves import PASS
    from dominotable.ui.match_menu import MatchMenu

    offered = [actions.ButtonMove(PASS, "Pass"), actions.Resign(), actions.NewMatch()]
    menu = MatchMenu(offered, "Ann")
    assert menu.model.items == ["Pass", "Resign", "New match", "Back to the game"]
    for key in ("down", "select"):
        menu.handle(key)
    assert menu.model.title == "Ann: resign the match?" and not menu.done
    menu.handle("up")
    menu.handle("select")
    assert menu.done and menu.chosen == actions.Resign()
    menu = MatchMenu(offered, "Ann")
    menu.handle("select")
    assert menu.model.title == "Ann: pass?"
    menu.handle("select")  # the question starts on No
    assert menu.done and menu.chosen is None


# -- setup from power-on ------------------------------------------------------------------------

@dataclass(frozen=True)
class ToyOptions(Options):
    set: int = option(6, "domino set", choices=(6, 9, 12))
    target: int = option(100, "points that win")
    fast: bool = option(False, "short hands")


class Toy:
    """Enough of a Game for Setup: a title, options, player counts and a constructor that checks."""

    name, title = "toy", "Toy"
    Options = ToyOptions
    min_players, max_players, default_players = 2, 4, 2

    def __init__(self, players=None, options=None, seed=0):
        options = self.Options.from_dict(options or {})
        if options.set == 12 and players < 3:
            raise BadOption("double-twelve Toy needs 3 or more players")
        self.players, self.options, self.seed = players, options, seed


class Solo(Toy):
    name, title = "solo", "Solo"
    min_players = max_players = default_players = 1

    def __init__(self, players=None, options=None, seed=0):
        self.players, self.options, self.seed = players, self.Options.from_dict(options or {}), seed


def test_setup_walks_game_options_players_and_names():
    setup = Setup([Solo, Toy], last_names=["ANN", "BOB"])
    assert screens.render(setup).tobytes() == screens.menu("Choose a game", ["Solo", "Toy"], 0).tobytes()
    press(setup, "down", "select")  # Toy
    assert setup.current.items == ["set: 6", "target: 100", "fast: off", "players: 2", "Start"]
    press(setup, "select", "down", "select")  # set -> 9
    assert setup.current.selected == 0
    press(setup, "down", "select")  # target: round numbers up to 4 x 100
    assert setup.current.items[:3] == ["1", "2", "3"] and setup.current.items[-1] == "400"
    assert setup.current.items[setup.current.selected] == "100"
    press(setup, "down", "down", "select")  # 150
    press(setup, "down", "select", "down", "select")  # fast -> on
    press(setup, "down", "select", "up", "select")  # players -> 3
    assert setup.current.items == ["set: 9", "target: 150", "fast: on", "players: 3", "Start"]
    assert setup.current.selected == 3  # back on the row just changed
    press(setup, "down", "select")  # Start
    assert setup.stage == "name" and setup.current.text == "ANN"
    press(setup, "select")  # ANN as last time
    press(setup, "select")  # BOB
    assert setup.current.text == "P3" and setup.current.wheel == "OK"
    press(setup, "down", "select", "select")  # DEL twice
    press(setup, "up", "up", *["up"] * 15, "select")  # past OK to A, on to P
    press(setup, *["down"] * 13, "select", "long-select")  # back to C, done
    assert setup.done
    assert setup.value == Choice(Toy, Toy.Options(set=9, target=150, fast=True), 3, ["ANN", "BOB", "PC"])


def test_setup_says_why_it_cannot_start_and_returns_to_the_options():
    setup = press(Setup([Toy]), "select")
    press(setup, "select", "down", "down", "select")  # set -> 12, with 2 players
    press(setup, "down", "down", "down", "down", "select")  # Start
    assert isinstance(setup.current, Message) and "needs 3 or more players" in setup.current.text
    press(setup, "select")
    assert setup.stage == "options" and setup.current.items[setup.current.selected] == "Start"


def test_setup_refuses_a_name_already_taken():
    setup = press(Setup([Toy], last_names=["ANN", "ANN"]), "select")
    press(setup, "down", "down", "down", "down", "select")  # Start with 2 players
    press(setup, "select", "select")
    assert not setup.done and setup.current.title == "ANN is taken"
    press(setup, "select", "long-select")  # the wheel waits on DEL: "AN"
    assert setup.value.names == ["ANN", "AN"]


def test_long_select_goes_back_from_options_to_the_games_and_keeps_changes_to_the_same_game():
    setup = press(Setup([Solo, Toy]), "down", "select")
    press(setup, "select", "down", "select")  # set 9
    press(setup, "long-select")
    assert setup.stage == "game" and setup.current.selected == 1
    press(setup, "select")
    assert setup.current.items[0] == "set: 9"
    press(setup, "long-select", "up", "select")  # Solo: no players row
    assert setup.current.items == ["set: 6", "target: 100", "fast: off", "Start"]


def test_each_game_keeps_its_options_on_back_and_the_setup_starts_as_the_last_match_was():
    setup = press(Setup([Solo, Toy]), "down", "select")
    press(setup, "select", "down", "select")  # Toy: set 9
    press(setup, "long-select", "up", "select")  # back, Solo: its own options
    press(setup, "down", "select", "down", "select")  # Solo: target 100 -> 120
    press(setup, "long-select", "down", "select")  # back to Toy: its options as left
    assert setup.current.items[0] == "set: 9"
    press(setup, "long-select", "up", "select")
    assert setup.current.items[1] == "target: 120"  # and Solo's

    last = [Choice(Toy, Toy.Options(set=9, fast=True), 3, ["ANN", "BOB", "CAT"]), Choice(Solo, Solo.Options(), 1, ["EVE"])]
    setup = Setup([Solo, Toy], last=last)
    assert setup.current.items[setup.current.selected] == "Toy"  # the last match's game, its options, players
    press(setup, "select")
    assert setup.current.items == ["set: 9", "target: 100", "fast: on", "players: 3", "Start"]
    press(setup, "up", "select", "select", "select")  # Start; ANN, BOB as last time
    assert setup.current.text == "CAT"
    assert setup.offer()["game"] == "toy" and [s.name for s in setup.seats_for(Toy)][:3] == ["ANN", "BOB", "CAT"]


def test_the_pages_choice_is_checked_as_the_menu_checks_it():
    setup = Setup([Solo, Toy], racks={Toy: ["south", "west"]}, strategies={Toy: ["search", "greedy"]})
    choice = setup.choose(Toy, {"set": 9}, [Seat(" ann  lee "), Seat("", bot=True, strategy="greedy"), Seat("BOB")])
    assert choice == Choice(Toy, Toy.Options(set=9), 3, ["ann lee", "West bot", "BOB"], {1: "greedy"})
    assert setup.choose(Toy, {}, [Seat("ANN"), Seat("X", bot=True)]).bots == {1: "search"}  # the game's own
    for options, seats, why in (
            ({"set": 7}, [Seat("A"), Seat("B")], "option set: 7 is not one of 6, 9, 12"),
            ({"speed": 1}, [Seat("A"), Seat("B")], "unknown option 'speed'"),
            ({"set": 12}, [Seat("A"), Seat("B")], "double-twelve Toy needs 3 or more players"),
            ({}, [Seat("A")], "Toy takes 2 to 4 players, not 1"),
            ({}, [Seat("A"), Seat("B"), Seat("C", bot=True)], "seat 3 cannot be a bot: the tray has racks for seats 1-2"),
            ({}, [Seat("A"), Seat("B", bot=True, strategy="psychic")], "Toy's bots play search, greedy, not 'psychic'"),
            ({}, [Seat("ANN"), Seat("ann")], "ann is named for two seats"),
            ({}, [Seat("ANN"), Seat("  ")], "seat 2 needs a name"),
            ({}, [Seat("ANN"), Seat("X" * 17)], "a name of at most 16 characters")):
        with pytest.raises(DominoError, match=re.escape(why)):
            setup.choose(Toy, options, seats)


def test_setup_over_the_registered_games_starts_each_with_defaults():
    games = [catalog.engine(name) for name in catalog.names() if not name.startswith("test-")]
    for index, cls in enumerate(games):
        setup = press(Setup(games), *["down"] * index, "select")
        press(setup, "up", "select")  # Start is the last row
        while not setup.done:
            press(setup, "select")  # each seat's default name
        choice = setup.value
        game = choice.game(players=choice.players, options=choice.options, seed=1)
        assert type(game) is cls and game.players == cls.default_players
        assert setup.value.names == [f"P{seat + 1}" for seat in range(game.players)]


@pytest.mark.parametrize("model", [
    ListMenu("Menu", ["Pass", "Back"]), NumberChoice("Players", 2, 6, 4), Confirm("Resign?"),
    NameEntry("Name", "ANN"), Message("Cannot start", "Toy needs 3 players"),
])
def test_every_model_has_a_screen(model):
    image = screens.render(model)
    assert image.size == (128, 64) and image.getbbox() is not None
