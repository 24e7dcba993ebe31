"""Hearing the partner table (remote.py): its events for this match are applied once and in
sequence order (one that comes early waits for those before it; one heard before is dropped).
Each event's moves become the plan of the seats played there, committed (so a crash keeps them)
before the tray is judged again against them; an event that ends the match ends it here too."""

from __future__ import annotations

from collections.abc import Sequence

from dominotable.match.committer import Committer
from dominotable.match.remote import Partner
from dominotable.match.status import Mode, Notice, Status
from dominotable.rules.outcome import Termination
from dominotable.store.errors import StoreUnavailable


class Hearing:
    def __init__(self, partner: Partner, committer: Committer, status: Status):
        self.partner, self.committer, self.status = partner, committer, status
        self.unreachable: str | None = None  # why the partner cannot be heard now (the runtime says)
        self._early: dict[int, dict] = {}  # events that came before the one due, by seq

    def hear(self, event: object) -> bool:
        """Apply `event` and any it unblocks; whether any was heard."""
        if not isinstance(event, dict) or event.get("uid") != self.partner.uid or type(event.get("seq")) is not int:
            return False
        if event["seq"] > self._heard():
            self._early[event["seq"]] = event
        heard = False
        while (event := self._early.pop(self._heard() + 1, None)) is not None:
            effects, ending = self.partner.hear(self.committer.live, event)
            try:
                self.status.last = self.committer.commit(effects) or self.status.last
            except StoreUnavailable as exc:  # not heard: it comes again, as the partner sees we lack it
                self.status.notice = Notice("Not recorded", f"{exc}. Table {self.partner.table}'s move waits")
                break
            heard = True
            if ending is not None and self.status.mode != Mode.OVER:
                known = ending[0] in {t.value for t in Termination}
                self.committer.end(Termination(ending[0]) if known else Termination.ABANDONED, ending[1])
                self.status.over(f"{'Resigned' if ending[0] == Termination.RESIGNED else 'Abandoned'} "
                                 f"at table {self.partner.table}")
        return heard

    def stands(self) -> tuple:
        """What the tray is judged against of the partner: the moves, the partner's moves still to
        lay here, the mode (hearing back a move made here changes none of it)."""
        p = self.committer.live
        return [str(m) for m in p.game.moves], [str(m) for m in self.partner.plan(p)], self.status.mode

    def waiting(self, names: Sequence[str]) -> str | None:
        """Whom the table waits for at the partner table ("CAT at table B"), while the partner's
        move is next and nothing of it has been heard."""
        p, partner = self.committer.live, self.partner
        if self.status.mode != Mode.PLAY or not partner.to_move(p.game) or partner.plan(p):
            return None
        return partner.waited(p.game, names)

    def _heard(self) -> int:
        heard = self.committer.live.heard
        return heard.seq if heard is not None else 0
