"""The tray's mechanics as CAD (hardware/mechanics.py): the cover, the frame, the jig and the picture
written, and one value for every dimension the RF model (design.py), the BOM (circuit.py's tray BOM),
the boards (boards.toml) and the CAD share: a test fails when any two disagree (issue 26)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import ezdxf
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
HW = ROOT / "hardware"
sys.path.insert(0, str(HW))

import circuit  # noqa: E402
import design  # noqa: E402
import dimensions  # noqa: E402
from mechanics import SHARED  # noqa: E402


@pytest.fixture(scope="module")
def cad(tmp_path_factory):
    out = tmp_path_factory.mktemp("mechanics")
    run = subprocess.run([sys.executable, str(HW / "mechanics.py"), "--out", str(out)], capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1]), out


def disagreements(model: dict, cad: dict, bom: dict, holes: list) -> list[str]:
    """Every shared dimension that two of its users give differently."""
    out = [f"{k}: the RF model has {model[k]}, the CAD {cad[k]}" for k in SHARED if abs(model[k] - cad[k]) > 1e-6]
    out += [f"{k}: the BOM has {bom[k]}, the CAD {cad[k]}" for k in bom if abs(bom[k] - cad[k]) > 1e-6]
    if sorted(map(tuple, cad["holes"])) != sorted(holes):
        out.append("the standoffs stand where the boards have no holes")
    return out


def bom_dimensions() -> dict:
    """What the BOM's and the cost's lines (circuit.PARTS, filled) say of the shared dimensions."""
    parts = circuit.PARTS
    tag = re.search(r"([\d.]+) mm", parts["tag"]["mpn"])
    cover = re.search(r"sheet ([\d.]+) mm opal, ([\d.]+) x ([\d.]+) mm", parts["cover"]["mpn"])
    standoff = re.search(r"M2 x ([\d.]+) mm", parts["standoff"]["mpn"])
    return {"tag_mm": float(tag[1]), "cover_mm": float(cover[1]), "cover_w_mm": float(cover[2]),
            "cover_h_mm": float(cover[3]), "standoff_mm": float(standoff[1]),
            "dimples": float(re.search(r"(\d+) dimples", parts["cover"]["description"])[1])}


def test_the_files_are_written(cad):
    _, out = cad
    for name in ("cover", "frame", "jig", "assembly"):
        assert (out / f"{name}.step").read_text().startswith("ISO-10303-21;"), name
    cover = ezdxf.readfile(out / "cover.dxf").modelspace()
    layers = {}
    for entity in cover:
        layers.setdefault(entity.dxf.layer, []).append(entity)
    assert len(layers["ENGRAVE"]) == len(dimensions.cell_centres()) == 194  # a dimple over every cell
    assert len(layers["POCKET"]) == 2 and len(layers["CUT"]) == 1 + len(
        [s for spots in dimensions.CONTROLLER["fixed"].values() for s in spots]) + 4  # outline, cut-outs, screws
    frame = ezdxf.readfile(out / "frame.dxf").modelspace()
    assert sum(1 for e in frame if e.dxftype() == "CIRCLE") == len(dimensions.holes())
    jig = ezdxf.readfile(out / "jig.dxf").modelspace()
    pockets = [e for e in jig if e.dxftype() == "CIRCLE"]
    assert len(pockets) == 2 and {round(2 * e.dxf.radius, 3) for e in pockets} == {dimensions.tag_pocket_mm()}
    with Image.open(out / "assembly.png") as picture:
        assert picture.size == (1400, 1000) and len(picture.getcolors(1 << 16) or []) > 50


def test_every_shared_dimension_has_one_value(cad):
    measured, _ = cad
    model = design.summary()
    holes = [tuple(round(v, 3) for v in h) for h in dimensions.holes()]
    assert disagreements(model, measured, bom_dimensions(), holes) == []
    assert measured["dimples"] == len(dimensions.cell_centres())
    # and two that disagree are caught, whichever the two
    assert disagreements({**model, "cover_mm": 1.5}, measured, bom_dimensions(), holes) == [
        "cover_mm: the RF model has 1.5, the CAD 3.0"]
    assert disagreements(model, {**measured, "dimple_mm": 14.0}, bom_dimensions(), holes)
    assert disagreements(model, measured, {**bom_dimensions(), "standoff_mm": 8.0}, holes) == [
        "standoff_mm: the BOM has 8.0, the CAD 16.0"]
    assert disagreements(model, measured, bom_dimensions(), holes[1:] + [(0.0, 0.0)])


def test_the_last_line_is_design_pys_shared_keys(cad):
    measured, _ = cad
    model = design.summary()
    assert {k: measured[k] for k in SHARED} == {k: model[k] for k in SHARED}
