"""The page's controls, checked before they reach the table: each request body names what it
wants in the API's words, and anything else is Refused naming the problem, with nothing changed.

Tiles move the physical way, through the simulated tray (its firmware, emulated readers, pty and
link); the buttons through their pins; the setup form and the match's actions go to the table,
which checks them as the OLED's menus would. A tile is named by its pips ("3-5"), or, face down in
a rack, by a cell it lies on (`at`), so the page never needs a hidden tile's name to move it."""

from __future__ import annotations

from typing import Any

from dominotable.games import catalog
from dominotable.match import actions
from dominotable.rules.errors import DominoError
from dominotable.rules.tiles import DominoSet, Tile
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.errors import TrayError
from dominotable.ui.menu import Seat
from dominotable.ui.web.api import Cells, PageApi
from dominotable.ui.web.view import View
from dominotable.web.guard import Refused, show

FAULTS = ("unplug", "replug", "dead", "alive", "flicker", "noise")
BUTTONS = ("up", "down", "select", "long-select")
CLEAR = "clear"  # a tray action of the page: every tile off the simulated tray


class Controls:
    def __init__(self, api: PageApi, view: View):
        self.api = api
        self.view = view
        self.geometry = api.geometry

    # --- the simulated tray ------------------------------------------------------------------------

    def tray(self, request: dict) -> None:
        """`{"action": KIND, "tile": "5-3" | "at": CELL, "cells": [cell of the 5, cell of the 3]}`;
        `{"action": "clear"}`: every tile off, one by one as hands would."""
        hands = self._hands("the tray is a real one: move its tiles by hand")
        kinds = [k.value for k in ActionKind] + [CLEAR]
        kind = request.get("action")
        try:
            if kind == CLEAR:
                for tile in list(hands.tiles()):
                    hands.apply(Action(ActionKind.REMOVE, tile))
                return
            if kind not in kinds:
                raise Refused(f"action must be one of {', '.join(kinds)}, not {show(kind)}")
            named = "at" not in request
            tile, first = self._tile(request) if named else self._lying(request.get("at"))
            cells: tuple[int, ...] = ()
            if kind in (ActionKind.PLACE, ActionKind.SLIDE):
                cells = self._cells(request.get("cells"), tile if named else "the tile")
                cells = cells if first == tile.a else tuple(reversed(cells))
            self._free(tile, cells or (self.geometry.pad[:2] if kind == ActionKind.PAD else ()), named)
            hands.apply(Action(ActionKind(kind), tile, cells))
        except TrayError as exc:
            raise Refused(str(exc)) from None

    def _cells(self, given, what) -> Cells:
        if (not isinstance(given, list) or len(given) != 2
                or not all(isinstance(c, int) and not isinstance(c, bool) for c in given)):
            raise Refused(f"cells must be two cell numbers [a, b], one for each half of {what}, not {show(given)}")
        for cell in given:
            if not 0 <= cell < self.geometry.playing:
                raise Refused(f"cell {cell} does not exist: the playing cells are 0-{self.geometry.playing - 1}")
        return tuple(given)

    def _free(self, tile: Tile, cells, named: bool) -> None:
        """Refused in words when another tile lies on one of `cells` (a face-down one unnamed)."""
        hidden = self.view.shown.face_down
        for other, lying in self.api.hands.tiles().items():
            covered = [cell for cell in cells if cell in lying]
            if other != tile and covered:
                said = "a face-down tile" if hidden & set(lying) else str(other)
                where = "the scan pad" if self.geometry.is_pad(covered[0]) else self.geometry.cell_name(covered[0])
                raise Refused(f"{tile if named else 'the tile'} cannot go on {where}: {said} lies there")

    def _tile(self, request: dict) -> tuple[Tile, int]:
        """The tile named "3-5" in the set of the match, and its first-named pips."""
        text = request.get("tile")
        if not isinstance(text, str):
            raise Refused(f"tile must be written like \"3-5\", not {show(text)}")
        try:
            tile = DominoSet(self.view.shown.top).parse(text)
        except DominoError as exc:
            raise Refused(f"unknown tile: {exc}") from None
        return tile, int(text.strip().split("-")[0])

    def _lying(self, at) -> tuple[Tile, int]:
        """The tile with a half on cell `at`, and the pips of that half (first, as if named so)."""
        if not isinstance(at, int) or isinstance(at, bool) or not 0 <= at < self.geometry.cells:
            raise Refused(f"at must be a cell number 0-{self.geometry.cells - 1}, not {show(at)}")
        for tile, cells in self.api.hands.tiles().items():
            if at in cells:
                return tile, tile.a if cells[0] == at else tile.b
        raise Refused(f"no tile lies on {self.geometry.cell_name(at)}")

    def _hands(self, why: str):
        if self.api.hands is None:
            raise Refused(why)
        return self.api.hands

    def fault(self, request: dict) -> None:
        hands, faults = self._hands("faults can be injected only into the simulated tray"), self.view.faults
        kind = request.get("fault")
        if kind not in FAULTS:
            raise Refused(f"fault must be one of {', '.join(FAULTS)}, not {show(kind)}")
        if kind in ("unplug", "replug"):
            hands.unplug() if kind == "unplug" else hands.replug()
            faults["unplugged"] = kind == "unplug"
        elif kind == "noise":
            faults["noise"] = _probability(request)
            hands.noise(faults["noise"])
        else:
            cell = request.get("cell")
            if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell < self.geometry.cells:
                raise Refused(f"cell must be a cell number 0-{self.geometry.cells - 1}, not {show(cell)}")
            if kind == "flicker":
                p = _probability(request)
                hands.flicker(cell, p)
                faults["flicker"] = {**faults["flicker"], str(cell): p}
            else:
                hands.dead(cell, kind == "dead")
                dead = set(faults["dead"]) | {cell} if kind == "dead" else set(faults["dead"]) - {cell}
                faults["dead"] = sorted(dead)

    def button(self, request: dict) -> None:
        name = request.get("button")
        if name not in BUTTONS:
            raise Refused(f"button must be one of {', '.join(BUTTONS)}, not {show(name)}")
        try:
            self.api.press(name)
        except DominoError as exc:
            raise Refused(str(exc)) from None

    # --- the match ----------------------------------------------------------------------------------

    def setup_offer(self) -> dict[str, Any]:
        try:
            return self.api.offer()
        except DominoError as exc:
            raise Refused(str(exc), 409) from None

    def setup(self, request: dict) -> None:
        """`{"game": NAME, "options": {NAME: VALUE}, "seats": [{"name", "kind": "person"|"bot"|"remote",
        "strategy"}]}`: the next match, as the setup menu would choose it."""
        game, options, seats = request.get("game"), request.get("options", {}), request.get("seats")
        if not isinstance(game, str):
            raise Refused(f"game must be a game's name, one of {', '.join(catalog.names())}, not {show(game)}")
        if not isinstance(options, dict):
            raise Refused(f"options must be an object of option names and values, not {show(options)}")
        if not isinstance(seats, list) or not seats:
            raise Refused(f"seats must be a list with one entry per seat, not {show(seats)}")
        chosen = []
        for number, seat in enumerate(seats, 1):
            if not isinstance(seat, dict):
                raise Refused(f"seat {number} must be an object with name, kind and strategy, not {show(seat)}")
            name, kind, strategy = seat.get("name", ""), seat.get("kind", "person"), seat.get("strategy", "")
            if kind not in ("person", "bot", "remote"):
                raise Refused(f"seat {number}: kind must be person, bot or remote, not {show(kind)}")
            if not isinstance(name, str) or not isinstance(strategy, str):
                raise Refused(f"seat {number}: name and strategy must be text")
            chosen.append(Seat(name, kind == "bot", strategy, kind == "remote"))
        try:
            self.api.choose(game, options, chosen)
        except DominoError as exc:
            raise Refused(str(exc), 400 if self.api.setup_open() else 409) from None

    def action(self, request: dict) -> None:
        """`{"action": KIND, "move": NOTATION}`: one of the actions the in-game menu offers now."""
        kind, move = request.get("action"), request.get("move")
        if not isinstance(kind, str) or not (move is None or isinstance(move, str)):
            raise Refused(f"action must be one of {', '.join(actions.KINDS)} (with move, the move's notation), "
                          f"not {show(kind)}")
        try:
            self.api.act(kind, move)
        except DominoError as exc:
            raise Refused(str(exc), 409) from None

    def targets(self, text) -> dict[str, Any]:
        """Where the tile named may be laid now, as [cell of its first-named half, cell of the other],
        and what laying it there does, in words."""
        tile, first = self._tile({"tile": text})
        found = self.api.targets(tile)
        return {"tile": text, "targets": [list(cells) if first == tile.a else list(reversed(cells)) for cells, _ in found],
                "does": [does for _, does in found]}


def _probability(request: dict) -> float:
    p = request.get("probability")
    if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
        raise Refused(f"probability must be a number from 0 to 1, not {show(p)}")
    return float(p)
