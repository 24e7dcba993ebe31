"""A match at the table: the controller that judges and commits (controller.py), the presenter
that shows it (presenter.py) and the in-game menu (match_menu.py), joined to the inputs.

- `on_board(board)`, `tick()`: the tray, as the controller takes them;
- `on_button(press)`: up/down turn the play pages, a long select opens the in-game menu, select
  answers "Take back?", puts a hint away and, after the match, asks for a new one
  (`wants_new_match`);
- `on_tray(event)`: the link's "lost" / "back";
- `screen()`: what a front end shows now.
"""

from __future__ import annotations

from dominotable.games import catalog
from dominotable.match.controller import MatchController, Mode
from dominotable.match.seats import BotSeats
from dominotable.rules.game import Game
from dominotable.store.storage import Store, replay
from dominotable.tray.board import Board
from dominotable.tray.geometry import Geometry
from dominotable.tray.link import TrayEvent
from dominotable.ui.match_menu import Back, ButtonMove, MatchMenu, MenuAction, NewMatch, Resign, ShowHint, TakeBack
from dominotable.ui.presenter import Presenter
from dominotable.ui.press import Press
from dominotable.ui.screen import Screen


class Session:
    def __init__(self, controller: MatchController):
        self.controller = controller
        self.presenter = Presenter(controller)
        self.menu: MatchMenu | None = None

    @classmethod
    def start(cls, store: Store, game: Game, names: list[str], geometry: Geometry, bots=(), demo: bool = False,
              **options) -> Session:
        """A new match, recorded in `store` before the first move (`demo`: as a bots' demo);
        `bots`: the seats the table plays."""
        match_id = store.start_match(game, names, demo, bots)
        seats = BotSeats(game, geometry, bots, names, game.seed, store, match_id) if bots else None
        return cls(MatchController(game, catalog.reader_for(game, geometry), store, match_id, names, seats=seats,
                                   **options))

    @classmethod
    def resume(cls, store: Store, match_id: int, geometry: Geometry, **options) -> Session:
        """A stored match rebuilt by replay, its bots' racks as last read; it waits until the tray
        shows its position."""
        record = store.match(match_id)
        game = replay(record)
        seats = (BotSeats(game, geometry, record.bots, record.names, game.seed, store, match_id, record.racks)
                 if record.bots else None)
        return cls(MatchController(game, catalog.reader_for(game, geometry), store, match_id, record.names,
                                   resumed=True, seats=seats, **options))

    # -- inputs -------------------------------------------------------------------------------

    def on_board(self, board: Board) -> None:
        self.controller.on_board(board)

    def tick(self) -> bool:
        return self.controller.tick()

    def on_tray(self, event: TrayEvent) -> None:
        if event == TrayEvent.LOST:
            self.controller.lost()
        elif event == TrayEvent.BACK:
            self.controller.back()

    def on_button(self, press: Press) -> None:
        c = self.controller
        if c.mode == Mode.LOST:
            return
        if self.menu is not None:
            self.menu.handle(press)
            if self.menu.done:
                chosen, self.menu = self.menu.chosen, None
                if chosen is not None:
                    self._do(chosen)
            return
        if c.hinted is not None and c.notice is not None and press == Press.SELECT:
            c.put_hint_away()
        elif press == Press.LONG_SELECT:
            self.menu = MatchMenu(self._menu_actions(), c.seat_name(c.game.current_player))
        elif c.mode == Mode.OVER and press == Press.SELECT:
            c.wants_new_match = True
        elif c.mode == Mode.TAKEBACK and press == Press.SELECT:
            c.take_back()
        elif press in (Press.UP, Press.DOWN):
            self.presenter.turn_page(1 if press == Press.DOWN else -1)

    def screen(self) -> Screen:
        return self.presenter.screen(self.menu.model if self.menu is not None else None)

    # -- the in-game menu ---------------------------------------------------------------------

    def _menu_actions(self) -> list[MenuAction]:
        c = self.controller
        actions: list[MenuAction] = []
        if c.mode not in (Mode.OVER, Mode.RESTORE):
            actions += [ButtonMove(move, label) for label, move in c.button_moves(c.board)]
            if c.mode == Mode.TAKEBACK:
                actions.append(TakeBack(c.offer))
            elif c.board is not None:
                before = c.takeback_candidate(c.board)
                if before is not None:
                    actions.append(TakeBack(before))
            actions += [ShowHint(), Resign()]
        return actions + [NewMatch(), Back()]

    def _do(self, action: MenuAction) -> None:
        c = self.controller
        match action:
            case ShowHint():
                c.hint()
            case ButtonMove(move=move):
                c.button_move(move)
            case TakeBack(move=move):
                if c.game.moves and c.game.moves[-1] == move:
                    c.take_back()
            case Resign():
                c.resign()
            case NewMatch():
                c.abandon()
            case Back():
                pass
