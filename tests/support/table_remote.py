"""Two tables playing one match through a real broker, for the remote-seat tests (issue 20).

A `Table` is the real runtime (its loop stepped by the test, on a fake clock), its real SQLite
store and its real venue link to the broker; only the tray is in memory (the physical edge: the
tray's own tests cover the pty, firmware and link). The `Crew` are the people at one table: they
play their own seats from their own hands, draw for dealer and lay out the row at the host, and
do exactly what the screen says for the seats at the other table, taking those tiles from this
table's boneyard, or, when one of them holds the tile, from their hand (then drawing another in
its place: rule CR-12.3).
"""

from __future__ import annotations

import queue
import random
import re
import time
from pathlib import Path

from dominotable.app.hardware import Hardware
from dominotable.app.runtime import Runtime
from dominotable.games import catalog
from dominotable.match.status import Mode
from dominotable.rules.games.castle_rock.engine import CastleRock, place
from dominotable.rules.tiles import DominoSet
from dominotable.sim.memtray import MemoryTray
from dominotable.store.storage import Store
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.connect import Tray
from dominotable.tray.geometry import default
from dominotable.tray.link import Event, TrayEvent
from dominotable.tray.tags import Registry
from dominotable.ui.controls import VirtualControls
from dominotable.ui.lights import TrayLights
from dominotable.ui.menu import Choice
from dominotable.ui.oled.display import DisplayConfig, open_display
from dominotable.ui.press import Press
from dominotable.venue.link import VenueLink

from support.broker import Mosquitto

SETTLE_MS = 400
# Seconds the fake clock moves to pass the settle time: a binary fraction, so that its sums stay
# exact. Steps of 0.4 s drifted: most of them, from 100.0 on, were a hair under 400 ms apart, so a
# board was not judged when the crew moved on, depending on how long it had waited before.
PAST_SETTLE = 0.5
PUT = re.compile(r"^put (\d+)-(\d+) .*?(r\d+c\d+)-(r\d+c\d+)")
TAKE = re.compile(r"^take (.+) off the row")
NAMES = ["ANN", "CAT", "BOB", "DAN"]  # ANN and BOB at table t1, CAT and DAN at t2: turns alternate tables
AT_T2 = (1, 3)


class MemoryLink:
    """The tray link's face the runtime sees, over an in-memory tray."""

    def __init__(self, tray: MemoryTray):
        self.tray = tray
        self.connected = True

    def watch(self, cells=None, *, draw: bool = False) -> None:
        pass

    def light(self, lit) -> None:
        pass

    def close(self) -> None:
        pass


class Table:
    """One table: `t1` hosts with `choice`, `t2` waits in its setup menu for the invitation."""

    def __init__(self, folder: Path, name: str, partner: str, broker: Mosquitto, choice: Choice | None = None,
                 seed: int = 5):
        self.name, self.folder, self.broker, self.partner = name, folder, broker, partner
        self.now = 100.0
        self.geometry = default()
        self.layout = MemoryTray(Registry.virtual(DominoSet(12)), self.geometry)
        self.store = Store(folder / f"{name}.sqlite3")
        self.store.db.execute("PRAGMA synchronous=OFF")  # a test's table: no fsync per move
        controls = VirtualControls()
        self.events: queue.Queue = queue.Queue()
        controls.events = self.events
        display = open_display(DisplayConfig(terminal=False))
        link = MemoryLink(self.layout)
        self.hw = Hardware(Tray(link), self.layout.registry, self.geometry, display, controls, self.events,
                           TrayLights(link))
        self.runtime = Runtime(self.hw, self.store, SETTLE_MS, seed=seed, choice=choice, clock=lambda: self.now)
        self.runtime.partner.table = partner
        self._changed(TrayEvent.SNAPSHOT)  # the tray as the link's handshake reads it
        self.link: VenueLink | None = None
        self.connect()
        self.runtime.start()

    def connect(self) -> None:
        """The venue link, wired as app/venue.py wires it (its partner's events and invitations
        go through the runtime's queue)."""
        from dominotable.app.config import VenueConfig
        from dominotable.app.venue import start_link

        self.link = start_link(self.runtime, VenueConfig(broker=self.broker.url(self.name), table=self.name,
                                                         partner=self.partner))

    def disconnect(self) -> None:
        self.link.stop()
        self.runtime.venue = None

    def close(self) -> None:
        if self.link is not None:
            self.link.stop()
        self.store.close()

    # -- the tray, by hand ---------------------------------------------------------------------

    def tiles(self):
        return dict(self.layout.tiles)

    def board(self):
        return self.layout.board()

    def _changed(self, kind: TrayEvent = TrayEvent.CHANGES) -> None:
        """The tray as a link's event carries it after a change."""
        self.events.put(Event(kind, None, tuple(self.layout.cells())))

    def put(self, tile, cells) -> None:
        self.layout.place(tile, tuple(cells))
        self._changed()

    def take(self, tile) -> None:
        self.layout.apply(Action(ActionKind.REMOVE, tile))
        self._changed()

    def pad(self, tile) -> None:
        self.layout.apply(Action(ActionKind.PAD, tile))
        self._changed()

    def unpad(self) -> None:
        self.layout.apply(Action(ActionKind.UNPAD, self.layout.board().on_pad().tile))
        self._changed()

    # -- the loop ------------------------------------------------------------------------------

    def pump(self) -> None:
        """Handle what is queued (the tray, the buttons, what the link heard)."""
        self.runtime.step(0)

    def settle(self, timeout: float = 10.0) -> None:
        """Until the table has judged what lies on the tray (the loop may first handle what the link
        heard meanwhile: one step handles one thing)."""
        self.pump()
        self.now += PAST_SETTLE
        self.pump()
        deadline = time.monotonic() + timeout
        while (session := self.runtime.session) is not None and session.referee.status.mode not in (Mode.LOST, Mode.OVER):
            judged = session.referee.tracker.judged
            if judged is not None and judged.cells == self.layout.board().cells:
                return
            assert time.monotonic() < deadline, f"{self.name}: the tray was not judged"
            self.now += PAST_SETTLE
            self.pump()

    def screen(self):
        return self.runtime.screen()

    @property
    def referee(self):
        return self.runtime.session.referee

    @property
    def game(self):
        return self.referee.game

    def press(self, *buttons) -> None:
        for button in buttons:
            self.events.put(Press(button))
            self.pump()

    def menu(self, item: str, confirm: bool = False) -> None:
        self.press("long-select")
        items = self.screen().menu.items
        index = next(i for i, label in enumerate(items) if label.startswith(item))
        self.press(*["down"] * index, "select", *(["up", "select"] if confirm else []))

    def moves(self) -> list[str]:
        return [str(m) for m in self.game.moves]


def pair(tmp_path, broker: Mosquitto, seed: int = 5, hands: int = 1) -> tuple[Table, Table]:
    """Table t1 starts Castle Rock for four with CAT and DAN at table t2; t2 joins from its menu."""
    choice = Choice(CastleRock, CastleRock.Options(hands=hands), 4, list(NAMES), remote=AT_T2)
    t2 = Table(tmp_path, "t2", "t1", broker)
    t1 = Table(tmp_path, "t1", "t2", broker, choice, seed)
    return t1, t2


class Crew:
    """The people at one table: `seats` are theirs; the rest they lay as the screen says."""

    def __init__(self, table: Table, seats, seed: int = 0):
        self.t = table
        self.seats = tuple(seats)
        self.rng = random.Random(seed)
        self.pile: set | None = None  # this table's boneyard, face down off the tray
        self.hands: dict[int, list] = {seat: [] for seat in self.seats}
        self.asked = False
        self.done = 0  # things done at the table

    @property
    def host(self) -> bool:
        return self.t.referee.partner.host

    def draw(self):
        tile = self.rng.choice(sorted(self.pile))
        self.pile.discard(tile)
        return tile

    def names(self) -> list[str]:
        return [self.t.referee.seating.names[s] for s in self.seats]

    def step(self) -> str:
        """One thing done at the table: "did", "idle" (nothing to do: the table waits for the
        other one), or "over"."""
        rt = self.t.runtime
        if rt.session is None:
            return "idle"  # the setup menu, until the invitation comes
        screen = self.t.screen()
        if screen.kind == "over":
            return "over"
        if self.pile is None:
            self.pile = set(self.t.game.dset.tiles)
        self.top_up()
        text, bot = screen.text, screen.bot
        if screen.title in ("Paused", "Set up the table") or text.startswith("waiting for "):
            return "idle"
        if "hold the tile you drew for dealer" in text:
            tile = self.rng.choice(sorted(self.pile))  # looked at, and put back in the boneyard
            self.t.pad(tile)
            self.t.settle()
            self.t.unpad()
        elif "lay out the starting row" in text and self.host:
            reader = catalog.reader_for(self.t.game, self.t.geometry)
            for i in range(self.t.game.row_size):
                self.t.put(self.draw(), reader.slots[i])
        elif screen.kind == "prompt" and screen.title == "Hint":
            if screen.take:
                for name in screen.take:
                    self.t.take(self.t.game.dset.parse(name))
                self.asked = False
            else:
                self.t.press("select")
        elif bot and bot.split(": ")[0] not in self.names():
            self.follow(bot.partition(": ")[2])
        elif screen.turn in self.names():
            self.turn(screen, self.seats[self.names().index(screen.turn)])
        else:
            raise AssertionError(f"{self.t.name}: nothing to do at {screen.kind} {screen.title!r} {text!r}")
        self.t.settle()
        self.done += 1
        return "did"

    def top_up(self) -> None:
        """The people's hands: dealt and drawn from the boneyard as the game deals them."""
        game = self.t.game
        if game.awaiting():
            return
        sizes = game.hands()
        for seat in self.seats:
            while len(self.hands[seat]) < len(sizes[seat]) and self.pile:
                self.hands[seat].append(self.draw())

    def follow(self, what: str) -> None:
        """What the screen says for the other table's seat or the other table."""
        if m := PUT.match(what):
            tile = self.t.game.dset.parse(f"{m[1]}-{m[2]}")
            holder = next((s for s, hand in self.hands.items() if tile in hand), None)
            if holder is not None:  # one of us holds it: it goes, and we draw another (CR-12.3)
                self.hands[holder].remove(tile)
                self.hands[holder].append(self.draw())
            else:
                self.pile.remove(tile)
            cells = [self.cell(m[3]), self.cell(m[4])]
            self.t.put(tile, cells)
        elif m := TAKE.match(what):
            for name in re.split(r", | and ", m[1]):
                self.t.take(self.t.game.dset.parse(name))
        else:
            raise AssertionError(f"{self.t.name}: cannot follow {what!r}")

    def cell(self, label: str) -> int:
        row, col = map(int, label[1:].split("c"))
        return self.t.geometry.cell(row, col)

    def turn(self, screen, seat: int) -> None:
        """A turn of ours: place, ask for the hint and take its captures, then End turn."""
        game = self.t.game
        if not game.placed():
            tile = self.rng.choice(self.hands[seat])
            self.hands[seat].remove(tile)
            hands = catalog.hands_for(game.copy(), self.t.geometry)
            for action in hands.actions(place(tile), self.t.board()):
                self.t.layout.apply(action)
            self.t._changed()
            self.asked = False
        elif not self.asked:
            self.asked = True
            self.t.menu("Hint")
        else:
            self.t.menu("End turn", confirm=True)


def play(tables: list[Table], crews: list[Crew], until=None, timeout: float = 60.0) -> None:
    """Both crews at work until the match is over at both tables (or `until()` holds); the
    tables' loops run while a crew waits for the other table."""
    deadline = time.monotonic() + timeout
    while True:
        for table in tables:
            table.pump()
        if until is not None and until():
            return
        states = [crew.step() for crew in crews]
        if until is not None and until():
            return
        if all(s == "over" for s in states):
            return
        if "did" not in states:
            assert time.monotonic() < deadline, [(t.name, t.screen().title, t.screen().text) for t in tables]
            time.sleep(0.005)
            for table in tables:
                table.settle()
