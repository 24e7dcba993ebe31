"""What the players may do now besides laying tiles, as typed actions: the game's button moves
(End turn, Pass, an exposure), take back, a hint, resign, a new match. The OLED's menu and the
page's controls offer the same list (`available`), each action exactly when it applies; `kind`
names an action for the page (`find` takes it back).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from dominotable.match.status import Mode
from dominotable.rules.game import Move

if TYPE_CHECKING:
    from dominotable.match.referee import Referee


@dataclass(frozen=True)
class ButtonMove:
    """A move made with the buttons (End turn, Pass, an exposure)."""

    move: Move
    label: str
    kind: ClassVar[str] = "move"


@dataclass(frozen=True)
class TakeBack:
    move: Move  # the last move, which the tray no longer shows (or the players want undone)
    kind: ClassVar[str] = "take-back"

    @property
    def label(self) -> str:
        """Short enough for the OLED's menu line: the tile a move laid, else the move."""
        return f"Take back {self.move.placed() or self.move}"


@dataclass(frozen=True)
class ShowHint:
    label = "Hint"
    kind: ClassVar[str] = "hint"


@dataclass(frozen=True)
class Resign:
    label = "Resign"
    kind: ClassVar[str] = "resign"


@dataclass(frozen=True)
class NewMatch:
    label = "New match"
    kind: ClassVar[str] = "new-match"


Action = ButtonMove | TakeBack | ShowHint | Resign | NewMatch
KINDS = tuple(kind.kind for kind in (ButtonMove, TakeBack, ShowHint, Resign, NewMatch))


def available(referee: Referee) -> list[Action]:
    """The actions that apply now. A seat the table plays makes its own button moves (the table
    makes them once its turn is done on the tray), so none is offered while it is to move; nor,
    while a seat at the partner table is to move, a hint or resigning (that is for its table)."""
    mode, board = referee.status.mode, referee.tracker.board
    actions: list[Action] = []
    if mode in (Mode.OVER, Mode.RESTORE, Mode.LOST):
        return [NewMatch()]
    seat = referee.game.current_player
    if not (referee.seats is not None and referee.seats.plays(seat)):
        actions += [ButtonMove(move, label) for label, move in referee.button_moves()]
    if mode == Mode.TAKEBACK:
        actions.append(TakeBack(referee.status.undo[-1]))
    elif board is not None:
        before = referee.takeback_candidate(board)
        if before is not None:
            actions.append(TakeBack(before))
    theirs = referee.partner is not None and referee.partner.to_move(referee.game)
    return actions + ([] if theirs else [ShowHint(), Resign()]) + [NewMatch()]


def find(offered: list[Action], kind: str, move: str | None = None) -> Action | None:
    """The action of `kind` among `offered` (for a move or a takeback, the one whose move is written
    `move`; without it, the first), or None."""
    return next((a for a in offered if a.kind == kind and (move is None or str(getattr(a, "move", "")) == move)),
                None)
