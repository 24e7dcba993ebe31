"""The web page wired to the table: `WebTable` is what the server (ui/web/server.py) knows of
the runtime, and `serve()` starts it beside a runtime.

The runtime calls `_observe` after each frame it shows (in its own thread, under its lock):
that takes a small snapshot of the match (plain values, no drawing) and wakes the server.
Everything costly (the tray's SVG, the frame's PNG, JSON) is done in the server's thread from
that snapshot. The OLED mirror is the frame the display was sent (a display sink).

Controls go the physical way: tray actions through the virtual tray (firmware, emulated
readers, pty, link), buttons through the mock pins, faults into the virtual tray. The setup
form and the match's actions go to the runtime, which checks them as the OLED's menus would
and queues them for its loop; where a held tile may go is asked of the match core."""

from __future__ import annotations

import base64
import io
import threading
from pathlib import Path
from typing import Any

from PIL import Image

from dominotable.games import catalog
from dominotable.match import actions
from dominotable.rules.errors import DominoError
from dominotable.rules.tiles import DominoSet, Tile
from dominotable.store.errors import StorageError
from dominotable.store.storage import Store
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.errors import TrayError
from dominotable.ui.menu import Seat
from dominotable.ui.screen import Screen, ScreenKind
from dominotable.ui.web.server import Refused, WebServer
from dominotable.views import review, svg
from dominotable.views.ratings import rate

FAULTS = ("unplug", "replug", "dead", "alive", "flicker", "noise")
CLEAR = "clear"  # a tray action of the page: every tile off the virtual tray


class WebTable:
    def __init__(self, runtime):
        self.runtime = runtime
        self.hw = runtime.hw
        self.geometry = runtime.hw.geometry
        self.vtray = runtime.hw.tray.virtual
        self.virtual = self.vtray is not None
        self.buttons = runtime.hw.buttons()
        self.database = runtime.store.path  # the scoreboard reads it through a connection of its own
        self.server: WebServer | None = None
        self.faults: dict[str, Any] = {"unplugged": False, "dead": [], "flicker": {}, "noise": 0.0}
        self._snap: dict[str, Any] = {"game": None, "tiles": [], "scores": [], "cells": [], "zones": [], "racks": [],
                                      "alarm": False,
                                      "top": 6, "prompt": None, "prompt_title": None, "turn": "", "mode": "setup"}
        self._frame: Image.Image | None = None
        self._layout = svg.Layout(self.geometry).to_dict()  # where the page finds the cell under the pointer
        self._png: tuple[Image.Image, bytes, str] | None = None  # frame, PNG, data URL
        self._store: Store | None = None
        self._plots: dict[int, tuple[int, tuple]] = {}  # match -> (moves, its plot), the latest only
        self._said: dict[int, tuple[int, list]] = {}  # match -> (moves, its moves in words)
        self._lock = threading.Lock()  # the snapshot, swapped whole

    # --- from the runtime's thread ---------------------------------------------------------

    def attach(self, server: WebServer) -> None:
        self.server = server
        self.hw.display.sinks.append(self._on_frame)
        def observe(screen: Screen) -> None:
            self._observe(screen)

        observe.part = "the page"  # how a fault in it is named
        self.runtime.observers.append(observe)

    def _on_frame(self, image: Image.Image) -> None:
        self._frame = image

    def _observe(self, screen: Screen) -> None:
        """The screen the runtime just showed, kept for the server's thread (a dict of plain values)."""
        shown = screen.to_dict()
        game = screen.game
        snap: dict[str, Any] = {
            "screen": shown, "game": game.name if game else None, "title": game.title if game else None,
            "match": game.match if game else None, "moves": game.moves if game else 0,
            "mode": game.mode if game else "setup", "turn": screen.turn,
            "scores": [{"name": s.name, "points": s.points} for s in screen.scores], "target": screen.target,
            "last": shown["last"], "last_text": shown["last_text"], "problem": screen.problem,
            "warning": screen.warning, "zones": list(game.zones) if game else [],
            "top": game.top if game else self._snap["top"], "cells": sorted(set(screen.cells)),
            "repairs": list(self.runtime.repairs), "alarm": bool(screen.problem),
            "racks": [(r.seat, r.slots) for r in game.racks] if game else [],
            "tiles": list(screen.tray) if game else [(p.tile, p.cells) for p in _placements(self.runtime.board)]}
        snap["prompt_title"], snap["prompt"] = _prompt(screen)
        with self._lock:
            self._snap = snap
        if self.server is not None:
            self.server.publish()

    # --- from the server's thread ----------------------------------------------------------

    def state(self) -> dict[str, Any]:
        with self._lock:
            snap = self._snap
        settled = snap["tiles"]
        ghosts, lifted, off_tray, truth = [], set(), [], {}
        if self.virtual:
            truth = self.vtray.tiles()
            shown = set(settled)
            ghosts = [(t, c) for t, c in truth.items() if (t, tuple(c)) not in shown]
            lifted = {t for t, c in settled if tuple(truth.get(t, ())) != tuple(c)}
            off_tray = [f"{t.a}-{t.b}" for t in DominoSet(snap["top"]) if t not in truth]
        pad = next((t for t, c in settled if self.geometry.is_pad(c[0])), None)
        slots = {frozenset(cells): (seat, k) for seat, rack in snap["racks"] for k, cells in enumerate(rack, 1)}
        hidden = {cell for cells in slots for cell in cells}  # the bots' racks: their tiles lie face down
        state = {k: snap.get(k) for k in ("screen", "game", "title", "match", "moves", "mode", "turn", "prompt", "prompt_title", "problem",
                                          "warning", "scores", "target", "last", "last_text")}
        state["repairs"] = snap.get("repairs", [])
        state.update(
            virtual=self.virtual,
            tray=[self._where(t, c, slots.get(frozenset(c))) for t, c in settled if not self.geometry.is_pad(c[0])],
            pad=f"{pad.a}-{pad.b}" if pad is not None else None,
            cells=snap["cells"], zones=snap["zones"], off_tray=off_tray, clearable=bool(truth), faults=self.faults,
            lights=self.hw.lights.state(),
            layout=self._layout,
            base="/tray.svg?zones=" + ",".join(snap["zones"]),
            overlay=svg.overlay(self.geometry, settled, highlight=snap["cells"], ghosts=ghosts, lifted=lifted,
                                racks=snap["racks"], face_down=hidden, alarm=snap["alarm"]),
            oled=self._oled())
        return state

    def _where(self, tile: Tile, cells, slot: tuple[str, int] | None) -> dict[str, Any]:
        """A tile on the tray for the page: its cells, and where it lies in words (a bot's rack
        tile face down: its slot, not its pips)."""
        if slot is not None:
            seat, k = slot
            return {"tile": f"{tile.a}-{tile.b}", "cells": list(cells), "rack": seat, "slot": k,
                    "text": f"{seat}'s rack, slot {k}: a tile, face down"}
        return {"tile": f"{tile.a}-{tile.b}", "cells": list(cells),
                "text": f"{tile.a}-{tile.b} on {' and '.join(self._label(c) for c in cells)}"}

    def _label(self, cell: int) -> str:
        return self.geometry.label(cell).split(" (")[0]

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

    # --- controls (a worker thread) ---------------------------------------------------------

    def tray(self, request: dict) -> None:
        if not self.virtual:
            raise Refused("the tray is a real one: move its tiles by hand")
        kinds = [k.value for k in ActionKind] + [CLEAR]
        kind = request.get("action")
        if kind == CLEAR:  # every tile back off the tray, one by one as hands would
            try:
                for tile in list(self.vtray.tiles()):
                    self.vtray.apply(Action(ActionKind.REMOVE, tile))
            except TrayError as exc:
                raise Refused(str(exc)) from None
            return
        if kind not in kinds:
            raise Refused(f"action must be one of {', '.join(kinds)}, not {_show(kind)}")
        tile, first = self._tile(request.get("tile"))
        cells: tuple[int, ...] = ()
        if kind in (ActionKind.PLACE, ActionKind.SLIDE):
            given = request.get("cells")
            if (not isinstance(given, list) or len(given) != 2
                    or not all(isinstance(c, int) and not isinstance(c, bool) for c in given)):
                raise Refused(f"cells must be two cell numbers [a, b], one for each half of {tile}, not {_show(given)}")
            for cell in given:
                if not 0 <= cell < self.geometry.playing:
                    raise Refused(f"cell {cell} does not exist: the playing cells are 0-{self.geometry.playing - 1}")
            cells = tuple(given) if first == tile.a else tuple(reversed(given))
        try:
            self.vtray.apply(Action(ActionKind(kind), tile, cells))
        except TrayError as exc:
            raise Refused(str(exc)) from None

    def _tile(self, text) -> tuple[Tile, int]:
        """The tile named "3-5" in the set of the match (its first-named pips)."""
        with self._lock:
            top = self._snap["top"]
        if not isinstance(text, str):
            raise Refused(f"tile must be written like \"3-5\", not {_show(text)}")
        try:
            tile = DominoSet(top).parse(text)
        except DominoError as exc:
            raise Refused(f"unknown tile: {exc}") from None
        return tile, int(text.strip().split("-")[0])

    def setup_offer(self) -> dict[str, Any]:
        try:
            return self.runtime.offer()
        except DominoError as exc:
            raise Refused(str(exc), 409) from None

    def setup(self, request: dict) -> None:
        """`{"game": NAME, "options": {NAME: VALUE}, "seats": [{"name", "kind": "person"|"bot"|"remote",
        "strategy"}]}`: the next match, as the setup menu would choose it."""
        game, options, seats = request.get("game"), request.get("options", {}), request.get("seats")
        if not isinstance(game, str):
            raise Refused(f"game must be a game's name, one of {', '.join(catalog.names())}, not {_show(game)}")
        if not isinstance(options, dict):
            raise Refused(f"options must be an object of option names and values, not {_show(options)}")
        if not isinstance(seats, list) or not seats:
            raise Refused(f"seats must be a list with one entry per seat, not {_show(seats)}")
        chosen = []
        for number, seat in enumerate(seats, 1):
            if not isinstance(seat, dict):
                raise Refused(f"seat {number} must be an object with name, kind and strategy, not {_show(seat)}")
            name, kind, strategy = seat.get("name", ""), seat.get("kind", "person"), seat.get("strategy", "")
            if kind not in ("person", "bot", "remote"):
                raise Refused(f"seat {number}: kind must be person, bot or remote, not {_show(kind)}")
            if not isinstance(name, str) or not isinstance(strategy, str):
                raise Refused(f"seat {number}: name and strategy must be text")
            chosen.append(Seat(name, kind == "bot", strategy, kind == "remote"))
        try:
            self.runtime.choose(game, options, chosen)
        except DominoError as exc:
            raise Refused(str(exc), 409 if self.runtime.setup is None else 400) from None

    def action(self, request: dict) -> None:
        """`{"action": KIND, "move": NOTATION}`: one of the actions the in-game menu offers now."""
        kind, move = request.get("action"), request.get("move")
        if not isinstance(kind, str) or not (move is None or isinstance(move, str)):
            raise Refused(f"action must be one of {', '.join(actions.KINDS)} (with move, the move's notation), "
                          f"not {_show(kind)}")
        try:
            self.runtime.act(kind, move)
        except DominoError as exc:
            raise Refused(str(exc), 409) from None

    def targets(self, text) -> list[list[int]]:
        """Where the tile named may be laid now, as [cell of its first-named half, cell of the other]."""
        tile, first = self._tile(text)
        found = self.runtime.targets(tile)
        return [list(cells) if first == tile.a else list(reversed(cells)) for cells in found]

    def button(self, name: str) -> None:
        if self.buttons is None:
            raise Refused("the buttons are real ones: press them at the table")
        self.buttons.press(name)

    def fault(self, request: dict) -> None:
        if not self.virtual:
            raise Refused("faults can be injected only into the virtual tray")
        kind = request.get("fault")
        if kind not in FAULTS:
            raise Refused(f"fault must be one of {', '.join(FAULTS)}, not {_show(kind)}")
        vt, faults = self.vtray, self.faults
        if kind == "unplug":
            vt.unplug()
            faults["unplugged"] = True
        elif kind == "replug":
            vt.replug()
            faults["unplugged"] = False
        elif kind == "noise":
            p = _probability(request)
            vt.to_host.bit_flip = vt.to_host.garbage = p
            faults["noise"] = p
        else:
            cell = request.get("cell")
            if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell < self.geometry.cells:
                raise Refused(f"cell must be a cell number 0-{self.geometry.cells - 1}, not {_show(cell)}")
            if kind == "flicker":
                p = _probability(request)
                vt.set_flicker(cell, p)
                faults["flicker"] = {**faults["flicker"], str(cell): p}
            else:
                vt.set_dead(cell, kind == "dead")
                dead = set(faults["dead"]) | {cell} if kind == "dead" else set(faults["dead"]) - {cell}
                faults["dead"] = sorted(dead)

    # --- the scoreboard (the server's one database thread) ----------------------------------

    def _db(self) -> Store:
        if self._store is None:
            if not Path(self.database).is_file():
                raise Refused(f"no database at {self.database}")
            self._store = Store(self.database, create=False)
        return self._store

    def leaderboard(self) -> list[dict[str, Any]]:
        try:
            records = self._db().matches()
        except Refused:
            return []
        return [{"game": b.game, "title": b.title,
                 "players": [{"name": p.name, "rating": round(p.rating, 2), "matches": p.matches, "wins": p.wins,
                              "win_rate": round(p.win_rate, 3)} for p in b.players]} for b in rate(records)]

    def history(self, limit: int = 20) -> list[dict[str, Any]]:
        """The latest matches, newest first, each with what ended it (or that it is live now, or
        was left unfinished), its goal, which way its scores run, and its scores at the start and
        after every hand (or every scoring play, for a match of one hand)."""
        try:
            records = [r for r in self._db().matches() if r.damaged is None][:limit]  # set aside: not replayable
        except Refused:
            return []
        with self._lock:
            live = self._snap["match"] if self._snap["mode"] not in ("setup", "over") else None
        out = []
        for record in records:
            spec = catalog.spec(record.game)
            names = review.side_names(record)
            result = record.result or {}
            ending = result.get("ending")
            if record.finished is None:
                state = "live" if record.id == live else "unfinished"
            else:
                state = ending or "played"
            per, points = self._series(record)
            out.append({"id": record.id, "game": record.game, "title": spec.title, "card": spec.card.removesuffix(".md"),
                        "names": names, "started": record.started, "finished": record.finished, "state": state,
                        "demo": record.demo, "scores": result.get("scores"),
                        "winners": [names[w] for w in result.get("winners", []) if w < len(names)],
                        "target": record.options.get("target"), "goal": spec.goal(spec.options.from_dict(record.options)),
                        "scoring": spec.scoring, "lower_wins": spec.lower_wins, "scores_run": spec.scores_run,
                        "per": per, "points": points, "moves": record.plies})
        return out

    def _series(self, record) -> tuple[str, list[list[int]]]:
        cached = self._plots.get(record.id)
        if cached is None or cached[0] != record.plies:
            cached = self._plots[record.id] = (record.plies, review.hand_scores(self._db().match(record.id)))
        return cached[1]

    def moves(self, match_id: int) -> dict[str, Any]:
        """A recorded match's moves in plain words, each with its mover and notation."""
        try:
            record = self._db().match(match_id)
        except StorageError as exc:
            raise Refused(str(exc), 404) from None
        cached = self._said.get(record.id)
        if cached is None or cached[0] != len(record.moves):
            cached = self._said[record.id] = (len(record.moves), review.said(record))
        return {"id": record.id, "title": catalog.spec(record.game).title, "moves": cached[1]}

    def replay(self, match_id: int, step: int) -> dict[str, Any]:
        try:
            record = self._db().match(match_id)
        except StorageError as exc:
            raise Refused(str(exc)) from None
        return review.position(record, step, self.geometry)


def _placements(board) -> list:
    return board.placements if board is not None else []


def _prompt(screen: Screen) -> tuple[str | None, str | None]:
    """The page's prompt line: a title and a text; in play, the turn of the person to move."""
    if screen.kind == ScreenKind.PLAY:
        return (screen.title, screen.text) if screen.instruction is not None else (None, None)
    if screen.kind == ScreenKind.MENU:
        question = screen.menu.current.title if hasattr(screen.menu, "current") else screen.menu.title
        return ("Menu" if screen.game else None), question
    if screen.kind == ScreenKind.OVER:
        return "Match over", screen.title
    return screen.title, screen.text



def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _probability(request: dict) -> float:
    p = request.get("probability")
    if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
        raise Refused(f"probability must be a number from 0 to 1, not {_show(p)}")
    return float(p)


def serve(runtime, host: str, port: int, token: str = "") -> WebServer:
    """Start the page for `runtime` (before `runtime.start()`); raises OSError if the address is taken."""
    table = WebTable(runtime)
    server = WebServer(table, host, port, token)
    table.attach(server)
    return server.start()
