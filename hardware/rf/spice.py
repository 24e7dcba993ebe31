"""The RF model cross-checked by a real circuit simulator: the chosen design's reader output stage
(two antiphase drivers with their resistance), EMC filter, matching network, the coil switch's
on-resistance and the coil, balanced as placed on the board, simulated in ngspice (Debian's
`ngspice`, through InSpice's subprocess mode) against rf/network.py's differential equivalent, at
nominal and corner values: coil current, the impedance the drivers see, and the loaded Q. Then the
closed-form loop inductance and coupling (rf/loops.py, concentric squares) against Neumann's
integral over the loop's actual copper, the footprint's own path.

    python hardware/rf/spice.py --json   # {"simulator": "ngspice-...", "cases": [...], "max_rel_error": e, ...}
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import design  # noqa: E402
import kicad  # noqa: E402
import pcb  # noqa: E402

from rf import loops as L  # noqa: E402
from rf import network as N  # noqa: E402
from rf import window as W  # noqa: E402

PACKAGE = "ngspice"


class MissingSimulator(RuntimeError):
    pass


def version() -> str:
    exe = shutil.which("ngspice")
    if exe is None:
        raise MissingSimulator("ngspice is not installed: install the Debian package ngspice "
                               "(apt-get install ngspice); .ci/run does when it is missing")
    out = subprocess.run([exe, "-v"], capture_output=True, text=True, input="").stdout
    found = re.search(r"ngspice-(\S+)", out)
    return f"ngspice-{found.group(1) if found else 'unknown'}"


def deck(values, l_coil, r_cu, r_on, r_tx, v_diff, f0, data):
    """The balanced network as placed, as an ngspice deck: TX1 and TX2 in antiphase (each half the
    differential fundamental), each through its driver resistance, L0, C0 to ground, series C1, C2
    to ground; the coil between the two antenna nodes, its switched end through the switch's
    on-resistance, its current through a 0 V source; an AC sweep written to `data`."""
    lines = [".title reader output stage",
             f"Vtx1 s1 0 DC 0 AC {v_diff / 2:.9g}", f"Vtx2 s2 0 DC 0 AC {v_diff / 2:.9g} 180"]
    for side in ("1", "2"):
        lines += [f"Rtx{side} s{side} d{side} {r_tx:.9g}", f"L0{side} d{side} e{side} {values['l0']:.9g}",
                  f"C0{side} e{side} 0 {values['c0']:.9g}", f"C1{side} e{side} a{side} {values['c1']:.9g}",
                  f"C2{side} a{side} 0 {values['c2']:.9g}"]
    lines += [f"Ron a1 sw {r_on:.9g}", f"Rcu sw lc {r_cu:.9g}", f"Lcoil lc m {l_coil:.9g}", "Vsense m a2 DC 0",
              ".control", f"ac dec 400 {f0 / 20:.9g} {f0 * 20:.9g}",
              f"wrdata {data} i(vsense) i(vtx1) v(d1) v(d2)", ".endc", ".end"]
    return "\n".join(lines) + "\n"


def simulate(values, l_coil, r_cu, r_on, r_tx, v_diff, f0):
    """(coil current A rms, |Z| the drivers see, loaded Q) from an AC sweep in ngspice (batch mode,
    a subprocess: InSpice's own ngspice modules do not import on Python 3.11)."""
    version()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "ac.txt"
        (Path(tmp) / "deck.cir").write_text(deck(values, l_coil, r_cu, r_on, r_tx, v_diff, f0, data))
        run = subprocess.run([shutil.which("ngspice"), "-b", str(Path(tmp) / "deck.cir")], capture_output=True,
                             text=True, timeout=120)
        if not data.exists():  # (batch mode exits 1 for want of a .print line: the data says whether it ran)
            raise RuntimeError(f"ngspice failed: {run.stdout[-500:]} {run.stderr[-500:]}")
        rows = [list(map(float, line.split())) for line in data.read_text().splitlines() if line.strip()]
    # wrdata: for each vector, its scale (frequency) then its real and imaginary parts
    freqs = [r[0] for r in rows]
    coil = [abs(complex(r[1], r[2])) for r in rows]
    i_tx = [complex(r[4], r[5]) for r in rows]
    d1 = [complex(r[7], r[8]) for r in rows]
    d2 = [complex(r[10], r[11]) for r in rows]
    k = min(range(len(freqs)), key=lambda j: abs(freqs[j] - f0))
    z_in = abs((d1[k] - d2[k]) / i_tx[k])
    peak = max(range(len(freqs)), key=lambda j: coil[j])
    half = coil[peak] / math.sqrt(2)
    lo = next(j for j in range(peak, -1, -1) if coil[j] < half)
    hi = next(j for j in range(peak, len(freqs)) if coil[j] < half)

    def cross(a, b):  # linear interpolation of the half-power frequency between two points
        return freqs[a] + (half - coil[a]) * (freqs[b] - freqs[a]) / (coil[b] - coil[a])

    q = freqs[peak] / (cross(hi - 1, hi) - cross(lo + 1, lo))
    return coil[k] / math.sqrt(2), z_in, q  # the AC magnitude is a peak: rms as the hand model's


def cases() -> list[dict]:
    """The chosen design at its scanning drive: nominal, each corner of the drivers' resistance,
    and the capacitors and L0 at their tolerance's ends."""
    name = design.chosen()
    r = design.rf_design(name)
    c = design.coil(name)
    tx = design.TX
    net = design.RF["network"]
    scale = r["drive"] / design.M.DRIVE_MAX
    v = design.V_TX * scale
    r_on = design.RF["switch"]["r_on_ohm"]
    out = []
    corners = [("nominal", 1.0, 1.0, tx["r_out_ohm"]),
               ("drivers at their lowest resistance", 1.0, 1.0, tx["r_out_min_ohm"]),
               ("drivers at their highest resistance", 1.0, 1.0, tx["r_out_max_ohm"]),
               ("capacitors and L0 low", 1 - net["tol_c"], 1 - net["tol_l0"], tx["r_out_ohm"]),
               ("capacitors and L0 high", 1 + net["tol_c"], 1 + net["tol_l0"], tx["r_out_ohm"])]
    for label, c_s, l_s, r_tx in corners:
        values = {k: x * (l_s if k == "l0" else c_s) for k, x in r["e12"].items()}

        def ant(w):
            return N.antenna_z(w, c["l"], c["r_loop"])

        hand = N.solve(design.OMEGA, values, ant, v, r_tx)
        _, q_hand = N.loaded_q(design.F, values, ant, v, r_tx)
        i_sim, z_sim, q_sim = simulate(values, c["l"], c["r_loop"] - r_on, r_on, r_tx, v * math.sqrt(2), design.F)
        errors = {"i_coil": abs(i_sim / hand["i_coil"] - 1), "z_in": abs(z_sim / abs(hand["z_in"]) - 1),
                  "q": abs(q_sim / q_hand - 1)}
        out.append({"case": label, "i_coil_a": [round(hand["i_coil"], 5), round(i_sim, 5)],
                    "z_in_ohm": [round(abs(hand["z_in"]), 3), round(z_sim, 3)],
                    "loaded_q": [round(q_hand, 3), round(q_sim, 3)], "rel_error": {k: round(e, 4) for k, e in errors.items()}})
    return out


def footprint_loop(centre=(0.0, 0.0)):
    """The loop's copper as its footprint draws it (the trace centre lines), in metres."""
    fp = kicad.footprint(pcb.loop_footprint())
    mm = 1e-3
    segs = []
    for item in kicad.children(fp.node, "fp_line"):
        if kicad.child(item, "layer")[1] != "F.Cu":
            continue
        a, b = kicad.child(item, "start"), kicad.child(item, "end")
        segs.append(((float(a[1]) * mm + centre[0], float(a[2]) * mm + centre[1], 0.0),
                     (float(b[1]) * mm + centre[0], float(b[2]) * mm + centre[1], 0.0)))
    return segs


def neumann_check() -> dict:
    """The closed forms (Greenhouse's inductance of concentric squares, and their mutual
    inductance) against Neumann's integral over the footprint's own copper path: self-inductance
    with each segment's own term from its bar (the integral diverges on a filament itself) and every
    other pair by quadrature; the coupling to an edge neighbour by quadrature alone."""
    name = design.chosen()
    c = design.coil(name)
    spec = c["spec"]
    w, t = spec["trace_mm"] * 1e-3, design.RF["tray"]["copper_um"] * 1e-6
    copper = footprint_loop()
    own = sum(L.bar_self(math.dist(a, b), w, t) for a, b in copper)
    own += sum(L.neumann([s], [u], 32) for i, s in enumerate(copper) for j, u in enumerate(copper)
               if i != j and not _touch(s, u))
    pitch = design.PITCH * 1e-3
    mutual = L.neumann(copper, footprint_loop((pitch, 0.0)), 16)
    closed_l = L.inductance(copper, w, t)  # Greenhouse's closed form over the same copper
    closed_m = L.mutual(copper, footprint_loop((pitch, 0.0)))
    squares = c["m"][W.CENTRE][W.CENTRE]  # the model's concentric squares (no corner opening)
    return {"inductance_nh": [round(closed_l * 1e9, 2), round(own * 1e9, 2)],
            "edge_mutual_nh": [round(closed_m * 1e9, 3), round(mutual * 1e9, 3)],
            "model_squares_nh": round(squares * 1e9, 2),
            "model_squares_over_copper": round(squares / own - 1, 4),
            "rel_error": {"inductance": round(abs(closed_l / own - 1), 4), "mutual": round(abs(closed_m / mutual - 1), 4)}}


def _touch(s, u):
    """Two segments that share an end (consecutive ones of the path: perpendicular, no mutual)."""
    return any(math.dist(p, q) < 1e-9 for p in s for q in u)


def result() -> dict:
    runs = cases()
    neumann = neumann_check()
    return {"simulator": version(), "chosen": design.chosen(), "cases": runs,
            "max_rel_error": max(e for r in runs for e in r["rel_error"].values()), "neumann": neumann,
            "neumann_max_rel_error": max(neumann["rel_error"].values())}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="every case as JSON on the last line")
    args = parser.parse_args(argv)
    try:
        res = result()
    except MissingSimulator as e:
        print(e, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(res))
    else:
        for r in res["cases"]:
            print(f"{r['case']}: coil {r['i_coil_a']} A, Z {r['z_in_ohm']} ohm, Q {r['loaded_q']} (hand, ngspice)")
        print(f"{res['simulator']}: max relative error {res['max_rel_error']:.4f}; Neumann {res['neumann']}")
    return 0 if res["max_rel_error"] <= 0.10 and res["neumann_max_rel_error"] <= 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
