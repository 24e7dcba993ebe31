"""Bots that play at the simulated table with their hands: they choose moves with the engines'
bots and make them physically on the VirtualTray (`adapter.actions`), or with the mock buttons
for moves that leave no trace on the tray. The session judges what the tray shows exactly as it
judges people, so a bot match exercises the whole pipeline: pty, firmware, link, board,
adapter, session, storage, display.

A bot's choice depends only on the seed and the position (its generator is seeded with the
seed and the move number), so a match interrupted and resumed ends as it would have.
"""

from __future__ import annotations

import random
import threading
import time

from dominotray import wire

from ..bots import strategies_for
from ..game import Game, Move
from ..menu import Choice
from ..registry import get_game
from ..tray.board import Board
from ..tray.virtual import DIRECTIONS, VirtualTray
from .adapter import Action, Adapter, adapter_for
from .hardware import MockButtons


class BotError(RuntimeError):
    """The table did not take a bot's move: a bug in an adapter or the session."""


def physical_board(vtray: VirtualTray) -> Board:
    """What really lies on the virtual tray (not what the host has read yet)."""
    with vtray._lock:
        cells = [(wire.TAG, uid) if (uid := vtray.array.uid_at(c)) is not None else (wire.EMPTY, b"")
                 for c in range(vtray.geometry.cells)]
    return Board(cells, vtray.registry, vtray.geometry)


def _facing(vtray: VirtualTray, first: int, second: int) -> str:
    (r0, c0), (r1, c1) = vtray.geometry.coords(first), vtray.geometry.coords(second)
    step = (r1 - r0, c1 - c0)
    return next(name for name, d in DIRECTIONS.items() if d == step)


def perform(vtray: VirtualTray, actions: list[Action]) -> None:
    for action in actions:
        tile = action.tile
        named = f"{tile.a}-{tile.b}"  # tile.a's half first, on cells[0]
        if action.kind in ("remove", "slide") and vtray.where(tile) is not None:
            vtray.remove(tile)
        if action.kind in ("place", "slide"):
            vtray.place(named, action.cells[0], _facing(vtray, *action.cells[:2]))
        elif action.kind == "pad":
            vtray.hold_on_scan_pad(named)
        elif action.kind == "unpad":
            vtray.take_off_scan_pad()


def lay_out(vtray: VirtualTray, game: Game, moves: list[Move]) -> None:
    """Make the tray show `game` after `moves` (from its start), as restoring after a crash."""
    scratch = Game.from_dict({**game.to_dict(), "moves": []})
    adapter = adapter_for(scratch, vtray.geometry)
    for move in moves:
        perform(vtray, adapter.actions(move, physical_board(vtray)))
        scratch.push(move)


class TableBots:
    """Plays every seat of the runtime's match, in a thread, until the match ends or `stop()`."""

    def __init__(self, runtime, seed: int = 0, strategy: str = "greedy", think: float = 0.0,
                 timeout: float = 10.0):
        self.runtime = runtime
        self.vtray: VirtualTray = runtime.hw.tray.virtual
        self.buttons = MockButtons(runtime.hw.controls)
        self.seed = seed
        self.strategy = strategy
        self.think = think
        self.timeout = timeout
        self.error: BaseException | None = None
        self.moves = 0  # moves made
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table-bots", daemon=True)

    def start(self) -> TableBots:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        try:
            while not self._stop.is_set() and not self.runtime.stopped:
                self._turn()
        except BaseException as exc:  # handed to whoever waits for the match
            self.error = exc
            self.runtime.stop()

    def _snapshot(self):
        """Wait until the session is ready for a move; a copy of its game and what it is doing."""
        rt = self.runtime
        with rt.changed:
            while not self._stop.is_set() and not rt.stopped:
                session = rt.session
                if session is not None and not rt.ended and session.ready_for_move():
                    return Game.from_dict(session.game.to_dict()), session.restoring
                rt.changed.wait(0.05)
        return None, False

    def _turn(self) -> None:
        game, restoring = self._snapshot()
        if game is None:
            return
        if restoring:
            self._clear()
            lay_out(self.vtray, game, game.moves)
            self._wait(lambda s: not s.restoring, "the restored table")
            return
        ply = len(game.moves)
        choose = strategies_for(type(game))[self.strategy](random.Random(f"{self.seed}:{ply}"))
        move = choose(game)
        if self.think:
            time.sleep(self.think)
        adapter: Adapter = adapter_for(game, self.vtray.geometry)
        actions = adapter.actions(move, physical_board(self.vtray))
        if actions:
            perform(self.vtray, actions)
        else:
            self._button_move(adapter, move)
        self.moves += 1
        self._wait(lambda s: len(s.game.moves) != ply or s.game.is_over(), f"move {ply + 1} ({move})")

    def _button_move(self, adapter: Adapter, move: Move) -> None:
        labels = [label for label, m in adapter.button_moves() if m == move]
        if not labels:
            raise BotError(f"{move} leaves no trace on the tray and no button makes it")
        for event in self.runtime.session.menu_presses(labels[0]):
            self.buttons.press(event)

    def _clear(self) -> None:
        for tile in list(self.vtray._tiles):
            self.vtray.remove(tile)

    def _wait(self, done, what: str) -> None:
        rt = self.runtime
        deadline = time.monotonic() + self.timeout
        with rt.changed:
            while not (rt.session is None or done(rt.session) or rt.stopped or self._stop.is_set()):
                if time.monotonic() > deadline:
                    raise BotError(f"the table did not take {what} within {self.timeout:g} s; "
                                   f"it shows: {rt.session.describe()}")
                rt.changed.wait(0.05)


SHORT = {  # options for a quick demo match of each game (given options win)
    "castle-rock": {"hands": 1},
    "broadway": {"hands": 1},
    "doubles-in-the-boneyard": {"target": 50},
}
NAMES = ["ANN", "BOB", "CAT", "DAN", "EVE", "FAY"]


def demo_choice(game: str = "castle-rock", players: int | None = None, options: dict | None = None) -> Choice:
    """The match a demo plays: `game` with its short options, bots named ANN, BOB, ..."""
    cls = get_game(game)
    chosen = {**SHORT.get(cls.name, {}), **(options or {})}
    if players is None:
        players = max(cls.min_players, min(cls.default_players, 2))
    return Choice(cls, chosen, players, NAMES[:players])


def play(runtime, seed: int = 0, strategy: str = "greedy", timeout: float | None = None) -> TableBots:
    """Start the runtime, let bots play every seat until the match ends; raise what went wrong."""
    runtime.start()
    bots = TableBots(runtime, seed, strategy).start()
    try:
        runtime.run(timeout)
    finally:
        bots.stop()
    if bots.error is not None:
        raise bots.error
    return bots
