"""One physical step on a tray, as a hand makes it: the bots' hands plan them (sim/hands), the
in-memory and virtual trays carry them out, a front end may ask for them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from dominotable.rules.tiles import Tile
from dominotable.tray.errors import TrayError
from dominotable.tray.geometry import Geometry


class ActionKind(StrEnum):
    PLACE = "place"  # lay the tile on two cells
    REMOVE = "remove"  # take it off the tray
    SLIDE = "slide"  # move it to two other cells
    PAD = "pad"  # hold it over the scan pad
    UNPAD = "unpad"  # take it off the scan pad


@dataclass(frozen=True)
class Action:
    """`cells` are (cell under tile.a, cell under tile.b) for place and slide, else empty."""

    kind: ActionKind
    tile: Tile
    cells: tuple[int, ...] = ()


def landing(action: Action, geometry: Geometry, where: tuple[int, int] | None,
            covered: Callable[[int], bool]) -> tuple[int, int] | None:
    """Check a step against the tray as it is: `where` is the cells the tile covers now (None:
    not on the tray), `covered(cell)` whether anything lies on a cell. The cells the tile covers
    after the step (None: it leaves the tray); TrayError naming the tile and cell for a step no
    hand can make: a tile laid twice or not there, a cell off the grid or covered, halves that
    would not touch."""
    tile, kind, geo = action.tile, action.kind, geometry
    if kind in (ActionKind.PLACE, ActionKind.PAD):
        if where is not None:
            raise TrayError(f"tile {tile} is already on the tray at {geo.label(where[0])} and {geo.label(where[1])}")
    elif where is None:
        raise TrayError(f"tile {tile} is not on the tray")
    elif kind == ActionKind.UNPAD and not geo.is_pad(where[0]):
        raise TrayError(f"tile {tile} is not on the scan pad")
    if kind in (ActionKind.REMOVE, ActionKind.UNPAD):
        return None
    if kind == ActionKind.PAD:
        cells = geo.pad[:2]
    else:
        cells = tuple(action.cells)
        if len(cells) != 2:
            raise TrayError(f"a tile covers two cells, not {len(cells)}")
        for cell in cells:
            geo.coords(cell)  # on the playing grid
        if cells[1] not in geo.neighbours(cells[0]):
            raise TrayError(f"the halves of {tile} would not touch: {geo.label(cells[0])} and {geo.label(cells[1])}")
    for cell in cells:
        if covered(cell) and cell not in (where or ()):
            raise TrayError(f"{geo.label(cell)} is already covered")
    return cells
