"""The real-time loop of the table: tray link events, button presses and a timer, in one thread,
around the setup menu and a Session; every frame the session (or the menu) shows goes to the
display, which sends it only if it changed.

Other threads only send the loop typed messages (its inbox, app/inbox.py: the tray link's events,
gpiozero's button presses, the page's choices and actions, what the venue link heard of the
partner table); the loop alone touches the session, so the session stays plain single-threaded
logic. The board the match judges is the one the tray's event carried; tray events that arrive
together are read as one board: the latest, the tray as it is now, not every intermediate frame.
Time is the injected clock's.

From power-on: an unfinished match in the database resumes (the session first asks for the
table to be restored); otherwise the setup menu chooses game, options, players and names, each
as the last match had them (read from the database, so a restart remembers them); the page's
form makes the same choice (`choose`), and the page's controls queue the same actions the
in-game menu offers (`act`). A
match that no longer replays is set aside (marked damaged) rather than keeping the table from
starting; that, and any repair of the database itself (`repairs`), is said on the screen until
a button is pressed. When a match ends its final screen stays until select, which opens the
setup menu again (names prefilled). With a partner table, its events and invitations are
app/partner.py's.
"""

from __future__ import annotations

import gc
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from dominotable.app import inbox, partner
from dominotable.app.hardware import Hardware
from dominotable.app.partner import Invitation, Partner, PartnerEvent
from dominotable.app.supervisor import Supervisor
from dominotable.games import catalog
from dominotable.match import actions, opening
from dominotable.match.referee import Table
from dominotable.match.seats import SeatKind
from dominotable.match.status import Mode
from dominotable.rules.errors import DominoError
from dominotable.rules.tiles import Tile
from dominotable.store.errors import StoreUnavailable
from dominotable.store.storage import Store
from dominotable.tray.board import Board
from dominotable.tray.link import Event, TrayEvent
from dominotable.ui.menu import Choice, Message, Seat, Setup
from dominotable.ui.oled import screens
from dominotable.ui.presenter import LOST
from dominotable.ui.press import Press
from dominotable.ui.screen import Screen, ScreenKind
from dominotable.ui.session import Session

log = logging.getLogger("dominotable.app")

TICK = 0.05  # seconds between timer ticks (settle time, spinner)


class Runtime:
    def __init__(self, hw: Hardware, store: Store, settle_ms: int, *, seed: int | None = None,
                 choice: Choice | None = None, stop_when_over: bool = False,
                 clock: Callable[[], float] = time.monotonic, observed: bool = True, demo: bool = False,
                 repairs: list[str] | None = None, prompt_after_ms: int = 2000):
        """`choice`: start this match without the setup menu (demos, tests); `seed`: the
        engine's seed for new matches (default: from the clock); `stop_when_over`: `run`
        returns once a match has ended instead of offering a new one; `observed`: the engines'
        observed mode (hidden hands: what the players show is what was dealt); `demo`: record
        matches as bots' demos, and resume only a demo (never a real match); `repairs`: what was
        done to the database before the table could open it, to be said on the screen;
        `prompt_after_ms`: how long a state that hands may still be making legal stays unprompted."""
        self.hw = hw
        self.store = store
        self.settle_ms = settle_ms
        self.prompt_after_ms = prompt_after_ms
        self.seed = seed
        self.choice = choice
        self.stop_when_over = stop_when_over
        self.clock = clock
        self.observed = observed
        self.demo = demo
        self.repairs = list(repairs or [])  # what was repaired (the database, matches set aside)
        self.notice: Message | None = None  # says the repairs until a button is pressed
        self.setup: Setup | None = None
        self.session: Session | None = None
        self.match_id: int | None = None
        self.names: list[str] = []
        self.lock = threading.RLock()  # held while the loop changes state; bots read under it
        self.changed = threading.Condition(self.lock)
        self._stop = threading.Event()
        self.spinner = 0  # the "tray lost" spinner's frame
        self._game_cells: frozenset[int] = frozenset()  # the current match's, for the tray's WATCH
        self.observers: list[Callable[[Screen], None]] = []  # front ends told of each screen shown (under the lock)
        self.supervisor = Supervisor(clock)
        self.tray_lost: str | None = None  # why the tray link is down, while it is
        self._cells: tuple | None = None  # the tray as the last event that carried it showed it
        self.venue = None  # the link to the venue (app/venue.py), where the table has one
        self.partner = Partner(store)  # the table whose people may take seats here, and its invitation
        self._venue_said: str | None = None
        self.link = ""  # the scoreboard's address for phones, once the page is served
        self._faulted = False  # a part of the match failed since the last frame: the notice is to be shown

    # --- life cycle --------------------------------------------------------------------------

    def start(self) -> Runtime:
        with self.lock:
            if not self._resume_unfinished():
                if self.choice is not None:
                    self._new_match(self.choice)
                else:
                    self._open_setup()
            if self.repairs:
                for repair in self.repairs:
                    log.warning("%s", repair)
                if self.choice is None:  # nobody would press a button to go on at a demo
                    self.notice = Message("Repaired", " ".join(self.repairs))
            self._show()
        # Everything loaded so far (modules, fonts, the engine) lives as long as the process:
        # out of the collector's sight, a full collection in the middle of a play costs far less.
        gc.collect()
        gc.freeze()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.send(inbox.Stop())  # wake the loop

    def send(self, message: inbox.Message) -> None:
        """Queue `message` for the loop (any thread; returns at once): how other threads reach the match."""
        self.hw.events.put(message)

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def run(self, timeout: float | None = None) -> None:
        """Handle messages until `stop()` (or the match's end with stop_when_over, or `timeout`
        seconds of the clock)."""
        deadline = None if timeout is None else self.clock() + timeout
        while not self._stop.is_set():
            if deadline is not None and self.clock() > deadline:
                raise TimeoutError(f"the table did not finish within {timeout:g} s")
            self.step(TICK)

    def step(self, wait: float) -> None:
        """Wait up to `wait` seconds for messages, handle everything queued, tick, show."""
        items: list[inbox.Message] = []
        try:
            items.append(self.hw.events.get(timeout=wait))
            while True:
                items.append(self.hw.events.get_nowait())
        except queue.Empty:
            pass
        with self.lock:
            dirty = any(not isinstance(item, inbox.Stop) for item in items)
            board = None  # the latest board the tray's events carried, not judged yet
            for item in items:
                match item:
                    case Event(kind=TrayEvent.SNAPSHOT | TrayEvent.CHANGES):
                        board = item.cells
                    case Event():  # the link lost, or back: what came before it is judged first
                        if board is not None:
                            self._match(self._board, board)
                            board = None
                        self._tray(item)
                    case Press():
                        self._match(self._button, item)
                    case Choice():
                        self._match(self._chosen, item)
                    case inbox.Act():
                        self._match(self._act, item.action)
                    case PartnerEvent():
                        self._match(self.partner.hear, self.session.referee if self.session else None, item)
                    case Invitation():
                        self._match(self._invited, item)
                    case inbox.Stop():
                        pass
            if board is not None:
                self._match(self._board, board)
            if self.session is not None:
                dirty |= bool(self._match(self.session.tick))
                if self.session is not None:
                    self._match(self._after_session)
            spinner = int(self.clock() * 8)
            if spinner != self.spinner and self.tray_lost is not None:
                dirty = True
            if self.venue is not None and str(self.venue.state) != self._venue_said:
                dirty = True
            if self.session is not None:
                dirty |= bool(self._match(partner.reach, self.session.referee, self.venue))
            dirty, self._faulted = dirty or self._faulted, False
            self.spinner = spinner
            if dirty:  # a frame costs a Pillow drawing even when the display then drops it
                if self.session is not None:
                    self.supervisor.run("the tray's watch list", self._watch)
                self._show()
            self.changed.notify_all()

    def _match(self, fn, *args):
        """Run a part of the match (or the setup menu); an exception from it never ends the table:
        it is said on the OLED and the page, and play goes on from the last position recorded,
        the tray read again and judged afresh."""
        try:
            return fn(*args)
        except Exception as exc:  # a bug in one part must not take the table down
            fault = self.supervisor.failed("the match" if self.session is not None else "the setup menu", exc)
            self.notice = Message("Table fault", f"{fault}. The table goes on from the last move recorded.")
            self._faulted = True
            self._recover()
            return None

    def _recover(self) -> None:
        """Rebuild the match from the store (the last committed position), or reopen the setup."""
        match_id, self.session = self.match_id, None
        if match_id is not None:
            try:
                self._resume(match_id)
                return
            except Exception as exc:  # the store itself may be the trouble: the setup menu then
                self.supervisor.failed("resuming the match", exc)
        self._open_setup()

    # --- events ------------------------------------------------------------------------------

    def _tray(self, event: Event) -> None:
        """The tray link lost (its reason said until it is back), or back from a HELLO whose
        tag set the tray's tags are read with from now on."""
        if event.kind == TrayEvent.BACK:
            self.supervisor.run("the tag registry", self.hw.greeted, event.detail)
        why = f" ({event.detail})" if event.kind == TrayEvent.LOST and event.detail else ""
        self.tray_lost = LOST + why if event.kind == TrayEvent.LOST else None
        if self.session is not None:
            self._match(self.session.on_tray, event.kind)

    def _board(self, cells: tuple | None) -> None:
        """The tray as an event carried it (None: as the last one did), to the match."""
        if cells is not None:
            self._cells = cells
        board = self.board
        if self.session is not None and board is not None:
            self.session.on_board(board)

    @property
    def board(self) -> Board | None:
        """The tray as the last event that carried it showed it; None before the tray was read."""
        return self.hw.board(self._cells)

    def _watch(self) -> None:
        """Tell the tray which cells the game uses, and whether it awaits a draw over the pad (a
        commit or a button may start or end one); the link sends only what changed."""
        self.hw.tray.link.watch(self._game_cells, draw=self.session.referee.judge.reader.pad_draw() is not None)

    def _button(self, press: Press) -> None:
        if self.notice is not None:
            self.notice.handle(press)
            if self.notice.done:
                self.notice = None
        elif self.setup is not None:
            self.setup.handle(press)
            self.hw.lights.level = self.setup.lights
            if self.setup.done:
                self._chosen(self.setup.value)
        elif self.session is not None:
            self.session.on_button(press)
            self._after_session()

    def _chosen(self, choice: Choice) -> None:
        """The setup's choice, made with the buttons or on the page: the match starts (if the setup
        is still open: a choice that came after another started a match is dropped)."""
        if self.setup is not None:
            self.setup = None
            try:
                self._new_match(choice)
            except StoreUnavailable as exc:  # nothing was recorded: the setup menu again
                self.names = list(choice.names)
                self._open_setup()
                self.notice = Message("Not recorded", f"{exc}. The match was not started: choose it again.")

    def _act(self, action: actions.Action) -> None:
        if self.session is not None and self.notice is None:
            self.session.do(action)
            self._after_session()

    # --- from the page's thread ---------------------------------------------------------------

    def choose(self, game: str, options: dict, seats: list[Seat]) -> Choice:
        """The page's setup form: checked now (DominoError names what cannot be; nothing changes),
        started by the loop. Only while the setup is open (the page's New match opens it)."""
        with self.lock:
            if self.setup is None:
                raise DominoError("a match is on: end it with New match first, then choose the next one")
            choice = self.setup.choose(catalog.engine(game), options, seats)
        self.send(choice)
        return choice

    def offer(self) -> dict:
        """What the page's setup form offers now (the setup menu's games, options, seats, each as
        last time); DominoError while a match is on."""
        with self.lock:
            if self.setup is None:
                raise DominoError("a match is on: the setup opens with New match")
            return self.setup.offer()

    def targets(self, tile: Tile) -> tuple:
        """Where `tile` may be laid now (match/targets.py), asked of copies, each with what laying
        it there does in words; () with no match on."""
        with self.lock:
            return self.session.referee.places(tile) if self.session is not None else ()

    def act(self, kind: str, move: str | None = None) -> actions.Action:
        """One of the actions that apply now (the in-game menu's list), by its kind and, for a move
        made with the buttons or a takeback, the move's notation; carried out by the loop."""
        with self.lock:
            session = None if self.notice is not None else self.session
            offered = session.referee.actions() if session is not None else []
            action = actions.find(offered, kind, move)
            if action is None:
                now = ", ".join(a.label for a in offered) or "none (no match is on)"
                raise DominoError(f"{kind}{' ' + move if move else ''} does not apply now; what does: {now}")
        self.send(inbox.Act(action))
        return action

    def _after_session(self) -> None:
        referee = self.session.referee
        if referee.wants_new_match and not self.stop_when_over:
            self.session = None
            self._open_setup()
        elif referee.status.mode == Mode.OVER and self.stop_when_over:
            self._stop.set()

    # --- the partner table -------------------------------------------------------------------

    def _invited(self, invitation: Invitation) -> None:
        """The partner's match with seats here: joined now if the table is free, else once it is
        (a demo joins nothing)."""
        if not self.demo:
            self.partner.invited(invitation)
            self._join()

    def _join(self) -> None:
        free = self.setup is not None or (self.session is not None and self.session.referee.status.mode == Mode.OVER)
        if self.partner.waiting is None or not free:
            return
        try:
            referee = self.partner.join(self.hw.geometry, self._table())
        except DominoError as exc:
            self.notice = Message("Cannot join", str(exc))
            return
        self.setup = None
        self._attach(Session(referee))
        log.info("joined table %s's match %s", referee.partner.table, referee.partner.uid)

    # --- matches -----------------------------------------------------------------------------

    def _open_setup(self) -> None:
        games = catalog.GAMES
        racks = {spec.engine: [rack.name for rack in self.hw.geometry.racks(spec.racks)] for spec in games}
        strategies = {spec.engine: [spec.bot, *(s for s in spec.strategies if s != spec.bot)] for spec in games}
        self.setup = Setup([spec.engine for spec in games], self.names, racks, strategies, self._remembered(),
                           self.partner.table, frozenset(spec.engine for spec in games if spec.remote), self.hw.lights.level)
        self.match_id = None
        self._join()

    def _remembered(self) -> list[Choice]:
        """The last match of each game (of demos, at a demo), the latest first: the setup starts there."""
        last: dict[str, Choice] = {}
        try:
            records = self.store.matches()
        except DominoError:  # the store's trouble is said elsewhere; the setup starts afresh
            return []
        for record in records:
            if record.demo != self.demo or record.damaged or record.game in last:
                continue
            try:
                engine = catalog.engine(record.game)
                options = engine.Options.from_dict(record.options)
            except DominoError:  # a game no longer offered, or options since changed
                continue
            last[record.game] = Choice(engine, options, record.players, list(record.names),
                                       {seat: record.strategies.get(seat, "") for seat in record.bots},
                                       tuple(record.remote))
        return list(last.values())

    def _new_match(self, choice: Choice) -> None:
        seed = self.seed if self.seed is not None else time.time_ns() % 2**31
        game = catalog.spec(choice.game).new(choice.players, choice.options, seed, self.observed)
        kinds = [SeatKind.BOT if seat in choice.bots else SeatKind.REMOTE if seat in choice.remote else SeatKind.HUMAN
                 for seat in range(len(choice.names))]
        self._attach(Session(opening.start(self.store, game, choice.names, self.hw.geometry, kinds, self._table(),
                                           demo=self.demo, strategies=choice.bots, partner=self.partner.table or None)))

    def _resume_unfinished(self) -> bool:
        """Resume the latest unfinished match; one that no longer replays is set aside instead."""
        while (match_id := self.store.unfinished(self.demo)) is not None:
            try:
                self._resume(match_id)
                log.info("resuming match %d", match_id)
                return True
            except DominoError as exc:
                self.store.set_aside(match_id, str(exc))
                self.repairs.append(f"Match {match_id} could not be resumed ({exc}): set aside as damaged, "
                                    f"kept for inspection (history {match_id}).")
        return False

    def _resume(self, match_id: int) -> None:
        referee = opening.resume(self.store, match_id, self.hw.geometry, self._table())
        if referee.game.is_over():  # cut off between its last move and recording the result
            self.store.finish(match_id, referee.game)
        self._attach(Session(referee))

    def _table(self) -> Table:
        return Table(self.settle_ms, self.prompt_after_ms, self.clock, self.hw.controls.illegal)

    def _attach(self, session: Session) -> None:
        self.session = session
        referee = session.referee
        self.names = list(referee.seating.names)
        self.match_id = referee.seating.match_id
        self._game_cells = referee.spec.cells(self.hw.geometry)
        if self.tray_lost is not None:  # lost before the match began (during the setup, say)
            session.on_tray(TrayEvent.LOST)
        self._board(None)
        self._watch()

    # --- the display -------------------------------------------------------------------------

    def screen(self) -> Screen:
        """What every front end shows now: a notice until a button is pressed (the repairs, a
        fault), the tray lost, the setup menu, or the match; with the faults not yet mended."""
        faults = tuple(str(f) for f in self.supervisor.faults.values())
        self._venue_said = str(self.venue.state) if self.venue is not None else None
        if self.notice is not None:
            screen = Screen(ScreenKind.PROMPT, self.notice.title, self.notice.text, page=self.notice.page)
        elif self.session is None and self.tray_lost is not None:
            screen = Screen(ScreenKind.LOST, "Tray lost", self.tray_lost)
        elif self.setup is not None:
            screen = Screen(ScreenKind.MENU, self.setup.title, menu=self.setup)
        else:
            screen = self.session.screen(self.tray_lost or LOST)
        said = {"faults": faults} if faults else {}
        if self._venue_said:
            said["venue"] = self._venue_said
        if self.link:
            said["link"] = self.link
        return replace(screen, **said) if said else screen

    def _show(self) -> None:
        """Show the frame (the tray's lights first: they cost a write; the OLED's words are short
        while they light its cells), and tell the observers, with the one screen built for all of them."""
        screen = self.screen()
        self.supervisor.run("the tray's lights", self.hw.lights.show, screen)
        self.supervisor.run("the OLED", self.hw.display.show, screens.draw(self.hw.lights.worded(screen), self.spinner))
        for observer in self.observers:
            self.supervisor.run(getattr(observer, "part", "a front end"), observer, screen)
