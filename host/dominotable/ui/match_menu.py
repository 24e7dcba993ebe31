"""The in-game menu (a long select): the actions that apply now (match/actions.py), then Back;
each asked about once more (the question starts on No) before it is done, except a hint, which is
shown at once."""

from __future__ import annotations

from dominotable.match import actions
from dominotable.ui.menu import Confirm, ListMenu, Model
from dominotable.ui.press import Press

BACK = "Back to the game"


def question(action: actions.Action, who: str) -> Confirm:
    match action:
        case actions.ButtonMove(label=label):
            return Confirm(f"{who}: {label.lower()}?")
        case actions.TakeBack(label=label):
            return Confirm(f"{label}?")
        case actions.Resign():
            return Confirm(f"{who or 'You'}: resign the match?")
        case _:
            return Confirm("End this match and start a new one?")


class MatchMenu:
    """The list, then the question about the item chosen. `handle(press)` until `done`; then
    `chosen` is the confirmed action, or None (backed out, answered No, or Back)."""

    def __init__(self, available: list[actions.Action], who: str):
        self.who = who
        self.model: Model = ListMenu("Menu", [a.label for a in available] + [BACK], [*available, None])
        self.done = False
        self.chosen: actions.Action | None = None
        self._asking: actions.Action | None = None

    def handle(self, press: Press) -> None:
        self.model.handle(press)
        if not self.model.done:
            return
        if self.model.cancelled:
            self.done = True
        elif self._asking is None:
            action = self.model.value
            if action is None:
                self.done = True
            elif isinstance(action, actions.ShowHint):
                self.done, self.chosen = True, action
            else:
                self._asking, self.model = action, question(action, self.who)
        else:
            self.done = True
            self.chosen = self._asking if self.model.value else None
