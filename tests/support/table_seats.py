"""A person alone at the table with bot opponents, for the bot-seat tests: they play their own
seat from their own hand (and the hints), and do what the screen tells them for the bots: tiles
from a bot's rack to where it says, captures, tiles from the boneyard into a rack's slots.

The person works on a physical tray through a small interface, so the same person plays a
session fed from an in-memory tray (fast, fake clock) and the whole table behind the pty:

- `tiles()` (tile -> cells), `put(tile, cells)`, `take(tile)`, `pad(tile)`, `unpad()`;
- `settle()`: until the table has judged what the tray shows now;
- `screen()`, `press(*buttons)`, `game` (only sizes are read from it: how many tiles the
  person's own hand holds after a deal or a draw, as they would count them).
"""

from __future__ import annotations

import random
import re

from dominotable.games import catalog
from dominotable.rules.games.castle_rock.engine import place
from dominotable.tray.action import Action, ActionKind

from support.table_match import ThreadedTable

PLACE = re.compile(r"^slot (\d+) \((\d+)-(\d+)\) -> .*?(r\d+c\d+)-(r\d+c\d+)(?:, the (\d+) on (r\d+c\d+))?")
TAKE = re.compile(r"^take (.+) off the (?:row|tray)")
RACK = re.compile(r"^(?:a tile|(\d+) tiles) from the boneyard, face down, into (slots? [-\d and]+)")
SLIDE = re.compile(r"^(?:slide|put) (\d+)-(\d+) .*?(r\d+c\d+)-(r\d+c\d+)(?:, the (\d+) on (r\d+c\d+))?")
SLIDE_ALL = re.compile(r"^slide every tile (.+) \(rule")
SPENT = re.compile(r"^hand over: take the tiles out of (slots? [-\d and]+)")


def slot_numbers(text: str) -> list[int]:
    """"slot 2", "slots 1 and 2", "slots 1-7"."""
    if "-" in text:
        first, last = map(int, re.findall(r"\d+", text))
        return list(range(first, last + 1))
    return [int(n) for n in re.findall(r"\d+", text)]


class Person:
    def __init__(self, table, me: int, seed: int = 0, first_column: int = 0, captures: str = "at once"):
        """`captures`: how the person takes a bot's captures off: "at once", "in order" (the order
        said, the tray settling after each tile), "shuffled" (one by one in any order) or "one
        at a time" (any one of the tiles said, then the table's instruction read again)."""
        self.t = table
        self.captures = captures
        self.taken: list = []  # every capture the table told the person to take, as told
        self.first_column = first_column
        self.me = me
        self.rng = random.Random(seed)
        self.geo = table.geometry
        game = table.game
        self.pile = set(game.dset.tiles)  # the boneyard, face down off the tray
        self.mine: list = []  # the person's own hand
        self.hints = 0
        self.asked = False
        self.hand = game.hands_played()

    # -- reading the instructions -------------------------------------------------------------

    def cell(self, label: str) -> int:
        row, col = map(int, label[1:].split("c"))
        return self.geo.cell(row, col)

    def cells(self, tile, first, second, pips=None, at=None) -> tuple[int, int]:
        """The cells named, tile.a's half first ("the 3 on r5c7" says which half goes where)."""
        cells = (self.cell(first), self.cell(second))
        if pips is not None and (int(pips) == tile.a) != (self.cell(at) == cells[0]):
            cells = cells[::-1]
        return cells

    def rack(self, who: str):
        position = who.removesuffix(" bot").lower()
        return next(r for r in self.geo.racks(catalog.spec(self.t.game).racks) if r.name == position)

    def draw(self):
        tile = self.rng.choice(sorted(self.pile))
        self.pile.discard(tile)
        return tile

    def follow(self, said: str) -> bool:
        """Do what the table says for a bot ("East bot: slot 1 (2-2) -> ...", one step; "West bot:
        after ANN: ..." once the person's own turn is done); False if it asks nothing of the kind."""
        who, _, what = said.partition(": ")
        if not who.endswith(" bot"):
            return False
        what = re.sub(r"^after [^:]+: ", "", what)
        rack = self.rack(who)
        if m := SPENT.match(what):  # the tiles go back into the boneyard
            for slot in slot_numbers(m[1]):
                tile = next(t for t, cells in self.t.tiles().items() if tuple(cells) == rack.slots[slot - 1])
                self.t.take(tile)
                self.pile.add(tile)
        elif m := RACK.match(what):
            for slot in slot_numbers(m[2]):
                self.t.put(self.draw(), rack.slots[slot - 1])
        elif m := PLACE.match(what):
            slot = rack.slots[int(m[1]) - 1]
            tile = next(t for t, cells in self.t.tiles().items() if set(cells) == set(slot))
            assert (tile.a, tile.b) == (int(m[2]), int(m[3])), f"slot {m[1]} holds {tile}, not {m[2]}-{m[3]}"
            self.t.take(tile)
            self.t.put(tile, self.cells(tile, *m.groups()[3:]))
        elif m := TAKE.match(what):
            tiles = [self.t.game.dset.parse(name) for name in re.split(r", | and ", m[1])]
            self.taken.append(tiles)
            if self.captures in ("shuffled", "one at a time"):
                self.rng.shuffle(tiles)
            if self.captures == "one at a time":
                tiles = tiles[:1]
            for tile in tiles:
                self.t.take(tile)
                if self.captures != "at once":
                    self.t.settle()
        elif m := SLIDE_ALL.match(what):  # the tableau slides back onto the tray (BW-11.1)
            dr = dc = 0
            for count, way in re.findall(r"(\d+) (right|left|up|down)", m[1]):
                step = int(count) * (1 if way in ("right", "down") else -1)
                dr, dc = (dr + step, dc) if way in ("up", "down") else (dr, dc + step)
            moving = {t: cells for t, cells in self.t.tiles().items() if not self.in_rack(cells)}
            for tile in moving:
                self.t.take(tile)
            for tile, cells in moving.items():
                self.t.put(tile, tuple(self.geo.cell(r + dr, c + dc) for r, c in map(self.geo.coords, cells)))
        elif m := SLIDE.match(what):
            for step in what.split("; then "):
                m = SLIDE.match(step)
                tile = self.t.game.dset.parse(f"{m[1]}-{m[2]}")
                self.t.take(tile)
                self.t.put(tile, self.cells(tile, *m.groups()[2:]))
        else:
            return False
        self.t.settle()
        return True

    # -- a turn ---------------------------------------------------------------------------------

    def step(self) -> bool:
        """One thing done at the table; False once the match is over."""
        screen = self.t.screen()
        if screen.kind == "over":
            return False
        if self.t.game.hands_played() != self.hand:  # a new hand: every tile but the racks' gathered
            self.hand, self.mine = self.t.game.hands_played(), []
            for tile in [t for t, cells in self.t.tiles().items() if not self.in_rack(cells)]:
                self.t.take(tile)
            self.pile = set(self.t.game.dset.tiles) - set(self.t.tiles())
            self.t.settle()
        self.top_up()
        text = screen.text
        if "hold the tile you drew for dealer" in text:
            tile = self.rng.choice(sorted(self.pile))  # looked at, and put back in the boneyard
            self.t.pad(tile)
            self.t.settle()
            self.t.unpad()
            self.t.settle()
        elif ("lay out the starting row" in text or "clear the row" in text or "clear the tray" in text
              or "gather the tiles" in text
              or ("choose who leads" in text and any(not self.in_rack(c) for c in self.t.tiles().values()))):
            self.deal(text)
        elif "show your tiles" in text and self.mine:
            self.show()
        elif screen.kind == "prompt" and screen.title == "Hint":
            self.capture(screen)
        elif screen.bot and screen.seat != screen.turn and self.follow(screen.bot):
            pass  # a bot's rack, while someone else is to move
        elif screen.turn == self.t.names[self.me]:
            self.my_turn(screen)
        elif screen.bot and self.follow(screen.bot):
            pass
        else:
            raise AssertionError(f"nothing to do at: {screen.kind} {screen.title!r} {screen.text!r}")
        return True

    def top_up(self) -> None:
        """The person's own hand: dealt and drawn from the boneyard as the game deals it."""
        game = self.t.game
        if game.awaiting() == "lots":
            return
        hands = game.hands()
        while len(self.mine) < len(hands[self.me]) and self.pile:
            self.mine.append(self.draw())

    def deal(self, text: str) -> None:
        """The last hand's tiles back into the boneyard; Castle Rock's starting row laid out."""
        game = self.t.game
        for tile in [t for t, cells in self.t.tiles().items() if not self.in_rack(cells)]:
            self.t.take(tile)
        self.pile = set(game.dset.tiles) - set(self.t.tiles()) - set(self.mine)  # everything back
        if game.name == "castle-rock":
            reader = catalog.reader_for(game, self.geo)
            for i in range(game.row_size):
                self.t.put(self.draw(), reader.slots[self.first_column + i])
        self.t.settle()

    def show(self) -> None:
        """Broadway's end of a hand: the person's tiles left, laid out away from the tableau."""
        from dominotable.sim.hands.base import lay_aside

        for action in lay_aside(self.t.board(), self.mine):
            self.t.put(action.tile, action.cells)
        self.mine = []
        self.t.settle()

    def table_board(self):
        """The tray as the person sees the game on it: the racks left out."""
        from dominotable.sim.memtray import MemoryTray

        tray = MemoryTray(self.t.board().registry, self.geo)
        tray.tiles = {t: cells for t, cells in self.t.tiles().items() if not self.in_rack(cells)}
        return tray.board()

    def in_rack(self, cells) -> bool:
        return any(set(cells) <= rack.cells for rack in self.geo.racks(catalog.spec(self.t.game).racks))

    def my_turn(self, screen) -> None:
        if self.t.game.name == "broadway":
            return self.broadway_turn()
        said = screen.instruction  # the person's turn: placed once it lays no tile
        finished = said is not None and said.seat == self.me and not any(s.do == "lay" for s in said.steps)
        if not finished:
            hands = catalog.hands_for(self.t.game.copy(), self.geo)
            tile = self.rng.choice(self.mine)
            self.mine.remove(tile)
            for action in hands.actions(place(tile), self.table_board()):
                if action.kind == ActionKind.PLACE:
                    self.t.put(tile, action.cells)
                else:
                    self.t.apply(action)
            self.t.settle()
            self.asked = False
            return
        if not self.asked:
            self.asked = True
            self.hints += 1
            self.t.menu("Hint")
            return
        self.t.menu("End turn", confirm=True)

    # -- what the person remembers of the table (it outlives a crash of the table) ----------------

    def memory(self) -> dict:
        return {"tiles": {str(t): list(cells) for t, cells in self.t.tiles().items()},
                "pile": sorted(map(str, self.pile)), "mine": [str(t) for t in self.mine], "asked": self.asked}

    @classmethod
    def remembered(cls, table, me: int, memory: dict) -> Person:
        person = cls(table, me)
        parse = table.game.dset.parse
        person.pile = {parse(t) for t in memory["pile"]}
        person.mine = [parse(t) for t in memory["mine"]]
        person.asked = memory["asked"]
        person.laid = {parse(t): tuple(cells) for t, cells in memory["tiles"].items()}
        return person

    def lay_out(self, swap=None) -> None:
        """The remembered tiles back where they lay (with `swap`, two slots' tiles the other way
        round): the table's tray after a restart."""
        where = dict(self.laid)
        if swap is not None:
            a, b = swap[0], swap[1]
            for tile, cells in where.items():
                where[tile] = b if tuple(cells) == tuple(a) else a if tuple(cells) == tuple(b) else cells
        for tile, cells in self.t.tiles().items():
            if where.get(tile) != tuple(cells):
                self.t.take(tile)
        for tile, cells in where.items():
            if tile not in self.t.tiles():
                self.t.put(tile, cells)

    def broadway_turn(self) -> None:
        """A tile of the person's hand that fits inside the bots' racks, else a pass."""
        from dominotable.rules.games.broadway.engine import Place
        from dominotable.sim.hands.base import NoRoom

        game = self.t.game
        hands = catalog.hands_for(game.copy(), self.geo)
        hands.keep_clear(frozenset(c for r in self.geo.racks(game.name) for c in r.cells))
        board = self.table_board()
        moves = [m for m in game.legal_moves() if isinstance(m, Place) and m.tile in self.mine]
        self.rng.shuffle(moves)
        for move in moves:
            try:
                actions = hands.actions(move, board)
            except NoRoom:
                continue
            for action in actions:
                self.t.apply(action)
            self.mine.remove(move.tile)
            self.t.settle()
            return
        self.t.menu("pass", confirm=True)

    def capture(self, screen) -> None:
        """Take the tiles the hint says (the capture plan taking most), then ask again; with
        nothing to take, select puts the hint away and the turn is done."""
        if screen.take:
            for name in screen.take:
                self.t.take(self.t.game.dset.parse(name))
            self.t.settle()
            self.asked = False
        else:
            self.t.press("select")


class SessionTable:
    """A session fed from an in-memory tray through a fake clock: the fast table."""

    def __init__(self, tmp_path, game, names, bots, settle_ms: int = 400):
        from dominotable.match import opening
        from dominotable.match.referee import Table as Reflexes
        from dominotable.match.seats import SeatKind
        from dominotable.sim.memtray import MemoryTray
        from dominotable.store.storage import Store
        from dominotable.tray.geometry import default
        from dominotable.tray.tags import Registry
        from dominotable.ui.session import Session

        self.geometry = default()
        self.names = names
        self.now = 100.0
        self.settle_ms = settle_ms
        self.store = Store(tmp_path / "table.db")
        self.layout = MemoryTray(Registry.virtual(game.dset), self.geometry)
        kinds = [SeatKind.BOT if seat in bots else SeatKind.HUMAN for seat in range(len(names))]
        self.session = Session(opening.start(self.store, game, names, self.geometry, kinds,
                                             Reflexes(settle_ms, clock=lambda: self.now)))

    @property
    def game(self):
        return self.session.referee.game

    def tiles(self):
        return dict(self.layout.tiles)

    def board(self):
        return self.layout.board()

    def put(self, tile, cells):
        self.layout.place(tile, tuple(cells))

    def take(self, tile):
        self.layout.apply(Action(ActionKind.REMOVE, tile))

    def apply(self, action):
        self.layout.apply(action)

    def pad(self, tile):
        self.layout.apply(Action(ActionKind.PAD, tile))

    def unpad(self):
        self.layout.apply(Action(ActionKind.UNPAD, self.layout.board().on_pad().tile))

    def settle(self):
        self.session.on_board(self.layout.board())
        self.now += self.settle_ms / 1000
        self.session.tick()

    def screen(self):
        return self.session.screen()

    def press(self, *buttons):
        for button in buttons:
            self.session.on_button(button)

    def menu(self, item, confirm=False):
        self.press("long-select")
        items = self.screen().menu.items
        index = next(i for i, label in enumerate(items) if label.startswith(item))
        self.press(*["down"] * index, "select", *(["up", "select"] if confirm else []))


class PtyTable(ThreadedTable):
    """The whole simulated table in its own thread, as a person at it sees and handles it."""

    def __init__(self, db, choice, seed: int = 1, timeout: float = 30.0, **options):
        super().__init__(db, choice, seed=seed, **options)
        self.geometry = self.vtray.geometry
        self.buttons = self.hw.buttons()
        self.patience = timeout

    @property
    def names(self):
        return self.referee.seating.names

    @property
    def game(self):
        return self.referee.game

    def tiles(self):
        return self.vtray.tiles()

    def board(self):
        from dominotable.sim.hands.base import physical_board

        return physical_board(self.vtray)

    def apply(self, action):
        from dominotable.sim.hands.base import perform

        perform(self.vtray, [action])

    def put(self, tile, cells):
        self.apply(Action(ActionKind.PLACE, tile, tuple(cells)))

    def take(self, tile):
        self.apply(Action(ActionKind.REMOVE, tile))

    def pad(self, tile):
        self.apply(Action(ActionKind.PAD, tile))

    def unpad(self):
        self.vtray.take_off_scan_pad()

    def settle(self):
        """Until the table has judged exactly what lies on the tray."""
        cells = self.vtray.cells()
        self.reaches(lambda: (judged := self.referee.tracker.judged) is not None and judged.cells == cells,
                   "the tray judged")

    def screen(self):
        with self.runtime.lock:
            return self.runtime.session.screen()

    def press(self, *buttons):
        for button in buttons:
            self.buttons.press(button)
        self.reaches(lambda: self.hw.events.empty(), "the buttons handled")
        with self.runtime.lock:  # the loop has handled them once it gives the lock back
            pass

    def menu(self, item, confirm=False):
        self.press("long-select")
        self.reaches(lambda: self.runtime.session.menu is not None, "the menu")
        items = self.screen().menu.items
        index = next(i for i, label in enumerate(items) if label.startswith(item))
        self.press(*["down"] * index, "select", *(["up", "select"] if confirm else []))
        self.reaches(lambda: self.runtime.session.menu is None, "the menu closed")
