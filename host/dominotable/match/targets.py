"""Where a tile held over the tray may go: the cells where laying it is a move the judge accepts,
for a front end to mark while someone holds the tile, and the places the instruction outlines for
the person to move. Asked of copies; the live position is never touched.

The candidates are where the game's hands would lay the tile for each legal move placing it (now,
or once the move the next placement implies is made: Castle Rock's end of a turn), each way round.
A candidate is kept only if the judge itself, asked about the tray as it lies now with the tile
laid there (`probe`), commits a move placing the tile, says nothing is wrong, and, asked again
about the same tray once that is committed, still says nothing is wrong: what the page offers,
the judge accepts, and what it accepts it never asks back; each place is kept with the moves the
judge committed there (what laying the tile there does). The answers are kept for the position
and the tray they were asked about.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

from dominotray import wire

from dominotable.match.decision import Commit, Decision, Prompt, TakeBack
from dominotable.match.position import Play, Position, Undo
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game, Move
from dominotable.rules.tiles import Tile
from dominotable.sim.hands.base import Hands
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board

Cells = tuple[int, int]  # the cell under the tile's first-named half, then the other's


class Place(NamedTuple):
    """Where a tile may be laid: its cells, once the steps `first` are made (none: as the tray lies);
    `tile`: the first tile the hands lay there."""

    first: tuple[Action, ...]
    cells: Cells
    tile: Tile


class Probe(Protocol):
    """The judge, as targets ask it (judge.py)."""

    def probe(self, live: Position, board: Board, undone: tuple[Move, ...] = ()) -> Decision: ...


class Targets:
    def __init__(self, judge: Probe, hands: Hands, area: Callable[[Board], Board]):
        """`area(board)`: the board without the racks of the seats the table plays, where the game's
        hands plan (a rack's tiles are never the game's to move)."""
        self.judge = judge
        self.hands = hands
        self.area = area
        self._key: tuple | None = None
        self._known: dict = {}  # tile -> its cells, each with its moves; tiles -> their places

    def of(self, live: Position, board: Board, tile: Tile, undone: tuple[Move, ...] = ()) -> tuple[Cells, ...]:
        """Where laying `tile` on `board` (the whole tray as it lies now) is a move the judge
        accepts from `live` (only copies are asked); `undone`: moves taken back with the button
        that the tray may still show, as the live table judges it."""
        return tuple(self.doing(live, board, tile, undone))

    def doing(self, live: Position, board: Board, tile: Tile, undone: tuple[Move, ...] = ()
              ) -> dict[Cells, tuple[Move, ...]]:
        """Each place of `of`, with the moves the judge commits when the tile is laid there."""
        known = self._for(live, board, undone)
        if tile not in known:
            known[tile] = dict(self._found(live, board, tile, undone))
        return known[tile]

    def places(self, live: Position, board: Board, tiles: Sequence[Tile]) -> tuple[Place, ...]:
        """Where the game's hands lay some tile of `tiles` for a legal move, each place once
        whichever way round, with what must be moved first (nothing, or tiles slid or put aside to
        make room): what the instruction outlines for a person whose tiles the table cannot see.
        The hands lay a move where the reader reads it as that move (hands/base.py), so these are
        not asked of the judge one by one (tests/match/test_targets.py checks that they are accepted): a
        turn's outline costs the hands' planning, not a judgement per place."""
        known, key = self._for(live, board), tuple(dict.fromkeys(tiles))
        if key not in known:
            placing, found = self._placing(live.game), {}
            area = self.area(board)
            for tile in key:
                for place in self._planned(placing.get(tile, ()), area, tile):
                    found.setdefault((place.first, frozenset(place.cells)), place)
            known[key] = tuple(found.values())
        return known[key]

    def _for(self, live: Position, board: Board, undone: tuple[Move, ...] = ()) -> dict:
        """The answers kept for this position and tray (a new one forgets the old)."""
        key = (tuple(map(str, live.game.moves)), str(live.holds_dict()), tuple(board.cells), tuple(map(str, undone)))
        if key != self._key:
            self._key, self._known = key, {}
        return self._known

    def _found(self, live: Position, board: Board, tile: Tile, undone: tuple[Move, ...]):
        """The cells, each way round, where the judge accepts `tile` and never asks it back, each
        with the moves it commits there."""
        if live.game.is_over():
            return
        tray = _as_lies(board, tile)
        without = tray.board()
        taken = {c for spot in tray.tiles.values() for c in spot} | set(tray.extra)
        for first, cells, _ in self._planned(self._placing(live.game).get(tile, ()), self.area(without), tile):
            if first or taken & set(cells):
                continue
            laid = _as_lies(without, tile)
            laid.place(tile, cells)
            moves = self._accepted(live, laid.board(), tile, undone)
            if moves:
                yield cells, moves

    def _accepted(self, live: Position, board: Board, tile: Tile, undone: tuple[Move, ...]) -> tuple[Move, ...]:
        """The moves the judge commits placing `tile` on `board`, if it says nothing is wrong and
        says nothing is wrong about the same board once they are committed (else none; the moves
        taken back are no longer on it then: the table forgets them once it judges the tray without
        them)."""
        decision = self.judge.probe(live, board, undone)
        if not isinstance(decision, Commit) or _wrong(decision.then) or decision.revised:
            return ()
        moves = tuple(e.move for e in decision.effects if isinstance(e, Play))
        if not any(move.placed() is tile for move in moves):
            return ()
        after = live.copy()
        for effect in decision.effects:
            after.apply(effect)
        again = self.judge.probe(after, board)
        if isinstance(again, Commit):
            fine = not (_wrong(again.then) or again.revised or any(isinstance(e, Undo) for e in again.effects))
        else:
            fine = not _wrong(again)
        return moves if fine else ()

    def _placing(self, game: Game) -> dict[Tile, list[tuple[Game, Move]]]:
        """The legal moves placing a tile, by tile, each with the game it is made from: now, or once
        the move the next placement implies is made."""
        starts = [game]
        for move in self.hands.reader.implied:
            if game.is_legal(move):
                after = game.copy()
                after.push(move)
                starts.append(after)
        placing: dict[Tile, list[tuple[Game, Move]]] = {}
        for start in starts:
            for move in start.legal_moves():
                if move.placed() is not None:
                    placing.setdefault(move.placed(), []).append((start, move))
        return placing

    def _planned(self, moves: Sequence[tuple[Game, Move]], board: Board, tile: Tile) -> list[Place]:
        """Where the hands lay `tile` for each of `moves`, each way round, after what they move
        first (the steps before its placing)."""
        out: list[Place] = []
        for start, move in moves:
            try:
                actions = self.hands.on(start.copy()).actions(move, board)
            except DominoError:  # no room for it on this tray
                continue
            for k, action in enumerate(actions):
                if action.kind == ActionKind.PLACE and action.tile is tile:
                    a, b = action.cells
                    out += [Place(tuple(actions[:k]), (a, b), tile), Place(tuple(actions[:k]), (b, a), tile)]
        return list(dict.fromkeys(out))


def _as_lies(board: Board, held: Tile) -> MemoryTray:
    """`board` on an in-memory tray without `held` (in the hand: no longer where it lay), with
    every reading no tile accounts for (a pile, a lone half, a stray tag, a faulty reader) kept
    where it is: the judge sees those too, and asks for them to be put right before it takes a
    move, so a place is asked of it over them."""
    tray = MemoryTray.of(board)
    tray.tiles.pop(held, None)
    covered = {c for p in board.placements for c in p.cells}
    for cell, (status, uid) in enumerate(board.cells):
        half = board.registry.lookup(uid) if status == wire.TAG else None
        if status != wire.EMPTY and cell not in covered and (half is None or half.tile is not held):
            tray.extra[cell] = (status, uid)
    return tray


def _wrong(then: Decision | None) -> bool:
    """Whether what the tray shows then is not simply the position: a problem, a takeback."""
    return isinstance(then, (Prompt, TakeBack))
