"""A tray in memory for the reader tests: lay tiles, apply an reader's Actions, read a Board.

It refuses what a real tray refuses (a cell covered twice, a tile laid twice, halves that do
not touch), so a bot's actions that would fail on the virtual tray fail here too.
"""

from __future__ import annotations

from dominotable.games import catalog
from dominotable.reading.draw import PadDraw
from dominotable.reading.reader import Reader, Verdict
from dominotable.rules.game import Game
from dominotable.rules.hidden import Reveal
from dominotable.rules.tiles import DominoSet, Tile
from dominotable.sim.hands.base import Hands
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.geometry import default
from dominotable.tray.tags import Registry


class SimTray(MemoryTray):
    """The package's in-memory MemoryTray with shorthands for laying tiles by hand in tests."""

    def __init__(self, top: int = 6):
        super().__init__(Registry.virtual(DominoSet(top)), default())
        self.dset = self.registry.dominoes

    def cell(self, row: int, col: int) -> int:
        return self.geometry.cell(row, col)

    def put(self, tile: Tile, cells: tuple[int, int]) -> None:
        """Side a of `tile` on cells[0], side b on cells[1]."""
        self.place(tile, tuple(cells))

    def lay(self, text: str, row: int, col: int, facing: str = "right") -> Tile:
        """Lay "5-3" with the 5 on (row, col) and the 3 on the cell towards `facing`."""
        tile = self.dset.parse(text)
        first = int(text.split("-")[0])
        dr, dc = {"right": (0, 1), "down": (1, 0), "left": (0, -1), "up": (-1, 0)}[facing]
        here, there = self.cell(row, col), self.cell(row + dr, col + dc)
        self.put(tile, (here, there) if first == tile.a else (there, here))
        return tile

    def pad(self, text: str) -> Tile:
        tile = self.dset.parse(text)
        self.apply(Action(ActionKind.PAD, tile))
        return tile

    def take(self, tile: Tile | str) -> None:
        if isinstance(tile, str):
            tile = self.dset.parse(tile)
        self.apply(Action(ActionKind.REMOVE, tile))

    def apply(self, actions) -> None:
        """One Action, or a list of them."""
        if isinstance(actions, Action):
            super().apply(actions)
        else:
            self.apply_all(actions)


def hands_of(reader: Reader) -> Hands:
    """The hands of the game `reader` reads: how a bot makes its moves on the tray."""
    return catalog.hands_for(reader.game, reader.geometry)


def read_draw(reader: Reader, layout: MemoryTray, actions) -> Verdict:
    """Make a draw's actions one at a time, reading the board after each as the session reads
    settled boards (draw.py); the verdict that ends the draw (its `lots` move, or a problem),
    else the last note. Actions after the end are still made (the last tile taken off)."""
    draw = PadDraw(reader.pad_draw(), reader.game.side_names(), layout.board())
    verdict = None
    for action in actions:
        layout.apply(action)
        if verdict is None or not (verdict.moves or verdict.problem):
            verdict = draw.read(layout.board())
    return verdict


def play_through(game: Game, reader: Reader, tray: SimTray, choose, limit: int = 5000) -> None:
    """Play `game` to its end: each move chosen by `choose(game)` is made physically with the
    reader's actions (which also clear what the table waits to see cleared) or its buttons, and
    must be judged back as exactly that move; after it the tray must read as the same position
    (perhaps with a note of what the table waits for)."""
    for _ in range(limit):
        if game.is_over():
            return
        move = choose(game)
        if isinstance(move, Reveal) and move.word == "show":  # whose: the first seat they can be
            move = Reveal("show", move.tiles, game.who_shows(move.tiles))
        actions = hands_of(reader).actions(move, tray.board())
        if reader.pad_draw() is not None:
            verdict = read_draw(reader, tray, actions)
            assert verdict.moves == (move,), f"{move} drawn as {verdict}"
        elif actions:
            tray.apply(actions)
            verdict = reader.judge(tray.board())
            assert verdict.problem is None, f"{move}: {verdict.problem}\n{tray.board()}"
            assert verdict.moves == (move,), f"{move} read as {verdict.moves}\n{tray.board()}"
        else:
            assert move in [m for _, m in reader.button_moves()], f"{move}: no trace and no button"
        game.push(move)
        after = reader.judge(tray.board())
        assert after.same, f"after {move}: {after}\n{tray.board()}"
    raise AssertionError("the game did not end")


def judge_of(game: Game, geometry=None):
    """The judge of a table of people alone playing `game` (match/judge.py), and the position it
    judges: what a match core test asks about a board without a whole referee."""
    from dominotable.match.judge import Judge
    from dominotable.match.position import Position
    from dominotable.match.seats import SeatKind, TableSeats

    geometry = geometry or default()
    spec = catalog.spec(game)
    names = [f"P{seat + 1}" for seat in range(game.players)]
    seats = TableSeats((), (SeatKind.HUMAN,) * game.players, names, game.seed, spec.hands_for(game, geometry), {})
    judge = Judge(spec.reader_for(game, geometry), seats, lambda seat: names[seat], spec.cells(geometry))
    return judge, Position(game, {})
