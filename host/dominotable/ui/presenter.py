"""The presenter: the match as a screen model (ui/screen.py) that any front end can draw, the
OLED and the web page alike. It reads the referee and the in-game menu, and keeps the one piece
of view state there is: which page of the play screen is up (up/down turn the pages)."""

from __future__ import annotations

from dominotable.match.referee import Referee
from dominotable.match.status import Mode
from dominotable.ui.menu import Model
from dominotable.ui.screen import Screen, ScreenKind


class Presenter:
    def __init__(self, referee: Referee):
        self.referee = referee
        self.page = 0

    def turn_page(self, step: int) -> None:
        self.page += step

    def screen(self, menu: Model | None = None) -> Screen:
        r = self.referee
        status, game = r.status, r.game
        if status.mode == Mode.LOST:
            return Screen(ScreenKind.LOST)
        if menu is not None:
            return Screen(ScreenKind.MENU, model=menu)
        if status.mode == Mode.OVER:
            return Screen(ScreenKind.OVER, status.over_title, names=r.seating.side_names(game),
                          points=list(game.scores), target=game.options.target)
        said = r.instruction() if status.notice is None or status.notice.note else None
        if said is not None:  # a seat the table plays: its one next step comes before the table's note
            return Screen(ScreenKind.PROMPT, said.who, said.what, bot=str(said))
        if status.notice is not None:
            return Screen(ScreenKind.PROMPT, status.notice.title, status.notice.text,
                          take=tuple(str(t) for t in status.hint_take) if status.hint is not None else ())
        return self._play()

    def _play(self) -> Screen:
        r = self.referee
        status, game = r.status, r.game
        seat = game.current_player
        labels = [label for label, _ in r.button_moves(r.tracker.settled)]
        if status.warning:
            note = status.warning
        elif labels:
            note = f"hold select: {', '.join(labels).lower()}"
        elif status.last:
            note = str(status.last)
        else:
            note = ""
        return Screen(ScreenKind.PLAY, text=note, names=r.seating.side_names(game), points=list(game.scores),
                      target=game.options.target, current=game.side_of(seat) if seat is not None else None,
                      turn=r.seating.seat_name(game, seat), last=status.last, page=self.page)
