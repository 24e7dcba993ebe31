"""Written positions: a game set up mid-play from text, for tests and puzzles.

A position is lines of `name: value`; a name alone on its line takes the indented lines
under it as its value (a Broadway tableau diagram), and a bare name is a flag:

    row: 1-6 0-6 0-0 2-4
    P1: 1-4 3-3
    P2: 5-5 6-6
    turn: P1

Each game reads the names it knows (`Game.from_position`, the game's `_state_from`) and
refuses, with a `BadPosition` naming the problem, any position its rules could not reach
that it can tell: an unknown name, a tile not in the set or named twice, a hand too big,
a player to move who has nothing to play.
"""

from __future__ import annotations

import textwrap

from dominotable.rules.errors import DominoError
from dominotable.rules.tiles import DominoSet, Tile


class BadPosition(DominoError):
    """A written position that cannot be read, or that no play could reach."""


class Position:
    """The named values of a written position, read once each (`take`), so that what is left
    at the end (`done`) are names the game does not know."""

    def __init__(self, text: str, dset: DominoSet):
        self.dset = dset
        self.values: dict[str, str] = {}
        self.seen: dict[Tile, str] = {}  # each tile named so far, and where
        lines = textwrap.dedent(text).strip("\n").split("\n")
        block = None  # the name taking the indented lines under it
        for line in lines:
            if block is not None and (line[:1].isspace() or not line):  # a value under its name
                self.values[block] += "\n" + line
                continue
            if not line.strip():
                continue
            key, colon, value = line.partition(":")
            name = key.strip().lower()
            if not name or " " in name:
                raise BadPosition(f"position line {line.strip()!r}: write `name: value`")
            if name in self.values:
                raise BadPosition(f"position names {name} twice")
            self.values[name] = value.strip()
            block = name if not value.strip() else None

    def take(self, name: str, default: str | None = None) -> str | None:
        return self.values.pop(name, default)

    def flag(self, name: str) -> bool:
        value = self.values.pop(name, None)
        if value:
            raise BadPosition(f"{name} is a flag and takes no value, not {value!r}")
        return value is not None

    def tiles(self, name: str, where: str | None = None, default: str = "") -> tuple[Tile, ...]:
        """The tiles named by `name`, each recorded as lying at `where` (by default the name)."""
        text = self.take(name, default)
        try:
            tiles = tuple(self.dset.parse_many(text))
        except DominoError as exc:
            raise BadPosition(f"{name}: {exc}") from None
        for tile in tiles:
            self.place(tile, where or name)
        return tiles

    def place(self, tile: Tile, where: str) -> None:
        if tile in self.seen:
            raise BadPosition(f"{tile} is both {self.seen[tile]} and {where}")
        self.seen[tile] = where

    def number(self, name: str, default: int) -> int:
        text = self.take(name)
        if text is None:
            return default
        try:
            return int(text)
        except ValueError:
            raise BadPosition(f"{name}: {text!r} is not a number") from None

    def numbers(self, name: str, count: int, default: tuple[int, ...]) -> tuple[int, ...]:
        text = self.take(name)
        if text is None:
            return default
        try:
            values = tuple(int(v) for v in text.replace(",", " ").split())
        except ValueError:
            raise BadPosition(f"{name}: {text!r} is not {count} numbers") from None
        if len(values) != count:
            raise BadPosition(f"{name}: {text!r} is not {count} numbers")
        return values

    def unseen(self) -> list[Tile]:
        """The tiles of the set the position has not named, in set order."""
        return [t for t in self.dset.tiles if t not in self.seen]

    def done(self, known: str) -> None:
        """Refuse the names nobody took; `known` lists the names the game reads."""
        if self.values:
            name = next(iter(self.values))
            raise BadPosition(f"unknown position line {name!r}; this game reads {known}")
