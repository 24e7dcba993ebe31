"""Broadway: the engine and its grid of half-tile cells."""

from dominotable.rules.games.broadway import engine  # noqa: F401
