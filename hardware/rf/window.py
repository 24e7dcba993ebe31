"""A cell's coil among its eight neighbours: their coupling, what the neighbours do to the
field (relay it when tuned, absorb a little when shorted, nothing when open), and the tag's
read window: the coil currents at which a tag on the cell reads face down while a tag on a
neighbour, face up, does not.

The active coil carries 1 A; each neighbour's current follows from the mesh equations
    (R_j + jwL_j + Z_term_j) I_j + sum_k jwM_jk I_k = -jwM_j0,
Z_term_j being what closes the neighbour's loop: its own (sleeping) reader's network when it is
tuned, the switch's on-resistance when shorted, its off-capacitance when open. Fields are per
ampere of the active coil; a tag responds to the field averaged over its antenna.
"""

from __future__ import annotations

from rf import loops

# the 3 x 3 neighbourhood, the active cell in the middle (index 4)
OFFSETS = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
CENTRE = 4


def coil(spec, centre=(0.0, 0.0)):
    mm = 1e-3
    return loops.square_spiral(spec["outer_mm"] * mm, spec["turns"], spec["trace_mm"] * mm, spec["gap_mm"] * mm,
                               centre=centre)


def neighbourhood(spec, pitch_mm):
    pitch = pitch_mm * 1e-3
    return [coil(spec, (dx * pitch, dy * pitch)) for dx, dy in OFFSETS]


def coupling(coils, width, thickness):
    """The inductance matrix (henry) of the coils: self on the diagonal, mutual off it."""
    n = len(coils)
    m = [[0.0] * n for _ in range(n)]
    own = loops.inductance(coils[0], width, thickness)
    for i in range(n):
        m[i][i] = own  # identical coils
        for j in range(i + 1, n):
            m[i][j] = m[j][i] = loops.mutual(coils[i], coils[j])
    return m


def _solve(a, b):
    """Gaussian elimination with partial pivoting on a small complex system."""
    n = len(b)
    a = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[piv] = a[piv], a[col]
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            for c in range(col, n + 1):
                a[r][c] -= f * a[col][c]
    x = [0j] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def currents(omega, m, r_loop, z_term):
    """Coil currents (complex, A) with 1 A in the active coil; z_term: the impedance closing
    each neighbour's loop (None: open, no current)."""
    others = [i for i in range(len(m)) if i != CENTRE and z_term is not None]
    if not others:
        return [1 + 0j if i == CENTRE else 0j for i in range(len(m))]
    a = [[(complex(r_loop, omega * m[i][i]) + z_term) if i == j else complex(0, omega * m[i][j]) for j in others]
         for i in others]
    b = [complex(0, -omega * m[i][CENTRE]) for i in others]
    x = _solve(a, b)
    out = [0j] * len(m)
    out[CENTRE] = 1 + 0j
    for i, v in zip(others, x):
        out[i] = v
    return out


def field(coils, cur, tag_mm, at_mm, z_mm):
    """Mean Hz (A/m) over a tag of antenna diameter tag_mm centred at at_mm (x, y) and height
    z_mm, for the coils carrying `cur`."""
    mm = 1e-3
    return loops.mean_hz(list(zip(coils, cur)), tag_mm * mm, (at_mm[0] * mm, at_mm[1] * mm), z_mm * mm)


def tag_fields(coils, cur, tag_mm, pitch_mm, z_up, z_down, offset_mm, straddle_mm):
    """Field per ampere of the active coil where tags lie: on the cell (face down, and face up)
    off centre by up to offset_mm, on an edge and a diagonal neighbour (face up, nearest the
    active coil by offset_mm), and straddling the boundary with the right-hand neighbour."""
    p = pitch_mm
    return {
        "own_down": min(field(coils, cur, tag_mm, (dx, 0.0), z_down) for dx in (0.0, offset_mm)),
        "own_up": min(field(coils, cur, tag_mm, (dx, 0.0), z_up) for dx in (0.0, offset_mm)),
        "edge_up": field(coils, cur, tag_mm, (p - offset_mm, 0.0), z_up),
        "diagonal_up": field(coils, cur, tag_mm, (p - offset_mm, p - offset_mm), z_up),
        "edge_down": field(coils, cur, tag_mm, (p - offset_mm, 0.0), z_down),
        "straddle_up": field(coils, cur, tag_mm, (straddle_mm, 0.0), z_up),
        "straddle_down": field(coils, cur, tag_mm, (straddle_mm, 0.0), z_down),
    }


def window(fields, h_min):
    """Coil currents (A rms) between which a tag reads face down on its cell, off centre as far
    as the cover lets it, while none reads face up on a neighbour."""
    i_min = h_min / fields["own_down"]
    i_cross = h_min / max(fields["edge_up"], fields["diagonal_up"])
    return {"i_min": i_min, "i_cross": i_cross, "ratio": i_cross / i_min}
