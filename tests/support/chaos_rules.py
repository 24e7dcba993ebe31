"""The chaos table (issue 17, item 6): the real runtime on the virtual tray, handled the ways people
handle a bar table, and checked after every step. The rules live here once, for the hypothesis
state machine (tests/sim/test_chaos.py) and for the long run (benchmarks/chaos.py).

The runtime is driven from the caller's thread (`Runtime.step`), so the store's connection is the
caller's too: a store fault is SQLite refusing writes on that very connection (`PRAGMA
query_only`). Everything else goes the physical way: tiles on the virtual tray (the firmware over
emulated readers, behind a pty) or through the page (POST /api/tray), the buttons on gpiozero's
mock pins or through the page (POST /api/button), the USB cable pulled, line noise from the tray.
The runtime's clock can be skipped forward: a person who waits (for a held prompt, for the store's
retry) costs no wall time.

A step is one rule (`RULES`, weighted), made with a `random.Random`:

- progress: what a person does next to move the match on: a legal move through the game's hands
  (for a human seat), a bot seat's instruction done as said, the tray restored when it shows a
  problem, the setup menu walked to the configured match, a notice read;
- bot: a bot seat's instruction done in another order, partly, or wrongly;
- capture: a Castle Rock capture taken off tile by tile in any order, or partly;
- offered: a person lays a held tile on a place the page offers for it (GET /api/targets), as a
  person who trusts the page's outlines does;
- lay, lift, slide, drop (a tile dropped onto a neighbour: a stack), pad: stray hands;
- takeback: the tray put back to the position before the last move, then select;
- buttons, menu: presses, the in-game menu's items;
- unplug, noise, store: the USB cable pulled (and tiles moved meanwhile), bit flips and garbage
  on the wire, the store refusing writes;
- page: the page's reads, and requests it must refuse with a 4xx;
- restore: the tray put back to the committed position.

After every step the table is settled (stepped until it has judged what the tray shows, bounded)
and checked (`Tally`):

- crashes: an exception out of `step`, the runtime stopped, the tray link's thread dead, or a
  fault the supervisor caught (of any part: a bug recovered from is still a crash);
- illegal_commits: the stored match does not replay;
- store_mismatches: replaying the store does not give the live engine (moves, scores, state), or
  the stored seats' holds differ from the live ones;
- screen_mismatches: the page's last screen is not the runtime's screen now;
- stuck_prompts: a problem prompt that stood a while and did not clear once the tray was restored
  to the committed position (the game's hands `setup()`, plus the racks as the holds say); or a
  match that waits with nothing for anyone to do;
- unintended_commits: a committed move placing a tile the test did not lay since the commit
  before, or a commit while a tile of the committed position is off the tray;
- light_mismatches: the tray's LEDs (the virtual tray's emulated chains, as the firmware latched
  them) do not come to show the lights of the runtime's screen now (ui/lights.py's, under the
  tray's brightness cap), while the tray is plugged in and the link up.
- offered_refused: a tile laid on a place the page offered for it that the table refuses (no move
  placing it is committed, or a problem is shown), or a move so committed that the table asks
  back at the next settle (issue 28: what the page offers, the judge accepts, and never asks back).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import tempfile
import time
import traceback
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path

from dominotable.app.config import Config, GameConfig, TrayConfig, WebConfig
from dominotable.app.demo import choose
from dominotable.app.hardware import open_hardware
from dominotable.app.runtime import Runtime
from dominotable.app.web import serve
from dominotable.games import catalog
from dominotable.match.position import Position, Undo
from dominotable.match.replay import replay
from dominotable.match.status import Mode
from dominotable.reading.reader import Refusal
from dominotable.rules.errors import DominoError
from dominotable.rules.hidden import Reveal
from dominotable.rules.moves import Pass
from dominotable.rules.seat_view import unseen
from dominotable.rules.tiles import Tile
from dominotable.sim.memtray import MemoryTray
from dominotable.store.storage import Store
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board
from dominotable.tray.errors import TrayError
from dominotable.ui.buttons import ButtonsConfig
from dominotable.ui.menu import WHEEL, Choice, ListMenu, NameEntry, NumberChoice
from dominotable.ui.oled.display import DisplayConfig
from dominotable.ui.screen import ScreenKind
from dominotray import pins

from support.table_seats import PLACE, RACK, SLIDE, SLIDE_ALL, SPENT, TAKE, slot_numbers

SPEED = 20.0  # the tray emulator's virtual milliseconds per wall millisecond
SETTLE_MS = 20
PROMPT_AFTER_MS = 300
LONG_PRESS = 0.06  # seconds select is held for a long select
SETTLE_S = 4.0  # the longest a settle may take before it is noted
BLIND = 30.0  # ... and before the table counts as blind
STAND = 3  # checks a problem prompt may stand before the way back is tried
CANNOT = ": cannot, restored the tray"  # an instruction the harness's person cannot follow
WAY_OUT = ", or resign"  # a bot's turn the table cannot make: only the way out is said (BW-11.6, BW-11.8)
IDLE = 25  # progress steps in a row with nothing to do before the match counts as stuck
PROBLEMS = ("Fix the tray", "Check the tray", "Take back?", "Restore the table", "Set up the table", "Not recorded")
COUNTS = ("crashes", "illegal_commits", "store_mismatches", "screen_mismatches", "stuck_prompts",
          "unintended_commits", "light_mismatches", "offered_refused")
LIGHTS_S = 1.0  # the longest the tray's LEDs may take to show a screen's lights (a lost frame is resent in 0.3 s)


@dataclass(frozen=True)
class Setting:
    """A match the chaos plays: the game, its seats and short options (so matches end and the
    setup menu is walked again)."""

    game: str
    players: int
    options: dict
    bots: tuple[int, ...] = ()


SETTINGS = {
    "castle-rock": Setting("castle-rock", 2, {"hands": 1}),
    "castle-rock-solitaire": Setting("castle-rock-solitaire", 1, {}),
    "doubles-in-the-boneyard": Setting("doubles-in-the-boneyard", 3, {"target": 50}),
    "broadway": Setting("broadway", 4, {"hands": 1}),
    "up-down-stop": Setting("up-down-stop", 1, {}),
    "castle-rock+bots": Setting("castle-rock", 4, {"hands": 1}, (1, 2, 3)),
    "broadway+bots": Setting("broadway", 4, {"hands": 1}, (1, 2, 3)),
}

RULES = {  # rule -> weight
    "progress": 40, "bot": 8, "capture": 4, "offered": 6, "lay": 7, "lift": 5, "slide": 4, "drop": 2, "pad": 2,
    "takeback": 5, "buttons": 4, "menu": 3, "unplug": 2, "noise": 2, "store": 2, "page": 3, "restore": 3,
}


class Clock:
    """The runtime's monotonic clock, which a waiting person skips forward."""

    def __init__(self):
        self.skipped = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.skipped

    def skip(self, seconds: float) -> None:
        self.skipped += seconds


@dataclass
class Tally:
    steps: int = 0
    counts: dict = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    details: list = field(default_factory=list)  # (count, step, what, the steps before)
    recent: list = field(default_factory=list)  # the last steps made, in words
    unsettled: int = 0  # settles that ran out of time (the table not catching up with the tray)
    slowest: float = 0.0  # the longest settle, seconds
    matches: int = 0  # matches finished
    moves: int = 0  # moves committed, all matches
    offered: int = 0  # tiles laid on a place the page offered (what offered_refused is out of)

    def add(self, count: str, what: str) -> None:
        self.counts[count] += 1
        self.note(count, what)

    def note(self, kind: str, what: str) -> None:
        """A detail, said once (a repeat is counted in the first one's words)."""
        if len(self.details) < 500 and not any(d[0] == kind and d[2] == what for d in self.details):
            self.details.append((kind, self.steps, what, list(self.recent)))

    def did(self, said: str) -> None:
        self.recent = [*self.recent[-11:], f"{self.steps}: {said}"]

    def result(self) -> dict:
        return {"steps": self.steps, **self.counts}


class Chaos:
    def __init__(self, setting: str, seed: int, folder: Path | None = None, speed: float = SPEED):
        self.name = setting
        self.setting = SETTINGS[setting]
        self.seed = seed
        self.tally = Tally()
        self._own = folder is None
        self.folder = Path(folder or tempfile.mkdtemp(prefix="chaos-"))
        self.clock = Clock()
        cfg = Config(tray=TrayConfig(port="none"), display=DisplayConfig(terminal=False),
                     buttons=ButtonsConfig(pin_factory="mock"),
                     game=GameConfig(settle_ms=SETTLE_MS, prompt_after_ms=PROMPT_AFTER_MS))
        self.hw = open_hardware(cfg, speed=speed, long_press=LONG_PRESS)
        self.vtray = self.hw.tray.virtual
        self.geometry = self.vtray.geometry
        self.buttons = self.hw.buttons()
        self.store = Store(self.folder / "chaos.sqlite3")
        self.spec = catalog.spec(self.setting.game)
        self.choice = self._choice()
        self.faults: list[tuple[str, str]] = []  # (part, traceback) the supervisor caught, not yet counted
        self._watch_commits()
        self._start()
        self.unplugged = False
        self.noisy = False
        self.store_refuses = False
        self.laid: set[Tile] = set()  # tiles laid since the last commit
        self.seen_bad: set = set()  # store states already counted
        self.problem: tuple | None = None  # (title, text, checks it has stood)
        self.idle = 0
        self.settle()

    def _choice(self) -> Choice:
        s = self.setting
        racks = self.geometry.racks(self.spec.racks) if s.bots else ()
        names = [f"{racks[seat].name.capitalize()} bot" if seat in s.bots else f"P{seat + 1}"
                 for seat in range(s.players)]
        return Choice(self.spec.engine, self.spec.options.from_dict(s.options), s.players, names, dict.fromkeys(s.bots, ""))

    def _context(self) -> str:
        """The match and the board it was judging, to reproduce a fault by."""
        r = self.referee
        if r is None:
            return ""
        def tiles(board):
            return {str(p.tile): list(p.cells) for p in board.placements} if board is not None else None

        return (f"\n  game {json.dumps(r.game.to_dict())}\n  board {tiles(r.tracker.board)}\n  mode {r.status.mode}"
                f"\n  holds {json.dumps(r.position.holds_dict())}\n  judged area {tiles(r.area)}")

    def close(self) -> None:
        self.server.stop()
        self.hw.close()
        self.store.close()
        if self._own:
            shutil.rmtree(self.folder, ignore_errors=True)

    # -- one step ---------------------------------------------------------------------------------

    def do(self, rule: str, rng: random.Random) -> str:
        """Make one rule, settle, check; what was done, in words."""
        self.tally.steps += 1
        try:
            said = rule + ": " + (getattr(self, "rule_" + rule)(rng) or "")
        except Exception as exc:  # the harness's own mistake: said, not passed for the table's
            said = f"{rule}: the harness failed"
            self.tally.note("harness", "".join(traceback.format_exception(exc)))
        self.tally.did(said)
        self.settle()
        self.check()
        return said

    def step(self, rng: random.Random) -> str:
        """One rule chosen by weight."""
        return self.do(rng.choices(list(RULES), weights=list(RULES.values()))[0], rng)

    # -- the runtime ------------------------------------------------------------------------------

    def run_step(self, wait: float = 0.01) -> None:
        try:
            self.rt.step(wait)
        except Exception as exc:  # the table went down: a crash; it is started again as systemd would
            self.tally.add("crashes", "the runtime raised: " + "".join(traceback.format_exception(exc)).strip()
                           + self._context())
            self._restart()

    def _start(self) -> None:
        """The runtime (resuming an unfinished match, else starting the configured one) with its page;
        every fault its supervisor catches is kept for the checks."""
        self.rt = Runtime(self.hw, self.store, SETTLE_MS, seed=self.seed, choice=self.choice, clock=self.clock,
                          prompt_after_ms=PROMPT_AFTER_MS)
        self.server = serve(self.rt, WebConfig(), "127.0.0.1", 0)
        self.url = self.server.url.rstrip("/")
        failed = self.rt.supervisor.failed

        def recorded(part, exc):
            self.faults.append((part, "".join(traceback.format_exception(exc)).strip() + self._context()))
            return failed(part, exc)

        self.rt.supervisor.failed = recorded
        self.rt.start()

    def _restart(self) -> None:
        """The table went down: started again, as systemd would."""
        self.server.stop()
        self.hw.display.sinks.clear()
        self._start()

    @property
    def referee(self):
        session = self.rt.session
        return session.referee if session is not None else None

    def settle(self, limit: float = SETTLE_S, patient: bool = True) -> bool:
        """Step the runtime until it has judged what lies on the tray (or is waiting for the store
        to take a refused write); False if it did not within `limit` seconds (then it is given up
        to BLIND seconds more, and a table that still has not caught up is noted as blind; not
        `patient`: a fault is on, the table may well not catch up, it is not waited for)."""
        start = time.monotonic()
        noted = False
        patient = patient and not self.noisy
        while True:
            truth = self.vtray.cells()
            self.run_step(0.005)
            if self._caught_up(truth):
                break
            waited = time.monotonic() - start
            if waited > limit and not patient:
                return False
            if waited > limit and not noted:
                noted = True
                self.tally.unsettled += 1
                self.tally.note("unsettled", self._behind(truth))
            if waited > BLIND:
                self.tally.note("blind", self._behind(truth))
                break
        self.tally.slowest = max(self.tally.slowest, time.monotonic() - start)
        return not noted

    def _behind(self, truth) -> str:
        """How the table's view differs from the tray's truth."""
        link = self.hw.tray.link.cells
        label = self.geometry.label
        cells = [f"{label(c)}: read {link[c][0]}, lies {truth[c][0]}" for c in range(len(truth))
                 if c < len(link) and link[c] != truth[c]]
        r = self.referee
        tracker = None if r is None else (str(r.status.mode), r.tracker.judged is not None, r.tracker.refusals)
        return f"lost {self.rt.tray_lost}, the link's cells differ at {cells[:6]}, tracker {tracker}"

    def _caught_up(self, truth) -> bool:
        if not self.hw.events.empty():
            return False
        if self.unplugged:
            return self.rt.tray_lost is not None
        if self.rt.tray_lost is not None or self.hw.tray.link.cells != truth:
            return False
        r = self.referee
        if r is None or r.status.mode == Mode.OVER:
            return True
        tracker = r.tracker
        return tracker.board is not None and tracker.board.cells == truth and (
            tracker.judged is not None or tracker.retrying)

    def wait(self, seconds: float) -> None:
        """A person waits (the runtime's clock skips ahead), then the table settles."""
        self.clock.skip(seconds)
        self.settle()

    # -- the person's hands -----------------------------------------------------------------------

    def tiles(self) -> dict[Tile, tuple[int, int]]:
        return self.vtray.tiles()

    def apply(self, action: Action, page: bool = False) -> bool:
        """One step of a hand on the tray, through the page or straight on the virtual tray;
        False if the tray refused it (a covered cell, a tile not there)."""
        if action.kind in (ActionKind.PLACE, ActionKind.SLIDE, ActionKind.PAD):
            self.laid.add(action.tile)
        if page and action.kind != ActionKind.UNPAD:
            body = {"action": str(action.kind), "tile": f"{action.tile.a}-{action.tile.b}"}
            if action.cells:
                body["cells"] = list(action.cells)
            status, answer = self.post("/api/tray", body)
            if status >= 500:
                self.tally.add("crashes", f"POST /api/tray {body}: {status} {answer}")
            return status == 200
        try:
            self.vtray.apply(action) if action.kind != ActionKind.UNPAD else self.vtray.take_off_scan_pad()
        except TrayError:
            return False
        return True

    def perform(self, actions: list[Action], rng: random.Random | None = None) -> None:
        """Steps as a hand makes them; each tile held over the scan pad stays until the table read it."""
        for action in actions:
            if action.kind == ActionKind.UNPAD:
                self.settle()
            self.apply(action, page=rng is not None and rng.random() < 0.2)

    def put_tray(self, target: dict[Tile, tuple[int, int]]) -> None:
        """Make the tray show exactly `target` (tile -> cells under tile.a, tile.b)."""
        for tile, cells in self.tiles().items():
            if target.get(tile) != tuple(cells):
                self.vtray.remove(tile)
        for cell in range(self.geometry.cells):  # a bare tag (none is laid now) or a stack's leftovers
            if self.vtray.array.uids_at(cell) and not any(cell in c for c in self.tiles().values()):
                self.vtray.remove(cell)
        for tile, cells in target.items():
            if tile not in self.tiles():
                try:
                    self.vtray.apply(Action(ActionKind.PLACE, tile, cells))
                except TrayError as exc:  # the harness's own mistake: said, not passed for the table's
                    self.tally.note("harness", f"restoring {target}: {exc}")

    def press(self, name: str, page: bool = False) -> None:
        if page:
            status, answer = self.post("/api/button", {"button": name})
            if status >= 500:
                self.tally.add("crashes", f"POST /api/button {name}: {status} {answer}")
        else:
            self.buttons.press(name)
        self.run_step(0.005)

    def presses(self, *names: str) -> None:
        for name in names:
            self.press(name)

    # -- the page ---------------------------------------------------------------------------------

    def get(self, path: str):
        return _call(urllib.request.Request(self.url + path))

    def post(self, path: str, body, content_type: str = "application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        return _call(urllib.request.Request(self.url + path, data=data, method="POST",
                                            headers={"Content-Type": content_type}))

    # -- what the table holds ---------------------------------------------------------------------

    def racks(self) -> dict[int, object]:
        r = self.referee
        if r is None:
            return {}
        return r.seats.racks

    def rack_tiles(self) -> set[Tile]:
        r = self.referee
        if r is None:
            return set()
        return {t for hold in r.position.holds.values() for t in (*hold.rack.values(), *hold.spent.values())}

    def in_rack(self, cells) -> bool:
        return any(set(cells) <= rack.cells for rack in self.racks().values())

    def area_board(self) -> Board:
        """What lies on the tray outside the racks."""
        tray = MemoryTray(self.vtray.registry, self.geometry)
        tray.tiles = {t: c for t, c in self.tiles().items() if not self.in_rack(c)}
        return tray.board()

    def hands(self, game):
        r = self.referee
        if r is not None:
            return r.seats.hands.on(game)
        return self.spec.hands_for(game, self.geometry)

    def committed_tray(self, p: Position | None = None) -> dict[Tile, tuple[int, int]]:
        """Where every tile lies for position `p` (default: the committed one): the game's hands lay
        it out, the racks hold what the holds say."""
        r = self.referee
        p = p or r.position.copy()
        tray = MemoryTray(self.vtray.registry, self.geometry)
        tray.apply_all(self.hands(p.game.copy()).setup(tray.board()))
        for seat, hold in p.holds.items():
            for slot, tile in {**hold.spent, **hold.rack}.items():
                tray.tiles[tile] = r.seats.racks[seat].slots[slot - 1]
        return dict(tray.tiles)

    def restore(self, p: Position | None = None) -> None:
        """Put the tray back to the committed position (or `p`)."""
        if self.referee is None:
            return
        try:
            target = self.committed_tray(p)
        except DominoError as exc:
            self.tally.note("info", f"the hands cannot lay out the position: {exc}")
            return
        self.put_tray(target)
        self.settle()

    # -- progress: what a person does next ---------------------------------------------------------

    def rule_progress(self, rng: random.Random) -> str:
        if self.unplugged:
            self._replug(rng)
            return "replugged"
        if self.store_refuses:
            self._free_store()
            return "store freed"
        return self._next(rng)

    def _next(self, rng: random.Random) -> str:
        rt = self.rt
        if rt.notice is not None:
            self.press("select")
            return "read the notice"
        if rt.setup is not None:
            return self._setup_step(rng)
        session = rt.session
        r = session.referee
        status = r.status
        if session.menu is not None:
            self.press("long-select")
            return "backed out of the menu"
        if status.mode == Mode.OVER:
            self.tally.matches += 1
            self.press("select")
            return "match over: a new one"
        if status.mode == Mode.LOST:
            self.settle()
            return "waited for the tray"
        if (r.game.name, tuple(s for s in range(len(r.seating.kinds)) if r.seats and r.seats.plays(s))) != (
                self.setting.game, self.setting.bots):
            self._menu("New match", yes=True)
            return "another match than configured: new match"
        screen = rt.screen()
        if screen.title == "Not recorded":
            self.wait(31)
            return "waited for the store"
        if status.hint is not None and status.notice is not None:
            self.press("select")
            return "put the hint away"
        if screen.seat and screen.bot.endswith(WAY_OUT):
            if self.committed_tray() != self.tiles():  # a person tidies up before giving up
                self.restore()
                return "restored the tray before the way out"
            return self._way_out(screen.bot, rng)
        if screen.seat:
            done = self._follow(screen.bot, rng, "as said")
            self.idle = self.idle + 1 if done.endswith(CANNOT) else 0
            if self.idle >= IDLE:
                self.idle = 0
                self.tally.add("stuck_prompts", f"an instruction no one can follow: {screen.bot!r}" + self._context())
                self._menu("New match", yes=True)
            return "for " + done
        if status.mode in (Mode.RESTORE, Mode.TAKEBACK) or status.problem or (
                screen.kind == ScreenKind.PROMPT and screen.title in PROBLEMS):
            self.restore()
            return "restored the tray"
        return self._human_move(rng)

    def _setup_step(self, rng: random.Random) -> str:
        """Walk the setup menu towards the configured match, a few presses at a time."""
        for _ in range(12):
            setup = self.rt.setup
            if setup is None:
                break
            press = self._setup_press(setup)
            self.press(press, page=rng.random() < 0.1)
        return "setup menu"

    def _setup_press(self, setup) -> str:
        s, model = self.setting, setup.current
        engine = self.spec.engine
        if setup.stage == "game":
            return _towards(model, setup.games.index(engine))
        if setup.game is not engine and setup.stage in ("options", "edit", "seat"):
            return "long-select"  # another game chosen meanwhile: back towards the list of games
        if setup.stage == "options":
            wanted = {**{k: v for k, v in self.choice.options.to_dict().items()}, "players": s.players}
            for i, value in enumerate(model.values):
                current = setup.players if value == "players" else setup.options.get(value)
                if value in wanted and current != wanted[value]:
                    return _towards(model, i)
            return _towards(model, model.values.index("Start"))
        if setup.stage == "edit":
            goal = s.players if setup._editing == "players" else self.choice.options.to_dict()[setup._editing]
            if isinstance(model, NumberChoice):
                return "select" if model.number == goal else "up" if model.number < goal else "down"
            return _towards(model, model.values.index(goal))
        if setup.stage == "seat":
            return _towards(model, 1 if len(setup.names) in s.bots else 0)
        if setup.stage == "name":
            entry: NameEntry = model
            taken = {n.lower() for n in setup.names}
            text = " ".join(entry.text.split())
            goal = "OK" if text and text.lower() not in taken else "A" if len(entry.text) < entry.max_len else "DEL"
            if entry.wheel == goal:
                return "select"
            forward = (WHEEL.index(goal) - entry.position) % len(WHEEL)
            return "up" if forward <= len(WHEEL) - forward else "down"
        return "select"  # a message read

    def _human_move(self, rng: random.Random) -> str:
        """A legal move for the seat to move, made as a person makes it (the game's hands)."""
        r = self.referee
        game = r.game.copy()
        if r.seats.plays(game.current_player) and not game.awaiting():
            self.idle += 1
            if self.idle >= IDLE:
                self.idle = 0
                screen = self.rt.screen()
                seat = game.current_player
                hold = r.position.holds.get(seat)
                self.tally.add("stuck_prompts", f"a bot is to move and nothing is asked: {screen.kind} "
                                                f"{screen.title!r} {screen.text!r}; moves {_moves(game)}; its hold "
                                                f"{hold.to_dict() if hold is not None else None}; its turn "
                                                f"{r.seats.turn(r.position, r.area)[0]}" + self._context())
                self._menu("New match", yes=True)
            self.wait(PROMPT_AFTER_MS / 1000)
            return "nothing to do: a bot is to move"
        if set(self.committed_tray()) != set(self.tiles()):  # a person tidies up before playing
            self.restore()
            return "tidied the tray"
        hands = self.hands(game)
        board = self.area_board()
        quick = self._candidates(game, hands, board, rng)
        for move, actions in chain(quick, self._candidates(game, hands, board, rng, limit=None)):
            self.idle = 0
            if not actions and rng.random() < 0.8:
                implied = self._implied(game, hands, move, board, rng)
                if implied is not None:
                    self.perform(implied[1], rng)
                    return f"moved {move} by laying {implied[0]}"
            if actions:
                self.perform(actions, rng)
                return f"moved {move}"
            label = next((label for label, m in r.button_moves() if m == move), None)
            if label is not None:
                self._menu(label, yes=True)
                return f"moved {move} with the menu"
        self.idle += 1
        if self.idle >= IDLE:
            self.idle = 0
            self.tally.add("stuck_prompts", f"no move a person can make: {_moves(game)}; screen "
                                            f"{self.rt.screen().text!r}; racked {sorted(map(str, self.rack_tiles()))}"
                                            + self._context())
            self._menu("New match", yes=True)
        self.restore()
        return "no move fits"

    def _implied(self, game, hands, move, board: Board, rng: random.Random):
        """A move without a trace (Castle Rock's end of a turn) made by laying the next player's tile,
        where the reader reads the two together: that tile and its steps."""
        after = game.copy()
        after.push(move)
        if after.is_over():
            return None
        for follow, actions in self._candidates(after, hands.on(after.copy()), board, rng):
            if follow.placed() is None or not actions:
                continue
            tray = MemoryTray.of(board)
            tray.apply_all(actions)
            if list(hands.reader.judge(tray.board()).moves) == [move, follow]:
                return follow, actions
            return None
        return None

    def _candidates(self, game, hands, board: Board, rng: random.Random, limit: int | None = 40):
        """Moves for the seat to move (the bots' choice first), with their steps on `board`; tiles in
        the bots' racks are not in a person's hand, nor (for what a person reveals) those on the tray.
        `limit`: how many moves are tried (on a crowded tray few of many may fit; None: all)."""
        racked = self.rack_tiles()
        held = racked | set(self.tiles())
        free = [t for t in game.dset.tiles if t not in held]
        moves = list(game.legal_moves())
        may_pass = not (self.racks() and any(m.placed() in free for m in moves))  # who holds a tile that fits plays
        rng.shuffle(moves)
        try:
            moves.insert(0, choose(game, self.seed))
        except DominoError:
            pass
        tried = 0
        for move in moves:
            if isinstance(move, Reveal) and move.tiles and set(move.tiles) & held:
                move = self._redrawn(game, move, free, rng)
            elif move.placed() is not None and move.placed() in racked:
                continue
            if move is None or (isinstance(move, Pass) and not may_pass):
                continue
            tried += 1
            if limit is not None and tried > limit:
                return
            try:
                yield move, hands.actions(move, board)
            except (DominoError, Refusal):  # no room for it on the tray, or the tray is not as committed
                continue

    def _redrawn(self, game, move: Reveal, free: list[Tile], rng: random.Random) -> Reveal | None:
        """The same reveal with tiles a person may hold (not in a rack, not on the tray)."""
        for _ in range(20):
            if len(free) < len(move.tiles):
                return None
            tiles = tuple(rng.sample(free, len(move.tiles)))
            other = Reveal(move.word, tuple(sorted(tiles)) if move.word == "show" else tiles, move.seat)
            if game.is_legal(other):
                return other
        return None

    # -- a bot seat's instruction ------------------------------------------------------------------

    def _follow(self, said: str, rng: random.Random, how: str) -> str:
        """Do what the screen says for a bot seat: `how` is "as said", "shuffled", "partly" or
        "wrongly"."""
        steps = self._instruction(said, rng)
        if steps is None:
            self.restore()
            return f"{said}{CANNOT}"
        if how == "shuffled":
            rng.shuffle(steps)
        elif how == "partly" and len(steps) > 1:
            steps = steps[:rng.randrange(1, len(steps))]
        elif how == "wrongly":
            steps = self._wrong(steps, rng)
        for group in steps:
            for action in group:
                self.apply(action, page=rng.random() < 0.2)
            if rng.random() < 0.5:
                self.settle()
        return f"{said} ({how})"

    def _way_out(self, said: str, rng: random.Random) -> str:
        """The table says a bot's turn cannot be made as dealt, with the tray as committed, and names
        the way out. In these settings none should be needed (every match is bound to the tray, and
        one person against bots cannot pass wrongly): a stuck prompt. The person then takes a move
        back (the tray put back, then select) or resigns, and play goes on."""
        self.tally.add("stuck_prompts", f"only a way out with the tray as committed: {said!r}" + self._context())
        if rng.random() < 0.5 and self._take_back(rng):
            return f"{said}: took a move back"
        self._menu("Resign", yes=True)
        return f"{said}: resigned"

    def _instruction(self, said: str, rng: random.Random) -> list[list[Action]] | None:
        """The steps of a bot's instruction, in groups (a tile's take and lay together)."""
        who, _, what = said.partition(": ")
        what = re.sub(r"^after [^:]+: ", "", what)
        rack = next((r for r in self.racks().values() if f"{r.name.capitalize()} bot" == who), None)
        if rack is None:
            return None
        tiles = self.tiles()
        at = {tuple(sorted(c)): t for t, c in tiles.items()}
        parse = self.referee.game.dset.parse
        if m := SPENT.match(what):
            return [[Action(ActionKind.REMOVE, at[tuple(sorted(rack.slots[k - 1]))])] for k in slot_numbers(m[1])
                    if tuple(sorted(rack.slots[k - 1])) in at]
        if m := RACK.match(what):
            game = self.referee.game
            held = self.rack_tiles() | set(tiles)
            free = [t for t in unseen(game) if t not in held]
            slots = slot_numbers(m[2])
            if len(free) < len(slots):
                return None  # the boneyard is on the tray: tidy up first
            return [[Action(ActionKind.PLACE, tile, rack.slots[k - 1])] for k, tile in zip(slots, rng.sample(free, len(slots)))]
        if m := PLACE.match(what):
            tile = at.get(tuple(sorted(rack.slots[int(m[1]) - 1])))
            if tile is None:
                return None
            cells = self._cells(tile, *m.groups()[3:])
            return [[Action(ActionKind.REMOVE, tile)], [Action(ActionKind.PLACE, tile, cells)]]
        if m := TAKE.match(what):
            return [[Action(ActionKind.REMOVE, parse(name))] for name in re.split(r", | and ", m[1])]
        if m := SLIDE_ALL.match(what):
            dr = dc = 0
            for count, way in re.findall(r"(\d+) (right|left|up|down)", m[1]):
                n = int(count) * (1 if way in ("right", "down") else -1)
                dr, dc = (dr + n, dc) if way in ("up", "down") else (dr, dc + n)
            moving = {t: c for t, c in tiles.items() if not self.in_rack(c)}
            area = self.referee.area
            # judged where the table read them: the tray may have changed since (moved while the USB
            # cable was out, before the table saw the link go), and the instruction was for that tray
            off = [str(p.tile) for p in (area.placements if area is not None else ())
                   if not p.on_pad and not self.in_rack(p.cells) and self._moved(p.cells, dr, dc) is None]
            if off:  # the table's own tiles: an instruction no one can follow
                self.tally.add("stuck_prompts", f"{said!r} slides {off} off the tray" + self._context())
            removes = [Action(ActionKind.REMOVE, t) for t in moving]
            places = [Action(ActionKind.PLACE, t, to) for t, cells in moving.items()
                      if (to := self._moved(cells, dr, dc)) is not None]
            return [removes + places]  # a stray tile the slide would take off the tray is picked up
        if SLIDE.match(what):
            steps = []
            for part in what.split("; then "):
                m = SLIDE.match(part)
                tile = parse(f"{m[1]}-{m[2]}")
                steps.append([Action(ActionKind.REMOVE, tile),
                              Action(ActionKind.PLACE, tile, self._cells(tile, *m.groups()[2:]))])
            return steps
        return None

    def _moved(self, cells, dr: int, dc: int) -> tuple[int, ...] | None:
        """`cells` moved `dr` rows and `dc` columns; None if that is off the grid (or they are not on it)."""
        try:
            return tuple(self.geometry.cell(r + dr, c + dc) for r, c in map(self.geometry.coords, cells))
        except TrayError:
            return None

    def _cells(self, tile: Tile, first: str, second: str, pips=None, at=None) -> tuple[int, int]:
        """The cells an instruction names, tile.a's half first ("the 3 on r5c7" says which is which)."""
        cells = (self._cell(first), self._cell(second))
        if pips is not None and (int(pips) == tile.a) != (self._cell(at) == cells[0]):
            cells = cells[::-1]
        return cells

    def _cell(self, label: str) -> int:
        row, col = map(int, label[1:].split("c"))
        return self.geometry.cell(row, col)

    def _wrong(self, steps: list[list[Action]], rng: random.Random) -> list[list[Action]]:
        """The steps done wrongly: a tile laid a row or a column off, turned round or across its line
        (into a rack slot too), another tile taken."""
        geo = self.geometry
        out = []
        for group in steps:
            changed = []
            for action in group:
                if action.kind == ActionKind.PLACE and rng.random() < 0.7:
                    a, b = action.cells
                    (r0, c0), (r1, c1) = geo.coords(a), geo.coords(b)
                    options = [(b, a)]
                    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                        if 0 <= min(r0, r1) + dr and max(r0, r1) + dr < geo.rows and 0 <= min(c0, c1) + dc \
                                and max(c0, c1) + dc < geo.columns:
                            options.append((geo.cell(r0 + dr, c0 + dc), geo.cell(r1 + dr, c1 + dc)))
                        if 0 <= r0 + dr < geo.rows and 0 <= c0 + dc < geo.columns and (r0 + dr, c0 + dc) != (r1, c1):
                            options.append((a, geo.cell(r0 + dr, c0 + dc)))
                    changed.append(replace(action, cells=rng.choice(options)))
                elif action.kind == ActionKind.REMOVE and rng.random() < 0.3:
                    others = [t for t, c in self.tiles().items() if t is not action.tile and not self.in_rack(c)]
                    changed.append(replace(action, tile=rng.choice(others)) if others else action)
                else:
                    changed.append(action)
            out.append(changed)
        return out

    def rule_bot(self, rng: random.Random) -> str:
        screen = self.rt.screen()
        if not screen.seat:
            return self.rule_progress(rng)
        return self._follow(screen.bot, rng, rng.choice(["as said", "shuffled", "partly", "wrongly"]))

    # -- captures ---------------------------------------------------------------------------------

    def rule_capture(self, rng: random.Random) -> str:
        """A turn's captures taken off tile by tile in any order, or only some of them."""
        r = self.referee
        if r is None or r.status.mode != Mode.PLAY:
            return self.rule_progress(rng)
        game = r.game.copy()
        takes = [m for m in game.legal_moves() if m.taken()]
        if not takes or r.seats.plays(game.current_player):
            return self.rule_progress(rng)
        tiles = list(rng.choice(takes).taken())
        after = game.copy()
        after.push(next(m for m in takes if list(m.taken()) == tiles))
        more = [m for m in after.legal_moves() if m.taken()] if not after.is_over() else []
        if more and rng.random() < 0.5:
            tiles += list(rng.choice(more).taken())
        rng.shuffle(tiles)
        if rng.random() < 0.3 and len(tiles) > 1:
            tiles = tiles[:rng.randrange(1, len(tiles))]
        for tile in tiles:
            self.apply(Action(ActionKind.REMOVE, tile), page=rng.random() < 0.2)
            if rng.random() < 0.5:
                self.settle()
        return "took " + " ".join(map(str, tiles))

    # -- a person who trusts the page's outlines ------------------------------------------------

    def rule_offered(self, rng: random.Random) -> str:
        """A tile from off the tray (not a bot's rack), held over the page: laid on a place the page
        offers for it, then the table settles and, after a pause, settles again: the move placing it
        is committed and nothing is asked back."""
        r = self.referee
        if r is None or r.status.mode != Mode.PLAY or self.unplugged or self.noisy or self.store_refuses:
            return self.rule_progress(rng)
        racked = self.rack_tiles()
        tiles = [t for t in self._off_tray() if t not in racked]
        rng.shuffle(tiles)
        for tile in tiles[:6]:
            status, answer = self.get(f"/api/targets?tile={tile.a}-{tile.b}")
            if status >= 500:
                self.tally.add("crashes", f"GET /api/targets?tile={tile}: {status} {answer}")
            offered = answer.get("targets") if status == 200 else None
            if offered:
                return self._lay_offered(tile, tuple(rng.choice(offered)), rng)
        return self.rule_progress(rng)

    def _lay_offered(self, tile: Tile, cells: tuple[int, int], rng: random.Random) -> str:
        r = self.referee
        before = len(r.game.moves)
        label = f"{tile} on {self.geometry.label(cells[0])}-{self.geometry.label(cells[1])}"
        if not self.apply(Action(ActionKind.PLACE, tile, cells), page=rng.random() < 0.5):
            return f"offered {label}: the tray refused the step"
        self.tally.offered += 1
        self.settle()
        r = self.referee
        made = r is not None and any(m.placed() == tile for m in r.game.moves[before:])
        if made and r.status.mode == Mode.OVER:
            return f"laid {label} as offered: the match is over"
        if r is None or not made or r.status.problem or r.status.mode != Mode.PLAY:
            shown = self.rt.screen()
            self.tally.add("offered_refused", f"{label} offered, then not taken: {shown.title!r} {shown.text!r}"
                                              + self._context())
            return f"laid {label} as offered: refused"
        self.wait(PROMPT_AFTER_MS / 1000)
        r = self.referee
        if r is not None and r.status.mode != Mode.OVER and (
                r.status.problem or r.status.mode == Mode.TAKEBACK or not any(m.placed() == tile for m in r.game.moves)):
            shown = self.rt.screen()
            self.tally.add("offered_refused", f"{label} offered and taken, then asked back: {shown.title!r} "
                                              f"{shown.text!r}" + self._context())
            return f"laid {label} as offered: asked back"
        return f"laid {label} as offered"

    # -- stray hands ------------------------------------------------------------------------------

    def _off_tray(self) -> list[Tile]:
        dset = self.referee.game.dset if self.referee is not None else catalog.spec(self.setting.game).new(
            self.setting.players, self.choice.options, 0).dset
        on = set(self.tiles())
        return [t for t in dset.tiles if t not in on]

    def _free_spots(self, near: set[int] | None = None) -> list[tuple[int, int]]:
        geo = self.geometry
        taken = {c for cells in self.tiles().values() for c in cells}
        spots = []
        for cell in range(geo.playing):
            if cell in taken or (near is not None and cell not in near):
                continue
            for other in geo.neighbours(cell):
                if other < geo.playing and other not in taken:
                    spots.append((cell, other))
        return spots

    def rule_lay(self, rng: random.Random) -> str:
        tiles = self._off_tray()
        if not tiles:
            return self.rule_lift(rng)
        tile = rng.choice(tiles)
        on = self.tiles()
        geo = self.geometry
        near = {n for cells in on.values() for c in cells for n in geo.neighbours(c)} if on else None
        how = rng.random()
        game_cells = self.spec.cells(geo)
        spots = (self._free_spots(near) if how < 0.5 else self._free_spots(set(game_cells)) if how < 0.8
                 else self._free_spots())
        if not spots:
            return "no room"
        cells = rng.choice(spots)
        self.apply(Action(ActionKind.PLACE, tile, cells), page=rng.random() < 0.3)
        return f"laid {tile} on {geo.label(cells[0])}-{geo.label(cells[1])}"

    def rule_lift(self, rng: random.Random) -> str:
        on = list(self.tiles())
        if not on:
            return self.rule_lay(rng)
        tile = rng.choice(on)
        self.apply(Action(ActionKind.REMOVE, tile), page=rng.random() < 0.3)
        return f"lifted {tile}"

    def rule_slide(self, rng: random.Random) -> str:
        on = self.tiles()
        if not on:
            return self.rule_lay(rng)
        tile = rng.choice(list(on))
        geo = self.geometry
        cells = on[tile]
        near = {n for c in cells for n in geo.neighbours(c)} | set(cells)
        spots = [s for s in self._free_spots(near | {n for c in near for n in geo.neighbours(c)})] + [cells[::-1]]
        spots = [s for s in spots if s != tuple(cells)]
        to = rng.choice(spots)
        self.apply(Action(ActionKind.SLIDE, tile, to), page=rng.random() < 0.3)
        return f"slid {tile} to {geo.label(to[0])}-{geo.label(to[1])}"

    def rule_drop(self, rng: random.Random) -> str:
        """A tile dropped onto a neighbour: it lies on top of it (the readers under see a stack)."""
        on = self.tiles()
        if not on:
            return self.rule_lay(rng)
        under = rng.choice(list(on))
        cells = on[under]
        tiles = self._off_tray() + [t for t in on if t is not under]
        tile = rng.choice(tiles)
        if tile in on:
            self.vtray.remove(tile)
        facing = rng.choice(["right", "down", "left", "up"])
        try:
            self.vtray.pile(f"{tile.a}-{tile.b}", rng.choice(cells), facing)
        except (TrayError, ValueError):
            return "no room to drop"
        self.laid.add(tile)
        self.settle()
        if rng.random() < 0.7:  # picked up again
            self.vtray.remove(tile)
        return f"dropped {tile} on {under}"

    def rule_pad(self, rng: random.Random) -> str:
        held = next((t for t, c in self.tiles().items() if self.geometry.is_pad(c[0])), None)
        if held is not None:
            self.apply(Action(ActionKind.UNPAD, held))
            return f"took {held} off the pad"
        tiles = self._off_tray()
        if not tiles:
            return "no tile for the pad"
        tile = rng.choice(tiles)
        self.apply(Action(ActionKind.PAD, tile), page=rng.random() < 0.3)
        if rng.random() < 0.6:
            self.settle()
            self.apply(Action(ActionKind.UNPAD, tile))
        return f"held {tile} over the pad"

    def rule_restore(self, rng: random.Random) -> str:
        self.restore()
        return "restored the tray"

    # -- takebacks, buttons, menus ----------------------------------------------------------------

    def rule_takeback(self, rng: random.Random) -> str:
        r = self.referee
        if r is None or not r.game.moves or r.status.mode not in (Mode.PLAY, Mode.TAKEBACK):
            return self.rule_progress(rng)
        last = r.game.moves[-1]
        if self._take_back(rng, sure=False):
            return f"took back {last}"
        return "put the tray back before the last move"

    def _take_back(self, rng: random.Random, sure: bool = True) -> bool:
        """Put the tray back as it lay before the last move and take it back: with select where the
        table offers "Take back?", else with the menu (always when `sure`, else half the time)."""
        r = self.referee
        if not r.game.moves:
            return False
        before = r.position.copy()
        before.apply(Undo())
        self.restore(before)
        if self.rt.screen().title == "Take back?":
            self.press("select", page=rng.random() < 0.3)
            return True
        return (sure or rng.random() < 0.5) and self._menu("Take back", yes=True)

    def rule_buttons(self, rng: random.Random) -> str:
        names = [rng.choice(["up", "down", "select", "select", "long-select"]) for _ in range(rng.randint(1, 3))]
        for name in names:
            self.press(name, page=rng.random() < 0.3)
        return "pressed " + " ".join(names)

    def rule_menu(self, rng: random.Random) -> str:
        session = self.rt.session
        if session is None:
            return self.rule_buttons(rng)
        self.press("long-select")
        menu = session.menu
        if menu is None:
            return "no menu"
        items = list(menu.model.items)
        index = rng.randrange(len(items))
        yes = rng.random() < (0.15 if items[index] in ("New match", "Resign") else 0.6)
        self.presses(*["down"] * index, "select")
        if session.menu is not None and yes:
            self.presses("up", "select")
        elif session.menu is not None:
            self.press("select")
        return f"menu: {items[index]}{' yes' if yes else ''}"

    def _menu(self, label: str, yes: bool) -> bool:
        """Choose `label` in the in-game menu (and answer its question)."""
        session = self.rt.session
        if session is None:
            return False
        if session.menu is not None and not hasattr(session.menu.model, "items"):
            self.press("long-select")  # a question a random press left open: backed out of first
        if session.menu is None:
            self.press("long-select")
        menu = session.menu
        if menu is None or not hasattr(menu.model, "items"):
            return False
        items = list(menu.model.items)
        index = next((i for i, item in enumerate(items) if item.startswith(label)), None)
        if index is None:
            self.press("long-select")
            return False
        self.presses(*["down"] * index, "select")
        if session.menu is not None:
            self.presses(*(["up"] if yes else []), "select")
        self.settle()
        return True

    # -- faults -----------------------------------------------------------------------------------

    def rule_unplug(self, rng: random.Random) -> str:
        page = rng.random() < 0.3
        if page:
            self.post("/api/fault", {"fault": "unplug"})
        else:
            self.vtray.unplug()
        self.unplugged = True
        self.settle(1.0, patient=False)
        done = []
        for _ in range(rng.randint(0, 2)):  # the players go on meanwhile
            done.append(self.do_quietly(rng.choice(["lay", "lift", "progress"]), rng))
        self._replug(rng)
        return "unplugged; " + "; ".join(done)

    def do_quietly(self, rule: str, rng: random.Random) -> str:
        """A rule made while a fault lasts (the fault is not mended by it)."""
        if rule == "progress":
            return self._next(rng)
        return getattr(self, "rule_" + rule)(rng) or rule

    def _replug(self, rng: random.Random) -> None:
        if rng.random() < 0.3:
            self.post("/api/fault", {"fault": "replug"})
        else:
            self.vtray.replug(reboot=rng.random() < 0.3)
        self.unplugged = False
        self.settle()

    def rule_noise(self, rng: random.Random) -> str:
        """Bit flips and garbage on the wire from the tray (and, less, towards it) while hands work."""
        out, back = self.vtray.to_host, self.vtray.to_tray
        out.bit_flip, out.garbage = rng.choice([0.001, 0.01, 0.05]), rng.choice([0.0, 0.1, 0.5])
        back.bit_flip = rng.choice([0.0, 0.001])
        self.noisy = True
        done = self.do_quietly(rng.choice(["lay", "lift", "progress", "slide"]), rng)
        self.settle(0.5)
        out.bit_flip = out.garbage = back.bit_flip = 0.0
        self.noisy = False
        self.settle()
        return f"noise while {done}"

    def rule_store(self, rng: random.Random) -> str:
        """The store refuses writes (a full disk, a file gone read-only) while people play on."""
        self.store.db.execute("PRAGMA query_only = 1")
        self.store_refuses = True
        done = [self.do_quietly(rng.choice(["progress", "progress", "takeback", "menu", "lay"]), rng)
                for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.8:
            self._free_store()
        return "store refusing: " + "; ".join(done)

    def _free_store(self) -> None:
        self.store.db.execute("PRAGMA query_only = 0")
        self.store_refuses = False
        self.wait(31)  # the table tries the refused write again

    def rule_page(self, rng: random.Random) -> str:
        match_id = self.rt.match_id or 1
        paths = ["/api/state", "/oled.png", "/", "/scores", "/api/history", "/api/leaderboard",
                 f"/replay/{match_id}?step={rng.randint(0, 80)}", "/tray.svg?zones=" + ",".join(self.spec.zones)]
        path = rng.choice(paths)
        status, _ = self.get(path)
        if status != 200:
            self.tally.add("crashes", f"GET {path}: {status}")
        bad = rng.choice([
            ("/api/tray", {"action": "place", "tile": "9-9", "cells": [0, 1]}),
            ("/api/tray", {"action": "place", "tile": "1-2", "cells": [0, 999]}),
            ("/api/tray", {"action": "remove", "tile": "not a tile"}),
            ("/api/button", {"button": "middle"}),
            ("/api/fault", {"fault": "dead", "cell": -1}),
            ("/api/tray", b"[" * 500),
        ])
        status, answer = self.post(*bad)
        if not 400 <= status < 500:
            self.tally.add("crashes", f"POST {bad[0]} {bad[1]!r:.60}: {status} {answer!r:.200}")
        return f"page {path}, refused {bad[0]}"

    # -- the checks -------------------------------------------------------------------------------

    def check(self) -> None:
        """The invariants, after a settle."""
        self._alive()
        r = self.referee
        if r is not None and not self.store_refuses:
            self._store_matches(r)
        self._screens()
        self._lights()
        self._way_back()

    def _alive(self) -> None:
        for part, trace in self.faults:
            self.tally.add("crashes", f"{part} failed: {trace}")
        self.faults.clear()
        if self.rt.stopped:
            self.tally.add("crashes", "the runtime stopped")
            self._restart()
        thread = self.hw.tray.link._thread
        if thread is not None and not thread.is_alive():
            self.tally.add("crashes", "the tray link's thread died")

    def _store_matches(self, r) -> None:
        record = self.store.match(r.seating.match_id)
        key = (record.id, tuple(record.moves))
        if key in self.seen_bad:
            return
        try:
            stored = replay(record)
        except DominoError as exc:
            self.seen_bad.add(key)
            self.tally.add("illegal_commits", f"match {record.id} does not replay ({exc}): {record.moves}")
            return
        live = r.game
        holds = record.holds or {str(seat): type(h)().to_dict() for seat, h in r.position.holds.items()}
        if ([str(m) for m in stored.moves] != [str(m) for m in live.moves] or stored.scores != live.scores
                or stored.to_dict() != live.to_dict() or holds != r.position.holds_dict()):
            self.seen_bad.add(key)
            self.tally.add("store_mismatches", f"match {record.id}: stored {record.moves} scores {stored.scores}, "
                                               f"live {_moves(live)} scores {live.scores}; holds stored {holds}, "
                                               f"live {r.position.holds_dict()}")

    def _screens(self) -> None:
        """The page shows the runtime's screen (once its server has gathered the change: it sends
        changes together, within a few milliseconds)."""
        now = json.loads(json.dumps(self.rt.screen().to_dict()))
        deadline = time.monotonic() + 0.5
        while True:
            status, state = self.get("/api/state")
            if status != 200:
                self.tally.add("crashes", f"GET /api/state: {status}")
                return
            shown = state.get("screen") or {}
            if shown == now:
                return
            if time.monotonic() > deadline:
                break
            time.sleep(0.01)
        diff = {k: (shown.get(k), v) for k, v in now.items() if shown.get(k) != v}
        self.tally.add("screen_mismatches", f"the page shows another screen than the runtime's: {diff}")

    def _lights(self) -> None:
        """The tray's LEDs show the lights of the runtime's screen (waiting for the positive sign: the
        chains latched them; the link sends a change at once and again until the tray acknowledges)."""
        if self.unplugged or not self.hw.tray.link.connected:
            return
        screen = self.rt.screen()
        want = {cell: tuple(v * pins.LIGHT_BRIGHTNESS // 255 for v in rgb)
                for cell, rgb in self.hw.lights.lit(screen).items()}
        deadline = time.monotonic() + LIGHTS_S
        while (lit := self.vtray.lit()) != want:
            if time.monotonic() > deadline:
                self.tally.add("light_mismatches", f"the tray lights {lit}, the screen ({screen.kind} {screen.title!r} "
                                                   f"{screen.text!r}) asks for {want}")
                return
            time.sleep(0.01)

    def _watch_commits(self) -> None:
        """Every write of moves, as it happens: each new move places a tile laid since the commit
        before, and the tiles of the position written lay on the board the table judged."""
        real = self.store.commit

        def commit(match_id, change):
            real(match_id, change)
            try:
                self._committed(match_id, change.keep, list(change.moves))
            except Exception as exc:  # the harness's own bug must not pass for the table's
                self.tally.note("harness", "".join(traceback.format_exception(exc)))

        self.store.commit = commit

    def _committed(self, match_id: int, keep: int, moves: list[str]) -> None:
        """A write of moves: each new move that places a tile places one laid since the commit before
        (or one of the moves it takes back placed: "take back and play this instead"); and a tile that
        just ended a hand is on the tray when the table goes on from it (lifted, it is a takeback on
        offer, not a tile missing from the hand's count)."""
        r = self.referee
        if r is None or (keep == len(r.game.moves) and not moves):
            return
        live = r.game
        game = catalog.load({**live.to_dict(), "moves": [str(m) for m in live.moves[:keep]] + moves})
        new, undone = game.moves[keep:], live.moves[keep:]
        self.tally.moves += len(new)
        replayed = {m.placed() for m in undone}
        for move in new:
            tile = move.placed()
            if tile is not None and tile not in self.laid and tile not in replayed:
                self.tally.add("unintended_commits", f"{move} committed, but {tile} was not laid since the last "
                                                     f"commit (moves {_moves(game)})")
        # a tile taken back lies there still: read again, it is the same play; a tile laid and not yet
        # played stays laid (a write may come between: a takeback, or a move read before it)
        self.laid = ((self.laid - {m.placed() for m in new}) | replayed) - {None}
        judged = r.tracker.settled
        last = live.moves[-1] if live.moves and not undone else None
        if last is None or last.placed() is None or judged is None:
            return
        before = live.copy()
        before.pop()
        ended = before.hands_played() != live.hands_played() or (before.awaiting() is None and live.awaiting())
        dealt = any(isinstance(m, Reveal) and m.word == "deal" for m in new)
        if ended and not dealt and all(p.tile is not last.placed() for p in judged.placements):
            self.tally.add("unintended_commits", f"{' '.join(map(str, new))} committed while {last.placed()}, "
                                                 f"which ended the hand ({last}), is off the tray "
                                                 f"(moves {_moves(game)})")

    def _way_back(self) -> None:
        """A problem prompt that stood a while: the tray put back to the committed position must clear it."""
        if self.unplugged or self.store_refuses or self.rt.session is None:
            self.problem = None
            return
        screen = self.rt.screen()
        if not (screen.kind == ScreenKind.PROMPT and screen.title in PROBLEMS):
            self.problem = None
            return
        seen = (screen.title, screen.text)
        if self.problem is None or self.problem[:2] != seen:
            self.problem = (*seen, 1)
            return
        self.problem = (*seen, self.problem[2] + 1)
        if self.problem[2] < STAND:
            return
        self.problem = None
        for _ in range(3):
            if self.rt.screen().title == "Not recorded":  # the store's retry, else it is read (select)
                self.wait(31)
                if self.rt.screen().title == "Not recorded":
                    self.press("select")
            else:
                self.restore()
                self.wait(max(PROMPT_AFTER_MS, SETTLE_MS) / 1000)
            after = self.rt.screen()
            if not (after.kind == ScreenKind.PROMPT and after.title in PROBLEMS):
                return
        r = self.referee
        self.tally.add("stuck_prompts", f"{after.title}: {after.text!r} stays with the tray as committed "
                                        f"(moves {_moves(r.game) if r else ''}; tray "
                                        f"{ {str(t): c for t, c in self.tiles().items()} })")
        self._menu("New match", yes=True)


def _towards(model: ListMenu, index: int) -> str:
    if model.selected == index:
        return "select"
    forward = (index - model.selected) % len(model.items)
    return "down" if forward <= len(model.items) - forward else "up"


def _moves(game) -> list[str]:
    return [str(m) for m in game.moves]


def _call(request):
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            body, status, kind = response.read(), response.status, response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        body, status, kind = error.read(), error.code, error.headers.get("Content-Type", "")
    return status, json.loads(body) if "json" in kind else body


def run(setting: str, steps: int, seed: int, folder: Path | None = None,
        progress: Callable[[Tally], None] | None = None) -> Tally:
    """`steps` rules chosen at random (seeded) on a chaos table of `setting`; the tally (also
    given to `progress` after every step)."""
    chaos = Chaos(setting, seed, folder)
    rng = random.Random(f"chaos:{setting}:{seed}")
    try:
        for _ in range(steps):
            chaos.step(rng)
            if progress is not None:
                progress(chaos.tally)
    finally:
        chaos.close()
    return chaos.tally
