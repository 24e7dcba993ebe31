"""The presenter: the match as the one Screen (ui/screen.py) every front end renders, the OLED,
the page and a venue alike. It reads the referee's status and the in-game menu, never asks the
match anything it has to work out (but where a tile held over the scan pad may go: the targets
the page asks for too, kept for the tray as it lies), and keeps the one piece of view state there is: which page of
the play screen is up (up/down turn the pages).

The turn line and the prompt speak with one voice (reading/prompts.py), from the instruction the
judge decided: the turn names the seat to move (nobody while the table waits for a draw or a
reveal, or for the tray to be set up); the person to move gets their turn in words on the play
pages; a step for a seat the table plays is a prompt naming that seat, or a title naming only
its rack (tiles into it or out of it, which any time will do) when it is not that seat's turn,
with its words shortened for when the tray lights its cells. A tile the person to move holds over
the scan pad has its places (where the page would offer it) on the screen, for the lights."""

from __future__ import annotations

from dominotable.match.referee import Referee
from dominotable.match.status import Mode
from dominotable.reading import prompts
from dominotable.reading.instruction import Instruction
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
        said = status.instruction if status.notice is None and status.mode == Mode.PLAY else None
        if said is not None and (said.table or said.seat is None):
            # a seat the table plays (its one next step), or what anyone at the table is to do
            title = f"{said.who}'s rack" if said.rack and said.who != turn else said.who or "At the table"
            text, short = (prompts.said(said, r.judge.reader.geometry, lit) for lit in (False, True))
            if said.scored:  # the hand-over card
                title = "Hand over"
                scored = prompts.scored(r.seating.side_names(game), said.scored, r.spec.scoring)
                text, short = f"{scored}; {text}", f"{scored}; {short}"
            return Screen(ScreenKind.PROMPT, title, text, turn=turn, seat=said.who if said.table else "",
                          cells=self._cells(said) + dead, instruction=said, page=self._page_of(title, text),
                          short=short if short != text else "", **common)
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
            return Screen(ScreenKind.PROMPT, notice.title, notice.text, turn=turn, cells=cells + dead,
                          take=tuple(map(str, take)), page=self._page_of(notice.title, notice.text), **common)
        self._prompt = None
        return self._play(common, dead, turn, waiting, said)

    def _cells(self, said: Instruction) -> tuple[int, ...]:
        """The cells an instruction is about: its steps', and its rack slots' on the tray."""
        seats = self.referee.seats
        slots = seats.slot_cells(said.seat, said.slots) if said.seat in seats.racks else ()
        return slots + said.cells

    def _held(self) -> tuple[int, ...]:
        """Where the tile the person to move holds over the scan pad may be laid: the places the
        page offers for it (match/targets.py, asked of copies once for the tray as it lies)."""
        board = self.referee.tracker.board
        held = board.on_pad() if board is not None else None
        return tuple(dict.fromkeys(c for cells in self.referee.targets(held.tile) for c in cells)) \
            if held is not None else ()

    def _page_of(self, title: str, text: str) -> int:
        """The page of a prompt that up/down have turned to; a new prompt starts on its first."""
        if self._prompt != (title, text):
            self._prompt, self.page = (title, text), 0
        return self.page

    def _play(self, common: dict, dead: tuple[int, ...], turn: str, waiting: str | None,
              said: Instruction | None) -> Screen:
        """The play pages; their note is the turn of the person to move, in words, while there is one."""
        status = self.referee.status
        labels = [a.label for a in common["actions"] if a.kind == "move"]
        if waiting is not None:
            note = f"waiting for {waiting}"
        elif said is not None:  # a dead reader's warning after it: the OLED shows no other
            note = prompts.said(said, self.referee.judge.reader.geometry)
            note += f". {status.warning[0].upper()}{status.warning[1:]}" if status.warning else ""
            return Screen(ScreenKind.PLAY, said.who, note, turn=turn, page=self.page, cells=self._cells(said) + dead,
                          instruction=said, places=self._held(), **common)
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
