"""What every game's hands share: the contract, laying tiles aside, clearing, draws over the scan
pad, and carrying the actions out on the virtual tray.

`Hands.actions(move, board)` plans the physical steps (tray/action.py) that make `move` on a tray
showing `board`, chosen so that the game's reader judges the result as exactly that move (a move
with no trace on the tray, such as a pass, has none). Planning changes nothing: not the engine
(a probe is pushed and popped again), not the board, not any object the hands share.
On a board that does not show the position it raises NotShown, where no room for the move, NoRoom.
`setup(board)` plans the steps that make the tray show the engine's position (a new match, a
restore). The hands of a bot seat tell a person what to do; the demo's do it themselves.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from typing import ClassVar

from dominotray import wire

from dominotable.reading.reader import Reader
from dominotable.rules.errors import DominoError, IllegalMove
from dominotable.rules.game import Game, Move
from dominotable.rules.tiles import Tile
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board
from dominotable.tray.geometry import Geometry
from dominotable.tray.virtual import DIRECTIONS, VirtualTray


class NoRoom(DominoError):
    """A move the engine allows but the tray has no room to show: bots choose another."""


class NotShown(DominoError):
    """The tray does not show the position the move is made from (a tile of it lifted or knocked
    out of place, hands still at work): no steps can be planned on it."""


class Hands(ABC):
    Reader: ClassVar[type[Reader]]  # the game's reader: the hands place tiles where it reads them
    taking: ClassVar[str] = "off the tray"  # where tiles taken go from, as an instruction says it
    place: ClassVar[str] = ""  # where every tile goes, as the game names it (none: its cells say it)

    def __init__(self, game: Game, geometry: Geometry):
        self.game = game
        self.geometry = geometry
        self.reader = self.Reader(game, geometry)

    def on(self, game: Game) -> Hands:
        """These hands working on `game` (a copy of the live engine: planning pushes and pops)."""
        other = copy.copy(self)
        other.game, other.reader = game, self.reader.on(game)
        return other

    @abstractmethod
    def actions(self, move: Move, board: Board) -> list[Action]: ...

    def keep_clear(self, cells: frozenset[int]) -> None:
        """Bot seats' racks lie on `cells`: the game's tiles must stay off them (a game whose
        layout could reach them overrides this)."""

    def rack_reveal(self, racks: dict[int, list[Tile]], area: Board, full: bool = True) -> Move | None:
        """A reveal the table can make itself from what bots' racks hold (`racks`: complete racks
        only, by seat; `full`: every bot's rack is complete), when the game awaits one and the tray
        (`area`: without the racks) is ready for it; None otherwise."""
        return None

    def racks_deny(self, move: Move, racks: dict[int, list[Tile]], full: bool) -> IllegalMove | None:
        """Why a reveal chosen with the buttons is not what the bots' racks say (`racks`: the
        complete ones, by seat; `full`: every bot's rack is complete); None if they do not say."""
        return None

    def setup(self, board: Board) -> list[Action]:
        """The steps from `board` to the engine's position: every tile off, then each move's
        steps from the first move on (a game whose position the tray shows more simply overrides
        this)."""
        steps = [Action(ActionKind.REMOVE, p.tile) for p in board.placements]
        tray = MemoryTray(board.registry, self.geometry)
        scratch = type(self.game).from_dict({**self.game.to_dict(), "moves": []})
        replaying = self.on(scratch)  # the same hands: the racks they keep clear, too
        for move in self.game.moves:
            made = replaying.actions(move, tray.board())
            tray.apply_all(made)
            steps += made
            scratch.push(move, trusted=True)
        return steps


def lay_aside(board: Board, tiles, avoid: frozenset[int] = frozenset()) -> list[Action]:
    """`tiles` laid out along the rows from the near edge, not touching any tile on the tray, nor
    on the cells to `avoid` (the bots' racks): how a player shows the tiles left."""
    geo = board.geometry
    taken = {c for p in board.placements for c in p.cells}
    near = taken | {n for c in taken for n in geo.neighbours(c)} | avoid
    spots = []
    for row in range(geo.rows - 1, -1, -1):
        for col in range(0, geo.columns - 1, 2):
            cells = (geo.cell(row, col), geo.cell(row, col + 1))
            if not set(cells) & near and len(spots) < len(tiles):
                spots.append(cells)
    if len(spots) < len(tiles):
        raise NoRoom(f"no room on the tray to lay out {len(tiles)} tiles")
    return [Action(ActionKind.PLACE, tile, cells) for tile, cells in zip(tiles, spots)]


def clearing(board: Board, tiles) -> tuple[list[Action], Board]:
    """Remove actions for `tiles` (those on the tray) and the board once they are gone: a bot
    tidies what the table waits to see cleared before its move."""
    tiles = set(tiles)
    gone = {c for p in board.placements if p.tile in tiles for c in p.cells}
    removes = [Action(ActionKind.REMOVE, p.tile) for p in board.placements if p.tile in tiles]
    cells = [(wire.EMPTY, b"") if c in gone else cell for c, cell in enumerate(board.cells)]
    return removes, Board(cells, board.registry, board.geometry)


def pad_actions(tiles, board: Board) -> list[Action]:
    """A bot's draw: each tile held over the scan pad and taken off again once read (first
    clearing the pad)."""
    held = board.on_pad()
    actions = [Action(ActionKind.UNPAD, held.tile)] if held is not None else []
    for tile in tiles:
        actions += [Action(ActionKind.PAD, tile), Action(ActionKind.UNPAD, tile)]
    return actions


def fitting(game: Game, hands: Hands, board: Board, chosen: Move) -> tuple[Move, list[Action]] | None:
    """`chosen` and its steps; when the tray has no room for it (a Broadway tableau outgrowing
    the grid), the first legal move that fits, as a player would choose; None if none fits."""
    for move in (chosen, *(m for m in game.legal_moves() if m != chosen)):
        try:
            return move, hands.actions(move, board)
        except NoRoom:
            continue
    return None


def physical_board(vtray: VirtualTray) -> Board:
    """What really lies on the virtual tray (not what the host has read yet)."""
    return Board(vtray.cells(), vtray.registry, vtray.geometry)


def perform(vtray: VirtualTray, actions: list[Action], read=None) -> None:
    """Make `actions` on the virtual tray; `read(tile)`, if given, before a tile is taken off the
    scan pad: waits until the table has read it there (a draw over the pad, one tile at a time)."""
    for action in actions:
        tile = action.tile
        if action.kind == ActionKind.UNPAD and read is not None:
            read(tile)
        named = f"{tile.a}-{tile.b}"  # tile.a's half first, on cells[0]
        if action.kind in (ActionKind.REMOVE, ActionKind.SLIDE) and vtray.where(tile) is not None:
            vtray.remove(tile)
        if action.kind in (ActionKind.PLACE, ActionKind.SLIDE):
            vtray.place(named, action.cells[0], _facing(vtray.geometry, *action.cells[:2]))
        elif action.kind == ActionKind.PAD:
            vtray.hold_on_scan_pad(named)
        elif action.kind == ActionKind.UNPAD:
            vtray.take_off_scan_pad()


def _facing(geometry: Geometry, first: int, second: int) -> str:
    (r0, c0), (r1, c1) = geometry.coords(first), geometry.coords(second)
    step = (r1 - r0, c1 - c0)
    return next(name for name, d in DIRECTIONS.items() if d == step)

