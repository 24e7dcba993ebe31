"""What the tile-reading adapters share: board checks, one-move-at-a-time judging, prompts.

A settled board may hold more than one new tile (two players were quick, or the session
was away). `StepAdapter.judge` reads one move at a time: the game's `read(board)` names the
next move from the engine's position, the move is pushed on the engine while the rest is
read, and every push is popped again before `judge` returns, so the adapter stays stateless.
Moves read before a problem are returned without it: once the session has pushed them, the
next judgement shows the problem (a game that just ended asks for a clear tray that way).
"""

from __future__ import annotations

from abc import abstractmethod

from dominotray import wire

from dominotable.reading.reader import Action, Adapter, Verdict
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Move
from dominotable.rules.hidden import Reveal
from dominotable.rules.tiles import Tile
from dominotable.tray.board import Board, Placement
from dominotable.tray.geometry import Geometry


class NoRoom(DominoError):
    """A move the engine allows but the tray has no room to show: bots choose another."""


def board_problem(board: Board) -> Verdict | None:
    """The first fault of an invalid board (unknown tag, lone half, ...) as a problem verdict."""
    if board.is_valid():
        return None
    problem = board.problems()[0]
    return Verdict(problem=problem.message, cells=problem.cells)


def problem(text: str, cells=()) -> Verdict:
    return Verdict(problem=text, cells=tuple(cells))


def waiting(text: str) -> Verdict:
    """Nothing to read yet, and what the table waits for (not an error)."""
    return Verdict(note=text)


def first_move(verdicts: list[Verdict]) -> Verdict | None:
    """Of the readings of several new tiles, the first that is a legal move, else the first problem."""
    return next((v for v in verdicts if v.moves), verdicts[0] if verdicts else None)


def half_cell(placement: Placement, pips: int) -> int:
    """The cell under the half of a non-double showing `pips` (the first half of a double)."""
    return placement.cells[0] if placement.tile.a == pips else placement.cells[1]


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
        if game.is_over():
            return Verdict()  # nothing more is read; the tray may be cleared
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
        if not pushed:
            return verdict
        return Verdict(moves=tuple(pushed))  # a problem after them is judged once they are pushed

    def legal(self, move: Move, cells=()) -> Verdict:
        """`move` as a verdict, or the engine's reason (naming rule and tile) as the problem."""
        error = self.game.why_illegal(move)
        if error is not None:
            return problem(str(error), cells)
        return Verdict(moves=(move,))

    def reveal(self, word: str, placements: list[Placement]) -> Verdict:
        """The tiles laid out for a reveal the game awaits, as the tiles left of the seat
        `shown_by` names."""
        cells = [c for p in placements for c in p.cells]
        return self.legal(Reveal(word, tuple(sorted(p.tile for p in placements)), self.shown_by(len(placements))),
                          cells)

    def shown_by(self, count: int) -> str | None:
        """Whose tiles left `count` tiles laid out are (the tray cannot tell): the first seat, in
        seat order, still to show that holds that many, else the first still to show."""
        seats = [(m.seat, len(m.tiles)) for m in self.game.legal_moves() if isinstance(m, Reveal)]
        return next((seat for seat, held in seats if held == count), seats[0][0] if seats else None)

    def buttons(self, *moves: tuple[str, Move]) -> list[tuple[str, Move]]:
        return [(label, move) for label, move in moves if self.game.is_legal(move)]


def awaiting(game) -> str | None:
    """What an observed game waits for the table to reveal ("lots", "lead", "show"), if anything."""
    return getattr(game.state, "awaiting", None)


def lay_aside(board: Board, tiles) -> list[tuple[Tile, tuple[int, int]]]:
    """Spots for `tiles` along the rows from the near edge, not touching any tile on the tray:
    where a bot lays out tiles it shows."""
    geo = board.geometry
    taken = {c for p in board.placements for c in p.cells}
    near = taken | {n for c in taken for n in geo.neighbours(c)}
    spots = []
    for row in range(geo.rows - 1, -1, -1):
        for col in range(0, geo.columns - 1, 2):
            cells = (geo.cell(row, col), geo.cell(row, col + 1))
            if not set(cells) & near and len(spots) < len(tiles):
                spots.append(cells)
    if len(spots) < len(tiles):
        raise NoRoom(f"no room on the tray to lay out {len(tiles)} tiles")
    return list(zip(tiles, spots))


def clearing(board: Board, tiles) -> tuple[list[Action], Board]:
    """Remove actions for `tiles` (those on the tray) and the board once they are gone: a bot
    tidies what the table waits to see cleared before its move."""
    gone = {c for p in board.placements if p.tile in set(tiles) for c in p.cells}
    removes = [Action("remove", p.tile) for p in board.placements if p.tile in set(tiles)]
    cells = [(wire.EMPTY, b"") if c in gone else cell for c, cell in enumerate(board.cells)]
    return removes, Board(cells, board.registry, board.geometry)

