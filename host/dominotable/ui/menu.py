"""What the three buttons drive, as plain state machines (drawn by `screens.render`).

Every model takes the button presses (ui/press.py) through `handle(event)`; once `done` is true its answer is in `value` (or `cancelled` is true:
a long select backs out of a list, a number or a question). The models:

- `ListMenu`: a list, up/down moves (wrapping), select chooses;
- `NumberChoice`: up/down between bounds, select accepts;
- `Confirm`: a yes/no question that starts on "No";
- `NameEntry`: a letter wheel. Up/down turn it (A, B, ... 9, space, DEL, OK), select
  adds the letter or does DEL/OK, a long select finishes;
- `Setup`: from power-on, the game, its options and player count, then each seat: a person (and
  their name) or, for a game the tray has racks for, a bot played with real tiles, at one of
  the game's strengths, or, with a partner table configured, a person at that table (a remote
  seat, match/remote.py); `offer()` and `choose(...)` are the same choice for the page's form;
  with `lights` (the tray's lights' setting) the game list's last item turns it: on, dim, off;
- `describe`: a model as plain data, for the page.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dominotable.games.spec import strength
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
    """What `Setup` settles: the game class, its options, the seats and their names, the seats
    the table plays as bots, each with the strategy it plays (its strength), and the seats
    played at the partner table."""

    game: type
    options: Options  # the game's own options dataclass
    players: int
    names: list[str]
    bots: Mapping[int, str] = field(default_factory=dict)  # seat -> strategy
    remote: tuple[int, ...] = ()


@dataclass(frozen=True)
class Seat:
    """One seat as the page's form chooses it: a person, a bot at a strength (a strategy), or a
    person at the partner table."""

    name: str
    bot: bool = False
    strategy: str = ""  # a bot's ("": the game's own)
    remote: bool = False


START = "Start"
LIGHTS = "lights"  # the game list's last item: the next setting of the tray's lights (ui/lights.py) ...
LEVELS = ("on", "dim", "off")  # ... in this order
ROUND_NUMBERS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 75, 100, 120, 150, 200, 250, 300, 400,
                 500, 1000)
PERSON = "person"
REMOTE = "at the partner table"  # the seat menu's value for a remote seat (never a strategy's name)
NAME_LEN = 16  # the most characters a name typed on the page may have


class Setup(Model):
    """From power-on: game -> options and players -> each seat (person or bot, then a person's
    name) -> done with a `Choice`.

    A long select in the options menu goes back to the game list, and each game keeps the options
    chosen for it; in an option's editor it leaves the option as it was. Everything starts as it
    was last time (`last`: the last match of each game, the latest first): the game, its options
    and players, each seat's kind, strength and name (one select accepts each).
    `racks`: per game (class), the seat positions whose racks the tray has ("south", "west", ...):
    only those games offer bot seats, named after their position ("West bot");
    `strategies`: per game, the strategies a bot may play, its own first; `partner`: the table
    whose people may take seats (`At ID`) in the games of `remote`."""

    title = "Setup"

    def __init__(self, games: list[type], last_names: list[str] | None = None,
                 racks: dict[type, list[str]] | None = None, strategies: dict[type, list[str]] | None = None,
                 last: Sequence[Choice] = (), partner: str = "", remote: frozenset[type] = frozenset(),
                 lights: str | None = None):
        if not games:
            raise ValueError("no games to choose from")
        self.games = games
        self.racks = racks or {}
        self.strategies = strategies or {}
        self.partner = partner
        self.remote_games = remote if partner else frozenset()
        self.last = {choice.game: choice for choice in reversed(last) if choice.game in games}
        self.last_names = list(last_names or (last[0].names if last else []))
        self.kept: dict[type, tuple[dict[str, Any], int]] = {
            game: (choice.options.to_dict(), choice.players) for game, choice in self.last.items()}
        self.bots: dict[int, str] = {}
        self.remote: list[int] = []
        self.game: type | None = None
        self.options: dict[str, Any] = {}
        self.players = 0
        self.names: list[str] = []
        self.stage = "game"
        self.lights = lights
        first = games.index(last[0].game) if last and last[0].game in games else 0
        self.current: Model = self._game_menu(first)
        self._editing = ""  # the option (or "players") being changed

    def handle(self, event: Press) -> None:
        self.current.handle(event)
        if self.current.done:
            getattr(self, f"_after_{self.stage}")(self.current)

    def _go(self, stage: str, model: Model) -> None:
        self.stage, self.current = stage, model

    # -- what is on offer, and last time's ---------------------------------------------------

    def defaults(self, game: type) -> tuple[dict[str, Any], int]:
        """The options and player count `game` starts with: as chosen for it last, else its defaults."""
        if game in self.kept:
            options, players = self.kept[game]
            return dict(options), players
        return {name: default for name, default, _, _ in game.Options.describe()}, game.default_players

    def seats_for(self, game: type) -> list[Seat]:
        """Each seat as last time (for this game), the most seats the game takes."""
        last = self.last.get(game)
        seats = []
        for seat in range(game.max_players):
            if last is not None and seat < len(last.names):
                strategy = last.bots.get(seat)
                seats.append(Seat(last.names[seat], strategy is not None, strategy or "", seat in last.remote))
            else:
                name = self.last_names[seat] if seat < len(self.last_names) else f"P{seat + 1}"
                seats.append(Seat(name))
        return seats

    def offer(self) -> dict[str, Any]:
        """Every game with its options (name, help, choices, the value to start with), players,
        the seats a bot may take and its strengths, each seat as last time: the page's form."""
        games = []
        for game in self.games:
            options, players = self.defaults(game)
            positions = self.racks.get(game, [])
            games.append({
                "name": game.name, "title": game.title, "min_players": game.min_players,
                "max_players": game.max_players, "players": players,
                "options": [{"name": name, "label": name.replace("_", " "), "help": help, "value": options[name],
                             "type": type(default).__name__,
                             "choices": list(choices) if choices else (
                                 [False, True] if isinstance(default, bool) else None)}
                            for name, default, choices, help in game.Options.describe()],
                "positions": list(positions), "strategies": list(self.strategies.get(game, [])) if positions else [],
                "strengths": [strength(s) for s in self.strategies.get(game, [])] if positions else [],
                "remote": self.partner if game in self.remote_games else "",
                "seats": [{"name": s.name, "bot": s.bot and seat < len(positions), "strategy": s.strategy,
                           "remote": s.remote and game in self.remote_games}
                          for seat, s in enumerate(self.seats_for(game))]})
        selected = self.current.selected if self.stage == "game" else 0
        current = self.game or self.games[selected if selected < len(self.games) else 0]
        return {"games": games, "game": current.name}

    def choose(self, game: type, options: Mapping[str, Any], seats: Sequence[Seat]) -> Choice:
        """The page's form as a Choice, checked as the menu checks it; DominoError names what
        cannot be (an option, the seat count, a bot where the tray has no rack, a name twice)."""
        if game not in self.games:
            raise DominoError(f"{getattr(game, 'title', game)} is not a game of this table")
        if not game.min_players <= len(seats) <= game.max_players:
            wanted = (f"{game.min_players}" if game.min_players == game.max_players
                      else f"{game.min_players} to {game.max_players}")
            raise DominoError(f"{game.title} takes {wanted} players, not {len(seats)}")
        chosen = game.Options.from_dict(dict(options))
        game(players=len(seats), options=chosen.to_dict())  # options that do not go together say so
        positions, strategies = self.racks.get(game, []), self.strategies.get(game, [])
        names, bots, remote = [], {}, []
        for seat, s in enumerate(seats):
            name = " ".join(s.name.split())
            if s.remote:
                if game not in self.remote_games:
                    why = (f"{game.title} is not played across two tables" if self.partner
                           else "this table has no partner table ([venue] partner)")
                    raise DominoError(f"seat {seat + 1} cannot be at another table: {why}")
                remote.append(seat)
            if s.bot:
                if seat >= len(positions):
                    where = "has no racks" if not positions else f"has racks for seats 1-{len(positions)} only"
                    raise DominoError(f"seat {seat + 1} cannot be a bot: the tray {where} for {game.title}")
                strategy = s.strategy or (strategies[0] if strategies else "")
                if strategies and strategy not in strategies:
                    raise DominoError(f"seat {seat + 1}: {game.title}'s bots play {', '.join(strategies)}, "
                                      f"not {strategy!r}")
                bots[seat] = strategy
                name = name or f"{positions[seat].capitalize()} bot"
            if not name:
                raise DominoError(f"seat {seat + 1} needs a name")
            if len(name) > NAME_LEN:
                raise DominoError(f"seat {seat + 1}: a name of at most {NAME_LEN} characters, not {len(name)}")
            if name.casefold() in (n.casefold() for n in names):
                raise DominoError(f"{name} is named for two seats; each seat needs its own name")
            names.append(name)
        return Choice(game, chosen, len(seats), names, bots, tuple(remote))

    # -- the stages -------------------------------------------------------------------------

    def _game_menu(self, selected: int = 0) -> ListMenu:
        items, values = [g.title for g in self.games], list(self.games)
        if self.lights is not None:
            items.append(f"Lights: {self.lights}")
            values.append(LIGHTS)
        return ListMenu("Choose a game", items, values, selected)

    def _after_game(self, menu: ListMenu) -> None:
        if menu.cancelled:
            self._go("game", self._game_menu(menu.selected))
            return
        if menu.value == LIGHTS:  # the next setting, the list stays
            self.lights = LEVELS[(LEVELS.index(self.lights) + 1) % len(LEVELS)]
            self._go("game", self._game_menu(menu.selected))
            return
        if menu.value is not self.game:
            if self.game is not None:  # kept for a return to it
                self.kept[self.game] = (dict(self.options), self.players)
            self.game = menu.value
            self.options, self.players = self.defaults(self.game)
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
        self.names, self.bots, self.remote = [], {}, []
        self._next_seat()

    def _after_message(self, _: Message) -> None:
        self._go("options", self._options_menu(START))

    def _next_seat(self) -> None:
        seat = len(self.names)
        bot = seat < len(self.racks.get(self.game, ()))
        away = self.game in self.remote_games
        if seat == self.players:
            self._finish(Choice(self.game, self.game.Options.from_dict(self.options), self.players, list(self.names),
                                dict(self.bots), tuple(self.remote)))
        elif bot or away:
            strategies = (self.strategies.get(self.game) or [""]) if bot else []
            kinds = [PERSON, *strategies, *([REMOTE] if away else [])]
            items = ["Player", *(f"Bot ({self._position(seat)}{', ' + strength(s) if s else ''})" for s in strategies),
                     *([f"At {self.partner}"] if away else [])]
            last = self.seats_for(self.game)[seat]
            chosen = REMOTE if last.remote else (last.strategy or (strategies or [""])[0]) if last.bot else PERSON
            self._go("seat", ListMenu(f"Seat {seat + 1}", items, kinds, kinds.index(chosen) if chosen in kinds else 0))
        else:
            self._go("name", self._name_entry(seat))

    def _position(self, seat: int) -> str:
        return self.racks[self.game][seat]

    def _after_seat(self, menu: ListMenu) -> None:
        seat = len(self.names)
        if menu.cancelled:
            self._go("options", self._options_menu(START))
        elif menu.value not in (PERSON, REMOTE):
            self.bots[seat] = menu.value
            self.names.append(f"{self._position(seat).capitalize()} bot")
            self._next_seat()
        else:
            if menu.value == REMOTE:
                self.remote.append(seat)
            self._go("name", self._name_entry(seat))

    def _name_entry(self, seat: int) -> NameEntry:
        last = self.seats_for(self.game)[seat]
        return NameEntry(f"Name for seat {seat + 1}", f"P{seat + 1}" if last.bot else last.name)

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
