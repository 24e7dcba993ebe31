"""Doubles in the Boneyard at the table (seeds/doubles-in-the-boneyard.md)."""

from dominotable.games.spec import GameSpec, with_search
from dominotable.reading.doubles_boneyard import DoublesBoneyardReader
from dominotable.rules.games.doubles_boneyard.engine import DoublesInTheBoneyard
from dominotable.rules.games.doubles_boneyard.playout import DoublesPlayout
from dominotable.sim.hands.doubles_boneyard import DoublesBoneyardHands

SPEC = GameSpec(DoublesInTheBoneyard, DoublesBoneyardReader, DoublesBoneyardHands, "doubles-in-the-boneyard.md",
                zones=("open",), strategies=with_search(DoublesPlayout), bot="search", playout=DoublesPlayout,
                demo={"target": 50})
