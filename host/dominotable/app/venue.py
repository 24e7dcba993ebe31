"""The table's venue link wired to the runtime: started when a broker is configured (`--broker`
or `[venue] broker`), told of every frame the table shows (its live state, and a nudge to look
at the outbox), and stopped with the table after a short wait for the venue to store what is
left (what is not stays in the outbox for the next start)."""

from __future__ import annotations

import sys
from typing import Any

from dominotable.app.config import VenueConfig
from dominotable.games import catalog
from dominotable.rules.errors import DominoError
from dominotable.venue.broker import Broker, BrokerError, table_id
from dominotable.venue.link import VenueLink


def start_link(runtime, cfg: VenueConfig, broker: str | None = None, table: str | None = None) -> VenueLink | None:
    """The link of `runtime`'s table to its venue, started; None without a broker."""
    url = broker or cfg.broker
    if not url:
        if table:
            raise BrokerError("--table names this table at a venue: give the venue's broker too "
                              "(--broker mqtt://HOST:PORT or [venue] broker)")
        return None
    address = Broker.parse(url, cfg.username, cfg.password, cfg.ca)
    name = table or cfg.table
    if not name:
        raise BrokerError(f"a table at the venue on {address} needs its id: --table ID or [venue] table")
    link = VenueLink(runtime.store.path, table_id(name), address).start()
    runtime.observers.append(_observer(runtime, link))
    print(f"venue: table {name} publishes to {address} (events wait in the database while it is away)", flush=True)
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


def _observer(runtime, link: VenueLink):
    games: dict[int, str | None] = {}
    last: dict[str, Any] = {}

    def observe(screen) -> None:
        nonlocal last
        match_id = runtime.match_id
        if match_id is not None and match_id not in games:
            try:
                games[match_id] = runtime.store.match(match_id).game
            except DominoError:
                games[match_id] = None
        last = live_state(screen, match_id, games.get(match_id), last)
        link.show(last)
    return observe


def live_state(screen, match_id: int | None, game: str | None, last: dict[str, Any]) -> dict[str, Any]:
    """The table's live state for the venue, from the screen model (None: the setup menu or a
    notice) and the match it belongs to; names and scores carry over from `last` while a prompt
    hides them. The one place that says what a venue sees of a table."""
    same = last.get("match") == match_id
    kind = str(screen.kind) if screen is not None else "setup"
    names = list(screen.names) if screen is not None and screen.names else last.get("names", []) if same else []
    scores = list(screen.points) if screen is not None and screen.names else last.get("scores", []) if same else []
    words = {"lost": "the tray is not answering", "menu": "in the menu", "setup": "setting up a match"}
    prompt = words.get(kind) or (": ".join(p for p in (screen.title, screen.text) if p) or None)
    return {"match": match_id, "game": game, "title": catalog.engine(game).title if game else None, "mode": kind,
            "names": names, "scores": scores, "target": screen.target if screen is not None else None,
            "current": screen.current if screen is not None and kind == "play" else None,
            "turn": screen.turn if screen is not None and kind == "play" else "", "prompt": prompt}
