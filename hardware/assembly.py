"""The house's assembly files for a routed board, from its footprints in pcbnew: JLCPCB's BOM
(Comment, Designator, Footprint, LCSC) and CPL (Designator, Mid X, Mid Y, Layer, Rotation).

What KiCad's exclude-from-BOM and exclude-from-position attributes mark (data/assembly.toml
[hand], the fiducials, the etched loops) stays out of both. Every line's LCSC number comes from
data/assembly.toml [lcsc], each with its source; the rotation corrections between KiCad's
footprints and the house's library are data too ([rotation]). Positions are those of the gerbers
(mm, y up); a bottom part's turn is corrected the other way, as seen through the board.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

import kicad
import layout

BOM_COLUMNS = ["Comment", "Designator", "Footprint", "LCSC"]
CPL_COLUMNS = ["Designator", "Mid X", "Mid Y", "Layer", "Rotation"]
LCSC = re.compile(r"^C\d+$")


def assembled(fp) -> bool:
    pcbnew = kicad.pcbnew()
    return not fp.GetAttributes() & (pcbnew.FP_EXCLUDE_FROM_BOM | pcbnew.FP_EXCLUDE_FROM_POS_FILES)


def _key(fp, net) -> str:
    return net.components[fp.GetReference()].fields["Key"]


def _order(ref: str) -> tuple[str, int]:
    prefix = ref.rstrip("0123456789")
    return prefix, int(ref[len(prefix):] or 0)


def lcsc(key: str) -> str:
    """The LCSC number of a parts.toml entry, or "" while none is recorded with its source."""
    return layout.ASSEMBLY["lcsc"].get(key, {}).get("lcsc", "")


def correction(footprint: str) -> float:
    """The house's turn of a KiCad footprint (the first pattern of [rotation] that matches)."""
    name = footprint.split(":")[-1]
    for rule in layout.ASSEMBLY["rotation"]["rules"]:
        if re.match(rule[0], name):
            return float(rule[1])
    return 0.0


def bom(board, net) -> list[dict]:
    groups: dict[str, list] = defaultdict(list)
    for fp in board.GetFootprints():
        if assembled(fp):
            groups[_key(fp, net)].append(fp)
    rows = []
    for key, fps in groups.items():
        refs = sorted((fp.GetReference() for fp in fps), key=_order)
        fp = fps[0]
        rows.append({"Comment": f"{fp.GetValue()} {fp.GetProperty('MPN')}".strip(), "Designator": ",".join(refs),
                     "Footprint": str(fp.GetFPID().GetLibItemName()), "LCSC": lcsc(key)})
    return sorted(rows, key=lambda r: _order(r["Designator"].split(",")[0]))


def cpl(board) -> list[dict]:
    rows = []
    for fp in board.GetFootprints():
        if not assembled(fp):
            continue
        bottom = fp.IsFlipped()
        turn = correction(str(fp.GetFPID().GetLibItemName()))
        angle = (fp.GetOrientationDegrees() + (-turn if bottom else turn)) % 360
        pos = fp.GetPosition()
        rows.append({"Designator": fp.GetReference(), "Mid X": f"{kicad.to_mm(pos.x):.4f}",
                     "Mid Y": f"{-kicad.to_mm(pos.y):.4f}", "Layer": "Bottom" if bottom else "Top",
                     "Rotation": f"{angle:g}"})
    return sorted(rows, key=lambda r: _order(r["Designator"]))


def write(rows: list[dict], columns: list[str], path: Path) -> Path:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


def unsourced(bom_rows: list[dict]) -> list[str]:
    """The BOM lines with no LCSC number yet: the house's part search picks them at ordering."""
    return [f"{r['Comment']} ({r['Designator']})" for r in bom_rows if not r["LCSC"]]


def faults(bom_rows: list[dict], cpl_rows: list[dict]) -> list[str]:
    """Every LCSC number well formed, every placed designator in the BOM and back."""
    out = [f"BOM line {r['Designator']} has a malformed LCSC number {r['LCSC']!r}" for r in bom_rows
           if r["LCSC"] and not LCSC.match(r["LCSC"])]
    in_bom = {d for r in bom_rows for d in r["Designator"].split(",")}
    placed = {r["Designator"] for r in cpl_rows}
    out += [f"{d} is placed but not in the BOM" for d in sorted(placed - in_bom)]
    out += [f"{d} is in the BOM but not placed" for d in sorted(in_bom - placed)]
    return out
