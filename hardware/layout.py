"""The boards in KiCad: each board of circuit.py, as pcb.py placed it, built through pcbnew's own
API (footprints loaded from KiCad's libraries, turned and flipped by pcbnew, every pad on its
net), with what a board house needs besides: the outline, two fiducials on the assembled side,
the board's name and revision on the silkscreen, every reference where the silkscreen has room,
KiCad's exclude-from-BOM/position attributes on what the house does not place, and the house's
capabilities (data/house.toml) as the board's design rules and net class.

    board = layout.build("cell", built)     # a pcbnew BOARD, unrouted
    layout.save(board, path)                # path.kicad_pcb with its .kicad_pro (the rules)
"""

from __future__ import annotations

import functools
import json
import math
import tomllib
from pathlib import Path

import kicad
import pcb
import silk
from kicad import mm, point

HERE = Path(__file__).resolve().parent
HOUSE = tomllib.loads((HERE / "data" / "house.toml").read_text())
ASSEMBLY = tomllib.loads((HERE / "data" / "assembly.toml").read_text())
FIDUCIAL = "Fiducial:Fiducial_1mm_Mask2mm"
TEST_POINT = "TestPoint:TestPoint_Pad_D1.5mm"
# The nets a maker probes at bring-up: each reader's field (coil) current, as the drop over the 1 ohm
# in its TVDD feed (circuit.py: +3V3 on one end, +3V3_TVDD_B<n> on the other), its supply, ground.
TEST_NETS = ("+3V3_TVDD_B", "+3V3", "GND")
TEXT_MM = HOUSE["rules"]["silk_text_height_min"]
TEXT_WIDTH_MM = 0.16  # over the house's 0.153 mm minimum line width


def assembled_side(placed: pcb.Board, net: kicad.Netlist) -> str:
    """The side the house places parts on: where most of the soldered parts are."""
    sides = [p.side for p in placed.parts if net.components[p.ref].fields.get("Key") != "antenna"]
    return max("FB", key=sides.count)


def hand_assembled(key: str) -> bool:
    """Parts the house does not place (data/assembly.toml [hand])."""
    return key in ASSEMBLY["hand"]


def build(name: str, net: kicad.Netlist, placed: pcb.Board):
    """The placed board in pcbnew, every footprint from KiCad's libraries as pcb.py placed it."""
    pcbnew = kicad.pcbnew()
    board = pcbnew.BOARD()
    board.SetCopperLayerCount(HOUSE["board"]["layers"])
    nets = {}
    for n in sorted(net.nets):
        nets[n] = pcbnew.NETINFO_ITEM(board, n)
        board.Add(nets[n])
    pin_nets = net.pin_nets()
    for p in sorted(placed.parts, key=lambda p: p.ref):
        comp = net.components[p.ref]
        fp = _footprint(board, p.footprint, p.ref, comp.value, p.x, p.y, p.rot, p.side)
        for field in ("MPN", "Manufacturer"):
            if comp.fields.get(field):
                fp.SetProperty(field, comp.fields[field])
        if hand_assembled(comp.fields.get("Key", "")):
            fp.SetAttributes(fp.GetAttributes() | pcbnew.FP_EXCLUDE_FROM_BOM | pcbnew.FP_EXCLUDE_FROM_POS_FILES)
        for pad in fp.Pads():
            n = pin_nets.get((p.ref, pad.GetNumber()))
            if n:
                pad.SetNet(nets[n])
    _outline(board, placed.width, placed.height)
    for i, (x, y) in enumerate(placed.holes or [], 1):  # boards.toml's mounting holes, no copper
        _footprint(board, pcb.HOLE_FOOTPRINT, f"H{i}", "M2", x, y, 0.0, "F")
    loop_rule_areas(board, placed, net)
    side = assembled_side(placed, net)
    grid = _free(placed)
    for i, spot in enumerate(_fiducial_spots(grid, placed, side)):
        fp = _footprint(board, FIDUCIAL, f"FID{i + 1}", "Fiducial", *spot, 0.0, side)
        fp.SetAttributes(fp.GetAttributes() | pcbnew.FP_EXCLUDE_FROM_BOM | pcbnew.FP_EXCLUDE_FROM_POS_FILES)
    for i, (probed, spot) in enumerate(_test_point_spots(grid, placed, net, side)):
        fp = _footprint(board, TEST_POINT, f"TP{i + 1}", probed, *spot, 0.0, side)
        fp.SetAttributes(fp.GetAttributes() | pcbnew.FP_EXCLUDE_FROM_BOM | pcbnew.FP_EXCLUDE_FROM_POS_FILES)
        for pad in fp.Pads():
            pad.SetNet(nets[probed])
    clear, edge = HOUSE["rules"]["silk_clearance_min"], HOUSE["rules"]["copper_edge_min"]
    silk.references(board, placed.width, placed.height, clear, edge)
    silk.title(board, f"dominotable {name} board rev {ASSEMBLY['revision']}", side, placed.width, placed.height,
               clear, edge)
    return board


def _footprint(board, ref_name: str, ref: str, value: str, x: float, y: float, rot: float, side: str):
    """A library footprint on the board as pcb.Placed places it: a bottom part flipped left-right,
    then turned (pcbnew keeps a flipped part's angle turned by 180 degrees)."""
    pcbnew = kicad.pcbnew()
    lib, _, name = ref_name.partition(":")
    fp = _plugin().FootprintLoad(str(kicad.footprint_path(ref_name).parent), name)
    fp.SetFPID(pcbnew.LIB_ID(lib, name))
    fp.SetReference(ref)
    fp.SetValue(value)
    fp.SetPosition(point(x, y))
    board.Add(fp)
    if side == "B":
        fp.Flip(fp.GetPosition(), True)
    fp.SetOrientationDegrees(rot if side == "F" else (rot + 180) % 360)
    for text in (fp.Reference(), fp.Value()):
        text.SetTextThickness(mm(TEXT_WIDTH_MM))
    return fp


@functools.cache
def _plugin():
    """pcbnew's reader of .pretty libraries, kept: it caches each library it has read (a new one per
    footprint would read the whole library folder each time)."""
    pcbnew = kicad.pcbnew()
    return pcbnew.IO_MGR.PluginFind(pcbnew.IO_MGR.KICAD_SEXP)


def _outline(board, width: float, height: float) -> None:
    pcbnew = kicad.pcbnew()
    corners = [(0, 0), (width, 0), (width, height), (0, height)]
    for a, b in zip(corners, corners[1:] + corners[:1]):
        seg = pcbnew.PCB_SHAPE(board)
        seg.SetShape(pcbnew.SHAPE_T_SEGMENT)
        seg.SetLayer(pcbnew.Edge_Cuts)
        seg.SetWidth(mm(0.1))
        seg.SetStart(point(*a))
        seg.SetEnd(point(*b))
        board.Add(seg)


def loop_rule_areas(board, placed: pcb.Board, net: kicad.Netlist) -> None:
    """What copper boards.toml lets lie inside a loop's outline, as KiCad rule areas its DRC holds:
    no copper pour and no via anywhere inside, and no track but in a lane from a pad of a part
    that stays there (boards.toml loop_stays, and the loop's own two ends) straight to the
    outline's nearest edge, on the pad's own layer."""
    pcbnew = kicad.pcbnew()
    stays = set(pcb.BOARDS["cell"]["loop_stays"]) | {"antenna"}
    pads = [(pad, _pad_box(pad)) for fp in board.GetFootprints()
            if fp.GetReference() in net.components and net.components[fp.GetReference()].fields.get("Key") in stays
            for pad in fp.Pads() if pad.GetNetname()]
    for box in pcb.loop_boxes(placed.parts, net):
        _rule_area(board, [box], (pcbnew.F_Cu, pcbnew.B_Cu), tracks=False)
        for layer in (pcbnew.F_Cu, pcbnew.B_Cu):
            lanes = [lane(pbox, box) for pad, pbox in pads if pad.IsOnLayer(layer) and _meets(pbox, box)]
            _rule_area(board, subtract(box, lanes), (layer,), tracks=True)


LANE = 0.5  # mm of lane beside a pad, each side: room for a track to leave it straight


def lane(pad, loop) -> tuple[float, float, float, float]:
    """The lane from a pad (its box, mm) to the nearest edge of a loop's outline."""
    x0, y0, x1, y1 = pad[0] - LANE, pad[1] - LANE, pad[2] + LANE, pad[3] + LANE
    lx0, ly0, lx1, ly1 = loop
    gaps = {"left": x0 - lx0, "right": lx1 - x1, "top": y0 - ly0, "bottom": ly1 - y1}
    side = min(gaps, key=gaps.get)
    return {"left": (lx0, y0, x1, y1), "right": (x0, y0, lx1, y1), "top": (x0, ly0, x1, y1),
            "bottom": (x0, y0, x1, ly1)}[side]


def _meets(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def subtract(box, holes) -> list[tuple[float, float, float, float]]:
    """`box` less the `holes`, as rectangles: the cells between every edge, merged along rows."""
    x0, y0, x1, y1 = box
    holes = [(max(h[0], x0), max(h[1], y0), min(h[2], x1), min(h[3], y1)) for h in holes if _meets(h, box)]
    xs = sorted({x0, x1, *(h[0] for h in holes), *(h[2] for h in holes)})
    ys = sorted({y0, y1, *(h[1] for h in holes), *(h[3] for h in holes)})
    out = []
    for ya, yb in zip(ys, ys[1:]):
        run = None
        for xa, xb in zip(xs, xs[1:]):
            free = not any(h[0] <= xa and xb <= h[2] and h[1] <= ya and yb <= h[3] for h in holes)
            if free:
                run = (run[0], ya, xb, yb) if run else (xa, ya, xb, yb)
            elif run:
                out.append(run)
                run = None
        if run:
            out.append(run)
    merged = []  # a row's rectangle under one of the same span above grows down into it
    for r in out:
        above = next((m for m in merged if m[0] == r[0] and m[2] == r[2] and m[3] == r[1]), None)
        if above:
            merged[merged.index(above)] = (above[0], above[1], above[2], r[3])
        else:
            merged.append(r)
    return merged


def _pad_box(pad) -> tuple[float, float, float, float]:
    b = pad.GetBoundingBox()
    return kicad.to_mm(b.GetX()), kicad.to_mm(b.GetY()), kicad.to_mm(b.GetRight()), kicad.to_mm(b.GetBottom())


def _rule_area(board, boxes, layers, tracks: bool) -> None:
    """A KiCad keep-out per box on `layers`: copper pours and vias never (`tracks`: tracks too)."""
    pcbnew = kicad.pcbnew()
    layer_set = pcbnew.LSET()
    for layer in layers:
        layer_set.AddLayer(layer)
    for x0, y0, x1, y1 in boxes:
        zone = pcbnew.ZONE(board)
        zone.SetIsRuleArea(True)
        zone.SetLayerSet(layer_set)
        zone.SetDoNotAllowCopperPour(True)
        zone.SetDoNotAllowVias(True)
        zone.SetDoNotAllowTracks(tracks)
        zone.SetDoNotAllowPads(False)
        zone.SetDoNotAllowFootprints(False)
        outline = zone.Outline()
        outline.NewOutline()
        for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
            outline.Append(kicad.mm(x), kicad.mm(y))
        board.Add(zone)


def _free(placed: pcb.Board):
    """The placement's grid with every part and mounting hole marked."""
    grid = pcb.Grid(placed.width, placed.height)
    for p in placed.parts:
        grid.mark(p.box(), p.sides())
    pcb._holes(grid, placed.holes or [], placed.hole_keepout)
    return grid


def _take(grid, placed: pcb.Board, footprint: str, margin: float, side: str, anchor, what: str):
    """The free spot nearest `anchor` for `footprint` with `margin` round it, marked taken."""
    x0, y0, x1, y1 = kicad.footprint(footprint).courtyard["F.CrtYd"]
    size = (x1 - x0 + margin, y1 - y0 + margin)
    spot = grid.best(size, (side,), anchor)
    if spot is None:
        raise RuntimeError(f"no room for {what} on the {placed.name} board's {side} side")
    grid.mark((spot[0] - size[0] / 2, spot[1] - size[1] / 2, spot[0] + size[0] / 2, spot[1] + size[1] / 2), (side,))
    return spot


def _fiducial_spots(grid, placed: pcb.Board, side: str) -> list[tuple[float, float]]:
    """Two fiducials at free spots nearest two opposite corners of the assembled side (with a
    clear margin for the camera)."""
    return [_take(grid, placed, FIDUCIAL, 1.0, side, anchor, "a fiducial")
            for anchor in ((0.0, 0.0), (placed.width, placed.height))]


def _test_point_spots(grid, placed: pcb.Board, net: kicad.Netlist, side: str) -> list[tuple[str, tuple]]:
    """A test point on each of TEST_NETS the board has (each reader's TVDD feed, the supply and
    ground), at the free spot nearest a part on that net."""
    at = {p.ref: (p.x, p.y) for p in placed.parts}
    pin_nets = net.pin_nets()
    out = []
    for name in sorted(n for n in net.nets if any(n == t or (t.endswith("_B") and n.startswith(t)) for t in TEST_NETS)):
        near = min(at[ref] for (ref, _), n in pin_nets.items() if n == name and ref in at)
        out.append((name, _take(grid, placed, TEST_POINT, 0.5, side, near, f"a test point on {name}")))
    return out


# --- the house's rules -----------------------------------------------------------------------------

def project_settings(settings: dict) -> dict:
    """A KiCad 6 project's settings with the house's capabilities as its board's design rules:
    every DRC check an error (none ignored), the default net class the router and DRC use."""
    r, nc = HOUSE["rules"], HOUSE["netclass"]
    ds = settings["board"]["design_settings"]
    ds["rules"].update({
        "min_clearance": r["clearance_min"], "min_track_width": r["track_min"],
        "min_via_diameter": r["via_diameter_min"], "min_via_annular_width": r["via_annular_min"],
        "min_through_hole_diameter": r["hole_min"], "min_hole_to_hole": r["hole_to_hole_min"],
        "min_hole_clearance": r["hole_clearance_min"], "min_copper_edge_clearance": r["copper_edge_min"],
        "min_silk_clearance": r["silk_clearance_min"], "allow_blind_buried_vias": False,
        "allow_microvias": False})
    ds["rule_severities"] = {rule: "error" for rule in ds["rule_severities"]}
    default = next(c for c in settings["net_settings"]["classes"] if c["name"] == "Default")
    default.update({"clearance": nc["clearance"], "track_width": nc["track"], "via_diameter": nc["via_diameter"],
                    "via_drill": nc["via_drill"]})
    return settings


def save(board, path: Path):
    """Write the board and its project (the rules), and load it back as pcbnew reads it."""
    pcbnew = kicad.pcbnew()
    path = Path(path)
    pcbnew.SaveBoard(str(path), board)
    pro = path.with_suffix(".kicad_pro")
    pro.write_text(json.dumps(project_settings(json.loads(pro.read_text())), indent=2, sort_keys=True) + "\n")
    path.with_suffix(".kicad_prl").unlink(missing_ok=True)  # the editor's local view state
    return load(path)


def load(path: Path):
    """A board as pcbnew reads it, with its project's rules read afresh (pcbnew keeps a project it
    has seen in memory, and would judge the board by the settings it had then)."""
    pcbnew = kicad.pcbnew()
    manager = pcbnew.GetSettingsManager()
    pro = str(Path(path).resolve().with_suffix(".kicad_pro"))
    project = manager.GetProject(pro)
    if project is not None:
        manager.UnloadProject(project, False)
    return pcbnew.LoadBoard(str(path))


def pad_faults(board, placed: pcb.Board) -> list[str]:
    """Every numbered pad where pcb.py's geometry puts it (pcbnew turned and flipped each part as
    the placement means it)."""
    pcbnew = kicad.pcbnew()
    at = {p.ref: p for p in placed.parts}
    faults = []
    for fp in board.GetFootprints():
        p = at.get(fp.GetReference())
        if p is None:
            continue
        lib = {pad.number: pad for pad in kicad.footprint(p.footprint).pads if pad.number}
        for pad in fp.Pads():
            if pad.GetNumber() in lib:
                want = p.to_board(lib[pad.GetNumber()].x, lib[pad.GetNumber()].y)
                got = (pcbnew.ToMM(pad.GetPosition().x), pcbnew.ToMM(pad.GetPosition().y))
                if math.dist(want, got) > 1e-3:
                    faults.append(f"{p.ref} pad {pad.GetNumber()} is at {got}, the placement says {want}")
    return faults
