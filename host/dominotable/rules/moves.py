"""The move types every game shares: the `Move` base and the one `Pass`."""

from __future__ import annotations

from dataclasses import dataclass

from dominotable.rules.tiles import Tile


class Move:
    """Base of every game's moves: frozen dataclasses whose `str()` is their notation."""

    __slots__ = ()

    def placed(self) -> Tile | None:
        """The tile this move puts on the table from its player's hand, if it does."""
        tile = getattr(self, "tile", None)
        return tile if isinstance(tile, Tile) else None

    def taken(self) -> tuple[Tile, ...]:
        """The tiles this move takes off the table (a capture's)."""
        return ()


@dataclass(frozen=True, slots=True)
class Pass(Move):
    """The player to move cannot (or, at a real table, says they cannot) play."""

    def __str__(self) -> str:
        return "pass"


PASS = Pass()
