"""Broadway's seats and the axis each lays its tiles along (BW-1.2, BW-3.2)."""

from __future__ import annotations

from dominotable.rules.errors import InvalidNotation
from dominotable.rules.games.broadway.grid import Cell

SEATS = ("North", "East", "South", "West")


def axis_of(seat: int) -> Cell:
    """The step between a tile's halves for a seat: east-west for N/S, north-south for E/W (BW-3.2)."""
    return (1, 0) if seat % 2 == 0 else (0, 1)


def axis_name(axis: Cell) -> str:
    return "east-west" if axis == (1, 0) else "north-south"


def parse_seat(token: str) -> int:
    word = token.strip().lower()
    for seat, name in enumerate(SEATS):
        if word in (name.lower(), name[0].lower()):
            return seat
    raise InvalidNotation(f"{token!r} is not a seat; seats are N, E, S, W")
