"""A board's fabrication files from KiCad: gerbers through pcbnew's PLOT_CONTROLLER (copper, mask,
paste, silkscreen, outline, each with KiCad's X2 attributes), the drill files through its
EXCELLON_WRITER (plated and non-plated holes apart, as board houses take them), and a picture of
both sides rendered from those gerbers by gerbv (Debian `gerbv`), to look at before ordering.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import kicad

# (pcbnew layer name, file suffix) of every layer a 2-layer board house needs
LAYERS = (("F.Cu", "F_Cu"), ("B.Cu", "B_Cu"), ("F.Mask", "F_Mask"), ("B.Mask", "B_Mask"),
          ("F.Paste", "F_Paste"), ("B.Paste", "B_Paste"), ("F.SilkS", "F_Silkscreen"),
          ("B.SilkS", "B_Silkscreen"), ("Edge.Cuts", "Edge_Cuts"))
GERBV = "gerbv"


def gerbers(board, out: Path, name: str) -> list[Path]:
    """One gerber per layer, `name-<layer>.gbr`, in `out`."""
    pcbnew = kicad.pcbnew()
    out.mkdir(parents=True, exist_ok=True)
    controller = pcbnew.PLOT_CONTROLLER(board)
    options = controller.GetPlotOptions()
    options.SetOutputDirectory(str(out))
    options.SetFormat(pcbnew.PLOT_FORMAT_GERBER)
    options.SetUseGerberX2format(True)
    options.SetIncludeGerberNetlistInfo(True)
    options.SetCreateGerberJobFile(False)
    options.SetUseGerberProtelExtensions(False)
    options.SetSubtractMaskFromSilk(True)
    options.SetPlotFrameRef(False)
    options.SetPlotValue(False)
    options.SetPlotReference(True)
    options.SetPlotInvisibleText(False)
    options.SetExcludeEdgeLayer(True)
    options.SetUseAuxOrigin(False)
    options.SetSkipPlotNPTH_Pads(False)
    options.SetDrillMarksType(pcbnew.PCB_PLOT_PARAMS.NO_DRILL_SHAPE)
    options.SetScale(1)
    options.SetMirror(False)
    written = []
    for layer, suffix in LAYERS:
        controller.SetLayer(board.GetLayerID(layer))
        controller.OpenPlotfile(suffix, pcbnew.PLOT_FORMAT_GERBER, layer)
        controller.PlotLayer()
        written.append(Path(controller.GetPlotFileName()))
    controller.ClosePlot()
    files = []
    for path in written:
        target = out / f"{name}-{path.stem.split('-')[-1]}.gbr"
        path.rename(target)
        files.append(target)
    return files


def drill(board, out: Path, name: str) -> list[Path]:
    """Excellon drill files, plated and non-plated holes apart, metric, with a drill map."""
    pcbnew = kicad.pcbnew()
    out.mkdir(parents=True, exist_ok=True)
    writer = pcbnew.EXCELLON_WRITER(board)
    writer.SetOptions(False, False, pcbnew.wxPoint(0, 0), False)  # no mirror, no minimal header, origin, PTH/NPTH apart
    writer.SetFormat(True)  # metric
    writer.CreateDrillandMapFilesSet(str(out), True, False)
    files = []
    for kind in ("PTH", "NPTH"):
        made = next(out.glob(f"*-{kind}.drl"), None)
        if made is not None:
            target = out / f"{name}-{kind}.drl"
            made.rename(target)
            files.append(target)
    return files


def render(gerber_files: list[Path], drill_files: list[Path], png: Path, side: str) -> Path:
    """One side of the board as gerbv draws its gerbers: outline, copper, mask, silkscreen, holes."""
    gerbv = shutil.which(GERBV)
    if gerbv is None:
        raise kicad.MissingLibrary("gerbv is not installed: install the Debian package gerbv "
                                   "(apt-get install gerbv), which renders the boards' gerbers")
    by = {p.stem.split("-")[-1]: p for p in gerber_files}
    s = "F" if side == "top" else "B"
    # drawn bottom first: gerbv paints the files listed first on top
    layers = [(by["Edge_Cuts"], "#ffffff"), *((d, "#202020") for d in drill_files),
              (by[f"{s}_Silkscreen"], "#f0f0f0"), (by[f"{s}_Mask"], "#c8a040"), (by[f"{s}_Cu"], "#b87333")]
    args = [gerbv, "-x", "png", "-D", "300", "-B", "0", "-b", "#1a5c2a", "-o", str(png)]
    for path, colour in layers:
        args += ["-f", colour, str(path)]
    subprocess.run(args, check=True, capture_output=True, timeout=120)
    return png
