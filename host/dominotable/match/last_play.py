"""The last play, as the table says it: who, what (the notation), the points it scored, and the
same in plain words (the game's own, GameSpec.words)."""

from __future__ import annotations

from typing import NamedTuple


class LastPlay(NamedTuple):
    who: str
    what: str
    points: int | None
    words: str = ""  # "ANN captured 2-4 between 0-0 and 4-4"; empty: `who what` says it

    @property
    def gained(self) -> str:
        """The points it scored, signed (" +3"), or nothing."""
        return f" {self.points:+d}" if self.points else ""

    def __str__(self) -> str:
        return f"{self.words or f'{self.who} {self.what}'}{self.gained}"
