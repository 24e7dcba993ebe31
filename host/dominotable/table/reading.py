"""What the tile-reading adapters share: board checks, one-move-at-a-time judging, prompts.

A settled board may hold more than one new tile (two players were quick, or the session
was away). `StepAdapter.judge` reads one move at a time: the game's `read(board)` names the
next move from the engine's position, the move is pushed on the engine while the rest is
read, and every push is popped again before `judge` returns, so the adapter stays stateless.
"""

from __future__ import annotations

from abc import abstractmethod

from ..errors import DominoError
from ..game import Move
from ..tiles import Tile
from ..tray.board import Board, Placement
from ..tray.geometry import Geometry
from .adapter import Adapter, Verdict


def board_problem(board: Board) -> Verdict | None:
    """The first fault of an invalid board (unknown tag, lone half, ...) as a problem verdict."""
    if board.is_valid():
        return None
    problem = board.problems()[0]
    return Verdict(problem=problem.message, cells=problem.cells)


def problem(text: str, cells=()) -> Verdict:
    return Verdict(problem=text, cells=tuple(cells))


def half_cell(placement: Placement, pips: int) -> int:
    """The cell under the half of a non-double showing `pips` (the first half of a double)."""
    return placement.cells[0] if placement.tile.a == pips else placement.cells[1]


def cells_for(tile: Tile, at: dict[int, int]) -> tuple[int, int]:
    """Action cells (under tile.a, under tile.b) from {pips: cell} of where each half goes."""
    if tile.is_double:
        first, second = at[tile.a]
        return first, second
    return at[tile.a], at[tile.b]


def span(geometry: Geometry, cells) -> str:
    """`r4c6-r4c7` for a tile's cells."""
    labels = []
    for cell in sorted(cells):
        row, col = geometry.coords(cell)
        labels.append(f"r{row}c{col}")
    return "-".join(labels)


class StepAdapter(Adapter):
    """An adapter whose games are read one move at a time off a valid board."""

    @abstractmethod
    def read(self, board: Board) -> Verdict:
        """The next move (at most one) from the engine's current position, nothing, or a problem."""

    def judge(self, board: Board) -> Verdict:
        bad = board_problem(board)
        if bad is not None:
            return bad
        game = self.game
        pushed: list[Move] = []
        try:
            for _ in range(len(board.placements) + 2):
                verdict = self.read(board)
                if verdict.problem is not None or not verdict.moves or game.is_over():
                    break
                for move in verdict.moves:
                    game.push(move)
                    pushed.append(move)
        finally:
            for _ in pushed:
                game.pop()
        if verdict.problem is not None:
            return verdict
        return Verdict(moves=tuple(pushed))

    def legal(self, move: Move, cells=()) -> Verdict:
        """`move` as a verdict, or the engine's reason (naming rule and tile) as the problem."""
        error = self.game.why_illegal(move)
        if error is not None:
            return problem(str(error), cells)
        return Verdict(moves=(move,))

    def buttons(self, *moves: tuple[str, Move]) -> list[tuple[str, Move]]:
        return [(label, move) for label, move in moves if self.game.is_legal(move)]


class NoRoom(DominoError):
    """A move the engine allows but the tray has no room to show."""
