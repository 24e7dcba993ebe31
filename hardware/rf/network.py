"""The reader's antenna network: EMC filter, matching capacitors, damping, and the antenna.

Topology (NXP AN1445 / ST AN5592 differential): TX1/TX2 -> L0 -> C0 to GND -> series C1 ->
C2 to GND -> [damping R, switch] -> the coil, on both sides. It is analysed as its
differential-mode equivalent: series parts of both sides add (L0d = 2 L0, C1d = C1 / 2), parts
to ground appear across the pair at half their value (C0d = C0 / 2, C2d = C2 / 2). Part values
reported are per side, as placed on the board.

The matching puts the impedance the transmitter sees at `target` ohms (real): the EMC filter
is fixed by its cut-off, then C1 and C2 are the L-match from the antenna to what the filter
must see (closed form, `match`). Q is the loaded Q from the coil current's -3 dB bandwidth
with the transmitter's own resistance in place, the figure that sets bandwidth and tolerance
sensitivity.
"""

from __future__ import annotations

import math
import random

E12 = (1.0, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2)
E24 = (1.0, 1.1, 1.2, 1.3, 1.5, 1.6, 1.8, 2.0, 2.2, 2.4, 2.7, 3.0, 3.3, 3.6, 3.9, 4.3, 4.7, 5.1, 5.6,
       6.2, 6.8, 7.5, 8.2, 9.1)


def nearest(value, series=E12):
    """The value of the E series nearest `value` (on a log scale, as the series is spaced)."""
    exp = math.floor(math.log10(value))
    candidates = [float(f"{m}e{exp}") for m in series] + [float(f"1e{exp + 1}")]
    return min(candidates, key=lambda c: abs(math.log(c / value)))


def parallel(a, b):
    return a * b / (a + b)


def antenna_z(omega, inductance, resistance, c_par=0.0):
    """The antenna (coil with its series resistance, self-capacitance across it)."""
    z = complex(resistance, omega * inductance)
    return z if not c_par else parallel(z, 1 / complex(0, omega * c_par))


def emc_c0(l0, cutoff_hz):
    """The EMC filter's capacitor for its cut-off: f = 1 / (2 pi sqrt(L0 C0))."""
    return 1 / ((2 * math.pi * cutoff_hz) ** 2 * l0)


def match(omega, z_required, z_load):
    """(C_series, C_shunt) of an L-match, series C then shunt C across the load, so that the
    input impedance is `z_required`; raises ValueError when no positive pair exists."""
    y = 1 / z_load
    g, b = y.real, y.imag
    r = z_required.real
    if not 0 < g * r <= 1 or r <= 0:
        raise ValueError("no L-match: the load's real part cannot be raised to %.2f ohm" % r)
    # Re(1 / (g + j(b + b2))) = r  ->  (b + b2)^2 = g / r - g^2; take the smaller shunt C
    spread = math.sqrt(g / r - g * g)
    best = None
    for b_total in (spread, -spread):
        b2 = b_total - b
        if b2 <= 0:
            continue
        z_after_shunt = 1 / complex(g, b_total)
        x1 = z_required.imag - z_after_shunt.imag  # the series part's reactance
        if x1 >= 0:
            continue  # it would have to be an inductor
        pair = (-1 / (omega * x1), b2 / omega)
        if best is None or pair[1] < best[1]:
            best = pair
    if best is None:
        raise ValueError("no L-match with two capacitors for this load")
    return best


def design(omega, ant, l0, cutoff_hz, target, r_tx):
    """Per-side values (henry, farad) of the network that shows `target` ohms (differential)
    to the transmitter, whose own resistance is r_tx per side, for the antenna `ant`
    (differential impedance at omega)."""
    l0d = 2 * l0
    c0 = emc_c0(l0, cutoff_hz)
    c0d = c0 / 2
    # What the filter output must see so that TX sees target: jwL0d + (C0d || Zx) = target
    z_shunt = 1 / complex(0, omega * c0d)
    z_needed = complex(target, 0) - complex(0, omega * l0d)
    zx = 1 / (1 / z_needed - 1 / z_shunt)
    c1d, c2d = match(omega, zx, ant)
    return {"l0": l0, "c0": c0, "c1": 2 * c1d, "c2": 2 * c2d}


def solve(omega, values, ant_of, v_tx, r_tx):
    """The circuit at omega: the impedance the transmitter drives (ohm, differential), the coil
    current (A rms) and the transmitter current (A rms), for per-side `values` and the antenna
    impedance `ant_of(omega)`. v_tx: the drivers' differential fundamental (V rms)."""
    ant = ant_of(omega)
    z_c2 = 1 / complex(0, omega * values["c2"] / 2)
    z_a = parallel(ant, z_c2)
    z_x = 1 / complex(0, omega * values["c1"] / 2) + z_a
    z_c0 = 1 / complex(0, omega * values["c0"] / 2)
    z_n = parallel(z_x, z_c0)
    z_in = complex(0, omega * 2 * values["l0"]) + z_n
    i_tx = v_tx / (z_in + 2 * r_tx)
    v_n = i_tx * z_n
    i_x = v_n / z_x
    v_a = i_x * z_a
    i_coil = v_a / ant
    return {"z_in": z_in, "i_coil": abs(i_coil), "i_tx": abs(i_tx), "v_coil": abs(v_a)}


def loaded_q(f0, values, ant_of, v_tx, r_tx):
    """(peak frequency, loaded Q): the coil current's peak over its -3 dB bandwidth. The peak is
    searched on a log scale around f0 and each half-power point found by bisection, however broad
    the resonance (a low-Q loop's points lie far from f0); ValueError if the current has no
    half-power point on a side (no resonance: a monotonic response)."""
    def cur(f):
        return solve(2 * math.pi * f, values, ant_of, v_tx, r_tx)["i_coil"]

    grid = [f0 * 10 ** (k / 200) for k in range(-400, 401)]  # f0 / 100 .. 100 f0
    peak_f = max(grid, key=cur)
    half = cur(peak_f) / math.sqrt(2)

    def edge(direction):
        f = peak_f
        while cur(f) >= half:
            f *= 1.02 ** direction
            if not f0 / 1000 < f < f0 * 1000:
                raise ValueError("the coil current has no half-power point: no resonance to take a Q from")
        a, b = f / 1.02 ** direction, f
        for _ in range(60):
            mid = (a + b) / 2
            a, b = (mid, b) if cur(mid) >= half else (a, mid)
        return (a + b) / 2

    return peak_f, peak_f / (edge(1) - edge(-1))


def rounded(values, series=E12):
    """The network with every capacitor at its nearest E-series value (L0 is bought by value)."""
    return {k: (v if k == "l0" else nearest(v, series)) for k, v in values.items()}


def monte_carlo(omega, values, ant_of_scaled, v_tx, r_tx, tolerances, accept, samples=2000, seed=1):
    """The fraction of builds that `accept` their solve() result, each part drawn uniformly
    within its tolerance (a fraction; keys of `values`, plus 'coil' and 'r' for the antenna,
    handed to ant_of_scaled(omega, coil_scale, r_scale), and 'r_tx')."""
    rng = random.Random(seed)
    good = 0
    for _ in range(samples):
        v = {k: x * (1 + rng.uniform(-tolerances[k], tolerances[k])) for k, x in values.items()}
        coil = 1 + rng.uniform(-tolerances["coil"], tolerances["coil"])
        res = 1 + rng.uniform(-tolerances["r"], tolerances["r"])
        rt = r_tx * (1 + rng.uniform(-tolerances["r_tx"], tolerances["r_tx"]))
        result = solve(omega, v, lambda w: ant_of_scaled(w, coil, res), v_tx, rt)
        good += bool(accept(result))
    return good / samples
