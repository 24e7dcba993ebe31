"""What the table waits for next, as the typed instruction (reading/instruction.py), asked of
copies:

- for a seat the table plays (`waited`): the next step of its turn (a tile from a rack slot to its
  cells, then the captures to take off), else tiles its rack waits for; for a seat at the partner
  table (match/remote.py), the next step of the moves heard from there, a tile from this table's
  boneyard named by its pips. A step is only said once the table waits for it: never while a
  person is still to move (their turn may end in more than one way);
- for the person to move (`person`): the whole turn up to how it finishes, "put a tile upright at
  the open end (r4c4-r5c4); take any captures; then End turn", any tile where the table cannot
  see the person's hand, its places outlined (the places the judge accepts: targets.py).

Each step names the cells and rack slots it is about, for a front end to mark and the lights to
light; the words are the prompt voice's (reading/prompts.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import takewhile

from dominotable.match.position import Position
from dominotable.match.seats import TableSeats
from dominotable.match.targets import Place
from dominotable.reading import prompts
from dominotable.reading.instruction import Do, Instruction, Step
from dominotable.reading.reader import Reader
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game, Move
from dominotable.rules.tiles import Tile
from dominotable.sim.hands.base import NoRoom
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board

Places = Callable[[Sequence[Tile]], tuple[Place, ...]]  # where any of these tiles may be laid (targets.py)


def waited(seats: TableSeats, p: Position, board: Board) -> Instruction | None:
    """The one thing a person must do now for a seat the table plays."""
    if seats.partner is not None and seats.partner.to_move(p.game):
        return remote_step(seats, p, board)
    return _next_step(seats, p, board) or next(iter(seats.short(p)), None)


def person(seats: TableSeats, p: Position, board: Board, reader: Reader, places: Places) -> Instruction | None:
    """The turn of the person to move, up to how it finishes: a tile laid (any tile the person may
    hold, on the places some tile of theirs may take: as the tray lies, or once tiles are slid or
    put aside to make room), the captures it may open, the button that ends the turn; another way
    to lay, Pass or another button move the reader offers, instead."""
    game = p.game
    seat = game.current_player
    if seat is None or game.is_over() or game.awaiting() or seats.plays(seat):
        return None
    held = {t for hold in p.holds.values() for t in hold.rack.values()} | {q.tile for q in board.placements}
    laying = [m for m in game.legal_moves() if m.placed() is not None and m.placed() not in held]
    buttons = [(label, move) for label, move in reader.on(game.copy()).button_moves(board)
               if seats.why_not(p, move) is None]  # not those the racks rule out (BW-11.5, BW-11.8)
    todo: list[Step] = []
    ways: list[tuple[Step, ...]] = []  # other ways to lay a tile
    after = game
    if laying:
        ways = _ways(seats, p, board, places([m.placed() for m in laying]))
        if ways:
            todo += ways.pop(0)
            after = game.copy()
            after.push(laying[0])
    if todo or any(m.taken() for m in game.legal_moves()):
        if not after.is_over() and after.current_player == seat and any(m.taken() for m in after.legal_moves()):
            todo.append(Step(Do.TAKE, cells=_takeable(game, board) if after is game else ()))
    finish = [label for label, move in reader.on(after.copy()).button_moves(board) if move in reader.implied]
    if finish and (todo or after is game):
        todo.append(Step(Do.PRESS, label=finish[0]))
    elif todo and after is not game and todo[-1].do == Do.LAY:
        todo.append(Step(Do.DONE))  # laying the tile ends the turn
    instead = ways + [(Step(Do.PRESS, label=label),) for label, move in buttons if move not in reader.implied]
    if not todo and not instead:
        return None
    if not todo:
        todo, instead = list(instead[0]), instead[1:]
    return Instruction(seat, seats.names[seat], tuple(todo), tuple(instead))


def _ways(seats: TableSeats, p: Position, board: Board, found: Sequence[Place]) -> list[tuple[Step, ...]]:
    """The ways to lay any tile: on the places free as the tray lies first, then each set of tiles
    to move first (slid, or put aside) and the places that makes (UDS-10.4 to 10.6, BW-11.1)."""
    lay = seats.hands.place
    firsts = list(dict.fromkeys(place.first for place in found))
    firsts.sort(key=bool)  # nothing to move first, first
    ways = []
    for first in firsts:
        cells = tuple(c for place in found if place.first == first for c in place.cells)
        ways.append((*_say(seats, p, None, list(first), board), Step(Do.LAY, cells=cells, place=lay)))
    return ways


def _takeable(game: Game, board: Board) -> tuple[int, ...]:
    """The cells of the tiles some capture may take now."""
    where = {q.tile: q.cells for q in board.placements}
    tiles = dict.fromkeys(t for m in game.legal_moves() for t in m.taken())
    return tuple(c for t in tiles for c in where.get(t, ()))


def told(seats: TableSeats, p: Position, seat: int, move: Move, board: Board) -> Instruction:
    """`move` as the instruction says it, every step of it (a capture: the tiles it takes, whatever
    the tray shows now; a move without a trace: its button)."""
    hands = seats.hands.on(p.game.copy())
    if move.taken() and move.placed() is None:
        return Instruction(seat, seats.names[seat], (Step(Do.TAKE, tuple(move.taken()), place=hands.taking),), table=True)
    try:
        said = _say(seats, p, seat, hands.actions(move, board), board)
    except DominoError:
        said = []
    if not said:
        label = next((label for label, m in hands.reader.button_moves(board) if m == move), str(move))
        said = [Step(Do.PRESS, label=label)]
    return Instruction(seat, seats.names[seat], tuple(said), table=True)


def remote_step(seats: TableSeats, p: Position, board: Board) -> Instruction | None:
    """The first step here of the partner table's moves heard and not yet made (none for what the
    tray does not show: an end of turn, the draw for dealer held over the host's scan pad)."""
    partner = seats.partner
    game = p.game.copy()
    for move in partner.plan(p):
        try:
            actions = [a for a in seats.hands.on(game.copy()).actions(move, board)
                       if a.kind not in (ActionKind.PAD, ActionKind.UNPAD)]
        except DominoError:  # no room to show it: nothing to say
            return None
        said = _say(seats, p, None, actions, board)
        if said:
            seat = None if game.awaiting() else game.current_player
            return Instruction(seat, partner.who(game, seats.names), said[:1], table=True)
        game.push(move)
    return None


def _next_step(seats: TableSeats, p: Position, board: Board) -> Instruction | None:
    seat = p.game.current_player
    turn, _ = seats.turn(p, board)
    if not turn:
        return None
    name = seats.names[seat]
    said = _say(seats, p, seat, _actions(seats, p, seat, turn, board), board)
    if said:
        return Instruction(seat, name, said[:1], table=True)
    what = turn[0].placed() or turn[0]
    problem = p.game.why_illegal(turn[0])
    if problem is not None:  # the engine rules the seat's own move out (BW-10.3: a person's pass was wrong)
        return Instruction(seat, name, (Step(Do.NOTE, label=prompts.ruled_out(what, problem)),), table=True)
    try:
        seats.hands.on(p.game.copy()).actions(turn[0], board)
    except NoRoom as exc:  # its only moves need more tray than the racks leave (BW-11.6)
        return Instruction(seat, name, (Step(Do.NOTE, label=prompts.no_room(what, exc)),), table=True)
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
    # Each pass either returns or pops one of the game's moves: the moves run out
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


def _say(seats: TableSeats, p: Position, seat: int | None, actions: list[Action], board: Board) -> list[Step]:
    """`actions` as steps, each with its cells: tiles taken one after another in one step, and
    tiles slid by one offset (the tableau moved back onto the tray) in one step."""
    steps: list[Step] = []
    taking: list[Tile] = []
    sliding: list[Action] = []
    where = {q.tile: q.cells for q in board.placements}
    hands, hold = seats.hands, p.holds.get(seat)
    for action in [*actions, None]:
        if taking and (action is None or action.kind != ActionKind.REMOVE):
            steps.append(Step(Do.TAKE, tuple(taking), tuple(c for t in taking for c in where.get(t, ())),
                              place=hands.taking))
            taking = []
        if sliding and (action is None or action.kind != ActionKind.SLIDE):
            steps += _slides(seats, sliding, board)
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
            steps.append(Step(Do.LAY, (tile,), tuple(action.cells), (slot,) if slot is not None else (),
                              place=hands.place))
        elif action.kind == ActionKind.PAD:
            steps.append(Step(Do.PAD, (tile,), tuple(board.geometry.pad)))
    return steps


def _slides(seats: TableSeats, slides: list[Action], board: Board) -> list[Step]:
    """Tiles moved by one offset as one step (a column slid up its zone; every tile on the tray, the
    tableau slid back onto it: every tile 2 right, 1 up), else a step each."""
    geo = seats.geometry
    where = {q.tile: q.cells for q in board.placements}
    offsets = set()
    for action in slides:
        old = where.get(action.tile)
        if old is None:
            break
        (r0, c0), (r1, c1) = geo.coords(min(old)), geo.coords(min(action.cells))
        offsets.add((r1 - r0, c1 - c0))
    if len(offsets) == 1 and len(slides) > 1:
        cells = tuple(c for a in slides for c in a.cells)
        every = len(slides) == len(where)
        return [Step(Do.SLIDE, tuple(a.tile for a in slides), cells, by=offsets.pop(), rule="BW-11.1" if every else "")]
    return [Step(Do.SLIDE, (a.tile,), tuple(a.cells)) for a in slides]
