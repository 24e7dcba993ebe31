"""Every operating point of the tray against its parts' ratings (data/ratings.toml, each with its
data sheet and section): the coil switch's current and signal range, each reader's TVDD and
supply, the tag's field, the LEDs' supply and data level at the brightness cap (wiring.toml
[lights]), each rail's total, the polyfuse, the TVS against the supply's tolerance, the buck and
the supplies; at nominal and worst-case tolerances. An operating point may reach at most
(1 - headroom) of its absolute maximum (20 % of the maximum left unused); a recommended range
must hold it.

    python hardware/ratings.py           # the checks, one a line
    python hardware/ratings.py --json    # {"checked": N, "violations": [...], "checks": [...]} on the last line

circuit.py runs it with its checks: a violation is a fault of the boards.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import design  # noqa: E402

R = design.RATINGS
HEADROOM = R["meta"]["headroom"]


def _check(part, what, case, value, limit, kind, unit, below=True):
    """One operating point against one limit: 'abs' (at most (1 - headroom) of it) or 'rec' (within)."""
    spec = R[part]
    need = limit * (1 - HEADROOM) if kind == "abs" and below else limit
    ok = value <= need if below else value >= need
    section = spec.get(f"{kind}_section", spec.get("rec_section", ""))
    return {"part": spec["part"], "check": what, "case": case, "value": round(value, 4), "limit": round(limit, 4),
            "kind": kind, "unit": unit, "ok": ok, "found": spec.get("found", spec.get(f"found_{kind}", True)),
            "source": f"{spec['document']} ({spec['revision']}), {section}".rstrip(", ")}


def checks() -> list[dict]:
    name = design.chosen()
    rf = design.rf_design(name)
    p = design.power(name)
    out = []
    sw, rd, tag, led, sup = R["coil_switch"], R["reader"], R["tag"], R["led"], R["supply"]
    v5 = design.supply_v()
    vsw = design.switch_rail()
    tx = design.TX
    v3 = {"nominal": tx["tvdd_v"], "worst high": tx["tvdd_v"] * (1 + tx["tvdd_tol"]),
          "worst low": tx["tvdd_v"] * (1 - tx["tvdd_tol"])}
    # the coil switch: its current, its pins' voltages on its own rail, its control input
    for case, i_rms, v_pk in (("nominal", rf["nominal"]["i_coil"], rf["v_coil_pk"]),
                              ("worst", rf["worst"]["i_max"], rf["v_coil_pk_worst"])):
        peak = i_rms * math.sqrt(2) * 1000
        out.append(_check("coil_switch", "coil switch on-state current (peak of the carrier)", case, peak,
                          sw["abs"]["on_current_ma"], "abs", "mA"))
        out.append(_check("coil_switch", "coil switch on-state current, pulsed rating", case, peak,
                          sw["abs"]["on_peak_current_ma"], "abs", "mA"))
        for vcase in ("worst high", "worst low") if case == "worst" else ("nominal",):
            bias = vsw[vcase] / 2
            out.append(_check("coil_switch", "NO/NC/COM high swing (bias + half the coil's peak)", f"{case}, V+ {vcase}",
                              bias + v_pk / 2, vsw[vcase], "rec", "V"))
            out.append(_check("coil_switch", "NO/NC/COM low swing (bias - half the coil's peak)", f"{case}, V+ {vcase}",
                              bias - v_pk / 2, 0.0, "rec", "V", below=False))
            out.append(_check("coil_switch", "NO/NC/COM over V+ (the rating: V+ + 0.5 V)", f"{case}, V+ {vcase}",
                              bias + v_pk / 2 - vsw[vcase], sw["abs"]["analog_over_supply_v"], "abs", "V"))
    for vcase in ("nominal", "worst high"):
        out.append(_check("coil_switch", "V+ (the block's switch rail)", vcase, vsw[vcase], sw["abs"]["supply_v"][1],
                          "abs", "V"))
        out.append(_check("coil_switch", "V+ within its operating range", vcase, vsw[vcase], sw["rec"]["supply_v"][1],
                          "rec", "V"))
        out.append(_check("coil_switch", "IN high (the 74HC139's output at 3.3 V) within its range", vcase, v3[vcase],
                          sw["rec"]["input_v"][1], "rec", "V"))
    out.append(_check("coil_switch", "V+ within the range the control thresholds are given for", "worst low",
                      vsw["worst low"], sw["vplus_table_v"][0], "rec", "V", below=False))
    dec = R["decoder_out"]
    out.append(_check("coil_switch", "IN high: the 74HC139's VOH against VIH", "worst low",
                      v3["worst low"] - dec["voh_drop_v"], sw["vih_v"], "rec", "V", below=False))
    out.append(_check("coil_switch", "IN low: the 74HC139's VOL against VIL", "worst", dec["vol_v"], sw["vil_v"],
                      "rec", "V"))
    # the reader
    for case, tvdd in (("nominal", rf["supply_ma"]), ("worst", rf["worst"]["tvdd_ma_max"])):
        out.append(_check("reader", "TVDD current while scanning", case, tvdd, rd["rec"]["tvdd_ma"], "rec", "mA"))
    for vcase in ("nominal", "worst high"):
        out.append(_check("reader", "VDDA/VDDD/TVDD (the 3.3 V rail)", vcase, v3[vcase], rd["rec"]["supply_v"][1],
                          "rec", "V"))
    out.append(_check("reader", "VDDA/VDDD/TVDD (the 3.3 V rail), low", "worst low", v3["worst low"],
                      rd["rec"]["supply_v"][0], "rec", "V", below=False))
    out.append(_check("reader", "ambient inside the table", "design", design.AMBIENT_C, rd["rec"]["ambient_c"][1],
                      "rec", "C"))
    # the tag's field: the face-down read and the ceiling
    out.append(_check("tag", "field at the tag, worst high corner (ISO Hmax)", "worst", rf["h_max_worst"],
                      tag["abs"]["field_a_per_m"], "abs", "A/m"))
    out.append(_check("tag", "face-down margin over Hmin at the worst cell", "worst", rf["margin_worst"],
                      design.TAG["margin_min"], "rec", "x", below=False))
    out.append(_check("tag", "a neighbour's tag, share of Hmin", "worst", rf["neighbour_worst"],
                      design.TAG["neighbour_max"], "rec", "x"))
    # the LEDs at the cap
    cap = design.WIRING["lights"]["brightness"]
    per_channel = led["max"]["channel_ma"] * cap / 255
    out.append(_check("led", f"one colour's current at the cap ({cap}/255)", "worst", per_channel,
                      led["max"]["channel_ma"], "rec", "mA"))
    for vcase in ("nominal", "worst high"):
        out.append(_check("led", "VDD (the 5 V rail)", vcase, v5[vcase], led["rec"]["supply_v"][1], "rec", "V"))
    out.append(_check("led", "VDD (the 5 V rail), low", "worst low", v5["worst low"], led["rec"]["supply_v"][0], "rec",
                      "V", below=False))
    buf = R["led_buffer"]
    for vcase in ("nominal", "worst low"):
        out.append(_check("led", "data in high: the buffer's output against 0.7 VDD", vcase,
                          buf["voh_v"] * v5[vcase] / 5.0, led["vih_ratio"] * v5["worst high"], "rec", "V", below=False))
    out.append(_check("led_buffer", "input high: the RP2040's 3.3 V against the AHCT's VIH", "worst low",
                      v3["worst low"], buf["rec"]["vih_v"], "rec", "V", below=False))
    for vcase in ("nominal", "worst high", "worst low"):
        out.append(_check("led_buffer", "VCC (the 5 V rail)", vcase, v5[vcase],
                          buf["rec"]["supply_v"][1 if vcase != "worst low" else 0], "rec", "V",
                          below=vcase != "worst low"))
    # the rails: the 5 V supply, the polyfuse, the buck, the TVS
    fuse, buck, tvs = R["polyfuse"], R["buck"], R["tvs"]
    for case, tot in (("idle, typical", p["idle_typ"]), ("idle, worst", p["idle_worst"]),
                      ("peak: a scan and every LED white at the cap, typical", p["peak_typ"]),
                      ("peak: a scan and every LED white at the cap, worst", p["peak_worst"])):
        out.append(_check("polyfuse", "the 5 V input's current against the hold current", case, tot["a_5v"],
                          fuse["abs"]["hold_a"], "abs", "A"))
        out.append(_check("supply", "the adapter's output current", case, tot["a_5v"], sup["rec"]["output_a"],
                          "abs" if False else "rec", "A"))
        out.append(_check("buck", "the 3.3 V rail's current", case, tot["rail_3v3_ma"] / 1000, buck["rec"]["output_a"],
                          "rec", "A"))
    for vcase in ("nominal", "worst high"):
        out.append(_check("polyfuse", "the supply's voltage against V max", vcase, v5[vcase], fuse["abs"]["voltage_v"],
                          "abs", "V"))
        out.append(_check("tvs", "the supply against the TVS's stand-off (no conduction)", vcase, v5[vcase],
                          tvs["rec"]["standoff_v"], "rec", "V"))
        out.append(_check("buck", "VIN", vcase, v5[vcase], buck["rec"]["input_v"][1], "rec", "V"))
    out.append(_check("buck", "VIN, low", "worst low", v5["worst low"], buck["rec"]["input_v"][0], "rec", "V",
                      below=False))
    return out


def result() -> dict:
    found = checks()
    bad = [f"{c['part']}: {c['check']} ({c['case']}) is {c['value']} {c['unit']}, limit {c['limit']} ({c['kind']})"
           for c in found if not c["ok"]]
    return {"checked": len(found), "violations": bad, "chosen": design.chosen(), "checks": found}


def faults() -> list[str]:
    """circuit.py's view: every violation as a fault sentence."""
    return [f"ratings: {v}" for v in result()["violations"]]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="every check as JSON on the last line")
    args = parser.parse_args(argv)
    res = result()
    if args.json:
        print(json.dumps(res))
    else:
        for c in res["checks"]:
            mark = "ok " if c["ok"] else "BAD"
            print(f"{mark} {c['part']}: {c['check']} ({c['case']}): {c['value']} {c['unit']} vs {c['kind']} "
                  f"{c['limit']}{'' if c['found'] else ' (conservative reading: not in the stored material)'}")
        print(f"{res['checked']} checked, {len(res['violations'])} violation(s)")
    return 1 if res["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
