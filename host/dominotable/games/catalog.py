"""Every game the table plays, in one list: its engine (the rules), its reader (how the tray
shows it), its hands (how a bot makes a move on a tray), its bots' strategies and its rule card. Like python-chess's `VARIANTS`: the one place
a game is named; adding a game is adding its files and one line here."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dominotable.reading.broadway import BroadwayReader
from dominotable.reading.castle_rock import CastleRockReader, CastleRockSolitaireReader
from dominotable.reading.doubles_boneyard import DoublesBoneyardReader
from dominotable.reading.reader import Reader
from dominotable.reading.up_down_stop import UpDownStopReader
from dominotable.rules.errors import DominoError, UnknownGame
from dominotable.rules.game import Game
from dominotable.rules.games.broadway.engine import Broadway
from dominotable.rules.games.broadway.playout import BroadwayPlayout
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.rules.games.castle_rock.playout import CastleRockPlayout, SolitairePlayout
from dominotable.rules.games.castle_rock.solitaire import CastleRockSolitaire
from dominotable.rules.games.doubles_boneyard.engine import DoublesInTheBoneyard
from dominotable.rules.games.doubles_boneyard.playout import DoublesPlayout
from dominotable.rules.games.up_down_stop.engine import UpDownStop
from dominotable.rules.games.up_down_stop.playout import UpDownStopPlayout
from dominotable.rules.playout import Playout
from dominotable.sim.bots.castle_rock import SOLITAIRE
from dominotable.sim.bots.search import searcher
from dominotable.sim.bots.shared import SHARED, Strategy
from dominotable.sim.bots.up_down_stop import UP_DOWN_STOP
from dominotable.sim.hands.base import Hands
from dominotable.sim.hands.broadway import BroadwayHands
from dominotable.sim.hands.castle_rock import CastleRockHands, CastleRockSolitaireHands
from dominotable.sim.hands.doubles_boneyard import DoublesBoneyardHands
from dominotable.sim.hands.up_down_stop import UpDownStopHands
from dominotable.tray.geometry import Geometry


@dataclass(frozen=True)
class GameSpec:
    engine: type[Game]
    reader: type[Reader]
    hands: type[Hands]
    strategies: Mapping[str, Callable[..., Strategy]]
    card: str  # the rule card, in seeds/
    playout: type[Playout] | None = None  # the fast kernel for search and benchmarks (rules/playout.py)

    @property
    def name(self) -> str:
        return self.engine.name


def with_search(kernel: type[Playout], own: Mapping[str, Callable[..., Strategy]] | None = None) -> dict:
    """The shared strategies, a game's own, and `search` over its playout kernel."""
    return {**SHARED, **(own or {}), "search": searcher(kernel)}


GAMES: tuple[GameSpec, ...] = (  # in the order the setup menu lists them
    GameSpec(Broadway, BroadwayReader, BroadwayHands, with_search(BroadwayPlayout), "broadway.md", BroadwayPlayout),
    GameSpec(CastleRock, CastleRockReader, CastleRockHands, with_search(CastleRockPlayout), "castle-rock.md",
             CastleRockPlayout),
    GameSpec(CastleRockSolitaire, CastleRockSolitaireReader, CastleRockSolitaireHands,
             with_search(SolitairePlayout, SOLITAIRE), "castle-rock-solitaire.md", SolitairePlayout),
    GameSpec(DoublesInTheBoneyard, DoublesBoneyardReader, DoublesBoneyardHands, with_search(DoublesPlayout),
             "doubles-in-the-boneyard.md", DoublesPlayout),
    GameSpec(UpDownStop, UpDownStopReader, UpDownStopHands, with_search(UpDownStopPlayout, UP_DOWN_STOP),
             "up-down-stop.md", UpDownStopPlayout),
)
_BY_NAME = {spec.name: spec for spec in GAMES}


def names() -> list[str]:
    return sorted(_BY_NAME)


def spec(game: str | Game | type[Game]) -> GameSpec:
    """The spec of a game named, or of an engine or its class."""
    name = game if isinstance(game, str) else game.name
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r}; games are {', '.join(names())}") from None


def engine(name: str) -> type[Game]:
    return spec(name).engine


def reader_for(game: Game, geometry: Geometry) -> Reader:
    return spec(game).reader(game, geometry)


def hands_for(game: Game, geometry: Geometry) -> Hands:
    return spec(game).hands(game, geometry)


def load(data: dict[str, Any]) -> Game:
    """A saved game (`Game.to_dict()`), whichever game it is."""
    if not isinstance(data, dict) or not isinstance(data.get("game"), str):
        raise DominoError("not a saved game: missing or bad 'game'")
    return engine(data["game"]).from_dict(data)
