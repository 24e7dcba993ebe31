"""How one game is read off the tray: the contract between the table and each game.

An adapter is a pure function of (the engine's state, a settled board). It holds no state of
its own, so the session can ask it about any position: the current one, the one before the
last move (to recognise a takeback), or the one a resumed match must be restored to.

- `judge(board)` compares a settled, valid board with the engine: the tray may show the same
  position (no moves, no problem), one or more legal moves that lead from the engine's
  position to the tray's (in push order), or a problem: a prompt saying exactly what to fix,
  naming the tile, the cell and the rule ("put 2-4 back between 0-0 and 4-4", "Broadway: East
  plays tiles north-south"). A board that means nothing yet (a capture half done) is a problem
  too; the session only shows it once the tray has stayed that way for the settle time.
- `button_moves(board)` are the moves a player makes with the buttons instead of tiles (end a turn
  when no placement follows, pass, expose a tile): label and move, legal ones only.
- `actions(move, board)` is how a bot (the demo, the tests) makes `move` physically on the
  virtual tray: place, remove, slide and scan-pad actions, chosen so that `judge` of the
  resulting board returns exactly that move (or, for a move with no physical trace, nothing).
- `expected()` describes the position the tray must show for the engine's state, for the
  "restore the table" screen after a crash and for takebacks.
- `pad_draw()`: when the game awaits a draw read over the scan pad (draw.py: who draws, for
  what, which tiles count), its description; the session reads it seat by seat, since the
  tiles drawn leave no trace on the tray.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dominotable.rules.game import Game, Move
from dominotable.rules.tiles import Tile
from dominotable.tray.board import Board
from dominotable.tray.geometry import Geometry

if TYPE_CHECKING:
    from dominotable.reading.draw import Draw

@dataclass(frozen=True)
class Action:
    """One physical step on the tray. `cells` are (cell under tile.a, cell under tile.b) for
    place and slide; empty for remove; for "pad" the tile is held over the scan pad, and
    "unpad" takes it away."""

    kind: str  # "place" | "remove" | "slide" | "pad" | "unpad"
    tile: Tile
    cells: tuple[int, ...] = ()


@dataclass(frozen=True)
class Verdict:
    """`note`: with no moves and no problem, what the table is waiting for (a starting row
    being laid, tiles drawn for dealer): shown to the players, but not an error."""

    moves: tuple[Move, ...] = ()
    problem: str | None = None
    cells: tuple[int, ...] = ()
    note: str | None = None

    @property
    def same(self) -> bool:
        return not self.moves and self.problem is None


class Adapter(ABC):
    def __init__(self, game: Game, geometry: Geometry):
        self.game = game
        self.geometry = geometry

    @abstractmethod
    def judge(self, board: Board) -> Verdict: ...

    @abstractmethod
    def actions(self, move: Move, board: Board) -> list[Action]: ...

    @abstractmethod
    def expected(self) -> str: ...

    def button_moves(self, board: Board | None = None) -> list[tuple[str, Move]]:
        """Legal button moves; `board`, the settled tray, lets a move depend on it (a tile
        held over the scan pad to be exposed)."""
        return []

    def pad_draw(self) -> Draw | None:
        """The draw over the scan pad the game awaits now, if any."""
        return None
