"""Tiles, domino sets and the `3-5` notation.

Tiles are interned: `Tile(5, 3) is Tile(3, 5)`, so identity and equality agree and
tiles are cheap dictionary keys. A tile's identity is its unordered pair of ends;
where a game cares which end faces where, it keeps that orientation itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from dominotable.rules.errors import DuplicateTile, InvalidNotation

MAX_PIP = 12
_TOKEN = re.compile(r"^\[?\s*(\d{1,2})\s*[-:|]\s*(\d{1,2})\s*\]?$")


class Tile:
    __slots__ = ("a", "b", "id", "suits", "pips", "is_double")
    _interned: dict[tuple[int, int], Tile] = {}

    def __new__(cls, a: int, b: int) -> Tile:
        key = (a, b) if a <= b else (b, a)
        tile = cls._interned.get(key)
        if tile is None:
            if not (0 <= key[0] and key[1] <= MAX_PIP):
                raise InvalidNotation(f"tile {a}-{b}: pips must be 0 to {MAX_PIP}")
            tile = super().__new__(cls)
            tile.a, tile.b = key
            tile.id = key[1] * (key[1] + 1) // 2 + key[0]
            tile.suits = (1 << key[0]) | (1 << key[1])
            tile.pips = key[0] + key[1]
            tile.is_double = key[0] == key[1]
            cls._interned[key] = tile
        return tile

    def __getnewargs__(self):
        return (self.a, self.b)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def has(self, pip: int) -> bool:
        return pip == self.a or pip == self.b

    def other(self, pip: int) -> int:
        """The end opposite `pip` (for a double, `pip` itself)."""
        if pip == self.a:
            return self.b
        if pip == self.b:
            return self.a
        raise ValueError(f"{self} has no {pip}")

    def __str__(self) -> str:
        return f"{self.a}-{self.b}"

    def __repr__(self) -> str:
        return f"Tile({self.a}, {self.b})"

    def __lt__(self, other: Tile) -> bool:
        return self.id < other.id


class DominoSet:
    """A double-N set: every pair 0..N, N*(N+1)/2 + N + 1 tiles."""

    NAMES = {6: "double-six", 9: "double-nine", 12: "double-twelve"}

    def __init__(self, top: int):
        if top not in self.NAMES:
            raise InvalidNotation(f"no double-{top} set; sets are {', '.join(self.NAMES.values())}")
        self.top = top
        self.name = self.NAMES[top]
        self.tiles: tuple[Tile, ...] = tuple(Tile(a, b) for b in range(top + 1) for a in range(b + 1))
        self._members = frozenset(self.tiles)

    @classmethod
    def named(cls, name: str | int) -> DominoSet:
        if isinstance(name, int) or str(name).isdigit():
            return cls(int(name))
        for top, known in cls.NAMES.items():
            if name == known:
                return cls(top)
        raise InvalidNotation(f"unknown set {name!r}; sets are {', '.join(cls.NAMES.values())}")

    def __len__(self) -> int:
        return len(self.tiles)

    def __contains__(self, tile: Tile) -> bool:
        return tile in self._members

    def __iter__(self):
        return iter(self.tiles)

    def __eq__(self, other) -> bool:
        return isinstance(other, DominoSet) and other.top == self.top

    def __hash__(self) -> int:
        return self.top

    def __repr__(self) -> str:
        return f"DominoSet({self.top})"

    @property
    def doubles(self) -> tuple[Tile, ...]:
        return tuple(t for t in self.tiles if t.is_double)

    def parse(self, token: str) -> Tile:
        """Parse `3-5` or `[3-5]` (also `3:5`), checking the tile is in this set."""
        token = token.strip()
        m = _TOKEN.match(token)
        if not m or token.startswith("[") != token.endswith("]"):
            raise InvalidNotation(f"{token!r} is not a tile; write tiles like 3-5")
        a, b = int(m.group(1)), int(m.group(2))
        if a > self.top or b > self.top:
            raise InvalidNotation(f"tile {a}-{b} is not in the {self.name} set")
        return Tile(a, b)

    def parse_many(self, text: str | Iterable[str], unique: bool = True) -> list[Tile]:
        """Parse a whitespace or comma separated list of tiles (or an iterable of tokens)."""
        tokens = re.findall(r"\[[^\]]*\]|[^\s,\[\]]+", text) if isinstance(text, str) else list(text)
        tiles = [self.parse(tok) for tok in tokens]
        if unique:
            seen: set[Tile] = set()
            for tile in tiles:
                if tile in seen:
                    raise DuplicateTile(f"tile {tile} appears twice")
                seen.add(tile)
        return tiles


DOUBLE_SIX = DominoSet(6)


def fmt(tiles: Iterable[Tile]) -> str:
    return " ".join(str(t) for t in tiles)
