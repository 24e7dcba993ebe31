"""A maze router for a pcbnew board: every connection of every net found by a shortest-path search
over a 0.1 mm grid of both copper layers, with vias, on the board's own geometry and rules, and
written back as pcbnew tracks and vias. KiCad's DRC then judges the result.

Why not freeroute (PyPI, 2026.7.14), which this project first drove through pcbnew's Specctra export:
its model turns no pad with its part, puts a bottom part's pads on the top copper, ignores a
footprint's non-pad copper and the outline's clearance (all four corrected in the DSN for it),
and then still sizes a via as one grid cell: on the cell board's first block it joined 26 of 49
connections in 84 s, with 266 clearance and 264 hole-clearance violations under KiCad's DRC
(hardware/README.md, "Routing"). This router is built on what KiCad says instead:

- Clearance is exact at every grid point: a point is free for a track of net N when every other
  net's copper (pads as their boxes, tracks, vias, a footprint's copper such as a loop) is at
  least the clearance plus half the track away, with 0.02 mm more for the straight steps between
  points; a via point keeps the via's radius, the hole clearance and the hole-to-hole
  distance the same way. Own-net copper is free.
- Each connection (a net's pads joined by a minimum spanning tree) is searched in a window round
  its two pads (widened when it fails) with Dijkstra over 8-neighbour moves and vias
  (scipy.sparse.csgraph); shorter connections first. Connections that fail are routed first in a
  new pass (a rip-up of everything), until none fails or a pass gains nothing.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

import kicad
from kicad import mm, point, to_mm

STEP = 0.1  # mm per grid point
VIA_COST = 30.0  # a via costs as much as 3 mm of track
# A straight step of length L between two points each at least R from a convex obstacle comes no
# closer than sqrt(R^2 - L^2/4): at most L^2 / 8R nearer, 0.0125 mm for a diagonal step and R >= 0.2.
SLACK = 0.02
NEAR_PAD = 0.5  # mm beyond its keep-off where passing another net's pad costs double: leave room to reach it
RIP_COST = 20.0  # a step through another connection's copper, which is then ripped up and routed again
RIPS = 3  # how often one connection may be ripped up
MARGINS = (4.0, 12.0)  # mm round a connection's pads: its search window, widened on failure


@dataclass
class Item:
    """A piece of copper or a hole: net (-1: none), layers (0 top, 1 bottom), its keep-off distance
    to other copper, and its shape: a box (x0, y0, x1, y1), a segment (x0, y0, x1, y1, half
    width) or a circle (x, y, r)."""
    net: int
    layers: tuple[int, ...]
    clear: float
    kind: str
    shape: tuple
    hole: float = 0.0  # a drilled hole's radius (a via, a through-hole pad, a mounting hole)
    conn: int = -1  # the routed connection a track or via belongs to (-1: the board's own copper)


def _distance(item: Item, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Distance from each grid point to the item's copper (0 inside)."""
    if item.kind == "box":
        x0, y0, x1, y1 = item.shape
        dx = np.maximum(np.maximum(x0 - xs, 0), xs - x1)
        dy = np.maximum(np.maximum(y0 - ys, 0), ys - y1)
        return np.hypot(dx, dy)
    if item.kind == "circle":
        x, y, r = item.shape
        return np.maximum(np.hypot(xs - x, ys - y) - r, 0)
    x0, y0, x1, y1, w = item.shape
    vx, vy = x1 - x0, y1 - y0
    n = vx * vx + vy * vy
    t = np.clip(((xs - x0) * vx + (ys - y0) * vy) / n, 0, 1) if n else 0.0
    return np.maximum(np.hypot(xs - (x0 + t * vx), ys - (y0 + t * vy)) - w, 0)


def _extent(item: Item) -> tuple[float, float, float, float]:
    if item.kind == "box":
        return item.shape
    if item.kind == "circle":
        x, y, r = item.shape
        return x - r, y - r, x + r, y + r
    x0, y0, x1, y1, w = item.shape
    return min(x0, x1) - w, min(y0, y1) - w, max(x0, x1) + w, max(y0, y1) + w


@dataclass
class Rules:
    track: float
    clearance: float
    via: float
    drill: float
    hole_clearance: float
    hole_to_hole: float
    edge: float


class Router:
    def __init__(self, board, rules: Rules, width: float, height: float):
        self.board, self.rules, self.width, self.height = board, rules, width, height
        pcbnew = kicad.pcbnew()
        self.info = {str(name): info for name, info in board.GetNetsByName().items() if str(name)}
        self.nets = {name: i for i, name in enumerate(sorted(self.info))}
        self.items: list[Item] = []
        self._extents = np.zeros((0, 4))  # each item's box, rebuilt when the items change
        self.pads: dict[str, list[tuple[float, float, tuple[int, ...]]]] = {}
        for fp in board.GetFootprints():
            for pad in fp.Pads():
                layers = tuple(i for i, layer in enumerate((pcbnew.F_Cu, pcbnew.B_Cu)) if pad.IsOnLayer(layer))
                net = self.nets.get(pad.GetNetname(), -1)
                b = pad.GetBoundingBox()
                box = (to_mm(b.GetX()), to_mm(b.GetY()), to_mm(b.GetRight()), to_mm(b.GetBottom()))
                clear = max(rules.clearance, to_mm(pad.GetLocalClearance()))
                hole = to_mm(pad.GetDrillSize().x) / 2 if pad.HasHole() else 0.0
                if pad.GetAttribute() == pcbnew.PAD_ATTRIB_NPTH:
                    layers = ()
                if layers:
                    self.items.append(Item(net, layers, clear, "box", box, hole))
                if hole and not layers:  # a mounting hole: no copper, a hole to keep off
                    c = pad.GetPosition()
                    self.items.append(Item(-1, (0, 1), rules.hole_clearance, "circle",
                                           (to_mm(c.x), to_mm(c.y), hole), hole))
                if net >= 0 and layers and pad.GetNumber():
                    c = pad.GetPosition()
                    self.pads.setdefault(pad.GetNetname(), []).append((to_mm(c.x), to_mm(c.y), layers))
        for _ref, layer, box in copper_graphics(board, rules.track):
            self.items.append(Item(-1, (0 if layer == "F.Cu" else 1,), rules.clearance, "box", box))

    # --- the grid of one search window ------------------------------------------------------------

    def _window(self, x0, y0, x1, y1):
        x0, y0 = max(x0, 0.0), max(y0, 0.0)
        x1, y1 = min(x1, self.width), min(y1, self.height)
        xs = np.arange(math.floor(x0 / STEP) * STEP, x1 + STEP / 2, STEP)
        ys = np.arange(math.floor(y0 / STEP) * STEP, y1 + STEP / 2, STEP)
        return xs, ys

    def _blocked(self, net: int, xs: np.ndarray, ys: np.ndarray):
        """For `net` on the window's points: blocked for a track (per layer) and for a via by the
        board's own copper, near another net's pad (per layer), and blocked for a track and for a
        via by other connections' tracks and vias only (which a rip-up may clear)."""
        r = self.rules
        half, slack = r.track / 2, SLACK
        gx, gy = np.meshgrid(xs, ys)
        track = np.zeros((2, len(ys), len(xs)), dtype=bool)
        near_pad = np.zeros((2, len(ys), len(xs)), dtype=bool)
        via = np.zeros((len(ys), len(xs)), dtype=bool)
        soft_track, soft_via = np.zeros_like(track), np.zeros_like(via)
        edge_t, edge_v = r.edge + half + slack, r.edge + r.via / 2 + slack
        track |= ((gx < edge_t) | (gy < edge_t) | (gx > self.width - edge_t) | (gy > self.height - edge_t))[None]
        via |= (gx < edge_v) | (gy < edge_v) | (gx > self.width - edge_v) | (gy > self.height - edge_v)
        reach = max(r.clearance, 0.5) + r.via + slack + r.hole_to_hole
        wx0, wy0, wx1, wy1 = xs[0] - reach, ys[0] - reach, xs[-1] + reach, ys[-1] + reach
        if len(self._extents) != len(self.items):
            known = len(self._extents) if len(self._extents) < len(self.items) else 0
            new = np.array([_extent(item) for item in self.items[known:]]).reshape(-1, 4)
            self._extents = np.vstack([self._extents[:known], new])
        e = self._extents
        for k in np.nonzero((e[:, 2] >= wx0) & (e[:, 0] <= wx1) & (e[:, 3] >= wy0) & (e[:, 1] <= wy1))[0]:
            item = self.items[k]
            ex0, ey0, ex1, ey1 = e[k]
            other = item.net != net or item.net < 0
            j0 = max(0, int((ex0 - reach - xs[0]) / STEP))
            j1 = min(len(xs), int((ex1 + reach - xs[0]) / STEP) + 2)
            i0 = max(0, int((ey0 - reach - ys[0]) / STEP))
            i1 = min(len(ys), int((ey1 + reach - ys[0]) / STEP) + 2)
            if j0 >= j1 or i0 >= i1:
                continue
            d = _distance(item, gx[i0:i1, j0:j1], gy[i0:i1, j0:j1])
            if other and item.conn >= 0:
                for layer in item.layers:
                    soft_track[layer, i0:i1, j0:j1] |= d < item.clear + half + slack
                soft_via[i0:i1, j0:j1] |= d < max(item.clear, r.hole_clearance) + r.via / 2 + slack
            elif other:
                near = d < item.clear + half + slack
                for layer in item.layers:
                    track[layer, i0:i1, j0:j1] |= near
                    if item.kind == "box" and item.net >= 0:
                        near_pad[layer, i0:i1, j0:j1] |= d < item.clear + half + slack + NEAR_PAD
                via[i0:i1, j0:j1] |= d < max(item.clear, r.hole_clearance) + r.via / 2 + slack
            if item.kind == "box" and item.layers and not item.hole:
                via[i0:i1, j0:j1] |= d < r.via / 2 + slack  # no via in an SMD pad, even its own
            if item.hole:  # hole to hole, any net
                cx, cy = (ex0 + ex1) / 2, (ey0 + ey1) / 2
                via[i0:i1, j0:j1] |= np.hypot(gx[i0:i1, j0:j1] - cx, gy[i0:i1, j0:j1] - cy) < \
                    item.hole + r.hole_to_hole + r.drill / 2 + slack
        return track, via, near_pad, soft_track, soft_via

    # --- one connection ------------------------------------------------------------------------------

    def _search(self, net: int, a, b, margin: float, rip: bool = False):
        """The cheapest path (layer, x, y) from pad a to pad b, or None; with `rip`, through other
        connections' copper at a cost (_crossed finds whose)."""
        (ax, ay, al), (bx, by, bl) = a, b
        xs, ys = self._window(min(ax, bx) - margin, min(ay, by) - margin, max(ax, bx) + margin,
                              max(ay, by) + margin)
        track, via, near_pad, soft_track, soft_via = self._blocked(net, xs, ys)
        h, w = len(ys), len(xs)
        if not rip:
            track, via = track | soft_track, via | soft_via
        extra = soft_track * RIP_COST if rip else np.zeros(track.shape)
        free = ~track
        src = [(layer, int(round((ay - ys[0]) / STEP)), int(round((ax - xs[0]) / STEP))) for layer in al]
        dst = [(layer, int(round((by - ys[0]) / STEP)), int(round((bx - xs[0]) / STEP))) for layer in bl]
        for layer, i, j in src + dst:  # the pads' own points, whatever their neighbours' margins say
            if 0 <= i < h and 0 <= j < w:
                free[layer, i, j] = True
        # and every point deep enough inside an end's pad that the track stays on its copper: a
        # fine-pitch pad's centre line, which the grid may miss by half a step
        inset = self.rules.track / 2 + 0.01
        for x, y, layers in (a, b):
            for item in self._pads_at(net, x, y):
                x0, y0, x1, y1 = item.shape
                j0, j1 = np.searchsorted(xs, x0 + inset), np.searchsorted(xs, x1 - inset, side="right")
                i0, i1 = np.searchsorted(ys, y0 + inset), np.searchsorted(ys, y1 - inset, side="right")
                for layer in layers:
                    free[layer, i0:i1, j0:j1] = True
        index = np.arange(2 * h * w).reshape(2, h, w)
        rows, cols, cost = [], [], []
        for layer in (0, 1):
            f, k = free[layer], index[layer]
            for di, dj, c in ((0, 1, 1.0), (1, 0, 1.0), (1, 1, math.sqrt(2)), (1, -1, math.sqrt(2))):
                a_sl = (slice(0, h - di), slice(max(0, -dj), w - max(0, dj)))
                b_sl = (slice(di, h), slice(max(0, dj), w + min(0, dj)))
                ok = f[a_sl] & f[b_sl]
                if di and dj:  # no corner cutting
                    ok &= f[(slice(0, h - di), b_sl[1])] & f[(b_sl[0], a_sl[1])]
                rows.append(k[a_sl][ok])
                cols.append(k[b_sl][ok])
                cost.append(c * (1 + near_pad[layer][a_sl][ok] + near_pad[layer][b_sl][ok])
                            + extra[layer][b_sl][ok] + extra[layer][a_sl][ok])
        ok = free[0] & free[1] & ~via
        rows.append(index[0][ok])
        cols.append(index[1][ok])
        cost.append(VIA_COST + (soft_via[ok] * (RIP_COST * 3) if rip else np.zeros(int(ok.sum()))))
        graph = csr_matrix((np.concatenate(cost), (np.concatenate(rows), np.concatenate(cols))),
                           shape=(2 * h * w, 2 * h * w))
        starts = [index[s] for s in src if 0 <= s[1] < h and 0 <= s[2] < w]
        goals = [index[d] for d in dst if 0 <= d[1] < h and 0 <= d[2] < w]
        if not starts or not goals:
            return None
        dist, pred, _origin = dijkstra(graph, directed=False, indices=starts, return_predecessors=True,
                                      min_only=True)
        best = min(goals, key=lambda g: dist[g])
        if not np.isfinite(dist[best]):
            return None
        path, node = [], best
        while node >= 0:
            path.append(node)
            node = pred[node]
        path.reverse()
        return [(int(n // (h * w)), float(xs[n % w]), float(ys[(n // w) % h])) for n in path]

    def _pads_at(self, net: int, x: float, y: float) -> list[Item]:
        return [item for item in self.items if item.kind == "box" and item.net == net and item.conn < 0
                and item.shape[0] <= x <= item.shape[2] and item.shape[1] <= y <= item.shape[3]]

    def _commit(self, net: int, a, b, path, conn: int = -1) -> tuple[list, list]:
        """The path as tracks (layer, x0, y0, x1, y1) and vias (x, y), from pad centre to pad centre."""
        tracks, vias = [], []
        pts = [(path[0][0], a[0], a[1])] + path + [(path[-1][0], b[0], b[1])]
        run = [pts[0]]
        for p in pts[1:]:
            if p[0] != run[-1][0]:  # a via where the layer changes
                vias.append((p[1], p[2]))
                tracks += self._runs(run)
                run = [p]
                continue
            if len(run) >= 2:
                (_, x0, y0), (_, x1, y1) = run[-2], run[-1]
                if abs((x1 - x0) * (p[2] - y1) - (y1 - y0) * (p[1] - x1)) < 1e-9:
                    run[-1] = p
                    continue
            run.append(p)
        tracks += self._runs(run)
        half = self.rules.track / 2
        for layer, x0, y0, x1, y1 in tracks:
            self.items.append(Item(net, (layer,), self.rules.clearance, "segment", (x0, y0, x1, y1, half),
                                   conn=conn))
        for x, y in vias:
            self.items.append(Item(net, (0, 1), self.rules.clearance, "circle", (x, y, self.rules.via / 2),
                                   self.rules.drill / 2, conn))
        return tracks, vias

    def _vias_apart(self, path) -> bool:
        """Whether a path's own vias keep the hole-to-hole distance (the search sees only others')."""
        vias = [(x, y) for (l0, _, _), (l1, x, y) in zip(path, path[1:]) if l0 != l1]
        least = self.rules.hole_to_hole + self.rules.drill
        return all(math.dist(a, b) >= least for i, a in enumerate(vias) for b in vias[i + 1:])

    def _crossed(self, net: int, path) -> set[int]:
        """The routed connections of other nets whose copper a path comes too close to."""
        r = self.rules
        slack = SLACK
        pts = np.array([(x, y) for _, x, y in path])
        layers = np.array([layer for layer, _, _ in path])
        changes = np.nonzero(np.diff(layers))[0] + 1  # where a via stands
        hit = set()
        for item in self.items:
            if item.conn < 0 or item.net == net or item.conn in hit:
                continue
            x0, y0, x1, y1 = _extent(item)
            reach = item.clear + r.via + slack
            near = (pts[:, 0] > x0 - reach) & (pts[:, 0] < x1 + reach) & (pts[:, 1] > y0 - reach) & (pts[:, 1] < y1 + reach)
            if not near.any():
                continue
            d = _distance(item, pts[:, 0], pts[:, 1])
            on_layer = np.isin(layers, item.layers)
            if ((d < item.clear + r.track / 2 + slack) & on_layer).any() or \
                    (len(changes) and (d[changes] < max(item.clear, r.hole_clearance) + r.via / 2 + slack).any()):
                hit.add(item.conn)
        return hit

    @staticmethod
    def _runs(run):
        return [(a[0], a[1], a[2], b[1], b[2]) for a, b in zip(run, run[1:]) if (a[1], a[2]) != (b[1], b[2])]

    # --- the board ------------------------------------------------------------------------------------

    def connections(self, only=None) -> list[tuple[str, tuple, tuple]]:
        """Each net's pads (of the nets in `only`, default all) joined by a minimum spanning tree
        (Prim's), shortest first."""
        out = []
        for name, pads in self.pads.items():
            if len(pads) < 2 or only is not None and name not in only:
                continue
            inside, rest = [pads[0]], pads[1:]
            while rest:
                a, b = min(((p, q) for p in inside for q in rest), key=lambda pq: math.dist(pq[0][:2], pq[1][:2]))
                out.append((name, a, b))
                inside.append(b)
                rest.remove(b)
        return sorted(out, key=lambda c: math.dist(c[1][:2], c[2][:2]))

    def route(self, only=None) -> dict:
        """Route every connection (of the nets in `only`), shortest first. One that finds no way
        round the others goes through them at a cost; those it crosses are ripped up and queued
        again (each at most RIPS times). The tracks and vias made are added to the board."""
        started = time.monotonic()
        order = self.connections(only)
        queue = deque(range(len(order)))
        routed: dict[int, tuple] = {}
        rips: dict[int, int] = {}
        failed: list[int] = []
        while queue:
            cid = queue.popleft()
            name, a, b = order[cid]
            net = self.nets[name]
            path = next((p for m in MARGINS if (p := self._search(net, a, b, m)) is not None), None)
            victims: set[int] = set()
            if path is None:
                path = next((p for m in MARGINS if (p := self._search(net, a, b, m, rip=True)) is not None), None)
                victims = self._crossed(net, path) if path is not None else set()
                if any(rips.get(v, 0) >= RIPS for v in victims):
                    path = None
            if path is not None and not self._vias_apart(path):
                path = None  # two of its own vias closer than the hole-to-hole rule
            if path is None:
                failed.append(cid)
                continue
            if victims:
                self.items = [item for item in self.items if item.conn not in victims]
                self._extents = np.zeros((0, 4))
                for v in sorted(victims):
                    del routed[v]
                    rips[v] = rips.get(v, 0) + 1
                    queue.append(v)
            routed[cid] = (name, *self._commit(net, a, b, path, cid))
        self._write(list(routed.values()))
        return {"connections": len(order), "failed": [order[c][0] for c in failed],
                "ripped": sum(rips.values()), "seconds": round(time.monotonic() - started, 1)}

    def _write(self, done) -> None:
        pcbnew = kicad.pcbnew()
        layers = (pcbnew.F_Cu, pcbnew.B_Cu)
        for name, tracks, vias in done:
            info = self.info[name]
            for layer, x0, y0, x1, y1 in tracks:
                t = pcbnew.PCB_TRACK(self.board)
                t.SetStart(point(x0, y0))
                t.SetEnd(point(x1, y1))
                t.SetWidth(mm(self.rules.track))
                t.SetLayer(layers[layer])
                t.SetNet(info)
                self.board.Add(t)
            for x, y in vias:
                v = pcbnew.PCB_VIA(self.board)
                v.SetPosition(point(x, y))
                v.SetWidth(mm(self.rules.via))
                v.SetDrill(mm(self.rules.drill))
                v.SetLayerPair(pcbnew.F_Cu, pcbnew.B_Cu)
                v.SetNet(info)
                self.board.Add(v)


def copper_graphics(board, track_mm: float):
    """Each footprint's copper that is not a pad (a loop's track), as boxes (mm, y down) to keep
    other copper off: a track's end that lies on a pad of its footprint is drawn back clear of
    that pad, so that the router can reach the pad (the footprint is a net tie: KiCad lets its
    pads' nets touch its copper there)."""
    pcbnew = kicad.pcbnew()
    for fp in board.GetFootprints():
        pads = [_bbox(p) for p in fp.Pads()]
        for item in fp.GraphicalItems():
            if item.Type() != pcbnew.PCB_FP_SHAPE_T or not item.IsOnCopperLayer():
                continue
            w = to_mm(item.GetWidth()) / 2
            if item.GetShape() == pcbnew.SHAPE_T_SEGMENT:
                a = [to_mm(item.GetStart().x), to_mm(item.GetStart().y)]
                b = [to_mm(item.GetEnd().x), to_mm(item.GetEnd().y)]
                length = math.dist(a, b)
                for end, other in ((a, b), (b, a)):
                    for px0, py0, px1, py1 in pads:
                        if px0 <= end[0] <= px1 and py0 <= end[1] <= py1 and length > 0:
                            back = max(px1 - px0, py1 - py0) / 2 + w + track_mm
                            end[0] += (other[0] - end[0]) * back / length
                            end[1] += (other[1] - end[1]) * back / length
                box = (min(a[0], b[0]) - w, min(a[1], b[1]) - w, max(a[0], b[0]) + w, max(a[1], b[1]) + w)
            else:
                box = _bbox(item)
            yield fp.GetReference(), item.GetLayerName(), box


def _bbox(item) -> tuple[float, float, float, float]:
    b = item.GetBoundingBox()
    return to_mm(b.GetX()), to_mm(b.GetY()), to_mm(b.GetRight()), to_mm(b.GetBottom())
