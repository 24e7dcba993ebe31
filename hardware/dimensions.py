"""The tray's shared dimensions, one value each (data/mechanics.toml, data/boards.toml, tray.toml),
and what follows from them in the tray's frame: where each board lies, every mounting hole, the
cover's outline, the cells' centres. The RF model (design.py), the placement (pcb.py), the BOM
(circuit.py fills parts.toml's {fields} with bom_fields()) and the CAD (mechanics.py) all read
them here.

The tray's frame: mm from the grid's far-left corner, x to the right, y towards the players (a
board's own frame turned the same way, as KiCad draws it from the top).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _toml(name):
    return tomllib.loads((HERE / name).read_text())


MECH = _toml("data/mechanics.toml")
BOARDS = _toml("data/boards.toml")
TRAY = _toml("tray.toml")
PITCH = float(TRAY["tray"]["cell_pitch_mm"])
COLS, ROWS = TRAY["tray"]["columns"], TRAY["tray"]["rows"]
CELL = BOARDS["cell"]
CONTROLLER = BOARDS["controller"]
BOARD_MM = _toml("data/rf.toml")["tray"]["board_mm"]  # the boards' FR4, between the loops and the parts


def tag_pocket_mm() -> float:
    """The pocket a tag goes into, milled from a tile's back face to its mid-thickness."""
    return MECH["tag"]["diameter_mm"] + 2 * MECH["tile"]["pocket_play_mm"]


def cell_boards() -> list[tuple[float, float]]:
    """Each cell board's top-left corner, in bank order (rows of boards from the far-left)."""
    across, deep = int(COLS * PITCH // CELL["width_mm"]), int(ROWS * PITCH // CELL["height_mm"])
    return [(c * CELL["width_mm"], r * CELL["height_mm"]) for r in range(deep) for c in range(across)]


def controller_at() -> tuple[float, float]:
    """The controller's top-left corner: centred below the grid."""
    return ((COLS * PITCH - CONTROLLER["width_mm"]) / 2, ROWS * PITCH + MECH["layout"]["controller_gap_mm"])


def holes() -> list[tuple[float, float]]:
    """Every board's mounting holes: the frame's standoffs stand under them."""
    out = [(x + hx, y + hy) for x, y in cell_boards() for hx, hy in CELL["holes"]]
    cx, cy = controller_at()
    return out + [(cx + hx, cy + hy) for hx, hy in CONTROLLER["holes"]]


def boards_extent() -> tuple[float, float, float, float]:
    cx, cy = controller_at()
    return (min(0.0, cx), 0.0, max(COLS * PITCH, cx + CONTROLLER["width_mm"]), cy + CONTROLLER["height_mm"])


def cover_outline() -> tuple[float, float, float, float]:
    """The cover: the boards' extent and its margin all round (x0, y0, x1, y1)."""
    m = MECH["cover"]["margin_mm"]
    x0, y0, x1, y1 = boards_extent()
    return (x0 - m, y0 - m, x1 + m, y1 + m)


def pad_centres() -> list[tuple[float, float]]:
    """The scan pad's cells' centres."""
    cx, cy = controller_at()
    px, py = CONTROLLER["pad_at_mm"]
    return [(cx + px + (k + 0.5) * PITCH, cy + py + PITCH / 2) for k in range(len(TRAY["scan_pad"]["cells"]))]


def cell_centres() -> list[tuple[float, float]]:
    """Every cell's centre, in cell order: the grid row-major, then the scan pad."""
    grid = [((c + 0.5) * PITCH, (r + 0.5) * PITCH) for r in range(ROWS) for c in range(COLS)]
    return grid + pad_centres()


def bom_fields() -> dict[str, float]:
    """The dimensions parts.toml's lines name: filled into their {fields}."""
    x0, y0, x1, y1 = cover_outline()
    return {"tag_mm": MECH["tag"]["diameter_mm"], "cover_mm": MECH["cover"]["thickness_mm"],
            "cover_w_mm": x1 - x0, "cover_h_mm": y1 - y0, "dimples": len(cell_centres()),
            "standoff_mm": MECH["frame"]["standoff_mm"], "dot_mm": MECH["tile"]["dot_mm"],
            "dot_height_mm": MECH["tile"]["dot_height_mm"], "frame_base_mm": MECH["frame"]["base_mm"]}


def fill(parts: dict) -> dict:
    """parts.toml's entries with their text's {fields} filled from the shared dimensions."""
    fields = {k: f"{v:g}" for k, v in bom_fields().items()}
    return {key: {k: v.format(**fields) if isinstance(v, str) else v for k, v in spec.items()}
            for key, spec in parts.items()}
