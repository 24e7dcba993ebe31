"""How one game is read off the tray: the contract between the table and each game.

A reader is a pure function of (the engine's state, a settled board). It holds no state of its
own, so the judge can ask it about any position: the current one, the one before the last move
(to recognise a takeback), or the one a resumed match must be restored to, each on a copy of the
engine (`on(copy)`), since a reading pushes and pops while it looks ahead.

- `judge(board)` compares a settled board with the engine (a template: an invalid board's first
  fault, nothing once the match is over, else the game's `read`): the tray may show the same
  position (no moves, no problem), one or more legal moves that lead from the engine's position
  to the tray's (in push order), or a problem: a prompt saying exactly what to fix, naming the
  tile, the cell and the rule (prompts.py). `read` returns a Verdict or raises Refusal.
- `button_moves(board)`: the moves a player makes with the buttons instead of tiles (end a turn
  when no placement follows, pass, expose a tile): label and move, legal ones only.
- `expected()` describes the position the tray must show for the engine's state, for the
  "restore the table" screen after a crash and for takebacks.
- `pad_draw()`: when the game awaits a draw read over the scan pad (draw.py), who draws, for
  what, which tiles count; the judge reads it seat by seat, since the tiles drawn leave
  no trace on the tray.
- `explain(error, board)`: an engine's refusal in the table's voice and the tray's terms.
- `provisional()`: how many of the engine's last moves a reading may still revise (Castle
  Rock's captures, until the turn ends).

A problem is `pending` when the tray may be on its way to a legal state: hands still at work
(a tile lifted or knocked out of place, one not yet put down against the layout or stood up,
removals that are the start of a legal capture). The referee prompts for it only after a
longer pause, and never sounds the alarm for it.

How a bot makes a move physically is not the reader's business: that is its hands (sim/hands).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from dominotable.reading.prompts import reason, say
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game, Move
from dominotable.rules.tiles import Tile
from dominotable.tray.board import Board, Status
from dominotable.tray.geometry import Geometry


@dataclass(frozen=True)
class Verdict:
    """`note`: with no moves and no problem, what the table is waiting for (a starting row
    being laid, tiles drawn for dealer): shown to the players, but not an error; `who`: whom the
    note is for, when not anyone at the table ("ANN and CAT": the players still to show their
    tiles). `pending`: the problem may be a legal turn still being made (see the module's docstring)."""

    moves: tuple[Move, ...] = ()
    problem: str | None = None
    cells: tuple[int, ...] = ()
    note: str | None = None
    pending: bool = False
    who: str = ""

    @property
    def same(self) -> bool:
        return not self.moves and self.problem is None


IN_MOTION = Status.CLONED_TAG | Status.LONE_HALF | Status.DUPLICATE_TILE


def in_motion(board: Board) -> bool:
    """Whether every fault of `board` is a tile caught moving: a tag read in two cells (the
    old cell not yet read empty), a half without its partner (a tile half off, or half moved),
    one tile seen in two places."""
    return not board.status() & ~IN_MOTION


class Refusal(Exception):
    """A reading of the tray that the rules do not allow; carries the prompt and its cells."""

    def __init__(self, prompt: str, cells=(), pending: bool = False):
        super().__init__(prompt)
        self.prompt = prompt
        self.cells = tuple(cells)
        self.pending = pending


@dataclass(frozen=True)
class Draw:
    """A draw a reader asks for over the scan pad: `seats` (in drawing order), `what` the tile is
    drawn for ("for dealer"), the `rule` the prompts cite, and `check(tile)`: why a tile cannot be
    a draw (a non-double for the lead), or None."""

    seats: tuple[int, ...]
    what: str
    rule: str
    check: Callable[[Tile], str | None] = lambda tile: None


class Reader(ABC):
    implied: tuple[Move, ...] = ()  # moves the next player's placement implies (Castle Rock's end of a turn)
    players: tuple[str, ...] = ()  # the sides as named at the table (games/spec.py's reader_for)

    def __init__(self, game: Game, geometry: Geometry):
        self.game = game
        self.geometry = geometry

    def on(self, game: Game) -> Reader:
        """This reader asking about `game`: a copy of the live engine, which a reading may push
        and pop while it looks ahead (the live one is sealed)."""
        other = copy.copy(self)
        other.game = game
        return other

    def side_names(self) -> list[str]:
        """The sides in the players' own names; the engine's (P1, P2 ...) when none were given."""
        return list(self.players) or self.game.side_names()

    def judge(self, board: Board) -> Verdict:
        if not board.is_valid():
            fault = board.problems()[0]
            return Verdict(problem=fault.message, cells=fault.cells, pending=in_motion(board))
        if self.game.is_over():
            return Verdict()  # nothing more is read; the tray may be cleared
        try:
            return self.read(board)
        except Refusal as refusal:
            return Verdict(problem=refusal.prompt, cells=refusal.cells, pending=refusal.pending)

    @abstractmethod
    def read(self, board: Board) -> Verdict:
        """The moves from the engine's position to the valid `board`, a note, or a problem."""

    @abstractmethod
    def expected(self) -> str: ...

    def provisional(self) -> int:
        """How many of the engine's last moves a reading may replace (none by default)."""
        return 0

    def button_moves(self, board: Board | None = None) -> list[tuple[str, Move]]:
        """Legal button moves; `board`, the settled tray, lets a move depend on it (a tile
        held over the scan pad to be exposed)."""
        return []

    def pad_draw(self) -> Draw | None:
        """The draw over the scan pad the game awaits now, if any."""
        return None

    def explain(self, error: DominoError, board: Board | None = None, fix: str = "") -> str:
        """An engine's refusal as a prompt: `fix`, the reason, the rule; in the tray's terms."""
        why, rule = reason(error)
        return say(fix, self.in_tray_terms(why, board), rule)

    def in_tray_terms(self, text: str, board: Board | None) -> str:
        """`text` with any engine coordinates put as the tray names its cells (a game whose
        engine has coordinates overrides this)."""
        return text

    def legal(self, move: Move, board: Board | None = None, cells=()) -> Verdict:
        """`move` as a verdict, or the engine's reason as the problem."""
        error = self.game.why_illegal(move)
        if error is not None:
            return Verdict(problem=self.explain(error, board), cells=tuple(cells))
        return Verdict(moves=(move,))
