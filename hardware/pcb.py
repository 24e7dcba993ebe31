"""The boards placed: every footprint of a board's netlist on a board outline (hardware/layout.py
builds the placed board in pcbnew, which routes, checks and plots it: hardware/fab.py).

    python hardware/pcb.py --footprints    # rewrite the etched loop's footprint from architecture.toml

The cell board keeps its top copper for the cell coils (one per 25 mm cell, their gaps facing
the block's reader) and carries every part on its bottom side; the controller carries its
parts on the top beside the scan pad's two coils. The outlines, mounting holes, the parts fixed in
place and what may lie under a loop are data/boards.toml's. The other parts are packed greedily,
largest first, each at the free spot nearest its anchor (its block's centre, its cable's header,
the part it decouples, or the parts it shares a signal with), on a 0.2 mm occupancy grid of the
courtyards: never inside a loop's innermost turn, and under its turns only where nothing else
fits.
"""

from __future__ import annotations

import argparse
import math
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kicad  # noqa: E402

ARCH = tomllib.loads((HERE / "data" / "architecture.toml").read_text())
BOARDS = tomllib.loads((HERE / "data" / "boards.toml").read_text())
PITCH = tomllib.loads((HERE / "tray.toml").read_text())["tray"]["cell_pitch_mm"]
HOLE_FOOTPRINT = "MountingHole:MountingHole_2.2mm_M2_DIN965"
GRID = 0.2  # mm per occupancy cell
EDGE = 0.5  # mm kept clear of the board edge
# mm kept free round each packed part: room for the router's tracks to leave its pads and pass
# (with courtyards touching, a pad inside a cluster of 0402 parts had no way out: hardware/fab.py)
ROUTING = 0.5
POWER = {"GND", "+3V3", "+5V"}
# Where the USB ESD array goes, in the Pico's footprint frame: just outside the module at its USB
# end, by VBUS (pin 40) and 12 mm from the test pads TP2/TP3 at (+-1, -24.3); clear of the
# micro-USB plug, which lands on the module's centre line.
USB_ESD_AT = (13.2, -24.0)


# --- the etched loop ------------------------------------------------------------------------------

def loop_name(coil: dict) -> str:
    return f"Loop_{coil['outer_mm']:g}mm_{coil['turns']}T_{coil['trace_mm']:g}mm"


def loop_footprint_text(coil: dict) -> str:
    """A square loop of `turns` turns on F.Cu, its two ends at the (+x, +y) corner: pad 1 the
    outer end, pad 2 the inner (a plated hole from the second turn on, to leave on B.Cu)."""
    outer, turns, w = coil["outer_mm"], coil["turns"], coil["trace_mm"]
    gap = coil.get("gap_mm", 0.3)
    corner = 2.0 * w + 1.0  # the opening at the corner the leads leave from
    lines, path = [], []
    for n in range(turns):
        h = (outer - w) / 2 - n * (w + gap)
        path += [(h, h - corner), (h, -h), (-h, -h), (-h, h), (h - corner - n * (w + gap), h)]
    for a, b in zip(path, path[1:]):
        lines.append(f'  (fp_line (start {a[0]:.3f} {a[1]:.3f}) (end {b[0]:.3f} {b[1]:.3f}) '
                     f'(layer "F.Cu") (width {w:g}))')
    (x1, y1), (x2, y2) = path[0], path[-1]
    c = outer / 2 + 0.25
    court = [(-c, -c, c, -c), (c, -c, c, c), (c, c, -c, c), (-c, c, -c, -c)]
    text = "(effects (font (size 1 1) (thickness 0.15)))"
    inner = (f'  (pad "2" smd rect (at {x2:.3f} {y2:.3f}) (size {w:g} {w:g}) (layers "F.Cu"))' if turns == 1 else
             f'  (pad "2" thru_hole circle (at {x2:.3f} {y2:.3f}) (size {w + 0.2:g} {w + 0.2:g}) (drill 0.3) '
             '(layers *.Cu))')
    return "\n".join([
        f'(footprint "{loop_name(coil)}" (version 20211014) (generator dominotable)',
        '  (layer "F.Cu")',
        f'  (descr "Etched cell loop, {outer:g} mm square, {turns} turn(s) of {w:g} mm trace; '
        'hardware/pcb.py writes it from architecture.toml [coil]")',
        # "net tie" first: KiCad's DRC lets a net tie's own copper join its pads (the loop is the
        # copper from the coil's switched end to the block's common node)
        '  (tags "net tie, loop antenna NFC 13.56 MHz")',
        '  (attr smd exclude_from_pos_files exclude_from_bom)',  # copper, not a part to place
        f'  (fp_text reference "REF**" (at 0 0) (layer "F.Fab")\n    {text}\n  )',
        f'  (fp_text value "{loop_name(coil)}" (at 0 1.5) (layer "F.Fab")\n    {text}\n  )',
        *lines,
        *(f'  (fp_line (start {a:g} {b:g}) (end {e:g} {f:g}) (layer "F.CrtYd") (width 0.05))'
          for a, b, e, f in court),
        f'  (pad "1" smd rect (at {x1:.3f} {y1:.3f}) (size {w:g} {w:g}) (layers "F.Cu"))',
        inner,
        ")"]) + "\n"


def loop_footprint() -> str:
    """'dominotable:<name>' of the loop architecture.toml describes."""
    return f"{kicad.PROJECT}:{loop_name(ARCH['coil'])}"


def loop_path() -> Path:
    return kicad.PROJECT_LIB / f"{kicad.PROJECT}.pretty" / f"{loop_name(ARCH['coil'])}.kicad_mod"


# --- geometry ----------------------------------------------------------------------------------------

def rotate(x: float, y: float, deg: float) -> tuple[float, float]:
    """KiCad's rotation (counter-clockwise as drawn, y pointing down)."""
    a = math.radians(deg)
    return x * math.cos(a) + y * math.sin(a), -x * math.sin(a) + y * math.cos(a)


@dataclass
class Placed:
    ref: str
    footprint: str
    x: float
    y: float
    rot: float  # as seen from the top
    side: str  # "F" or "B"

    def to_board(self, x: float, y: float) -> tuple[float, float]:
        """A footprint-local point on the board: a bottom part is mirrored left-right."""
        dx, dy = rotate(-x if self.side == "B" else x, y, self.rot)
        return self.x + dx, self.y + dy

    def box(self, layer: str = "CrtYd") -> tuple[float, float, float, float]:
        fp = kicad.footprint(self.footprint)
        x0, y0, x1, y1 = fp.courtyard["F.CrtYd"]
        pts = [self.to_board(x, y) for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
        return (min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts))

    def sides(self) -> tuple[str, ...]:
        """The sides its courtyard blocks: a through-hole part both (an SMD footprint's vias, such as
        a loop's inner end, block only their own spot: vias())."""
        return ("F", "B") if _both_sides(self.footprint) else (self.side,)

    def vias(self) -> list[tuple[float, float, float, float]]:
        """The boxes of an SMD footprint's plated holes, which pass through to the other side."""
        fp = kicad.footprint(self.footprint)
        if _both_sides(self.footprint):
            return []
        out = []
        for pad in fp.pads:
            if pad.kind == "thru_hole":
                x, y = self.to_board(pad.x, pad.y)
                r = max(pad.width, pad.height) / 2 + 0.2
                out.append((x - r, y - r, x + r, y + r))
        return out


def _both_sides(footprint: str) -> bool:
    fp = kicad.footprint(footprint)
    return fp.through_hole and fp.attr != "smd"


@dataclass
class Board:
    name: str
    width: float
    height: float
    parts: list[Placed]
    layers: int = 2
    holes: list[tuple[float, float]] = None  # mounting holes' centres (boards.toml)
    hole_keepout: float = 0.0  # a hole's keep-out diameter, both sides


# --- placement ----------------------------------------------------------------------------------------

class Grid:
    """Occupied courtyard area per side, on a GRID mm raster."""

    def __init__(self, width: float, height: float):
        self.w, self.h = int(round(width / GRID)), int(round(height / GRID))
        # per side, F and B: occupied; f and b: kept free if anything else will do (under loops' turns)
        self.occ = {s: np.zeros((self.h, self.w), dtype=np.int32) for s in "FBfb"}
        self.width, self.height = width, height
        self._sat: dict[tuple, np.ndarray] = {}

    def mark(self, box, sides):
        x0, y0, x1, y1 = box
        j0, i0 = max(0, math.floor(x0 / GRID)), max(0, math.floor(y0 / GRID))
        j1, i1 = min(self.w, math.ceil(x1 / GRID)), min(self.h, math.ceil(y1 / GRID))
        for s in sides:
            self.occ[s][i0:i1, j0:j1] = 1
        self._sat.clear()

    def _table(self, sides) -> np.ndarray:
        """The summed-area table of the occupied cells of `sides`."""
        if sides not in self._sat:
            sat = np.zeros((self.h + 1, self.w + 1), dtype=np.int32)
            sat[1:, 1:] = sum(self.occ[s] for s in sides).cumsum(0).cumsum(1)
            self._sat[sides] = sat
        return self._sat[sides]

    def best(self, size, sides, anchor):
        """The free centre nearest `anchor` for a w x h box (mm), or None: searched in a window
        around the anchor that widens until it finds room."""
        bw, bh = math.ceil(size[0] / GRID - 1e-9) + 1, math.ceil(size[1] / GRID - 1e-9) + 1
        e = math.ceil(EDGE / GRID)
        sat = self._table(tuple(sides))
        ai, aj = anchor[1] / GRID - bh / 2, anchor[0] / GRID - bw / 2  # the box's corner at the anchor
        for reach in (40, 120, max(self.w, self.h)):
            i0, i1 = max(e, int(ai) - reach), min(self.h - bh - e, int(ai) + reach)
            j0, j1 = max(e, int(aj) - reach), min(self.w - bw - e, int(aj) + reach)
            if i1 < i0 or j1 < j0:
                continue
            win = (sat[i0 + bh:i1 + bh + 1, j0 + bw:j1 + bw + 1] - sat[i0:i1 + 1, j0 + bw:j1 + bw + 1]
                   - sat[i0 + bh:i1 + bh + 1, j0:j1 + 1] + sat[i0:i1 + 1, j0:j1 + 1])
            ii, jj = np.nonzero(win == 0)
            if len(ii):
                cx, cy = (jj + j0 + bw / 2) * GRID, (ii + i0 + bh / 2) * GRID
                k = np.argmin((cx - anchor[0]) ** 2 + (cy - anchor[1]) ** 2)
                return float(cx[k]), float(cy[k])
        return None


def _size(footprint: str, rot: float) -> tuple[float, float]:
    x0, y0, x1, y1 = kicad.footprint(footprint).courtyard["F.CrtYd"]
    return (x1 - x0, y1 - y0) if rot % 180 == 0 else (y1 - y0, x1 - x0)


def _centre(footprint: str, rot: float, side: str) -> tuple[float, float]:
    """Where the courtyard's centre lies from the footprint's origin, as placed."""
    x0, y0, x1, y1 = kicad.footprint(footprint).courtyard["F.CrtYd"]
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return rotate(-cx if side == "B" else cx, cy, rot)


def _put(grid, parts, ref, footprint, side, anchor, rotations=(0, 90), margin=ROUTING):
    """At the free spot nearest `anchor`: clear of the loops' turns if it fits so anywhere, and
    with `margin` kept free round it where it fits so (the router's way out of its pads)."""
    best = None
    sides = ("F", "B") if _both_sides(footprint) else (side,)
    tiers = [(layers, m) for layers in (sides + tuple(s.lower() for s in sides), sides) for m in {margin, 0.0}]
    for layers, m in sorted(tiers, key=lambda t: (len(t[0]) == len(sides), -t[1])):
        for rot in rotations:
            w, h = _size(footprint, rot)
            spot = grid.best((w + 2 * m, h + 2 * m), layers, anchor)
            if spot and (best is None or math.dist(spot, anchor) < math.dist(best[0], anchor)):
                best = (spot, rot, m)
        if best:
            break
    if best is None:
        raise RuntimeError(f"{ref} ({footprint}) does not fit on the board")
    (cx, cy), rot, m = best
    ox, oy = _centre(footprint, rot, side)
    p = Placed(ref, footprint, cx - ox, cy - oy, rot, side)
    x0, y0, x1, y1 = p.box()
    grid.mark((x0 - m, y0 - m, x1 + m, y1 + m), p.sides())
    parts.append(p)
    return p


def place(name: str, net: kicad.Netlist) -> Board:
    if name == "cell":
        return _place_cell(net)
    return _place_controller(net)


def _neighbours(net: kicad.Netlist) -> dict[str, set[str]]:
    """Parts that share a signal (not a supply) with each part."""
    out: dict[str, set[str]] = {r: set() for r in net.components}
    for name, nodes in net.nets.items():
        if name in POWER:
            continue
        refs = {n.ref for n in nodes}
        for r in refs:
            out[r] |= refs - {r}
    return out


def _order(net: kicad.Netlist, refs) -> list[str]:
    """Largest courtyard first."""
    def area(r):
        w, h = _size(net.components[r].footprint, 0)
        return w * h
    return sorted(refs, key=lambda r: (-area(r), r))


def _pack(grid, parts, net, refs, side, anchor_of):
    placed = {p.ref: p for p in parts}
    near = _neighbours(net)
    for ref in _order(net, refs):
        anchor = anchor_of(ref)
        if anchor is None:
            linked = [placed[r] for r in near[ref] if r in placed]
            anchor = ((sum(p.x for p in linked) / len(linked), sum(p.y for p in linked) / len(linked))
                      if linked else (grid.width / 2, grid.height / 2))
        placed[ref] = _put(grid, parts, ref, net.components[ref].footprint, side, anchor)


def _by_key(net, key):
    return sorted((r for r, c in net.components.items() if c.fields.get("Key") == key),
                  key=lambda r: int(r.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")))


def _place_cell(net: kicad.Netlist) -> Board:
    cols, rows = ARCH["boards"]["cell_board_cells"]
    bw, bh = ARCH["reader"]["block"]
    width, height = cols * PITCH, rows * PITCH
    grid, parts = Grid(width, height), []
    # the coils on the top copper, each with its open corner towards its block's centre
    for ref in _by_key(net, "antenna"):
        cell = int(net.components[ref].fields["Cell"])
        r, c = divmod(cell, cols)
        x, y = (c + 0.5) * PITCH, (r + 0.5) * PITCH
        rot = {(0, 0): 0, (1, 0): 270, (1, 1): 180, (0, 1): 90}[(c % bw, r % bh)]
        p = Placed(ref, net.components[ref].footprint, x, y, rot, "F")
        grid.mark(p.box(), p.sides())
        for via in p.vias():
            grid.mark(via, ("F", "B"))
        parts.append(p)
    spec = BOARDS["cell"]
    _holes(grid, spec["holes"], spec["hole_keepout_mm"])
    _leds(grid, parts, net, lambda cell: ((cell % cols + 0.5) * PITCH, (cell // cols + 0.5) * PITCH))
    _fixed(grid, parts, net, spec["fixed"], "B")  # the cables' headers, between the block rows
    _loop_keepouts(grid, parts, net)
    blocks_across = cols // bw

    def block_centre(block):
        br, bc = divmod(block, blocks_across)
        return ((bc + 0.5) * bw * PITCH, (br + 0.5) * bh * PITCH)

    incoming = next(p for p in parts if net.components[p.ref].fields.get("Cable") == "in")

    def anchor(ref):
        fields = net.components[ref].fields
        if "Block" in fields:
            return block_centre(int(fields["Block"]))
        if "Cell" in fields:  # an LED's decoupler beside it
            cell = int(fields["Cell"])
            return ((cell % cols + 0.5) * PITCH, (cell // cols + 0.5) * PITCH + 3.0)
        if fields.get("Key") in ("esd", "line_decoder"):
            return (incoming.x + 10, incoming.y)
        return None

    rest = [r for r in net.components if r not in {p.ref for p in parts}]
    _pack(grid, parts, net, [r for r in rest if r[0] in "UYJ"], "B", anchor)
    _pack(grid, parts, net, [r for r in rest if r[0] not in "UYJ"], "B", anchor)
    return Board("cell", width, height, parts, holes=[tuple(h) for h in spec["holes"]],
                 hole_keepout=spec["hole_keepout_mm"])


def _loop_keepouts(grid, parts, net):
    """Nothing more inside a loop's innermost turn, on either side (the parts that stay there,
    boards.toml loop_stays, are placed before); under its turns, only what the RF model takes."""
    for box in loop_boxes(parts, net, inner=True):
        grid.mark(box, ("F", "B"))
    for box in loop_boxes(parts, net):
        grid.mark(box, ("f", "b"))


def loop_boxes(parts, net, inner=False) -> list[tuple[float, float, float, float]]:
    """Each placed loop's outline, or the opening inside its innermost turn."""
    coil = ARCH["coil"]
    h = coil["outer_mm"] / 2
    if inner:
        h -= coil["turns"] * coil["trace_mm"] + (coil["turns"] - 1) * coil["gap_mm"]
    return [(p.x - h, p.y - h, p.x + h, p.y + h) for p in parts
            if net.components[p.ref].fields.get("Key") == "antenna"]


def _fixed(grid, parts, net, fixed, side):
    """boards.toml's fixed parts at their spots: a part that does not fit there exactly is a fault
    of the data (the cover's cut-outs and the RF model take them where they are written)."""
    for key, spots in fixed.items():
        for ref, (x, y, rot) in zip(_by_key(net, key), spots):
            p = _put(grid, parts, ref, net.components[ref].footprint, side, (x, y), rotations=(rot,), margin=0.0)
            x0, y0, x1, y1 = p.box()
            if abs((x0 + x1) / 2 - x) > GRID or abs((y0 + y1) / 2 - y) > GRID:
                raise RuntimeError(f"{ref} ({key}) does not fit at its fixed spot ({x:g}, {y:g}) in boards.toml")


def _holes(grid, holes, keepout):
    for x, y in holes:
        grid.mark((x - keepout / 2, y - keepout / 2, x + keepout / 2, y + keepout / 2), ("F", "B"))


def _leds(grid, parts, net, centre_of):
    """Each cell's LED on the bottom, its body in the hole under the cell's centre."""
    for ref in _by_key(net, "led"):
        x, y = centre_of(int(net.components[ref].fields["Cell"]))
        p = Placed(ref, net.components[ref].footprint, x, y, 0.0, "B")
        grid.mark(p.box(), p.sides())
        parts.append(p)


def _place_controller(net: kicad.Netlist) -> Board:
    """The scan pad's two coils where boards.toml puts the pad, the tall parts at their fixed spots
    (the cover's cut-outs clear them), the USB ESD array beside the Pico's USB end; the rest packed
    around them outside the loops, inside boards.toml's outline."""
    spec = BOARDS["controller"]
    width, height = spec["width_mm"], spec["height_mm"]
    grid, parts = Grid(width, height), []
    px, py = spec["pad_at_mm"]
    for ref in _by_key(net, "antenna"):  # their open corners towards the reader below them
        k = int(net.components[ref].fields["Cell"])
        p = Placed(ref, net.components[ref].footprint, px + (k + 0.5) * PITCH, py + PITCH / 2, 270 if k else 0, "F")
        grid.mark(p.box(), p.sides())
        parts.append(p)
    _holes(grid, spec["holes"], spec["hole_keepout_mm"])
    _leds(grid, parts, net, lambda cell: (px + (cell + 0.5) * PITCH, py + PITCH / 2))
    _loop_keepouts(grid, parts, net)
    _fixed(grid, parts, net, spec["fixed"], "F")
    pico = next(p for p in parts if net.components[p.ref].fields.get("Key") == "pico")
    for ref in _by_key(net, "usb_esd"):
        _put(grid, parts, ref, net.components[ref].footprint, "F", pico.to_board(*USB_ESD_AT))
    at = {p.ref: p for p in parts}
    cable_header = {net.components[r].fields.get("Cable"): r for r in _by_key(net, "cable_header")}

    def anchor(ref):
        fields = net.components[ref].fields
        if "Block" in fields:
            return (px + PITCH, py + PITCH + 8.0)
        if "Cell" in fields:
            return (px + (int(fields["Cell"]) + 0.5) * PITCH, py + PITCH / 2 + 3.0)
        if "Cable" in fields and fields["Cable"] in cable_header:
            h = at[cable_header[fields["Cable"]]]
            return (h.x, h.y - 18.0)
        return None

    rest = [r for r in net.components if r not in at]
    caps = [r for r in rest if "Cell" in net.components[r].fields]  # the pad LEDs' decouplers, beside them
    _pack(grid, parts, net, caps, "B", anchor)
    rest = [r for r in rest if r not in caps]
    _pack(grid, parts, net, [r for r in rest if r[0] in "UYDLF"], "F", anchor)
    _pack(grid, parts, net, [r for r in rest if r[0] not in "UYDLF"], "F", anchor)
    return Board("controller", width, height, parts, holes=[tuple(h) for h in spec["holes"]],
                 hole_keepout=spec["hole_keepout_mm"])


# --- checks -------------------------------------------------------------------------------------------

def placement_faults(board: Board, net: kicad.Netlist | None = None) -> list[str]:
    """Every footprint of the netlist placed once, inside the outline, with no two courtyards
    overlapping on a side (a through-hole part occupies both)."""
    faults = []
    refs = [p.ref for p in board.parts]
    if net is not None:
        missing = sorted(set(net.components) - set(refs))
        faults += [f"{r} is on the netlist but not placed" for r in missing]
    faults += [f"{r} is placed twice" for r in sorted({r for r in refs if refs.count(r) > 1})]
    boxes = []
    for p in board.parts:
        x0, y0, x1, y1 = p.box()
        if x0 < 0 or y0 < 0 or x1 > board.width or y1 > board.height:
            faults.append(f"{p.ref}'s courtyard ({x0:.2f}, {y0:.2f})-({x1:.2f}, {y1:.2f}) leaves the "
                          f"{board.width:g} x {board.height:g} mm outline")
        boxes.append((p, (x0, y0, x1, y1)))
    k = board.hole_keepout / 2
    for hx, hy in board.holes or []:
        for p, (x0, y0, x1, y1) in boxes:
            if x0 < hx + k and hx - k < x1 and y0 < hy + k and hy - k < y1:
                faults.append(f"{p.ref} lies on the mounting hole at ({hx:g}, {hy:g})")
    if net is not None:
        stays = set(BOARDS["cell"]["loop_stays"])
        for lx0, ly0, lx1, ly1 in loop_boxes(board.parts, net):
            for p, (x0, y0, x1, y1) in boxes:
                key = net.components[p.ref].fields.get("Key")
                if key != "antenna" and key not in stays and x0 < lx1 and lx0 < x1 and y0 < ly1 and ly0 < y1:
                    faults.append(f"{p.ref} lies under the loop at ({(lx0 + lx1) / 2:g}, {(ly0 + ly1) / 2:g})")
    boxes.sort(key=lambda b: b[1][0])
    for i, (p, a) in enumerate(boxes):
        for q, b in boxes[i + 1:]:
            if b[0] >= a[2] - 1e-6:
                break
            if b[1] < a[3] - 1e-6 and a[1] < b[3] - 1e-6 and set(p.sides()) & set(q.sides()):
                faults.append(f"{p.ref} and {q.ref} overlap ({', '.join(sorted(set(p.sides()) & set(q.sides())))})")
    return faults


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--footprints", action="store_true", help="rewrite the etched loop's footprint")
    args = parser.parse_args(argv)
    if args.footprints:
        loop_path().write_text(loop_footprint_text(ARCH["coil"]))
        print(loop_path())
    return 0


if __name__ == "__main__":
    sys.exit(main())
