"""The presenter: the match as a screen model (ui/screen.py) that any front end can draw, the
OLED and the web page alike. It reads the controller and the in-game menu, and keeps the one
piece of view state there is: which page of the play screen is up (up/down turn the pages)."""

from __future__ import annotations

from dominotable.match.controller import MatchController, Mode
from dominotable.ui.menu import Model
from dominotable.ui.screen import Screen, ScreenKind


class Presenter:
    def __init__(self, controller: MatchController):
        self.controller = controller
        self.page = 0

    def turn_page(self, step: int) -> None:
        self.page += step

    def screen(self, menu: Model | None = None) -> Screen:
        c = self.controller
        if c.mode == Mode.LOST:
            return Screen(ScreenKind.LOST)
        if menu is not None:
            return Screen(ScreenKind.MENU, model=menu)
        if c.mode == Mode.OVER:
            return Screen(ScreenKind.OVER, c.over_title, names=c.side_names(), points=list(c.game.scores),
                          target=_target(c.game))
        said = c.bot_instruction() if c.notice is None or c.notice.note else None
        if said is not None:  # a bot seat's one next step comes before the table's note
            return Screen(ScreenKind.PROMPT, said.who, said.what, bot=str(said))
        if c.notice is not None:
            take = tuple(str(t) for t in c.hinted.take) if c.hinted is not None else ()
            return Screen(ScreenKind.PROMPT, c.notice.title, c.notice.text, take=take)
        return self._play()

    def _play(self) -> Screen:
        c = self.controller
        game = c.game
        seat = game.current_player
        labels = [label for label, _ in c.button_moves(c.settled)]
        if c.warning:
            note = c.warning
        elif labels:
            note = f"hold select: {', '.join(labels).lower()}"
        elif c.last:
            note = str(c.last)
        else:
            note = ""
        return Screen(ScreenKind.PLAY, text=note, names=c.side_names(), points=list(game.scores),
                      target=_target(game), current=game.side_of(seat) if seat is not None else None,
                      turn=c.seat_name(seat), last=c.last, page=self.page)


def _target(game) -> int | None:
    return game.options.target
