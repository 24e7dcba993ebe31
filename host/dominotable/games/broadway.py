"""Broadway at the table (seeds/broadway.md)."""

from collections.abc import Sequence

from dominotable.games.spec import GameSpec, shared_words, who, with_search
from dominotable.reading.broadway import BroadwayReader
from dominotable.rules.game import Game, Move
from dominotable.rules.games.broadway.engine import Broadway, Expose, Place
from dominotable.rules.games.broadway.playout import BroadwayPlayout
from dominotable.rules.games.broadway.room import Room
from dominotable.rules.options import Options
from dominotable.sim.hands.broadway import BroadwayHands
from dominotable.tray.geometry import Geometry


def words(before: Game, move: Move, names: Sequence[str]) -> str:
    """Seats are named by their players, never by their letters; a tile by its name, as the takeback
    and every prompt name it ("5-6", not the pips in the order laid: issue 28)."""
    if isinstance(move, Place):
        return f"{who(before, names)} laid {move.tile}"
    if isinstance(move, Expose):
        return f"{names[move.seat]} exposed {move.tile}"
    return shared_words(before, move, names)


def goal(options: Options) -> str:
    """A fixed number of hands, then sudden death while the scores are tied (BW-8)."""
    return f"{'one hand' if options.hands == 1 else f'{options.hands} hands'}, ties play on"


def bounds(geometry: Geometry, racks: frozenset[int]) -> dict:
    """The tableau fits on the tray, off the bots' racks (BW-11.6)."""
    return {"room": Room(geometry.columns, geometry.rows, frozenset(map(geometry.coords, racks))).text}


SPEC = GameSpec(Broadway, BroadwayReader, BroadwayHands, "broadway.md", zones=("open", "tableau"), racks="broadway",
                strategies=with_search(BroadwayPlayout), bot="search", playout=BroadwayPlayout,
                demo={"hands": 1}, words=words, goal=goal, bounds=bounds)
