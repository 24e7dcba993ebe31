"""Up-Down-Stop at the table (seeds/up-down-stop.md)."""

from dominotable.games.spec import GameSpec, with_search
from dominotable.reading.up_down_stop import UpDownStopReader
from dominotable.rules.games.up_down_stop.engine import UpDownStop
from dominotable.rules.games.up_down_stop.playout import UpDownStopPlayout
from dominotable.sim.bots.up_down_stop import UP_DOWN_STOP
from dominotable.sim.hands.up_down_stop import UpDownStopHands

SPEC = GameSpec(UpDownStop, UpDownStopReader, UpDownStopHands, "up-down-stop.md",
                zones=("uds-column-1", "uds-column-2", "uds-column-3", "uds-column-4", "scrap", "discard"),
                strategies=with_search(UpDownStopPlayout, UP_DOWN_STOP), bot="search", playout=UpDownStopPlayout,
                lower_wins=True)
