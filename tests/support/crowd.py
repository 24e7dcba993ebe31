"""A scripted bar crowd: the ordinary messy handling of real hands around a bot's move, as timed
acts on the virtual tray.

A scenario makes the move (the hands' planned actions, sim/hands) the way people do: a tile put
down beside its place and slid in, a tile of the layout bumped and put back, a tile lifted for a
moment, a capture taken tile by tile in any order, two tiles at once, a tile half off its cells
then straightened, a wrong tile laid then replaced, another player's tile laid out of turn then
taken back. Each act labels the tray it leaves: LEGAL, MOVING (a legal transition: hands still
at work) or WRONG (a state the table must refuse), so the table's alarms and prompts can be
judged against what the hands really did (app/crowd.py runs the trials and counts).

Scenarios drive a `Table` (the protocol below): the virtual tray, the table's controller
(read-only, under the runtime's lock), the clock and the buttons. Each returns the engine the
table should end with, or None when it does not fit the move (then another is tried).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from dominotable.reading.reader import Reader
from dominotable.rules.game import Game, Move
from dominotable.rules.tiles import Tile
from dominotable.sim.hands.base import perform
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board
from dominotable.tray.geometry import Geometry
from dominotable.tray.tags import Half
from dominotable.tray.virtual import VirtualTray

LEGAL, MOVING, WRONG = "legal", "moving", "wrong"


class Table(Protocol):
    vtray: VirtualTray
    rng: random.Random

    def act(self, change: Callable[[VirtualTray], None], what: str, state: str) -> None:
        """Change the tray now; the tray it leaves is `state`."""

    def sleep(self, seconds: float) -> None: ...

    def mark(self, kind: str) -> None:
        """Note the moment: "play" (the last act of a legal play), "capture" (the last tile of
        a capture left), "fixed" (a wrong tray put right), "confirm" (a takeback confirmed)."""

    def expect(self, done: Callable[[object], bool], what: str) -> None:
        """Wait until `done(controller)`."""

    def press(self, name: str) -> None: ...


@dataclass
class Plan:
    """A bot's move and what the hands need to make it messily: `actions` make exactly `moves`
    (the move, with the end of a turn it implies); `expected` is the engine after them."""

    moves: list[Move]
    actions: list[Action]
    expected: Game
    game: Game  # the position before (a copy)
    reader: Reader
    board: Board  # the tray before
    captured: list[Tile] = field(default_factory=list)  # a turn's captures, tile by tile


# -- single acts ------------------------------------------------------------------------------

def put(tile: Tile, cells: tuple[int, int]) -> Callable[[VirtualTray], None]:
    """Lay `tile` on `cells` (side a on cells[0]), from wherever it is."""
    return do(Action(ActionKind.SLIDE, tile, cells))


def lift(*tiles: Tile) -> Callable[[VirtualTray], None]:
    return lambda vtray: perform(vtray, [Action(ActionKind.REMOVE, tile) for tile in tiles])


def do(action: Action) -> Callable[[VirtualTray], None]:
    """One planned action as an act."""
    return lambda vtray: perform(vtray, [action])


def reads(plan: Plan, tiles: dict[Tile, tuple[int, int]], moves: list[Move] | None = None) -> str | None:
    """How the plan's reader judges a tray with `tiles` from the position before: LEGAL (the
    same or legal moves; with `moves`, exactly those), MOVING (a pending problem) or WRONG;
    None for anything else (a note, other moves)."""
    tray = MemoryTray(plan.board.registry, plan.board.geometry)
    tray.tiles = dict(tiles)
    verdict = plan.reader.judge(tray.board())
    if verdict.problem is not None:
        return MOVING if verdict.pending else WRONG
    return LEGAL if moves is None or list(verdict.moves) == moves else None


def _tiles(board: Board) -> dict[Tile, tuple[int, int]]:
    return {p.tile: p.cells for p in board.placements}


def _shifted(geo: Geometry, cells: tuple[int, int], dr: int, dc: int) -> tuple[int, int] | None:
    out = []
    for cell in cells:
        r, c = geo.coords(cell)
        if not (0 <= r + dr < geo.rows and 0 <= c + dc < geo.columns):
            return None
        out.append(geo.cell(r + dr, c + dc))
    return out[0], out[1]


# -- scenarios --------------------------------------------------------------------------------

def plain(t: Table, plan: Plan, mark: bool = True) -> Game:
    for action in plan.actions:
        t.act(do(action), f"{action.kind} {action.tile}", LEGAL)
    if mark:
        t.mark("play")
    return plan.expected


def _placing(plan: Plan) -> Action | None:
    placing = [a for a in plan.actions if a.kind == ActionKind.PLACE]
    return placing[-1] if len(placing) == 1 and plan.actions[-1] is placing[0] else None


def slide(t: Table, plan: Plan) -> Game | None:
    """The tile put down two or three cells from its place, then slid in."""
    last = _placing(plan)
    if last is None:
        return None
    tray = MemoryTray.of(plan.board)
    tray.apply_all(plan.actions[:-1])
    before = tray.tiles
    for dr, dc in t.rng.sample([(0, 2), (0, -2), (2, 0), (-2, 0), (0, 3), (3, 0)], 6):
        cells = _shifted(plan.board.geometry, last.cells[:2], dr, dc)
        if cells is None or not _free_in(before, plan.board, cells) or reads(plan, {**before, last.tile: cells}) == WRONG:
            continue
        for action in plan.actions[:-1]:
            t.act(do(action), f"{action.kind} {action.tile}", LEGAL)
        t.act(put(last.tile, cells), f"put {last.tile} down beside its place", MOVING)
        t.sleep(t.rng.uniform(0.1, 0.35))
        t.act(put(last.tile, last.cells[:2]), f"slide {last.tile} into place", LEGAL)
        t.mark("play")
        return plan.expected
    return None


def _free_in(tiles: dict, board: Board, cells) -> bool:
    taken = {c for spot in tiles.values() for c in spot}
    return all(0 <= c < board.geometry.playing for c in cells) and not taken & set(cells)


def bump(t: Table, plan: Plan) -> Game | None:
    """A tile of the layout knocked one cell out of place and put back, then the move."""
    tiles = _tiles(plan.board)
    grid = [(tile, cells) for tile, cells in tiles.items() if cells[0] < plan.board.geometry.playing]
    t.rng.shuffle(grid)
    for tile, cells in grid:
        for dr, dc in t.rng.sample([(0, 1), (0, -1), (1, 0), (-1, 0)], 4):
            moved = _shifted(plan.board.geometry, cells, dr, dc)
            if moved is None:
                continue
            others = {k: v for k, v in tiles.items() if k is not tile}
            if not _free_in(others, plan.board, moved) or reads(plan, {**others, tile: moved}) != MOVING:
                continue
            t.act(put(tile, moved), f"bump {tile}", MOVING)
            t.sleep(t.rng.uniform(0.3, 1.2))
            t.act(put(tile, cells), f"put {tile} back", LEGAL)
            t.sleep(t.rng.uniform(0.1, 0.3))
            plain(t, plan)
            return plan.expected
    return None


def brief_lift(t: Table, plan: Plan, committed: Callable[[object], bool]) -> Game | None:
    """The move, then its tile lifted right after the table took it (0.2-3 s) and put back."""
    last = _placing(plan)
    if last is None:
        return None
    plain(t, plan)
    t.expect(committed, "the move committed")
    t.sleep(t.rng.uniform(0.05, 0.3))
    t.act(lift(last.tile), f"lift {last.tile}", MOVING)
    t.sleep(t.rng.uniform(0.2, 3.0))
    t.act(put(last.tile, last.cells[:2]), f"put {last.tile} back", LEGAL)
    return plan.expected


def tile_by_tile(t: Table, plan: Plan) -> Game | None:
    """A turn's captures taken one tile at a time, in a random order, 0.5-1.5 s apart."""
    if not plan.captured:
        return None
    order = list(plan.captured)
    t.rng.shuffle(order)
    for i, tile in enumerate(order):
        if i:
            t.sleep(t.rng.uniform(0.5, 1.5))
        last = i == len(order) - 1
        t.act(lift(tile), f"capture {tile}", LEGAL if last else MOVING)
    t.mark("capture")
    return plan.expected


def two_at_once(t: Table, plan: Plan, follow: Plan | None) -> Game | None:
    """The move's tile and the next player's laid together; when the rules refuse the second
    (one tile per turn), it is taken off again."""
    last = _placing(plan)
    second = _placing(follow) if follow is not None else None
    if last is None or second is None or len(plan.actions) != 1 or len(follow.actions) != 1:
        return None
    both = {**_tiles(plan.board), last.tile: last.cells[:2], second.tile: second.cells[:2]}
    state = reads(plan, both, plan.moves + follow.moves)
    if state not in (LEGAL, WRONG):
        return None

    def lay_both(vtray: VirtualTray) -> None:
        put(last.tile, last.cells[:2])(vtray)
        put(second.tile, second.cells[:2])(vtray)

    t.act(lay_both, f"lay {last.tile} and {second.tile} at once", state)
    if state == LEGAL:
        t.mark("play")
        return follow.expected
    t.sleep(t.rng.uniform(0.6, 1.2))
    t.act(lift(second.tile), f"take {second.tile} off again", LEGAL)
    t.mark("fixed")
    return plan.expected


def half_off(t: Table, plan: Plan) -> Game | None:
    """The tile put down with one half off its cells (one tag read alone), then straightened."""
    last = _placing(plan)
    if last is None:
        return None
    for action in plan.actions[:-1]:
        t.act(do(action), f"{action.kind} {action.tile}", LEGAL)
    tile, cells = last.tile, last.cells[:2]

    def half(vtray: VirtualTray) -> None:
        vtray.place_tag(cells[0], vtray.uid(Half(tile, 0)))

    def straighten(vtray: VirtualTray) -> None:
        vtray.remove(cells[0])
        put(tile, cells)(vtray)

    t.act(half, f"{tile} half off its cells", MOVING)
    t.sleep(t.rng.uniform(0.3, 1.5))
    t.act(straighten, f"straighten {tile}", LEGAL)
    t.mark("play")
    return plan.expected


def wrong_then_right(t: Table, plan: Plan, wrong: Action | None) -> Game | None:
    """A tile the rules refuse laid first, lifted once the table says so, then the move."""
    if wrong is None or _placing(plan) is None:
        return None
    t.act(put(wrong.tile, wrong.cells[:2]), f"lay {wrong.tile} (wrong)", WRONG)
    t.sleep(t.rng.uniform(0.8, 1.5))
    t.act(lift(wrong.tile), f"take {wrong.tile} off", LEGAL)
    t.mark("fixed")
    t.sleep(t.rng.uniform(0.2, 0.5))
    plain(t, plan)
    return plan.expected


def out_of_turn(t: Table, plan: Plan, other: Plan | None, committed: Callable[[object], bool]) -> Game | None:
    """Another player's tile laid first (the table cannot tell whose hand it came from, so it
    takes it), then lifted: "Take back?" confirmed with select; or the right tile laid in its
    place at once: "take back and play this instead?", confirmed."""
    if other is None or _placing(plan) is None or _placing(other) is None or len(other.actions) != 1:
        return None
    wrong = _placing(other)
    t.act(put(wrong.tile, wrong.cells[:2]), f"lay {wrong.tile} out of turn", LEGAL)
    t.expect(committed, f"{wrong.tile} taken as a move")
    t.sleep(t.rng.uniform(0.3, 1.0))
    t.act(lift(wrong.tile), f"lift {wrong.tile}", MOVING)
    if t.rng.random() < 0.5:
        t.expect(lambda c: c.status.mode == "takeback", "Take back? offered")
        t.sleep(t.rng.uniform(0.2, 0.6))
        t.mark("confirm")
        t.press("select")
        undone = len(other.game.moves) + len(other.moves) - 1
        t.expect(lambda c: c.status.mode == "play" and len(c.game.moves) == undone, "the takeback")
        plain(t, plan)
    else:
        t.sleep(t.rng.uniform(0.2, 0.6))
        plain(t, plan, mark=False)
        t.expect(lambda c: c.status.mode == "takeback" and c.status.instead, "take back and play instead? offered")
        t.sleep(t.rng.uniform(0.2, 0.6))
        t.mark("confirm")
        t.press("select")
    return plan.expected
