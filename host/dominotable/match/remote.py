"""A match two tables play together (issue 20: remote seats): some seats sit at the other table,
the partner, and their moves come from the partner's committed moves, not from a strategy.

Every move belongs to one table, its owner: a seat's moves to the table the seat sits at; the
moves that name no seat (Castle Rock's draw for dealer, starting row and deal) to the host, the
table that started the match. Only the owner makes a move: its people lay it and its table
commits it (and publishes it, venue/link.py). The other table hears it as one of the partner's
events (store/outbox.py: started, move, takeback, ended), in sequence order and each once, and
keeps the partner's moves as they stand (`Heard`, stored with the commit that hears it). The
partner's moves beyond those both tables have made are the plan of the seats played there
(`plan`): a person here lays them as the table says (steps.py), the tray is judged against the
plan, and what leaves no trace (an end of turn) the table makes itself (judge.py). So both
tables commit every move, in the same order.

Takebacks: only the table that made a move takes it back (while it is still its last move). The
other table hears the takeback and takes the move back too, with every move it made after it
(those were built on it; their tiles stay on the tray and are read again in turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dominotable.match.position import Effect, Heard, Position, Undo
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game, Move
from dominotable.rules.hidden import made_by


@dataclass(frozen=True)
class Partner:
    table: str  # the other table's id at the venue
    host: bool  # this table started the match: it makes the moves that name no seat
    seats: frozenset[int]  # the seats played at the other table
    uid: str  # the match's uid, the same at both tables

    def theirs(self, game: Game, move: Move) -> bool:
        """Whether the partner table makes `move` in `game`'s position."""
        seat = made_by(game, move)
        return not self.host if seat is None else seat in self.seats

    def to_move(self, game: Game) -> bool:
        """Whether the next move is the partner table's."""
        if game.is_over():
            return False
        if game.awaiting():  # a reveal naming no seat (the draw, the row, the deal): the host's
            return not self.host
        return game.current_player in self.seats

    def who(self, game: Game, names: Sequence[str]) -> str:
        """Who makes the partner's next move, as the instruction's title: the seat's name, or the
        table for the moves that name no seat."""
        seat = game.current_player
        return f"Table {self.table}" if game.awaiting() or seat is None else names[seat]

    def waited(self, game: Game, names: Sequence[str]) -> str:
        """Whom the table waits for: "CAT at table B", "table A"."""
        seat = game.current_player
        return f"table {self.table}" if game.awaiting() or seat is None else f"{names[seat]} at table {self.table}"

    # -- the partner's moves ------------------------------------------------------------------------

    def plan(self, p: Position) -> list[Move]:
        """The partner's moves beyond the moves both tables have made, as long as they are the
        partner's to make (a move of ours it has not heard yet ends the plan: it is behind)."""
        heard = p.heard
        if heard is None:
            return []
        mine = [str(m) for m in p.game.moves]
        k = _shared(mine, heard.moves)
        if k < len(mine):
            return []
        game, plan = p.game.copy(), []
        for text in heard.moves[k:]:
            try:
                move = game.parse_move(text)
                if not self.theirs(game, move):
                    break
                game.push(move)
            except DominoError:  # not a move here: the tables disagree, nothing is laid for it
                break
            plan.append(move)
        return plan

    def hear(self, p: Position, event: dict[str, Any]) -> tuple[list[Effect], tuple[str, list[int]] | None]:
        """The partner's next event (its seq is the one after the last heard) made into effects:
        the partner's moves as the event leaves them (Heard), after taking back here the moves of
        the partner it took back (with every move made here after them); and, when it says the
        partner's match ended otherwise than by play (resigned, abandoned, set aside), that ending
        and its winners."""
        heard = p.heard or Heard(self.uid, 0, ())
        moves, ended, ending = list(heard.moves), heard.ended, None
        kind = event.get("kind")
        if kind == "started":
            moves = [str(m) for m in event.get("moves") or []]
        elif kind == "move" and isinstance(event.get("ply"), int) and isinstance(event.get("notation"), str):
            moves = moves[:event["ply"] - 1] + [event["notation"]]
        elif kind == "takeback" and isinstance(event.get("ply"), int):
            moves = moves[:event["ply"] - 1]
        elif kind in ("ended", "aside"):
            ended = True
            if kind == "aside" or event.get("ending") != "played":
                winners = event.get("winners") if kind == "ended" else []
                ending = (str(event.get("ending", "abandoned")) if kind == "ended" else "abandoned",
                          [w for w in winners or [] if isinstance(w, int)])
        new = Heard(self.uid, event["seq"], tuple(moves), ended)
        return [Undo()] * self._retracted(p.game, new.moves) + [new], ending

    def _retracted(self, game: Game, heard: Sequence[str]) -> int:
        """How many of the last moves here go, because the first of them is the partner's and it
        no longer has it."""
        mine = [str(m) for m in game.moves]
        k = _shared(mine, heard)
        if k == len(mine):
            return 0
        before = game.copy()
        for _ in range(len(mine) - k):
            before.pop()
        return len(mine) - k if self.theirs(before, game.moves[k]) else 0


def _shared(mine: Sequence[str], theirs: Sequence[str]) -> int:
    """How many moves the two lists begin with alike."""
    k = 0
    for a, b in zip(mine, theirs):
        if a != b:
            break
        k += 1
    return k
