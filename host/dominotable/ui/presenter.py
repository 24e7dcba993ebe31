"""The presenter: the match as the one Screen (ui/screen.py) every front end renders, the OLED,
the page and a venue alike. It reads the referee and the in-game menu, and keeps the one piece
of view state there is: which page of the play screen is up (up/down turn the pages)."""

from __future__ import annotations

from dominotable.match.referee import Referee
from dominotable.match.status import Mode
from dominotable.ui.menu import Model
from dominotable.ui.screen import Game, Score, Screen, ScreenKind

LOST = "the tray is not answering: check its USB cable"


class Presenter:
    def __init__(self, referee: Referee):
        self.referee = referee
        self.page = 0
        self._prompt: tuple[str, str] | None = None  # the prompt shown last: a new one starts on its first page

    def turn_page(self, step: int) -> None:
        self.page += step

    def screen(self, menu: Model | None = None, lost: str = LOST) -> Screen:
        r = self.referee
        status, game = r.status, r.game
        board = r.tracker.settled or r.tracker.board
        dead = tuple(board.faults) if board is not None and status.warning else ()
        common = {"scores": self._scores(), "target": game.options.target, "last": status.last,
                  "alarms": status.alarms, "warning": status.warning, "problem": status.problem, "game": self._game(),
                  "tray": tuple((p.tile, tuple(p.cells)) for p in board.placements) if board is not None else ()}
        if status.mode == Mode.LOST:
            return Screen(ScreenKind.LOST, "Tray lost", lost, **common)
        if menu is not None:
            return Screen(ScreenKind.MENU, menu.title, menu=menu, **common)
        if status.mode == Mode.OVER:
            return Screen(ScreenKind.OVER, status.over_title or "", **common)
        said = r.instruction() if status.notice is None or status.notice.note else None
        if said is not None:  # a seat the table plays: its one next step comes before the table's note
            return Screen(ScreenKind.PROMPT, said.who, said.what, seat=said.who, cells=said.cells + dead,
                          page=self._page_of(said.who, said.what), **common)
        notice = status.notice
        waiting = r.waiting()
        if notice is None and waiting is not None and r.unreachable is not None:  # a partition: play pauses
            return Screen(ScreenKind.PROMPT, "Paused", f"waiting for {waiting}: {r.unreachable}", cells=dead,
                          **common)
        if notice is not None:
            take = tuple(status.hint_take) if status.hint is not None else ()
            where = {p.tile: p.cells for p in r.area.placements} if r.area is not None else {}
            cells = (status.problem_cells if status.problem is not None else ()) + tuple(
                c for t in take for c in where.get(t, ()))
            return Screen(ScreenKind.PROMPT, notice.title, notice.text, cells=cells + dead,
                          take=tuple(map(str, take)), page=self._page_of(notice.title, notice.text), **common)
        self._prompt = None
        return self._play(common, dead)

    def _page_of(self, title: str, text: str) -> int:
        """The page of a prompt that up/down have turned to; a new prompt starts on its first."""
        if self._prompt != (title, text):
            self._prompt, self.page = (title, text), 0
        return self.page

    def _play(self, common: dict, dead: tuple[int, ...]) -> Screen:
        r = self.referee
        status = r.status
        labels = [label for label, _ in r.button_moves()]
        waiting = r.waiting()
        if waiting is not None:
            note = f"waiting for {waiting}"
        elif status.warning:
            note = status.warning
        elif labels:
            note = f"hold select: {', '.join(labels).lower()}"
        elif status.last:
            note = str(status.last)
        else:
            note = ""
        return Screen(ScreenKind.PLAY, text=note, turn=r.seating.seat_name(r.game, r.game.current_player),
                      page=self.page, cells=dead, **common)

    def _scores(self) -> tuple[Score, ...]:
        r = self.referee
        game = r.game
        seat = game.current_player
        current = game.side_of(seat) if seat is not None and r.status.mode != Mode.OVER else None
        return tuple(Score(name, points, side == current)
                     for side, (name, points) in enumerate(zip(r.seating.side_names(game), game.scores)))

    def _game(self) -> Game:
        r = self.referee
        game = r.game
        return Game(game.name, game.title, r.seating.match_id, len(game.moves), str(r.status.mode),
                    r.spec.zones_for(game.options), game.dset.top, r.spec.lower_wins, r.spec.goal(game.options),
                    r.spec.scoring)
