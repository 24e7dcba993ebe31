"""What makes a game playable at the table: its spec, one frozen value per game naming every part
the table needs (python-chess's `VARIANTS`, made of types). A game is its own files (engine,
reader, hands, kernel, rule card) plus one spec registered in catalog.py; nothing else in the
table names a game or asks which game it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from dominotable.reading.reader import Reader
from dominotable.rules.game import Game
from dominotable.rules.options import Options
from dominotable.rules.playout import Playout
from dominotable.rules.tiles import Tile
from dominotable.sim.bots.search import searcher
from dominotable.sim.bots.shared import SHARED, Strategy
from dominotable.sim.bots.turn import decide
from dominotable.sim.hands.base import Hands
from dominotable.tray.geometry import Geometry

StrategyFactory = Callable[..., Strategy]


@dataclass(frozen=True)
class Hint:
    text: str
    take: tuple[Tile, ...] = ()  # the tiles to take, in order (a capture plan)


# A game's own hint for the player to move (`hand`: that player's tiles, when the table knows
# them), or None for the bots' choice.
HintProvider = Callable[[Game, Sequence[Tile] | None, int, "GameSpec"], Hint | None]


def no_hint_of_its_own(game: Game, hand: Sequence[Tile] | None, seed: int, spec: GameSpec) -> Hint | None:
    return None


@dataclass(frozen=True)
class GameSpec:
    engine: type[Game]
    reader: type[Reader]  # how the tray shows it
    hands: type[Hands]  # how a bot's hands make a move on a tray
    card: str  # its rule card, in seeds/
    zones: tuple[str, ...]  # the tray's zones it uses (tray.toml)
    racks: str | None = None  # the tray's racks for the seats the table plays (none: no bot seats)
    strategies: Mapping[str, StrategyFactory] = field(default_factory=lambda: dict(SHARED))
    bot: str = "greedy"  # the strategy a bot seat plays
    playout: type[Playout] | None = None  # the fast kernel for search and benchmarks (rules/playout.py)
    observed: bool = True  # at the table, hands and boneyard are hidden (the engine's observed mode)
    lower_wins: bool = False  # the score counts against the player (tiles left)
    demo: Mapping[str, object] = field(default_factory=dict)  # options for a short demo match
    own_hint: HintProvider = no_hint_of_its_own

    @property
    def name(self) -> str:
        return self.engine.name

    @property
    def title(self) -> str:
        return self.engine.title

    @property
    def options(self) -> type[Options]:
        return self.engine.Options

    @property
    def bot_seats(self) -> bool:
        """Whether the table can play some of its seats (its tiles in racks on the tray)."""
        return self.racks is not None

    def new(self, players: int | None, options: Options | dict | None, seed: int, observed: bool = True) -> Game:
        return self.engine(players=players, options=options, seed=seed, observed=observed and self.observed)

    def reader_for(self, game: Game, geometry: Geometry) -> Reader:
        return self.reader(game, geometry)

    def hands_for(self, game: Game, geometry: Geometry) -> Hands:
        return self.hands(game, geometry)

    def cells(self, geometry: Geometry) -> frozenset[int]:
        """The cells the game uses on `geometry`: its zones, its racks, the scan pad."""
        return geometry.cells_of(self.zones, self.racks)

    def strategy(self, name: str | None = None) -> StrategyFactory:
        return self.strategies[name or self.bot]

    def hint(self, game: Game, hand: Sequence[Tile] | None = None, seed: int = 0) -> Hint:
        """The hint for the player to move; `hand`: that player's tiles, when the table knows them."""
        seat = game.current_player
        if seat is None:
            return Hint("the match is over")
        if game.awaiting():
            return Hint("no hint while the table waits for the tiles to be shown")
        own = self.own_hint(game.copy(), hand, seed, self)
        if own is not None:
            return own
        if hand is None and game.observed:
            return Hint("the table cannot see your tiles, so it has no hint")
        turn = decide(game, seat, hand if hand is not None else game.hands()[seat], seed, self.strategy())
        return Hint(" then ".join(str(m) for m in turn) or "pass")


def with_search(kernel: type[Playout], own: Mapping[str, StrategyFactory] | None = None) -> dict:
    """The shared strategies, a game's own, and `search` over its playout kernel."""
    return {**SHARED, **(own or {}), "search": searcher(kernel)}
