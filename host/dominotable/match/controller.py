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

Hands in motion are not errors. A problem that may be a legal turn still being made (the
reader's `pending` verdicts: tiles caught moving, a tile lifted or knocked out of place, the
start of a capture) is never alarmed: its prompt shows only once the tray has been still for
`prompt_after_ms`. Any other problem (a tile no legal play puts there, two tiles in one turn)
becomes the `notice` once the tray has settled, and sounds the alarm once; nothing advances
until the tray shows a legal state, and the prompt goes as soon as it does.

Moves a reader calls provisional (Castle Rock's captures, until the turn ends) are judged again
with every later board, from the position before them: a capture made tile by tile is committed
as soon as the row shows a legal state, and replaced as the player takes more.

Takebacks follow the hands: a board showing exactly the position before the last move offers
to take it back; one showing other legal moves from that position offers to take it back and
play those instead; one confirmation either way. A dead reader is read as an empty cell and
named in `warning`, unless a tile may lie on it. A match starts by waiting for the tray to
show the engine's position exactly ("Set up the table", or "Restore the table" for a resumed
match). What the state means on a screen is the presenter's business (presenter.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from dominotray import wire

from dominotable.match.hints import Hint, hint
from dominotable.match.last_play import LastPlay
from dominotable.match.seats import BotSeats, Said
from dominotable.reading.draw import PadDraw
from dominotable.reading.reader import Reader, Verdict, in_motion
from dominotable.rules.game import Game, Move
from dominotable.rules.outcome import Termination
from dominotable.store.storage import Store
from dominotable.tray.board import Board, Status


class Mode(StrEnum):
    RESTORE = "restore"  # waiting for the tray to show the engine's position
    PLAY = "play"
    TAKEBACK = "takeback"  # the tray shows the position before the last move (or other moves from it)
    LOST = "lost"  # the tray link is down
    OVER = "over"


@dataclass(frozen=True)
class Notice:
    """What the players must read now instead of the play pages."""

    title: str
    text: str
    note: bool = False  # what the table notes in play (not a problem): a bot's next step comes first


class MatchController:
    def __init__(self, game: Game, reader: Reader, store: Store, match_id: int, names: Sequence[str], *,
                 settle_ms: int = 400, clock: Callable[[], float] = time.monotonic, resumed: bool = False,
                 on_alarm: Callable[[], None] | None = None, seats: BotSeats | None = None,
                 prompt_after_ms: int = 2000):
        self.game = game
        self.reader = reader
        self.store = store
        self.match_id = match_id
        self.names = list(names)
        self.settle_ms = settle_ms
        self.prompt_after_ms = prompt_after_ms
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
        self.undo: tuple[Move, ...] = ()  # every move a takeback offered would undo, the last move last
        self.instead: tuple[Move, ...] = ()  # with `offer`: the moves the tray shows in their place
        self.warning: str | None = None  # a dead reader the table reads around
        self.over_title: str | None = self._result_title() if game.is_over() else None
        self._changed = clock()
        self._judged = True
        self._fresh = False  # the board to judge came from the tray (not from a button)
        self._held: Notice | None = None  # a pending problem's prompt, shown after prompt_after_ms
        self._where: dict = {}  # tile -> cells on the board judged last
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
        if not self.tick() and self.problem is not None and self.mode == Mode.PLAY:
            self._cleared(board)

    def _cleared(self, board: Board) -> None:
        """A problem's prompt goes as soon as the tray reads as legal again (the same position, or
        legal moves from it), before the settle time; nothing is committed before it."""
        if board.is_valid() and self.seats is None and self._draw is None and self.reader.judge(board).problem is None:
            self._play()

    def tick(self) -> bool:
        """Judge a board that has settled, or show a pending problem's prompt once the tray has
        been still long enough; True if the screen may change."""
        if self.board is None or self.mode in (Mode.LOST, Mode.OVER):
            return False
        still = (self.clock() - self._changed) * 1000
        if not self._judged:
            if still < self.settle_ms:
                return False
            fresh, self._fresh, self._judged = self._fresh, False, True
            self.settled = self.board
            self._judge(self.board, fresh)
            return True
        if self._held is not None and still >= self.prompt_after_ms:
            self.notice, self.problem, self._held = self._held, self._held.text, None
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
    def offer(self) -> Move | None:
        """The (last) move a takeback on offer would undo."""
        return self.undo[-1] if self.undo else None

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
        self._held = None
        board = self._readable(board, fresh)
        if board is None:
            return
        problems = board.problems()
        if problems:
            self._problem("Check the tray", problems[0].message, fresh, problems[0].cells, in_motion(board))
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
        verdict = self._revise(board, verdict)
        before, self._where = self._where, {p.tile: p.cells for p in board.placements}
        if verdict.moves and fresh and (self.mode == Mode.TAKEBACK and not self.instead or self._replaced(before)):
            # the last move's tile left first (its takeback was offered), or another tile now
            # stands where it lay: the new tiles replace it, once confirmed (they are not read
            # as moves that needed it still there, such as a capture of it)
            offer = self._offer(board)
            if offer is not None and offer[1]:
                self._offering(offer, board)
                return
        # moves, then what the tray shows after them: a note, or a problem read past them
        for _ in range(len(board.placements) + 2):
            if self.mode == Mode.OVER:
                break
            if not verdict.moves:  # the bots' moves that leave no trace, then the tray again
                if not (verdict.same and self._bot_moves()):
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
            offer = self._offer(board) if fresh and self._draw is None else None
            if offer is not None:
                self._offering(offer, board)
            else:
                self._problem("Fix the tray", verdict.problem, fresh, verdict.cells, verdict.pending)

    def _replaced(self, before: dict) -> bool:
        """Whether another tile lies where the last move's tile lay on the board judged before."""
        tile = getattr(self.game.moves[-1], "tile", None) if self.game.moves else None
        cells = set(before.get(tile, ()))
        return tile not in self._where and any(cells & set(spot) for spot in self._where.values())

    def _offering(self, offer: tuple[tuple[Move, ...], tuple[Move, ...]], board: Board) -> None:
        (self.undo, self.instead), self.mode, self.problem = offer, Mode.TAKEBACK, None
        instead = f" and play {' '.join(map(str, self.instead))} instead" if self.instead else ""
        text = f"take back {' '.join(map(str, self.undo))}{instead}? press select"
        self.notice = Notice("Take back?", self.reader.in_tray_terms(text, board))

    def _readable(self, board: Board, fresh: bool) -> Board | None:
        """`board` with its dead readers read as empty cells, named in `warning`; None, with a
        prompt, when a tile may lie on a dead reader (a half without its partner beside one)."""
        dead = board.faults
        if not dead:
            self.warning = None
            return board
        label, geometry = board.geometry.label, board.geometry
        used = geometry.game_cells(self.game.name)
        inside = [c for c in dead if c in used]
        named = ", ".join(label(c) for c in dead)
        self.warning = (f"reader {named} dead: play around it" if inside
                        else f"reader {named} dead (not used by this game)")
        readable = Board([(wire.EMPTY, b"") if status == wire.FAULT else (status, uid)
                          for status, uid in board.cells], board.registry, geometry)
        for problem in readable.problems():
            near = [c for c in geometry.neighbours(problem.cells[0]) if c in dead]
            if problem.flag == Status.LONE_HALF and near:
                self._problem("Check the tray", f"the reader at {label(near[0])} does not answer: move the tile at "
                              f"{label(problem.cells[0])} off it, or mend the reader", fresh, (near[0],))
                return None
        return readable

    def _revise(self, board: Board, verdict: Verdict) -> Verdict:
        """A problem read from the position after the reader's provisional moves, read again
        from the position before them: the moves beyond them, or a new reading replacing them
        (taken back from engine and store), or the problem as it stands against them all."""
        count = self.reader.provisional() if self.mode == Mode.PLAY and verdict.problem is not None else 0
        if not count:
            return verdict
        game = self.game
        with game.kept():
            undone = [game.pop() for _ in range(count)][::-1]
            whole = self.reader.judge(board)
        if whole.problem is not None:
            return whole
        if list(whole.moves[:count]) == undone:
            return Verdict(moves=whole.moves[count:], note=whole.note)
        seat = self.seat_name(game.current_player)
        for _ in undone:
            self.store.take_back(self.match_id, len(game.moves))
            game.pop()
            if self.seats is not None:
                self.seats.taken_back(len(game.moves) + 1)
        self.last = LastPlay(seat, "put back " + " ".join(map(str, undone)), None)
        return whole

    def _play_area(self, board: Board) -> tuple[Board, str | None]:
        """The board the game's reader judges (without the bots' racks) and a rack problem."""
        return self.seats.read(board) if self.seats is not None else (board, None)

    def _bot_moves(self) -> bool:
        """Make the bots' moves that leave no trace on the tray (the end of a turn, a pass, a
        reveal from a rack); whether there were any."""
        made = False
        while self.seats is not None and self.mode != Mode.OVER:
            move = self.seats.traceless()
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

    def _problem(self, title: str, text: str, fresh: bool, cells=(), pending: bool = False) -> None:
        self.problem_cells = tuple(cells)
        if self.mode == Mode.TAKEBACK:
            self.mode, self.undo, self.instead = Mode.PLAY, (), ()
        if pending:  # hands at work: quiet, and prompted only if the tray stays like this
            self._held = Notice(title, text)
            if self.mode == Mode.PLAY:
                self.notice = None
            return
        if fresh and text != self.problem:
            self.alarms += 1
            if self.on_alarm:
                self.on_alarm()
        self.problem = text
        self.notice = Notice(title, text)

    def takeback_candidate(self, board: Board) -> Move | None:
        """The last move, if the tray shows the position before it (perhaps still awaiting
        something there): what the menu offers to take back."""
        game = self.game
        if not game.moves:
            return None
        if self.seats is not None:
            board = self.seats.without_racks(board)[0]  # the menu opens on any board: nothing recorded
        with game.kept():
            move = game.pop()
            same = self.reader.judge(board).same
        return move if same else None

    def _offer(self, board: Board) -> tuple[tuple[Move, ...], tuple[Move, ...]] | None:
        """((the last move,), ()) if the tray shows exactly the position before it (no note of
        something still awaited there); (the last moves, the moves read instead) if a tile they
        placed has left the tray and it shows other legal moves from the position before the
        last move, or before the last few (a tile lifted and another laid before the table saw
        the lift: the other was taken as the next player's move); else None. Provisional moves
        are never offered: the tray revises them by itself."""
        game = self.game
        if self.reader.provisional():
            return None
        on_tray = {p.tile for p in board.placements}
        for depth in (1, 2, 3):
            if len(game.moves) < depth:
                return None
            with game.kept():
                undone = tuple(reversed([game.pop() for _ in range(depth)]))
                verdict = self.reader.judge(board)
            if depth == 1 and verdict.same and verdict.note is None:
                return undone, ()
            if verdict.moves and verdict.moves != undone and (depth == 1 or len(verdict.moves) < depth) \
                    and any(getattr(move, "tile", None) not in on_tray for move in undone if hasattr(move, "tile")):
                return undone, verdict.moves  # a tile they placed went, other moves came in its place
        return None

    def _play(self, note: str | None = None) -> None:
        self.mode = Mode.PLAY
        self.problem, self.problem_cells = None, ()
        self.undo = self.instead = ()
        self.hinted = None
        self.notice = Notice("At the table", note, note=True) if note else None

    def bot_instruction(self) -> Said | None:
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
        """Undo the last move (or, answering an offer, every move it named)."""
        game = self.game
        undone = []
        for _ in self.undo if self.mode == Mode.TAKEBACK and self.undo else (None,):
            self.store.take_back(self.match_id, len(game.moves))
            undone.insert(0, game.pop())
            if self.seats is not None:
                self.seats.taken_back(len(game.moves) + 1)
        self._draw = None
        self.last = LastPlay(self.seat_name(game.current_player), f"took back {' '.join(map(str, undone))}", None)
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
