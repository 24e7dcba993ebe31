"""The tracker: which boards have settled, and what changed since the turn began. Pure, with the
clock injected and no threads.

A board is judged once nothing has changed for `settle_ms` (`due()`, called often, or at once
when `settle_ms` is 0); transitional states are never judged while they last. A problem that
hands may still be making legal is held and shown only once the tray has been still for
`prompt_after_ms` (`held_due()`). The tracker also keeps what the judge needs of the past: the
tiles' cells on the board judged before (a tile stood where the last move's tile lay), the draw
over the scan pad read so far, and whether the tray link is up.
"""

from __future__ import annotations

from collections.abc import Callable

from dominotable.match.decision import Prompt
from dominotable.reading.draw import PadDraw
from dominotable.tray.board import Board


class Tracker:
    def __init__(self, settle_ms: int, prompt_after_ms: int, clock: Callable[[], float]):
        self.settle_ms = settle_ms
        self.prompt_after_ms = prompt_after_ms
        self.clock = clock
        self.board: Board | None = None  # the latest board, settled or not
        self.settled: Board | None = None  # the board last judged
        self.where: dict = {}  # tile -> cells on the board judged last
        self.draw: PadDraw | None = None
        self.lost = False
        self.held: Prompt | None = None  # a pending problem's prompt, shown after prompt_after_ms
        self._changed = clock()
        self._judged = True
        self._fresh = False  # the board to judge came from the tray (not from a button)
        self._retry_at: float | None = None  # a board whose decision the store refused: judged again then
        self.refusals = 0  # refused writes in a row (the backoff)

    def see(self, board: Board) -> bool:
        """A board from the tray; whether it differs from the last one."""
        if self.board is not None and board.cells == self.board.cells:
            return False
        self.board, self._changed, self._judged, self._fresh = board, self.clock(), False, True
        return True

    def still_ms(self) -> float:
        return (self.clock() - self._changed) * 1000

    def due(self) -> tuple[Board, bool] | None:
        """The board to judge now that it has settled, and whether it came from the tray."""
        if self.board is None or self.lost or self._judged or self.still_ms() < self.settle_ms:
            return None
        if self._retry_at is not None and self.clock() < self._retry_at:
            return None
        fresh, self._fresh, self._judged = self._fresh, False, True
        self.settled, self.held = self.board, None
        return self.board, fresh

    def again(self) -> Board | None:
        """The board to judge once more after the engine changed under an unchanged tray (a
        button move, a takeback, a move heard from the partner table); None while the tray is
        changing (or a refused write waits): that board is judged as it settles, as the tray's."""
        if self.board is None or self.lost or not self._judged:
            return None
        self.settled, self.held = self.board, None
        return self.board

    def refused(self) -> float:
        """The store refused what the board's decision would write: judge the board again later,
        backing off (1, 2, 4 ... 30 s); the seconds until then."""
        self.refusals += 1
        wait = min(30.0, 2.0 ** (self.refusals - 1))
        self._retry_at, self._judged = self.clock() + wait, False
        return wait

    def written(self) -> None:
        self.refusals, self._retry_at = 0, None

    @property
    def retrying(self) -> bool:
        """A refused write waits for its retry: the board is not judged before then."""
        return self._retry_at is not None and not self._judged and self.clock() < self._retry_at

    def held_due(self) -> Prompt | None:
        """The held prompt, once the tray has been still long enough."""
        if self.held is not None and self._judged and self.still_ms() >= self.prompt_after_ms:
            held, self.held = self.held, None
            return held
        return None

    @property
    def judged(self) -> Board | None:
        """The board last judged; None while a newer one waits to settle."""
        return self.board if self._judged else None

    @property
    def drawn(self) -> tuple:
        """The tiles of the draw over the scan pad read so far."""
        return tuple(self.draw.tiles) if self.draw is not None else ()

    def lose(self) -> None:
        self.lost = True

    def back(self) -> None:
        """The link is back: the resynced tray is judged afresh."""
        self.lost, self.board, self._judged = False, None, True
