"""The referee: one match at the table, wiring the tracker (when a board has settled), the judge
(what it means, asked of copies) and the committer (the store, then the live position). Inputs:

- `on_board(board)` for every snapshot, `tick()` often: a settled board is judged once;
- `lost()` / `back()`: the tray link dropped and came back;
- `take_back()`, `button_move(move)`, `resign()`, `abandon()`, `hint()`: what the players choose;
- `targets(tile)`: where a tile held over the tray may be laid (targets.py); `places(tile)`: the same,
  each with what laying it there does, in words.
- `hear(event)`: an event of the partner table, in a match two tables play (hearing.py, remote.py).

What the table says now is `status` (status.py), with the instruction the judge decided: what the
table waits for and whom from. A board goes down once (tracker -> judge -> committer) and the
screen is read from the status and the position on the way back up.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from dominotable.games.spec import GameSpec, who
from dominotable.match.actions import Action, ButtonMove, NewMatch, Resign, ShowHint, TakeBack
from dominotable.match.committer import Committer
from dominotable.match.decision import Commit, Prompt
from dominotable.match.hearing import Hearing
from dominotable.match.judge import Context, Judge
from dominotable.match.position import Play, Position
from dominotable.match.remote import Partner
from dominotable.match.seating import Seating
from dominotable.match.status import Mode, Notice, Status
from dominotable.match.targets import Cells
from dominotable.match.tracker import Tracker
from dominotable.reading.prompts import listed
from dominotable.rules.game import Game, Move
from dominotable.rules.tiles import Tile
from dominotable.store.errors import StoreUnavailable
from dominotable.tray.board import Board


@dataclass(frozen=True)
class Table:
    """How this table reacts: the settle time, the pause before prompting hands at work, its clock
    and its alarm (buzzer and LED)."""

    settle_ms: int = 400
    prompt_after_ms: int = 2000
    clock: Callable[[], float] = time.monotonic
    on_alarm: Callable[[], None] | None = None


class Referee:
    def __init__(self, spec: GameSpec, seating: Seating, judge: Judge, committer: Committer, table: Table):
        self.spec, self.seating, self.judge, self.committer = spec, seating, judge, committer
        self.seats = judge.seats
        self.tracker = Tracker(table.settle_ms, table.prompt_after_ms, table.clock)
        self.status = Status(table.on_alarm)
        self.area: Board | None = None  # the last board judged that could be read, without the racks
        self.wants_new_match = False
        partner = self.partner
        self.hearing = Hearing(partner, committer, self.status) if partner is not None else None
        self._before_lost = Mode.RESTORE
        if self.game.is_over():
            self.status.over(self.result_title())
        else:
            self.status.show(judge.restore(self.position, None, seating.resumed), fresh=False)

    @property
    def position(self) -> Position:
        return self.committer.live

    @property
    def partner(self) -> Partner | None:
        """The other table, in a match two tables play."""
        return self.seats.partner

    @property
    def game(self) -> Game:
        """The live engine (sealed: ask a copy to look ahead)."""
        return self.committer.live.game

    # -- the tray -------------------------------------------------------------------------------

    def on_board(self, board: Board) -> None:
        if self.tracker.see(board) and not self.tick() and self.status.problem is not None \
                and self.status.mode == Mode.PLAY and self.judge.clears(self.position, board):
            self.status.play()

    def tick(self) -> bool:
        """Judge a board that has settled, or show a held prompt; True if the screen may change."""
        if self.status.mode in (Mode.LOST, Mode.OVER):
            return False
        due = self.tracker.due()
        if due is not None:
            self._decide(*due)
            return True
        held = self.tracker.held_due()
        if held is not None:
            status = self.status
            status.notice, status.problem, status.instruction = Notice(held.title, held.text), held.text, None
            return True
        return False

    def lost(self) -> None:
        if self.status.mode != Mode.LOST:
            self._before_lost, self.status.mode = self.status.mode, Mode.LOST
            self.tracker.lose()

    def back(self) -> None:
        if self.status.mode == Mode.LOST:
            self.status.mode = self._before_lost
            self.tracker.back()

    def _decide(self, board: Board, fresh: bool) -> None:
        status, tracker = self.status, self.tracker
        offered = status.mode == Mode.TAKEBACK
        decision = self.judge.judge(self.position, board, Context(
            status.mode == Mode.RESTORE, self.seating.resumed, fresh, status.undo if offered else None,
            status.instead if offered else (), tracker.where, tracker.draw, status.undone))
        if not (isinstance(decision, Prompt) and decision.undone):
            status.undone = ()  # the tray no longer shows the moves taken back
        reading = decision.reading
        status.warning, tracker.draw, status.buttons = reading.warning, reading.draw, reading.buttons
        if reading.area is not None:
            self.area, tracker.where = reading.area, {p.tile: p.cells for p in reading.area.placements}
        then = decision
        if isinstance(decision, Commit):
            try:
                status.last = self.committer.commit(decision.effects, decision.revised) or status.last
            except StoreUnavailable as exc:  # not played: nothing was written, the live position is as it was
                wait = tracker.refused()
                status.notice = Notice("Not recorded", f"{exc}. Nothing changed; trying again in {wait:g} s")
                return
            tracker.written()
            if self.game.is_over():
                status.over(self.result_title())
                return
            then = decision.then
        tracker.held = status.show(then, fresh)

    def _again(self) -> None:
        """Judge the unchanged tray again: the engine changed under it (a button, a takeback)."""
        board = self.tracker.again()
        if board is not None and self.status.mode not in (Mode.LOST, Mode.OVER):
            self._decide(board, fresh=False)

    # -- the partner table ----------------------------------------------------------------------

    def hear(self, event: dict) -> bool:
        """An event of the partner table's outbox for this match (hearing.py); whether it was
        heard. The tray is judged again only if what it is judged against changed: hearing back a
        move made here must not withdraw an offer on the screen (a takeback's)."""
        if self.hearing is None:
            return False
        before = self.hearing.stands()
        heard = self.hearing.hear(event)
        if heard and self.hearing.stands() != before:
            self._again()
        return heard

    def waiting(self) -> str | None:
        """Whom the table waits for at the partner table, if anyone (hearing.py)."""
        return self.hearing.waiting(self.seating.names) if self.hearing is not None else None

    # -- the players' choices -------------------------------------------------------------------

    def take_back(self) -> None:
        """Undo the last move (or, answering an offer, every move it named). Taken back with the
        button while the tray still shows it, the move is not read again: the tray is asked to show
        the position before it (`Status.undone`, judge.py's `_undoing`)."""
        status = self.status
        offered = status.mode == Mode.TAKEBACK and status.undo
        count = len(status.undo) if offered else 1
        undone = tuple(self.game.moves[-count:])
        status.last, self.tracker.draw = self.committer.take_back(count), None
        status.play()
        status.undone = () if offered else undone
        self._again()

    def button_move(self, move: Move) -> None:
        problem = self.game.why_illegal(move)
        if problem is None:
            problem = self.seats.why_not(self.position, move)
        if problem is not None:
            reader = self.judge.reader.on(self.game.copy())
            self.status.notice = Notice("Not now", reader.explain(problem, self.tracker.settled))
            return
        self.status.last = self.committer.commit([Play(move)])
        if self.game.is_over():
            self.status.over(self.result_title())
            return
        self.status.play()
        self._again()

    def resign(self) -> None:
        """The seat to move resigns; "Match over" names who won by it (issue 28)."""
        seat = self.game.current_player
        winners = self.game.resign(seat if seat is not None else 0).winners  # asked: the outcome it would be
        self.status.last = self.committer.resign(seat if seat is not None else 0)
        self.status.over(f"{self.seating.seat_name(self.game, seat)} resigned" + (f": {self._won(winners)}"
                                                                               if winners else ""))

    def abandon(self) -> None:
        """New match: an unfinished match is recorded as abandoned (no winners)."""
        if self.status.mode != Mode.OVER:
            self.committer.abandon()
            self.status.over("Match abandoned")
        self.wants_new_match = True

    def hint(self) -> None:
        """Show a hint for the player to move, and record that one was asked for."""
        seat = self.game.current_player
        hand = self.position.holds[seat].hand() if self.seats.plays(seat) else None
        hint = self.spec.hint(self.game, hand, self.game.seed)
        self.committer.hinted(seat, hint.text)
        self.status.show_hint(hint.text, hint.take)

    # -- questions ------------------------------------------------------------------------------

    def actions(self) -> list[Action]:
        """The actions that apply now. A seat the table plays makes its own button moves (the table
        makes them once its turn is done on the tray), so none is offered while it is to move, but
        a reveal is the table's to make whoever is to move (who leads: the one the racks allow is
        offered, BW-11.5); nor, while a seat at the partner table is to move, a hint or resigning
        (that is for its table). A button move the racks rule out is not offered."""
        mode = self.status.mode
        if mode in (Mode.OVER, Mode.RESTORE, Mode.LOST):
            return [NewMatch()]
        actions: list[Action] = []
        if self.game.awaiting() or not self.seats.plays(self.game.current_player):
            actions += [ButtonMove(move, label) for label, move in self.button_moves()
                        if self.seats.why_not(self.position, move) is None]
        last = self.judge.takebacks.takeback(self.position, self.area)  # right after every move (issue 28)
        if mode == Mode.TAKEBACK:
            move = self.status.undo[-1]
            actions.append(TakeBack(move, last[1] if last is not None and last[0] == move else ""))
        elif last is not None:
            actions.append(TakeBack(*last))
        theirs = self.partner is not None and self.partner.to_move(self.game)
        nobody = self.game.awaiting() is not None  # a reveal awaited (a deal, a draw): nobody's turn
        seat = self.game.current_player
        hand = self.position.holds[seat].hand() if self.seats.plays(seat) and seat in self.position.holds else None
        hint = [ShowHint()] if not theirs and self.spec.hints(self.game, hand) else []
        return actions + hint + ([] if theirs or nobody else [Resign()]) + [NewMatch()]

    def button_moves(self) -> list[tuple[str, Move]]:
        """The moves the buttons may make on the tray as last judged (none while restoring or after
        the match)."""
        return [] if self.status.mode in (Mode.OVER, Mode.RESTORE) else list(self.status.buttons)

    def targets(self, tile: Tile) -> tuple[Cells, ...]:
        """Where laying `tile` on the tray as it lies now is a move the judge accepts (none while
        the tray is being set up, or lost, or the match is over)."""
        board = self.tracker.board
        if self.status.mode not in (Mode.PLAY, Mode.TAKEBACK) or board is None:
            return ()
        return self.judge.targets.of(self.position, board, tile, self.status.undone)

    def places(self, tile: Tile) -> tuple[tuple[Cells, str], ...]:
        """Each place of `targets(tile)` with what laying the tile there does, in the game's own
        words without the mover, and the score it changes ("on column 2, up to 4, tiles left out
        21 to 20"; "at the right end, points 0 to 10"), or "" where they say no more than the tile."""
        board = self.tracker.board
        if self.status.mode not in (Mode.PLAY, Mode.TAKEBACK) or board is None:
            return ()
        out = []
        for cells, moves in self.judge.targets.doing(self.position, board, tile, self.status.undone).items():
            game, said, names = self.game.copy(), [], self.seating.names
            for move in moves:
                before = game.copy()
                game.push(move)
                if move.placed() is tile:  # "ANN laid 2-4 on column 2, up to 2": "on column 2, up to 2"
                    words = self.spec.word(before, move, names).removeprefix(f"{who(before, names, move)} ")
                    laid = re.match(rf"^\w+ ({tile.a}-{tile.b}|{tile.b}-{tile.a})\b ?(.*)$", words)
                    said.append(laid[2] if laid else words)
            said += [f"{self.spec.scoring} {was} to {now}" for now, was in zip(game.scores, self.game.scores) if now != was]
            out.append((cells, ", ".join(s for s in said if s)))
        return tuple(out)

    def result_title(self) -> str:
        winners = self.game.winners()
        return "W" + self._won(winners)[1:] if winners else "Match over"

    def _won(self, winners) -> str:
        names = self.seating.side_names(self.game)
        return "won by " + listed(names[w] for w in winners)
