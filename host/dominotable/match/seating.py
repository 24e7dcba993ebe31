"""Who sits where in a match: a name and a kind per seat, the strategy of each seat the table
plays, and the names the table says."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dominotable.match.seats import SeatKind
from dominotable.rules.game import Game


@dataclass(frozen=True)
class Seating:
    match_id: int
    names: tuple[str, ...]
    kinds: tuple[SeatKind, ...]
    strategies: Mapping[int, str] = field(default_factory=dict)  # seat the table plays -> its strategy
    resumed: bool = False  # the match was resumed from the store

    def seat_name(self, game: Game, seat: int | None) -> str:
        if seat is None:
            return ""
        return self.names[seat] if seat < len(self.names) else game.side_names()[seat]

    def side_names(self, game: Game) -> list[str]:
        """A name per side: the players' names, or the game's names for partnerships."""
        sides = len(game.scores)
        return list(self.names) if len(self.names) == sides else game.side_names()[:sides]
