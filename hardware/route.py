"""Routing with a real autorouter: freeroute (PyPI; a pure-Python port of FreeRouting's engine,
Specctra DSN in, SES out) on the design pcbnew exports with its own ExportSpecctraDSN.

What freeroute is, and what this module gives it (freeroute 2026.7.14, "alpha" by its README):
its board model turns a pad by neither its part's nor its own rotation, reads the outline as a
bounding box with no copper-to-edge clearance, and ignores a footprint's copper that is not a
pad (the etched loops). So before routing, each placed part gets its own image whose padstacks
are turned as the part lies on the board, the outline gets keep-out strips as wide as the
house's copper-to-edge clearance, and every footprint's copper graphic (a loop's track) becomes a
keep-out on its layer. The router runs its `exact` engine (orthogonal tracks, each net's copper
checked against every other item's, a net dropped rather than routed into a violation).

KiCad 6's ImportSpecctraSES works only inside the board editor (from a script it returns False;
KiCad 7 takes a board), so the session's wires and vias are added here as pcbnew tracks and vias
on their nets; KiCad's DRC then judges the routed board.

    python hardware/route.py BOARD.kicad_pcb [--engine exact]   # route in place, print the counts
"""

from __future__ import annotations

import argparse
import copy
import math
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kicad  # noqa: E402
from kicad import mm, point, to_mm  # noqa: E402

UM = 1000.0  # DSN units (um) per mm


def export_dsn(board, path: Path) -> str:
    if not kicad.pcbnew().ExportSpecctraDSN(board, str(path)):
        raise RuntimeError(f"pcbnew could not export {path}")
    return Path(path).read_text()


def prepare(dsn, board, edge_mm: float, track_mm: float):
    """A copy of the parsed DSN that freeroute reads as KiCad means it (see the module's note)."""
    from freeroute.dsn.model import ComponentPlacement, Image, Keepout, Padstack, Pin
    from freeroute.dsn.shapes import Area, Circle, Path as DsnPath, Polygon, Rectangle

    dsn = copy.deepcopy(dsn)
    stacks = {p.name: p for p in dsn.padstacks}
    images = {i.name: i for i in dsn.images}
    turned: dict[tuple[str, int], str] = {}

    def turn(shape, angle: int):
        if angle == 0 or isinstance(shape, Circle):
            return shape
        if isinstance(shape, Rectangle):
            x1, y1, x2, y2 = shape.coords
            shape = Polygon(shape.layer, 0.0, [x1, y1, x2, y1, x2, y2, x1, y2, x1, y1])
        c, s = round(math.cos(math.radians(angle)), 9), round(math.sin(math.radians(angle)), 9)
        xy = shape.coords
        coords = [v for i in range(0, len(xy) - 1, 2) for v in (xy[i] * c - xy[i + 1] * s, xy[i] * s + xy[i + 1] * c)]
        return type(shape)(shape.layer, shape.aperture_width if isinstance(shape, Polygon) else shape.width, coords)

    def stack(name: str, angle: int) -> str:
        angle %= 360
        if angle == 0:
            return name
        if (name, angle) not in turned:
            old = stacks[name]
            new = Padstack(f"{name}@{angle}", [turn(s, angle) for s in old.shapes], old.attach_allowed,
                           old.placed_absolute)
            dsn.padstacks.append(new)
            turned[(name, angle)] = new.name
        return turned[(name, angle)]

    placements = []
    for group in dsn.placements:
        image = images[group.lib_name]
        for place in group.places:
            # a back part's image is mirrored in x: its pins' turns run the other way
            sign = 1 if place.is_front else -1
            mine = Image(f"{image.name}@{place.name}", image.is_front,
                         [Pin(stack(p.padstack_name, round(place.rotation + sign * p.rotation)), p.name, p.x, p.y)
                          for p in image.pins])
            dsn.images.append(mine)
            placements.append(ComponentPlacement(mine.name, [place]))
    dsn.placements = placements

    def keepout(layer: str, x0: float, y0: float, x1: float, y1: float, name: str) -> None:
        dsn.keepouts.append(Keepout(Area(name=name, border=Rectangle(layer, [x0, y0, x1, y1]))))

    xs, ys = dsn.boundary.coords[0::2], dsn.boundary.coords[1::2]
    bx0, by0, bx1, by1 = min(xs), min(ys), max(xs), max(ys)
    e = (edge_mm + track_mm / 2) * UM
    for layer in (lay.name for lay in dsn.layers if lay.is_signal):
        keepout(layer, bx0, by0, bx1, by0 + e, "edge")
        keepout(layer, bx0, by1 - e, bx1, by1, "edge")
        keepout(layer, bx0, by0, bx0 + e, by1, "edge")
        keepout(layer, bx1 - e, by0, bx1, by1, "edge")
    pcbnew = kicad.pcbnew()
    for fp in board.GetFootprints():
        for item in fp.GraphicalItems():
            if item.Type() == pcbnew.PCB_FP_SHAPE_T and item.IsOnCopperLayer():
                b = item.GetBoundingBox()
                keepout(item.GetLayerName(), to_mm(b.GetX()) * UM, -to_mm(b.GetBottom()) * UM,
                        to_mm(b.GetRight()) * UM, -to_mm(b.GetY()) * UM, f"{fp.GetReference()} copper")
    return dsn


def route_dsn(dsn, engine: str = "exact"):
    """The SES text of freeroute's routing of a prepared DSN."""
    from freeroute.route import pipeline
    from freeroute.ses import write_ses

    if engine == "exact":
        result = pipeline.build_exact_routing_result(dsn, shove=True)
    elif engine == "room":
        result = pipeline.build_rooms_routing_result(dsn, shove=True, pack=True)
    else:
        result = pipeline.build_routing_result(dsn)
    return write_ses(dsn, result)


def import_ses(board, ses_text: str) -> tuple[int, int]:
    """Add the session's wires and vias to the board on their nets: (tracks, vias) added.
    Coordinates are the DSN's units (um, y up), as freeroute writes them."""
    pcbnew = kicad.pcbnew()
    tree = kicad.parse(ses_text.replace("(string_quote \")", ""))
    routes = kicad.child(tree, "routes")
    nets = board.GetNetsByName()
    layers = {board.GetLayerName(i): i for i in (pcbnew.F_Cu, pcbnew.B_Cu)}
    ds = board.GetDesignSettings()
    tracks = vias = 0
    for net in kicad.children(kicad.child(routes, "network_out"), "net"):
        info = nets[str(net[1])]
        for wire in kicad.children(net, "wire"):
            path = kicad.child(wire, "path")
            layer, width, xy = layers[str(path[1])], float(path[2]), [float(v) for v in path[3:]]
            pts = [point(xy[i] / UM, -xy[i + 1] / UM) for i in range(0, len(xy) - 1, 2)]
            for a, b in zip(pts, pts[1:]):
                if a == b:
                    continue
                t = pcbnew.PCB_TRACK(board)
                t.SetStart(a)
                t.SetEnd(b)
                t.SetWidth(mm(width / UM))
                t.SetLayer(layer)
                t.SetNet(info)
                board.Add(t)
                tracks += 1
        for via in kicad.children(net, "via"):
            v = pcbnew.PCB_VIA(board)
            v.SetPosition(point(float(via[2]) / UM, -float(via[3]) / UM))
            v.SetDrill(ds.GetCurrentViaDrill())
            v.SetWidth(ds.GetCurrentViaSize())
            v.SetLayerPair(pcbnew.F_Cu, pcbnew.B_Cu)
            v.SetNet(info)
            board.Add(v)
            vias += 1
    return tracks, vias


def route(board, work: Path, edge_mm: float, track_mm: float, engine: str = "exact") -> dict:
    """Route the board in place: DSN out, freeroute, SES in. Its files stay in `work`."""
    from freeroute.dsn import parse_dsn

    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    dsn = prepare(parse_dsn(export_dsn(board, work / "board.dsn")), board, edge_mm, track_mm)
    ses = route_dsn(dsn, engine)
    (work / "board.ses").write_text(ses)
    tracks, vias = import_ses(board, ses)
    board.BuildConnectivity()
    return {"seconds": round(time.monotonic() - started, 1), "tracks": tracks, "vias": vias,
            "unrouted": board.GetConnectivity().GetUnconnectedCount()}


def main(argv=None) -> int:
    import layout

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("board", type=Path)
    parser.add_argument("--engine", default="exact", choices=("exact", "room", "grid"))
    args = parser.parse_args(argv)
    board = layout.load(args.board)
    rules = layout.HOUSE
    report = route(board, args.board.parent / f"{args.board.stem}-route", rules["rules"]["copper_edge_min"],
                   rules["netclass"]["track"], args.engine)
    kicad.pcbnew().SaveBoard(str(args.board), board)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
