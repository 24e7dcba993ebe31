"""Who sits where in a match: a name and a kind per seat, and the names the table says."""

from __future__ import annotations

from dataclasses import dataclass

from dominotable.match.seats import SeatKind
from dominotable.rules.game import Game


@dataclass(frozen=True)
class Seating:
    match_id: int
    names: tuple[str, ...]
    kinds: tuple[SeatKind, ...]
    resumed: bool = False  # the match was resumed from the store

    def seat_name(self, game: Game, seat: int | None) -> str:
        if seat is None:
            return ""
        return self.names[seat] if seat < len(self.names) else game.side_names()[seat]

    def side_names(self, game: Game) -> list[str]:
        """A name per side: the players' names, or the game's names for partnerships."""
        sides = len(game.scores)
        return list(self.names) if len(self.names) == sides else game.side_names()[:sides]
