"""The presenter: the match as the one Screen (ui/screen.py) every front end renders, the OLED,
the page and a venue alike. It reads the referee and the in-game menu, and keeps the one piece
of view state there is: which page of the play screen is up (up/down turn the pages).

The turn line and the prompt speak with one voice: the turn names the seat to move (nobody while
the table waits for a draw or a reveal, or for the tray to be set up); a prompt for a seat the
table plays names that seat, and when that seat is not the one to move it says how it stands to
the turn: "after ANN: ..." (the step that follows ANN's), or a title naming only the seat's rack
(tiles into it or out of it, which any time will do)."""

from __future__ import annotations

from dominotable.match.referee import Referee
from dominotable.match.status import Mode
from dominotable.ui.menu import Model
from dominotable.ui.screen import Game, Rack, Score, Screen, ScreenKind

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
                  "tray": tuple((p.tile, tuple(p.cells)) for p in board.placements) if board is not None else (),
                  "actions": tuple(r.actions())}
        if status.mode == Mode.LOST:
            return Screen(ScreenKind.LOST, "Tray lost", lost, **common)
        if menu is not None:
            return Screen(ScreenKind.MENU, menu.title, menu=menu, turn=self._turn(), **common)
        if status.mode == Mode.OVER:
            return Screen(ScreenKind.OVER, status.over_title or "", **common)
        turn = self._turn()
        said = r.instruction() if status.notice is None or status.notice.note else None
        if said is not None:  # a seat the table plays: its one next step comes before the table's note
            title = f"{said.who}'s rack" if said.rack and said.who != turn else said.who
            return Screen(ScreenKind.PROMPT, title, said.what, turn=turn, seat=said.who, cells=said.cells + dead,
                          page=self._page_of(title, said.what), **common)
        notice = status.notice
        waiting = r.waiting()
        if notice is None and waiting is not None and r.hearing.unreachable is not None:  # a partition: play pauses
            return Screen(ScreenKind.PROMPT, "Paused", f"waiting for {waiting}: {r.hearing.unreachable}", cells=dead,
                          **common)
        if notice is not None:
            take = tuple(status.hint_take) if status.hint is not None else ()
            where = {p.tile: p.cells for p in r.area.placements} if r.area is not None else {}
            cells = (status.problem_cells if status.problem is not None else ()) + tuple(
                c for t in take for c in where.get(t, ()))
            if not cells and status.problem is None and r.judge.reader.pad_draw() is not None:
                cells = tuple(board.geometry.pad) if board is not None else ()  # a draw over the scan pad
            return Screen(ScreenKind.PROMPT, notice.title, notice.text, turn=turn, cells=cells + dead,
                          take=tuple(map(str, take)), page=self._page_of(notice.title, notice.text), **common)
        self._prompt = None
        return self._play(common, dead, turn, waiting)

    def _page_of(self, title: str, text: str) -> int:
        """The page of a prompt that up/down have turned to; a new prompt starts on its first."""
        if self._prompt != (title, text):
            self._prompt, self.page = (title, text), 0
        return self.page

    def _play(self, common: dict, dead: tuple[int, ...], turn: str, waiting: str | None) -> Screen:
        status = self.referee.status
        labels = [a.label for a in common["actions"] if a.kind == "move"]
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
        return Screen(ScreenKind.PLAY, text=note, turn=turn, page=self.page, cells=dead, **common)

    def _turn(self) -> str:
        """Whose turn it is, or "" while nobody's is (the tray set up, a draw or a reveal awaited)."""
        r = self.referee
        game = r.game
        if r.status.mode in (Mode.RESTORE, Mode.OVER, Mode.LOST) or game.awaiting() or r.judge.reader.pad_draw():
            return ""
        return r.seating.seat_name(game, game.current_player)

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
        racks = tuple(
            Rack(r.seating.names[seat], rack.name, rack.slots) for seat, rack in sorted(r.seats.racks.items()))
        return Game(game.name, game.title, r.seating.match_id, len(game.moves), str(r.status.mode),
                    r.spec.zones_for(game.options), game.dset.top, r.spec.lower_wins, r.spec.goal(game.options),
                    r.spec.scoring, racks)
