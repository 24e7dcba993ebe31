"""The screen: what every front end shows now, as one typed value. The presenter decides it; the
OLED draws it (`ui.oled.screens.draw`), the page receives it as JSON (`to_dict`), a venue shows it;
none of them derives anything from the match or parses its text.

- `title`, `text`: the prompt (a fix to make, what to do for a seat the table plays, a hint, the
  menu's question); a front end pages or wraps the text, never cuts it;
- `turn`: whose turn it is (empty while nobody's is: a setup, a draw, the match over); a prompt
  about a seat the table plays names that seat (`seat`), or only the seat's rack in its title
  when it is not that seat's turn; `scores`: a line per side;
- `instruction`: what the table waits for and whom from, typed (reading/instruction.py): its
  words are `title` (whose) and `text`, its cells among `cells`; a front end that lights or
  outlines cells reads it instead of the words;
- `short`: the text when the tray lights the instruction's cells (ui/lights.py): the same words
  pointing at the lit cells ("slot 6 (5-6) -> the lit cells"), for the OLED while lights show;
- `cells`: the cells and rack slots the screen is about, for a front end to mark; `take`: a
  hint's capture plan, the tiles in order; `places`: at the turn of the person to move, where
  the tile they hold over the scan pad may be laid (match/targets.py, as the page offers them);
- `actions`: what the players may do now besides laying tiles (match/actions.py), the in-game
  menu's list, for a front end to offer as controls;
- `alarms`: how many times the table has sounded the alarm; a front end sounds as it grows.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from dominotable.match.actions import Action, NewMatch, Resign
from dominotable.match.last_play import LastPlay
from dominotable.reading.instruction import Instruction, Step
from dominotable.rules.tiles import Tile
from dominotable.ui.match_menu import question
from dominotable.ui.menu import Model, describe


class ScreenKind(StrEnum):
    PLAY = "play"  # pages: whose turn, the scores, the last play (`page` picks one)
    PROMPT = "prompt"  # a title and a text: set up the table, fix the tray, take back?
    LOST = "lost"  # the tray is not answering: a spinner, and why
    OVER = "over"  # final scores
    MENU = "menu"  # a menu model from ui.menu (the setup menu, the in-game menu)


@dataclass(frozen=True)
class Score:
    name: str
    points: int
    to_move: bool = False


@dataclass(frozen=True)
class Rack:
    """The rack of a seat the table plays: its slots' cells on the tray, slot 1 first."""

    seat: str  # the seat's name
    position: str  # the rack's place at the table (tray.toml)
    slots: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Game:
    """Which match the screen is about (for the page and a venue)."""

    name: str
    title: str
    match: int
    moves: int
    mode: str  # the referee's mode: restore, play, takeback, lost, over
    zones: tuple[str, ...] = ()  # the tray's zones it uses, for drawing
    top: int = 6  # the set's highest pip
    lower_wins: bool = False  # the scores run down (a solitaire's tiles left)
    goal: str = ""  # what ends the match ("one hand", "first to 50 or 20 hands")
    scoring: str = "points"  # what a score counts
    racks: tuple[Rack, ...] = ()  # the racks of the seats the table plays


@dataclass(frozen=True)
class Screen:
    kind: ScreenKind
    title: str = ""
    text: str = ""
    turn: str = ""
    scores: tuple[Score, ...] = ()
    target: int | None = None
    last: LastPlay | None = None
    page: int = 0
    menu: Model | None = None
    cells: tuple[int, ...] = ()
    take: tuple[str, ...] = ()
    seat: str = ""  # the text is what a person must do for this seat the table plays
    problem: str | None = None  # the tray shows a problem (the LED may stay on)
    warning: str | None = None  # a dead reader played around
    alarms: int = 0
    game: Game | None = None
    tray: tuple[tuple[Tile, tuple[int, ...]], ...] = ()  # the tiles as the table last read them (not in to_dict: the page says them, a rack's face down)
    faults: tuple[str, ...] = ()  # parts of the table that failed and are being tried again
    venue: str | None = None  # the link to the venue's scoreboard, where the table has one
    link: str = ""  # the scoreboard's address, for phones to follow (a page of its own on the OLED)
    actions: tuple[Action, ...] = ()
    instruction: Instruction | None = None
    short: str = ""
    places: tuple[int, ...] = ()

    @property
    def bot(self) -> str:
        """What a person must do for a seat the table plays, "West bot: ...", or ""."""
        return f"{self.seat}: {self.text}" if self.seat else ""

    def to_dict(self) -> dict[str, Any]:
        game = self.game
        return {
            "kind": str(self.kind), "title": self.title, "text": self.text, "turn": self.turn,
            "scores": [{"name": s.name, "points": s.points, "to_move": s.to_move} for s in self.scores],
            "target": self.target, "last": self.last._asdict() if self.last else None,
            "last_text": str(self.last) if self.last else None,
            "menu": describe(self.menu) if self.menu is not None else None,
            "cells": list(self.cells), "take": list(self.take), "seat": self.seat, "problem": self.problem,
            "warning": self.warning, "alarms": self.alarms, "faults": list(self.faults), "venue": self.venue,
            "link": self.link, "actions": [self._action(a) for a in self.actions],
            "instruction": None if self.instruction is None else _instruction(self.instruction),
            "game": None if game is None else {
                "name": game.name, "title": game.title, "match": game.match, "moves": game.moves, "mode": game.mode,
                "zones": list(game.zones), "top": game.top, "lower_wins": game.lower_wins, "goal": game.goal,
                "scoring": game.scoring,
                "racks": [{"seat": r.seat, "position": r.position, "slots": [list(s) for s in r.slots]}
                          for r in game.racks]},
        }

    def _action(self, action: Action) -> dict[str, Any]:
        """An action for the page: its kind and label, its move's notation, and the question to
        confirm it with first where it cannot be undone (resigning, abandoning a match)."""
        final = isinstance(action, Resign) or (isinstance(action, NewMatch) and self.kind != ScreenKind.OVER)
        move = getattr(action, "move", None)
        return {"action": action.kind, "label": action.label, "move": None if move is None else str(move),
                "ask": question(action, self.turn).title if final else ""}


def _instruction(said: Instruction) -> dict[str, Any]:
    """The instruction for the page and the lights: whose, each step's kind, tiles, cells and slots."""
    return {"seat": said.seat, "who": said.who, "table": said.table, "rack": said.rack,
            "steps": [_step(s) for s in said.steps], "instead": [[_step(s) for s in way] for way in said.instead]}


def _step(step: Step) -> dict[str, Any]:
    return {"do": str(step.do), "tiles": [f"{t.a}-{t.b}" for t in step.tiles], "cells": list(step.cells),
            "slots": list(step.slots), "place": step.place, "by": list(step.by) if step.by else None,
            "count": step.count, "label": step.label}
