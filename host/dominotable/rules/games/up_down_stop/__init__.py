"""Up-Down-Stop."""

from dominotable.rules.games.up_down_stop import engine  # noqa: F401
