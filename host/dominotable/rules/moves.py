"""The move types every game shares: the `Move` base and the one `Pass`."""

from __future__ import annotations

from dataclasses import dataclass


class Move:
    """Base of every game's moves: frozen dataclasses whose `str()` is their notation."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Pass(Move):
    """The player to move cannot (or, at a real table, says they cannot) play."""

    def __str__(self) -> str:
        return "pass"


PASS = Pass()
