"""What a person must do for a seat the table plays, in words short enough for the OLED: the next
step of its turn ("slot 2 (3-5) -> upright at the open end, r4c6-r5c6", then "take 2-4 and 4-4
off the row"), else a tile its rack waits for, else, while a person may still end a turn that the
next seat's placement ends (CR-10.5), that seat's step "after ANN: ...". For a seat at the
partner table (match/remote.py) it is the next step of the moves heard from there, a tile from
this table's boneyard named by its pips ("put 3-5 upright at the open end, r4c7-r5c7"). Each step
names the cells and rack slots it is about, for a front end to mark. Everything is asked of copies.
"""

from __future__ import annotations

from itertools import takewhile
from typing import TYPE_CHECKING, NamedTuple

from dominotable.match.position import Position
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game, Move
from dominotable.sim.hands.base import NoRoom
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board

if TYPE_CHECKING:
    from dominotable.match.seats import TableSeats


class Said(NamedTuple):
    """One instruction for a seat the table plays: whose (the OLED's title) and what to do."""

    who: str
    what: str
    cells: tuple[int, ...] = ()  # the cells and rack slots it is about
    rack: bool = False  # only the seat's rack is concerned (tiles into it or out of it), not its turn

    def __str__(self) -> str:
        return f"{self.who}: {self.what}"


def instruction(seats: TableSeats, p: Position, board: Board) -> Said | None:
    """The one thing a person must do now for a seat the table plays."""
    if seats.partner is not None and seats.partner.to_move(p.game):
        return remote_step(seats, p, board)
    said = _next_step(seats, p, board)
    if said is not None:
        return said
    notes = seats.short(p)
    if notes:
        return notes[0]
    end = seats.implied(p)
    if end is None:
        return None
    who = seats.names[p.game.current_player]
    after = p.copy()
    after.game.push(end)
    said = _next_step(seats, after, board) if not after.game.is_over() and not seats.short(after) else None
    return said._replace(what=f"after {who}: {said.what}") if said is not None else None


def told(seats: TableSeats, p: Position, seat: int, move: Move, board: Board) -> str:
    """`move` as the instruction says it (its engine notation if it leaves no trace)."""
    hands = seats.hands.on(p.game.copy())
    try:
        said = _say(seats, p, seat, hands.actions(move, board), board)
    except DominoError:
        said = []
    return "; then ".join(what for what, _ in said) or str(move)


def remote_step(seats: TableSeats, p: Position, board: Board) -> Said | None:
    """The first step here of the partner table's moves heard and not yet made (none for what the
    tray does not show: an end of turn, the draw for dealer held over the host's scan pad)."""
    partner = seats.partner
    game, shown = p.game.copy(), board
    for move in partner.plan(p):
        try:
            actions = [a for a in seats.hands.on(game.copy()).actions(move, shown)
                       if a.kind not in (ActionKind.PAD, ActionKind.UNPAD)]
        except DominoError:  # no room to show it: nothing to say
            return None
        said = _say(seats, p, None, actions, shown)
        if said:
            return Said(partner.who(game, seats.names), *said[0])
        game.push(move)
    return None


def _next_step(seats: TableSeats, p: Position, board: Board) -> Said | None:
    seat = p.game.current_player
    turn, _ = seats.turn(p, board)
    if not turn:
        return None
    said = _say(seats, p, seat, _actions(seats, p, seat, turn, board), board)
    if said:
        return Said(seats.names[seat], *said[0])
    problem = p.game.why_illegal(turn[0])
    if problem is not None:  # the engine rules the seat's own move out (BW-10.3: a person's pass was wrong)
        return Said(seats.names[seat], f"{turn[0].placed() or turn[0]} is ruled out ({problem}): take back to "
                                       f"the move that ruled it out, or resign")
    try:
        seats.hands.on(p.game.copy()).actions(turn[0], board)
    except NoRoom as exc:  # its only moves need more tray than the racks leave (BW-11.6)
        return Said(seats.names[seat], f"no room on the tray for {turn[0].placed() or turn[0]} ({exc}): "
                                       f"take back a move, or resign")
    except DominoError:  # the tray is not as the position: hands at work
        pass
    return None


def _actions(seats: TableSeats, p: Position, seat: int, turn: list[Move], board: Board) -> list[Action]:
    """The physical steps of the rest of `seat`'s turn, up to the move ending it (which leaves no
    trace: the table makes it)."""
    game, tray, actions, i = p.game.copy(), MemoryTray.of(board), [], 0
    while i < len(turn) and game.current_player == seat and (turn[i].placed() or turn[i].taken()):
        run = list(takewhile(lambda m: m.taken() and m.placed() is None, turn[i:])) or turn[i:i + 1]
        try:
            made, game = _steps(seats, game, run, tray.board())
            tray.apply_all(made)
        except DominoError:  # no room, or the plan no longer fits the tray as it lies: say what does
            break
        actions, i = actions + made, i + len(run)
    return actions


def _steps(seats: TableSeats, game: Game, run: list[Move], board: Board) -> tuple[list[Action], Game]:
    """The steps of `run` (one move, or captures one after another: what of them is still on the
    tray) and the game after it. Some of the captures' tiles may be off already: taken in another
    order, or taken alone and read as captures of their own, which are undone here (provisional:
    the reader reads the whole once it is off)."""
    order = [t for m in run for t in m.taken()]
    start = game.copy()
    while True:
        after = start.copy()
        try:
            for move in run[:-1]:
                after.push(move)
            made = seats.hands.on(after).actions(run[-1], board)
            after.push(run[-1])
        except DominoError:
            last = start.moves[-1] if start.moves else None
            if last is None or not last.taken() or not set(last.taken()) <= set(order):
                raise
            start.pop()
            continue
        made.sort(key=lambda a: order.index(a.tile) if a.tile in order else len(order))  # as planned
        return made, after


def _say(seats: TableSeats, p: Position, seat: int | None, actions: list[Action], board: Board
         ) -> list[tuple[str, tuple[int, ...]]]:
    """`actions` as instructions, one step each with its cells: tiles taken one after another in
    one step, and tiles slid by one offset (the tableau moved back onto the tray) in one step."""
    steps, taking, sliding = [], [], []
    where = {q.tile: q.cells for q in board.placements}
    hands, hold = seats.hands, p.holds.get(seat)
    for action in [*actions, None]:
        if taking and (action is None or action.kind != ActionKind.REMOVE):
            steps.append((f"take {both(taking)} {hands.taking}", tuple(c for t in taking for c in where.get(t, ()))))
            taking = []
        if sliding and (action is None or action.kind != ActionKind.SLIDE):
            steps.append(_slides(seats, sliding, board))
            sliding = []
        if action is None:
            break
        tile = action.tile
        if action.kind == ActionKind.REMOVE:
            taking.append(tile)
        elif action.kind == ActionKind.SLIDE:
            sliding.append(action)
        elif action.kind == ActionKind.PLACE:
            slot = hold.slot(tile) if hold is not None else None
            if slot is not None:
                steps.append((f"slot {slot} ({tile}) -> {hands.where(action)}",
                               seats.slot_cells(seat, [slot]) + tuple(action.cells)))
            else:
                steps.append((f"put {tile} {hands.where(action)}", tuple(action.cells)))
        elif action.kind == ActionKind.PAD:
            steps.append((f"hold {tile} over the scan pad", tuple(board.geometry.pad)))
    return steps


def _slides(seats: TableSeats, slides: list[Action], board: Board) -> tuple[str, tuple[int, ...]]:
    """Tiles moved by one offset as one step ("slide every tile 2 right, 1 up"), else each."""
    geo = seats.geometry
    where = {q.tile: q.cells for q in board.placements}
    cells = tuple(c for a in slides for c in a.cells)
    offsets = set()
    for action in slides:
        old = where.get(action.tile)
        if old is None:
            break
        (r0, c0), (r1, c1) = geo.coords(min(old)), geo.coords(min(action.cells))
        offsets.add((r1 - r0, c1 - c0))
    if len(offsets) == 1 and len(slides) == len(where):
        dr, dc = offsets.pop()
        moves = [f"{abs(dc)} {'right' if dc > 0 else 'left'}"] * bool(dc) + \
                [f"{abs(dr)} {'down' if dr > 0 else 'up'}"] * bool(dr)
        return f"slide every tile {', '.join(moves)} (rule BW-11.1)", cells
    return "; then ".join(f"slide {a.tile} {seats.hands.where(a)}" for a in slides), cells


def slots(numbers) -> str:
    numbers = sorted(numbers)
    if len(numbers) == 1:
        return f"slot {numbers[0]}"
    if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 2:
        return f"slots {numbers[0]}-{numbers[-1]}"
    return "slots " + both(numbers)


def both(items) -> str:
    """"a", "a and b", "a, b and c"."""
    names = [str(t) for t in items]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
