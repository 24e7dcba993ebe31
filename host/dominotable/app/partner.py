"""The partner table: another table at the venue whose people may take seats in this table's
matches, and whose matches with seats here this table joins (match/remote.py; app/venue.py
wires the venue link that carries both ways).

What the link hears of the partner reaches the runtime's loop as typed messages, since only the
loop touches the match: the partner's events (`PartnerEvent`) go to the match they belong to,
or, for a match over here, are counted as heard; its invitation to a match with seats here
(`Invitation`) waits until the table is free (the setup menu open, or a match over) and is
joined then. Whether the partner can be heard is the match's to say (`Hearing.unreachable`),
told from the venue link's state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dominotable.match import opening
from dominotable.match.referee import Referee, Table
from dominotable.rules.errors import DominoError
from dominotable.store import partners
from dominotable.store.storage import Store
from dominotable.tray.geometry import Geometry


@dataclass(frozen=True)
class PartnerEvent:
    """An event of the partner `table` (its outbox's, as the venue link heard it)."""

    table: str
    event: dict[str, Any]


@dataclass(frozen=True)
class Invitation:
    """The partner's match with seats at this table: its `started` event, with the uid."""

    match: dict[str, Any]


class Partner:
    def __init__(self, store: Store, table: str = ""):
        """`table`: the partner's id at the venue ("": this table has none)."""
        self.store = store
        self.table = table
        self.waiting: dict[str, Any] | None = None  # the invitation to join once the table is free

    def hear(self, referee: Referee | None, message: PartnerEvent) -> None:
        """An event of the partner: for the match on the table if it is that one's; else the end of
        one over here (its last events, heard after its final screen was put away)."""
        event = message.event
        partner = referee.partner if referee is not None else None
        if partner is not None and (partner.table, partner.uid) == (message.table, event.get("uid")):
            referee.hear(event)
        elif isinstance(event.get("uid"), str) and isinstance(event.get("seq"), int) and event.get("kind") in (
                "hand", "ended"):
            self.store.heard_late(event["uid"], event["seq"], event["kind"] == "ended")

    def invited(self, message: Invitation) -> None:
        """Keep the invitation to join once the table is free, if it is the partner's and new to
        this table (only the partner named in the configuration may seat people here)."""
        invitation = message.match
        if self.table and invitation.get("table") == self.table and partners.by_uid(
                self.store.db, str(invitation.get("uid"))) is None:
            self.waiting = invitation

    def join(self, geometry: Geometry, table: Table) -> Referee | None:
        """The waiting invitation's match, joined (None: none waits); DominoError naming the
        partner if it cannot be (the invitation is dropped either way)."""
        invitation, self.waiting = self.waiting, None
        if invitation is None:
            return None
        try:
            return opening.join(self.store, invitation, geometry, table)
        except DominoError as exc:
            raise DominoError(f"table {invitation.get('table')}'s match: {exc}") from None


def reach(referee: Referee, venue) -> bool:
    """Tell the match whether its partner can be heard (`venue`: the venue link, None without
    one); whether that changed."""
    hearing = referee.hearing
    if hearing is None:
        return False
    partner = hearing.partner
    why = venue.partner_state(partner.table, partner.uid) if venue is not None else "this table has no venue broker"
    changed, hearing.unreachable = why != hearing.unreachable, why
    return changed
