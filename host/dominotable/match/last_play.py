"""The last play, as the table says it: who, what, and the points it scored."""

from __future__ import annotations

from typing import NamedTuple


class LastPlay(NamedTuple):
    who: str
    what: str
    points: int | None

    @property
    def gained(self) -> str:
        """The points it scored, signed (" +3"), or nothing."""
        return f" {self.points:+d}" if self.points else ""

    def __str__(self) -> str:
        return f"{self.who} {self.what}{self.gained}"
