"""Loops as straight segments: self and mutual inductance, and the magnetic field they make.

A loop is a list of segments ((x0, y0, z0), (x1, y1, z1)) in metres, in the direction the
current flows. A planar square spiral is modelled as concentric square turns (Greenhouse's
method; the crossings between turns are left out, as in Mohan et al.).

Two ways to the same inductance, checked against each other in tests/hardware/test_rf.py:
- `inductance` (Greenhouse, IEEE Trans. Parts, Hybrids, Packaging PHP-10(2), 1974): the sum of
  each segment's self-inductance (a straight rectangular bar) and the mutual inductance of every
  pair of parallel segments in closed form (Neumann's integral for two parallel filaments,
  Grover, "Inductance Calculations", 1946); perpendicular segments couple not at all.
- `neumann`: Neumann's double integral over any two loops by Gauss-Legendre quadrature.
- `mohan`: the modified Wheeler formula for a square spiral (Mohan, del Mar Hershenson, Boyd,
  Lee, "Simple accurate expressions for planar spiral inductances", IEEE JSSC 34(10), 1999:
  K1 = 2.34, K2 = 2.75), the closed form the old design used.
"""

from __future__ import annotations

import math

MU0 = 4e-7 * math.pi


# --- shapes ------------------------------------------------------------------------------------

def square(side, centre=(0.0, 0.0), z=0.0):
    """One square turn, counter-clockwise seen from above (+z): its field at the centre is +z."""
    cx, cy = centre
    h = side / 2
    corners = [(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)]
    return [((*corners[i], z), (*corners[(i + 1) % 4], z)) for i in range(4)]


def square_spiral(outer, turns, trace, gap, centre=(0.0, 0.0), z=0.0):
    """A planar square spiral as `turns` concentric squares on the trace centre lines."""
    loop = []
    for n in range(turns):
        side = outer - trace - 2 * n * (trace + gap)
        if side <= 0:
            raise ValueError("%d turns of %.2f mm + %.2f mm gaps do not fit in %.1f mm" % (
                turns, trace * 1e3, gap * 1e3, outer * 1e3))
        loop += square(side, centre, z)
    return loop


def circle(diameter, centre=(0.0, 0.0), z=0.0, sides=24):
    """A round loop as a polygon of equal area."""
    cx, cy = centre
    # the polygon's circumradius that gives the circle's area
    r = diameter / 2 * math.sqrt(2 * math.pi / (sides * math.sin(2 * math.pi / sides)))
    pts = [(cx + r * math.cos(2 * math.pi * i / sides), cy + r * math.sin(2 * math.pi * i / sides), z)
           for i in range(sides)]
    return [(pts[i], pts[(i + 1) % sides]) for i in range(sides)]


# --- inductance --------------------------------------------------------------------------------

def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _norm(a):
    return math.sqrt(_dot(a, a))


def _parallel_mutual(s, t, gmd=None):
    """Mutual inductance of two parallel straight filaments (Neumann's integral in closed
    form); `gmd` replaces the distance for a segment with itself (Greenhouse)."""
    (a0, a1), (b0, b1) = s, t
    da = _sub(a1, a0)
    length = _norm(da)
    u = (da[0] / length, da[1] / length, da[2] / length)
    # positions along the common axis, oriented: the sign of dl1 . dl2 is in the limits
    sa0, sa1 = 0.0, _dot(da, u)
    sb0, sb1 = _dot(_sub(b0, a0), u), _dot(_sub(b1, a0), u)
    off = _sub(_sub(b0, a0), (u[0] * sb0, u[1] * sb0, u[2] * sb0))
    d = gmd if gmd is not None else _norm(off)

    def h(x):
        if d < 1e-12:  # collinear, not overlapping: the limit d -> 0 (the rest cancels)
            return abs(x) * math.log(abs(x)) if x else 0.0
        return x * math.asinh(x / d) - math.sqrt(x * x + d * d)

    return MU0 / (4 * math.pi) * (h(sa1 - sb0) - h(sa0 - sb0) - h(sa1 - sb1) + h(sa0 - sb1))


def bar_self(length, width, thickness):
    """Self-inductance of a straight rectangular bar (Greenhouse 1974, eq. 2, after Grover)."""
    wt = width + thickness
    return MU0 * length / (2 * math.pi) * (math.log(2 * length / wt) + 0.50049 + wt / (3 * length))


def _direction(seg):
    d = _sub(seg[1], seg[0])
    n = _norm(d)
    return (d[0] / n, d[1] / n, d[2] / n)


def mutual(loop_a, loop_b):
    """Mutual inductance of two loops of straight segments with no segment in common:
    parallel pairs in closed form; other non-perpendicular pairs by quadrature."""
    total = 0.0
    for s in loop_a:
        us = _direction(s)
        for t in loop_b:
            c = _dot(us, _direction(t))
            if abs(c) < 1e-12:
                continue
            if abs(abs(c) - 1) < 1e-12:
                total += _parallel_mutual(s, t)
            else:
                total += _segment_neumann(s, t, 8)
    return total


def inductance(loop, width, thickness):
    """Self-inductance of a loop of straight segments (Greenhouse): each segment's own
    inductance plus the mutual inductance of every other parallel pair."""
    total = 0.0
    for i, s in enumerate(loop):
        total += bar_self(_norm(_sub(s[1], s[0])), width, thickness)
        us = _direction(s)
        for t in loop[i + 1:]:
            if abs(abs(_dot(us, _direction(t))) - 1) < 1e-12:
                total += 2 * _parallel_mutual(s, t)
    return total


# Gauss-Legendre nodes and weights on [0, 1]
def _gauss(n):
    # Golub-Welsch is overkill here: Newton on the Legendre polynomial, from Chebyshev guesses.
    nodes, weights = [], []
    for i in range(1, n + 1):
        x = math.cos(math.pi * (i - 0.25) / (n + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1)
            step = p1 / dp
            x -= step
            if abs(step) < 1e-15:
                break
        nodes.append((1 - x) / 2)
        weights.append(1 / ((1 - x * x) * dp * dp))  # 2/((1-x^2) P'^2) on [-1,1], halved on [0,1]
    return nodes, weights


_GAUSS = {}


def _segment_neumann(s, t, n):
    if n not in _GAUSS:
        _GAUSS[n] = _gauss(n)
    nodes, weights = _GAUSS[n]
    da, db = _sub(s[1], s[0]), _sub(t[1], t[0])
    dot = _dot(da, db)
    total = 0.0
    for xa, wa in zip(nodes, weights):
        pa = (s[0][0] + xa * da[0], s[0][1] + xa * da[1], s[0][2] + xa * da[2])
        for xb, wb in zip(nodes, weights):
            pb = (t[0][0] + xb * db[0], t[0][1] + xb * db[1], t[0][2] + xb * db[2])
            total += wa * wb / _norm(_sub(pa, pb))
    return MU0 / (4 * math.pi) * dot * total


def neumann(loop_a, loop_b, n=24):
    """Mutual inductance by Neumann's double integral, every segment pair by n x n point
    Gauss-Legendre quadrature (loops must not touch)."""
    return sum(_segment_neumann(s, t, n) for s in loop_a for t in loop_b)


def mohan(outer, turns, trace, gap):
    """Modified Wheeler formula for a square spiral (Mohan et al. 1999)."""
    inner = outer - 2 * turns * trace - 2 * (turns - 1) * gap
    d_avg = (outer + inner) / 2
    rho = (outer - inner) / (outer + inner)
    return 2.34 * MU0 * turns * turns * d_avg / (1 + 2.75 * rho)


# --- field -------------------------------------------------------------------------------------

def field(loop, point, current=1.0):
    """Magnetic field H (A/m, a 3-vector) at `point` from `current` (A) in the loop
    (Biot-Savart for each finite straight segment in closed form)."""
    hx = hy = hz = 0.0
    for a, b in loop:
        ab = _sub(b, a)
        length = _norm(ab)
        u = (ab[0] / length, ab[1] / length, ab[2] / length)
        pa = _sub(point, a)
        along = _dot(pa, u)
        r0 = (pa[0] - along * u[0], pa[1] - along * u[1], pa[2] - along * u[2])
        d2 = _dot(r0, r0)
        if d2 < 1e-18:
            continue  # on the filament's line: no field from it along its own axis
        pb = _sub(point, b)
        cos1 = along / _norm(pa)
        cos2 = _dot(pb, u) / _norm(pb)
        k = current * (cos1 - cos2) / (4 * math.pi * d2)  # |H| / d, applied to u x r0
        c = _cross(u, r0)
        hx += k * c[0]
        hy += k * c[1]
        hz += k * c[2]
    return (hx, hy, hz)


def disc_points(diameter, centre, z, rings=4):
    """Points and area weights covering a disc (equal-area rings, more points outwards)."""
    cx, cy = centre
    r_out = diameter / 2
    points, weights = [], []
    area = math.pi * r_out * r_out
    for i in range(rings):
        r_lo, r_hi = r_out * math.sqrt(i / rings), r_out * math.sqrt((i + 1) / rings)
        r = (r_lo + r_hi) / 2
        n = 6 * (2 * i + 1)
        for j in range(n):
            a = 2 * math.pi * (j + 0.5 * (i % 2)) / n
            points.append((cx + r * math.cos(a), cy + r * math.sin(a), z))
            weights.append(area / rings / n)
    return points, weights


def mean_hz(loops_currents, diameter, centre, z):
    """The field through a disc (a tag's antenna), averaged over its area: the H a tag of that
    size responds to. `loops_currents`: [(loop, complex current)]; returns |mean Hz| (A/m)."""
    points, weights = disc_points(diameter, centre, z)
    total = 0j
    area = sum(weights)
    for loop, current in loops_currents:
        flux = sum(w * field(loop, p)[2] for p, w in zip(points, weights))
        total += current * flux
    return abs(total) / area
