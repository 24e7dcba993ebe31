"""The last play, as the table says it: who, what (the notation, for the record), the points it
scored, and the same in plain words (the game's own, GameSpec.words): what every screen shows."""

from __future__ import annotations

from typing import NamedTuple


class LastPlay(NamedTuple):
    who: str
    what: str
    points: int | None
    words: str = ""  # "ANN captured 2-4 between 0-0 and 4-4"; empty: `who what` says it

    @property
    def gained(self) -> str:
        """The points it scored, in words (", scores 3", ", 1 off the score"), or nothing."""
        if not self.points:
            return ""
        return f", scores {self.points}" if self.points > 0 else f", {-self.points} off the score"

    def __str__(self) -> str:
        return f"{self.words or f'{self.who} {self.what}'}{self.gained}"
