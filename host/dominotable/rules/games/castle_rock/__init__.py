"""Castle Rock and Castle Rock Solitaire: the row, captures and their exact analysis."""

from dominotable.rules.games.castle_rock import engine, solitaire  # noqa: F401
