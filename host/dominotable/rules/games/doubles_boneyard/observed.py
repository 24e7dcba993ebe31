"""Doubles in the Boneyard at a real table (DB-7): the engine's guess at the hidden hands,
kept consistent with every play, pass and show, and the reveals the table owes.

The doubles drawn for the lead are named (`lots`); any unseen tile may be played and is
swapped into the player's guessed hand first; a pass bars the unseen tiles that fit from the
passer's hand; a finished game waits for each hand to be shown (`show P2 3-5 1-2`), and the
next game for the last game's tiles to be cleared away (`deal`).
`ObservedPlay` is mixed into the engine, whose state it reads: `hands`, `barred`, `revealed`,
`awaiting`, `line`, `turn`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dominotable.rules.errors import IllegalMove
from dominotable.rules.game import checks
from dominotable.rules.hidden import DEAL, ObservedHands, Reveal, why_not_deal, why_not_owed, why_not_show
from dominotable.rules.line import fits
from dominotable.rules.moves import Move
from dominotable.rules.tiles import Tile

OWED = {None: "a play or pass", "lots": "the doubles drawn (lots)",
        "show": "the tiles left in each hand (show P1 ...)", "deal": "the last game's tiles cleared away (deal)"}


class ObservedPlay(ObservedHands):
    """The observed-mode half of the Doubles in the Boneyard engine."""

    def _playable(self) -> list[Tile]:
        """The tiles the current seat might play: its hand, or in observed mode any unseen tile
        its passes do not rule out and that leaves a consistent deal (DB-7.2, DB-7.3)."""
        s = self.state
        if not self.observed:
            return list(s.hands[s.turn])
        if not any(s.barred):  # nothing rules a tile out yet: no need to search
            return self._unseen()
        return [t for t in self._unseen() if t not in s.barred[s.turn] and self._holding(s.turn, t) is not None]

    def _fitting(self, seat: int) -> frozenset:
        """Unseen tiles that fit the line (whoever holds them)."""
        s = self.state
        return frozenset(t for t in self._unseen() if fits(t, s.line))

    def lots_seats(self) -> list[int]:
        """The seats that draw doubles now: all three before the first game, the two tied
        players after a tied blocked game (DB-5)."""
        return list(range(self.players)) if self.state.ending is None else self._outcome()[1]

    def _guessed_reveals(self) -> Iterator[Move]:
        s = self.state
        names = self.side_names()
        if s.awaiting == "deal":
            yield DEAL
            return
        if s.awaiting == "lots":
            doubles = self._draw_doubles(f"tie:{s.game_no}", self.lots_seats()) if s.ending else s.lead_draw
            yield Reveal("lots", tuple(d for _, d in doubles))
            return
        for seat in range(self.players):
            if s.hands[seat] and seat not in s.revealed:
                yield Reveal("show", tuple(sorted(s.hands[seat])), names[seat])

    @checks(Reveal)
    def _why_not_reveal(self, move: Move) -> IllegalMove | None:
        """Why `move` is not the reveal the table owes now (or a reveal when none is owed)."""
        s = self.state
        error = why_not_owed(move, s.awaiting, OWED, "DB-7.1")
        if error is not None:
            return error
        if move.word == "deal":
            return why_not_deal(move, "DB-7.6")
        doubles = [t for t in move.tiles if t.is_double]
        if move.word == "lots":
            seats = self.lots_seats()
            if len(move.tiles) != len(seats) or len(doubles) != len(seats) or len(set(doubles)) != len(seats):
                names = ", ".join(self.side_names()[i] for i in seats)
                return IllegalMove(f"{move}: name {len(seats)} different doubles, drawn by {names} in that order",
                                   rule="DB-7.1")
            return None
        names = self.side_names()
        if move.seat not in names:
            return IllegalMove(f"{move}: {move.seat} is not a seat; seats are {', '.join(names)}", rule="DB-7.4")
        seat = names.index(move.seat)
        unseen = set(self._unseen())

        def why_not_hold(tile: Tile) -> IllegalMove | None:
            if tile not in unseen:
                where = "on the line" if s.line and tile in s.line.tiles() else "shown in another hand"
                return IllegalMove(f"{tile} is {where}, so {move.seat} cannot hold it", rule="DB-7.4", tile=tile)
            if tile in s.barred[seat]:
                return IllegalMove(f"{move.seat} passed when {tile} would have fitted, so cannot hold it",
                                   rule="DB-7.3", tile=tile)
            return None

        def no_doubles() -> IllegalMove | None:
            if doubles:
                return IllegalMove(f"{doubles[0]} is a double; doubles stay in the boneyard", rule="DB-1.1",
                                   tile=doubles[0])
            return None

        held = 0 if seat in s.revealed else len(s.hands[seat])
        return why_not_show(move.seat, held, move.tiles, why_not_hold,
                            lambda: self._show_arrangement(seat, move.tiles) is not None, ("DB-7.4", "DB-7.3"),
                            refuse=no_doubles)

    def _why_not_pass(self, who: str) -> IllegalMove | None:
        """DB-7.3: a pass is the player's word, refused only if no deal agrees with it."""
        if self._pass_arrangement() is not None:
            return None
        s = self.state
        if s.line is None:
            return IllegalMove(f"{who} leads, and any tile opens the line, so {who} cannot be unable to play",
                               rule="DB-7.3")
        ends = " nor ".join(map(str, s.line.ends))
        fitting = self._fitting(s.turn)
        others = [t for t in self._unseen() if t not in fitting and t not in s.barred[s.turn]]
        if not others:
            return IllegalMove(f"every unseen tile fits {ends.replace('nor', 'or')}, so {who} cannot be unable "
                               "to play", rule="DB-7.3")
        if len(others) < len(s.hands[s.turn]):
            return IllegalMove(f"{who} holds {len(s.hands[s.turn])} tiles and only {len(others)} unseen "
                               f"tile{'s' * (len(others) != 1)} fit{'s' * (len(others) == 1)} "
                               f"neither {ends}, so {who} cannot be unable to play", rule="DB-7.3")
        return IllegalMove(f"the earlier passes leave a tile that fits {ends.replace('nor', 'or')} only for {who}, "
                           f"so {who} cannot be unable to play", rule="DB-7.3")
