"""Up-Down-Stop at the table (seeds/up-down-stop.md)."""

from collections.abc import Sequence

from dominotable.games.spec import GameSpec, shared_words, who, with_search
from dominotable.reading.up_down_stop import UpDownStopReader
from dominotable.rules.game import Game, Move
from dominotable.rules.games.up_down_stop.engine import UP, Discard, Extend, Scrap, Start, Stop, UpDownStop
from dominotable.rules.games.up_down_stop.playout import UpDownStopPlayout
from dominotable.rules.options import Options
from dominotable.sim.bots.up_down_stop import UP_DOWN_STOP
from dominotable.sim.hands.up_down_stop import UpDownStopHands

COLUMNS = ("uds-column-1", "uds-column-2", "uds-column-3", "uds-column-4")
PILES = ("scrap", "discard")


def words(before: Game, move: Move, names: Sequence[str]) -> str:
    """Columns by their number, in the order they were started (UDS-3.6)."""
    name = who(before, names)
    if isinstance(move, Start):
        return f"{name} started column {len(before.columns()) + 1} with {move.tile}"
    if isinstance(move, Extend):
        return f"{name} laid {move.tile} on column {move.column}, {'up' if move.direction == UP else 'down'} " \
               f"to {move.active}"
    if isinstance(move, Stop):
        after = before.copy()
        after.push(move, trusted=True)
        column = next(j for j, c in enumerate(after.columns(), 1) if c.stopper == move.tile)
        return f"{name} stopped column {column} with {move.tile}"
    if isinstance(move, Scrap):
        return f"{name} scrapped {move.tile}"
    if isinstance(move, Discard):
        return f"{name} discarded {move.tile}"
    return shared_words(before, move, names)


def goal(options: Options) -> str:
    """The game ends when the draw pile is empty and no reshuffle is left (UDS-5.3)."""
    return "until the tiles run out"


def zones(options: Options) -> tuple[str, ...]:
    """As many column zones as columns may be open at once (UDS-7.1), and the two piles."""
    return COLUMNS[:options.columns] + PILES


SPEC = GameSpec(UpDownStop, UpDownStopReader, UpDownStopHands, "up-down-stop.md", zones=COLUMNS + PILES,
                strategies=with_search(UpDownStopPlayout, UP_DOWN_STOP), bot="search", playout=UpDownStopPlayout,
                lower_wins=True, words=words, goal=goal, scoring="tiles left out", zones_used=zones)
