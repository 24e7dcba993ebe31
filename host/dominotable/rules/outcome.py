"""How a match ended, like python-chess's `Outcome`: a termination and the winning sides."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Termination(StrEnum):
    """Why a match ended. The values are what storage writes, so old databases still read."""

    PLAYED = "played"  # the rules ended it
    RESIGNED = "resigned"  # the player to move gave up
    ABANDONED = "abandoned"  # a new match started before this one ended: nobody wins


@dataclass(frozen=True, slots=True)
class Outcome:
    termination: Termination
    winners: tuple[int, ...]  # winning sides (seats, or partnerships); empty for none
