"""Opening a match for the table: a new one, recorded before its first move, one another table
started with seats here (`join`), or one resumed from the store (its engine replayed, what its
seats hold and what it heard from a partner table as last committed), each as a Referee."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from dominotable.games import catalog
from dominotable.games.spec import GameSpec
from dominotable.match.committer import Committer
from dominotable.match.judge import Judge
from dominotable.match.position import Heard, Hold, Position
from dominotable.match.referee import Referee, Table
from dominotable.match.remote import Partner
from dominotable.match.replay import replay
from dominotable.match.seating import Seating
from dominotable.match.seats import SeatKind, TableSeats
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game
from dominotable.store.storage import Store
from dominotable.tray.geometry import Geometry


def start(store: Store, game: Game, names: Sequence[str], geometry: Geometry, kinds: Sequence[SeatKind] = (),
          table: Table = Table(), demo: bool = False, strategies: Mapping[int, str] | None = None,
          partner: str | None = None) -> Referee:
    """A new match of `game`, recorded in `store` (`demo`: as a bots' demo); `kinds`: each seat's
    (default: people); `strategies`: the strategy of a bot seat, if not the game's own;
    `partner`: the table where the REMOTE seats sit."""
    spec = catalog.spec(game)
    kinds = tuple(kinds) or (SeatKind.HUMAN,) * len(names)
    bots = {seat: (strategies or {}).get(seat) or spec.bot for seat, kind in enumerate(kinds) if kind == SeatKind.BOT}
    for seat, strategy in bots.items():
        if strategy not in spec.strategies:
            raise DominoError(f"{game.title}'s bots play {', '.join(spec.strategies)}, not {strategy!r}")
    remote = [seat for seat, kind in enumerate(kinds) if kind == SeatKind.REMOTE]
    shared = None
    if remote:
        if not partner:
            raise DominoError("a seat at another table needs that table: [venue] partner, or --partner")
        if not spec.remote:
            raise DominoError(f"{game.title} is not played across two tables: only "
                              + ", ".join(s.title for s in catalog.GAMES if s.remote))
        shared = Partner(partner, True, frozenset(remote), secrets.token_hex(8))
    if spec.bounds is not None and not game.moves:  # the new match is bound to this tray, as recorded
        racks = geometry.racks(spec.racks) if spec.racks else ()
        cells = frozenset(c for seat in bots if seat < len(racks) for c in racks[seat].cells)
        game.options = replace(game.options, **spec.bounds(geometry, cells))
    match_id = store.start_match(game, list(names), demo, bots, remote,
                                 (shared.table, True, shared.uid) if shared else None)
    holds = {seat: Hold() for seat in sorted([*bots, *remote])}
    return _referee(store, spec, game, Seating(match_id, tuple(names), kinds, bots), geometry, table, holds,
                    shared, Heard(shared.uid, 0, ()) if shared else None)


def join(store: Store, invitation: dict[str, Any], geometry: Geometry, table: Table = Table()) -> Referee:
    """The match another table started with seats here, from its `started` event (venue/link.py
    brings it): the same game, seed, options and names, under the same uid; the seats it named
    as remote are the people's here, and every other seat is remote here."""
    try:
        host, uid, seats = str(invitation["table"]), str(invitation["uid"]), set(invitation["remote"])
        names = [str(n) for n in invitation["names"]]
        game = catalog.load({"game": invitation["game"], "players": invitation["players"], "seed": invitation["seed"],
                             "options": invitation["options"], "observed": invitation.get("observed", True),
                             "moves": []})
    except (KeyError, TypeError, ValueError) as exc:
        raise DominoError(f"an invitation this table cannot read: {exc}") from None
    kinds = tuple(SeatKind.HUMAN if seat in seats else SeatKind.REMOTE for seat in range(len(names)))
    remote = [seat for seat, kind in enumerate(kinds) if kind == SeatKind.REMOTE]
    match_id = store.start_match(game, names, False, (), remote, (host, False, uid))
    partner = Partner(host, False, frozenset(remote), uid)
    return _referee(store, catalog.spec(game), game, Seating(match_id, tuple(names), kinds), geometry, table,
                    {seat: Hold() for seat in remote}, partner, Heard(uid, 1, ()))


def resume(store: Store, match_id: int, geometry: Geometry, table: Table = Table()) -> Referee:
    """A stored match rebuilt by replay; it waits until the tray shows its position."""
    record = store.match(match_id)
    game = replay(record)
    kinds = tuple(SeatKind.BOT if seat in record.bots else SeatKind.REMOTE if seat in record.remote
                  else SeatKind.HUMAN for seat in range(len(record.names)))
    holds = {seat: Hold() for seat in record.remote}
    shared, heard = None, None
    if record.remote:
        told = store.partnership(match_id)
        if told is None:
            raise DominoError(f"match {match_id} has seats at another table but does not say which table")
        shared = Partner(told.partner, told.host, frozenset(record.remote), told.uid)
        heard = Heard(told.uid, told.seq, told.moves, told.ended)
    for seat in record.bots:
        if str(seat) in record.holds:
            holds[seat] = Hold.from_dict(seat, record.holds[str(seat)], game)
        else:  # a database from before the holds: the racks as last read
            holds[seat] = Hold({slot: game.dset.parse(t) for slot, t in record.racks.get(seat, {}).items()})
    spec = catalog.spec(game)
    played = {seat: record.strategies.get(seat, spec.bot) for seat in record.bots}
    played = {seat: s if s in spec.strategies else spec.bot for seat, s in played.items()}  # one since renamed
    seating = Seating(match_id, tuple(record.names), kinds, played, resumed=True)
    return _referee(store, spec, game, seating, geometry, table, holds, shared, heard)


def _referee(store: Store, spec: GameSpec, game: Game, seating: Seating, geometry: Geometry, table: Table,
             holds: dict[int, Hold], partner: Partner | None = None, heard: Heard | None = None) -> Referee:
    def seat_name(seat: int | None) -> str:
        return seating.seat_name(game, seat)

    seats = TableSeats(geometry.racks(spec.racks) if spec.racks else (), seating.kinds, seating.names, game.seed,
                       spec.hands_for(game, geometry),
                       {seat: spec.strategy(name) for seat, name in seating.strategies.items()}, partner=partner)
    judge = Judge(spec.reader_for(game, geometry, seating.side_names(game)), seats, seat_name, spec.cells(geometry))
    names = [seat_name(seat) for seat in range(game.players)]

    def say(before: Game, moves) -> str:
        return spec.say(before, moves, names)

    committer = Committer(store, seating.match_id, Position(game, holds, heard), seat_name, say)
    return Referee(spec, seating, judge, committer, table)
