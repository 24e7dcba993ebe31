"""Helpers for the table tests: rigged Castle Rock positions and boards built from Layouts."""

from dominotable.app import catalog
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.rules.tiles import DOUBLE_SIX
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.geometry import default
from dominotable.tray.tags import Registry
from table_sim import hands_of

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
