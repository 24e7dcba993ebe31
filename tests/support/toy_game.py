"""A toy game defined wholly in this file, to prove that a game is its own files plus one spec
(issue 16): "High Tile", for two. Each player is dealt one tile (HT-1) and, in turn, lays it
anywhere on the open grid (HT-2); a tile laid stays where it is (HT-3). Once both have laid, the
higher pip count wins, both on a tie (HT-4)."""

from __future__ import annotations

from dataclasses import dataclass

from dominotable.games.spec import GameSpec
from dominotable.reading.reader import Verdict
from dominotable.reading.step import StepReader, problem
from dominotable.rules.errors import IllegalMove
from dominotable.rules.game import Game, State, applies, checks, replace_at
from dominotable.rules.moves import Move
from dominotable.rules.tiles import Tile
from dominotable.sim.hands.base import Hands, lay_aside
from dominotable.tray.board import Board


@dataclass(frozen=True, slots=True)
class Lay(Move):
    tile: Tile

    def __str__(self) -> str:
        return str(self.tile)


@dataclass(slots=True)
class HighState(State):
    hands: tuple[tuple[Tile, ...], ...]
    laid: tuple[Tile, ...]


class HighTile(Game):
    name = "high-tile"
    title = "High Tile"
    min_players = max_players = default_players = 2

    def _initial_state(self) -> HighState:
        tiles = list(self.dset.tiles)
        self.rng("deal").shuffle(tiles)
        return HighState(hands=((tiles[0],), (tiles[1],)), laid=())

    def _moves(self) -> tuple[Move, ...]:
        return tuple(Lay(t) for t in self.state.hands[self.current_player])

    def parse_move(self, text: str) -> Move:
        return Lay(self.dset.parse(text))

    @property
    def current_player(self) -> int | None:
        laid = len(self.state.laid)
        return laid if laid < self.players else None

    @property
    def scores(self) -> list[int]:
        laid = self.state.laid
        return [laid[seat].a + laid[seat].b if seat < len(laid) else 0 for seat in range(self.players)]

    def hands(self) -> tuple[tuple[Tile, ...], ...]:
        return self.state.hands

    def is_over(self) -> bool:
        return len(self.state.laid) == self.players

    def winners(self) -> list[int]:
        top = max(self.scores)
        return [seat for seat, points in enumerate(self.scores) if points == top]

    @checks(Lay)
    def _check_lay(self, move: Lay) -> IllegalMove | None:
        seat = self.current_player
        if move.tile not in self.state.hands[seat]:
            return IllegalMove(f"{move.tile} is not the tile dealt to P{seat + 1}", "HT-1", move.tile)
        return None

    @applies(Lay)
    def _lay(self, move: Lay) -> None:
        s, seat = self.state, self.current_player
        s.hands = replace_at(s.hands, seat, tuple(t for t in s.hands[seat] if t != move.tile))
        s.laid = s.laid + (move.tile,)


class HighTileReader(StepReader):
    def step(self, board: Board) -> Verdict:
        laid = self.game.state.laid
        placements = [p for p in board.placements if not self.geometry.is_pad(p.cells[0])]
        on_tray = {p.tile for p in placements}
        gone = [t for t in laid if t not in on_tray]
        if gone:
            return problem(f"put {gone[0]} back where it was laid (rule HT-3)")
        new = [p for p in placements if p.tile not in laid]
        return self.legal(Lay(new[0].tile), board, new[0].cells) if new else Verdict()

    def expected(self) -> str:
        return "tiles laid: " + (", ".join(map(str, self.game.state.laid)) or "none")


class HighTileHands(Hands):
    Reader = HighTileReader

    def actions(self, move: Move, board: Board):
        return lay_aside(board, [move.tile])


SPEC = GameSpec(HighTile, HighTileReader, HighTileHands, "tests/support/toy_game.py", zones=("open",), observed=False)
