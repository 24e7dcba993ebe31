"""What the table says now: the mode of play, what the table waits for and whom from (the
instruction the judge decided), the notice the players must read instead, the problem the tray
shows (and the cells it is about), a takeback on offer, a dead reader played around, the last
play, the hint on show. The referee sets it from each decision; the presenter reads it.

A problem that hands may still be making legal (`Prompt.pending`) is never alarmed: the tracker
holds it, and it shows only if the tray stays so. Any other problem sounds the alarm once, when
the players made it (`fresh`) and it is new.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from dominotable.match.decision import Prompt, TakeBack, Wait
from dominotable.match.last_play import LastPlay
from dominotable.reading.instruction import Instruction
from dominotable.rules.game import Move


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


class Status:
    def __init__(self, on_alarm: Callable[[], None] | None = None):
        self.on_alarm = on_alarm
        self.mode = Mode.RESTORE
        self.notice: Notice | None = None
        self.instruction: Instruction | None = None  # what the table waits for in play, from whom
        self.problem: str | None = None  # the problem the tray shows now (the runtime may hold the LED on)
        self.problem_cells: tuple[int, ...] = ()
        self.undo: tuple[Move, ...] = ()  # every move a takeback on offer would undo, the last move last
        self.undone: tuple[Move, ...] = ()  # moves taken back with the button the tray may still show
        self.instead: tuple[Move, ...] = ()  # ... and the moves the tray shows in their place
        self.warning: str | None = None  # a dead reader the table reads around
        self.buttons: tuple[tuple[str, Move], ...] = ()  # the moves the buttons may make now, labelled
        self.last: LastPlay | None = None
        self.over_title: str | None = None
        self.hint: str | None = None  # the hint on show
        self.hint_take: tuple = ()  # its capture plan: the tiles to take, in order
        self.alarms = 0
        self._under_hint: Notice | None = None
        self._refusal: Notice | None = None  # a choice the store refused, said until select ...
        self._under_refusal: Notice | None = None  # ... over this

    def play(self, instruction: Instruction | None = None) -> None:
        self.mode = Mode.PLAY
        self.problem, self.problem_cells, self.undo, self.instead = None, (), (), ()
        self.hint, self.notice, self.instruction = None, None, instruction

    def show(self, then: Wait | Prompt | TakeBack, fresh: bool) -> Prompt | None:
        """Show what a decision says the tray shows; a pending prompt is handed back to be held."""
        if isinstance(then, Wait):
            self.play(then.instruction)
        elif isinstance(then, TakeBack):
            self.undo, self.instead, self.mode, self.problem = then.undo, then.instead, Mode.TAKEBACK, None
            self.notice, self.instruction = Notice("Take back?", then.text), None
        elif then.restore:
            self.notice, self.instruction = Notice(then.title, then.text), None
        else:
            return self.prompt(then, fresh)
        return None

    def prompt(self, prompt: Prompt, fresh: bool) -> Prompt | None:
        self.problem_cells = prompt.cells
        if self.mode == Mode.TAKEBACK:
            self.mode, self.undo, self.instead = Mode.PLAY, (), ()
        self.instruction = prompt.instruction if prompt.pending else None
        if prompt.pending:  # hands at work: quiet, and prompted only if the tray stays like this
            if self.mode == Mode.PLAY:
                self.notice = None
            return prompt
        if fresh and prompt.text != self.problem:
            self.alarms += 1
            if self.on_alarm:
                self.on_alarm()
        self.problem = prompt.text
        self.notice = Notice(prompt.title, prompt.text)
        return None

    def over(self, title: str) -> None:
        self.mode, self.over_title, self.notice = Mode.OVER, title, None

    def show_hint(self, text: str, take: tuple) -> None:
        self.hint, self.hint_take = text, take
        self._under_hint, self.notice = self.notice, Notice("Hint", text)

    def put_hint_away(self) -> None:
        self.hint, self.hint_take, self.notice = None, (), self._under_hint

    def refused(self, text: str) -> None:
        """A choice the store could not record: said over what was shown, until select."""
        under = self._under_refusal if self.refusal else self.notice  # a second refusal replaces the first
        self._refusal = Notice("Not recorded", text)
        self._under_refusal, self.notice = under, self._refusal

    @property
    def refusal(self) -> bool:
        """Whether the notice up is a refused choice's (the tray may have replaced it since)."""
        return self.notice is not None and self.notice is self._refusal

    def put_refusal_away(self) -> None:
        self.notice, self._refusal = self._under_refusal, None
