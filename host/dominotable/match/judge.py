"""The judge: a position, a settled board and what the tracker knows in, a Decision out. It asks
everything of copies (the engine's, the racks'), so judging changes nothing; the committer makes
what it decides.

- Dead readers are read as empty cells and named in the reading's warning, unless a tile may lie
  on one (a half without its partner beside it): then a prompt.
- A board's own faults (a tag in two cells, a half without its partner) are a prompt, pending
  while they may be hands at work.
- The racks of the seats the table plays are read apart from the game (seats.py); the rest, the
  area, goes to the game's reader. While a match waits for the tray to show its stored position
  (a new match, a resumed one), anything else is the restore prompt.
- Moves the reader calls provisional (Castle Rock's captures until the turn ends) are judged again
  from the position before them when the tray no longer shows them: the moves beyond them, or a
  new reading replacing them (`Commit.revised`).
- The moves read are vetted against what the seats the table plays were told to do, then made on
  the copy, with the moves those seats make without a trace (an end of turn, a pass, a reveal
  from a rack); the board is read again after them, so one decision says what the board means.
- Takebacks follow the hands: a board showing exactly the position before the last move offers
  to take it back; one showing other legal moves from there offers to take it back and play
  those instead.
- In a match two tables play (match/remote.py), while the partner table is to move its moves
  heard are made as far as the tray shows them done (the most of them after which the tray
  reads as the position, or as our next moves), in the partner's own notation; none is read
  off the tray in other words, and none is taken back here (only its table takes it back).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import takewhile

from dominotray import wire

from dominotable.match.decision import Commit, Decision, Prompt, Reading, TakeBack, Wait
from dominotable.match.position import Effect, Play, Position, Undo
from dominotable.match.seats import TableSeats
from dominotable.reading.draw import PadDraw
from dominotable.reading.reader import Reader, Verdict, in_motion
from dominotable.rules.game import Game, Move
from dominotable.rules.hidden import DEAL
from dominotable.tray.board import Board, Status


@dataclass(frozen=True)
class Context:
    """What the judge needs of the past, from the tracker and the referee."""

    restoring: bool = False  # the tray must first show the stored position
    resumed: bool = False  # ... of a match resumed from the store
    fresh: bool = True  # the board came from the tray (not judged again after a button)
    offered: tuple[Move, ...] | None = None  # a takeback on offer (the moves it would undo), if any
    instead: tuple[Move, ...] = ()  # ... and the moves it would play instead
    before: dict | None = None  # tile -> cells on the board judged before
    draw: PadDraw | None = None  # the draw over the scan pad read so far


class Judge:
    def __init__(self, reader: Reader, seats: TableSeats | None, seat_name: Callable[[int], str], cells: frozenset[int]):
        self.reader = reader
        self.seats = seats
        self.seat_name = seat_name
        self.cells = cells  # the cells the game uses: a dead reader elsewhere is only a note

    def judge(self, live: Position, board: Board, ctx: Context) -> Decision:
        p = live.copy()
        board, warning, dead = self._readable(board)
        if dead is not None:
            return Prompt("Check the tray", *dead, reading=Reading(warning=warning))
        problems = board.problems()
        if problems:
            return Prompt("Check the tray", problems[0].message, problems[0].cells, pending=in_motion(board),
                          reading=Reading(warning=warning))
        effects: list[Effect] = []
        area, racks = board, None
        if self.seats is not None:
            area, racks, dealt = self.seats.read(p, board)
            effects += dealt
        if racks is not None:
            reading = Reading(area, warning, ctx.draw, self._buttons(p.game, area))
            then = self.restore(p, racks, ctx.resumed) if ctx.restoring else Prompt("Fix the tray", racks)
            return _decided(effects, then, reading=reading)
        verdict, draw = self._read(p.game, area, ctx.draw)
        reading = Reading(area, warning, draw, self._buttons(p.game, area))
        if ctx.restoring and not verdict.same and not (verdict.moves and all(m == DEAL for m in verdict.moves)):
            # (a match resumed between hands with the tray already cleared goes on with the deal)
            return _decided(effects, self.restore(p, verdict.problem, ctx.resumed), reading=reading)
        verdict, revised = self._revise(p, area, verdict, ctx, effects)
        where = {q.tile: q.cells for q in area.placements}
        if verdict.moves and ctx.fresh and ((ctx.offered is not None and not ctx.instead)
                                             or self._replaced(p.game, ctx.before or {}, where)):
            # the last move's tile left first (its takeback was offered), or another tile now stands
            # where it lay: the new tiles replace it, once confirmed
            offer = self._offer(p, area, board)
            if offer is not None and offer.instead:
                return _decided(effects, offer, revised, reading)
        partner = self.seats.partner if self.seats is not None else None
        for _ in range(len(area.placements) + 2):
            if p.game.is_over():
                break
            if partner is not None and partner.to_move(p.game):
                if not self._theirs(p, area, effects):
                    return _decided(effects, self._waiting(p, area, verdict), revised,
                                    Reading(area, warning, None, self._buttons(p.game, area)))
                verdict, draw = self._read(p.game, area, None)
                continue
            if not verdict.moves:  # the seats' moves that leave no trace, then the tray again
                if not (verdict.same and self._traceless(p, area, effects)):
                    break
            else:
                if self.seats is not None:
                    wrong, plans = self.seats.vet(p, verdict.moves, area)
                    if wrong is not None:
                        return _decided(effects, Prompt("Fix the tray", wrong), revised, reading)
                    for plan in plans:
                        _make(p, effects, plan)
                for move in verdict.moves:
                    _make(p, effects, Play(move))
                draw = None
            verdict, draw = self._read(p.game, area, draw)
        reading = Reading(area, warning, draw, self._buttons(p.game, area))
        if p.game.is_over():
            return Commit(tuple(effects), None, revised, reading)
        if verdict.same:
            then = Wait(verdict.note)
            if verdict.note is not None and ctx.fresh and draw is None and self._lifted_last(p.game, area):
                # the hand-ending tile lifted right after it ended the hand: its takeback, not a
                # tile cleared away (the reader awaits the clearing; clearing on withdraws the offer)
                offer = self._offer(p, area, board)
                then = offer if offer is not None and not offer.instead else then
        else:
            offer = self._offer(p, area, board) if ctx.fresh and draw is None and not verdict.moves else None
            then = offer or Prompt("Fix the tray", verdict.problem or "", verdict.cells, pending=verdict.pending)
        if self.seats is not None:
            _, plan = self.seats.turn(p, area)
            if plan is not None:
                _make(p, effects, plan)
        return _decided(effects, then, revised, reading)

    # -- the parts ------------------------------------------------------------------------------

    def _readable(self, board: Board) -> tuple[Board, str | None, tuple[str, tuple[int, ...]] | None]:
        """`board` with its dead readers read as empty cells, a warning naming them, and the prompt
        when a tile may lie on one."""
        dead = board.faults
        if not dead:
            return board, None, None
        geometry = board.geometry
        label = geometry.label
        inside = [c for c in dead if c in self.cells]
        named = ", ".join(label(c) for c in dead)
        warning = (f"reader {named} dead: play around it" if inside
                   else f"reader {named} dead (not used by this game)")
        readable = Board([(wire.EMPTY, b"") if status == wire.FAULT else (status, uid)
                          for status, uid in board.cells], board.registry, geometry)
        for problem in readable.problems():
            near = [c for c in geometry.neighbours(problem.cells[0]) if c in dead]
            if problem.flag == Status.LONE_HALF and near:
                return readable, warning, (f"the reader at {label(near[0])} does not answer: move the tile at "
                                           f"{label(problem.cells[0])} off it, or mend the reader", (near[0],))
        return readable, warning, None

    def _read(self, game: Game, area: Board, draw: PadDraw | None) -> tuple[Verdict, PadDraw | None]:
        """The reader's verdict; while the game awaits a draw over the scan pad and the tray is
        otherwise in order, the draw's (started when first judged, the pad's tile not counted)."""
        reader = self.reader.on(game.copy())
        verdict = reader.judge(area)
        awaited = reader.pad_draw()
        if awaited is None:
            return verdict, None
        if draw is None:
            draw = PadDraw(awaited, [self.seat_name(seat) for seat in range(len(game.side_names()))], area)
        else:
            draw = copy.copy(draw)
            draw.tiles = list(draw.tiles)
        return (draw.read(area) if verdict.same else verdict), draw

    def _buttons(self, game: Game, area: Board) -> tuple[tuple[str, Move], ...]:
        return tuple(self.reader.on(game.copy()).button_moves(area))

    def _revise(self, p: Position, area: Board, verdict: Verdict, ctx: Context, effects: list[Effect]
                ) -> tuple[Verdict, tuple[Move, ...]]:
        """A problem read past the reader's provisional moves, read again from before them."""
        game = p.game
        count = self.reader.on(game.copy()).provisional() if verdict.problem is not None and not ctx.restoring else 0
        if not count or not self._ours(game, count):
            return verdict, ()
        before = game.copy()
        undone = tuple([before.pop() for _ in range(count)][::-1])
        whole = self.reader.on(before).judge(area)
        if whole.problem is not None:
            return whole, ()
        if tuple(whole.moves[:count]) == undone:
            return Verdict(moves=whole.moves[count:], note=whole.note), ()
        for _ in undone:
            _make(p, effects, Undo())
        return whole, undone

    def _theirs(self, p: Position, area: Board, effects: list[Effect]) -> bool:
        """Make the partner's moves heard that the tray shows done: the most of them after which
        the tray reads as the position, or as moves of ours; whether there were any."""
        partner, game = self.seats.partner, p.game.copy()
        plan, done = partner.plan(p), 0
        for k, move in enumerate(plan, 1):
            game.push(move)
            if game.is_over():  # nothing more to read: a last move without a trace ends it
                done = k if done == k - 1 and not (move.placed() or move.taken()) else done
                break
            verdict = self.reader.on(game.copy()).judge(area)
            if verdict.problem is None and not (verdict.moves and partner.theirs(game, verdict.moves[0])):
                done = k
        for move in plan[:done]:
            _make(p, effects, Play(move))
        return done > 0

    def _waiting(self, p: Position, area: Board, verdict: Verdict) -> Wait | Prompt:
        """The partner is to move and the tray does not show its next move: a wait (the
        instruction, or the notice that the table waits, says what is awaited), or what to undo."""
        if verdict.problem is not None:
            return Prompt("Fix the tray", verdict.problem, verdict.cells, pending=verdict.pending)
        wrong = self.seats.astray(p, verdict.moves, self.seats.partner.plan(p), area) if verdict.moves else None
        return Wait() if wrong is None else Prompt("Fix the tray", wrong)

    def _traceless(self, p: Position, area: Board, effects: list[Effect]) -> bool:
        """Make the seats' moves that leave no trace on the tray; whether there were any."""
        made = False
        while self.seats is not None and not p.game.is_over():
            move, plan = self.seats.traceless(p, area)
            if plan is not None:
                _make(p, effects, plan)
            if move is None:
                return made
            _make(p, effects, Play(move))
            made = True
        return made

    def _lifted_last(self, game: Game, area: Board) -> bool:
        """Whether the tile the last move placed is off the tray."""
        tile = game.moves[-1].placed() if game.moves else None
        return tile is not None and all(q.tile is not tile for q in area.placements)

    def _replaced(self, game: Game, before: dict, where: dict) -> bool:
        """Whether another tile lies where the last move's tile lay on the board judged before."""
        tile = getattr(game.moves[-1], "tile", None) if game.moves else None
        cells = set(before.get(tile, ()))
        return tile not in where and any(cells & set(spot) for spot in where.values())

    def _offer(self, p: Position, area: Board, board: Board) -> TakeBack | None:
        """The last move, if the tray shows exactly the position before it (no note of something
        still awaited there); the last moves and the moves read instead, if a tile they placed has
        left the tray and it shows other legal moves from the position before them (a tile lifted
        and another laid before the table saw the lift). Provisional moves are never offered: the
        tray revises them by itself; nor is a seat's placement whose tile it is told to take off
        next (its capture begun), unless the tile is back in its rack (`board`: the whole tray)."""
        game = p.game
        if self.reader.on(game.copy()).provisional():
            return None
        on_tray = {q.tile for q in area.placements}
        if self.seats is not None and game.moves and game.moves[-1].placed() not in {q.tile for q in board.placements}:
            turn, _ = self.seats.turn(p, area)
            if game.moves[-1].placed() in {t for m in takewhile(lambda m: m.taken(), turn) for t in m.taken()}:
                return None
        for depth in (1, 2, 3):
            if len(game.moves) < depth or not self._ours(game, depth):
                return None
            before = game.copy()
            undone = tuple(reversed([before.pop() for _ in range(depth)]))
            reader = self.reader.on(before)
            verdict = reader.judge(area)
            if depth == 1 and verdict.same and verdict.note is None:
                return self._offering(game, undone, (), area)
            if verdict.moves and verdict.moves != undone and (depth == 1 or len(verdict.moves) < depth) \
                    and any(getattr(m, "tile", None) not in on_tray for m in undone if hasattr(m, "tile")):
                return self._offering(game, undone, verdict.moves, area)
        return None

    def _offering(self, game: Game, undo, instead, area: Board) -> TakeBack:
        played = f" and play {' '.join(map(str, instead))} instead" if instead else ""
        text = f"take back {' '.join(map(str, undo))}{played}? press select"
        return TakeBack(undo, instead, self.reader.on(game.copy()).in_tray_terms(text, area))

    def takeback_candidate(self, live: Position, board: Board) -> Move | None:
        """The last move, if the tray shows the position before it: what the menu offers to take back."""
        game = live.game.copy()
        if not game.moves or not self._ours(game, 1):
            return None
        if self.seats is not None:
            board = self.seats.without_racks(board)[0]
        move = game.pop()
        return move if self.reader.on(game).judge(board).same else None

    def _ours(self, game: Game, count: int) -> bool:
        """Whether this table made the last `count` moves (the partner's it never takes back)."""
        partner = self.seats.partner if self.seats is not None else None
        if partner is None:
            return True
        before = game.copy()
        undone = [before.pop() for _ in range(count)]
        for move in reversed(undone):
            if partner.theirs(before, move):
                return False
            before.push(move)
        return True

    def clears(self, live: Position, board: Board) -> bool:
        """Whether the tray reads as the position again (or as legal moves from it): a problem's
        prompt goes before the settle time; nothing is committed before it."""
        return (board.is_valid() and self.seats is None and self.reader.pad_draw() is None
                and self.reader.on(live.game.copy()).judge(board).problem is None)

    def restore(self, p: Position, problem: str | None, resumed: bool) -> Prompt:
        """What the tray must show before play (re)starts."""
        reader = self.reader.on(p.game.copy())
        if not resumed:
            return Prompt("Set up the table", problem or reader.expected(), restore=True)
        racks = self.seats.expected(p) if self.seats is not None else ""
        text = f"{reader.expected()}" + (f"; {racks}" if racks else "")
        return Prompt("Restore the table", text + (f" ({problem})" if problem and racks else ""), restore=True)


def _make(p: Position, effects: list[Effect], effect: Effect) -> None:
    p.apply(effect)
    effects.append(effect)


def _decided(effects: list[Effect], then, revised: tuple[Move, ...] = (), reading: Reading | None = None) -> Decision:
    """`then`, after committing `effects` if there are any."""
    reading = reading or Reading()
    if effects:
        return Commit(tuple(effects), then, revised, reading)
    return _with_reading(then, reading)


def _with_reading(then, reading: Reading):
    return replace(then, reading=reading)
