"""A person doing what the table's typed instruction says (reading/instruction.py), as tray steps:
the tests, the chaos harness and the crews follow the instruction itself, never its words.

`actions(step, tiles, geometry, rack)` is one step as the steps a hand makes on the tray (`tiles`:
tile -> cells as the tray lies; `rack`: the rack of the instruction's seat, for its slots). A step
that lays any tile, deals from the boneyard or presses a button needs the person's own choice:
`tile_for`, `drawn` and the caller's buttons.
"""

from __future__ import annotations

from collections.abc import Callable

from dominotable.reading.instruction import Do, Step
from dominotable.rules.tiles import Tile
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.errors import TrayError


def spots(step: Step) -> list[tuple[int, int]]:
    """The places a step laying any tile outlines, each (cell, cell)."""
    return [tuple(step.cells[i:i + 2]) for i in range(0, len(step.cells), 2)]


def moved(geometry, cells, by: tuple[int, int]) -> tuple[int, ...] | None:
    """`cells` moved `by` (rows, columns); None if that leaves the grid."""
    try:
        return tuple(geometry.cell(r + by[0], c + by[1]) for r, c in map(geometry.coords, cells))
    except TrayError:
        return None


def actions(step: Step, tiles: dict[Tile, tuple[int, ...]], geometry, rack=None,
            drawn: Callable[[], Tile] | None = None, tile_for: Callable[[Step], Tile | None] | None = None,
            ) -> list[Action] | None:
    """The tray steps of `step`, or None if it asks for a button or a choice no one gave."""
    at = {tuple(sorted(cells)): tile for tile, cells in tiles.items()}
    match step.do:
        case Do.LAY if step.slots:
            tile = at.get(tuple(sorted(rack.slots[step.slots[0] - 1])))
            if tile is None or (step.tiles and tile is not step.tiles[0]):
                return None
            return [Action(ActionKind.REMOVE, tile), Action(ActionKind.PLACE, tile, step.cells)]
        case Do.LAY if step.tiles:
            tile = step.tiles[0]
            return [*([Action(ActionKind.REMOVE, tile)] if tile in tiles else []),
                    Action(ActionKind.PLACE, tile, step.cells)]
        case Do.LAY:
            tile = tile_for(step) if tile_for is not None else None
            return None if tile is None else [Action(ActionKind.PLACE, tile, spots(step)[0])]
        case Do.TAKE if step.tiles:
            return [Action(ActionKind.REMOVE, tile) for tile in step.tiles if tile in tiles]
        case Do.SLIDE if step.by is not None:
            moving = {t: c for t, c in tiles.items() if t in step.tiles}
            to = {t: moved(geometry, c, step.by) for t, c in moving.items()}
            return [Action(ActionKind.REMOVE, t) for t in moving] + \
                [Action(ActionKind.PLACE, t, c) for t, c in to.items() if c is not None]
        case Do.SLIDE:
            return [a for t in step.tiles for a in (Action(ActionKind.REMOVE, t), Action(ActionKind.PLACE, t, step.cells))]
        case Do.DEAL if drawn is not None:
            return [Action(ActionKind.PLACE, drawn(), rack.slots[k - 1]) for k in step.slots]
        case Do.EMPTY:
            return [Action(ActionKind.REMOVE, at[key]) for k in step.slots
                    if (key := tuple(sorted(rack.slots[k - 1]))) in at]
        case Do.PAD if step.tiles:
            return [Action(ActionKind.PAD, step.tiles[0])]
    return None
