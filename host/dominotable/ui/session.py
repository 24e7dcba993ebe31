"""A match at the table as the front ends meet it: the referee (match/referee.py), the presenter
that shows it and the in-game menu, joined to the inputs.

- `on_board(board)`, `tick()`: the tray, as the referee takes them;
- `on_button(press)`: up/down turn the play pages (or a long prompt's), a long select opens the in-game menu, select
  answers "Take back?", puts a hint away and, after the match, asks for a new one
  (`wants_new_match`);
- `on_tray(event)`: the link's "lost" / "back";
- `screen()`: what every front end shows now.
"""

from __future__ import annotations

from dominotable.match import actions
from dominotable.match.referee import Referee
from dominotable.match.status import Mode
from dominotable.store.errors import StoreUnavailable
from dominotable.tray.board import Board
from dominotable.tray.link import TrayEvent
from dominotable.ui.match_menu import MatchMenu
from dominotable.ui.presenter import LOST, Presenter
from dominotable.ui.press import Press
from dominotable.ui.screen import Screen


class Session:
    def __init__(self, referee: Referee):
        self.referee = referee
        self.presenter = Presenter(referee)
        self.menu: MatchMenu | None = None

    # -- inputs -------------------------------------------------------------------------------

    def on_board(self, board: Board) -> None:
        self.referee.on_board(board)

    def tick(self) -> bool:
        return self.referee.tick()

    def on_tray(self, event: TrayEvent) -> None:
        if event == TrayEvent.LOST:
            self.referee.lost()
        elif event == TrayEvent.BACK:
            self.referee.back()

    def on_button(self, press: Press) -> None:
        r, status = self.referee, self.referee.status
        if status.mode == Mode.LOST:
            return
        if self.menu is not None:
            self.menu.handle(press)
            if self.menu.done:
                chosen, self.menu = self.menu.chosen, None
                if chosen is not None:
                    self.do(chosen)
            return
        if status.refusal and press == Press.SELECT:
            status.put_refusal_away()
        elif status.hint is not None and status.notice is not None and press == Press.SELECT:
            status.put_hint_away()
        elif press == Press.LONG_SELECT:
            self.menu = MatchMenu(r.actions(), r.seating.seat_name(r.game, r.game.current_player))
        elif status.mode == Mode.OVER and press == Press.SELECT:
            r.wants_new_match = True
        elif status.mode == Mode.TAKEBACK and press == Press.SELECT:
            self.do(actions.TakeBack(status.undo[-1]))
        elif press in (Press.UP, Press.DOWN):
            self.presenter.turn_page(1 if press == Press.DOWN else -1)

    def screen(self, lost: str = LOST) -> Screen:
        """What the front ends show; `lost`: why the tray is not answering, while it is not."""
        return self.presenter.screen(self.menu.model if self.menu is not None else None, lost)

    def do(self, action: actions.Action) -> None:
        """Carry out an action the players chose (from the menu or the page), if it still applies;
        a menu open on the OLED closes (the page chose instead)."""
        r = self.referee
        self.menu = None
        if action not in r.actions():
            return
        try:
            self._do(action)
        except StoreUnavailable as exc:  # nothing was written, so nothing changed
            r.status.refused(f"{exc}. Nothing changed: select, then try again")

    def _do(self, action: actions.Action) -> None:
        r = self.referee
        match action:
            case actions.ShowHint():
                r.hint()
            case actions.ButtonMove(move=move):
                r.button_move(move)
            case actions.TakeBack():
                r.take_back()
            case actions.Resign():
                r.resign()
            case actions.NewMatch():
                r.abandon()
