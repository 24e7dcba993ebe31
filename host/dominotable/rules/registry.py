"""Games by name."""

from __future__ import annotations

from dominotable.rules.errors import UnknownGame

GAMES: dict[str, type] = {}


def register(cls):
    GAMES[cls.name] = cls
    return cls


def get_game(name: str):
    from dominotable.rules import games  # noqa: F401  (importing the package registers every game)

    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r}; games are {', '.join(sorted(GAMES))}") from None


def game_names() -> list[str]:
    from dominotable.rules import games  # noqa: F401

    return sorted(GAMES)
