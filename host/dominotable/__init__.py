"""dominotable: the software of an instrumented domino bar table."""

from dominotable.rules.errors import (
    BadOption,
    DominoError,
    DuplicateTile,
    IllegalMove,
    InvalidNotation,
    UnknownGame,
)
from dominotable.rules.game import Game, Move
from dominotable.rules.registry import game_names, get_game
from dominotable.rules.tiles import DOUBLE_SIX, DominoSet, Tile

__all__ = [
    "BadOption", "DominoError", "DuplicateTile", "IllegalMove", "InvalidNotation", "UnknownGame",
    "Game", "Move", "game_names", "get_game", "DOUBLE_SIX", "DominoSet", "Tile",
]
__version__ = "0.1.0"
