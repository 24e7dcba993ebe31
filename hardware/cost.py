"""The tray's all-in cost, computed from the boards as built and placed and from dated price
tables: the parts (data/parts.toml), the bare boards by area and layers and their assembly by
joints, set-ups and unique parts (data/fab.toml), and what the table needs besides the boards.

    python hardware/cost.py            # the cost lines (markdown)
    python hardware/cost.py --json     # {"total_usd", "cells", "usd_per_cell", "usd_per_cell_1",
                                       #  "usd_per_cell_10", "lines": [...]}
    python hardware/cost.py --write    # refresh the generated totals in hardware/README.md
    python hardware/cost.py --prototype  # the first order: one cell board with one 2 x 2 block, the controller

Every figure is an estimate dated in the tables; fees charged once per order are spread over
fab.toml's trays_per_order.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORD = HERE / "data" / "cost.json"  # what design.py's report reads (it cannot import this module)
sys.path.insert(0, str(HERE))

import circuit  # noqa: E402
import kicad  # noqa: E402

FAB = tomllib.loads((HERE / "data" / "fab.toml").read_text())
PARTS = circuit.PARTS
TARGETS = {1: 2.5, 10: 1.5}  # issue 26: USD per cell all in, one tray alone and in orders of ten
BEGIN, END = "<!-- cost.py: begin -->", "<!-- cost.py: end -->"
# What the table needs besides the tray's boards: (parts.toml key, quantity).
TABLE = (("pi", 1), ("pi_psu", 1), ("sd_card", 1), ("oled", 1), ("button", 3), ("cover", 1), ("frame", 1))


def _line(item: str, qty: float, unit: float, source: str) -> dict:
    return {"item": item, "qty": qty, "unit_usd": round(unit, 4), "usd": round(qty * unit, 2), "source": source}


def board_stats(placed, net: kicad.Netlist) -> dict:
    """What the board house and the assembler charge by: area, layers, joints, unique parts."""
    smd = tht = 0
    unique, extended = set(), set()
    for p in placed.parts:
        comp = net.components[p.ref]
        key = comp.fields["Key"]
        if key == "antenna":
            continue
        pads = [pad for pad in kicad.footprint(p.footprint).pads if pad.number]
        tht += sum(pad.kind == "thru_hole" for pad in pads)
        smd += sum(pad.kind == "smd" for pad in pads)
        unique.add(key)
        if not PARTS[key].get("basic", False):
            extended.add(key)
    return {"area_cm2": placed.width * placed.height / 100, "layers": placed.layers, "smd_joints": smd,
            "tht_joints": tht, "unique_parts": len(unique), "extended_parts": len(extended),
            "placements": sum(1 for p in placed.parts if net.components[p.ref].fields["Key"] != "antenna")}


def cost(built: circuit.Built, per_order: int | None = None) -> dict:
    """The tray's cost, the fees of an order spread over `per_order` trays (fab.toml's by default)."""
    meta = FAB["meta"]
    per_order = per_order or meta["trays_per_order"]
    dated = f"fab.toml, {meta['source']}, {meta['date']}"
    counts = circuit.tray_counts()
    lines = []
    for name, count in counts.items():
        parts = sum(r["qty"] * r["unit_usd"] for r in built.boms[name])
        lines.append(_line(f"{name} board parts", count, parts,
                           f"parts.toml prices ({circuit.META['price_source']}, {circuit.META['price_date']})"))
    for name, count in counts.items():
        s = board_stats(built.placed[name], built.nets[name])
        pcb = FAB["pcb"][str(s["layers"])]
        boards = count * per_order
        unit = pcb["usd_per_cm2"] * s["area_cm2"] + pcb["setup_usd"] / boards
        lines.append(_line(f"{name} PCB, {built.placed[name].width:g} x {built.placed[name].height:g} mm, "
                           f"{s['layers']} layers", count, unit, dated))
        a = FAB["assembly"]
        fees = a["setup_usd"] + a["stencil_usd"] + a["extended_part_usd"] * s["extended_parts"]
        unit = a["usd_per_joint"] * s["smd_joints"] + a["tht_usd_per_joint"] * s["tht_joints"] + fees / boards
        lines.append(_line(f"{name} assembly, {s['placements']} placements, {s['smd_joints']} SMD + "
                           f"{s['tht_joints']} THT joints, {s['unique_parts']} unique parts "
                           f"({s['extended_parts']} extended)", count, unit, dated))
    lines.append(_line("shipping of the boards", 1, FAB["shipping"]["usd_per_order"] / per_order, dated))
    for key, qty in circuit.extras() + list(TABLE):
        spec = PARTS[key]
        lines.append(_line(f"{key}: {spec['mpn']}", qty, spec["unit_usd"],
                           f"parts.toml {key}: {spec['source']} ({circuit.META['price_date']})"))
    total = round(sum(line["usd"] for line in lines), 2)
    cells = circuit.wiring()["CELLS"]
    boards = {name: {"width_mm": b.width, "height_mm": b.height, **board_stats(b, built.nets[name])}
              for name, b in built.placed.items()}
    return {"total_usd": total, "cells": cells, "usd_per_cell": round(total / cells, 3),
            "target_usd_per_cell": TARGETS.get(per_order), "trays_per_order": per_order, "boards": boards,
            "lines": lines}


def costs(built: circuit.Built) -> dict:
    """fab.toml's order, with the cost per cell of one tray alone and of a tray in an order of ten."""
    result = cost(built)
    for n in TARGETS:
        result[f"usd_per_cell_{n}"] = cost(built, n)["usd_per_cell"]
    return result


def compute() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        built = circuit.generate(circuit.wiring(), Path(tmp))
    if built.faults:
        raise SystemExit("the boards have faults (python hardware/circuit.py --out DIR lists them):\n"
                         + "\n".join(built.faults))
    return costs(built)


def report(result: dict) -> str:
    verdict = "; ".join(f"{'met' if result[f'usd_per_cell_{n}'] <= t else 'NOT met'}: {result[f'usd_per_cell_{n}']:.2f} "
                        f"USD per cell for {n} tray{'s' if n > 1 else ''} (target {t})" for n, t in TARGETS.items())
    rows = ["| item | qty | unit USD | USD |", "|---|---|---|---|"]
    rows += [f"| {line['item']} | {line['qty']:g} | {line['unit_usd']:.3f} | {line['usd']:.2f} |"
             for line in result["lines"]]
    boards = "; ".join(f"{name}: {b['width_mm']:g} x {b['height_mm']:g} mm, {b['layers']} layers, "
                       f"{b['placements']} placements" for name, b in result["boards"].items())
    return "\n".join([
        f"All-in cost of one tray and its table electronics (`python hardware/cost.py`): "
        f"**{result['total_usd']:.2f} USD for {result['cells']} cells = {result['usd_per_cell']:.2f} USD per cell** "
        f"in orders of {result['trays_per_order']} trays ({verdict}); every price an estimate dated in "
        f"`data/parts.toml` and `data/fab.toml`. Boards: {boards}.",
        "", *rows])


PROTO_BEGIN, PROTO_END = "<!-- prototype: begin -->", "<!-- prototype: end -->"


def prototype_parts(built: circuit.Built) -> dict[str, set[str]]:
    """The references the first order assembles: the whole controller, and on the cell board its
    block 0 (one reader, its network, four coils' switches) with what every block shares."""
    cell = built.nets["cell"].components
    return {"controller": set(built.nets["controller"].components),
            "cell": {r for r, c in cell.items() if c.fields.get("Block", "0") == "0"}}


def prototype(built: circuit.Built) -> dict:
    """The first order's cost: one bare board of each design, each assembled once with the
    prototype's parts, the set-up fees of a single order, one parcel (fab.toml's rates)."""
    import copy

    meta, a = FAB["meta"], FAB["assembly"]
    dated = f"fab.toml, {meta['source']}, {meta['date']}"
    lines = []
    for name, refs in prototype_parts(built).items():
        net = built.nets[name]
        placed = copy.copy(built.placed[name])
        placed.parts = [p for p in placed.parts if p.ref in refs]
        parts = sum(PARTS[net.components[r].fields["Key"]]["unit_usd"] for r in refs)
        lines.append(_line(f"{name} board parts ({len(refs)} references)", 1, parts,
                           f"parts.toml prices ({circuit.META['price_source']}, {circuit.META['price_date']})"))
        s = board_stats(placed, net)
        pcb = FAB["pcb"][str(s["layers"])]
        lines.append(_line(f"{name} PCB, {placed.width:g} x {placed.height:g} mm, {s['layers']} layers", 1,
                           pcb["setup_usd"] + pcb["usd_per_cm2"] * s["area_cm2"], dated))
        fees = a["setup_usd"] + a["stencil_usd"] + a["extended_part_usd"] * s["extended_parts"]
        lines.append(_line(f"{name} assembly, {s['placements']} placements, {s['extended_parts']} extended parts", 1,
                           fees + a["usd_per_joint"] * s["smd_joints"] + a["tht_usd_per_joint"] * s["tht_joints"],
                           dated))
    lines.append(_line("shipping of the order", 1, FAB["shipping"]["usd_per_order"], dated))
    lines.append(_line(f"cable: {PARTS['cable']['mpn']}", 1, PARTS["cable"]["unit_usd"], "parts.toml cable"))
    return {"total_usd": round(sum(line["usd"] for line in lines), 2), "lines": lines}


def prototype_report(result: dict) -> str:
    rows = ["| item | qty | unit USD | USD |", "|---|---|---|---|"]
    rows += [f"| {line['item']} | {line['qty']:g} | {line['unit_usd']:.3f} | {line['usd']:.2f} |"
             for line in result["lines"]]
    return "\n".join([f"The first order (`python hardware/cost.py --prototype`): **{result['total_usd']:.2f} USD**, "
                      "every price an estimate dated in `data/parts.toml` and `data/fab.toml`.", "", *rows])


def compute_prototype() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        built = circuit.generate(circuit.wiring(), Path(tmp))
    return prototype(built)


def _refresh(doc: str, begin: str, end: str, text: str) -> str:
    start, stop = doc.index(begin) + len(begin), doc.index(end)
    return doc[:start] + "\n" + text + "\n" + doc[stop:]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the cost as JSON")
    parser.add_argument("--write", action="store_true",
                        help="refresh the generated blocks of hardware/README.md and data/cost.json")
    parser.add_argument("--prototype", action="store_true", help="the first order's cost")
    args = parser.parse_args(argv)
    result = compute_prototype() if args.prototype else compute()
    if args.json:
        print(json.dumps(result))
    elif args.write:
        path = HERE / "README.md"
        doc = _refresh(path.read_text(), BEGIN, END, report(result))
        path.write_text(_refresh(doc, PROTO_BEGIN, PROTO_END, prototype_report(compute_prototype())))
        RECORD.write_text(json.dumps(result, indent=1) + "\n")
    else:
        print(prototype_report(result) if args.prototype else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
