"""What the players may do now besides laying tiles, as typed actions: the game's button moves
(End turn, Pass, an exposure), take back, a hint, resign, a new match. The OLED's menu and the
page's controls offer the same list (the referee's `actions()`), each action exactly when it
applies; `kind` names an action for the page (`find` takes it back).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from dominotable.rules.game import Move


@dataclass(frozen=True)
class ButtonMove:
    """A move made with the buttons (End turn, Pass, an exposure)."""

    move: Move
    label: str
    kind: ClassVar[str] = "move"


@dataclass(frozen=True)
class TakeBack:
    move: Move  # the last move (offered right after it is made, or once the tray no longer shows it)
    named: str = field(default="", compare=False)  # as the prompt names it: "6-5", "the capture of 3-5 and 2-6"
    kind: ClassVar[str] = "take-back"

    @property
    def label(self) -> str:
        """Short enough for the OLED's menu line, in the prompt's words, never the notation."""
        return f"Take back {self.named or self.move.placed() or self.move}"


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


def find(offered: list[Action], kind: str, move: str | None = None) -> Action | None:
    """The action of `kind` among `offered` (for a move or a takeback, the one whose move is written
    `move`; without it, the first), or None."""
    return next((a for a in offered if a.kind == kind and (move is None or str(getattr(a, "move", "")) == move)),
                None)
