"""Players' ratings per game, with openskill's Plackett-Luce model: each finished match (not an
abandoned one, nor a bots' demo or a match set aside as damaged) rates its sides in the order of the result, winners first. A side is a team of
the people playing for it, so Castle Rock and Doubles in the Boneyard rate free-for-all and
Broadway rates two-player partnerships; a match with fewer than two sides of people (the solitaire,
a person against the table's bots) counts matches and wins but changes no rating. The table's bots
are never rated: they are listed apart, by name and strategy, with their matches and wins. The rating shown is openskill's ordinal (mu - 3 sigma): it starts at 0
and rises as the model grows sure that a player is strong.

The scoreboard page and `dominotable leaderboard` both read this."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from openskill.models import PlackettLuce

from dominotable.games import catalog
from dominotable.rules.outcome import Termination
from dominotable.store.records import MatchRecord


@dataclass
class Rated:
    name: str
    mu: float
    sigma: float
    matches: int = 0
    wins: int = 0
    strategy: str = ""  # a bot's (a bot is never rated)

    @property
    def rating(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0


@dataclass
class GameBoard:
    game: str  # the engine's name
    title: str
    players: list[Rated]
    bots: list[Rated] = field(default_factory=list)  # by matches, then wins


def rate(records: Iterable[MatchRecord]) -> list[GameBoard]:
    """The leaderboard of every game played, in the catalog's order; players by rating, then wins."""
    model = PlackettLuce()
    tables: dict[str, dict[str, Rated]] = {}
    machines: dict[str, dict[tuple[str, str], Rated]] = {}
    for record in sorted(records, key=lambda r: r.id):
        result = record.result
        if record.finished is None or not result or result.get("ending") == Termination.ABANDONED or record.demo or record.damaged:
            continue  # unfinished, abandoned, a bots' demo, or set aside as damaged
        table = tables.setdefault(record.game, {})
        bots = machines.setdefault(record.game, {})
        sides: dict[int, list[Rated]] = {}
        for seat, (name, side) in enumerate(zip(record.names, record.sides)):
            if seat in record.bots:
                strategy = record.strategies.get(seat, "")
                bot = bots.setdefault((name.casefold(), strategy), Rated(name, 0.0, 0.0, strategy=strategy))
                bot.matches += 1
                bot.wins += side in result["winners"]
                continue
            key = name.casefold()
            if key not in table:
                fresh = model.rating()
                table[key] = Rated(name, fresh.mu, fresh.sigma)
            player = table[key]
            player.matches += 1
            player.wins += side in result["winners"]
            sides.setdefault(side, []).append(player)
        if len(sides) < 2:
            continue
        order = sorted(sides)
        teams = [[model.rating(mu=p.mu, sigma=p.sigma) for p in sides[side]] for side in order]
        ranks = [0 if side in result["winners"] else 1 for side in order]
        for side, team in zip(order, model.rate(teams, ranks=ranks)):
            for player, new in zip(sides[side], team):
                player.mu, player.sigma = new.mu, new.sigma
    boards = []
    for spec in catalog.GAMES:
        table, bots = tables.get(spec.name, {}), machines.get(spec.name, {})
        if table or bots:
            players = sorted(table.values(), key=lambda p: (-p.rating, -p.wins, p.name.casefold()))
            listed = sorted(bots.values(), key=lambda b: (-b.matches, -b.wins, b.name.casefold(), b.strategy))
            boards.append(GameBoard(spec.name, spec.engine.title, players, listed))
    return boards
