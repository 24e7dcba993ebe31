"""What the table waits for someone at it to do, as one typed value. The judge decides it for
whoever is to act (a person, a seat the table plays with a rack of tiles, a seat at the partner
table), the Decision and the Status carry it, and every view renders it: the prompt voice
(prompts.py) says it in words, the lights light its cells. Nothing in it is words but what a
reader notes in its own (`Do.NOTE`) and a game's names for places (`Step.place`).

- A `Step` is one thing to do: lay a tile (a rack slot's, one named, or any tile the person
  holds) on cells, take tiles off, slide tiles, deal tiles from the boneyard into a rack's slots
  or take them out, hold a tile over the scan pad, press a button, or what a reader notes.
- An `Instruction` is whose steps they are and the steps in order: for a person, the whole turn
  up to how it finishes ("then End turn"); for a seat the table plays, its next step (the next
  comes once that one is read). `instead`: what may be done instead, each a way of its own (Pass;
  a tile laid where tiles must first be slid or put aside to make room).
- A `Fix` is what to put right when the tray shows what a seat the table plays was not told to
  do, or its rack is not as it should be: what kind of fix, whose, the tiles, slots and cells,
  and what the seat does instead (`told`, filled in by the judge).

Cells are tray cells; a step laying a named tile lists the cell under `tiles[0].a` first. Slots
are numbered from 1 in the rack of the instruction's seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from dominotable.rules.moves import Move
from dominotable.rules.tiles import Tile


class Do(StrEnum):
    LAY = "lay"  # lay a tile on `cells`: `tiles` named (from `slots` if it lies in a rack), else any tile
    TAKE = "take"  # take `tiles` off the tray (a capture); none named: any the rules let you take
    SLIDE = "slide"  # move `tiles` to `cells`; with `by`, every tile on the tray by that many rows, columns
    DEAL = "deal"  # `count` tiles from the boneyard, face down, into `slots`
    EMPTY = "empty"  # the tiles in `slots` out of the rack (a hand over: shown, scored)
    PAD = "pad"  # hold `tiles[0]` over the scan pad
    PRESS = "press"  # the button move `label` (End turn, Pass)
    DONE = "done"  # nothing more: the turn ends once the table reads what was laid
    NOTE = "note"  # what the table waits for, in a reader's own words (`label`)


@dataclass(frozen=True)
class Step:
    do: Do
    tiles: tuple[Tile, ...] = ()
    cells: tuple[int, ...] = ()
    slots: tuple[int, ...] = ()
    place: str = ""  # where, as the game names it ("upright at the open end", "on column 2")
    by: tuple[int, int] | None = None  # SLIDE every tile: (rows down, columns right)
    count: int = 0  # DEAL: how many tiles
    label: str = ""  # PRESS: the button move's label; NOTE: the reader's words
    rule: str = ""  # the rule it follows, when the words should cite it


@dataclass(frozen=True)
class Instruction:
    seat: int | None  # whose step (None: anyone at the table)
    who: str  # the seat's name, or who at the partner table ("Table B"), or whom a note is for; "" for anyone
    steps: tuple[Step, ...]
    instead: tuple[tuple[Step, ...], ...] = ()  # other ways on, each its steps in order (Pass)
    table: bool = False  # a seat the table plays (its rack's tiles, a partner table's moves): a person does it
    scored: tuple[int, ...] = ()  # between hands, the hand-over: what each side scored in the hand just over

    @property
    def rack(self) -> bool:
        """Only the seat's rack is concerned (tiles into it or out of it): any time will do."""
        return bool(self.steps) and all(s.do in (Do.DEAL, Do.EMPTY) for s in self.steps)

    @property
    def cells(self) -> tuple[int, ...]:
        """Every cell the steps lay on, take from or outline (the rack slots apart: `slots`)."""
        return tuple(dict.fromkeys(c for step in self.steps for c in step.cells))

    @property
    def slots(self) -> tuple[int, ...]:
        """The rack slots the steps are about."""
        return tuple(dict.fromkeys(k for step in self.steps for k in step.slots))


class Fix(StrEnum):
    """What to put right about a seat the table plays (the fields of `Wrong` each kind uses)."""

    STRAY = "stray"  # a tile on the rack in no slot (`cells`)
    SWAPPED = "swapped"  # the tile in slot slots[0] belongs in slot slots[1]
    UNREAD = "unread"  # the seat's tile from slots[0] is off before it was read where told
    RETURN = "return"  # the tile from slots[0] back, face down (slots[1]: the slot the seat plays)
    OFF_PAD = "off pad"  # the seat's tile from slots[0] lies on the scan pad: back to its slot, face down
    EXTRA = "extra"  # the tile in slots[0] out: the rack holds `count` tiles
    NEXT_SLOT = "next slot"  # that tile into slots[0], the next free slot
    IN_PLAY = "in play"  # tiles[0] out of the rack: it is already in play
    NOT_READY = "not ready"  # the seat's rack is not ready: `told` what it waits for
    NOT_PLAYED = "not played"  # tiles[0] off: the seat (at the partner table) has not played it
    NOT_TAKEN = "not taken"  # `tiles` back: the seat (at the partner table) has not taken them
    WAIT = "wait"  # wait for the seat at the partner table
    OTHER_WAY = "other way"  # `tiles` back: the seat takes them another way (`told`)
    ELSEWHERE = "elsewhere"  # the seat plays tiles[0] elsewhere (`told`)
    TAKE_OFF = "take off"  # tiles[0] off: the seat does `told` (None: it lays no tile now)
    PUT_BACK = "put back"  # `tiles` back: the seat takes `taken` (none: nothing)
    NOT_NOW = "not now"  # the seat does not do that now (`told`)
    NOT_AS_PARTNER = "not as partner"  # not as at the partner table (`who`) (`told`)


@dataclass(frozen=True)
class Wrong:
    fix: Fix
    who: str  # the seat's name ("CAT at table B", "table B" at the partner table)
    tiles: tuple[Tile, ...] = ()
    slots: tuple[int, ...] = ()
    cells: tuple[int, ...] = ()  # the cells it is about: the tiles', the slots'
    count: int = 0
    taken: tuple[Tile, ...] = ()  # PUT_BACK: what the seat takes instead
    seat: int | None = None  # the seat that makes `move`
    move: Move | None = None  # what the seat does instead ...
    told: Instruction | None = None  # ... as its instruction says it (the judge fills it in)
