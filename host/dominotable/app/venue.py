"""The table's venue link wired to the runtime: started when a broker is configured (`--broker`
or `[venue] broker`), told of every frame the table shows (its live state, and a nudge to look
at the outbox), and stopped with the table after a short wait for the venue to store what is
left (what is not stays in the outbox for the next start). With a partner table (`--partner` or
`[venue] partner`), what the link hears of it (its events, its invitations) is sent to the
runtime's loop as typed messages (app/partner.py), since the loop alone touches the match."""

from __future__ import annotations

import sys
from typing import Any

from dominotable.app.config import VenueConfig
from dominotable.app.partner import Invitation, PartnerEvent
from dominotable.venue.broker import Broker, BrokerError, table_id
from dominotable.venue.link import VenueLink


def start_link(runtime, cfg: VenueConfig, broker: str | None = None, table: str | None = None,
               partner: str | None = None) -> VenueLink | None:
    """The link of `runtime`'s table to its venue, started; None without a broker."""
    url = broker or cfg.broker
    partner = partner or cfg.partner
    if not url:
        if table or partner:
            raise BrokerError(f"{'--table names this table' if table else 'a partner table is'} at a venue: give "
                              "the venue's broker too (--broker mqtt://HOST:PORT or [venue] broker)")
        return None
    address = Broker.parse(url, cfg.username, cfg.password, cfg.ca)
    name = table or cfg.table
    if not name:
        raise BrokerError(f"a table at the venue on {address} needs its id: --table ID or [venue] table")
    if partner and table_id(partner) == name:
        raise BrokerError(f"table {name} cannot be its own partner: name another table (--partner)")
    told = runtime.store.publish()  # from now on every change is told; the matches from before, once
    if told:
        print(f"venue: table {name} tells the venue the {told} match{'es' * (told != 1)} it has not heard of yet",
              flush=True)
    link = VenueLink(runtime.store.path, table_id(name), address)
    runtime.venue, runtime.partner.table = link, partner or ""  # its state on the OLED and the page
    runtime.store.outbox.told.append(link.wake)  # each commit's events go at once, not after the frame
    link.on_partner = lambda source, event: runtime.send(PartnerEvent(source, event))
    link.on_invite = lambda event: runtime.send(Invitation(event))
    link.start()
    def observe(screen) -> None:
        link.show(live_state(screen))
    observe.part = "the venue link"  # what the supervisor names if it fails
    runtime.observers.append(observe)
    print(f"venue: table {name} publishes to {address} (events wait in the database while it is away)", flush=True)
    if partner:
        print(f"venue: table {partner} is this table's partner: its people may take seats here, and this table "
              f"joins the matches it starts", flush=True)
    return link


def stop_link(link: VenueLink | None, drain: float) -> None:
    """Wait up to `drain` seconds for the venue to store every event, then stop the link."""
    if link is None:
        return
    if not link.drain(drain):
        pending = link.state.pending
        print(f"venue: {pending} event{'s' * (pending != 1)} not yet stored at the venue wait in the "
              f"table's database; they go the next time this table runs with its broker", file=sys.stderr, flush=True)
    link.stop()


def live_state(screen) -> dict[str, Any]:
    """What a venue sees of a table: its screen as the page gets it (`Screen.to_dict`), less what
    only a table draws (the menu, the cells to mark); with the address its page is followed at."""
    data = screen.to_dict()
    return {key: data[key] for key in ("kind", "title", "text", "turn", "scores", "target", "last_text", "problem",
                                       "warning", "faults", "game", "venue", "link")}
