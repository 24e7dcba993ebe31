"""The position of a match at the table: the engine, and what each seat the table plays holds in
its rack. It changes only by effects (`apply`), the same code for the judge's copy and for the
live position, so what the judge foresaw is what the committer makes.

A bot keeps its hand face down in a rack on the tray, one tile per numbered slot (`Hold.rack`). A tile it plays leaves its slot, and
the move remembers which (`Hold.played`), so a takeback puts it back, also after a restart: the
holds are stored with every commit. `Hold.plan` is the turn the seat was told to make.

In a match two tables play (match/remote.py), `heard` is the partner table's moves as its events
last said (`Heard`): the plan of the seats played there. It is stored with the commit that
hears it, so what was received survives a crash as a bot's plan does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from dominotable.rules.game import Game, Move
from dominotable.rules.hidden import Reveal
from dominotable.rules.tiles import Tile


class Play(NamedTuple):
    """Push a move; a tile it places from a rack leaves its slot."""

    move: Move


class Undo(NamedTuple):
    """Pop the last move; a tile it took from a rack goes back to its slot."""


class Deal(NamedTuple):
    """A tile laid face down in a slot of a seat's rack (dealt, drawn), or, with None, a slot of
    shown tiles cleared at the end of a hand."""

    seat: int
    slot: int
    tile: Tile | None


class Plan(NamedTuple):
    """The turn a seat the table plays is to make, from move `start` on."""

    seat: int
    start: int
    moves: tuple[Move, ...]


class Heard(NamedTuple):
    """The partner table's moves after its event `seq` of the match `uid` (`ended`: its match has
    ended, nothing more comes)."""

    uid: str
    seq: int
    moves: tuple[str, ...]
    ended: bool = False


Effect = Play | Undo | Deal | Plan | Heard


@dataclass
class Hold:
    rack: dict[int, Tile] = field(default_factory=dict)  # slot -> tile: the seat's hand
    spent: dict[int, Tile] = field(default_factory=dict)  # shown at a hand's end, still in the rack
    played: dict[int, tuple[int, Tile]] = field(default_factory=dict)  # ply -> (slot, tile) it took
    plan: Plan | None = None
    shown: int | None = None  # the move that showed the rack's tiles (`spent`)

    def copy(self) -> Hold:
        return Hold(dict(self.rack), dict(self.spent), dict(self.played), self.plan, self.shown)

    def slot(self, tile: Tile) -> int | None:
        return next((k for k, t in self.rack.items() if t is tile), None)

    def hand(self) -> list[Tile]:
        return [self.rack[k] for k in sorted(self.rack)]

    def to_dict(self) -> dict[str, Any]:
        plan = self.plan
        return {"rack": {str(k): str(t) for k, t in self.rack.items()},
                "spent": {str(k): str(t) for k, t in self.spent.items()},
                "played": {str(ply): [slot, str(t)] for ply, (slot, t) in self.played.items()},
                "plan": [plan.start, [str(m) for m in plan.moves]] if plan is not None else None,
                "shown": self.shown}

    @classmethod
    def from_dict(cls, seat: int, data: dict[str, Any], game: Game) -> Hold:
        tile = game.dset.parse
        plan = data.get("plan")
        return cls({int(k): tile(t) for k, t in data.get("rack", {}).items()},
                   {int(k): tile(t) for k, t in data.get("spent", {}).items()},
                   {int(ply): (slot, tile(t)) for ply, (slot, t) in data.get("played", {}).items()},
                   Plan(seat, plan[0], tuple(map(game.parse_move, plan[1]))) if plan else None, data.get("shown"))


class Position:
    def __init__(self, game: Game, holds: dict[int, Hold], heard: Heard | None = None):
        self.game = game
        self.holds = holds  # by seat: the seats the table plays
        self.heard = heard  # the partner table's moves, in a match two tables play

    def copy(self) -> Position:
        return Position(self.game.copy(), {seat: hold.copy() for seat, hold in self.holds.items()}, self.heard)

    def apply(self, effect: Effect) -> None:
        game, holds = self.game, self.holds
        match effect:
            case Play(move=move):
                seat, ply = game.current_player, len(game.moves) + 1
                game.push(move)
                tile, hold = move.placed(), holds.get(seat)
                if hold is not None and tile is not None and hold.slot(tile) is not None:
                    slot = hold.slot(tile)
                    del hold.rack[slot]
                    hold.played[ply] = (slot, tile)
                if isinstance(move, Reveal) and move.word == "show":
                    shown = next((h for h in holds.values() if h.rack and sorted(h.hand()) == list(move.tiles)), None)
                    if shown is not None:
                        shown.spent, shown.rack, shown.shown = shown.rack, {}, ply
            case Undo():
                ply = len(game.moves)
                game.pop()
                for hold in holds.values():
                    if ply in hold.played:
                        slot, tile = hold.played.pop(ply)
                        hold.rack[slot] = tile
                    if hold.shown == ply:
                        hold.rack, hold.spent, hold.shown = {**hold.spent, **hold.rack}, {}, None
                    hold.plan = None
            case Deal(seat=seat, slot=slot, tile=tile):
                hold = holds[seat]
                if tile is None:
                    hold.spent.pop(slot, None)
                else:
                    hold.rack[slot] = tile
            case Plan(seat=seat):
                holds[seat].plan = effect
            case Heard():
                self.heard = effect

    def holds_dict(self) -> dict[str, Any]:
        return {str(seat): hold.to_dict() for seat, hold in self.holds.items()}
