"""What the three buttons drive, as plain state machines (drawn by `screens.render`).

Every model takes the button presses (ui/press.py) through `handle(event)`; once `done` is true its answer is in `value` (or `cancelled` is true:
a long select backs out of a list, a number or a question). The models:

- `ListMenu`: a list, up/down moves (wrapping), select chooses;
- `NumberChoice`: up/down between bounds, select accepts;
- `Confirm`: a yes/no question that starts on "No";
- `NameEntry`: a letter wheel. Up/down turn it (A, B, ... 9, space, DEL, OK), select
  adds the letter or does DEL/OK, a long select finishes;
- `Setup`: from power-on, the game, its options and player count, then each seat: a person (and
  their name) or, for a game the tray has racks for, a bot played with real tiles, or, with a
  partner table configured, a person at that table (a remote seat, match/remote.py);
- `describe`: a model as plain data, for the page.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from dominotable.rules.errors import DominoError
from dominotable.rules.options import Options
from dominotable.ui.press import Press


class Model:
    title = ""
    done = False
    cancelled = False
    value: Any = None

    def handle(self, event: Press) -> None:
        raise NotImplementedError

    def _finish(self, value: Any = None, cancelled: bool = False) -> None:
        self.done, self.value, self.cancelled = True, value, cancelled


class ListMenu(Model):
    def __init__(self, title: str, items: list[str], values: list | None = None, selected: int = 0):
        if not items:
            raise ValueError("a menu needs at least one item")
        self.title = title
        self.items = list(items)
        self.values = list(values) if values is not None else list(items)
        self.selected = selected

    def handle(self, event: Press) -> None:
        if event == Press.UP:
            self.selected = (self.selected - 1) % len(self.items)
        elif event == Press.DOWN:
            self.selected = (self.selected + 1) % len(self.items)
        elif event == Press.SELECT:
            self._finish(self.values[self.selected])
        elif event == Press.LONG_SELECT:
            self._finish(cancelled=True)


class NumberChoice(Model):
    def __init__(self, title: str, low: int, high: int, value: int | None = None):
        self.title, self.low, self.high = title, low, high
        self.number = low if value is None else min(max(value, low), high)

    def handle(self, event: Press) -> None:
        if event == Press.UP:
            self.number = min(self.number + 1, self.high)
        elif event == Press.DOWN:
            self.number = max(self.number - 1, self.low)
        elif event == Press.SELECT:
            self._finish(self.number)
        elif event == Press.LONG_SELECT:
            self._finish(cancelled=True)


class Confirm(Model):
    def __init__(self, question: str, yes: bool = False):
        self.title = question
        self.yes = yes

    def handle(self, event: Press) -> None:
        if event in (Press.UP, Press.DOWN):
            self.yes = not self.yes
        elif event == Press.SELECT:
            self._finish(self.yes)
        elif event == Press.LONG_SELECT:
            self._finish(False, cancelled=True)


WHEEL = [*string.ascii_uppercase, *string.digits, " ", "DEL", "OK"]


class NameEntry(Model):
    def __init__(self, title: str, initial: str = "", max_len: int = 8):
        self.title = title
        self.max_len = max_len
        self.text = initial[:max_len]
        # a prefilled name is one select from accepted; an empty one starts at A
        self.position = WHEEL.index("OK") if self.text else 0

    @property
    def wheel(self) -> str:
        return WHEEL[self.position]

    def handle(self, event: Press) -> None:
        if event == Press.UP:
            self.position = (self.position + 1) % len(WHEEL)
        elif event == Press.DOWN:
            self.position = (self.position - 1) % len(WHEEL)
        elif event == Press.LONG_SELECT or (event == Press.SELECT and self.wheel == "OK"):
            if self.text.strip():
                self._finish(" ".join(self.text.split()))
        elif event == Press.SELECT and self.wheel == "DEL":
            self.text = self.text[:-1]
        elif event == Press.SELECT:
            if len(self.text) < self.max_len:
                self.text += self.wheel
            if len(self.text) == self.max_len:
                self.position = WHEEL.index("OK")


class Message(Model):
    """A prompt shown until select is pressed; up and down turn its pages (a front end that pages
    a long text shows page `page`)."""

    def __init__(self, title: str, text: str):
        self.title, self.text = title, text
        self.page = 0

    def handle(self, event: Press) -> None:
        if event in (Press.UP, Press.DOWN):
            self.page += 1 if event == Press.DOWN else -1
        else:
            self._finish()


@dataclass(frozen=True)
class Choice:
    """What `Setup` settles: the game class, its options, the seats and their names, which
    seats are bots, and which are played at the partner table."""

    game: type
    options: Options  # the game's own options dataclass
    players: int
    names: list[str]
    bots: tuple[int, ...] = ()
    remote: tuple[int, ...] = ()


START = "Start"
ROUND_NUMBERS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 75, 100, 120, 150, 200, 250, 300, 400,
                 500, 1000)


class Setup(Model):
    """From power-on: game -> options and players -> each seat (person or bot, then a person's
    name) -> done with a `Choice`.

    A long select in the options menu goes back to the game list; in an option's editor
    it leaves the option as it was. Names start as last time's (one select accepts each).
    `racks`: per game (class), the seat positions whose racks the tray has ("south", "west", ...):
    only those games offer bot seats; a bot is named after its position ("West bot"). `partner`:
    the table whose people may take seats (`At ID`) in the games of `remote`."""

    title = "Setup"

    def __init__(self, games: list[type], last_names: list[str] | None = None,
                 racks: dict[type, list[str]] | None = None, partner: str = "", remote: frozenset[type] = frozenset()):
        if not games:
            raise ValueError("no games to choose from")
        self.games = games
        self.last_names = list(last_names or [])
        self.racks = racks or {}
        self.partner = partner
        self.remote_games = remote if partner else frozenset()
        self.bots: list[int] = []
        self.remote: list[int] = []
        self.game: type | None = None
        self.options: dict[str, Any] = {}
        self.players = 0
        self.names: list[str] = []
        self.stage = "game"
        self.current: Model = self._game_menu()
        self._editing = ""  # the option (or "players") being changed

    def handle(self, event: Press) -> None:
        self.current.handle(event)
        if self.current.done:
            getattr(self, f"_after_{self.stage}")(self.current)

    def _go(self, stage: str, model: Model) -> None:
        self.stage, self.current = stage, model

    # -- the stages -------------------------------------------------------------------------

    def _game_menu(self, selected: int = 0) -> ListMenu:
        return ListMenu("Choose a game", [g.title for g in self.games], list(self.games), selected)

    def _after_game(self, menu: ListMenu) -> None:
        if menu.cancelled:
            self._go("game", self._game_menu(menu.selected))
            return
        if menu.value is not self.game:
            self.game = menu.value
            self.options = {name: default for name, default, _, _ in self.game.Options.describe()}
            self.players = self.game.default_players
        self._go("options", self._options_menu())

    def _options_menu(self, row: str | None = None) -> ListMenu:
        items, values = [], []
        for name, _, _, _ in self.game.Options.describe():
            items.append(f"{name.replace('_', ' ')}: {_show(self.options[name])}")
            values.append(name)
        if self.game.min_players != self.game.max_players:
            items.append(f"players: {self.players}")
            values.append("players")
        items.append(START)
        values.append(START)
        return ListMenu(self.game.title, items, values, values.index(row) if row else 0)

    def _after_options(self, menu: ListMenu) -> None:
        if menu.cancelled:
            self._go("game", self._game_menu(self.games.index(self.game)))
        elif menu.value == START:
            self._start()
        else:
            self._editing = menu.value
            self._go("edit", self._editor(menu.value))

    def _editor(self, name: str) -> Model:
        if name == "players":
            return NumberChoice("Players", self.game.min_players, self.game.max_players, self.players)
        _, default, choices, _ = next(d for d in self.game.Options.describe() if d[0] == name)
        title = name.replace("_", " ").capitalize()
        if isinstance(default, bool):
            choices = (False, True)
        elif not choices:  # a number without a list: round values up to four times the default
            choices = sorted({n for n in ROUND_NUMBERS if n <= 4 * default} | {default, self.options[name]})
        choices = list(choices)
        return ListMenu(title, [_show(c) for c in choices], choices, choices.index(self.options[name]))

    def _after_edit(self, editor: Model) -> None:
        if not editor.cancelled:
            if self._editing == "players":
                self.players = editor.value
            else:
                self.options[self._editing] = editor.value
        self._go("options", self._options_menu(self._editing))

    def _start(self) -> None:
        try:  # the options may not go together (or with this many players): say which
            self.game(players=self.players, options=self.options)
        except DominoError as exc:
            self._go("message", Message("Cannot start", str(exc)))
            return
        self.names, self.bots, self.remote = [], [], []
        self._next_seat()

    def _after_message(self, _: Message) -> None:
        self._go("options", self._options_menu(START))

    def _next_seat(self) -> None:
        seat = len(self.names)
        bot = seat < len(self.racks.get(self.game, ()))
        away = self.game in self.remote_games
        if seat == self.players:
            self._finish(Choice(self.game, self.game.Options.from_dict(self.options), self.players, list(self.names),
                                tuple(self.bots), tuple(self.remote)))
        elif bot or away:
            items = ["Player", *([f"Bot ({self._position(seat)})"] if bot else []), *([f"At {self.partner}"] if away else [])]
            self._go("seat", ListMenu(f"Seat {seat + 1}", items, ["player", *["bot"] * bot, *["remote"] * away]))
        else:
            self._go("name", self._name_entry(seat))

    def _position(self, seat: int) -> str:
        return self.racks[self.game][seat]

    def _after_seat(self, menu: ListMenu) -> None:
        seat = len(self.names)
        if menu.cancelled:
            self._go("options", self._options_menu(START))
        elif menu.value == "bot":
            self.bots.append(seat)
            self.names.append(f"{self._position(seat).capitalize()} bot")
            self._next_seat()
        else:
            if menu.value == "remote":
                self.remote.append(seat)
            self._go("name", self._name_entry(seat))

    def _name_entry(self, seat: int) -> NameEntry:
        initial = self.last_names[seat] if seat < len(self.last_names) else f"P{seat + 1}"
        return NameEntry(f"Name for seat {seat + 1}", initial)

    def _after_name(self, entry: NameEntry) -> None:
        if entry.value.lower() in (n.lower() for n in self.names):
            retry = NameEntry(f"{entry.value} is taken", entry.value)
            retry.position = WHEEL.index("DEL")  # one select starts changing it
            self._go("name", retry)
            return
        self.names.append(entry.value)
        self._next_seat()


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def describe(model: Model) -> dict[str, Any]:
    """A menu model as plain data, for a front end that is not the OLED: what it asks and the
    answers it offers (the setup menu: its current question)."""
    if isinstance(model, Setup):
        return {**describe(model.current), "stage": model.stage}
    if isinstance(model, ListMenu):
        return {"type": "list", "title": model.title, "items": list(model.items), "selected": model.selected}
    if isinstance(model, NumberChoice):
        return {"type": "number", "title": model.title, "value": model.number, "low": model.low, "high": model.high}
    if isinstance(model, Confirm):
        return {"type": "confirm", "title": model.title, "yes": model.yes}
    if isinstance(model, NameEntry):
        return {"type": "name", "title": model.title, "text": model.text, "wheel": model.wheel}
    return {"type": "message", "title": model.title, "text": getattr(model, "text", "")}
