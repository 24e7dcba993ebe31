"""Takebacks, as the judge offers them and the menu names them: the last move when the tray shows
the position before it (its tile lifted right after, or the tiles just shown), the last moves and
the moves read instead when another tile took a lifted one's place, each named in the prompt's
words (reading/prompts.py `named`). Only this table's moves are ever offered: the partner table's
it never takes back (remote.py). Asked of copies, as the judge asks everything.
"""

from __future__ import annotations

from itertools import takewhile

from dominotable.match.decision import TakeBack
from dominotable.match.position import Position
from dominotable.match.seats import TableSeats
from dominotable.reading import prompts
from dominotable.reading.reader import Reader
from dominotable.rules.game import Game, Move
from dominotable.rules.hidden import Reveal, made_by
from dominotable.tray.board import Board


class Takebacks:
    def __init__(self, reader: Reader, seats: TableSeats):
        self.reader = reader
        self.seats = seats

    def lifted_last(self, game: Game, area: Board) -> bool:
        """Whether the tiles the last move laid are off the tray: the tile it placed, or every tile
        it showed (a Doubles game's or a Broadway hand's tiles left, shown face up: issue 28)."""
        move = game.moves[-1] if game.moves else None
        laid = [move.placed()] if move is not None and move.placed() is not None else \
            list(move.tiles) if isinstance(move, Reveal) and move.word == "show" else []
        on = {q.tile for q in area.placements}
        return bool(laid) and not any(tile in on for tile in laid)

    def replaced(self, game: Game, before: dict, where: dict) -> bool:
        """Whether another tile lies where the last move's tile lay on the board judged before."""
        tile = getattr(game.moves[-1], "tile", None) if game.moves else None
        cells = set(before.get(tile, ()))
        return tile not in where and any(cells & set(spot) for spot in where.values())

    def offer(self, p: Position, area: Board, board: Board, noted: bool = False) -> TakeBack | None:
        """The last move, if the tray shows exactly the position before it (no note of something
        still awaited there, unless `noted`: the last move's own tiles were lifted, and the position
        before it awaited them, tiles shown at a game's end); the last moves and the moves read
        instead, if a tile they placed has left the tray and it shows other legal moves from the position before them (a tile lifted
        and another laid before the table saw the lift). Provisional moves are never offered: the
        tray revises them by itself; nor is a seat's placement whose tile it is told to take off
        next (its capture begun), unless the tile is back in its rack (`board`: the whole tray)."""
        game = p.game
        if self.reader.on(game.copy()).provisional():
            return None
        on_tray = {q.tile for q in area.placements}
        if game.moves and game.moves[-1].placed() not in {q.tile for q in board.placements}:
            turn, _ = self.seats.turn(p, area)
            if game.moves[-1].placed() in {t for m in takewhile(lambda m: m.taken(), turn) for t in m.taken()}:
                return None
        # At most three moves back: a placement, and the end of turn and placement that the tile laid
        # in its place was read as before the table saw the lift (Castle Rock's CR-10.5)
        for depth in (1, 2, 3):
            if len(game.moves) < depth or not self.ours(game, depth):
                return None
            before = game.copy()
            undone = tuple(reversed([before.pop() for _ in range(depth)]))
            reader = self.reader.on(before)
            verdict = reader.judge(area)
            if depth == 1 and verdict.same and (verdict.note is None or noted):
                return self._offering(game, undone, (), area)
            if verdict.moves and verdict.moves != undone and (depth == 1 or len(verdict.moves) < depth) \
                    and any(getattr(m, "tile", None) not in on_tray for m in undone if hasattr(m, "tile")):
                return self._offering(game, undone, verdict.moves, area)
        return None

    def _offering(self, game: Game, undo, instead, area: Board) -> TakeBack:
        before = game.copy()
        for _ in undo:
            before.pop()
        played = f" and play {self.named(before, instead, area)} instead" if instead else ""
        return TakeBack(undo, instead, f"take back {self.named(before, undo, area)}{played}? press select")

    def named(self, before: Game, moves, area: Board | None) -> str:
        """`moves`, made one after another from `before`, as the prompt names them ("2-2, End turn
        and 3-3"): a move without a trace by its button's label where it was made."""
        game, names = before.copy(), []
        for move in moves:
            labels = {str(m): label for label, m in self.reader.on(game.copy()).button_moves(area)}
            names.append(prompts.named(move, labels.get(str(move), "")))
            game.push(move)
        return prompts.listed(names)

    def takeback(self, live: Position, area: Board | None) -> tuple[Move, str] | None:
        """The last move, as the menu offers to take it back right after it is made, and its name in
        the prompt's words: a move of this table's (the partner's it never takes back), and not one
        the table makes itself for a seat it plays (an end of turn, a pass: made again at once)."""
        game = live.game
        if not game.moves or not self.ours(game, 1):
            return None
        before = game.copy()
        move = before.pop()
        if not (move.placed() or move.taken()) and self.seats.plays(made_by(before, move)):
            return None
        return move, self.named(before, [move], area)

    def ours(self, game: Game, count: int) -> bool:
        """Whether this table made the last `count` moves (the partner's it never takes back)."""
        partner = self.seats.partner
        if partner is None:
            return True
        before = game.copy()
        undone = [before.pop() for _ in range(count)]
        for move in reversed(undone):
            if partner.theirs(before, move):
                return False
            before.push(move)
        return True
