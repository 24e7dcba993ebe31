"""A bar crowd at the simulated table: bots whose hands are messy (sim/crowd.py), playing whole
matches through the real chain (virtual tray behind a pty at real speed, link, runtime,
controller, SQLite, OLED), with everything the table did recorded and scored.

`run(game, seed, trials)` plays matches of `game` until `trials` messy moves were made and
returns a `Record`: the hands' acts and marks, the table's alarms, screens and commits, each
trial's expected engine. `score(records)` counts what the issue asks for:

- a false alarm: an alarm (the buzzer) that no wrong tray explains (one made by the hands no
  more than GRACE seconds before), or a problem prompt that appears while the tray is legal,
  or in a legal transition held for less than the prompt pause;
- a wrong commit: a trial whose table does not end at the expected engine, or a placement
  withdrawn without a player's confirmation (a capture revised within its turn is not one);
- commit delay: from a legal play's last act to the table's last commit of the trial;
  capture commit: the same from a capture's last tile leaving; prompt clear: from the act that
  put a wrong tray right to the first screen without the problem prompt.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from dominotable.app.config import Config, GameConfig, TrayConfig
from dominotable.app.demo import BotError, TableBots, choose, demo_choice, with_next
from dominotable.app.hardware import open_hardware
from dominotable.app.runtime import Runtime
from dominotable.games import catalog
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game, Move
from dominotable.rules.games.castle_rock.capture import Capture
from dominotable.rules.hidden import Reveal
from dominotable.sim.hands.base import Hands, fitting, physical_board
from dominotable.sim.memtray import MemoryTray
from dominotable.sim.stats import percentile
from dominotable.store.storage import Store
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board
from dominotable.ui.oled.display import DisplayConfig

from support import crowd

GRACE = 3.0  # seconds the table may take to see that a wrong tray was put right
PROBLEMS = ("Fix the tray", "Check the tray")
SCENARIOS = ("plain", "slide", "bump", "brief_lift", "two_at_once", "half_off", "wrong_then_right", "out_of_turn")


@dataclass
class Trial:
    game: str
    scenario: str
    start: float
    end: float = 0.0
    reached: bool = False  # the table ended at the expected engine


@dataclass
class Record:
    events: list[tuple[float, str, object]] = field(default_factory=list)  # (time, kind, data)
    trials: list[Trial] = field(default_factory=list)

    def note(self, kind: str, data: object = None) -> None:
        self.events.append((time.monotonic(), kind, data))


class Crowd(TableBots):
    """Table bots whose hands play out a scenario around each move they make on the tray."""

    def __init__(self, runtime: Runtime, record: Record, game_name: str, seed: int, trials: int,
                 scenarios=SCENARIOS, timeout: float = 30.0):
        super().__init__(runtime, seed, timeout=timeout)
        self.record = record
        self.game_name = game_name
        self.rng = random.Random(f"crowd:{seed}")
        self.left = trials
        self.scenarios = scenarios
        self.made: list[str] = []  # scenarios made so far: the least made is tried first

    # -- the Table protocol of sim/crowd.py ----------------------------------------------------

    def act(self, change, what: str, state: str) -> None:
        change(self.vtray)
        self.record.note("act", (what, state))

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def mark(self, kind: str) -> None:
        self.record.note("mark", kind)

    def expect(self, done, what: str) -> None:
        self._wait(done, what)

    def press(self, name: str) -> None:
        self.buttons.press(name)

    # -- turns -----------------------------------------------------------------------------------

    def _turn(self) -> None:
        if self.left <= 0:
            self.runtime.stop()
            return
        game, restoring = self._snapshot()
        if game is None:
            return
        hands = catalog.hands_for(game, self.vtray.geometry)
        plan = None if restoring else self._plan(game, hands, physical_board(self.vtray))
        if plan is None:
            super()._turn()  # set-up, draws over the pad, button moves: made plainly
            return
        self.left -= 1
        trial = Trial(self.game_name, "", time.monotonic())
        self.record.trials.append(trial)
        try:
            expected = self._trial(trial, plan, hands)
            self._wait(lambda c: same_position(c.game, expected), "the table at the expected position")
            truth = self.vtray.cells()
            self._wait(lambda c: c.tracker.judged is not None and c.tracker.judged.cells == truth, "the table caught up with the tray")
            trial.reached = True
        except BotError as error:  # a failed trial: this match ends, the next one goes on
            self.record.note("failure", f"{self.game_name} {trial.scenario}: {error}")
            self.runtime.stop()
        trial.end = time.monotonic()
        self.moves += 1

    def _trial(self, trial: Trial, plan: crowd.Plan, hands: Hands) -> Game:
        if plan.captured:
            trial.scenario = "tile_by_tile" if len(plan.captured) > 1 else "capture"
            return crowd.tile_by_tile(self, plan)
        for name in sorted(self.scenarios, key=lambda n: (self.made.count(n), self.rng.random())):
            trial.scenario = name
            expected = self._scenario(name, plan, hands)
            if expected is not None:
                self.made.append(name)
                return expected
        raise AssertionError("plain always fits")

    def _scenario(self, name: str, plan: crowd.Plan, hands: Hands) -> Game | None:
        committed = _after(len(plan.game.moves) + len(plan.moves))
        if name == "plain":
            return crowd.plain(self, plan)
        if name == "slide":
            return crowd.slide(self, plan)
        if name == "bump":
            return crowd.bump(self, plan)
        if name == "brief_lift":
            return crowd.brief_lift(self, plan, committed)
        if name == "half_off":
            return crowd.half_off(self, plan)
        if name == "two_at_once":
            return crowd.two_at_once(self, plan, self._follow(plan, hands))
        if name == "wrong_then_right":
            return crowd.wrong_then_right(self, plan, self._wrong(plan))
        other = self._other(plan, hands)
        return crowd.out_of_turn(self, plan, other, _after(len(plan.game.moves) + len(other.moves)) if other else None)

    def _plan(self, game: Game, hands: Hands, board: Board) -> crowd.Plan | None:
        """The bot's move as a Plan, when its hands make it on the grid; a capture with the
        captures the bot makes after it in the same turn."""
        fit = fitting(game, hands, board, choose(game, self.seed, self.strategy))
        if fit is None:
            return None
        move, actions = fit
        moves = [move]
        if not actions:
            implied = with_next(game, hands, move, board, lambda after: choose(after, self.seed, self.strategy))
            if implied is None:
                return None
            follow, actions = implied
            moves.append(follow)
        if isinstance(move, Reveal) or any(a.kind in (ActionKind.PAD, ActionKind.UNPAD) for a in actions):
            return None
        captured = []
        if isinstance(move, Capture):
            after = _copy(game, moves)
            while not after.is_over():
                more = choose(after, self.seed, self.strategy)
                if not isinstance(more, Capture):
                    break
                after.push(more)
                moves.append(more)
            captured = [t for m in moves for t in m.tiles]
            actions = [Action(ActionKind.REMOVE, t) for t in captured]
        return crowd.Plan(moves, actions, _copy(game, moves), _copy(game, []),
                          catalog.reader_for(_copy(game, []), board.geometry), board, captured)

    def _follow(self, plan: crowd.Plan, hands: Hands) -> crowd.Plan | None:
        """The next player's placement after the plan (with the end of turn it implies)."""
        tray = MemoryTray.of(plan.board)
        tray.apply_all(plan.actions)
        return next(self._placements(plan.expected, tray.board()), None)

    def _other(self, plan: crowd.Plan, hands: Hands) -> crowd.Plan | None:
        """Another legal placement from the same position: a tile from another player's hand."""
        placed = {a.tile for a in plan.actions}
        return next((other for other in self._placements(plan.game, plan.board)
                     if other.actions[0].tile not in placed), None)

    def _placements(self, position: Game, board: Board):
        """Plans of single placements from `position` (a move with no trace on the tray, such as
        the end of a turn, and a placement after it), in a random order."""
        if position.is_over():
            return
        game = _copy(position, [])
        hands = catalog.hands_for(game, board.geometry)
        reader = catalog.reader_for(_copy(position, []), board.geometry)
        moves = list(game.legal_moves())
        self.rng.shuffle(moves)
        for move in moves[:30]:
            try:
                actions = hands.actions(move, board)
            except DominoError:  # no room for it on the tray
                continue
            if len(actions) == 1 and actions[0].kind == ActionKind.PLACE:
                yield crowd.Plan([move], actions, _copy(game, [move]), _copy(game, []), reader, board)
            elif not actions:
                after = _copy(game, [move])
                if after.is_over():
                    continue
                follows = list(after.legal_moves())
                self.rng.shuffle(follows)
                for follow in follows[:10]:
                    implied = with_next(game, hands, move, board, lambda _, follow=follow: follow)
                    if implied is not None and len(implied[1]) == 1 and implied[1][0].kind == ActionKind.PLACE:
                        yield crowd.Plan([move, follow], implied[1], _copy(game, [move, follow]), _copy(game, []),
                                         reader, board)
                        break

    def _wrong(self, plan: crowd.Plan) -> Action | None:
        """A tile the rules refuse where the move's tile goes (or, in a row game, in the second
        band while the first has room)."""
        last = next((a for a in plan.actions if a.kind == ActionKind.PLACE), None)
        if last is None:
            return None
        tiles = {p.tile: p.cells for p in plan.board.placements}
        covered = {cell for cells in tiles.values() for cell in cells}
        spots = [last.cells[:2], last.cells[1::-1]]
        slots = getattr(plan.reader, "slots", [])
        if len(slots) > 16 and not covered & set(slots[16]):  # the second band's first slot, when free
            spots.append(slots[16])
        free = [t for t in plan.game.dset.tiles if t not in tiles]
        self.rng.shuffle(free)
        for tile in free[:12]:
            for cells in spots:
                if crowd.reads(plan, {**tiles, tile: cells}) == crowd.WRONG:
                    return Action(ActionKind.PLACE, tile, cells)
        return None


def _copy(game: Game, moves: list[Move]) -> Game:
    copy = type(game).from_dict(game.to_dict())
    for move in moves:
        copy.push(move)
    return copy


def _after(count: int) -> Callable[[object], bool]:
    return lambda c: len(c.game.moves) >= count


def same_position(game: Game, expected: Game) -> bool:
    """The same position: for a row game the row, the captures and the turn (a turn's captures
    may be recorded in another order of captures), else the same moves."""
    if hasattr(expected, "row"):
        return (game.row(), game.captured(), game.current_player, game.placed()) == (
            expected.row(), expected.captured(), expected.current_player, expected.placed())
    return [str(m) for m in game.moves] == [str(m) for m in expected.moves]


def run(game_name: str, seed: int, trials: int, *, settle_ms: int = 400, prompt_after_ms: int = 2000,
        speed: float = 1.0, scenarios=SCENARIOS, db_dir: str | None = None) -> Record:
    """Matches of `game_name` with a messy crowd at the simulated table until `trials` trials."""
    record = Record()
    match = 0
    while len(record.trials) < trials:
        _match(record, game_name, seed * 1000 + match, trials - len(record.trials), settle_ms, prompt_after_ms,
               speed, scenarios, db_dir)
        match += 1
    return record


def _match(record: Record, game_name: str, seed: int, trials: int, settle_ms: int, prompt_after_ms: int,
           speed: float, scenarios, db_dir) -> None:
    cfg = Config(tray=TrayConfig(port="none"), display=DisplayConfig(terminal=False),
                 game=GameConfig(settle_ms=settle_ms, prompt_after_ms=prompt_after_ms))
    hw = open_hardware(cfg, speed=speed, long_press=0.2)
    illegal = hw.controls.illegal

    def alarm() -> None:
        record.note("alarm")
        illegal()

    hw.controls.illegal = alarm
    try:
        with tempfile.TemporaryDirectory(dir=db_dir) as folder, Store(Path(folder) / "crowd.sqlite3") as store:
            _watch_store(store, record)
            choice = demo_choice(game_name)
            runtime = Runtime(hw, store, settle_ms, seed=seed, choice=choice, stop_when_over=True,
                              prompt_after_ms=prompt_after_ms)
            _watch_screens(runtime, record)
            runtime.start()
            bots = Crowd(runtime, record, game_name, seed, trials, scenarios)
            bots.start()
            try:
                runtime.run()
            finally:
                bots.stop()
            if bots.error is not None:
                raise bots.error
    finally:
        hw.close()


def _watch_store(store: Store, record: Record) -> None:
    """Every change the committer writes (store.commit), noted once it is on disk: each move
    taken back, then each move made."""
    commit = store.commit

    def committed(match_id, change):
        last = store.move_count(match_id)
        commit(match_id, change)
        for ply in range(last, change.keep, -1):
            record.note("takeback", ply)
        for ply, notation in enumerate(change.moves, change.keep + 1):
            record.note("commit", (ply, notation))

    store.commit = committed


def _watch_screens(runtime: Runtime, record: Record) -> None:
    show = runtime._show
    last = [None]

    def shown():
        show()
        if runtime.session is not None and runtime.setup is None:
            screen = runtime.session.screen()
            seen = (str(screen.kind), screen.title, screen.text)
            if seen != last[0]:
                last[0] = seen
                record.note("screen", seen)

    runtime._show = shown


# -- scoring ------------------------------------------------------------------------------------

def score(records: list[Record], prompt_after_ms: int = 2000) -> dict:
    trials = false_alarms = wrong_commits = 0
    commit, capture, clear = [], [], []
    details: list[str] = []
    for record in records:
        events = sorted(record.events, key=lambda e: e[0])
        acts = [(t, data[1]) for t, kind, data in events if kind == "act"]
        periods = _periods(acts)
        for t, kind, data in events:
            if kind == "alarm" and not _explained(periods, t, "alarm", prompt_after_ms):
                false_alarms += 1
                details.append(f"alarm at {t:.2f} unexplained")
            if kind == "screen" and data[0] == "prompt" and data[1] in PROBLEMS \
                    and not _explained(periods, t, "prompt", prompt_after_ms):
                false_alarms += 1
                details.append(f"prompt {data[2]!r} unexplained")
        wrong_commits += _withdrawn(events)
        details += [data for _, kind, data in events if kind == "failure"]
        for trial in record.trials:
            trials += 1
            if not trial.reached:
                wrong_commits += 1
                continue
            inside = [(t, k, d) for t, k, d in events if trial.start <= t <= trial.end]
            commits = [t for t, k, _ in inside if k == "commit"]
            for t, kind, data in inside:
                if kind == "mark" and data in ("play", "capture") and commits:
                    (commit if data == "play" else capture).append(max(0.0, commits[-1] - t) * 1000)
                if kind == "mark" and data == "fixed":
                    cleared = _cleared(events, t)
                    if cleared is not None:
                        clear.append(cleared * 1000)
    return {
        "trials": trials,
        "false_alarms": false_alarms,
        "wrong_commits": wrong_commits,
        "p95_commit_delay_ms": _ms(percentile(commit, 0.95)),
        "p95_capture_commit_ms": _ms(percentile(capture, 0.95)),
        "p95_prompt_clear_ms": _ms(percentile(clear, 0.95)),
        "median_commit_delay_ms": _ms(percentile(commit, 0.5)),
        "median_capture_commit_ms": _ms(percentile(capture, 0.5)),
        "median_prompt_clear_ms": _ms(percentile(clear, 0.5)),
        "captures_timed": len(capture),
        "prompts_cleared": len(clear),
        "details": details[:20],
    }


def _ms(value: float | None) -> int | None:
    return None if value is None else round(value)


def _periods(acts: list[tuple[float, str]]) -> list[tuple[float, float, str]]:
    """(start, end, state) of each stretch the hands left the tray in."""
    out = []
    for (t, state), (t_next, _) in zip(acts, [*acts[1:], (float("inf"), "")]):
        out.append((t, t_next, state))
    return out


def _explained(periods, t: float, kind: str, prompt_after_ms: int) -> bool:
    for start, end, state in periods:
        if not start <= t <= end + GRACE:
            continue
        if state == crowd.WRONG:
            return True
        if kind == "prompt" and state == crowd.MOVING and t >= start + prompt_after_ms / 1000:
            return True
    return False


def _cleared(events, t: float) -> float | None:
    """Seconds from `t` until the problem prompt up at `t` went; None if none was up."""
    up = None
    for at, kind, data in events:
        if kind != "screen":
            continue
        problem = data[0] == "prompt" and data[1] in PROBLEMS
        if at <= t:
            up = problem
        elif up:
            if not problem:
                return at - t
        else:
            return None
    return None


def _withdrawn(events) -> int:
    """Placements taken back with no confirmation just before (captures revised do not count)."""
    stack: list[str] = []
    confirmed = float("-inf")
    wrong = 0
    for t, kind, data in events:
        if kind == "mark" and data == "confirm":
            confirmed = t
        elif kind == "commit":
            stack.append(data[1])
        elif kind == "takeback" and stack:
            notation = stack.pop()
            if not notation.startswith("x") and t - confirmed > 5.0:
                wrong += 1
    return wrong


def run_all(games, trials_per_game: int, *, seed: int = 0, tables: int = 1, **options) -> list[Record]:
    """`trials_per_game` trials of each game, spread over `tables` simulated tables per game
    running at once (each a virtual tray, a runtime and its crowd, in threads)."""
    jobs = []
    for game in games:
        for table in range(tables):
            share = trials_per_game // tables + (1 if table < trials_per_game % tables else 0)
            jobs.append((game, seed * 100 + table, share))
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = [pool.submit(run, game, table_seed, share, **options) for game, table_seed, share in jobs if share]
        return [future.result() for future in futures]
