"""Every game the table plays, in one list of specs (spec.py), in the order the setup menu lists
them; `register` adds one (a game defined outside this package, such as a test's)."""

from __future__ import annotations

from typing import Any

from dominotable.games import broadway, castle_rock, doubles_boneyard, up_down_stop
from dominotable.games.spec import GameSpec
from dominotable.reading.reader import Reader
from dominotable.rules.errors import DominoError, UnknownGame
from dominotable.rules.game import Game
from dominotable.sim.hands.base import Hands
from dominotable.tray.geometry import Geometry

GAMES: list[GameSpec] = [broadway.SPEC, castle_rock.CASTLE_ROCK, castle_rock.SOLITAIRE_SPEC, doubles_boneyard.SPEC,
                         up_down_stop.SPEC]
_BY_NAME = {spec.name: spec for spec in GAMES}
DEMO = castle_rock.CASTLE_ROCK.name  # the game `demo` plays by default


def register(spec: GameSpec) -> None:
    """Make a game playable: listed last in the setup menu, found by name everywhere."""
    if spec.name in _BY_NAME:
        raise DominoError(f"a game named {spec.name!r} is already registered")
    GAMES.append(spec)
    _BY_NAME[spec.name] = spec


def unregister(name: str) -> None:
    GAMES.remove(_BY_NAME.pop(name))


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


def load(data: dict[str, Any]) -> Game:
    """A saved game (`Game.to_dict()`), whichever game it is."""
    if not isinstance(data, dict) or not isinstance(data.get("game"), str):
        raise DominoError("not a saved game: missing or bad 'game'")
    return engine(data["game"]).from_dict(data)


def reader_for(game: Game, geometry: Geometry) -> Reader:
    return spec(game).reader(game, geometry)


def hands_for(game: Game, geometry: Geometry) -> Hands:
    return spec(game).hands(game, geometry)
