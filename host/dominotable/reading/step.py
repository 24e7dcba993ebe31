"""What the readers of games played one move at a time share: judging one move at a time, and
small helpers for their prompts.

A settled board may hold more than one new tile (two players were quick, or the table
was away). `StepReader.read` reads one move at a time: the game's `step(board)` names the next
move from the engine's position, the move is pushed on the engine while the rest is read, and
every push is popped again before `read` returns, so the reader stays stateless. Moves read
before a problem are returned without it: once the committer has made them, the next
judgement shows the problem (a game that just ended asks for a clear tray that way).
"""

from __future__ import annotations

from abc import abstractmethod

from dominotable.reading.reader import Reader, Verdict
from dominotable.rules.game import Move
from dominotable.tray.board import Board, Placement


def problem(text: str, cells=(), pending: bool = False) -> Verdict:
    return Verdict(problem=text, cells=tuple(cells), pending=pending)


def handling(text: str, cells=()) -> Verdict:
    """A problem that may be hands at work (a tile of the layout lifted or knocked out of place,
    a new tile not yet put against the layout): prompted only if it lasts."""
    return problem(text, cells, pending=True)


def on_its_way(verdict: Verdict, placement: Placement, layout: list[Placement], geometry) -> Verdict:
    """`verdict` on a new tile; its problem is hands at work (`handling`) while the tile touches
    none of the tiles of `layout`: a tile on its way."""
    near = {n for cell in placement.cells for n in geometry.neighbours(cell)}
    if verdict.problem and not any(cell in near for p in layout for cell in p.cells):
        return handling(verdict.problem, verdict.cells)
    return verdict


def waiting(text: str, who: str = "") -> Verdict:
    """Nothing to read yet, and what the table waits for (not an error), of `who` if not anyone."""
    return Verdict(note=text, who=who)


def first_move(verdicts: list[Verdict]) -> Verdict | None:
    """Of the readings of several new tiles, the first that is a legal move, else the first problem."""
    return next((v for v in verdicts if v.moves), verdicts[0] if verdicts else None)


def half_cell(placement: Placement, pips: int) -> int:
    """The cell under the half of a non-double showing `pips` (the first half of a double)."""
    return placement.cells[0] if placement.tile.a == pips else placement.cells[1]


class StepReader(Reader):
    """A reader whose games are read one move at a time off a valid board."""

    @abstractmethod
    def step(self, board: Board) -> Verdict:
        """The next move (at most one) from the engine's current position, nothing, or a problem."""

    def read(self, board: Board) -> Verdict:
        game = self.game
        pushed: list[Move] = []
        try:
            for _ in range(len(board.placements) + 2):
                verdict = self.step(board)
                if verdict.problem is not None or not verdict.moves or game.is_over():
                    break
                for move in verdict.moves:
                    game.push(move)
                    pushed.append(move)
        finally:
            for _ in pushed:
                game.pop()
        if not pushed:
            return verdict
        return Verdict(moves=tuple(pushed))  # a problem after them is judged once they are pushed

    def buttons(self, *moves: tuple[str, Move]) -> list[tuple[str, Move]]:
        return [(label, move) for label, move in moves if self.game.is_legal(move)]
