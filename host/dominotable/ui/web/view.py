"""The page's view of the table: the Screen the table last showed and the tray, each said once, as
the JSON of `GET /api/state` and of every WebSocket update.

- `screen`: the presenter's Screen (`Screen.to_dict`), whatever it says, as it says it; the page
  derives nothing about the match from anything else;
- the tray: the tiles as the table last read them, in words (`tray`, `pad`), drawn (`overlay` over
  the cells and zones named by `base`, with `layout` to find the cell under the pointer), and for
  the simulated tray's hands what lies off it (`off_tray`, with the `captured` tiles apart) and the
  faults injected; and the tray's `lights` (ui/lights.py), glowing under the tiles.

A tile lying in the rack of a seat the table plays lies face down: it goes to every viewer as its
rack and slot, never its name, in the words, the drawing and the lists (the seat's instruction
alone names it, when the table waits for it). Only those who may move the simulated tray's tiles
get the lists of what is off it.

The table's thread hands over each screen (`screen_shown`, quick: a dict of plain values); the JSON
is built in the server's thread, once per change and audience."""

from __future__ import annotations

import base64
import io
import json
import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from PIL import Image

from dominotable.rules.tiles import DominoSet, Tile
from dominotable.ui.screen import Screen
from dominotable.ui.web.api import Cells, PageApi
from dominotable.views import svg

Slots = tuple[tuple[str, tuple[Cells, ...]], ...]  # each rack's seat and its slots' cells


@dataclass(frozen=True)
class Shown:
    """What the table last showed, in plain values."""

    screen: dict[str, Any] = field(default_factory=dict)
    tiles: tuple[tuple[Tile, Cells], ...] = ()  # as the table last read them
    racks: Slots = ()
    zones: tuple[str, ...] = ()
    top: int = 6
    match: int | None = None
    mode: str = "setup"  # the referee's (restore, play, takeback, lost, over), or no match
    alarm: bool = False
    lights: dict[str, Any] | None = None  # what the tray's lights show with this screen (ui/lights.py)

    @cached_property
    def slots(self) -> dict[frozenset[int], tuple[str, int]]:
        """Each rack slot's cells, with its seat and number: a tile there lies face down."""
        return {frozenset(cells): (seat, k) for seat, rack in self.racks for k, cells in enumerate(rack, 1)}

    @cached_property
    def face_down(self) -> frozenset[int]:
        return frozenset(cell for cells in self.slots for cell in cells)


class View:
    def __init__(self, api: PageApi):
        self.api = api
        self.geometry = api.geometry
        self.hands = api.hands
        self.layout = {**svg.Layout(self.geometry).to_dict(), "pips": [svg.pip_points(n) for n in range(13)]}
        self.faults: dict[str, Any] = {"unplugged": False, "dead": [], "flicker": {}, "noise": 0.0}
        self.changed = lambda: None  # the server's wake-up, once it serves
        self._shown = Shown()
        self._captured: set[Tile] = set()  # taken off the tray after lying face up on it (this match)
        self._frame: Image.Image | None = None
        self._png: tuple[Image.Image, bytes, str] | None = None  # frame, PNG, data URL
        self._built: tuple[tuple, tuple, dict[bool, str]] | None = None  # (what was shown, the rest, JSON)
        self._lock = threading.Lock()  # what was shown, swapped whole

    # --- from the table's thread --------------------------------------------------------------------

    def screen_shown(self, screen: Screen) -> None:
        game = screen.game
        before = self._shown
        tiles = tuple(screen.tray) if game else tuple(self.api.board())
        racks = tuple((r.seat, r.slots) for r in game.racks) if game else before.racks  # (rack tiles stay hidden)
        shown = Shown(screen=screen.to_dict(), tiles=tiles, racks=racks, zones=game.zones if game else (),
                      top=game.top if game else before.top, match=game.match if game else None,
                      mode=game.mode if game else "setup", alarm=bool(screen.problem), lights=self.api.lights())
        with self._lock:
            self._shown = shown
            self._taken(before, shown)
        self.changed()

    def _taken(self, before: Shown, now: Shown) -> None:
        """Keep the tiles taken off the tray after lying face up: captured, or set aside. A new
        match, or the tray read empty (every tile gathered), puts them back in the boneyard."""
        lying = {tile for tile, _ in now.tiles}
        if now.match != before.match or not lying:
            self._captured.clear()
            return
        self._captured |= {tile for tile, cells in before.tiles if frozenset(cells) not in before.slots
                           and not self.geometry.is_pad(cells[0])} - lying
        self._captured -= lying

    def frame_sent(self, image: Image.Image) -> None:
        self._frame = image

    # --- from the server's thread --------------------------------------------------------------------

    @property
    def shown(self) -> Shown:
        with self._lock:
            return self._shown

    def message(self, controls: bool) -> str:
        """The state as JSON for a viewer, or for one who may move the tiles (`controls`): built once
        per change and audience, and sent as it is (GET /api/state and every WebSocket update)."""
        with self._lock:
            shown, captured = self._shown, frozenset(self._captured)
        truth = self.hands.tiles() if self.hands is not None else {}
        seen = (shown, self._frame)  # the same objects
        key = (captured, tuple(truth.items()), json.dumps(self.faults), self.api.stopped())
        built = self._built
        if built is None or any(a is not b for a, b in zip(built[0], seen)) or built[1] != key:
            built = self._built = (seen, key, {})
        if controls not in built[2]:
            built[2][controls] = json.dumps(self._state(shown, captured, truth, key[-1], controls))
        return built[2][controls]

    def _state(self, shown: Shown, captured: frozenset[Tile], truth: dict[Tile, Cells], stopped: str,
               controls: bool) -> dict:
        read = set(shown.tiles)
        ghosts = [(t, c) for t, c in truth.items() if (t, tuple(c)) not in read]
        lifted = {t for t, c in shown.tiles if tuple(truth.get(t, ())) != tuple(c)} if self.hands is not None else set()
        pad = next((t for t, c in shown.tiles if self.geometry.is_pad(c[0])), None)
        off = controls and self.hands is not None
        return {
            "screen": shown.screen,
            "virtual": self.hands is not None,
            "tray": [self._where(t, c, shown.slots.get(frozenset(c))) for t, c in shown.tiles
                     if not self.geometry.is_pad(c[0])],
            "pad": str(pad) if pad is not None else None,
            "off_tray": [str(t) for t in DominoSet(shown.top) if t not in truth] if off else None,
            "captured": [str(t) for t in sorted(captured - set(truth))] if off else None,
            "clearable": bool(truth), "faults": self.faults, "stopped": stopped,
            "repairs": self.api.repairs(), "layout": self.layout, "base": "/tray.svg?zones=" + ",".join(shown.zones),
            "overlay": svg.overlay(self.geometry, shown.tiles, highlight=shown.screen.get("cells", ()), ghosts=ghosts,
                                   lifted=lifted, racks=shown.racks, face_down=shown.face_down, alarm=shown.alarm),
            "oled": self._oled(), "lights": shown.lights, "controls": controls,
        }

    def _where(self, tile: Tile, cells: Cells, slot: tuple[str, int] | None) -> dict[str, Any]:
        """A tile on the tray in words: its name and cells, or, face down in a rack, its slot."""
        if slot is not None:
            seat, k = slot
            return {"rack": seat, "slot": k, "cells": list(cells), "text": f"{seat}'s rack, slot {k}: a tile, face down"}
        return {"tile": str(tile), "cells": list(cells),
                "text": f"{tile} on {' and '.join(self.geometry.cell_name(c) for c in cells)}"}

    def png(self) -> bytes | None:
        """The OLED's frame as a PNG, encoded once per frame (the cache holds the frame itself,
        whose id a later frame could reuse once it was freed)."""
        frame = self._frame
        if frame is None:
            return None
        if self._png is None or self._png[0] is not frame:
            out = io.BytesIO()
            frame.save(out, "PNG")
            png = out.getvalue()
            self._png = (frame, png, "data:image/png;base64," + base64.b64encode(png).decode())
        return self._png[1]

    def _oled(self) -> str | None:
        return None if self.png() is None else self._png[2]
