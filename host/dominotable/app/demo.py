"""Bots that play at the simulated table with their hands: they choose moves with the games'
strategies and make them physically on the VirtualTray (sim/hands), or with the buttons
for moves that leave no trace on the tray. The session judges what the tray shows exactly as it
judges people, so a bot match exercises the whole pipeline: pty, firmware, link, board,
reader, match core, storage, display.

A bot's choice depends only on the seed and the position (its generator is seeded with the
seed and the move number), so a match interrupted and resumed ends as it would have.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

from dominotable.app.config import VenueConfig
from dominotable.app.hardware import Hardware
from dominotable.app.runtime import Runtime
from dominotable.app.venue import start_link, stop_link
from dominotable.games import catalog
from dominotable.match.actions import ButtonMove
from dominotable.match.status import Mode
from dominotable.rules.game import Game, Move
from dominotable.sim.hands.base import Hands, fitting, physical_board
from dominotable.sim.hands.base import perform as perform_actions
from dominotable.sim.memtray import MemoryTray
from dominotable.store.storage import Store
from dominotable.tray.action import Action
from dominotable.tray.board import Board
from dominotable.tray.virtual import VirtualTray
from dominotable.ui.menu import Choice
from dominotable.ui.press import Press
from dominotable.ui.transcript import Transcript

BOT_LONG_PRESS = 0.25  # how long the bots hold select to open the menu (people: 0.8 s)
DRAIN = 10.0  # seconds a demo waits, at its end, for the venue to store its events


def choose(game: Game, seed: int, strategy: str = "greedy") -> Move:
    """The bots' move: the engine's strategy, its generator seeded by the seed and the move
    number, so the same position always gets the same move (a resumed match goes on alike)."""
    return catalog.spec(game).strategy(strategy)(random.Random(f"{seed}:{len(game.moves)}"))(game.copy())


def with_next(game: Game, hands: Hands, move: Move, board: Board,
              follow_of: Callable[[Game], Move]) -> tuple[Move, list[Action]] | None:
    """A move without a trace on the tray (Castle Rock's end of a turn) is implied by the next
    player's placement where the reader reads the two together: then the bots just make the next
    move (`follow_of` the game after `move`), as a player would, instead of pressing buttons.
    That move and its steps on `board`, when they read as both moves; else None."""
    game = game.copy()
    game.push(move)
    if game.is_over():
        return None
    follow = follow_of(game)
    actions = hands.on(game.copy()).actions(follow, board)
    if not actions:
        return None
    after = MemoryTray.of(board)
    after.apply_all(actions)
    return (follow, actions) if list(hands.reader.judge(after.board()).moves) == [move, follow] else None


class BotError(RuntimeError):
    """The table did not take a bot's move: a bug in a reader, its hands or the session."""


class TableBots:
    """Plays every seat of the runtime's match, in a thread, until the match ends or `stop()`."""

    def __init__(self, runtime, seed: int = 0, strategy: str = "greedy", timeout: float = 10.0,
                 perform=None, press=None):
        """`perform(actions, read)` and `press(press)`: how the bots' hands reach the table (default:
        straight onto the virtual tray and the mock buttons; a browser test drags on the page)."""
        self.runtime = runtime
        self.vtray: VirtualTray = runtime.hw.tray.virtual
        self.buttons = runtime.hw.buttons()
        self.perform = perform or (lambda actions, read=None: perform_actions(self.vtray, actions, read))
        self.press = press or self.buttons.press
        self.seed = seed
        self.strategy = strategy
        speed = self.vtray.speed or 1.0  # a slow virtual tray, and a long settle time, take longer
        self.timeout = timeout / min(speed, 1.0) + 3 * runtime.settle_ms / 1000
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
            if session is None or not _ready(session) or session.referee.seats.playing:
                return  # a match with bot seats: a person does what the screen says for the bots
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
                if session is not None and _ready(session):
                    return session.referee.game.copy(), session.referee.status.mode == Mode.RESTORE
                rt.changed.wait(0.05)
        return None, False

    def _turn(self) -> None:
        game, restoring = self._snapshot()
        if game is None:
            return
        hands = catalog.hands_for(game, self.vtray.geometry)
        if restoring:
            self.perform(hands.setup(physical_board(self.vtray)))
            self._wait(lambda r: r.status.mode != Mode.RESTORE, f"the table set up as {hands.reader.expected()}")
            return
        ply = len(game.moves)
        board = physical_board(self.vtray)
        fit = fitting(game, hands, board, choose(game, self.seed, self.strategy))
        if fit is None:
            raise BotError(f"no legal move fits on the tray:\n{board}")
        move, actions = fit
        if not actions:
            implied = with_next(game, hands, move, board, lambda after: choose(after, self.seed, self.strategy))
            actions = implied[1] if implied is not None else []
        if actions:
            self.perform(actions, self._read_on_pad)
        else:
            self._button_move(move)
        self.moves += 1
        self._wait(lambda r: len(r.game.moves) != ply or r.game.is_over(), f"move {ply + 1} ({move})")

    def _button_move(self, move: Move) -> None:
        """Through the in-game menu, once the table offers the move (as a person waits to see it
        offered: right after a commit the table offers the buttons of the tray it judged before,
        until it judges the tray again): a long select opens the menu, the move at its place in the
        menu's list, and the question after it starts on No."""
        place = {}

        def offered(referee) -> bool:
            place["index"] = next((i for i, action in enumerate(referee.actions())
                                   if isinstance(action, ButtonMove) and action.move == move), None)
            return place["index"] is not None

        self._wait(offered, f"{move} into its menu")
        if place.get("index") is None:  # stopped meanwhile
            return
        for press in [Press.LONG_SELECT, *[Press.DOWN] * place["index"], Press.SELECT, Press.UP, Press.SELECT]:
            self.press(press)

    def _read_on_pad(self, tile) -> None:
        """Wait until the session has judged a board with `tile` held over the scan pad."""
        def read(referee):
            board = referee.tracker.judged
            held = board.on_pad() if board is not None else None
            return held is not None and held.tile is tile
        self._wait(read, f"{tile} held over the scan pad")

    def _wait(self, done, what: str) -> None:
        rt = self.runtime
        deadline = time.monotonic() + self.timeout
        with rt.changed:
            while not (rt.session is None or done(rt.session.referee) or rt.stopped or self._stop.is_set()):
                if time.monotonic() > deadline:
                    screen = rt.session.screen()
                    raise BotError(f"the table did not take {what} within {self.timeout:g} s; it shows "
                                   f"{screen.kind} {screen.title!r} {screen.text!r}")
                rt.changed.wait(0.05)


NAMES = ["ANN", "BOB", "CAT", "DAN", "EVE", "FAY"]


def demo_choice(game: str = catalog.DEMO, players: int | None = None, options: dict | None = None) -> Choice:
    """The match a demo plays: `game` with its short options (given options win), bots named ANN,
    BOB, ..."""
    spec = catalog.spec(game)
    if players is None:
        players = max(spec.engine.min_players, min(spec.engine.default_players, 2))
    return Choice(spec.engine, spec.options.from_dict({**spec.demo, **(options or {})}), players, NAMES[:players])


def _ready(session) -> bool:
    """The session waits for a move (not in a menu, not lost, not over)."""
    return session.menu is None and session.referee.status.mode in (Mode.PLAY, Mode.RESTORE)


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


def watch(runtime, db, explicit_db: bool, seed: int, transcript: bool, server=None) -> None:
    """Bots play the runtime's match to its end (said line by line with `transcript`); then what
    they did and where it was recorded. A page being served stays up until a signal."""
    if transcript:
        transcribe(runtime)
    print(summary(runtime, play(runtime, seed=seed)))
    print(recorded(runtime.match_id, db, explicit_db), flush=True)
    if server is not None:
        from dominotable.app.web import wait_for_signal

        server.publish()  # the pages open on it say that the table has stopped
        wait_for_signal()


def demo_match(hw: Hardware, store: Store, choice: Choice, settle_ms: int, seed: int, *, db, explicit_db: bool,
               transcript: bool, repairs: list[str], venue: tuple[VenueConfig, str | None, str | None],
               serve: Callable[[Runtime], object] | None = None) -> None:
    """A bots' demo match of `choice` at the simulated table `hw`, recorded in `store` (the
    database `db`): the table's page served by `serve(runtime)` if given, the match published to
    `venue` ([venue] section, broker, table id) if it has a broker; played to its end (`watch`),
    then the venue given DRAIN seconds to store it. The page and the link are stopped however it
    ends (the hardware is the caller's)."""
    runtime = Runtime(hw, store, settle_ms, seed=seed, choice=choice, stop_when_over=True, demo=True,
                      repairs=repairs)
    server = link = None
    try:
        server = serve(runtime) if serve is not None else None
        link = start_link(runtime, *venue)
        watch(runtime, db, explicit_db, seed, transcript, server)
        stop_link(link, DRAIN)
        link = None
    finally:
        if link is not None:
            link.stop()
        if server is not None:
            server.stop()


def transcribe(runtime) -> None:
    """Print what the screen says as text lines (ui/transcript.py), for a log or a pipe where
    the OLED's block art would be hundreds of lines."""
    transcript = Transcript()
    runtime.observers.append(transcript)


def recorded(match_id: int, db, explicit: bool) -> str:
    """Where a demo match went, and how to see it again."""
    where = f" --db {db}" if explicit else ""
    return f"recorded as demo match {match_id} in {db}; its moves: dominotable history{where} {match_id}"


def summary(runtime, bots: TableBots) -> str:
    """What a bots' match came to: moves, frames, scores and winners by player name."""
    referee = runtime.session.referee
    game = referee.game
    names = referee.seating.side_names(game)
    winners = game.winners()
    return "\n".join([
        f"{game.title}: {len(game.moves)} moves ({bots.moves} made by the bots on the tray or with the buttons), "
        f"{runtime.hw.display.sent} OLED frames",
        "scores: " + ", ".join(f"{n} {s}" for n, s in zip(names, game.scores)),
        "winner: " + (", ".join(names[side] for side in winners) if winners else "none"),
    ])
