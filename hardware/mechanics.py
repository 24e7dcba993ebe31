"""The tray's mechanics as CAD, from the shared dimensions (hardware/dimensions.py: mechanics.toml,
boards.toml, tray.toml): the cover, the frame with the boards on their standoffs, the tag jig and a
picture of them together. build123d makes the solids (STEP), ezdxf the laser cutter's files.

    python hardware/mechanics.py --out DIR

writes into DIR:
- cover.step, cover.dxf: the cover, its dimples (layer ENGRAVE, 1 mm deep), the pocket in its
  underside over the controller's low parts (layer POCKET, from below), the cut-outs over its tall
  parts and its four screw holes (layer CUT);
- frame.step, frame.dxf: the base plate with a hole under every board's mounting hole, the ledge
  that carries the cover's margin wherever no board lies, the wall around it (each on its own
  layer), and the standoffs (M2, boards.toml's holes);
- jig.step, jig.dxf: the tag jig: a plate with a window a tile drops into face down and a guide
  plate over it with a hole over each half's centre, the tag pocket's size (the drill, then the
  tag, go through it to the tile's mid-thickness);
- assembly.step, assembly.png: the frame, the boards, the cover and a tile with its tags.

Its last line is JSON: the dimensions the RF model shares (cover_mm, tag_mm, tile_mm, dimple_mm,
pitch_mm, as design.py --json gives them), measured back from the solids, and what the BOM and
the boards share with it (the cover's size, the dimples, the standoffs' length and places).
tests/hardware/test_mechanics.py fails when any two disagree.

The frame: mm, the grid's far-left corner at the origin, x to the right, y away from the players
(the tray's y turned round), z up from the base plate's top.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import dimensions as D  # noqa: E402
import kicad  # noqa: E402

M = D.MECH
FOOTPRINTS = {k: p["footprint"] for k, p in tomllib.loads((HERE / "data" / "parts.toml").read_text())["parts"].items()
              if "footprint" in p}
BOARD_MM = D.BOARD_MM
SHARED = ("cover_mm", "tag_mm", "tile_mm", "dimple_mm", "pitch_mm")  # the keys design.py --json gives too


# --- the geometry in the CAD frame ------------------------------------------------------------------

def board_top() -> float:
    """The boards' top face, where the cover rests: on standoffs over the base plate."""
    return M["frame"]["standoff_mm"] + BOARD_MM


def _rect(box, clearance=0.0):
    """A tray-frame box (x0, y0, x1, y1) as the CAD's (x0, y0, x1, y1), y turned round."""
    x0, y0, x1, y1 = box
    return (x0 - clearance, -y1 - clearance, x1 + clearance, -y0 + clearance)


def _point(x, y):
    return (x, -y)


def controller_box():
    cx, cy = D.controller_at()
    return (cx, cy, cx + D.CONTROLLER["width_mm"], cy + D.CONTROLLER["height_mm"])


def board_boxes():
    """Every board's outline in the tray's frame: the cell boards, then the controller."""
    w, h = D.CELL["width_mm"], D.CELL["height_mm"]
    return [(x, y, x + w, y + h) for x, y in D.cell_boards()] + [controller_box()]


def cutouts():
    """The cover's cut-outs: each tall part fixed on the controller's top (boards.toml), its
    courtyard and the clearance all round, in the tray's frame."""
    cx, cy = D.controller_at()
    c = M["cover"]["cutout_clearance_mm"]
    out = []
    for key, spots in D.CONTROLLER["fixed"].items():
        x0, y0, x1, y1 = kicad.footprint(FOOTPRINTS[key]).courtyard["F.CrtYd"]
        for x, y, rot in spots:
            w, h = (x1 - x0, y1 - y0) if rot % 180 == 0 else (y1 - y0, x1 - x0)
            out.append((cx + x - w / 2 - c, cy + y - h / 2 - c, cx + x + w / 2 + c, cy + y + h / 2 + c))
    return out


def pocket_boxes():
    """The underside pocket over the controller's low parts: the controller's outline less the
    scan pad's cells (where the cover lies on the pad's loops), as two boxes in the tray's frame."""
    x0, y0, x1, y1 = controller_box()
    px, py = D.CONTROLLER["pad_at_mm"]
    pad_x1 = x0 + px + len(D.pad_centres()) * D.PITCH
    pad_y1 = y0 + py + D.PITCH
    return [(pad_x1, y0, x1, y1), (x0, pad_y1, pad_x1, y1)]


def screw_holes():
    x0, y0, x1, y1 = D.cover_outline()
    i = M["cover"]["screw_inset_mm"]
    return [(x0 + i, y0 + i), (x1 - i, y0 + i), (x0 + i, y1 - i), (x1 - i, y1 - i)]


# --- the solids ----------------------------------------------------------------------------------

def _box(b, box, z0, z1):
    x0, y0, x1, y1 = box
    return b.Pos((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2) * b.Box(x1 - x0, y1 - y0, z1 - z0)


def _cylinders(b, points, diameter, z0, z1):
    return [b.Pos(x, y, (z0 + z1) / 2) * b.Cylinder(diameter / 2, z1 - z0) for x, y in points]


def cover(b):
    t, z = M["cover"]["thickness_mm"], board_top()
    solid = _box(b, _rect(D.cover_outline()), z, z + t)
    dimple = M["cover"]["dimple_depth_mm"]
    cuts = _cylinders(b, [_point(*c) for c in D.cell_centres()], M["cover"]["dimple_mm"], z + t - dimple, z + t + 1)
    cuts += [_box(b, _rect(box), z - 1, z + M["cover"]["pocket_depth_mm"]) for box in pocket_boxes()]
    cuts += [_box(b, _rect(box), z - 1, z + t + 1) for box in cutouts()]
    cuts += _cylinders(b, [_point(*p) for p in screw_holes()], M["frame"]["hole_mm"], z - 1, z + t + 1)
    return solid - b.Compound(cuts)


def frame(b):
    """The base plate, the ledge, the wall and the standoffs."""
    f, wall = M["frame"], M["frame"]["wall_mm"]
    outline = _rect(D.cover_outline())
    outer = (outline[0] - wall, outline[1] - wall, outline[2] + wall, outline[3] + wall)
    holes = [_point(*h) for h in D.holes()]
    base = _box(b, outer, -f["base_mm"], 0) - b.Compound(_cylinders(b, holes, f["hole_mm"], -f["base_mm"] - 1, 1))
    ledge = _box(b, outline, 0, board_top()) - b.Compound([_box(b, _rect(box, 0.5), -1, board_top() + 1)
                                                           for box in board_boxes()])
    top = board_top() + M["cover"]["thickness_mm"]
    wall_ring = _box(b, outer, 0, top) - _box(b, _rect(D.cover_outline(), 0.5), -1, top + 1)
    standoffs = [s - b.Pos(s.center()) * b.Cylinder(f["hole_mm"] / 2, f["standoff_mm"] + 2)
                 for s in _cylinders(b, holes, f["standoff_od_mm"], 0, f["standoff_mm"])]
    return {"base": base, "ledge": ledge, "wall": wall_ring, "standoffs": b.Compound(standoffs)}


def boards(b):
    """The boards as plates with their mounting holes and LED holes (for the picture and the
    standoffs' check)."""
    z0 = M["frame"]["standoff_mm"]
    plates = []
    for box in board_boxes():
        plates.append(_box(b, _rect(box), z0, z0 + BOARD_MM))
    holes = _cylinders(b, [_point(*h) for h in D.holes()], M["frame"]["hole_mm"], z0 - 1, z0 + BOARD_MM + 1)
    leds = [b.Pos(x, y, z0 + BOARD_MM / 2) * b.Box(*D.CELL["led_hole_mm"], BOARD_MM + 2)
            for x, y in (_point(*c) for c in D.cell_centres())]
    return b.Compound(plates) - b.Compound(holes + leds)


def tile(b, at):
    """A tile lying face up on the cover with its centre at `at` (tray frame), along x, and its
    two tags in their pockets at mid-thickness."""
    t = M["tile"]
    z = board_top() + M["cover"]["thickness_mm"]
    x, y = _point(*at)
    body = b.Pos(x, y, z + t["thickness_mm"] / 2) * b.Box(t["length_mm"], t["width_mm"], t["thickness_mm"])
    tags = [b.Pos(x + dx, y, z + t["thickness_mm"] / 2) * b.Cylinder(M["tag"]["diameter_mm"] / 2,
                                                                     M["tag"]["thickness_mm"])
            for dx in (-t["length_mm"] / 4, t["length_mm"] / 4)]
    return body, tags


def jig(b):
    """The tag jig's two plates, apart from the tray: a window a tile drops into face down, and the
    guide with a pocket-sized hole over each half's centre."""
    j, t = M["jig"], M["tile"]
    c = j["clearance_mm"]
    w, h = t["length_mm"] + 2 * (c + j["wall_mm"]), t["width_mm"] + 2 * (c + j["wall_mm"])
    window = (-t["length_mm"] / 2 - c, -t["width_mm"] / 2 - c, t["length_mm"] / 2 + c, t["width_mm"] / 2 + c)
    plate = _box(b, (-w / 2, -h / 2, w / 2, h / 2), 0, j["plate_mm"]) - _box(b, window, -1, j["plate_mm"] + 1)
    guide = _box(b, (-w / 2, -h / 2, w / 2, h / 2), j["plate_mm"], j["plate_mm"] + j["guide_mm"])
    guide -= b.Compound(_cylinders(b, [(-t["length_mm"] / 4, 0), (t["length_mm"] / 4, 0)], D.tag_pocket_mm(),
                                   j["plate_mm"] - 1, j["plate_mm"] + j["guide_mm"] + 1))
    return plate, guide


# --- the laser cutter's files --------------------------------------------------------------------

def _dxf(path, layers):
    """layers: name -> [("rect", box) or ("circle", (x, y, d))], in the tray's frame."""
    import ezdxf

    doc = ezdxf.new("R2010", setup=True)
    doc.units = ezdxf.units.MM
    msp = doc.modelspace()
    for colour, (name, items) in enumerate(layers.items(), 1):
        doc.layers.add(name, color=colour)
        for kind, value in items:
            if kind == "rect":
                x0, y0, x1, y1 = _rect(value)
                msp.add_lwpolyline([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], close=True, dxfattribs={"layer": name})
            else:
                x, y, d = value
                msp.add_circle(_point(x, y), d / 2, dxfattribs={"layer": name})
    doc.saveas(path)


def write_dxfs(out: Path) -> None:
    cover_mm, hole = M["cover"], M["frame"]["hole_mm"]
    _dxf(out / "cover.dxf", {
        "CUT": [("rect", D.cover_outline())] + [("rect", box) for box in cutouts()]
               + [("circle", (x, y, hole)) for x, y in screw_holes()],
        "ENGRAVE": [("circle", (x, y, cover_mm["dimple_mm"])) for x, y in D.cell_centres()],
        "POCKET": [("rect", box) for box in pocket_boxes()]})
    wall = M["frame"]["wall_mm"]
    x0, y0, x1, y1 = D.cover_outline()
    outer = (x0 - wall, y0 - wall, x1 + wall, y1 + wall)
    _dxf(out / "frame.dxf", {
        "BASE": [("rect", outer)] + [("circle", (x, y, hole)) for x, y in D.holes()],
        "LEDGE": [("rect", D.cover_outline())] + [("rect", box) for box in board_boxes()],
        "WALL": [("rect", outer), ("rect", D.cover_outline())]})
    j, t = M["jig"], M["tile"]
    c = j["clearance_mm"]
    w, h = t["length_mm"] + 2 * (c + j["wall_mm"]), t["width_mm"] + 2 * (c + j["wall_mm"])
    _dxf(out / "jig.dxf", {
        "PLATE": [("rect", (-w / 2, -h / 2, w / 2, h / 2)),
                  ("rect", (-t["length_mm"] / 2 - c, -t["width_mm"] / 2 - c, t["length_mm"] / 2 + c,
                            t["width_mm"] / 2 + c))],
        "GUIDE": [("rect", (-w / 2, -h / 2, w / 2, h / 2))]
                 + [("circle", (dx, 0.0, D.tag_pocket_mm())) for dx in (-t["length_mm"] / 4, t["length_mm"] / 4)]})


# --- the picture ---------------------------------------------------------------------------------

COLOURS = {"base": (181, 140, 94), "ledge": (196, 156, 108), "wall": (160, 120, 80), "standoffs": (235, 235, 225),
           "boards": (40, 110, 60), "cover": (225, 228, 232), "tile": (250, 248, 240), "tags": (200, 150, 40)}


def picture(shapes: dict, path: Path, size=(1400, 1000)) -> None:
    """An isometric view of the shapes, flat-shaded, through a depth buffer."""
    import numpy as np
    from PIL import Image

    light = np.array((0.3, -0.5, 0.8)) / np.linalg.norm((0.3, -0.5, 0.8))
    az, el = math.radians(-35), math.radians(35)
    turn = np.array([[math.cos(az), -math.sin(az), 0], [math.sin(az), math.cos(az), 0], [0, 0, 1]])
    tilt = np.array([[1, 0, 0], [0, math.sin(el), math.cos(el)], [0, math.cos(el), -math.sin(el)]])
    view = tilt @ turn  # rows: screen u, screen v (up), depth (away from the eye)
    meshes = []
    for name, shape in shapes.items():
        for part in (shape if isinstance(shape, list) else [shape]):
            verts, faces = part.tessellate(0.5)
            pts = np.array([(v.X, v.Y, v.Z) for v in verts])[np.array(faces)]  # triangles x 3 x xyz
            normal = np.cross(pts[:, 1] - pts[:, 0], pts[:, 2] - pts[:, 0])
            normal /= np.linalg.norm(normal, axis=1, keepdims=True) + 1e-12
            shade = 0.35 + 0.65 * np.abs(normal @ light)
            meshes.append((pts @ view.T, np.outer(shade, COLOURS[name])))
    tris = np.concatenate([m[0] for m in meshes])
    colours = np.concatenate([m[1] for m in meshes]).astype(np.uint8)
    lo, hi = tris[..., :2].reshape(-1, 2).min(0), tris[..., :2].reshape(-1, 2).max(0)
    scale = 0.94 * min(size[0] / (hi[0] - lo[0]), size[1] / (hi[1] - lo[1]))
    xy = (tris[..., :2] - (lo + hi) / 2) * scale * np.array((1, -1)) + np.array(size) / 2
    depth = np.full((size[1], size[0]), np.inf)
    image = np.full((size[1], size[0], 3), 255, dtype=np.uint8)
    for tri, z, colour in zip(xy, tris[..., 2], colours):
        x0, y0 = np.floor(tri.min(0)).astype(int)
        x1, y1 = np.ceil(tri.max(0)).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, size[0] - 1), min(y1, size[1] - 1)
        if x1 < x0 or y1 < y0:
            continue
        gx, gy = np.meshgrid(np.arange(x0, x1 + 1) + 0.5, np.arange(y0, y1 + 1) + 0.5)
        (ax, ay), (bx, by), (cx, cy) = tri
        area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        if abs(area) < 1e-9:
            continue
        w0 = ((bx - gx) * (cy - gy) - (by - gy) * (cx - gx)) / area
        w1 = ((cx - gx) * (ay - gy) - (cy - gy) * (ax - gx)) / area
        w2 = 1 - w0 - w1
        inside = (w0 >= 0) & (w1 >= 0) & (w2 >= 0)
        d = w0 * z[0] + w1 * z[1] + w2 * z[2]
        window = depth[y0:y1 + 1, x0:x1 + 1]
        nearer = inside & (d < window)
        window[nearer] = d[nearer]
        image[y0:y1 + 1, x0:x1 + 1][nearer] = colour
    Image.fromarray(image).save(path)


# --- measured back -------------------------------------------------------------------------------

def measure(cover_solid, tag, tile_body, frame_parts) -> dict:
    """The shared dimensions as the solids have them: the cover's thickness and its dimples (the
    circles of its top face: their diameter, their count and the spacing of the first two), a
    tag's diameter, the tile's thickness; the cover's size; the standoffs' length and centres."""
    import build123d as b

    size = cover_solid.bounding_box().size
    top = board_top() + M["cover"]["thickness_mm"]
    circles = [e for e in cover_solid.edges() if e.geom_type == b.GeomType.CIRCLE and abs(e.arc_center.Z - top) < 1e-6
               and abs(2 * e.radius - M["frame"]["hole_mm"]) > 1e-6]
    centres = sorted((round(e.arc_center.X, 3), round(-e.arc_center.Y, 3)) for e in circles)
    pitch = min(math.dist(centres[0], c) for c in centres[1:])
    standoffs = frame_parts["standoffs"].solids()
    return {"cover_mm": round(size.Z, 3), "tag_mm": round(tag.bounding_box().size.X, 3),
            "tile_mm": round(tile_body.bounding_box().size.Z, 3),
            "dimple_mm": round(2 * circles[0].radius, 3), "pitch_mm": round(pitch, 3),
            "dimples": len(circles), "cover_w_mm": round(size.X, 3), "cover_h_mm": round(size.Y, 3),
            "standoff_mm": round(standoffs[0].bounding_box().size.Z, 3),
            "holes": sorted([round(s.center().X, 3), round(-s.center().Y, 3)] for s in standoffs)}


def build(out: Path) -> dict:
    import build123d as b

    out.mkdir(parents=True, exist_ok=True)
    cover_solid = cover(b)
    frame_parts = frame(b)
    board_plates = boards(b)
    body, tags = tile(b, (8 * D.PITCH, 5.5 * D.PITCH))  # on cells r5c7 and r5c8, a tag over each centre
    plate, guide = jig(b)
    b.export_step(cover_solid, str(out / "cover.step"))
    b.export_step(b.Compound(list(frame_parts.values())), str(out / "frame.step"))
    b.export_step(b.Compound([plate, guide]), str(out / "jig.step"))
    assembly = {**frame_parts, "boards": board_plates, "cover": cover_solid, "tile": body, "tags": tags}
    b.export_step(b.Compound([s for v in assembly.values() for s in (v if isinstance(v, list) else [v])]),
                  str(out / "assembly.step"))
    write_dxfs(out)
    lift = b.Pos(0, 0, 150)  # the picture: the cover and the tile lifted off, the boards in the frame below
    picture({**assembly, "cover": lift * cover_solid, "tile": lift * body, "tags": [lift * tag for tag in tags]},
            out / "assembly.png")
    return measure(cover_solid, tags[0], body, frame_parts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the STEP, DXF and PNG files")
    args = parser.parse_args(argv)
    result = build(args.out)
    print("wrote " + ", ".join(sorted(p.name for p in args.out.iterdir())) + f" to {args.out}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
