"""Server-side SVG: the tray to scale (millimetres, from tray/geometry.py) with its zones, tiles
and highlighted cells, and a match's score after every hand. The live page and the replay draw
the tray with the same function; no plotting library."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from html import escape

from dominotable.rules.tiles import Tile
from dominotable.tray.geometry import Geometry

MARGIN = 10.0  # mm around the grid
PAD_GAP = 1.0  # pitches between the grid's near edge and the scan pad

# Pip positions on a unit square, per count (0-12), as (x, y) in thirds/quarters.
_P3 = {"tl": (.25, .25), "tc": (.5, .25), "tr": (.75, .25), "ml": (.25, .5), "mc": (.5, .5), "mr": (.75, .5),
       "bl": (.25, .75), "bc": (.5, .75), "br": (.75, .75)}
_PIPS = {
    0: (), 1: ("mc",), 2: ("tl", "br"), 3: ("tl", "mc", "br"), 4: ("tl", "tr", "bl", "br"),
    5: ("tl", "tr", "mc", "bl", "br"), 6: ("tl", "tr", "ml", "mr", "bl", "br"),
    7: ("tl", "tr", "ml", "mc", "mr", "bl", "br"), 8: ("tl", "tc", "tr", "ml", "mr", "bl", "bc", "br"),
    9: tuple(_P3),
}


def pip_points(n: int) -> list[tuple[float, float]]:
    """Where the pips of a half showing `n` sit on a unit square."""
    if n in _PIPS:
        return [_P3[k] for k in _PIPS[n]]
    cols = 3 if n <= 12 else 4  # 10-12: up to four rows of three
    rows = -(-n // cols)
    return [((i % cols + 1) / (cols + 1), (i // cols + 1) / (rows + 1)) for i in range(n)]


class Layout:
    """Where each cell of a geometry is drawn, in millimetres."""

    def __init__(self, geometry: Geometry):
        self.geometry = geometry
        self.pitch = geometry.pitch_mm
        grid_w, grid_h = geometry.columns * self.pitch, geometry.rows * self.pitch
        pad_w = len(geometry.pad) * self.pitch
        self.pad_x = MARGIN + (grid_w - pad_w) / 2
        self.pad_y = MARGIN + grid_h + PAD_GAP * self.pitch
        self.width = grid_w + 2 * MARGIN
        self.height = self.pad_y + self.pitch + MARGIN

    def origin(self, cell: int) -> tuple[float, float]:
        """The top-left corner of a cell (row 0, the far edge, at the top)."""
        geo = self.geometry
        if geo.is_pad(cell):
            return self.pad_x + geo.pad.index(cell) * self.pitch, self.pad_y
        row, col = geo.coords(cell)
        return MARGIN + col * self.pitch, MARGIN + row * self.pitch

    def to_dict(self) -> dict:
        """What the page needs to find the cell under the pointer."""
        geo = self.geometry
        return {"pitch": self.pitch, "x0": MARGIN, "y0": MARGIN, "columns": geo.columns, "rows": geo.rows,
                "pad": [[cell, *self.origin(cell)] for cell in geo.pad], "width": self.width, "height": self.height}


def tray(geometry: Geometry, tiles: Iterable[tuple[Tile, Sequence[int]]], *, zones: Iterable[str] = (),
         highlight: Iterable[int] = (), ghosts: Iterable[tuple[Tile, Sequence[int]]] = (), title: str = "") -> str:
    """The tray as an SVG element: cells, the scan pad, the named `zones`, `tiles` as (tile,
    (cell under tile.a, cell under tile.b)), `ghosts` (tiles on the tray the table has not read
    yet) drawn faint, and the `highlight`ed cells outlined."""
    return (base(geometry, tuple(zones), title)[:-len("</svg>")] + '<g class="overlay">'
            + overlay(geometry, tiles, highlight=highlight, ghosts=ghosts) + "</g></svg>")


@lru_cache(maxsize=32)
def base(geometry: Geometry, zones: tuple[str, ...] = (), title: str = "") -> str:
    """What does not change during a match: the bed, the cells, the scan pad, the zones."""
    lay = Layout(geometry)
    p = lay.pitch
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="tray" viewBox="0 0 {lay.width:g} {lay.height:g}" '
            f'role="img" aria-label="{escape(title or geometry.name)}">'),
           f'<rect class="bed" x="0" y="0" width="{lay.width:g}" height="{lay.height:g}" rx="6"/>']
    for cell in range(geometry.cells):
        x, y = lay.origin(cell)
        kind = "cell pad" if geometry.is_pad(cell) else "cell"
        out.append(f'<rect class="{kind}" data-cell="{cell}" x="{x:g}" y="{y:g}" width="{p:g}" height="{p:g}">'
                   f'<title>{escape(geometry.label(cell))}</title></rect>')
    for col in range(geometry.columns):  # the names prompts give cells by: r4c6 is row 4, column 6
        x, _ = lay.origin(col)
        out.append(f'<text class="axis" x="{x + p / 2:g}" y="{MARGIN - 2.5:g}" text-anchor="middle">c{col}</text>')
    for row in range(geometry.rows):
        _, y = lay.origin(row * geometry.columns)
        out.append(f'<text class="axis" x="{MARGIN - 1.5:g}" y="{y + p / 2 + 1.5:g}" text-anchor="end">r{row}</text>')
    x, _ = lay.origin(geometry.pad[0])
    out.append(f'<text class="pad-name" x="{x - 2:g}" y="{lay.pad_y + p / 2 + 1.5:g}" text-anchor="end">scan pad</text>')
    for name in zones:
        cells = geometry.zone(name)
        xs, ys = zip(*(lay.origin(c) for c in cells))
        x, y = min(xs), min(ys)
        out.append(f'<rect class="zone" data-zone="{escape(name)}" x="{x:g}" y="{y:g}" width="{max(xs) + p - x:g}" '
                   f'height="{max(ys) + p - y:g}"/>'
                   f'<text class="zone-name" x="{x + 1.5:g}" y="{y + 5.5:g}">{escape(geometry.labels[name])}</text>')
    out.append("</svg>")
    return "".join(out)


def overlay(geometry: Geometry, tiles: Iterable[tuple[Tile, Sequence[int]]], *, highlight: Iterable[int] = (),
            ghosts: Iterable[tuple[Tile, Sequence[int]]] = (), lifted: Iterable[Tile] = (),
            racks: Iterable[tuple[str, Sequence[Sequence[int]]]] = (), face_down: Iterable[int] = (),
            alarm: bool = False) -> str:
    """What changes with every play: the racks of the seats the table plays (their slots,
    numbered), the tiles (those on `face_down` cells drawn face down, their backs only: neither
    pips nor name; `lifted` ones, gone from where the table last read them, drawn faint and
    dashed), the ghosts, the outlined cells (`alarm`: a problem's, else an instruction's or a hint's)."""
    lay = Layout(geometry)
    p = lay.pitch
    out, numbers = [], []
    for seat, slots in racks:
        for k, cells in enumerate(slots, 1):
            (xa, ya), (xb, yb) = lay.origin(cells[0]), lay.origin(cells[1])
            x, y = min(xa, xb), min(ya, yb)
            out.append(f'<g class="slot" data-rack="{escape(seat)}" data-slot="{k}">'
                       f'<rect x="{x + .3:g}" y="{y + .3:g}" width="{abs(xa - xb) + p - .6:g}" '
                       f'height="{abs(ya - yb) + p - .6:g}" rx="3"/></g>')
            numbers.append(f'<text class="slot-number" x="{x + 2.2:g}" y="{y + 6:g}">{k}</text>')  # over its tile
        if slots:
            x, y = lay.origin(min(slots[0]))
            out.append(f'<text class="rack-name" x="{x + 1:g}" y="{y - 1.2:g}">{escape(seat)}</text>')
    hidden = set(face_down)
    down = lambda cells: " face-down" if set(cells) <= hidden else ""  # noqa: E731
    out += [_tile(lay, tile, cells, "tile ghost" + down(cells)) for tile, cells in ghosts]
    gone = set(lifted)
    out += [_tile(lay, tile, cells, ("tile lifted" if tile in gone else "tile") + down(cells)) for tile, cells in tiles]
    out += numbers
    kind = "named alarm" if alarm else "named"
    for cell in sorted(set(highlight)):
        if 0 <= cell < geometry.cells:
            x, y = lay.origin(cell)
            out.append(f'<rect class="{kind}" data-cell="{cell}" x="{x + .8:g}" y="{y + .8:g}" '
                       f'width="{p - 1.6:g}" height="{p - 1.6:g}"/>')
    return "".join(out)


def _tile(lay: Layout, tile: Tile, cells: Sequence[int], kind: str) -> str:
    p = lay.pitch
    (xa, ya), (xb, yb) = lay.origin(cells[0]), lay.origin(cells[1])
    x, y = min(xa, xb), min(ya, yb)
    w, h = abs(xa - xb) + p, abs(ya - yb) + p
    back = "face-down" in kind  # its back: no name, no line, no pips
    named = "" if back else f' data-tile="{tile.a}-{tile.b}"'
    parts = [f'<g class="{kind}"{named} data-cells="{cells[0]},{cells[1]}">',
             f'<rect class="face" x="{x + .6:g}" y="{y + .6:g}" width="{w - 1.2:g}" height="{h - 1.2:g}" rx="2.5"/>']
    if back:
        return "".join(parts) + "</g>"
    if xa == xb:
        parts.append(f'<line x1="{x + 3:g}" y1="{y + p:g}" x2="{x + w - 3:g}" y2="{y + p:g}"/>')
    else:
        parts.append(f'<line x1="{x + p:g}" y1="{y + 3:g}" x2="{x + p:g}" y2="{y + h - 3:g}"/>')
    for pips, (cx, cy) in ((tile.a, (xa, ya)), (tile.b, (xb, yb))):
        r = p * (0.075 if pips <= 9 else 0.06)
        for u, v in pip_points(pips):
            parts.append(f'<circle cx="{cx + u * p:.1f}" cy="{cy + v * p:.1f}" r="{r:.2f}"/>')
    parts.append("</g>")
    return "".join(parts)


LABEL_GAP = 12  # px between the names at the plot's right end, so they never overlap (font 10 px)


def score_plot(names: Sequence[str], series: Sequence[Sequence[int]], target: int | None = None, *,
               per: str = "hand", scoring: str = "points", lower_wins: bool = False, title: str = "",
               width: int = 360, height: int = 160) -> str:
    """A line per side: its score at the start (series[0]) and after every hand or scoring play
    (series[i]); each side's name and last score at its line's end, spread apart so they never
    overlap. What the scores count and which way they run is said above the lines, how many hands
    below them, so the two never meet. The target is drawn where the scores come near it; far above
    them it is left to the match's goal to say, so it never squashes the lines."""
    left, right, top, bottom = 34, 124, 22, 20
    values = [s for scores in series for s in scores] or [0]
    reach = max([1, *values])
    shown = target if target and target <= 1.5 * reach else None
    high = max([shown or 0, reach])
    low = min([0, *values])
    steps = max(len(series) - 1, 1)
    span = high - low or 1

    def at(step: int, score: int) -> tuple[float, float]:
        x = left + (width - left - right) * step / steps
        y = top + (height - top - bottom) * (1 - (score - low) / span)
        return x, y

    label = f"{title}: " if title else ""
    runs = f"{scoring}, {'lower' if lower_wins else 'higher'} is better"
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{escape(label)}{escape(scoring)} after every {per}, '
            f'{"lower" if lower_wins else "higher"} is better">')]
    x0, y0 = at(0, low)
    x1, y1 = at(steps, high)
    out.append(f'<path class="axes" d="M{x0:g},{y1:g} V{y0:g} H{x1:g}"/>')
    out.append(f'<text class="tick" x="{x0 - 4:g}" y="{y0:g}" text-anchor="end">{low}</text>'
               f'<text class="tick" x="{x0 - 4:g}" y="{y1 + 4:g}" text-anchor="end">{high}</text>'
               f'<text class="tick runs" x="{x0:g}" y="{top - 8}">{escape(runs)}</text>'
               f'<text class="tick count" x="{x1:g}" y="{height - 5}" text-anchor="end">{plural(len(series) - 1, per)}</text>')
    if shown:
        _, ty = at(0, shown)
        out.append(f'<path class="target" d="M{x0:g},{ty:g} H{x1:g}"/>')
    ends = []
    for side, name in enumerate(names):
        points = [at(i, scores[side]) for i, scores in enumerate(series)] or [at(0, 0)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        out.append(f'<polyline class="side side-{side % 6}" points="{path}"/>')
        ends.append([points[-1][1], side, points[-1][0]])
    for (y, side, x), placed in zip(sorted(ends), spread([y for y, _, _ in sorted(ends)], top, height - bottom)):
        last = series[-1][side] if series else 0
        out.append(f'<text class="side-name side-{side % 6}" x="{x + 4:.1f}" y="{placed + 3:.1f}">'
                   f'{escape(names[side])} {last}</text>')
    out.append("</svg>")
    return "".join(out)


def plural(count: int, thing: str) -> str:
    return f"{count} {thing}{'s' * (count != 1)}"


def spread(ys: Sequence[float], lowest: float, highest: float, gap: float = LABEL_GAP) -> list[float]:
    """Positions for labels wanted at `ys` (sorted), each at least `gap` from the next, kept
    between `lowest` and `highest` where they fit, and each as near its own y as that allows."""
    placed: list[float] = []
    for y in ys:
        placed.append(max(y, placed[-1] + gap) if placed else max(y, lowest))
    overflow = placed[-1] - highest if placed else 0
    if overflow > 0:  # pushed past the bottom: shift the packed run up
        for i in range(len(placed) - 1, -1, -1):
            limit = placed[i + 1] - gap if i + 1 < len(placed) else highest
            placed[i] = min(placed[i], limit)
    return placed
