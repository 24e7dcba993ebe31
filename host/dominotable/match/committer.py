"""The committer: the one place the live position changes, and only after the store has the change.

A decision's effects are first made on a copy of the position (so an effect that cannot be made
raises before anything is written), then written to the store in one transaction (the moves
taken back and made, and what the seats the table plays hold), and only then made on the live
position, with the same code (`Position.apply`). The store and the engine cannot disagree: if the
write fails (the store raises StoreUnavailable: a full disk, a file gone read-only), the live
position is as it was and the move was never played.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dominotable.match.last_play import LastPlay
from dominotable.match.position import Effect, Play, Position, Undo
from dominotable.reading.prompts import listed, named
from dominotable.rules.game import Game
from dominotable.rules.hidden import made_by
from dominotable.rules.moves import Move
from dominotable.rules.outcome import Termination
from dominotable.store.records import Change
from dominotable.store.storage import Store

Say = Callable[[Game, Sequence[Move]], str]  # moves from a position, in plain words (GameSpec.say)


class Committer:
    def __init__(self, store: Store, match_id: int, live: Position, seat_name, say: Say | None = None):
        self.store = store
        self.match_id = match_id
        self.live = live
        self.seat_name = seat_name
        self.say = say
        live.game.seal()

    def commit(self, effects: Sequence[Effect], revised: Sequence = ()) -> LastPlay | None:
        """Write `effects`, then make them; the last play they make (who, what, points), if any."""
        live = self.live
        after = live.copy()
        who = self.seat_name(live.game.current_player)
        last = LastPlay(who, "put back " + " ".join(map(str, revised)), None,
                        f"{who} put back {listed(named(m) for m in revised)}") if revised else None
        seat = before = start = None
        played: list = []
        for effect in effects:
            if isinstance(effect, Play):
                mover = made_by(after.game, effect.move)
                if mover != seat or not played:  # the last play is the last seat's moves
                    seat, before, played, start = mover, list(after.game.scores), [], after.game.copy()
                played.append(effect.move)
            after.apply(effect)
        old, new = [str(m) for m in live.game.moves], [str(m) for m in after.game.moves]
        keep = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        holds = after.holds_dict() if after.holds_dict() != live.holds_dict() else None
        hand = live.game.hands_played()
        ended = {"hand": hand, "scores": list(after.game.scores)} if after.game.hands_played() != hand else None
        self.store.commit(self.match_id, Change(keep, tuple(new[keep:]), holds, ended,
                                                after.heard if after.heard != live.heard else None))
        with live.game.changing():
            for effect in effects:
                live.apply(effect)
        if after.game.is_over() and new != old:  # these moves ended it (not a later partner's event)
            self.store.finish(self.match_id, live.game)
        if played:
            side = live.game.side_of(seat) if seat is not None else None
            gained = live.game.scores[side] - before[side] if side is not None else 0
            words = self.say(start, played) if self.say is not None else ""
            last = LastPlay(self.seat_name(seat) or "The table", " ".join(map(str, played)), gained or None, words)
        return last

    def take_back(self, count: int = 1) -> LastPlay:
        """Take back the last `count` moves; the last play says so in the game's words ("taken back:
        CAT laid 6-5"), the notation kept for the record."""
        undone = self.live.game.moves[-count:]
        before = self.live.game.copy()
        for _ in undone:
            before.pop()
        self.commit([Undo()] * count)
        words = f"taken back: {self.say(before, undone)}" if self.say is not None else ""
        return LastPlay(self.seat_name(self.live.game.current_player), f"took back {' '.join(map(str, undone))}", None,
                        words)

    def resign(self, seat: int) -> LastPlay:
        game = self.live.game
        outcome = game.resign(seat)
        self.store.finish(self.match_id, game, outcome.termination, list(outcome.winners))
        return LastPlay(self.seat_name(seat), "resigned", None)

    def end(self, ending: Termination, winners: list[int]) -> None:
        """The match ended as the partner table says it did (a resignation, an abandonment there)."""
        self.store.finish(self.match_id, self.live.game, ending, winners)

    def abandon(self) -> None:
        """An unfinished match is recorded as abandoned (no winners)."""
        self.store.finish(self.match_id, self.live.game, Termination.ABANDONED, [])

    def hinted(self, seat: int | None, text: str) -> None:
        self.store.add_hint(self.match_id, len(self.live.game.moves), seat, text)
