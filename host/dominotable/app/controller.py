"""The match controller: settled boards in, engine moves out, every move committed to the store
before anything is shown.

Pure logic with an injected clock and no threads:

- `on_board(board)` for every snapshot; a board is judged once nothing has changed for
  `settle_ms` (on a later `tick()`, or at once when `settle_ms` is 0). Transitional states (a
  capture half made) are never judged while they last.
- `tick()`: call often; it judges a board that has settled.
- `lost()` / `back()`: the tray link dropped and came back.
- `take_back()`, `button_move(move)`, `resign()`, `abandon()`: what the players choose with the
  buttons.

A draw the game awaits (the tiles drawn for dealer or for the lead) is read over the scan pad
seat by seat (reading/draw.py); the controller keeps the tiles read so far and pushes the `lots`
move once every seat has drawn. A takeback or a resume starts the draw again.

Bot seats (seats.py): the bots' racks are read apart from the game (a rack problem is a
problem like any other), each bot's turn must be made on the tray as its instruction said
(`BotSeats.vet`), and a bot's move that leaves no trace on the tray is made by the table.

A problem (an invalid board, or a reader's problem verdict) becomes the `notice` and sounds the
alarm once; nothing advances until the tray shows a legal state. A board equal to the position
before the last move offers a takeback. A match starts by waiting for the tray to show the
engine's position exactly ("Set up the table", or "Restore the table" for a resumed match).
What the state means on a screen is the presenter's business (presenter.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from dominotable.app.hints import Hint, hint
from dominotable.app.seats import BotSeats
from dominotable.app.storage import Store
from dominotable.reading.draw import PadDraw
from dominotable.reading.reader import Reader, Verdict
from dominotable.rules.game import Game, Move
from dominotable.rules.outcome import Termination
from dominotable.tray.board import Board
from dominotable.ui.screen import LastPlay


class Mode(StrEnum):
    RESTORE = "restore"  # waiting for the tray to show the engine's position
    PLAY = "play"
    TAKEBACK = "takeback"  # the tray shows the position before the last move: take it back?
    LOST = "lost"  # the tray link is down
    OVER = "over"


@dataclass(frozen=True)
class Notice:
    """What the players must read now instead of the play pages."""

    title: str
    text: str


class MatchController:
    def __init__(self, game: Game, reader: Reader, store: Store, match_id: int, names: Sequence[str], *,
                 settle_ms: int = 400, clock: Callable[[], float] = time.monotonic, resumed: bool = False,
                 on_alarm: Callable[[], None] | None = None, seats: BotSeats | None = None):
        self.game = game
        self.reader = reader
        self.store = store
        self.match_id = match_id
        self.names = list(names)
        self.settle_ms = settle_ms
        self.clock = clock
        self.resumed = resumed
        self.on_alarm = on_alarm
        self.seats = seats
        self.area: Board | None = None  # the board last judged, without the bots' racks
        self.hinted: Hint | None = None  # the hint on show
        self._under_hint: Notice | None = None  # what the hint covers
        self.alarms = 0
        self.wants_new_match = False
        self.mode = Mode.OVER if game.is_over() else Mode.RESTORE
        self.board: Board | None = None  # the latest board, settled or not
        self.settled: Board | None = None  # the board last judged
        self.last: LastPlay | None = None
        self.notice: Notice | None = None if game.is_over() else self._restore_notice()
        self.problem: str | None = None  # the problem the tray shows now (the runtime may hold the LED on)
        self.problem_cells: tuple[int, ...] = ()  # the cells it is about (a front end may mark them)
        self.offer: Move | None = None  # the move a takeback would undo
        self.over_title: str | None = self._result_title() if game.is_over() else None
        self._changed = clock()
        self._judged = True
        self._fresh = False  # the board to judge came from the tray (not from a button)
        self._draw: PadDraw | None = None
        self._before_lost = self.mode

    # -- inputs -------------------------------------------------------------------------------

    def on_board(self, board: Board) -> None:
        if self.board is not None and board.cells == self.board.cells:
            return
        self.board = board
        self._changed = self.clock()
        self._judged = False
        self._fresh = True
        self.tick()

    def tick(self) -> bool:
        """Judge a board that has settled; True if one was judged (the screen may change)."""
        if self._judged or self.board is None or self.mode in (Mode.LOST, Mode.OVER):
            return False
        if (self.clock() - self._changed) * 1000 >= self.settle_ms:
            fresh, self._fresh, self._judged = self._fresh, False, True
            self.settled = self.board
            self._judge(self.board, fresh)
            return True
        return False

    def lost(self) -> None:
        if self.mode != Mode.LOST:
            self._before_lost, self.mode = self.mode, Mode.LOST

    def back(self) -> None:
        if self.mode == Mode.LOST:
            self.mode = self._before_lost
            self.board = None  # judge the resynced tray afresh
            self._judged = True

    @property
    def judged(self) -> Board | None:
        """The board last judged; None while a newer one waits to settle."""
        return self.board if self._judged else None

    @property
    def drawn(self) -> tuple:
        """The tiles of the draw over the scan pad read so far."""
        return tuple(self._draw.tiles) if self._draw is not None else ()

    # -- judging ------------------------------------------------------------------------------

    def _judge(self, board: Board, fresh: bool) -> None:
        problems = board.problems()
        if problems:
            self._problem("Check the tray", problems[0].message, fresh, problems[0].cells)
            return
        board, racks = self._play_area(board)
        self.area = board
        if racks is not None:
            if self.mode == Mode.RESTORE:
                self.notice = self._restore_notice(racks)
            else:
                self._problem("Fix the tray", racks, fresh)
            return
        verdict = self._read(board)
        if self.mode == Mode.RESTORE and not verdict.same:
            self.notice = self._restore_notice(verdict.problem)
            return
        # moves, then what the tray shows after them: a note, or a problem read past them
        for _ in range(len(board.placements) + 2):
            if self.mode == Mode.OVER:
                break
            if not verdict.moves:  # the bots' moves that leave no trace, then the tray again
                if not (verdict.same and self._bot_moves(board)):
                    break
            else:
                wrong = self.seats.vet(verdict.moves) if self.seats is not None else None
                if wrong is not None:
                    self._problem("Fix the tray", wrong, fresh)
                    return
                self._commit(verdict.moves)
            verdict = self._read(board)
        if self.mode == Mode.OVER:
            return
        if verdict.same:
            self._play(verdict.note)
        elif not verdict.moves:
            before = self.takeback_candidate(board) if fresh and self._draw is None else None
            if before is not None:
                self.mode, self.offer, self.problem = Mode.TAKEBACK, before, None
                self.notice = Notice("Take back?", f"take back {before}? press select")
            else:
                self._problem("Fix the tray", verdict.problem, fresh, verdict.cells)

    def _play_area(self, board: Board) -> tuple[Board, str | None]:
        """The board the game's reader judges (without the bots' racks) and a rack problem."""
        return self.seats.read(board) if self.seats is not None else (board, None)

    def _bot_moves(self, board: Board) -> bool:
        """Make the bots' moves that leave no trace on the tray (the end of a turn, a pass, a
        reveal from a rack); whether there were any."""
        made = False
        while self.seats is not None and self.mode != Mode.OVER:
            move = self.seats.traceless(board)
            if move is None:
                return made
            self._commit([move])
            made = True
        return made

    def _read(self, board: Board) -> Verdict:
        """The reader's verdict; while the game awaits a draw over the scan pad and the tray is
        otherwise in order, the draw's (started when first judged, the pad's tile not counted)."""
        verdict = self.reader.judge(board)
        draw = self.reader.pad_draw()
        if draw is None:
            self._draw = None
            return verdict
        if self._draw is None:
            self._draw = PadDraw(draw, [self.seat_name(seat) for seat in range(len(self.game.side_names()))], board)
        return self._draw.read(board) if verdict.same else verdict

    def _rejudge(self) -> None:
        """The engine changed under an unchanged tray (a button move, a takeback): judge it
        again now, without the alarm (nobody touched the tray)."""
        if self.board is not None and self.mode not in (Mode.LOST, Mode.OVER):
            self._judged = True
            self.settled = self.board
            self._judge(self.board, fresh=False)

    def _problem(self, title: str, text: str, fresh: bool, cells=()) -> None:
        self.problem_cells = tuple(cells)
        if self.mode == Mode.TAKEBACK:
            self.mode = Mode.PLAY
        if fresh and text != self.problem:
            self.alarms += 1
            if self.on_alarm:
                self.on_alarm()
        self.problem = text
        self.notice = Notice(title, text)

    def takeback_candidate(self, board: Board) -> Move | None:
        """The last move, if the tray shows the position before it."""
        game = self.game
        if not game.moves:
            return None
        board = self._play_area(board)[0]
        move = game.pop()
        try:
            same = self.reader.judge(board).same
        finally:
            game.push(move, trusted=True)
        return move if same else None

    def _play(self, note: str | None = None) -> None:
        self.mode = Mode.PLAY
        self.problem, self.problem_cells = None, ()
        self.offer = None
        self.hinted = None
        self.notice = Notice("At the table", note) if note else None

    def bot_instruction(self) -> str | None:
        """What a person must do now for a bot seat (its turn, or a tile its rack waits for)."""
        if self.seats is None or self.mode != Mode.PLAY or self.area is None:
            return None
        return self.seats.instruction(self.area)

    def hint(self) -> None:
        """Show a hint for the player to move, and record in the store that one was asked for."""
        game, seats = self.game, self.seats
        seat = game.current_player
        hand = seats.hand(seat) if seats is not None and seats.is_bot(seat) else None
        self.hinted = hint(game, hand, game.seed)
        self.store.add_hint(self.match_id, len(game.moves), seat, self.hinted.text)
        self._under_hint, self.notice = self.notice, Notice("Hint", self.hinted.text)

    def put_hint_away(self) -> None:
        self.hinted, self.notice = None, self._under_hint

    # -- changing the match -------------------------------------------------------------------

    def _commit(self, moves) -> None:
        """Push and store each move (durable before anything is shown)."""
        game = self.game
        self._draw = None
        played: list[Move] = []
        seat = before = None
        first, seats = len(game.moves) + 1, []
        for move in moves:
            seats.append(game.current_player)
            if game.current_player != seat or not played:  # the last play is the last seat's moves
                seat, before, played = game.current_player, list(game.scores), []
            game.push(move)
            try:
                self.store.append_move(self.match_id, len(game.moves), str(move))
            except BaseException:
                game.pop()
                raise
            played.append(move)
        if self.seats is not None:
            self.seats.played(moves, first, seats)
        side = game.side_of(seat) if seat is not None else 0
        gained = game.scores[side] - before[side]
        self.last = LastPlay(self.seat_name(seat), " ".join(str(m) for m in played), gained or None)
        if game.is_over():
            self.store.finish(self.match_id, game)
            self._over(self._result_title())
        else:
            self.mode = Mode.PLAY

    def _result_title(self) -> str:
        winners = self.game.winners()
        return ("Won by " + ", ".join(self.side_names()[w] for w in winners)) if winners else "Match over"

    def _over(self, title: str) -> None:
        self.mode = Mode.OVER
        self.over_title = title
        self.notice = None

    def take_back(self) -> None:
        game = self.game
        self.store.take_back(self.match_id, len(game.moves))
        undone = game.pop()
        if self.seats is not None:
            self.seats.taken_back(len(game.moves) + 1)
        self._draw = None
        self.last = LastPlay(self.seat_name(game.current_player), f"took back {undone}", None)
        self._play()
        self._rejudge()

    def button_move(self, move: Move) -> None:
        problem = self.game.why_illegal(move)
        if problem is not None:
            self.notice = Notice("Not now", self.reader.explain(problem, self.settled))
            return
        self._commit([move])
        if self.mode != Mode.OVER:
            self._play()
        self._rejudge()

    def resign(self) -> None:
        game = self.game
        seat = game.current_player
        outcome = game.resign(seat if seat is not None else 0)
        self.store.finish(self.match_id, game, outcome.termination, list(outcome.winners))
        self.last = LastPlay(self.seat_name(seat), "resigned", None)
        self._over(f"{self.seat_name(seat)} resigned")

    def abandon(self) -> None:
        """New match: an unfinished match is recorded as abandoned (no winners)."""
        if self.mode != Mode.OVER:
            self.store.finish(self.match_id, self.game, Termination.ABANDONED, [])
            self._over("Match abandoned")
        self.wants_new_match = True

    def button_moves(self, board: Board | None) -> list[tuple[str, Move]]:
        """The game's button moves with `board` on the tray (none while restoring or after the match)."""
        if self.mode in (Mode.OVER, Mode.RESTORE):
            return []
        return self.reader.button_moves(board)

    # -- names ----------------------------------------------------------------------------------

    def seat_name(self, seat: int | None) -> str:
        if seat is None:
            return ""
        return self.names[seat] if seat < len(self.names) else self.game.side_names()[seat]

    def side_names(self) -> list[str]:
        """A name per side: the players' names, or the game's names for partnerships."""
        sides = len(self.game.scores)
        return self.names if len(self.names) == sides else self.game.side_names()[:sides]

    def _restore_notice(self, problem: str | None = None) -> Notice:
        racks = self.seats.expected() if self.seats is not None else ""
        if self.resumed:
            text = f"restore the table: {self.reader.expected()}" + (f"; {racks}" if racks else "")
            return Notice("Restore the table", text + (f" ({problem})" if problem and racks else ""))
        return Notice("Set up the table", problem or self.reader.expected())
