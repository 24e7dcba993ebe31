"""Broadway at the table (seeds/broadway.md)."""

from dominotable.games.spec import GameSpec, with_search
from dominotable.reading.broadway import BroadwayReader
from dominotable.rules.games.broadway.engine import Broadway
from dominotable.rules.games.broadway.playout import BroadwayPlayout
from dominotable.sim.hands.broadway import BroadwayHands

SPEC = GameSpec(Broadway, BroadwayReader, BroadwayHands, "broadway.md", zones=("open", "tableau"), racks="broadway",
                strategies=with_search(BroadwayPlayout), bot="search", playout=BroadwayPlayout,
                demo={"hands": 1})
