"""Size the playing grid from data: how large a layout each game's hands grow.

Bots (sim/bots, the greedy strategy) play whole matches of every game in app/catalog.py on
a large tray (hardware/tray.toml's zones stretched to BIG_COLS x BIG_ROWS, so no hand ever
runs out of room or slides), and their hands (sim/hands) lay every tile as the table's
players would. After every move the layout's extent is measured: the tiles on the grid that
moves put there during the hand (tiles a player only shows at the end of a hand are not the
layout), as a bounding box in cells, and as the grid a hand started where this one started would need
(twice the farthest reach from the first tile in each axis), as the grid from the far-left
corner it needs, and in cells. Piles (captures, scrap, discards) need no room: their tiles
may lie stacked, and a stack reads as one. A hand's extent is the largest over its moves.

    python hardware/grid_size.py [GAME ...] [--hands 10000] [--seed 1] [--out-dir hardware/data/grid]

writes per game (one file each, so games can run in parallel) the percentiles of the extents
and the share of hands that fit each candidate grid without sliding; hardware/design.py
puts them in DESIGN.md ("Grid size").
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import tomllib
from pathlib import Path

from dominotable.games import catalog
from dominotable.rules.errors import DominoError
from dominotable.rules.hidden import Reveal
from dominotable.sim.bots.shared import greedy_bot
from dominotable.sim.hands.base import NoRoom
from dominotable.sim.memtray import MemoryTray
from dominotable.sim.stats import percentile
from dominotable.tray.action import ActionKind
from dominotable.tray.geometry import Geometry
from dominotable.tray.tags import Registry

HERE = Path(__file__).resolve().parent
BIG_COLS, BIG_ROWS = 32, 24
CHUNK = 250
CANDIDATES = [(16, 12), (20, 12), (20, 14), (22, 14), (24, 14), (24, 16), (26, 16), (28, 16)]


def big_geometry(cols: int = BIG_COLS, rows: int = BIG_ROWS) -> Geometry:
    """tray.toml's zones on a cols x rows grid: a zone reaching the grid's right (bottom)
    edge reaches the new one's."""
    data = tomllib.loads((HERE / "tray.toml").read_text())
    old_cols, old_rows = data["tray"]["columns"], data["tray"]["rows"]
    data["tray"].update(columns=cols, rows=rows)
    data["scan_pad"]["cells"] = [cols * rows + i for i in range(len(data["scan_pad"]["cells"]))]
    for zone in data["zones"].values():
        if zone["rows"][1] == old_rows - 1:
            zone["rows"][1] = rows - 1
        if zone["cols"][1] == old_cols - 1:
            zone["cols"][1] = cols - 1
    return Geometry(data, "tray.toml, stretched")


PILES = ("captures", "scrap", "discard")  # zones where tiles may lie stacked: no grid room needed
# How a game's hands place its layout, so how a hand's extent maps onto a grid: Broadway's
# tableau starts at the middle (twice its reach from the first tile); Doubles in the
# Boneyard's line snakes along a track of every other row (its cells against cols x rows / 2);
# the others grow from the far-left corner of their zones.
LAYOUT = {"broadway": "centred", "doubles-in-the-boneyard": "track"}


class Extents:
    """Per hand: the centred grid (cols, rows), the corner grid (cols, rows), and the cells."""

    def __init__(self, geometry: Geometry):
        self.geometry = geometry
        self.piles = set().union(*(geometry.zones[z] for z in PILES if z in geometry.zones))
        self.hands: list[tuple[int, int, int, int, int]] = []
        self._reset()

    def _reset(self):
        self.first = None
        self.most = (0, 0, 0, 0, 0)

    def see(self, tray: MemoryTray, layout: set):
        cells = [c for tile, pair in tray.tiles.items() if tile in layout for c in pair
                 if c < self.geometry.playing and c not in self.piles]
        if not cells:
            return
        coords = [self.geometry.coords(c) for c in cells]
        rows = [r for r, _ in coords]
        cols = [c for _, c in coords]
        if self.first is None:
            self.first = (min(rows), min(cols))
        r0, c0 = self.first
        now = (2 * max(abs(c - c0) for c in cols) + 2, 2 * max(abs(r - r0) for r in rows) + 2,
               max(cols) + 1, max(rows) + 1, len(cells))
        self.most = tuple(max(a, b) for a, b in zip(self.most, now))

    def finish(self):
        if self.first is not None:
            self.hands.append(self.most)
        self._reset()


def fits(kind: str, hand, cols: int, rows: int) -> bool:
    if kind == "centred":
        return hand[0] <= cols and hand[1] <= rows
    if kind == "track":
        return hand[4] <= cols * (rows // 2)
    return hand[2] <= cols and hand[3] <= rows


def play(spec, geometry: Geometry, registry_for, hands_wanted: int, seed: int):
    extents = Extents(geometry)
    rng = random.Random(seed)
    matches = 0
    while len(extents.hands) < hands_wanted:
        engine = spec.engine
        game = engine(players=engine.default_players, seed=rng.randrange(2**31))
        registry = registry_for(game)
        hands = spec.hands(game, geometry)
        tray = MemoryTray(registry, geometry)
        bot = greedy_bot(random.Random(rng.randrange(2**31)))
        layout: set = set()
        for _ in range(5000):
            if game.is_over():
                break
            try:
                move = bot(game)
                steps = hands.actions(move, tray.board())
            except NoRoom:
                break  # the stretched tray is too small for this one: counted as it stands
            tray.apply_all(steps)
            if not isinstance(move, Reveal):
                layout |= {a.tile for a in steps if a.kind in (ActionKind.PLACE, ActionKind.SLIDE)}
            layout &= set(tray.tiles)
            hand = game.hands_played() if hasattr(game, "hands_played") else 0
            game.push(move, trusted=True)
            if hasattr(game, "hands_played") and game.hands_played() != hand:
                extents.finish()  # a hand ended: the next one starts from an empty layout
                layout = set()
            else:
                extents.see(tray, layout)
        extents.finish()
        matches += 1
    return extents.hands[:hands_wanted], matches


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=catalog.names())
    parser.add_argument("--hands", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out-dir", type=Path, default=HERE / "data" / "grid")
    args = parser.parse_args(argv)
    geometry = big_geometry()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for name in args.games:
        spec = catalog.spec(name)
        start = time.process_time()
        hands, matches, chunk = [], 0, 0
        while len(hands) < args.hands:  # in chunks, each written out: a long run can be cut short
            try:
                more, played = play(spec, geometry, lambda game: Registry.virtual(game.dset),
                                    min(CHUNK, args.hands - len(hands)), args.seed * 1000 + chunk)
            except DominoError as exc:
                print(f"{name}: {exc}", file=sys.stderr)
                return 1
            hands += more
            matches += played
            chunk += 1
            write(args.out_dir / f"{name}.toml", name, hands, matches, args.seed)
        print(f"{name}: {len(hands)} hands in {matches} matches, {time.process_time() - start:.0f} s CPU",
              file=sys.stderr)
    return 0


def write(path: Path, name: str, hands, matches: int, seed: int) -> None:
    lines = ["# Generated by hardware/grid_size.py: layout extents of bot-played hands, in cells:",
             f"# greedy bots, seeds {seed * 1000} and up (one per chunk of {CHUNK} hands), on a "
             f"stretched {BIG_COLS}x{BIG_ROWS} tray.", ""]
    lines.append(f'[games."{name}"]')
    lines.append(f"hands = {len(hands)}")
    lines.append(f"matches = {matches}")
    kind = LAYOUT.get(name, "corner")
    lines.append(f'layout = "{kind}"')
    for i, what in enumerate(("centred_cols", "centred_rows", "corner_cols", "corner_rows", "cells")):
        values = [h[i] for h in hands]
        lines.append(f"{what} = {{ p50 = {percentile(values, 0.5)}, p99 = {percentile(values, 0.99)}, "
                     f"max = {max(values)} }}")
    shares = []
    for cols, rows in CANDIDATES:
        share = sum(1 for h in hands if fits(kind, h, cols, rows)) / len(hands)
        shares.append(f'"{cols}x{rows}" = {share:.4f}')
    lines.append("fits = { " + ", ".join(shares) + " }")
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
