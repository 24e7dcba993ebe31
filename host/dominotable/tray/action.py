"""One physical step on a tray, as a hand makes it: the bots' hands plan them (sim/hands), the
in-memory and virtual trays carry them out, a front end may ask for them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from dominotable.rules.tiles import Tile


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
