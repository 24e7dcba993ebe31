"""Bring-up of a tray's readers: the board measures itself (the BRINGUP request, firmware
dominotray/bringup.py) and each cell is judged here against pass/fail thresholds:

- reader: the cell's reader passed its self-test (VersionReg, register write-back);
- SPI: its mean SPI transaction time is at most SPI_MAX_US, the slowest at which the detection
  latency goals still hold (benchmarks/tray_latency.py; hardware/DESIGN.md);
- tuned: a cell meant to hold a reference tag reads it, one meant to be empty reads nothing;
- range: the reference tag still answers at a drive weak enough that a tag read through its
  tile (face down, FACE_DOWN of the field: the RF model) keeps MIN_MARGIN over its threshold at
  the scanning drive;
- cross-read: no cell reads a tag that lies on another cell (an expected-empty cell reading a
  tag, a stack where one tag lies, or one UID on two cells: the weaker read is the cross-read).

The thresholds come from the generated pins module (hardware/data/architecture.toml).

Then the LEDs (`light_each`): each cell lights white in turn, along its chain from the controller,
then every cell red, green and blue. A person watches: a cell that stays dark, or shows another
colour, is named by its chain and place on it (a dark LED and every one after it on its chain:
that LED, or the data line into it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import serial
from dominotray import pins, wire

from dominotable.tray.errors import TrayError
from dominotable.tray.geometry import Geometry
from dominotable.tray.link import open_port

SPI_MAX_US = pins.SPI_MAX_US
FACE_DOWN = pins.FACE_DOWN_PERCENT / 100
MIN_MARGIN = pins.FACE_DOWN_MARGIN_PERCENT / 100
PATTERNS = ("checker", "checker-odd", "all", "none")


def expected_tags(pattern: str, geometry: Geometry) -> set[int]:
    """The cells that hold a reference tag: a checkerboard (the pad's left cell with the even
    squares), the other checkerboard, all, none, or a list of cells (37,r2c5,...)."""
    if pattern in ("checker", "checker-odd"):
        odd = pattern == "checker-odd"
        cells = {c for c in range(geometry.playing) if (sum(geometry.coords(c)) % 2 == 1) == odd}
        cells |= {p for i, p in enumerate(geometry.pad) if (i % 2 == 1) == odd}
        return cells
    if pattern == "all":
        return set(range(geometry.cells))
    if pattern == "none":
        return set()
    return {parse_cell(word, geometry) for word in pattern.split(",") if word.strip()}


def parse_cell(text: str, geometry: Geometry) -> int:
    text = text.strip().lower()
    if text.startswith("r") and "c" in text:
        row, col = text[1:].split("c", 1)
        if row.isdigit() and col.isdigit():
            return geometry.cell(int(row), int(col))
    if text.isdigit() and int(text) < geometry.cells:
        return int(text)
    raise TrayError(f"{text!r} is not a cell; write 37 or r2c5 (0-{geometry.cells - 1})")


def parse_cells(text: str, geometry: Geometry) -> list[int]:
    """Cells to judge: a list (37,r2c5), or a rectangle of grid cells r0c0:r3c3."""
    if ":" in text:
        a, b = (parse_cell(t, geometry) for t in text.split(":", 1))
        (r0, c0), (r1, c1) = geometry.coords(a), geometry.coords(b)
        return [geometry.cell(r, c) for r in range(min(r0, r1), max(r0, r1) + 1)
                for c in range(min(c0, c1), max(c0, c1) + 1)]
    return sorted({parse_cell(word, geometry) for word in text.split(",") if word.strip()})


def measure(path: str, timeout_s: float = 60.0) -> tuple[wire.Hello, int, int, list[wire.Probe]]:
    """Ask the tray at `path` for its bring-up report: (HELLO, scanning drive, strongest drive,
    a probe per cell)."""
    port = open_port(path, timeout=0.1)
    decoder = wire.Decoder(types=wire.FROM_TRAY, parse=True)
    framer = wire.Framer()
    hello = None
    probes: dict[int, wire.Probe] = {}
    total = drive = max_drive = None
    end = time.monotonic() + timeout_s
    with port:
        try:
            port.reset_input_buffer()
            port.write(b"\x00" + framer.frame(wire.GET_HELLO))
            while time.monotonic() < end:
                for kind, _seq, msg in decoder.feed(port.read(port.in_waiting or 1)):
                    if kind == wire.HELLO and hello is None:
                        hello = msg
                        if hello.proto != wire.PROTO:
                            raise TrayError(f"tray speaks protocol version {hello.proto}, this host speaks "
                                            f"version {wire.PROTO}: update the firmware to run a bring-up")
                        port.write(framer.frame(wire.BRINGUP))
                    elif kind == wire.BRINGUP_REPORT and hello is not None:
                        total, drive, max_drive = msg.total, msg.drive, msg.max_drive
                        for i, probe in enumerate(msg.probes):
                            probes[msg.first + i] = probe
                if total is not None and len(probes) == total:
                    return hello, drive, max_drive, [probes[i] for i in range(total)]
        except (serial.SerialException, OSError) as exc:
            raise TrayError(f"tray at {path} lost: {exc}") from None
    got = "no HELLO" if hello is None else f"{len(probes)} of {total if total is not None else '?'} cells"
    raise TrayError(f"no complete bring-up report from {path} within {timeout_s:g} s ({got})")


WHITE = (255, 255, 255)
PRIMARIES = (("red", (255, 0, 0)), ("green", (0, 255, 0)), ("blue", (0, 0, 255)))
LED_MIN_MS = -(-1000 // pins.LIGHT_MAX_FPS)  # a frame the tray latches before the next comes


def led_order(cells: list[int] | None = None) -> list[tuple[int, int, int]]:
    """(cell, chain, place on the chain from 1) along each chain from the controller: `cells` only,
    if given."""
    keep = None if cells is None else set(cells)
    return [(cell, chain, i + 1) for chain, (_gpio, order) in enumerate(pins.LIGHT_CHAINS)
            for i, cell in enumerate(order) if keep is None or cell in keep]


def light_each(path: str, geometry: Geometry, dwell_ms: int, cells: list[int] | None = None,
               say=print, timeout_s: float = 5.0) -> int:
    """Light each cell (of `cells`, else every cell) white in turn for `dwell_ms`, along its chain,
    then all of them red, green and blue for three times as long each, saying each as it lights;
    every frame waits for the tray's LIGHTS_ACK. Returns how many frames the tray took."""
    port = open_port(path, timeout=0.02)
    decoder = wire.Decoder(types=wire.FROM_TRAY, parse=True)
    framer = wire.Framer()
    order = led_order(cells)

    def show(lit: dict[int, tuple[int, int, int]], dwell: float) -> None:
        seq = framer.seq
        port.write(framer.frame(wire.LIGHTS, wire.encode_lights(geometry.cells, [(c, *lit[c]) for c in sorted(lit)])))
        end = time.monotonic() + timeout_s
        while not any(kind == wire.LIGHTS_ACK and msg[0] == seq for kind, _, msg in decoder.feed(port.read(64))):
            if time.monotonic() > end:
                raise TrayError(f"the tray at {path} did not acknowledge LIGHTS within {timeout_s:g} s")
        time.sleep(dwell)

    with port:
        try:
            port.reset_input_buffer()
            for cell, chain, place in order:
                say(f"LED {_short(geometry, cell)}: chain {chain} (GP{pins.LIGHT_CHAINS[chain][0]}), LED {place}, white")
                show({cell: WHITE}, dwell_ms / 1000)
            for name, rgb in PRIMARIES:
                say(f"every LED checked {name}")
                show({cell: rgb for cell, _, _ in order}, 3 * dwell_ms / 1000)
            show({}, 0)
        except (serial.SerialException, OSError) as exc:
            raise TrayError(f"tray at {path} lost: {exc}") from None
    return len(order) + len(PRIMARIES) + 1


def _short(geometry: Geometry, cell: int) -> str:
    """r2c5, or the pad cell's name."""
    return geometry.label(cell).split(" (")[0]


@dataclass
class Cell:
    cell: int
    label: str
    probe: wire.Probe
    expected: bool
    margin: float | None = None  # face-down margin over the threshold at the scanning drive
    cross: str = ""
    failures: list[str] = field(default_factory=list)


def judge(probes: list[wire.Probe], drive: int, geometry: Geometry, expected: set[int],
          cells: list[int] | None = None) -> list[Cell]:
    """Every judged cell with its failures (none: it passes)."""
    judged = cells if cells is not None else list(range(len(probes)))
    # a UID read on several cells belongs to the one that reads it at the weakest drive
    owner: dict[bytes, int] = {}
    for c, p in enumerate(probes):
        if p.status == wire.TAG and p.min_drive:
            best = owner.get(p.uid)
            if best is None or p.min_drive < probes[best].min_drive:
                owner[p.uid] = c
    out = []
    for c in judged:
        p = probes[c]
        r = Cell(c, _short(geometry, c), p, c in expected)
        if not p.present:
            r.failures.append("reader")
            out.append(r)
            continue
        if p.spi_us > SPI_MAX_US:
            r.failures.append(f"SPI {p.spi_us} us > {SPI_MAX_US}")
        if p.status == wire.TAG and owner.get(p.uid) not in (None, c):
            r.cross = f"reads the tag of {_short(geometry, owner[p.uid])}"
        elif not r.expected and p.status in (wire.TAG, wire.STACK):
            r.cross = "reads a tag on an empty cell"
        elif r.expected and p.status == wire.STACK:
            r.cross = "a second tag answers with its own"
        if r.cross:
            r.failures.append("cross-read")
        if r.expected and p.status != wire.TAG and not r.cross:
            r.failures.append("tuned: its tag does not read")
        if r.expected and p.status == wire.TAG and p.min_drive:
            r.margin = drive / p.min_drive * FACE_DOWN
            if r.margin < MIN_MARGIN:
                r.failures.append(f"range x{r.margin:.2f} < x{MIN_MARGIN:.2f}")
        out.append(r)
    return out


def table(results: list[Cell]) -> str:
    rows = [("cell", "reader", "SPI us", "tag", "range", "cross-read", "result")]
    for r in results:
        p = r.probe
        if not p.present:
            rows.append((r.label, "DEAD", "-", "-", "-", "-", "FAIL: reader"))
            continue
        tag = {wire.TAG: p.uid.hex(), wire.EMPTY: "none", wire.STACK: "stack", wire.FAULT: "fault"}[p.status]
        tag += " (tag expected)" if r.expected else ""
        rng = f"x{r.margin:.2f}" if r.margin is not None else "-"
        verdict = "pass" if not r.failures else "FAIL: " + "; ".join(r.failures)
        rows.append((r.label, "ok", str(p.spi_us), tag, rng, r.cross or "none", verdict))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]
    failed = [r for r in results if r.failures]
    lines.append("")
    lines.append(f"{len(results)} cells: {len(results) - len(failed)} pass, {len(failed)} fail"
                 + (" (" + ", ".join(f"{r.label}: {r.failures[0]}" for r in failed[:8])
                    + (", ..." if len(failed) > 8 else "") + ")" if failed else "")
                 + f". Thresholds: SPI <= {SPI_MAX_US} us, range (face-down margin) >= x{MIN_MARGIN:.2f}.")
    return "\n".join(lines)
