"""Castle Rock's and the solitaire's hands: the row stands upright in the row bands, so a move is
the row it leaves: take out what went, keep the rest in place, stand new tiles at the open end."""

from __future__ import annotations

from collections.abc import Sequence

from dominotable.reading.castle_rock import CastleRockReader, CastleRockSolitaireReader
from dominotable.reading.reader import Refusal
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Move
from dominotable.rules.hidden import Reveal
from dominotable.rules.tiles import Tile
from dominotable.sim.hands.base import Hands, NotShown, pad_actions
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board


class CastleRowHands(Hands):
    reader: CastleRockReader | CastleRockSolitaireReader
    taking = "off the row"
    place = "upright at the open end"  # rule CR-10.1: either end away from the players

    def actions(self, move: Move, board: Board) -> list[Action]:
        self.game.push(move)
        try:
            target = self.reader.shown_row()
        finally:
            self.game.pop()
        return self._actions_to(target, board)

    def setup(self, board: Board) -> list[Action]:
        return self._actions_to(self.reader.shown_row(), board)

    def _actions_to(self, target: Sequence[Tile], board: Board) -> list[Action]:
        """Take out what is not in `target`, keep what is (in place), add the rest at the open
        end; slide the row left first only when the bands have no room left at the end."""
        reader = self.reader
        try:
            row = reader.row_placements(board)
        except Refusal as exc:  # a row tile out of place: the row cannot be read, let alone extended
            raise NotShown(exc.prompt) from None
        kept = [p for p in row if p.tile in target]
        if [p.tile for p in kept] != list(target[:len(kept)]):
            kept = []
        new = target[len(kept):]
        keep = {p.tile for p in kept}
        actions = [Action(ActionKind.REMOVE, p.tile) for p in board.placements if p.tile not in keep
                   and (p in row or p.tile in new)]
        slots = reader.slots
        free = reader.slot_of[tuple(sorted(kept[-1].cells))] + 1 if kept else 0
        if free + len(new) > len(slots):
            if len(target) > len(slots):
                raise DominoError(f"the row would hold {len(target)} tiles; this tray's row bands hold {len(slots)}")
            for i, p in enumerate(kept):
                if reader.slot_of[tuple(sorted(p.cells))] != i:
                    actions.append(Action(ActionKind.SLIDE, p.tile, slots[i]))
            free = len(kept)
        actions += [Action(ActionKind.PLACE, tile, slots[free + i]) for i, tile in enumerate(new)]
        return actions


class CastleRockSolitaireHands(CastleRowHands):
    Reader = CastleRockSolitaireReader


class CastleRockHands(CastleRowHands):
    """In observed play the tiles drawn for dealer are held over the scan pad, one by one."""

    Reader = CastleRockReader

    def actions(self, move: Move, board: Board) -> list[Action]:
        if isinstance(move, Reveal) and move.word == "lots":
            return pad_actions(move.tiles, board)
        return super().actions(move, board)
