"""The RF model (hardware/rf/): inductance by two methods against each other and a published
closed form, the matching network against published worked examples, and what neighbouring
coils do to the field."""

import math
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "hardware"))

from rf import loops, network, window  # noqa: E402

MM = 1e-3
F = 13.56e6
W = 2 * math.pi * F

# Published worked examples of the matching network (differential, EMC filter L0/C0 per side,
# series C and parallel C per side), as printed:
# - Wuerth Elektronik: C. Merz, "Impedance matching for NFC applications, Part 2" (EDN Asia /
#   EE Times Europe; Wuerth application note ANP084): a combined wireless-power/NFC coil of
#   0.7 uH, 1.7 ohm, 9.12 pF has 1.87 + j62.53 ohm at 13.56 MHz; behind L0 = 470 nH and
#   C0 = 247 pF per side, from drivers of 25 ohm each, the match is CS = 45 pF, CP = 337 pF.
# - M. Roland, H. Witschnig, E. Merlin, C. Saminger, "Automatic Impedance Matching for 13.56
#   MHz NFC Antennas", CSNDSP 2008 (NXP Gratkorn): behind L0 = 560 nH, C0 = 220 pF per side
#   (50 ohm differential source), antennas of 3.12 uH / 4.93 ohm / 9.84 pF and 1.7 uH /
#   4.83 ohm / 6.99 pF match with CS = 14 / 27 pF and CP = 55 / 124 pF.
# (The figures were read as BerkeleyHCI/PolymorphicBlocks' Rf_Pn7160_test.py transcribes them;
# the articles themselves are not reachable from the build machine.)
EXAMPLES = [
    # (L0, R per driver, C0), (antenna L, R, C), (CS, CP) pF, tolerance pF
    ((470e-9, 25.0, 247e-12), (0.7e-6, 1.7, 9.12e-12), (45, 337), 1.0),
    ((560e-9, 25.0, 220e-12), (3.12e-6, 4.93, 9.84e-12), (14, 55), 1.0),
    ((560e-9, 25.0, 220e-12), (1.7e-6, 4.83, 6.99e-12), (27, 124), 1.0),
]


def test_antenna_impedance_of_the_published_example():
    z = network.antenna_z(W, 0.7e-6, 1.7, 9.12e-12)
    assert abs(z - complex(1.87, 62.53)) < 0.01


@pytest.mark.parametrize("emc, antenna, expected, tol", EXAMPLES)
def test_matching_reproduces_the_published_examples(emc, antenna, expected, tol):
    l0, r, c0 = emc
    source = network.antenna_z(W, 2 * l0, 2 * r, c0 / 2)  # the EMC filter and drivers, differential
    cs, cp = network.match(W, source.conjugate(), network.antenna_z(W, *antenna))
    assert abs(2 * cs * 1e12 - expected[0]) <= tol and abs(2 * cp * 1e12 - expected[1]) <= tol


def test_greenhouse_and_neumann_agree_and_mohan_is_close():
    coil = loops.square_spiral(20 * MM, 3, 0.3 * MM, 0.3 * MM)
    neighbour = loops.square_spiral(20 * MM, 3, 0.3 * MM, 0.3 * MM, centre=(25 * MM, 0))
    closed, numeric = loops.mutual(coil, neighbour), loops.neumann(coil, neighbour, 16)
    assert closed < 0 and abs(closed - numeric) < 0.005 * abs(numeric)  # coplanar: k < 0
    own = loops.inductance(coil, 0.3 * MM, 35e-6)
    wheeler = loops.mohan(20 * MM, 3, 0.3 * MM, 0.3 * MM)
    assert 300e-9 < own < 600e-9 and abs(own - wheeler) < 0.12 * wheeler
    # a single straight filament pair: Grover's closed form against quadrature
    a = [((0, 0, 0), (10 * MM, 0, 0))]
    b = [((3 * MM, 2 * MM, 0), (15 * MM, 2 * MM, 0))]
    assert abs(loops.mutual(a, b) - loops.neumann(a, b, 24)) < 1e-4 * loops.neumann(a, b, 24)


def test_field_of_a_loop_matches_the_biot_savart_axis_formula():
    # on the axis of a square loop of side a: H = 2 I a^2 / (pi (a^2 + 4 z^2) sqrt(a^2/2 + z^2))
    a, z = 20 * MM, 5 * MM
    h = loops.field(loops.square(a), (0, 0, z))[2]
    assert abs(h - 2 * a * a / (math.pi * (a * a + 4 * z * z) * math.sqrt(a * a / 2 + z * z))) < 1e-9


def test_neighbours_relay_when_tuned_and_barely_touch_the_field_when_open_or_shorted():
    spec = {"outer_mm": 22.0, "turns": 1, "trace_mm": 1.0, "gap_mm": 0.3}
    coils = window.neighbourhood(spec, 25.0)
    m = window.coupling(coils, 1e-3, 35e-6)
    r = 0.1
    l_self = m[4][4]
    # tuned: a neighbour closed by a capacitor resonant with its coil at 13.56 MHz
    tuned = window.currents(W, m, r, 1 / complex(0, W / (W * W * l_self)))
    shorted = window.currents(W, m, r, 0.9)
    opened = window.currents(W, m, r, 1 / complex(0, W * 20e-12))
    edge = [window.field(coils, cur, 17, (25.0, 0.0), 1.0) for cur in (tuned, shorted, opened)]
    assert edge[0] > 1.5 * edge[2]  # a tuned neighbour carries a large current and relays
    assert abs(shorted[5]) < 0.1 and abs(opened[5]) < 0.01
    assert edge[2] > 0 and abs(edge[1] - edge[2]) < 0.6 * edge[2]


def test_e_series_and_monte_carlo():
    assert network.nearest(97e-12) == 100e-12 and network.nearest(594e-12) == 560e-12
    assert network.nearest(1.23e-9, network.E24) == pytest.approx(1.2e-9)
    ant = lambda w: network.antenna_z(w, 65e-9, 1.0)  # noqa: E731
    values = network.design(W, ant(W), 56e-9, 14.4e6, 15.0, 5.0)
    result = network.solve(W, values, ant, 2.97, 5.0)
    assert abs(result["z_in"] - 15.0) < 0.1  # the match lands where it was aimed
    tol = {"l0": 0.2, "c0": 0.05, "c1": 0.05, "c2": 0.05, "coil": 0.03, "r": 0.25, "r_tx": 0.2}
    nominal = result["i_coil"]

    def scaled(w, l_s, r_s):
        return network.antenna_z(w, 65e-9 * l_s, 1.0 * r_s)

    wide = network.monte_carlo(W, values, scaled, 2.97, 5.0, tol, lambda r: abs(r["i_coil"] / nominal - 1) < 0.5, 300)
    narrow = network.monte_carlo(W, values, scaled, 2.97, 5.0, tol, lambda r: abs(r["i_coil"] / nominal - 1) < 0.01, 300)
    assert wide > 0.95 and narrow < 0.5


def test_ngspice_agrees_with_the_hand_model_and_neumann_with_the_closed_forms():
    """The chosen design's balanced network simulated in ngspice (Debian's package: missing, the
    test fails naming it) at nominal and corner values, within 10 % of rf/network.py's coil
    current, drivers' impedance and loaded Q; the loop's closed-form inductance and coupling
    within 5 % of Neumann's integral over the footprint's copper."""
    from rf import spice

    result = spice.result()
    assert result["simulator"].startswith("ngspice-") and len(result["cases"]) >= 4
    assert result["max_rel_error"] <= 0.10 and result["neumann_max_rel_error"] <= 0.05


def test_loaded_q_is_found_for_a_broad_resonance():
    """The review's 2-turn case returned Q = 0 (its half-power points lay outside the sweep)."""
    ant = lambda w: network.antenna_z(w, 190e-9, 1.4)  # noqa: E731
    values = network.design(W, ant(W), 56e-9, 14.4e6, 15.0, 5.0)
    f, q = network.loaded_q(F, values, ant, 2.97, 5.0)
    assert 0.3 < q < 20 and 1e6 < f < 1e8
