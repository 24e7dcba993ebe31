"""Enrolling tags: which UID is under which tile half.

Two ways, both on a live tray link, both working on a copy of the registry that is saved
only when everything succeeded (a failed enrollment changes nothing):

- by_layout: the person lays the whole set out in the printed arrangement; the tray is read
  `votes` times and each cell takes the UID most snapshots agree on (a strict majority).
- by_pad: tile by tile over the scan pad, the named half on the left.

`fresh` starts from an empty registry; otherwise enrolled UIDs stay and a tile enrolled
again gets its new UIDs (a replacement tile: pass only that tile to by_pad). A UID already
enrolled to a different half is refused, naming both halves.
"""

from __future__ import annotations

import time
from collections import Counter
from contextlib import nullcontext

from dominotray import wire

from dominotable.rules.tiles import Tile
from dominotable.tray.errors import EnrollError, TrayError
from dominotable.tray.geometry import Geometry, default
from dominotable.tray.link import TrayLink
from dominotable.tray.tags import Half, Registry

LAYOUTS = ("rows",)


def arrangement(registry: Registry, geometry: Geometry, layout: str = "rows") -> dict[Half, int]:
    """The cell for each half when the whole set is laid out: tiles horizontal, lower pips on
    the left, in set order, as many per row as fit; every other row left free when the set
    fits that way (easier to lay and to check by eye)."""
    if layout not in LAYOUTS:
        raise EnrollError(f"unknown layout {layout!r}; layouts are {', '.join(LAYOUTS)}")
    tiles = list(registry.dominoes)
    per_row = geometry.columns // 2
    rows = list(range(0, geometry.rows, 2))
    if len(tiles) > per_row * len(rows):
        rows = list(range(geometry.rows))
    if len(tiles) > per_row * len(rows):
        raise EnrollError(f"the {registry.dominoes.name} set ({len(tiles)} tiles) does not fit on a "
                          f"{geometry.columns}x{geometry.rows} tray")
    cells: dict[Half, int] = {}
    for i, tile in enumerate(tiles):
        row, slot = rows[i // per_row], i % per_row
        left = geometry.cell(row, 2 * slot)
        cells[Half(tile, 0)] = left
        cells[Half(tile, 1)] = left + 1
    return cells


def draw_arrangement(cells: dict[Half, int], geometry: Geometry) -> str:
    """The arrangement as a grid of tiles, for printing: `[3|5]`, blanks where nothing goes."""
    by_cell = {cell: half for half, cell in cells.items()}
    lines = []
    for row in range(geometry.rows):
        text = ""
        for col in range(0, geometry.columns, 2):
            left, right = by_cell.get(geometry.cell(row, col)), by_cell.get(geometry.cell(row, col + 1))
            text += f"[{left.pips:>2}|{right.pips:<2}] " if left and right else " " * 8
        if text.strip():
            lines.append(f"row {row:2d}: {text.rstrip()}")
    return "\n".join(lines)


def majority(snapshots: list[list[tuple[int, bytes]]]) -> list[tuple[int | None, bytes]]:
    """Per cell, the (status, uid) that a strict majority of the snapshots agree on, or
    (None, b"") where none does (a tile moved, or a marginal tag)."""
    out = []
    for values in zip(*snapshots):
        value, count = Counter(values).most_common(1)[0]
        out.append(value if count * 2 > len(snapshots) else (None, b""))
    return out


class Enroller:
    def __init__(self, link: TrayLink, registry: Registry, prompt, *, votes: int = 5, timeout: float = 10.0,
                 settle: float = 1.5, geometry: Geometry | None = None, progress=None):
        """`prompt(message)` tells the person what to do next and returns when they have
        done it (the CLI waits for Enter where it cannot tell by itself). `progress(total,
        unit)`: a context giving a step to call after each snapshot voted over (a bar)."""
        self.link = link
        self.registry = registry
        self.prompt = prompt
        self.votes = votes
        self.timeout = timeout
        self.settle = settle  # quiet seconds before voting: longer than one full sweep
        self.geometry = geometry or default()
        self.progress = progress

    # --- whole set -----------------------------------------------------------------------

    def by_layout(self, layout: str = "rows", fresh: bool = False) -> Registry:
        geo = self.geometry
        cells = arrangement(self.registry, geo, layout)
        self.prompt("Lay the whole set out like this (lower pips on the left):\n"
                    + draw_arrangement(cells, geo) + "\nthen press Enter.")
        self._wait_quiet()
        voted = self._vote()
        label = geo.label
        problems = []
        for cell, (status, _) in enumerate(voted):
            if status == wire.FAULT:
                problems.append(f"reader fault at {label(cell)}")
        layout_cells = set(cells.values())
        for cell, (status, uid) in enumerate(voted):
            if status == wire.TAG and cell not in layout_cells:
                problems.append(f"a tag ({uid.hex()}) lies at {label(cell)}, outside the arrangement")
        seen: dict[bytes, Half] = {}
        for half, cell in cells.items():
            status, uid = voted[cell]
            if status == wire.EMPTY:
                problems.append(f"no tag under {half}: nothing read at {label(cell)}")
            elif status is None:
                problems.append(f"unsteady reads at {label(cell)} ({half}): no majority over {self.votes} snapshots")
            elif status == wire.TAG and uid in seen:
                problems.append(f"tag {uid.hex()} read under both {seen[uid]} and {half}: a cloned tag")
            elif status == wire.TAG:
                seen[uid] = half
        if problems:
            raise EnrollError("enrollment failed, nothing saved: " + "; ".join(problems))
        work = self.registry.copy(empty=fresh)
        for uid, half in seen.items():
            work.add(uid, half)
        return self._save(work)

    def _wait_quiet(self) -> None:
        """Wait until no cell has changed for `settle` seconds since the person said done,
        so that every tile laid has been seen by the sweep."""
        done = time.monotonic()
        if not self.link.wait_for(lambda lk: time.monotonic() - max(done, lk.last_change) >= self.settle,
                                  self.timeout + self.settle):
            raise EnrollError(f"the tray kept changing for {self.timeout:g} s; leave the tiles still")

    def _vote(self) -> list[tuple[int | None, bytes]]:
        snapshots = []
        with self.progress(self.votes, "snapshots") if self.progress else nullcontext(lambda: None) as step:
            for _ in range(self.votes):
                snapshots.append(self._fresh_snapshot())
                step()
        return majority(snapshots)

    def _fresh_snapshot(self) -> list[tuple[int, bytes]]:
        before = self.link.snapshots
        self.link.request_snapshot()
        if not self.link.wait_for(lambda link: link.snapshots > before and link.connected, self.timeout):
            raise EnrollError(f"the tray sent no snapshot within {self.timeout:g} s (is it connected?)")
        return list(self.link.cells)

    # --- tile by tile ---------------------------------------------------------------------

    def by_pad(self, tiles: list[Tile] | None = None, fresh: bool = False) -> Registry:
        """Enroll `tiles` (default: the whole set) one at a time on the scan pad."""
        geo = self.geometry
        left, right = geo.pad[:2]
        work = self.registry.copy(empty=fresh)
        for tile in tiles or list(self.registry.dominoes):
            if tile not in self.registry.dominoes:
                raise EnrollError(f"tile {tile} is not in the {self.registry.dominoes.name} set")
            self._wait_pad_clear(left, right)
            self.prompt(f"Hold {tile} over the scan pad, the {tile.a} half on the left.")
            uids = self._read_pad(tile, left, right)
            if uids[0] == uids[1]:
                raise EnrollError(f"both halves of {tile} read the same tag {uids[0].hex()}: a cloned tag")
            work.add(uids[0], Half(tile, 0))
            work.add(uids[1], Half(tile, 1))
            self.prompt(f"Take {tile} off the scan pad.")
        self._wait_pad_clear(left, right)
        return self._save(work)

    def _read_pad(self, tile: Tile, left: int, right: int) -> tuple[bytes, bytes]:
        def ready(link) -> bool:
            statuses = (link.cells[left][0], link.cells[right][0])
            return statuses == (wire.TAG, wire.TAG) or wire.FAULT in statuses
        self.link.wait_for(ready, self.timeout)
        (ls, luid), (rs, ruid) = self.link.cells[left], self.link.cells[right]
        label = self.geometry.label
        if wire.FAULT in (ls, rs):
            raise EnrollError(f"reader fault at {label(left if ls == wire.FAULT else right)}; "
                              "the scan pad cannot read")
        if (ls, rs) == (wire.TAG, wire.TAG):
            return luid, ruid
        if ls == rs == wire.EMPTY:
            raise EnrollError(f"no tile on the scan pad within {self.timeout:g} s (waiting for {tile})")
        missing, side = (right, tile.b) if ls == wire.TAG else (left, tile.a)
        raise EnrollError(f"only one tag of {tile} read: nothing at {label(missing)}, "
                          f"so the tag under its {side} half is missing or dead")

    def _wait_pad_clear(self, left: int, right: int) -> None:
        def clear(link) -> bool:
            return link.cells[left][0] != wire.TAG and link.cells[right][0] != wire.TAG
        if not self.link.wait_for(clear, self.timeout):
            raise EnrollError(f"the scan pad is still covered after {self.timeout:g} s; take the tile off")

    def _save(self, work: Registry) -> Registry:
        try:
            work.save()
        except OSError as exc:
            raise TrayError(f"cannot save the tag registry {work.path}: {exc}") from None
        self.registry = work
        return work

