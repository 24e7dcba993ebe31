"""What the page may ask of the table: the narrow interface the app implements (app/web.py) and the
page alone sees, instead of the runtime and its hardware. Everything here may be called from the
server's threads; what changes the match is queued for the table's own loop."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PIL import Image

from dominotable.rules.tiles import Tile
from dominotable.tray.action import Action
from dominotable.tray.geometry import Geometry
from dominotable.ui.menu import Seat
from dominotable.ui.screen import Screen

Cells = tuple[int, int]  # the cell under a tile's first-named half, then the other's


class Hands(Protocol):
    """The simulated tray, for the page's hands and its faults (a real tray has none: its tiles
    are moved by hand). Each step is carried out whole or raises TrayError naming why."""

    def tiles(self) -> dict[Tile, Cells]: ...  # where every tile lies now (the truth, read or not)

    def apply(self, action: Action) -> None: ...

    def unplug(self) -> None: ...

    def replug(self) -> None: ...

    def noise(self, probability: float) -> None: ...  # bits flipped and garbage on the line to the host

    def flicker(self, cell: int, probability: float) -> None: ...

    def dead(self, cell: int, dead: bool) -> None: ...


class PageApi(Protocol):
    geometry: Geometry  # the tray drawn
    hands: Hands | None  # None: a real tray
    database: Path  # the table's store, read by the scoreboard through a connection of its own

    def observe(self, screen_shown: Callable[[Screen], None], frame_sent: Callable[[Image.Image], None]) -> None:
        """Call `screen_shown` with every screen the table shows and `frame_sent` with every OLED
        frame (in the table's thread: they must be quick)."""

    def board(self) -> list[tuple[Tile, Cells]]:
        """The tiles where the tray last reported them (shown while no match is on)."""

    def lights(self) -> dict[str, Any]:
        """What the tray's lights show with the screen just shown, their setting and their legend
        (ui/lights.py), for the page's glow under the tiles."""

    def repairs(self) -> list[str]:
        """What was repaired before the table could open its store, to be said on the page."""

    def stopped(self) -> str:
        """Why the table no longer plays ("" while it does): the page then only shows."""

    def press(self, button: str) -> None:
        """One of the three buttons (DominoError when they are real ones)."""

    def offer(self) -> dict[str, Any]:
        """What the setup offers now (DominoError while a match is on)."""

    def choose(self, game: str, options: dict, seats: list[Seat]) -> None:
        """The next match (DominoError naming what cannot be: `setup_open` tells which kind)."""

    def setup_open(self) -> bool: ...

    def act(self, kind: str, move: str | None) -> None:
        """One of the actions that apply now (DominoError naming those that do)."""

    def targets(self, tile: Tile) -> tuple[tuple[Cells, str], ...]:
        """Where laying `tile` now reads as a legal move, each with what laying it there does in
        words ("" where the game's words say no more than the tile)."""
