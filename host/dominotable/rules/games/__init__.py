"""One package per game: its engine and the helpers only it uses."""

from dominotable.rules.games import (  # noqa: F401
    broadway,
    castle_rock,
    doubles_boneyard,
    up_down_stop,
)
