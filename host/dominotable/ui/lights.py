"""The tray's lights: one more view of the Screen (ui/screen.py), beside the OLED and the page. The
cells the Screen is about light under the tiles, one meaning per colour, and go to the tray over
the link (`TrayLink.light`, protocol 4's LIGHTS).

What lights reads the Screen alone (`marks`): its typed instruction, never its words.

- a problem the tray shows (a misplaced or unknown tile): its cells red;
- what a person does for a seat the table plays, or anyone at the table (the instruction's
  steps): where a tile goes green (on the tray, into a rack's slots, over the scan pad), the rack
  slot a bot's tile comes from blue, tiles to take yellow;
- a hint the person asked for: the tiles it would take, yellow;
- a tile the person to move holds over the scan pad: its legal places (the Screen's `places`, as
  the page offers them), dim green;
- anything else, a person's own free choice among them, lights nothing.

The setting ([lights] level in the configuration, and the setup menu): on, dim or off; during the
venue's quiet hours ([lights] quiet_hours) "on" is dimmed. The tray scales every colour under its
brightness cap (hardware/wiring.toml [lights]). While the tray lights a screen's instruction, the
OLED says it short (`worded`: the Screen's `short`, "slot 6 (5-6) -> the lit cells").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, time
from enum import StrEnum
from typing import Any

from dominotable.reading.instruction import Do, Instruction
from dominotable.settings import setting
from dominotable.ui.menu import LEVELS
from dominotable.ui.screen import Rack, Screen, ScreenKind

DIM = 0.25  # "dim": this share of each colour
QUIET = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$")


class Meaning(StrEnum):
    GOES = "goes"
    FROM = "from"
    TAKE = "take"
    WRONG = "wrong"
    PLACES = "places"


COLOURS = {  # full scale; the tray caps them
    Meaning.GOES: (0, 255, 0),
    Meaning.FROM: (0, 64, 255),
    Meaning.TAKE: (255, 176, 0),
    Meaning.WRONG: (255, 0, 0),
    Meaning.PLACES: (0, 96, 0),  # dim: under the cap and "dim" still lit, and no other meaning's colour
}
LEGEND = {  # the page and the README say the same
    Meaning.GOES: ("green", "where a tile goes"),
    Meaning.FROM: ("blue", "the rack slot a bot's tile comes from"),
    Meaning.TAKE: ("yellow", "tiles to take in a capture"),
    Meaning.WRONG: ("red", "a misplaced or unknown tile"),
    Meaning.PLACES: ("dim green", "where the tile held over the scan pad may go"),
}


@dataclass(frozen=True)
class LightsConfig:
    level: str = setting("on", lambda v: v in LEVELS, "is not on, dim or off")
    quiet_hours: str = setting("", lambda v: isinstance(v, str) and (v == "" or QUIET.match(v) is not None),
                               'is not "" or a span of local time like "22:00-07:00"')


def marks(screen: Screen) -> dict[int, Meaning]:
    """The cells the Screen asks the tray to light, and why."""
    if screen.kind not in (ScreenKind.PROMPT, ScreenKind.PLAY) or screen.game is None:
        return {}
    if screen.problem is not None:
        return dict.fromkeys(screen.cells, Meaning.WRONG)
    said = screen.instruction
    if said is not None and (said.table or said.seat is None):  # not a person's own turn
        return steps(said, screen.game.racks)
    if screen.take:  # a hint asked for: the tiles it takes
        where = {str(tile): cells for tile, cells in screen.tray}
        return {cell: Meaning.TAKE for name in screen.take for cell in where.get(name, ())}
    return dict.fromkeys(screen.places, Meaning.PLACES)


def steps(said: Instruction, racks: tuple[Rack, ...]) -> dict[int, Meaning]:
    """An instruction's steps as lights: each step's cells and its seat's rack slots."""
    rack = next((r.slots for r in racks if r.seat == said.who), ())

    def slots(numbers) -> list[int]:
        return [cell for k in numbers if 0 < k <= len(rack) for cell in rack[k - 1]]

    out: dict[int, Meaning] = {}
    for step in said.steps:
        match step.do:
            case Do.LAY | Do.PAD | Do.SLIDE | Do.NOTE:  # a tile from a slot, to its cells (a note's: the pad)
                out |= dict.fromkeys(slots(step.slots), Meaning.FROM) | dict.fromkeys(step.cells, Meaning.GOES)
            case Do.TAKE:
                out |= dict.fromkeys(step.cells, Meaning.TAKE)
            case Do.DEAL:
                out |= dict.fromkeys(slots(step.slots), Meaning.GOES)
            case Do.EMPTY:
                out |= dict.fromkeys(slots(step.slots), Meaning.FROM)
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

    def worded(self, screen: Screen) -> Screen:
        """`screen` as the OLED says it: short ("West bot: slot 6 (5-6) -> the lit cells") while a
        tray that lights is attached and lights its cells (`show` was given it), else in full."""
        if screen.short and self.shown and self.link.connected:
            return replace(screen, text=screen.short)
        return screen

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
