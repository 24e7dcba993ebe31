"""Routing with the autorouter freeroute (PyPI; a pure-Python port of FreeRouting's engine,
Specctra DSN in, SES out) on the design pcbnew exports with its own ExportSpecctraDSN; the
session read back into the board as pcbnew tracks and vias, and KiCad's DRC the judge.

What freeroute is, and what this module gives it (freeroute 2026.7.14, "alpha" by its README):
its board model turns a pad by neither its part's nor its own rotation, reads the outline as a
bounding box with no copper-to-edge clearance, ignores a footprint's copper that is not a pad
(the etched loops) and a DSN's existing wiring, and takes a via keep-out for a keep-out of
everything. So before routing each placed part gets its own image whose padstacks are turned as
the part lies on the board, the outline gets keep-out strips as wide as the house's
copper-to-edge clearance, every footprint's copper graphic (a loop's track) and every track and
via already on the board becomes a keep-out on its layers, and a net already partly joined
keeps one pin per joined group. Its engines size a via as a track-wide square in one grid cell
(its padstack's size is not read): the DSN's clearance rule is widened (`spacing`) until a via
of the house's size fits its cell. What it routes is kept only where KiCad's DRC finds it clean
(`keep_clean`: an item in any violation is taken out again, and what that leaves dangling), and
what is left unconnected is routed again around what was kept (`route`'s passes).

KiCad 6's ImportSpecctraSES works only inside the board editor (from a script it returns False;
KiCad 7 takes a board), so the session's wires and vias are added here as pcbnew tracks and vias
on their nets (`import_ses`).
"""

from __future__ import annotations

import copy
import math
import re
import time
from pathlib import Path

import kicad
from kicad import mm, point, to_mm

UM = 1000.0  # DSN units (um) per mm
# freeroute's rip-up-and-retry passes (its default 10): a connection it cannot make searches the
# whole board's grid again in every pass, which on these boards costs minutes a pass; what is left
# is routed again in `route`'s own passes, around what KiCad's DRC kept
RIP_UP_PASSES = 2
ENGINES = {  # freeroute's three engines, each with the passes its README pairs it with
    "grid": {"max_passes": RIP_UP_PASSES},
    "exact": {"shove": True, "diagonal": True, "max_passes": RIP_UP_PASSES},
    "room": {"shove": True, "pack": True},
}


def export_dsn(board, path: Path):
    """The board as pcbnew exports it for a Specctra router, parsed by freeroute."""
    from freeroute.dsn import parse_dsn

    if not kicad.pcbnew().ExportSpecctraDSN(board, str(path)):
        raise RuntimeError(f"pcbnew could not export {path}")
    return parse_dsn(Path(path).read_text())


def prepare(dsn, board, edge_mm: float, track_mm: float, spacing_mm: float, only=None):
    """A copy of the parsed DSN that freeroute reads as KiCad means it (see the module's note),
    with `spacing_mm` as its clearance rule (see `spacing`), routing the nets `only` keeps (a
    predicate on a net's name; default every net)."""
    from freeroute.dsn.model import ComponentPlacement, Image, Keepout, Padstack, Pin
    from freeroute.dsn.shapes import Area, Circle, Path, Polygon, Rectangle

    dsn = copy.deepcopy(dsn)
    for rule in dsn.structure_rules.clearance_rules:
        if not rule.class_pairs:
            rule.value = spacing_mm * UM
    stacks = {p.name: p for p in dsn.padstacks}
    images = {i.name: i for i in dsn.images}
    turned: dict[tuple[str, int, bool], str] = {}

    def turn(shape, angle: int, back: bool):
        """A pad's shape as the part lies: turned, on the other side's copper for a back part;
        an oval (a path, whose width freeroute does not read) as its box."""
        layer = {"F.Cu": "B.Cu", "B.Cu": "F.Cu"}.get(shape.layer, shape.layer) if back else shape.layer
        c, s = round(math.cos(math.radians(angle)), 9), round(math.sin(math.radians(angle)), 9)
        if isinstance(shape, Circle):
            x, y = shape.center_x, shape.center_y
            return Circle(layer, shape.diameter, x * c - y * s, x * s + y * c)
        if isinstance(shape, Rectangle):
            x1, y1, x2, y2 = shape.coords
            xy = [x1, y1, x2, y1, x2, y2, x1, y2, x1, y1]
        elif isinstance(shape, Path):
            w = shape.width / 2
            x1, y1 = min(shape.coords[0::2]) - w, min(shape.coords[1::2]) - w
            x2, y2 = max(shape.coords[0::2]) + w, max(shape.coords[1::2]) + w
            xy = [x1, y1, x2, y1, x2, y2, x1, y2, x1, y1]
        else:
            xy = shape.coords
        coords = [v for i in range(0, len(xy) - 1, 2) for v in (xy[i] * c - xy[i + 1] * s, xy[i] * s + xy[i + 1] * c)]
        return Polygon(layer, 0.0, coords)

    def stack(name: str, angle: int, back: bool) -> str:
        key = (name, angle % 360, back)
        if key not in turned:
            old = stacks[name]
            new = Padstack(f"{name}@{key[1]}{'b' if back else ''}", [turn(s, key[1], back) for s in old.shapes],
                           old.attach_allowed, old.placed_absolute)
            dsn.padstacks.append(new)
            turned[key] = new.name
        return turned[key]

    placements = []
    for group in dsn.placements:
        image = images[group.lib_name]
        for place in group.places:
            # a back part's image is mirrored in x: its pins' turns run the other way
            sign = 1 if place.is_front else -1
            mine = Image(f"{image.name}@{place.name}", image.is_front,
                         [Pin(stack(p.padstack_name, round(place.rotation + sign * p.rotation), not place.is_front), p.name,
                              p.x, p.y)
                          for p in image.pins])
            dsn.images.append(mine)
            placements.append(ComponentPlacement(mine.name, [place]))
    dsn.placements = placements
    # freeroute blocks every track at a via keep-out: the vias it places are judged by DRC instead
    dsn.keepouts = [k for k in dsn.keepouts if k.kind == "keepout"]

    def keepout(layer: str, x0: float, y0: float, x1: float, y1: float, name: str) -> None:
        """A keep-out box given in mm, y down."""
        dsn.keepouts.append(Keepout(Area(name=name, border=Rectangle(layer, [x0 * UM, -y1 * UM, x1 * UM, -y0 * UM]))))

    xs, ys = dsn.boundary.coords[0::2], dsn.boundary.coords[1::2]
    bx0, by0, bx1, by1 = min(xs) / UM, -max(ys) / UM, max(xs) / UM, -min(ys) / UM
    e = edge_mm + track_mm / 2
    for layer in (lay.name for lay in dsn.layers if lay.is_signal):
        keepout(layer, bx0, by0, bx1, by0 + e, "edge")
        keepout(layer, bx0, by1 - e, bx1, by1, "edge")
        keepout(layer, bx0, by0, bx0 + e, by1, "edge")
        keepout(layer, bx1 - e, by0, bx1, by1, "edge")
    pcbnew = kicad.pcbnew()
    for fp in board.GetFootprints():
        for item in fp.GraphicalItems():
            if item.Type() == pcbnew.PCB_FP_SHAPE_T and item.IsOnCopperLayer():
                keepout(item.GetLayerName(), *_box(item), f"{fp.GetReference()} copper")
    for t in board.GetTracks():  # what is routed already: freeroute reads no wiring
        names = ("F.Cu", "B.Cu") if t.Type() == pcbnew.PCB_VIA_T else (t.GetLayerName(),)
        for layer in names:
            keepout(layer, *_box(t), f"{t.GetNetname()} routed")
    joined = _joined(board)
    kept = []
    for net in dsn.nets:
        if only is not None and not only(net.name):
            continue
        groups: dict[int, list] = {}
        for pin in net.pins:
            groups.setdefault(joined.get((pin.component, pin.pin), id(pin)), []).append(pin)
        if len(groups) < 2:
            continue
        net.pins = _tour([g[0] for g in groups.values()], dsn)
        kept.append(net)
    dsn.nets = kept
    return dsn


def _box(item) -> tuple[float, float, float, float]:
    b = item.GetBoundingBox()
    return to_mm(b.GetX()), to_mm(b.GetY()), to_mm(b.GetRight()), to_mm(b.GetBottom())


def _joined(board) -> dict[tuple[str, str], tuple[str, str]]:
    """(reference, pad) -> the first pad of the copper group it lies in, as pcbnew's connectivity
    has it."""
    board.BuildConnectivity()
    conn = board.GetConnectivity()
    out = {}
    for fp in board.GetFootprints():
        for pad in fp.Pads():
            if pad.GetNetCode() > 0:
                me = (fp.GetReference(), pad.GetNumber())
                out[me] = min([me] + [(p.GetParent().GetReference(), p.GetNumber()) for p in conn.GetConnectedPads(pad)])
    return out


def _tour(pins, dsn) -> list:
    """The pins in a nearest-neighbour order: freeroute joins a net's pins in their order."""
    where = {}
    for group in dsn.placements:
        for place in group.places:
            where[place.name] = (place.x or 0.0, place.y or 0.0)
    todo = list(pins)
    out = [todo.pop(0)]
    while todo:
        last = where.get(out[-1].component, (0.0, 0.0))
        nxt = min(todo, key=lambda p: math.dist(where.get(p.component, (0.0, 0.0)), last))
        todo.remove(nxt)
        out.append(nxt)
    return out


def autoroute(dsn, engine: str, layers: list[int] | None = None) -> str:
    """freeroute's session (SES text) for a prepared DSN, by `engine` with its passes, on the
    signal layers `layers` (indices in the DSN's order; default both, with vias)."""
    from freeroute.route import pipeline
    from freeroute.ses import write_ses

    opts = ENGINES[engine]
    if engine == "exact":
        result = pipeline.build_exact_routing_result(dsn, layers=layers, **opts)
    elif engine == "room":
        result = pipeline.build_rooms_routing_result(dsn, layers=layers, **opts)
    else:
        result = pipeline.build_routing_result(dsn, layers=layers, **opts)
    return write_ses(dsn, result)


def import_ses(board, ses_text: str, track_mm: float) -> list:
    """The session's wires and vias added to the board on their nets (the DSN's units, um with y
    up, as freeroute writes them): the items added."""
    pcbnew = kicad.pcbnew()
    tree = kicad.parse(ses_text.replace('(string_quote ")', ""))
    routes = kicad.child(tree, "routes")
    out = kicad.child(routes, "network_out") if routes else None
    if out is None:
        return []
    nets = board.GetNetsByName()
    layers = {board.GetLayerName(i): i for i in (pcbnew.F_Cu, pcbnew.B_Cu)}
    ds = board.GetDesignSettings()
    added = []
    for net in kicad.children(out, "net"):
        info = nets[str(net[1])]
        for wire in kicad.children(net, "wire"):
            path = kicad.child(wire, "path")
            layer, xy = layers[str(path[1])], [float(v) for v in path[3:]]
            pts = [point(xy[i] / UM, -xy[i + 1] / UM) for i in range(0, len(xy) - 1, 2)]
            for a, b in zip(pts, pts[1:]):
                if a == b:
                    continue
                t = pcbnew.PCB_TRACK(board)
                t.SetStart(a)
                t.SetEnd(b)
                t.SetWidth(mm(track_mm))
                t.SetLayer(layer)
                t.SetNet(info)
                board.Add(t)
                added.append(t)
        for via in kicad.children(net, "via"):
            v = pcbnew.PCB_VIA(board)
            v.SetPosition(point(float(via[2]) / UM, -float(via[3]) / UM))
            v.SetDrill(ds.GetCurrentViaDrill())
            v.SetWidth(ds.GetCurrentViaSize())
            v.SetLayerPair(pcbnew.F_Cu, pcbnew.B_Cu)
            v.SetNet(info)
            board.Add(v)
            added.append(v)
    return added


ITEM = re.compile(r"@\((-?[\d.]+) mm, (-?[\d.]+) mm\): (Track|Via) \[([^\]]*)\]")


def keep_clean(board, added: list, report: Path, drc) -> dict:
    """Take out every item of the `added` copper that KiCad's DRC (`drc(board, report)`) names in
    a violation, and again (a track or via left dangling is a violation too, so a route that lost
    a piece is pruned back to what still joins pads) until it names none: the counts kept and
    dropped, and the DRC rounds."""
    kept = list(added)
    dropped = rounds = 0
    while True:
        found = drc(board, report)
        rounds += 1
        bad = set()
        for v in found["violations"]:
            for x, y, kind, net in ITEM.findall(v):
                bad |= {id(t) for t in kept if _at(t, float(x), float(y), kind, net)}
        if not bad:
            break
        for t in kept:
            if id(t) in bad:
                board.Remove(t)
        dropped += len(bad)
        kept = [t for t in kept if id(t) not in bad]
    return {"kept": len(kept), "dropped": dropped, "rounds": rounds, "items": kept}


def _at(item, x: float, y: float, kind: str, net: str) -> bool:
    """Whether a DRC report's item line (the item's position: a track's start) is this item."""
    pcbnew = kicad.pcbnew()
    if (kind == "Via") != (item.Type() == pcbnew.PCB_VIA_T) or item.GetNetname() != net:
        return False
    p = item.GetStart() if kind == "Track" else item.GetPosition()
    return abs(to_mm(p.x) - x) < 1e-3 and abs(to_mm(p.y) - y) < 1e-3


def spacing(track_mm: float, clearance_mm: float, via_mm: float) -> float:
    """The clearance rule freeroute is given: its engines size a via as a track-wide square in
    one grid cell (a track plus its clearance wide), so the cell is widened until a via of the
    house's size in one cell keeps the house's clearance to a track in the next (and a via its
    clearance to a pad, which freeroute keeps a clearance plus half a track away)."""
    return round(via_mm / 2 + clearance_mm - track_mm / 2 + 0.005, 3)


def plan(board, clearance_mm: float, spacing_mm: float) -> list[tuple[list[int] | None, float]]:
    """`route`'s passes, each (signal layers, clearance rule): freeroute's tracks come out clean
    under KiCad's DRC, its vias not (see `spacing`), so first what one copper layer joins without a
    via, the assembled side's (where most pads are) then the other, at the house's clearance; then
    both layers with vias, at the widened clearance."""
    pcbnew = kicad.pcbnew()
    pads = [pad.IsOnLayer(pcbnew.B_Cu) and not pad.IsOnLayer(pcbnew.F_Cu) for fp in board.GetFootprints() for pad in fp.Pads()]
    first = 1 if sum(pads) > len(pads) / 2 else 0
    return [([first], clearance_mm), ([1 - first], clearance_mm), (None, spacing_mm)]


def route(board, work: Path, engine: str, edge_mm: float, track_mm: float, passes, drc, only=None) -> list[dict]:
    """Route the board in place with freeroute's `engine` in `passes` (`plan`), each keeping only
    what KiCad's DRC finds clean and routing what is still unconnected around what was kept:
    each pass's counts. Its files stay in `work`."""
    work.mkdir(parents=True, exist_ok=True)
    reports = []
    for n, (layers, clearance) in enumerate(passes, 1):
        board.BuildConnectivity()
        before = board.GetConnectivity().GetUnconnectedCount()
        if not before:
            break
        started = time.monotonic()
        dsn = prepare(export_dsn(board, work / f"pass{n}.dsn"), board, edge_mm, track_mm, clearance, only)
        ses = autoroute(dsn, engine, layers)
        seconds = time.monotonic() - started
        (work / f"pass{n}-{engine}.ses").write_text(ses)
        added = import_ses(board, ses, track_mm)
        board.BuildConnectivity()
        routed = before - board.GetConnectivity().GetUnconnectedCount()
        first = drc(board, work / f"pass{n}-{engine}-as-routed.rpt")
        clean = keep_clean(board, added, work / f"pass{n}-{engine}.rpt", drc)
        board.BuildConnectivity()
        after = board.GetConnectivity().GetUnconnectedCount()
        reports.append({"engine": engine, "pass": n, "layers": layers or "both", "clearance": clearance,
                        "seconds": round(seconds, 1), "nets": len(dsn.nets), "unconnected_before": before,
                        "joined_as_routed": routed, "violations_as_routed": len(first["violations"]),
                        "items": len(added), "items_kept": clean["kept"], "drc_rounds": clean["rounds"],
                        "unconnected_after": after})
    return reports
