"""The tray's lights: one more view of the Screen (ui/screen.py), beside the OLED and the page. The
cells the Screen is about light under the tiles, one meaning per colour, and go to the tray over
the link (`TrayLink.light`, protocol 4's LIGHTS).

What lights reads the Screen alone (`marks`), as the OLED and the page do:

- a problem the tray shows (a misplaced or unknown tile): its cells red;
- a step a person does for a seat the table plays, or a hint they asked for: the rack slot a bot's
  tile comes from (a slot cell holding a tile), tiles to take (a cell holding a tile elsewhere),
  where a tile goes (an empty cell: on the tray, into a rack's slot, over the scan pad);
- anything else, a person's own free choice among them, lights nothing.

The setting ([lights] level in the configuration, and the setup menu): on, dim or off; during the
venue's quiet hours ([lights] quiet_hours) "on" is dimmed. The tray scales every colour under its
brightness cap (hardware/wiring.toml [lights]).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time
from enum import StrEnum
from typing import Any

from dominotable.settings import setting
from dominotable.ui.menu import LEVELS
from dominotable.ui.screen import Screen, ScreenKind

DIM = 0.25  # "dim": this share of each colour
QUIET = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$")


class Meaning(StrEnum):
    GOES = "goes"
    FROM = "from"
    TAKE = "take"
    WRONG = "wrong"


COLOURS = {  # full scale; the tray caps them
    Meaning.GOES: (0, 255, 0),
    Meaning.FROM: (0, 64, 255),
    Meaning.TAKE: (255, 176, 0),
    Meaning.WRONG: (255, 0, 0),
}
LEGEND = {  # the page and the README say the same
    Meaning.GOES: ("green", "where a tile goes"),
    Meaning.FROM: ("blue", "the rack slot a bot's tile comes from"),
    Meaning.TAKE: ("yellow", "tiles to take in a capture"),
    Meaning.WRONG: ("red", "a misplaced or unknown tile"),
}


@dataclass(frozen=True)
class LightsConfig:
    level: str = setting("on", lambda v: v in LEVELS, "is not on, dim or off")
    quiet_hours: str = setting("", lambda v: isinstance(v, str) and (v == "" or QUIET.match(v) is not None),
                               'is not "" or a span of local time like "22:00-07:00"')


def marks(screen: Screen) -> dict[int, Meaning]:
    """The cells the Screen asks the tray to light, and why."""
    if screen.kind != ScreenKind.PROMPT or screen.game is None:
        return {}
    if screen.problem is not None:
        return dict.fromkeys(screen.cells, Meaning.WRONG)
    slots = {cell for rack in screen.game.racks for slot in rack.slots for cell in slot}
    covered = {cell for _tile, cells in screen.tray for cell in cells}
    out = {}
    for cell in screen.cells:
        if cell not in covered:
            out[cell] = Meaning.GOES
        else:
            out[cell] = Meaning.FROM if cell in slots else Meaning.TAKE
    return out


def colour(meaning: Meaning, level: str) -> tuple[int, int, int]:
    share = DIM if level == "dim" else 1.0
    return tuple(round(value * share) for value in COLOURS[meaning])


MEANING_OF = {colour(m, level): m for m in Meaning for level in ("on", "dim")}  # one meaning per colour


def quiet_span(text: str) -> tuple[time, time] | None:
    if not text:
        return None
    h0, m0, h1, m1 = map(int, QUIET.match(text).groups())
    return time(h0, m0), time(h1, m1)


class TrayLights:
    """The lights following each Screen the table shows: `show(screen)` (the runtime calls it with
    every new frame), `level` (the setting, as the setup menu leaves it), `state()` (for the page)."""

    def __init__(self, link, config: LightsConfig | None = None, now: Callable[[], datetime] = datetime.now):
        config = config or LightsConfig()
        self.link = link
        self.level = config.level
        self.quiet = quiet_span(config.quiet_hours)
        self.now = now
        self.shown: dict[int, tuple[int, int, int]] = {}  # what the last screen lit

    def level_now(self) -> str:
        """The setting, dimmed during the quiet hours."""
        if self.level == "on" and self.quiet is not None:
            start, end = self.quiet
            t = self.now().time()
            if (start <= t < end) if start <= end else (t >= start or t < end):
                return "dim"
        return self.level

    def lit(self, screen: Screen) -> dict[int, tuple[int, int, int]]:
        """What the tray should show for `screen` now."""
        level = self.level_now()
        if level == "off":
            return {}
        return {cell: colour(meaning, level) for cell, meaning in marks(screen).items()}

    def show(self, screen: Screen) -> None:
        self.shown = self.lit(screen)
        self.link.light(self.shown)

    def state(self) -> dict[str, Any]:
        """For the page: the cells lit with the screen shown, as the tray shows them (their meaning,
        their colour #rrggbb before the tray's cap), the setting now, and the legend."""
        shown = self.shown
        return {"cells": [{"cell": cell, "meaning": str(MEANING_OF[rgb]), "colour": _hex(rgb)}
                          for cell, rgb in sorted(shown.items())],
                "level": self.level_now(),
                "legend": [{"meaning": str(m), "colour": _hex(COLOURS[m]), "name": name, "text": text}
                           for m, (name, text) in LEGEND.items()]}


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#%02x%02x%02x" % rgb
