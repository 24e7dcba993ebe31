"""Broadway at a real table (BW-10): the engine's guess at the hidden hands, kept consistent
with every play, pass, exposure and show, and the reveals the table owes.

The seeded deal is only a guess. Any unseen tile may be played and is swapped into the
player's guessed hand first; a pass bars the unseen tiles that would fit from the passer's
hand; a hand opens with `lead S` (who holds the double), after the first once the last
hand's tiles are cleared away (`deal`), and ends with each seat showing its tiles left
(`show W 3-5 1-2`). `ObservedPlay` is mixed into the engine, whose state it
reads: `hands`, `shown` (face-up exposed tiles), `barred`, `revealed`, `awaiting`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain

from dominotable.rules.errors import IllegalMove
from dominotable.rules.game import applies, checks
from dominotable.rules.games.broadway.seats import SEATS, parse_seat
from dominotable.rules.hidden import DEAL, ObservedHands, Reveal, why_not_deal, why_not_owed, why_not_show
from dominotable.rules.moves import Move
from dominotable.rules.tiles import Tile

OWED = {None: "a play or pass", "lead": "who leads (lead N, E, S or W)",
        "show": "the tiles left in each hand (show N ...)", "deal": "the last hand's tiles cleared away (deal)"}


class ObservedPlay(ObservedHands):
    """The observed-mode half of the Broadway engine."""

    def _holdable(self, seat: int) -> Iterable[Tile]:
        """The tiles `seat` may play: its hand, or in observed mode its face-up tiles and every
        unseen tile that a consistent deal can put in its hand (BW-10.2, BW-10.3), lazily."""
        s = self.state
        if not self.observed:
            return s.hands[seat]
        own = tuple(t for t in s.hands[seat] if t in s.shown)
        if len(own) == len(s.hands[seat]):
            return own
        if not any(s.barred):  # nothing rules a tile out yet: no need to search
            return own + tuple(self._unseen())
        return chain(own, (t for t in self._unseen() if self._why_not_hold(seat, t) is None))

    def seat_word(self, seat: int) -> str:
        return SEATS[seat][0]

    def _why_not_hold(self, seat: int, tile: Tile) -> IllegalMove | None:
        s = self.state
        who = SEATS[seat]
        if tile in s.shown:
            if tile in s.hands[seat]:
                return None
            return IllegalMove(f"{tile} lies face up in another hand, not {who}'s", "BW-10.2", tile)
        if tile not in self._unseen():
            return IllegalMove(f"{tile} is already on the table, so {who} cannot hold it", "BW-10.2", tile)
        if tile in s.barred[seat]:
            return IllegalMove(f"{who} passed when {tile} could have been placed, so cannot hold it", "BW-10.3", tile)
        if self._holding(seat, tile) is None:
            return IllegalMove(f"if {who} held {tile}, the other hands could not agree with their passes",
                               "BW-10.3", tile)
        return None

    def _fitting(self, seat: int) -> frozenset:
        """Unseen tiles that `seat` could place now."""
        return frozenset(p.tile for p in self._placements_of(self._unseen(), seat))

    def _why_not_pass(self) -> IllegalMove | None:
        """BW-10.3: a pass is the player's word, refused only when no deal agrees with it."""
        s = self.state
        who = SEATS[s.turn]
        face_up = next(self._placements_of([t for t in s.hands[s.turn] if t in s.shown], s.turn), None)
        if face_up is not None:
            return IllegalMove(f"{who} can play the face-up {face_up.tile} ({face_up}), so may not pass",
                               "BW-6.1", face_up.tile)
        if self._pass_arrangement() is None:
            return IllegalMove(f"every unseen tile {who} could hold fits the tableau, so {who} cannot be unable "
                               "to play", "BW-10.3")
        return None

    def _guessed_reveals(self) -> Iterator[Move]:
        s = self.state
        if s.awaiting == "deal":
            yield DEAL
            return
        if s.awaiting == "lead":
            double = self.double_of(s.number)
            holder = next(seat for seat in range(4) if double in s.hands[seat])
            yield from (Reveal("lead", (), SEATS[(holder + k) % 4][0]) for k in range(4))
            return
        for seat in range(4):
            if s.hands[seat] and seat not in s.revealed:
                yield Reveal("show", tuple(sorted(s.hands[seat])), SEATS[seat][0])

    @checks(Reveal)
    def _why_not_reveal(self, move: Move) -> IllegalMove | None:
        """Why `move` is not the reveal the table owes now (or a reveal when none is owed)."""
        s = self.state
        error = why_not_owed(move, s.awaiting, OWED, "BW-10.1")
        if error is not None:
            return error
        if move.word == "deal":
            return why_not_deal(move, "BW-10.6")
        seat = parse_seat(move.seat)
        if move.word == "lead":
            return self._why_not_hold(seat, self.double_of(s.number))
        held = 0 if seat in s.revealed else len(s.hands[seat])
        return why_not_show(SEATS[seat], held, move.tiles, lambda tile: self._why_not_hold(seat, tile),
                            lambda: self._show_arrangement(seat, move.tiles) is not None, ("BW-10.5", "BW-10.3"))

    @applies(Reveal)
    def _reveal(self, move: Reveal) -> None:
        s = self.state
        if move.word == "deal":  # BW-10.6: now the hand's double may be led
            s.awaiting = "lead"
            return
        seat = parse_seat(move.seat)
        s.awaiting = None
        if move.word == "lead":
            s.hands = self._holding(seat, self.double_of(s.number))
            s.turn = seat
            return
        s.hands = self._show_arrangement(seat, move.tiles)
        s.hands = tuple(tuple(sorted(move.tiles)) if i == seat else h for i, h in enumerate(s.hands))
        s.revealed = s.revealed | {seat}
        self._end_hand(s)
