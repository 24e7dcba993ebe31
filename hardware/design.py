"""The tray's design figures, computed from hardware/data/*.toml: parts cost, idle / scanning /
peak power, worst-case detection latency, bus rise times, and the antenna (inductance and
matching network) for the designs hardware/DESIGN.md compares.

    python hardware/design.py            # print the figures (markdown)
    python hardware/design.py --write    # refresh the generated block of hardware/DESIGN.md

DESIGN.md's figures come from here only (tests/test_hardware.py checks the block is current).
Per-read costs come from the firmware running against the emulated readers (dominotray), so
the latency figures follow the driver's real command sequence.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import sys
import tomllib
from pathlib import Path

from dominotray import mfrc522 as M
from dominotray.emulator import ReaderArray
from dominotray.scanner import Scanner

HERE = Path(__file__).resolve().parent
DATA = tomllib.loads((HERE / "data" / "parts.toml").read_text())
TRAY = tomllib.loads((HERE / "tray.toml").read_text())
SPI_HZ = tomllib.loads((HERE / "wiring.toml").read_text())["spi"]["baudrate"]
PARTS = DATA["parts"]
BOARD = DATA["board"]
RF = DATA["rf"]
BEGIN, END = "<!-- design.py: begin -->", "<!-- design.py: end -->"
BOM_BEGIN, BOM_END = "<!-- design.py: bom begin -->", "<!-- design.py: bom end -->"

COLS, ROWS = TRAY["tray"]["columns"], TRAY["tray"]["rows"]
PAD = len(TRAY["scan_pad"]["cells"])
CELLS = COLS * ROWS + PAD
ROWS_PER_SEGMENT = BOARD["rows_per_board"]
SEGMENTS = math.ceil(ROWS / ROWS_PER_SEGMENT)
C_READERS = 8  # design (c): readers, each switching CELLS / 8 coils
_DEFAULTS = inspect.signature(Scanner).parameters
LOOKAHEAD, IDLE_LOOKAHEAD, IDLE_MS = (_DEFAULTS[name].default for name in ("lookahead", "idle_lookahead", "idle_ms"))


def read_costs_ms() -> dict[str, float]:
    """An empty read (reader woken early, guard over), a presence check, and a full 7-byte
    read, as the driver does them against the emulated reader (its timing model)."""
    emu = ReaderArray(2)
    driver = M.MFRC522(emu)
    for cell in (0, 1):
        driver.init(cell)
    uid = b"\x04\x01\x02\x03\x04\x05\x06"
    emu.place(1, uid)
    costs = {}
    for name, cell, known in (("empty", 0, None), ("presence", 1, uid), ("full", 1, None)):
        driver.wake(cell)
        emu.advance_ms(6)
        start = emu.now_us
        driver.read_uid(cell, known)
        driver.sleep(cell)
        costs[name] = (emu.now_us - start) / 1000 + 2 * RF["spi_xfer_ms"]  # + its wake and sleep writes
        emu.advance_ms(1)
    return costs


# --- bill of parts per design ---------------------------------------------------------------------

def cell_rf_parts(reader: str) -> dict[str, float]:
    """One MFRC522-class reader with its antenna network (AN1445 topology): EMC filter 2 L + 2 C,
    matching 2 series + 2 parallel C, 2 damping R, receive divider 2 R + Vmid C, 4 supply
    decouplers + 1 bulk per 4 readers."""
    return {reader: 1, "emc_inductor": 2, "cap_c0g": 7, "resistor": 4, "cap_100n": 6, "cap_10u": 0.25}


def design_parts(name: str) -> dict[str, float]:
    parts: dict[str, float] = {}

    def add(key, qty):
        parts[key] = parts.get(key, 0) + qty

    common = {"pico": 1, "buck": 1, "buck_inductor": 1, "cap_10u": 4, "barrel": 1, "psu": 1, "usb_cable": 1,
              "schottky": 1, "pcb_main": 1, "pcb_row": SEGMENTS}
    if name == "a":  # today: one bus, a crystal and a MISO buffer per reader, decoders
        for key, qty in cell_rf_parts("reader").items():
            add(key, qty * CELLS)
        add("xtal12", CELLS)  # (a 27.12 MHz crystal per reader; priced as a 3225 crystal)
        add("cap_c0g", 2 * CELLS)
        add("buffer", CELLS)
        add("decoder", 1 + math.ceil(CELLS / 16))
    elif name == "a2":  # chosen: row-board segments behind buffers, one shared 27.12 MHz clock
        for key, qty in cell_rf_parts("reader").items():
            add(key, qty * CELLS)
        add("buffer", CELLS)  # MISO per reader
        add("decoder", 1 + math.ceil(CELLS / 16))
        add("octal_buffer", SEGMENTS + 1)  # per segment: SCK, MOSI, clock, reset in; + the pad's
        add("buffer", SEGMENTS)  # the segment's MISO onto the trunk
        add("osc27", 1)
        add("and_gate", SEGMENTS)  # the segment's MISO enable
        add("row_connector", 2 * SEGMENTS)
    elif name == "b":  # a small MCU per segment with its own local bus
        for key, qty in cell_rf_parts("reader").items():
            add(key, qty * CELLS)
        add("buffer", CELLS)
        add("decoder", SEGMENTS * 3)
        for key in ("rp2040", "flash", "xtal12", "osc27"):
            add(key, SEGMENTS)
        add("cap_100n", 10 * SEGMENTS)
        add("row_connector", 2 * SEGMENTS)
    elif name == "c":  # few readers, a switched coil per cell
        add("clrc663", C_READERS)
        add("emc_inductor", 2 * C_READERS)
        add("cap_c0g", 9 * C_READERS)
        add("resistor", 4 * C_READERS)
        add("cap_100n", 6 * C_READERS)
        add("pin_diode", 2 * CELLS)  # both ends of each coil
        add("resistor", CELLS)  # PIN bias
        add("shift_register", math.ceil(CELLS / 8))
        add("cap_100n", math.ceil(CELLS / 8))
        add("row_connector", 2 * SEGMENTS)
    else:
        raise ValueError(name)
    for key, qty in common.items():
        add(key, qty)
    return parts


def cost_usd(parts: dict[str, float]) -> float:
    return sum(qty * PARTS[key]["unit_usd"] for key, qty in parts.items())


# --- power ---------------------------------------------------------------------------------------

def power_w(name: str) -> dict[str, float]:
    """Idle (nothing changed for the scanner's idle_ms: idle_lookahead readers awake), scanning
    (lookahead readers awake, fields at 60 % of their maximum: typical over maximum in the data
    sheet), peak (every awake reader's field at its maximum). At the 5 V input, through the buck."""
    r = PARTS["reader"]
    v = BOARD["supply_v"]
    eff = PARTS["buck"]["efficiency"]
    mcu = PARTS["pico"]["active_ma"]
    logic_ma = 0.0
    if name in ("a", "a2", "b"):
        awake_ma = r["idd_digital_ma"] + r["idd_analog_ma"]
        field_ma = r["idd_tvdd_field_ma"]
        asleep_ma = r["soft_pd_ua"] / 1000
        if name == "a":  # the old firmware never powers readers down: all awake, one field on
            idle = CELLS * awake_ma
            scan = idle + field_ma
            peak = scan + r["idd_pvdd_max_ma"]
        else:
            fields = LOOKAHEAD if name == "a2" else LOOKAHEAD * SEGMENTS
            if name == "b":
                mcu += SEGMENTS * PARTS["rp2040"]["active_ma"]
                logic_ma += SEGMENTS * PARTS["osc27"]["idd_ma"]
            else:
                logic_ma += PARTS["osc27"]["idd_ma"] + (SEGMENTS + 1) * PARTS["octal_buffer"]["icc_ua"] / 1000
            # idle: nothing changed for IDLE_MS, so the scanner keeps only IDLE_LOOKAHEAD awake
            idle_fields = IDLE_LOOKAHEAD * (1 if name == "a2" else SEGMENTS)
            idle = (CELLS - idle_fields) * asleep_ma + idle_fields * (awake_ma + 0.6 * field_ma)
            scan = (CELLS - fields) * asleep_ma + fields * (awake_ma + 0.6 * field_ma)
            peak = (CELLS - fields) * asleep_ma + fields * (awake_ma + field_ma) + r["idd_pvdd_max_ma"]
    else:
        c = PARTS["clrc663"]
        idle = C_READERS * c["lpcd_ua"] / 1000 + 2 * c["idd_total_ma"] / 8  # LPCD polling
        scan = C_READERS * c["idd_total_ma"] * 0.6
        peak = C_READERS * c["idd_total_ma"]
        logic_ma += math.ceil(CELLS / 8) * PARTS["shift_register"]["icc_ua"] / 1000
        logic_ma += C_READERS * PARTS["pin_diode"]["bias_ma"]  # each reader's selected coil: its two diodes in series
    to_w = lambda ma: (ma + mcu + logic_ma) * v / 1000 / eff  # noqa: E731
    return {"idle": to_w(idle), "scanning": to_w(scan), "peak": to_w(peak)}


def thermal(peak_w: float) -> dict[str, float]:
    """The buck's own loss at peak, and its junction temperature at the design ambient."""
    eff = PARTS["buck"]["efficiency"]
    loss = peak_w * (1 - eff)
    tj = BOARD["ambient_c"] + loss * PARTS["buck"]["theta_ja_c_per_w"]
    return {"loss_w": loss, "tj_c": tj}


# --- latency ----------------------------------------------------------------------------------------

def latency_ms(name: str, costs: dict[str, float]) -> dict[str, float]:
    """Worst case until a tile is seen: a full sweep of every cell (anywhere), and the hot ring's
    round beside a layout of 30 tiles (its ~40 empty neighbours), ignoring the other rings'
    share, which the benchmark measures."""
    guard = RF["field_guard_ms"]
    if name == "a":  # old driver: guard and 1.5 ms timeout on every read, no overlap
        empty = guard + 1.5 + 12 * RF["spi_xfer_ms"]
        return {"anywhere": CELLS * empty * 4, "beside": 40 * empty * 4 / 3}  # hot_share 3
    if name == "a2":
        return {"anywhere": CELLS * costs["empty"], "beside": 40 * costs["empty"]}
    if name == "b":
        per = math.ceil(CELLS / SEGMENTS)
        return {"anywhere": per * costs["empty"] + 2, "beside": min(per, 40) * costs["empty"] + 2}
    per = math.ceil(CELLS / C_READERS)
    one = guard + costs["empty"]  # one field per reader: no guard time can overlap within it
    mcu_bound = CELLS * costs["empty"]
    return {"anywhere": max(per * one, mcu_bound), "beside": max(40 / C_READERS * one, 40 * costs["empty"])}


# --- signal integrity -----------------------------------------------------------------------------

def rise_ns(drive_ohm: float, loads: int, load_pf: float, length_m: float) -> float:
    """10-90 % rise time of a lumped RC net: 2.2 R C."""
    c = loads * load_pf + length_m * BOARD["trace_pf_per_m"]
    return 2.2 * drive_ohm * c * 1e-3


def bus(name: str) -> dict[str, float]:
    pitch = BOARD["cell_pitch_mm"] / 1000
    r_in = PARTS["reader"]["input_pf"]
    mcu = PARTS["pico"]["gpio_drive_ohm"]
    lvc = PARTS["octal_buffer"]["output_ohm"]
    half_period = 1e9 / SPI_HZ / 2
    if name == "a":  # every reader on one net snaking through every row
        length = CELLS * pitch
        rise = rise_ns(mcu, CELLS, r_in, length)
        worst = "SCK, MOSI, MISO: one net through all readers"
    elif name in ("a2", "b"):
        length = COLS * pitch + ROWS_PER_SEGMENT * pitch
        per = COLS * ROWS_PER_SEGMENT
        drive = lvc if name == "a2" else mcu
        rise = rise_ns(drive, per, r_in, length)
        trunk = rise_ns(mcu, SEGMENTS, PARTS["octal_buffer"]["input_pf"], ROWS * pitch) if name == "a2" else 0.0
        rise = max(rise, trunk)
        worst = "a segment's SCK driven by its buffer" if name == "a2" else "a segment's local SCK"
    else:
        length = 0.1
        rise = rise_ns(mcu, C_READERS, r_in, length)
        worst = "SPI to 8 readers on the controller board"
    return {"bus_m": length, "rise_ns": rise, "half_period_ns": half_period, "margin": half_period / rise,
            "worst": worst}


# --- antenna ----------------------------------------------------------------------------------------

def antenna() -> dict[str, float]:
    """Square planar coil (modified Wheeler, Mohan et al. 1999: K1 = 2.34, K2 = 2.75) and the
    AN1445 matching: EMC filter L0/C0 at its cut-off, then the antenna (L, R for the target Q)
    transformed to `match_ohm` by a parallel C2 and a series C1 (single-ended equivalent; each
    side of the balanced network takes twice these values)."""
    n, w, s = RF["coil_turns"], RF["coil_trace_mm"], RF["coil_gap_mm"]
    d_out = RF["coil_outer_mm"]
    d_in = d_out - 2 * n * w - 2 * (n - 1) * s
    d_avg = (d_out + d_in) / 2 / 1000
    rho = (d_out - d_in) / (d_out + d_in)
    mu0 = 4e-7 * math.pi
    inductance = 2.34 * mu0 * n * n * d_avg / (1 + 2.75 * rho)
    omega = 2 * math.pi * RF["f_carrier_hz"]
    r_ant = omega * inductance / RF["coil_q"]
    # Parallel C2 makes the real part match_ohm, series C1 cancels what is left of the reactance.
    rm = RF["match_ohm"]
    x_l = omega * inductance
    # Z of (R + jX) in parallel with -j/(wC2): choose B = wC2 so Re(Z) = rm
    # Re = R / ((1 - B X)^2 + (B R)^2)  ->  solve the quadratic in B
    a_ = x_l * x_l + r_ant * r_ant
    b_ = -2 * x_l
    c_ = 1 - r_ant / rm
    susceptance = (-b_ - math.sqrt(b_ * b_ - 4 * a_ * c_)) / (2 * a_)
    z = complex(r_ant, x_l) / (1 + 1j * susceptance * complex(r_ant, x_l))
    c2 = susceptance / omega
    c1 = 1 / (omega * z.imag)
    c0 = 1 / ((2 * math.pi * RF["emc_cutoff_mhz"] * 1e6) ** 2 * RF["emc_l_uh"] * 1e-6)
    return {"inductance_nh": inductance * 1e9, "r_ohm": r_ant, "c0_pf": c0 * 1e12, "c1_pf": c1 * 1e12,
            "c2_pf": c2 * 1e12, "z_check_ohm": abs(complex(z.real, z.imag - 1 / (omega * c1)))}


# --- report -----------------------------------------------------------------------------------------

NAMES = {
    "a": "(a) one reader per cell, one shared bus (today)",
    "a2": "(a2) one reader per cell, row-board bus segments behind buffers, soft power-down (chosen)",
    "b": "(b) a small MCU per row board with its own bus",
    "c": f"(c) {C_READERS} CLRC663 readers, per-cell coils switched by PIN diodes",
}
TARGETS = {"usd_per_cell": 1.6, "idle_w": 2.0, "scanning_w": 5.0}


def report() -> str:
    costs = read_costs_ms()
    lines = [
        f"Tray: {COLS} x {ROWS} cells + {PAD} pad cells = {CELLS} cells; {SEGMENTS} row boards of "
        f"{ROWS_PER_SEGMENT} rows. Per read (firmware against the emulated reader, wake and sleep "
        f"included): empty {costs['empty']:.2f} ms, presence check {costs['presence']:.2f} ms, "
        f"full 7-byte read {costs['full']:.2f} ms; up to {LOOKAHEAD} readers awake ({IDLE_LOOKAHEAD} once "
        f"nothing has changed for {IDLE_MS / 1000:.0f} s).",
        "",
        "| design | parts USD | USD/cell | idle W | scanning W | peak W | worst anywhere ms | worst beside ms "
        f"| bus length m | rise ns (vs {1e9 / SPI_HZ / 2:.0f} ns half-period at {SPI_HZ / 1e6:g} MHz) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, title in NAMES.items():
        parts = design_parts(name)
        usd = cost_usd(parts)
        p = power_w(name)
        lat = latency_ms(name, costs)
        b = bus(name)
        lines.append(f"| {title} | {usd:.0f} | {usd / CELLS:.2f} | {p['idle']:.2f} | {p['scanning']:.2f} | "
                     f"{p['peak']:.2f} | {lat['anywhere']:.0f} | {lat['beside']:.0f} | {b['bus_m']:.2f} | "
                     f"{b['rise_ns']:.1f} ({b['worst']}) |")
    chosen = design_parts("a2")
    usd = cost_usd(chosen)
    genuine = cost_usd({("reader_genuine" if key == "reader" else key): qty for key, qty in chosen.items()})
    p = power_w("a2")
    heat = thermal(p["peak"])
    ant = antenna()
    lines += [
        "",
        f"Targets: <= {TARGETS['usd_per_cell']} USD/cell, idle <= {TARGETS['idle_w']} W, scanning <= "
        f"{TARGETS['scanning_w']} W. Chosen (a2): {usd / CELLS:.2f} USD/cell "
        f"({'met' if usd / CELLS <= TARGETS['usd_per_cell'] else 'NOT met'}), idle {p['idle']:.2f} W "
        f"({'met' if p['idle'] <= TARGETS['idle_w'] else 'NOT met'}), scanning {p['scanning']:.2f} W "
        f"({'met' if p['scanning'] <= TARGETS['scanning_w'] else 'NOT met'}). With NXP's own reader "
        f"(reader_genuine) instead: {genuine / CELLS:.2f} USD/cell "
        f"({'met' if genuine / CELLS <= TARGETS['usd_per_cell'] else 'NOT met'}).",
        "",
        f"Thermal (chosen, at peak {p['peak']:.2f} W): buck loss {heat['loss_w']:.2f} W, junction "
        f"{heat['tj_c']:.0f} C at {BOARD['ambient_c']:.0f} C ambient (limit {BOARD['tj_max_c']:.0f} C).",
        "",
        f"Antenna: {RF['coil_outer_mm']:.0f} mm square, {RF['coil_turns']} turns of {RF['coil_trace_mm']} mm "
        f"trace, {RF['coil_gap_mm']} mm gap: L = {ant['inductance_nh']:.0f} nH; at Q = {RF['coil_q']} "
        f"R = {ant['r_ohm']:.2f} ohm. Matching to {RF['match_ohm']:.0f} ohm (single-ended equivalent): "
        f"C1 (series) = {ant['c1_pf']:.0f} pF, C2 (parallel) = {ant['c2_pf']:.0f} pF; per side of the "
        f"balanced network 2 x C1 = {2 * ant['c1_pf']:.0f} pF, 2 x C2 = {2 * ant['c2_pf']:.0f} pF; EMC "
        f"filter L0 = {RF['emc_l_uh']} uH, C0 = {ant['c0_pf']:.0f} pF ({RF['emc_cutoff_mhz']} MHz). "
        f"Impedance at the matching point: {ant['z_check_ohm']:.1f} ohm (target {RF['match_ohm']:.0f}).",
    ]
    measured = HERE / "data" / "latency.json"
    if measured.exists():
        m = json.loads(measured.read_text())
        lines += ["", "Measured (chosen design, `python benchmarks/tray_latency.py --json > hardware/data/latency.json`: "
                  "the firmware against the emulated readers at their modelled speed, layouts of 8-30 tiles):", "",
                  "| event | p50 ms | p95 ms | target p95 ms | |", "|---|---|---|---|---|"]
        for key in ("anywhere", "beside", "pad", "removal", "removal_pad", "removal_anywhere", "after_quiet"):
            if f"p95_{key}_ms" not in m:
                continue
            lines.append(f"| {key.replace('_', ' ')} | {m[f'p50_{key}_ms']} | {m[f'p95_{key}_ms']} | "
                         f"{m[f'target_p95_{key}_ms']} | {'met' if m[f'met_{key}'] else 'NOT met'} |")
    lines += bom_report()
    lines += grid_report()
    return "\n".join(lines)


def bom_report() -> list[str]:
    """The schematic's BOM (hardware/bom.csv, written by circuit.py): its total, and that each
    line still carries parts.toml's price."""
    import csv

    with open(HERE / "bom.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    by_mpn = {p["mpn"]: p for p in PARTS.values()}
    stale = [r["mpn"] for r in rows if float(r["unit_usd"]) != by_mpn[r["mpn"]]["unit_usd"]]
    if stale:
        raise SystemExit(f"hardware/bom.csv has old prices for {stale}: run python hardware/circuit.py --out hardware")
    total = sum(int(r["qty"]) * float(r["unit_usd"]) for r in rows)
    parts = sum(int(r["qty"]) for r in rows if r["reference"])
    return ["", f"Schematic BOM (`python hardware/circuit.py --out hardware` writes `bom.csv` and `tray.net`): "
            f"{parts} parts on the netlist, {len(rows)} lines, total {total:.2f} USD = {total / CELLS:.2f} USD "
            f"per cell (target {TARGETS['usd_per_cell']}), power supply, USB cable, boards and tags "
            f"included; prices are estimates (see `data/parts.toml`)."]


def grid_report() -> list[str]:
    games = {}
    for path in sorted((HERE / "data" / "grid").glob("*.toml")):
        games.update(tomllib.loads(path.read_text())["games"])
    if not games:
        return []
    sizes = list(next(iter(games.values()))["fits"])
    lines = ["", "Grid size (`python hardware/grid_size.py`, greedy bots' hands on a stretched tray; share of "
             "hands each grid holds without sliding):", "",
             "| game | hands | layout | cols p50/p99/max | rows p50/p99/max | cells p99 | " + " | ".join(sizes) + " |",
             "|---" * (6 + len(sizes)) + "|"]
    for name, g in games.items():
        kind = g["layout"]
        cols, rows = (g["centred_cols"], g["centred_rows"]) if kind == "centred" else (g["corner_cols"], g["corner_rows"])
        lines.append(f"| {name} | {g['hands']} | {kind} | {cols['p50']}/{cols['p99']}/{cols['max']} | "
                     f"{rows['p50']}/{rows['p99']}/{rows['max']} | {g['cells']['p99']} | "
                     + " | ".join(f"{100 * g['fits'][size]:.1f} %" for size in sizes) + " |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="refresh the generated block of DESIGN.md")
    args = parser.parse_args(argv)
    text = report()
    if not args.write:
        print(text)
        return 0
    for name, begin, end, block in (("DESIGN.md", BEGIN, END, text),
                                     ("README.md", BOM_BEGIN, BOM_END, bom_report()[-1])):
        path = HERE / name
        doc = path.read_text()
        start, stop = doc.index(begin) + len(begin), doc.index(end)
        path.write_text(doc[:start] + "\n" + block + "\n" + doc[stop:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
