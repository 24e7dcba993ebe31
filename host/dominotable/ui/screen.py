"""The screen model: what a front end shows, as data. The app's presenter builds it from the
match; the OLED draws it (`ui.oled.screens.draw`), and any other front end may draw it too."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from dominotable.match.last_play import LastPlay
from dominotable.ui.menu import Model


class ScreenKind(StrEnum):
    PLAY = "play"  # pages: whose turn, the scores, the last play (`page` picks one)
    PROMPT = "prompt"  # a title and a text: set up the table, fix the tray, take back?
    LOST = "lost"  # the tray is unplugged: a spinner
    OVER = "over"  # final scores
    MENU = "menu"  # a menu model from ui.menu


@dataclass
class Screen:
    kind: ScreenKind
    title: str = ""
    text: str = ""
    names: list[str] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    target: int | None = None
    current: int | None = None  # the side to move, among `names`
    turn: str = ""
    last: LastPlay | None = None
    page: int = 0
    model: Model | None = None
    bot: str = ""  # what a person must do for a bot seat now, "West bot: ..." (the prompt's title and text)
    take: tuple[str, ...] = ()  # a hint's capture plan: the tiles to take, in order

    def pages(self) -> int:
        return 3 if self.last else 2
