"""The order for a board house: each board built by circuit.py and placed by pcb.py, laid out in
pcbnew (layout.py), routed by the autorouter freeroute through pcbnew's Specctra DSN (route.py),
checked by KiCad's DRC under JLCPCB's rules, plotted (plot.py) and listed for assembly
(assembly.py), one zip per board.

    python hardware/fab.py --out DIR            # the zips from the committed routed boards
    python hardware/fab.py --out DIR --route    # route the boards again first (and commit them)

The routed boards are kept in hardware/boards/ as the autorouter left them: routing takes minutes
(measured in hardware/README.md), so the order is made from them, after checking that their
footprints and nets are still exactly what circuit.py and pcb.py make. A board that has drifted
from the schematic, or that KiCad's DRC faults, stops the order (exit 1, every fault listed).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import assembly  # noqa: E402
import circuit  # noqa: E402
import kicad  # noqa: E402
import layout  # noqa: E402
import plot  # noqa: E402
import route  # noqa: E402

BOARDS = HERE / "boards"
ENGINE = "exact"  # freeroute's engine the committed boards were routed with
DRC_LINE = re.compile(r"^\[(\w+)\]: (.*)$")


def drc(board, report: Path) -> dict:
    """KiCad's DRC of the board under its rules: every violation and every unconnected item, each
    as its report's lines joined (the rule, then the items with their nets)."""
    pcbnew = kicad.pcbnew()
    if not pcbnew.WriteDRCReport(board, str(report), pcbnew.EDA_UNITS_MILLIMETRES, True):
        raise RuntimeError(f"pcbnew could not write {report}")
    found: list[list[str]] = []
    for line in report.read_text().splitlines():
        if DRC_LINE.match(line):
            found.append([line])
        elif found and line.startswith("    "):
            found[-1].append(line.strip())
    unconnected = ["; ".join(f) for f in found if f[0].startswith("[unconnected_items]")]
    violations = ["; ".join(f) for f in found if not f[0].startswith("[unconnected_items]")]
    return {"violations": violations, "unconnected": unconnected}


def footprints(board) -> dict[str, tuple]:
    """What must not drift between the schematic's board and the routed one: each footprint's
    library part, place, side and turn, and every pad's net."""
    out = {}
    for fp in board.GetFootprints():
        pos = fp.GetPosition()
        pads = tuple(sorted((p.GetNumber(), p.GetNetname()) for p in fp.Pads()))
        out[fp.GetReference()] = (f"{fp.GetFPID().GetLibNickname()}:{fp.GetFPID().GetLibItemName()}", round(kicad.to_mm(pos.x), 4),
                                  round(kicad.to_mm(pos.y), 4), fp.IsFlipped(), fp.GetOrientationDegrees() % 360,
                                  pads)
    return out


def drift(routed, fresh) -> list[str]:
    """How the committed routed board differs from the board circuit.py and pcb.py make now."""
    a, b = footprints(routed), footprints(fresh)
    faults = [f"{r} is on the routed board but no longer in the circuit" for r in sorted(set(a) - set(b))]
    faults += [f"{r} is in the circuit but not on the routed board" for r in sorted(set(b) - set(a))]
    faults += [f"{r} differs: routed {a[r][:5]}, now {b[r][:5]}" + (" (pad nets differ)" if a[r][5] != b[r][5] else "")
               for r in sorted(set(a) & set(b)) if a[r] != b[r]]
    return faults


def route_board(name: str, built, work: Path, engine: str) -> list[dict]:
    """Lay the board out afresh, route it with freeroute's `engine`, and keep it in hardware/boards/."""
    board = layout.save(layout.build(name, built.nets[name], built.placed[name]), work / f"{name}.kicad_pcb")
    r, nc = layout.HOUSE["rules"], layout.HOUSE["netclass"]
    passes = route.plan(board, nc["clearance"], route.spacing(nc["track"], nc["clearance"], nc["via_diameter"]))
    report = route.route(board, work / f"{name}-route", engine, r["copper_edge_min"], nc["track"], passes, drc)
    BOARDS.mkdir(exist_ok=True)
    layout.save(board, BOARDS / f"{name}.kicad_pcb")
    return report


def order(name: str, built, out: Path, work: Path) -> tuple[Path | None, list[str], dict]:
    """One board's files in out/<board>/ (DRC report, gerbers, drill, BOM, CPL, pictures) and its
    zip for the house, which a fault withholds; the faults; counts."""
    fresh = layout.save(layout.build(name, built.nets[name], built.placed[name]), work / f"{name}-fresh.kicad_pcb")
    path = BOARDS / f"{name}.kicad_pcb"
    if not path.exists():
        return None, [f"{name}: no routed board in {path}: run python hardware/fab.py --route"], {}
    board = layout.load(path)
    faults = [f"{name}: {f}" for f in drift(board, fresh)]
    if faults:
        return None, faults + [f"{name}: the routed board is stale: run python hardware/fab.py --out DIR --route"], {}
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    checked = drc(board, folder / f"{name}-drc.rpt")
    faults += [f"{name}: DRC {v}" for v in checked["violations"] + checked["unconnected"]]
    gerbers = plot.gerbers(board, folder, name)
    drills = plot.drill(board, folder, name)
    bom, cpl = assembly.bom(board, built.nets[name]), assembly.cpl(board)
    faults += [f"{name}: {f}" for f in assembly.faults(bom, cpl)]
    assembly.write(bom, assembly.BOM_COLUMNS, folder / f"{name}-bom-jlcpcb.csv")
    assembly.write(cpl, assembly.CPL_COLUMNS, folder / f"{name}-cpl-jlcpcb.csv")
    pictures = [plot.render(gerbers, drills, folder / f"{name}-{side}.png", side) for side in ("top", "bottom")]
    stats = {"tracks": sum(1 for t in board.GetTracks() if t.Type() == kicad.pcbnew().PCB_TRACE_T),
             "vias": sum(1 for t in board.GetTracks() if t.Type() == kicad.pcbnew().PCB_VIA_T),
             "violations": len(checked["violations"]), "unconnected": len(checked["unconnected"]),
             "bom_lines": len(bom), "placements": len(cpl), "pictures": [p.name for p in pictures],
             "unsourced": assembly.unsourced(bom)}
    if faults:
        return None, faults, stats
    revision = layout.ASSEMBLY["revision"]
    fab_zip = out / f"dominotable-{name}-rev{revision}-gerbers.zip"
    with zipfile.ZipFile(fab_zip, "w", zipfile.ZIP_DEFLATED) as z:
        for f in gerbers + drills:
            z.write(f, f.name)
    return fab_zip, [], stats


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the zips and the per-board files")
    parser.add_argument("--route", action="store_true", help="route the boards again into hardware/boards/ first")
    parser.add_argument("--engine", choices=tuple(route.ENGINES), default=ENGINE,
                        help=f"freeroute's engine for --route (default {ENGINE}: hardware/README.md compares them)")
    parser.add_argument("--board", choices=("cell", "controller"), action="append",
                        help="only this board (repeatable; default: both)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    names = args.board or ["cell", "controller"]
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        built = circuit.generate(circuit.wiring(), work / "circuit")
        if built.faults:
            print("\n".join(built.faults), file=sys.stderr)
            return 1
        if args.route:
            for name in names:
                for report in route_board(name, built, work, args.engine):
                    print(f"{name}: routed {report}")
        faults = []
        for name in names:
            made, found, stats = order(name, built, args.out, work)
            faults += found
            gaps = stats.pop("unsourced", [])
            print(f"{name}: {made or 'no zip (faults below)'} ({stats})")
            if gaps:
                print(f"{name}: {len(gaps)} BOM line(s) without an LCSC number (no source found yet: pick them "
                      f"in the house's part search when ordering): {'; '.join(gaps)}")
    print(f"written to {args.out} in {time.monotonic() - started:.0f} s")
    if faults:
        print("\n".join(faults), file=sys.stderr)
        print(f"{len(faults)} fault(s): no zip for the faulty boards", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
