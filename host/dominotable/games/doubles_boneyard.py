"""Doubles in the Boneyard at the table (seeds/doubles-in-the-boneyard.md)."""

from collections.abc import Sequence

from dominotable.games.spec import GameSpec, shared_words, who, with_search
from dominotable.reading.doubles_boneyard import DoublesBoneyardReader
from dominotable.rules.game import Game, Move
from dominotable.rules.games.doubles_boneyard.engine import DoublesInTheBoneyard, Play
from dominotable.rules.games.doubles_boneyard.playout import DoublesPlayout
from dominotable.rules.hidden import Reveal
from dominotable.rules.line import LEFT
from dominotable.sim.hands.doubles_boneyard import DoublesBoneyardHands


def words(before: Game, move: Move, names: Sequence[str]) -> str:
    """A play names the end of the line it went on; the lots, who drew which double (DB-2.1)."""
    if isinstance(move, Play):
        line = before.line()
        if line is None:
            return f"{who(before, names)} led {move.tile}"
        end = move.end if move.end is not None else next(e for e, v in line.open_ends() if move.tile.has(v))
        return f"{who(before, names)} played {move.tile} at the {'left' if end == LEFT else 'right'} end"
    if isinstance(move, Reveal) and move.word == "lots":
        return "lots drawn: " + ", ".join(f"{names[seat]} {tile}" for seat, tile in zip(before.lots_seats(), move.tiles))
    return shared_words(before, move, names)


SPEC = GameSpec(DoublesInTheBoneyard, DoublesBoneyardReader, DoublesBoneyardHands, "doubles-in-the-boneyard.md",
                zones=("open",), strategies=with_search(DoublesPlayout), bot="search", playout=DoublesPlayout,
                demo={"target": 50}, words=words)
