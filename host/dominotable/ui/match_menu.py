"""The in-game menu (a long select): a hint, the game's button moves, take back, resign, new match,
back; each item a typed action, asked about once more (the question starts on No) before it is
done, except a hint, which is shown at once."""

from __future__ import annotations

from dataclasses import dataclass

from dominotable.rules.game import Move
from dominotable.ui.menu import ACTIONS, Confirm, ListMenu, Model, confirm_action
from dominotable.ui.press import Press


@dataclass(frozen=True)
class ButtonMove:
    """A move made with the buttons (End turn, Pass, an exposure)."""

    move: Move
    label: str

    def question(self, who: str) -> Confirm:
        return Confirm(f"{who}: {self.label.lower()}?")


@dataclass(frozen=True)
class TakeBack:
    move: Move  # the last move, which the tray no longer shows (or the players want undone)

    @property
    def label(self) -> str:
        return f"{ACTIONS['takeback']} {self.move}"

    def question(self, who: str) -> Confirm:
        return confirm_action("takeback", str(self.move))


@dataclass(frozen=True)
class Resign:
    label = ACTIONS["resign"]

    def question(self, who: str) -> Confirm:
        return confirm_action("resign", who)


@dataclass(frozen=True)
class NewMatch:
    label = ACTIONS["new"]

    def question(self, who: str) -> Confirm:
        return confirm_action("new")


@dataclass(frozen=True)
class Back:
    label = ACTIONS["back"]


@dataclass(frozen=True)
class ShowHint:
    label = "Hint"


MenuAction = ShowHint | ButtonMove | TakeBack | Resign | NewMatch | Back


class MatchMenu:
    """The list, then the question about the item chosen. `handle(press)` until `done`; then
    `chosen` is the confirmed action, or None (backed out, answered No, or Back)."""

    def __init__(self, actions: list[MenuAction], who: str):
        self.who = who
        self.model: Model = ListMenu("Menu", [a.label for a in actions], list(actions))
        self.done = False
        self.chosen: MenuAction | None = None
        self._asking: MenuAction | None = None

    def handle(self, press: Press) -> None:
        self.model.handle(press)
        if not self.model.done:
            return
        if self.model.cancelled:
            self.done = True
        elif self._asking is None:
            action = self.model.value
            if isinstance(action, Back):
                self.done = True
            elif isinstance(action, ShowHint):
                self.done, self.chosen = True, action
            else:
                self._asking, self.model = action, action.question(self.who)
        else:
            self.done = True
            self.chosen = self._asking if self.model.value else None
