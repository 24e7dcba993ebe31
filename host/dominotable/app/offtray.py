"""The tiles off the simulated table's tray, for a person playing it from a terminal: the
boneyard (face down, drawn at random), the person's own hand, and the tiles set aside (captured,
or out of play). Typed after `:` in `dominotable run` (see HELP); the tray's own commands
(`place`, `remove`, `slide`, `pad`, `unpad`, `show`: `dominotable tray sim`) work there too.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from dominotable.app.commands.tray import parse_cell, sim_command
from dominotable.rules.tiles import Tile, fmt
from dominotable.tray.errors import TrayError
from dominotable.tray.virtual import VirtualTray

HELP = """off the tray:
  draw                      a tile from the boneyard into your hand
  draw CELL [FACING]        a tile from the boneyard laid face down on CELL (a bot's rack slot)
  draw pad                  a tile from the boneyard held over the scan pad (the draw for dealer)
  hand                      your tiles
  collect                   every tile off the tray back into the boneyard (a new hand)"""


class OffTray:
    def __init__(self, vtray: VirtualTray, tiles: Callable[[], Iterable[Tile]], rng: random.Random | None = None):
        """`tiles()`: the set the match is played with."""
        self.vtray = vtray
        self.tiles = tiles
        self.rng = rng or random.Random()
        self.hand: list[Tile] = []
        self.aside: set[Tile] = set()  # taken off the tray: captured, out of play

    def boneyard(self) -> list[Tile]:
        out = set(self.vtray.tiles()) | set(self.hand) | self.aside
        return [t for t in self.tiles() if t not in out]

    def command(self, line: str) -> str | None:
        """Carry out one typed command; returns what to print. Raises TrayError for a bad one."""
        words = line.split()
        if not words:
            return None
        cmd, rest = words[0].lower(), words[1:]
        if cmd == "hand":
            return f"your hand: {fmt(self.hand) or '(empty)'}"
        if cmd == "collect":
            self.hand, self.aside = [], set()
            return f"boneyard: {len(self.boneyard())} tiles"
        if cmd == "draw":
            pile = self.boneyard()
            if not pile:
                raise TrayError("the boneyard is empty")
            tile = self.rng.choice(pile)
            if not rest:
                self.hand.append(tile)
                return f"you drew {tile}; your hand: {fmt(self.hand)}"
            name = f"{tile.a}-{tile.b}"
            if rest[0].lower() == "pad":
                self.vtray.hold_on_scan_pad(name)
                return "a tile from the boneyard held over the scan pad"
            facing = rest[1] if len(rest) > 1 else "right"
            self.vtray.place(name, parse_cell(rest[0], self.vtray.geometry), facing)
            return "a tile from the boneyard laid face down"
        before = set(self.vtray.tiles())
        out = sim_command(self.vtray, line)
        after = set(self.vtray.tiles())
        self.hand = [t for t in self.hand if t not in after]
        self.aside = (self.aside | (before - after)) - after
        if cmd == "unpad":  # a tile drawn for dealer goes back into the boneyard
            self.aside -= before - after
        return HELP + "\n" + out if cmd == "help" else out
