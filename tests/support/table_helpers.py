"""Helpers for the table tests: rigged Castle Rock positions, boards built from Layouts, and a
session fed from an in-memory tray through a fake clock."""

from dominotable.games import catalog
from dominotable.match import opening
from dominotable.match.referee import Table as Reflexes
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.rules.tiles import DOUBLE_SIX
from dominotable.sim.memtray import MemoryTray
from dominotable.store.storage import Store
from dominotable.tray.geometry import default
from dominotable.tray.tags import Registry
from dominotable.ui.session import Session

from support.table_sim import hands_of

T = DOUBLE_SIX.parse
ROW = DOUBLE_SIX.parse_many
GEO = default()
REGISTRY = Registry.virtual()


def rigged(row, hands, turn=0, placed=None, **options):
    """A Castle Rock game whose current hand has this row and these hands, from its written
    position; with `placed`, the player to move has just placed that tile (the last of `row`)."""
    lines = [f"row: {row}"] + [f"P{seat + 1}: {hand}" for seat, hand in enumerate(hands)]
    lines += [f"turn: P{turn + 1}"] + (["placed"] if placed else [])
    return CastleRock.from_position("\n".join(lines), options=options)


def laid(game, layout=None):
    """The reader of `game` and a layout showing the engine's row as bots lay it."""
    reader = catalog.reader_for(game, GEO)
    layout = layout or MemoryTray(REGISTRY, GEO)
    layout.apply_all(hands_of(reader).setup(layout.board()))
    return reader, layout


def column(col, band=0):
    """The (far, near) cells of a row column: band 0 is rows 4-5, band 1 rows 7-8."""
    top = 4 if band == 0 else 7
    return (GEO.cell(top, col), GEO.cell(top + 1, col))


def with_tiles(layout, **changes):
    """A copy of `layout` with tiles moved (tile="cells") or removed (tile=None); names like t2_4."""
    out = MemoryTray(layout.registry, layout.geometry)
    out.tiles = dict(layout.tiles)
    for name, cells in changes.items():
        tile = T(name[1:].replace("_", "-"))
        out.tiles.pop(tile, None)
        if cells is not None:
            out.tiles[tile] = cells
    return out


# -- a session fed from an in-memory tray through a fake clock (the session and hands tests) --------

SETTLE = 400


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now

    def advance(self, ms):
        self.now += ms / 1000


class Table:
    """A session over a real SQLite store, fed boards from a MemoryTray through a fake clock."""

    def __init__(self, tmp_path, game, names=None, layout=None, resumed=False):
        self.clock = Clock()
        self.store = Store(tmp_path / "table.db")
        self.game = game
        self.layout = layout or MemoryTray(REGISTRY, GEO)
        if resumed:
            self.session = Session(opening.resume(self.store, resumed, GEO, Reflexes(SETTLE, clock=self.clock)))
            self.game = self.session.referee.game
        else:
            self.session = Session(opening.start(self.store, game, names or game.side_names(), GEO,
                                                 table=Reflexes(SETTLE, clock=self.clock)))
        self.reader = self.session.referee.judge.reader

    def show(self, layout=None, settle=True):
        """Send the layout's board; with `settle`, let it settle and tick."""
        if layout is not None:
            self.layout = layout
        self.session.on_board(self.layout.board())
        if settle:
            self.clock.advance(SETTLE)
            self.session.tick()

    def act(self, *actions, settle=True):
        self.layout.apply_all(actions)
        self.show(settle=settle)

    def play(self, move):
        self.act(*self.hands.actions(move, self.layout.board()))

    @property
    def hands(self):
        """The game's hands, on a copy of the live engine."""
        return catalog.hands_for(self.game.copy(), GEO)

    def press(self, *events):
        for event in events:
            self.session.on_button(event)

    def menu(self, item):
        """Choose `item` in the in-game menu and confirm it."""
        self.press("long-select")
        items = self.session.screen().menu.items
        index = next(i for i, label in enumerate(items) if label.startswith(item))
        self.press(*["down"] * index, "select", "up", "select")

    @property
    def screen(self):
        return self.session.screen()

    def stored(self):
        return self.store.match(self.session.referee.seating.match_id).moves


def started(tmp_path, game, **kwargs):
    """A table whose tray already shows the engine's position (the session is playing)."""
    table = Table(tmp_path, game, **kwargs)
    _, table.layout = laid(game, table.layout)
    table.show()
    assert table.session.referee.status.mode == "play"
    return table


def cr9(tmp_path, **kwargs):
    return started(tmp_path, rigged("1-6 0-6 0-0 2-4 4-4 0-4 1-1 1-5", ["1-4 3-3", "5-5 6-6"], **kwargs))
