"""What the judge decides about a settled board, as a value the committer and the referee act on.

A Decision is one of:

- `Commit`: these effects (moves, a seat's rack read, a plan), then what the tray shows after them
  (`then`: a Wait, a Prompt, or an offer to take back);
- `Prompt`: a fix to ask for, naming tile, cell and rule; `pending` when hands may still be
  making it legal (prompted only if the tray stays so: meanwhile the instruction stands),
  `restore` while the tray must be made to show the stored position;
- `Wait`: the tray shows the position; `instruction`: what the table waits for, and whom from
  (reading/instruction.py), if anyone;
- `TakeBack`: offer to take back to the position before `undo` (and play `instead` there).

Every decision also carries what the judge read on the way (`Reading`): the board without the
racks, a dead reader played around, the draw over the scan pad read so far, and the moves the
buttons may make there (End turn, Pass), so that showing the decision asks the reader nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dominotable.match.position import Effect
from dominotable.reading.draw import PadDraw
from dominotable.reading.instruction import Instruction
from dominotable.rules.game import Move
from dominotable.tray.board import Board


@dataclass(frozen=True)
class Reading:
    area: Board | None = None  # the board without the racks of the seats the table plays
    warning: str | None = None  # a dead reader the table reads around
    draw: PadDraw | None = None  # the draw over the scan pad, as far as it has been read
    buttons: tuple[tuple[str, Move], ...] = ()  # the moves the buttons may make on this board, labelled


@dataclass(frozen=True)
class Wait:
    instruction: Instruction | None = None
    reading: Reading = field(default_factory=Reading, compare=False)


@dataclass(frozen=True)
class Prompt:
    title: str
    text: str
    cells: tuple[int, ...] = ()
    pending: bool = False
    restore: bool = False
    instruction: Instruction | None = None  # while pending: what the table waits for meanwhile
    undone: bool = False  # the tray still shows moves taken back with the button
    reading: Reading = field(default_factory=Reading, compare=False)


@dataclass(frozen=True)
class TakeBack:
    undo: tuple[Move, ...]  # the moves to take back, the last move last
    instead: tuple[Move, ...] = ()  # the moves the tray shows in their place
    text: str = ""
    reading: Reading = field(default_factory=Reading, compare=False)


@dataclass(frozen=True)
class Commit:
    effects: tuple[Effect, ...]
    then: Wait | Prompt | TakeBack | None = None  # None: the match is over
    revised: tuple[Move, ...] = ()  # provisional moves the tray revised (taken back first)
    reading: Reading = field(default_factory=Reading, compare=False)


Decision = Commit | Prompt | Wait | TakeBack
