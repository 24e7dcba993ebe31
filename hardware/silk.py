"""The silkscreen of a board in pcbnew: every reference where it fits clear of the solder-mask
openings and of other silkscreen, the rest on the fabrication layer (the assembly drawing); the
library outlines that would print over a pad or another part's outline moved to the fabrication
layer too; the board's name and revision in a free spot. Clear means the house's silkscreen clearance (data/house.toml), so
that KiCad's DRC finds no silkscreen over a pad and no overlap.
"""

from __future__ import annotations

import kicad
import numpy as np
from kicad import point


def _box(item, grow: float = 0.0) -> tuple[float, float, float, float]:
    """An item's (or an EDA_RECT's) bounding box in mm, grown on every side."""
    pcbnew = kicad.pcbnew()
    b = item if isinstance(item, pcbnew.EDA_RECT) else item.GetBoundingBox()
    return (pcbnew.ToMM(b.GetX()) - grow, pcbnew.ToMM(b.GetY()) - grow,
            pcbnew.ToMM(b.GetRight()) + grow, pcbnew.ToMM(b.GetBottom()) + grow)


class Boxes:
    """Rectangles (mm) to test a box against, as one array."""

    def __init__(self):
        self.rows: list[tuple[float, float, float, float]] = []
        self.owners: list[str] = []
        self._array = None

    def add(self, box, owner: str = "") -> None:
        self.rows.append(box)
        self.owners.append(owner)
        self._array = None

    def hits(self, box, skip: str | None = None) -> bool:
        if not self.rows:
            return False
        if self._array is None:
            self._array = np.array(self.rows)
        a = self._array
        hit = (a[:, 0] < box[2]) & (box[0] < a[:, 2]) & (a[:, 1] < box[3]) & (box[1] < a[:, 3])
        if skip is not None:
            hit &= np.array([o != skip for o in self.owners])
        return bool(hit.any())


def _sides():
    pcbnew = kicad.pcbnew()
    return {"F": (pcbnew.F_SilkS, pcbnew.F_Mask, pcbnew.F_Fab), "B": (pcbnew.B_SilkS, pcbnew.B_Mask, pcbnew.B_Fab)}


def _masks(board, clear: float) -> dict[str, Boxes]:
    """Every pad's solder-mask opening, per side, grown by the silkscreen clearance."""
    out = {}
    for side, (_silk, mask, _fab) in _sides().items():
        boxes = Boxes()
        for fp in board.GetFootprints():
            for pad in fp.Pads():
                if pad.IsOnLayer(mask):
                    boxes.add(_box(pad, clear + kicad.pcbnew().ToMM(pad.GetSolderMaskMargin())), fp.GetReference())
        out[side] = boxes
    return out


def _inside(box, width: float, height: float, edge: float) -> bool:
    return box[0] >= edge and box[1] >= edge and box[2] <= width - edge and box[3] <= height - edge


def references(board, width: float, height: float, clear: float, edge: float) -> dict[str, int]:
    """Move library outlines that meet a pad or another part's outline to the fabrication layer,
    then put each reference on the silkscreen where it fits, else on the fabrication layer. Counts
    of each, for the report."""
    pcbnew = kicad.pcbnew()
    masks = _masks(board, clear)
    silk = {side: Boxes() for side in "FB"}
    trimmed = 0
    for fp in sorted(board.GetFootprints(), key=lambda f: -_area(f)):  # the larger parts keep their outlines
        for item in list(fp.GraphicalItems()):
            side = {_sides()["F"][0]: "F", _sides()["B"][0]: "B"}.get(item.GetLayer())
            if side is None or item.Type() == pcbnew.PCB_FP_TEXT_T:
                continue
            box = _box(item, clear / 2)
            if masks[side].hits(box) or silk[side].hits(box, skip=fp.GetReference()) \
                    or not _inside(box, width, height, edge):
                item.SetLayer(_sides()[side][2])  # kept on the assembly drawing
                trimmed += 1
            else:
                silk[side].add(box, fp.GetReference())
    on_silk = on_fab = 0
    for fp in sorted(board.GetFootprints(), key=lambda f: f.GetReference()):
        text = fp.Reference()
        side = "B" if fp.IsFlipped() else "F"
        silk_layer, _mask, fab = _sides()[side]
        spot = _spot_near(text, fp, masks[side], silk[side], width, height, clear, edge)
        if spot is None:
            text.SetLayer(fab)
            on_fab += 1
        else:
            text.SetLayer(silk_layer)
            silk[side].add(spot, fp.GetReference())
            on_silk += 1
    return {"trimmed": trimmed, "references_on_silk": on_silk, "references_on_fab": on_fab}


def _area(fp) -> float:
    x0, y0, x1, y1 = _box(fp)
    return (x1 - x0) * (y1 - y0)


def _spot_near(text, fp, masks: Boxes, silk: Boxes, width: float, height: float, clear: float, edge: float):
    """Move `text` to the first free place around its footprint's courtyard; its box, or None."""
    x0, y0, x1, y1 = _box(fp.GetBoundingBox(False, False))  # the part without its texts
    cx, cy, hw, hh = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2
    for angle in (0, 90):
        text.SetTextAngle(angle * 10 - fp.GetOrientation())
        tw, th = _extent(text)
        for dx, dy in ((0, -(hh + th / 2)), (0, hh + th / 2), (-(hw + tw / 2), 0), (hw + tw / 2, 0),
                       (-(hw + tw / 2), -(hh + th / 2)), (hw + tw / 2, -(hh + th / 2)),
                       (-(hw + tw / 2), hh + th / 2), (hw + tw / 2, hh + th / 2), (0, 0)):
            for step in (0.0, 0.5, 1.0):
                sx = dx + (step if dx > 0 else -step if dx < 0 else 0.0)
                sy = dy + (step if dy > 0 else -step if dy < 0 else 0.0)
                text.SetPosition(point(cx + sx, cy + sy))
                text.SetLocalCoord()
                box = _box(text, clear / 2)
                if _inside(box, width, height, edge) and not masks.hits(box) and not silk.hits(box):
                    return box
    return None


def _extent(text) -> tuple[float, float]:
    x0, y0, x1, y1 = _box(text)
    return x1 - x0, y1 - y0


def title(board, words: str, side: str, width: float, height: float, clear: float, edge: float) -> None:
    """The board's name and revision, in the first free spot of the assembled side (else the other)."""
    pcbnew = kicad.pcbnew()
    masks = _masks(board, clear)
    for s in (side, "FB".replace(side, "")):
        silk_layer = _sides()[s][0]
        taken = Boxes()
        for fp in board.GetFootprints():
            for item in [fp.Reference(), *fp.GraphicalItems()]:
                if item.GetLayer() == silk_layer:
                    taken.add(_box(item, clear / 2))
        text = pcbnew.PCB_TEXT(board)
        text.SetText(words)
        text.SetLayer(silk_layer)
        text.SetTextSize(pcbnew.wxSizeMM(1.5, 1.5))
        text.SetTextThickness(kicad.mm(0.25))
        if s == "B":
            text.SetMirrored(True)
        for y in np.arange(edge + 1.5, height - edge - 1.0, 0.5):
            for x in np.arange(width / 2, width - edge, 1.0):
                for xx in (x, width - x):
                    text.SetPosition(point(float(xx), float(y)))
                    box = _box(text, clear / 2)
                    if _inside(box, width, height, edge) and not masks[s].hits(box) and not taken.hits(box):
                        board.Add(text)
                        return
    raise RuntimeError(f"no room on either side's silkscreen for '{words}'")
