"""KiCad 6's own libraries and file formats, read without KiCad: symbols (pins by number, name
and type), footprints (pads, courtyards), and netlists.

Symbols and footprints are looked up first in the project library (hardware/lib/: parts KiCad 6
lacks), then in Debian's `kicad-symbols` and `kicad-footprints` (/usr/share/kicad, or the
KICAD6_SYMBOL_DIR / KICAD6_FOOTPRINT_DIR variables). A missing library raises MissingLibrary,
naming the Debian package: nothing is skipped for want of it. KiCad itself (pcbnew's Python
module, Debian's `kicad`) is imported by `pcbnew()`, which names the package when it is missing.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT_LIB = HERE / "lib"
PROJECT = "dominotable"  # the project library's name: dominotable.kicad_sym, dominotable.pretty
PACKAGES = "kicad-symbols kicad-footprints"


PCBNEW_DIR = "/usr/lib/python3/dist-packages"  # where Debian's kicad puts pcbnew.py and _pcbnew.so


class MissingLibrary(RuntimeError):
    pass


@lru_cache(maxsize=None)
def pcbnew():
    """KiCad 6's pcbnew module (Debian's `kicad`, built for the system Python 3.11: a venv's 3.11
    imports it from the system's dist-packages, appended so that nothing else there shadows the
    venv's packages)."""
    if PCBNEW_DIR not in sys.path:
        sys.path.append(PCBNEW_DIR)
    try:
        return importlib.import_module("pcbnew")
    except ImportError as e:
        raise MissingLibrary(
            f"KiCad's pcbnew Python module is not importable ({e}): install KiCad 6, the Debian package "
            "kicad (apt-get install --no-install-recommends kicad)") from None


def mm(v: float) -> int:
    """Millimetres in pcbnew's internal units."""
    return pcbnew().FromMM(v)


def point(x: float, y: float):
    """A pcbnew point from millimetres (y down, as on the board)."""
    return pcbnew().wxPointMM(x, y)


def to_mm(v: int) -> float:
    return pcbnew().ToMM(v)


def symbol_dirs() -> list[Path]:
    return [PROJECT_LIB, Path(os.environ.get("KICAD6_SYMBOL_DIR", "/usr/share/kicad/symbols"))]


def footprint_dirs() -> list[Path]:
    return [PROJECT_LIB, Path(os.environ.get("KICAD6_FOOTPRINT_DIR", "/usr/share/kicad/footprints"))]


def _missing(what: str, where: Path) -> MissingLibrary:
    return MissingLibrary(
        f"{what} is not in {where}: install KiCad 6's libraries, the Debian packages {PACKAGES} "
        f"(apt-get install --no-install-recommends {PACKAGES}), or point KICAD6_SYMBOL_DIR and "
        "KICAD6_FOOTPRINT_DIR at them")


# --- s-expressions ---------------------------------------------------------------------------------

_TOKEN = re.compile(r'\(|\)|"(?:[^"\\]|\\.)*"|[^\s()"]+')


class Q(str):
    """A string that was quoted in the file (and is quoted again when written)."""


def parse(text: str):
    """One s-expression as nested lists of strings (quoted ones as Q)."""
    stack: list[list] = [[]]
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            stack[-1].append(done)
        elif tok[0] == '"':
            stack[-1].append(Q(tok[1:-1].replace('\\"', '"').replace("\\\\", "\\")))
        else:
            stack[-1].append(tok)
    return stack[0][0]


def _block_end(text: str, start: int) -> int:
    """The index after the parenthesis that closes the one at `start`."""
    depth = 0
    for m in _TOKEN.finditer(text, start):
        if m.group() == "(":
            depth += 1
        elif m.group() == ")":
            depth -= 1
            if depth == 0:
                return m.end()
    raise ValueError("unbalanced s-expression")


def children(node, key):
    return [c for c in node if isinstance(c, list) and c and c[0] == key]


def child(node, key, default=None):
    found = children(node, key)
    return found[0] if found else default


def quote(s) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def dump(node, indent: int = 0) -> str:
    """Write nested lists back as an s-expression: Q strings quoted, one child list per line."""
    if not isinstance(node, list):
        return quote(node) if isinstance(node, Q) or node == "" else str(node)
    atoms = [dump(c) for c in node if not isinstance(c, list)]
    lists = [c for c in node if isinstance(c, list)]
    flat = all(not any(isinstance(g, list) for g in c) for c in lists) and len(lists) <= 4
    head = "(" + " ".join(atoms)
    if flat:
        return head + "".join(" " + dump(c) for c in lists) + ")"
    pad = "\n" + "  " * (indent + 1)
    return head + "".join(pad + dump(c, indent + 1) for c in lists) + ")"


# --- symbols ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SymbolPin:
    number: str
    name: str
    type: str  # KiCad's electrical type: input, output, power_in, passive, ...


@dataclass
class Symbol:
    lib: str
    name: str
    pins: dict[str, SymbolPin]  # by number
    properties: dict[str, str]
    text: list[str]  # the library's own blocks (parents first), verbatim


@lru_cache(maxsize=None)
def _library_text(lib: str) -> str:
    for folder in symbol_dirs():
        path = folder / f"{lib}.kicad_sym"
        if path.exists():
            return path.read_text(encoding="utf-8")
    raise _missing(f"KiCad's symbol library {lib}.kicad_sym", symbol_dirs()[-1])


def _symbol_block(lib: str, name: str) -> str:
    text = _library_text(lib)
    m = re.search(r'^  \(symbol %s[\s)]' % re.escape(quote(name)), text, re.M)
    if not m:
        raise KeyError(f"no symbol {name} in KiCad's library {lib}")
    start = m.start() + 2
    return text[start:_block_end(text, start)]


@lru_cache(maxsize=None)
def symbol(lib: str, name: str) -> Symbol:
    """A library symbol with its pins (every unit; the De Morgan alternates left out)."""
    block = _symbol_block(lib, name)
    node = parse(block)
    extends = child(node, "extends")
    blocks = [block]
    pins: dict[str, SymbolPin] = {}
    props: dict[str, str] = {}
    if extends:
        parent = symbol(lib, extends[1])
        blocks = parent.text + blocks
        pins.update(parent.pins)
        props.update(parent.properties)
    props.update({p[1]: p[2] for p in children(node, "property")})
    for unit in children(node, "symbol"):
        style = unit[1].rsplit("_", 1)[-1]
        if style == "2":
            continue
        for pin in children(unit, "pin"):
            number = child(pin, "number")[1]
            pins[number] = SymbolPin(number, child(pin, "name")[1], pin[1])
    return Symbol(lib, name, pins, props, blocks)


def write_symbol_library(path: Path, symbols: list[tuple[str, str]]) -> None:
    """A .kicad_sym holding only `symbols` (lib, name), cut verbatim from their libraries: SKiDL
    parses a whole library file to use one symbol (Device.kicad_sym is 2 MB), so circuit.py hands
    it only what it uses."""
    blocks: list[str] = []
    for lib, name in symbols:
        for block in symbol(lib, name).text:
            if block not in blocks:
                blocks.append(block)
    path.write_text("(kicad_symbol_lib (version 20211014) (generator dominotable)\n  "
                    + "\n  ".join(blocks) + "\n)\n", encoding="utf-8")


# --- footprints ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Pad:
    number: str
    kind: str  # smd, thru_hole, np_thru_hole, connect
    shape: str
    x: float
    y: float
    rotation: float
    width: float
    height: float
    layers: tuple[str, ...]
    drill: float = 0.0


@dataclass
class Footprint:
    ref: str  # "Library:Name"
    pads: list[Pad]
    courtyard: dict[str, tuple[float, float, float, float]]  # layer -> (x0, y0, x1, y1)
    attr: str
    node: list = field(repr=False)

    @property
    def pad_numbers(self) -> set[str]:
        return {p.number for p in self.pads if p.number}

    @property
    def through_hole(self) -> bool:
        """Soldered through the board (KiCad 5's files leave such parts without an attr)."""
        return any(p.kind == "thru_hole" for p in self.pads)


def footprint_path(ref: str) -> Path:
    lib, _, name = ref.partition(":")
    if not name:
        raise KeyError(f"footprint {ref!r} is not 'Library:Name'")
    for folder in footprint_dirs():
        pretty = folder / f"{lib}.pretty"
        if pretty.is_dir():
            path = pretty / f"{name}.kicad_mod"
            if not path.exists():
                raise KeyError(f"no footprint {name} in KiCad's library {lib}")
            return path
    raise _missing(f"KiCad's footprint library {lib}.pretty", footprint_dirs()[-1])


def _points(node):
    for key in ("start", "end", "mid", "center"):
        c = child(node, key)
        if c:
            yield float(c[1]), float(c[2])
    pts = child(node, "pts")
    if pts:
        for xy in children(pts, "xy"):
            yield float(xy[1]), float(xy[2])


@lru_cache(maxsize=None)
def footprint(ref: str) -> Footprint:
    node = parse(footprint_path(ref).read_text(encoding="utf-8"))
    pads = []
    for p in children(node, "pad"):
        at = child(p, "at")
        size = child(p, "size")
        drill = child(p, "drill")
        dia = next((float(v) for v in (drill or [])[1:] if not isinstance(v, list) and v != "oval"), 0.0)
        pads.append(Pad(p[1], p[2], p[3], float(at[1]), float(at[2]), float(at[3]) if len(at) > 3 else 0.0,
                        float(size[1]), float(size[2]), tuple(child(p, "layers")[1:]), dia))
    court: dict[str, list[tuple[float, float]]] = {}
    for item in node:
        if isinstance(item, list) and item and item[0] in ("fp_line", "fp_rect", "fp_circle", "fp_poly", "fp_arc"):
            layer = child(item, "layer")
            if layer and layer[1] in ("F.CrtYd", "B.CrtYd"):
                pts = list(_points(item))
                if item[0] == "fp_circle":  # centre and a point on the circle
                    (cx, cy), (px, py) = pts[0], pts[1]
                    r = ((px - cx) ** 2 + (py - cy) ** 2) ** 0.5
                    pts = [(cx - r, cy - r), (cx + r, cy + r)]
                court.setdefault(layer[1], []).extend(pts)
    box = {layer: (min(x for x, _ in pts), min(y for _, y in pts), max(x for x, _ in pts), max(y for _, y in pts))
           for layer, pts in court.items()}
    attr = child(node, "attr")
    return Footprint(ref, pads, box, attr[1] if attr else "", node)


# --- netlists -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Node:
    ref: str
    pin: str
    function: str
    type: str


@dataclass
class Component:
    ref: str
    value: str
    footprint: str
    lib: str
    part: str
    fields: dict[str, str]


@dataclass
class Netlist:
    components: dict[str, Component]
    nets: dict[str, list[Node]]

    def pin_nets(self) -> dict[tuple[str, str], str]:
        """(ref, pin number) -> net name."""
        return {(n.ref, n.pin): name for name, nodes in self.nets.items() for n in nodes}


def read_netlist(path: Path) -> Netlist:
    node = parse(Path(path).read_text(encoding="utf-8"))
    comps = {}
    for c in children(child(node, "components"), "comp"):
        src = child(c, "libsource")
        fields = {f[1][1] if isinstance(f[1], list) else f[1]: (f[2] if len(f) > 2 else "")
                  for f in children(child(c, "fields") or [], "field")}
        ref = child(c, "ref")[1]
        comps[ref] = Component(ref, child(c, "value")[1], (child(c, "footprint") or ["", ""])[1],
                               child(src, "lib")[1], child(src, "part")[1], fields)
    nets = {}
    for n in children(child(node, "nets"), "net"):
        nets[child(n, "name")[1]] = [
            Node(child(x, "ref")[1], child(x, "pin")[1], (child(x, "pinfunction") or ["", ""])[1],
                 (child(x, "pintype") or ["", ""])[1]) for x in children(n, "node")]
    return Netlist(comps, nets)
