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

from dominotable.app import catalog
from dominotable.app.hardware import MockButtons
from dominotable.app.session import PLAY, RESTORE
from dominotable.reading.reader import Action, Adapter
from dominotable.reading.step import NoRoom
from dominotable.rules.game import Game, Move
from dominotable.sim.memtray import Layout
from dominotable.tray.board import Board
from dominotable.tray.virtual import DIRECTIONS, VirtualTray
from dominotable.ui.menu import Choice


def choose(game: Game, seed: int, strategy: str = "greedy") -> Move:
    """The bots' move: the engine's strategy, its generator seeded by the seed and the move
    number, so the same position always gets the same move (a resumed match goes on alike)."""
    return catalog.spec(type(game)).strategies[strategy](random.Random(f"{seed}:{len(game.moves)}"))(game)


class BotError(RuntimeError):
    """The table did not take a bot's move: a bug in an adapter or the session."""


def physical_board(vtray: VirtualTray) -> Board:
    """What really lies on the virtual tray (not what the host has read yet)."""
    return Board(vtray.cells(), vtray.registry, vtray.geometry)


def _facing(vtray: VirtualTray, first: int, second: int) -> str:
    (r0, c0), (r1, c1) = vtray.geometry.coords(first), vtray.geometry.coords(second)
    step = (r1 - r0, c1 - c0)
    return next(name for name, d in DIRECTIONS.items() if d == step)


def fitting(game: Game, adapter: Adapter, board: Board, chosen: Move) -> tuple[Move, list[Action]]:
    """`chosen` and its actions; when the tray has no room for it (a Broadway tableau
    outgrowing the grid), the first legal move that fits, as a player would choose."""
    for move in (chosen, *(m for m in game.legal_moves() if m != chosen)):
        try:
            return move, adapter.actions(move, board)
        except NoRoom:
            continue
    raise BotError(f"no legal move fits on the tray:\n{board}")


def perform(vtray: VirtualTray, actions: list[Action], read=None) -> None:
    """Make `actions` on the tray; `read(tile)`, if given, before a tile is taken off the scan
    pad: waits until the table has read it there (a draw over the pad, one tile at a time)."""
    for action in actions:
        tile = action.tile
        if action.kind == "unpad" and read is not None:
            read(tile)
        named = f"{tile.a}-{tile.b}"  # tile.a's half first, on cells[0]
        if action.kind in ("remove", "slide") and vtray.where(tile) is not None:
            vtray.remove(tile)
        if action.kind in ("place", "slide"):
            vtray.place(named, action.cells[0], _facing(vtray, *action.cells[:2]))
        elif action.kind == "pad":
            vtray.hold_on_scan_pad(named)
        elif action.kind == "unpad":
            vtray.take_off_scan_pad()


def lay_out(vtray: VirtualTray, game: Game) -> None:
    """Make the tray show the engine's position: a new match's deal, or a resumed match's.
    An adapter without `layout` gets its moves' actions replayed from an empty tray."""
    adapter = catalog.reader_for(game, vtray.geometry)
    if hasattr(adapter, "layout"):
        perform(vtray, adapter.layout(physical_board(vtray)))
        return
    for tile in vtray.tiles():
        vtray.remove(tile)
    scratch = type(game).from_dict({**game.to_dict(), "moves": []})
    replaying = catalog.reader_for(scratch, vtray.geometry)
    for move in game.moves:
        perform(vtray, replaying.actions(move, physical_board(vtray)))
        scratch.push(move, trusted=True)


class TableBots:
    """Plays every seat of the runtime's match, in a thread, until the match ends or `stop()`."""

    def __init__(self, runtime, seed: int = 0, strategy: str = "greedy", timeout: float = 10.0):
        self.runtime = runtime
        self.vtray: VirtualTray = runtime.hw.tray.virtual
        self.buttons = MockButtons(runtime.hw.controls)
        self.seed = seed
        self.strategy = strategy
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

    def one_move(self) -> None:
        """Make the next move now, in the caller's thread (the simulated table's `b` key);
        nothing while the table is not waiting for a move (a menu, the tray lost)."""
        with self.runtime.lock:
            session = self.runtime.session
            if session is None or session.menu is not None or session.mode not in (PLAY, RESTORE):
                return
        try:
            self._turn()
        except BotError as exc:
            self.error = exc

    def _snapshot(self):
        """Wait until the session is ready for a move; a copy of its game and what it is doing."""
        rt = self.runtime
        with rt.changed:
            while not self._stop.is_set() and not rt.stopped:
                session = rt.session
                if session is not None and session.menu is None and session.mode in (PLAY, RESTORE):
                    return type(session.game).from_dict(session.game.to_dict()), session.mode == RESTORE
                rt.changed.wait(0.05)
        return None, False

    def _turn(self) -> None:
        game, restoring = self._snapshot()
        if game is None:
            return
        if restoring:
            lay_out(self.vtray, game)
            expected = catalog.reader_for(game, self.vtray.geometry).expected()
            self._wait(lambda s: s.mode != RESTORE, f"the table set up as {expected}")
            return
        ply = len(game.moves)
        adapter: Adapter = catalog.reader_for(game, self.vtray.geometry)
        board = physical_board(self.vtray)
        move, actions = fitting(game, adapter, board, choose(game, self.seed, self.strategy))
        if not actions:
            actions = self._with_next(game, adapter, move, board)
        if actions:
            perform(self.vtray, actions, self._read_on_pad)
        else:
            self._button_move(adapter, move, board)
        self.moves += 1
        self._wait(lambda s: len(s.game.moves) != ply or s.game.is_over(), f"move {ply + 1} ({move})")

    def _with_next(self, game: Game, adapter: Adapter, move: Move, board: Board) -> list[Action]:
        """A move without a trace on the tray (Castle Rock's end of a turn) is implied by the
        next player's placement where the adapter reads the two together: then the bot just
        makes the next move, as a player would, instead of pressing buttons."""
        game.push(move)
        try:
            if game.is_over():
                return []
            follow = choose(game, self.seed, self.strategy)
            actions = adapter.actions(follow, board)
        finally:
            game.pop()
        if not actions:
            return []
        after = Layout(self.vtray.registry, self.vtray.geometry)
        after.tiles = self.vtray.tiles()
        after.apply_all(actions)
        return actions if list(adapter.judge(after.board()).moves) == [move, follow] else []

    def _button_move(self, adapter: Adapter, move: Move, board: Board) -> None:
        """Through the in-game menu: a long select opens it, the button moves come first,
        and the question after it starts on No."""
        index = next((i for i, (_, m) in enumerate(adapter.button_moves(board)) if m == move), None)
        if index is None:
            raise BotError(f"{move} leaves no trace on the tray and no button makes it")
        for event in ["long-select", *["down"] * index, "select", "up", "select"]:
            self.buttons.press(event)

    def _read_on_pad(self, tile) -> None:
        """Wait until the session has judged a board with `tile` held over the scan pad."""
        def read(session):
            board = session.judged
            held = board.on_pad() if board is not None else None
            return held is not None and held.tile is tile
        self._wait(read, f"{tile} held over the scan pad")

    def _wait(self, done, what: str) -> None:
        rt = self.runtime
        deadline = time.monotonic() + self.timeout
        with rt.changed:
            while not (rt.session is None or done(rt.session) or rt.stopped or self._stop.is_set()):
                if time.monotonic() > deadline:
                    screen = rt.session.screen
                    raise BotError(f"the table did not take {what} within {self.timeout:g} s; it shows "
                                   f"{screen.kind} {screen.title!r} {screen.text!r}")
                rt.changed.wait(0.05)


SHORT = {  # options for a quick demo match of each game (given options win)
    "castle-rock": {"hands": 1},
    "broadway": {"hands": 1},
    "doubles-in-the-boneyard": {"target": 50},
}
NAMES = ["ANN", "BOB", "CAT", "DAN", "EVE", "FAY"]


def demo_choice(game: str = "castle-rock", players: int | None = None, options: dict | None = None) -> Choice:
    """The match a demo plays: `game` with its short options, bots named ANN, BOB, ..."""
    cls = catalog.engine(game)
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


def summary(runtime, bots: TableBots) -> str:
    """What a bots' match came to: moves, frames, scores and winners by player name."""
    session = runtime.session
    game = session.game
    names = session._side_names()
    winners = game.winners()
    return "\n".join([
        f"{game.title}: {len(game.moves)} moves ({bots.moves} made by the bots on the tray or with the buttons), "
        f"{runtime.hw.display.sent} OLED frames",
        "scores: " + ", ".join(f"{n} {s}" for n, s in zip(names, game.scores)),
        "winner: " + (", ".join(names[side] for side in winners) if winners else "none"),
    ])
