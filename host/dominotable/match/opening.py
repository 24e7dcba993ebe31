"""Opening a match for the table: a new one, recorded before its first move, or one resumed from
the store (its engine replayed, what its seats hold as last committed), each as a Referee."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dominotable.games import catalog
from dominotable.games.spec import GameSpec
from dominotable.match.committer import Committer
from dominotable.match.judge import Judge
from dominotable.match.position import Hold, Position
from dominotable.match.referee import Referee, Table
from dominotable.match.seating import Seating
from dominotable.match.seats import SeatKind, TableSeats
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game
from dominotable.store.storage import Store, replay
from dominotable.tray.geometry import Geometry


def start(store: Store, game: Game, names: Sequence[str], geometry: Geometry, kinds: Sequence[SeatKind] = (),
          table: Table = Table(), demo: bool = False, strategies: Mapping[int, str] | None = None) -> Referee:
    """A new match of `game`, recorded in `store` (`demo`: as a bots' demo); `kinds`: each seat's
    (default: people); `strategies`: the strategy of a seat the table plays, if not the game's own."""
    spec = catalog.spec(game)
    kinds = tuple(kinds) or (SeatKind.HUMAN,) * len(names)
    played = {seat: (strategies or {}).get(seat) or spec.bot for seat, kind in enumerate(kinds)
              if kind != SeatKind.HUMAN}
    for seat, strategy in played.items():
        if strategy not in spec.strategies:
            raise DominoError(f"{game.title}'s bots play {', '.join(spec.strategies)}, not {strategy!r}")
    match_id = store.start_match(game, list(names), demo, played)
    holds = {seat: Hold() for seat in played}
    return _referee(store, spec, game, Seating(match_id, tuple(names), kinds, played), geometry, table, holds)


def resume(store: Store, match_id: int, geometry: Geometry, table: Table = Table()) -> Referee:
    """A stored match rebuilt by replay; it waits until the tray shows its position."""
    record = store.match(match_id)
    game = replay(record)
    kinds = tuple(SeatKind.BOT if seat in record.bots else SeatKind.HUMAN for seat in range(len(record.names)))
    holds = {}
    for seat in record.bots:
        if str(seat) in record.holds:
            holds[seat] = Hold.from_dict(seat, record.holds[str(seat)], game)
        else:  # a database from before the holds: the racks as last read
            holds[seat] = Hold({slot: game.dset.parse(t) for slot, t in record.racks.get(seat, {}).items()})
    spec = catalog.spec(game)
    played = {seat: record.strategies.get(seat, spec.bot) for seat in record.bots}
    played = {seat: s if s in spec.strategies else spec.bot for seat, s in played.items()}  # one since renamed
    seating = Seating(match_id, tuple(record.names), kinds, played, resumed=True)
    return _referee(store, spec, game, seating, geometry, table, holds)


def _referee(store: Store, spec: GameSpec, game: Game, seating: Seating, geometry: Geometry, table: Table,
             holds: dict[int, Hold]) -> Referee:
    def seat_name(seat: int | None) -> str:
        return seating.seat_name(game, seat)

    seats = None
    if holds:
        seats = TableSeats(geometry.racks(spec.racks), seating.kinds, seating.names, game.seed,
                           spec.hands_for(game, geometry),
                           {seat: spec.strategy(name) for seat, name in seating.strategies.items()})
    judge = Judge(spec.reader_for(game, geometry), seats, seat_name, spec.cells(geometry))
    names = [seat_name(seat) for seat in range(game.players)]

    def say(before: Game, moves) -> str:
        return spec.say(before, moves, names)

    committer = Committer(store, seating.match_id, Position(game, holds), seat_name, say)
    return Referee(spec, seating, judge, committer, table)
