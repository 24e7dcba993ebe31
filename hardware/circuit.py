"""The tray's boards as code (SKiDL, KiCad 6's own symbols): architecture b2 of DESIGN.md
(hardware/data/architecture.toml), one reader per 2 x 2 block of cells.

    python hardware/circuit.py --out DIR

builds each board, runs SKiDL's ERC and the checks of hardware/checks.py (every pin against its
library symbol and data sheet, power pins on power nets, pads, values against part numbers, the
firmware's pin map), and exits 1 on any fault. Then it writes, per board, DIR/<board>.net (a
KiCad netlist) and BOM DIR/<board>-bom.csv; and DIR/bom.csv, the whole tray's (boards times
their count, and what is bought but not soldered). The boards themselves, routed, checked and
plotted by KiCad, are hardware/fab.py's.

The boards:
- cell (12 of them, 4 x 4 cells, 100 x 100 mm): four readers, each with its crystal, supply
  decouplers, EMC filter and matching network (AN1445), four cell coils on the top copper, each
  on its own SPDT analog switch (TS5A3159, on the block's switch rail, biased at half of it)
  that puts it on the network while the board's coil select for it is low and shorts it
  otherwise, and a tri-state buffer on the reader's MISO enabled by its chip select; a 74HC139
  decoding the board's enable and two line-address bits into the four chip selects (its first
  half) and the coil index C0, C1 into the four coil selects (its second half); an LED under
  each cell; a cable in and a cable out (2 x 10, 2.54 mm) whose enable lines shift by one from
  in to out, so that identical boards in a chain each take the next enable; ESD arrays on the
  incoming signal lines.
- controller (1): the 5 V input (jack, polyfuse, TVS), the buck to 3.3 V, the Pico (VSYS
  from 5 V through a Schottky diode; its USB lines, at its test pads, through an ESD array), the
  bank decoder (74HC154: a board's enable), the three cables' drivers (74LVC244,
  series-terminated) and MISO buffers (which cable's MISO reaches the trunk: a 74LVC1G139 on the
  bank address's upper bits), the scan pad's reader with its two coils, and the REPL jumper on
  GP22 (the RP2040's own pull-up: none on the board).

Part numbers, values and footprints come from hardware/data/parts.toml: a passive is picked by
its value, and a value that no part number carries is an error, never another value's part.
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import csv
import io
import logging
import sys
import tempfile
import tomllib
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import dimensions  # noqa: E402
import firmware_pins  # noqa: E402
import kicad  # noqa: E402
import pcb  # noqa: E402
from cable import BOARDS_PER_CABLE, CABLE, CABLE_SIGNALS  # noqa: E402

DATA = tomllib.loads((HERE / "data" / "parts.toml").read_text())
PARTS = dimensions.fill(DATA["parts"])  # the BOM's lines name the shared dimensions
META = DATA["meta"]
ARCH = tomllib.loads((HERE / "data" / "architecture.toml").read_text())
PINOUTS = tomllib.loads((HERE / "data" / "pinouts.toml").read_text())
BOM_COLUMNS = ["reference", "qty", "value", "mpn", "manufacturer", "unit_usd", "source"]
POWER_NETS = ("GND", "+3V3", "+5V")  # the supplies every board shares through the cables

def _pf(pf: float) -> str:
    return f"{pf / 1000:g}nF" if pf >= 1000 else f"{pf:g}pF"


def _nh(nh: float) -> str:
    return f"{nh / 1000:g}uH" if nh >= 1000 else f"{nh:g}nH"


# Per side of the balanced antenna network (AN1445 topology): L0, C0, C1, C2 are the RF model's
# (design.py writes them into architecture.toml [network]); the receive path is AN1445's (1 nF
# from the antenna node, 1 k to RX, 1 k on to VMID); the crystal's load capacitors give the
# MFRC522's 10 pF load (data sheet 8.7) with ~2.5 pF of stray per pin; 10 k feeds the 2.5 V
# bias (architecture.toml [switch]) onto each antenna node.
_RF = ARCH["network"]
NETWORK = {"L0": _nh(_RF["l0_nh"]), "C0": _pf(_RF["c0_pf"]), "C1": _pf(_RF["c1_pf"]), "C2": _pf(_RF["c2_pf"]),
           "CRX": "1nF", "RRX": "1k", "XTAL_LOAD": "15pF", "BIAS_FEED": "10k",
           "BIAS": f"{ARCH['switch']['bias_divider_ohm'] / 1000:g}k",
           "RAIL_FEED": f"{ARCH['switch']['rail_feed_ohm'] / 1000:g}k"}
WIRING_LIGHTS = tomllib.loads((HERE / "wiring.toml").read_text())["lights"]


wiring = firmware_pins.wiring


def part_key(symbol: str, value: str) -> str:
    """The parts.toml entry that is a `symbol` part of `value`: one part number per value."""
    found = [k for k, p in PARTS.items() if p.get("symbol") == symbol and p["value"] == value]
    if not found:
        raise KeyError(f"no part in hardware/data/parts.toml is a {symbol} of value {value}: add its part number")
    return found[0]


def _names(symbol_name: str) -> dict[str, str]:
    """The data sheet's pin names (pinouts.toml) for a symbol whose library pins are unnamed."""
    for table in PINOUTS.values():
        if table["symbol"] == symbol_name:
            return {num: name for num, (name, _type) in table["pins"].items()}
    return {}


class Board:
    """One board: a SKiDL circuit with its parts taken from parts.toml."""

    def __init__(self, name: str):
        from skidl import Circuit

        self.name = name
        self.circuit = Circuit()
        self.circuit.no_files = True  # no ERC report or log beside the caller
        self.nets: dict[str, object] = {}
        self.keys: dict[str, str] = {}  # reference -> parts.toml key

    def net(self, name: str):
        from skidl import POWER, Net

        if name not in self.nets:
            self.nets[name] = Net(name, circuit=self.circuit)
            if name in POWER_NETS:
                self.nets[name].drive = POWER
        return self.nets[name]

    def part(self, key: str, fields: dict | None = None, **pins):
        """Place the part of parts.toml `key`; connect `pins` (data sheet name or number -> net
        name, or None for no connection). Every pin of that name is connected."""
        from skidl import KICAD6, Part

        spec = PARTS[key]
        lib, _, name = spec["symbol"].partition(":")
        footprint = pcb.loop_footprint() if key == "antenna" else spec["footprint"]
        part = Part(lib, name, value=spec["value"], footprint=footprint, circuit=self.circuit, tool=KICAD6)
        part.fields["MPN"] = spec["mpn"]
        part.fields["Manufacturer"] = spec["manufacturer"]
        part.fields["Key"] = key
        for label, text in (fields or {}).items():
            part.fields[label] = str(text)
        self.keys[part.ref] = key
        aliases = _names(spec["symbol"])
        for pin_name, net_name in pins.items():
            self.connect(part, pin_name, net_name, aliases)
        return part

    def passive(self, symbol: str, value: str, a: str, b: str, fields: dict | None = None):
        return self.part(part_key(symbol, value), fields, **{"1": a, "2": b})

    def connect(self, part, pin_name: str, net_name: str | None, aliases: dict):
        """A pin by number, else every pin of exactly that name (GND), else the one pin that has
        it among its functions (NSS of SDA/NSS/RX) or as its data sheet name."""
        pins = [p for p in part.pins if str(p.num) == pin_name] or [p for p in part.pins if p.name == pin_name]
        if not pins:
            pins = [p for p in part.pins if pin_name in p.name.split("/") or aliases.get(str(p.num)) == pin_name]
            if len(pins) > 1:
                raise KeyError(f"{part.ref} ({part.name}): {pin_name} names pins {[p.num for p in pins]}")
        if not pins:
            raise KeyError(f"{part.ref} ({part.name}) has no pin {pin_name}")
        for pin in pins:
            pin += self.circuit.NC if net_name is None else self.net(net_name)


def symbols_used() -> list[tuple[str, str]]:
    return sorted({tuple(p["symbol"].split(":")) for p in PARTS.values() if "symbol" in p})


def prepare_skidl(libdir: Path) -> None:
    """Point SKiDL at a library of only the symbols the boards use, cut from KiCad's files."""
    with contextlib.redirect_stderr(io.StringIO()):  # its import-time warnings about KiCad's setup
        import skidl

    logging.getLogger("skidl").setLevel(logging.ERROR)
    builtins.default_circuit.no_files = True  # no log beside the caller at exit either
    # SKiDL records where each part and net was made through inspect.stack(), most of a run's
    # time (35 ms each); the boards' netlists leave it out.
    import skidl.circuit

    skidl.circuit.get_skidl_trace = list
    by_lib = defaultdict(list)
    for lib, name in symbols_used():
        by_lib[lib].append((lib, name))
    for lib, names in by_lib.items():
        kicad.write_symbol_library(libdir / f"{lib}.kicad_sym", names)
    skidl.set_default_tool(skidl.KICAD6)
    skidl.lib_search_paths[skidl.KICAD6] = [str(libdir)]


# --- the cell board --------------------------------------------------------------------------------

def reader_block(board: Board, block: int, coils: list[dict], nss: str, sck: str, mosi: str, miso: str,
                 rst: str) -> None:
    """One reader and its block's coils. `coils` gives each coil's fields (its cell on the board),
    the net driving its switch ("Select") and whether that net low ("low") or high puts it on the
    network (architecture.toml [switch]): the throw it takes then is the network, the other the
    block's common node, which shorts the coil."""
    p = f"B{block}_"
    f = {"Block": block}
    n = NETWORK
    tvdd = f"+3V3_TVDD_B{block}"  # through 1 ohm: its two ends are the test points of the reader's field current
    board.part("reader", f, I2C="GND", PVDD="+3V3", DVDD="+3V3", DVSS="GND", PVSS="GND", NRSTPD=rst,
               MFIN="GND", MFOUT=None, SVDD="+3V3", TVSS="GND", TX1=p + "TX1", TVDD=tvdd, TX2=p + "TX2",
               AVDD="+3V3", VMID=p + "VMID", RX=p + "RX", AVSS="GND", AUX1=None, AUX2=None, OSCIN=p + "XIN",
               OSCOUT=p + "XOUT", IRQ=None, NSS=nss, D1=None, D2=None, D3=None, D4=None, SCK=sck, MOSI=mosi,
               MISO=p + "MISO", EA="+3V3", EP="GND")
    board.part("xtal27", f, **{"1": p + "XIN", "3": p + "XOUT", "2": "GND", "4": "GND"})
    for node in ("XIN", "XOUT"):
        board.passive("Device:C", n["XTAL_LOAD"], p + node, "GND", f)
    for _ in range(3):  # DVDD, AVDD, PVDD
        board.passive("Device:C", "100nF", "+3V3", "GND", f)
    board.passive("Device:R", "1R", "+3V3", tvdd, f)
    board.passive("Device:C", "100nF", tvdd, "GND", f)
    board.passive("Device:C", "4.7uF", tvdd, "GND", f)
    board.passive("Device:C", "100nF", p + "VMID", "GND", f)
    for side in ("1", "2"):  # the EMC filter and matching of each side of the balanced network
        emc, ant = p + "EMC" + side, p + "ANT" + side
        board.passive("Device:L", n["L0"], p + "TX" + side, emc, f)
        board.passive("Device:C", n["C0"], emc, "GND", f)
        board.passive("Device:C", n["C1"], emc, ant, f)
        board.passive("Device:C", n["C2"], ant, "GND", f)
        board.passive("Device:R", n["BIAS_FEED"], p + "BIAS", ant, f)  # the coils' and switches' VSW / 2
    board.passive("Device:C", n["CRX"], p + "ANT1", p + "RXC", f)
    board.passive("Device:R", n["RRX"], p + "RXC", p + "RX", f)
    board.passive("Device:R", n["RRX"], p + "RX", p + "VMID", f)
    vsw = f"+VSW_B{block}"  # the block's switch rail: 5 V through the feed into the bias divider
    board.passive("Device:R", n["RAIL_FEED"], "+5V", vsw, f)
    board.passive("Device:C", "100nF", vsw, "GND", f)
    board.passive("Device:R", n["BIAS"], vsw, p + "BIAS", f)
    board.passive("Device:R", n["BIAS"], p + "BIAS", "GND", f)
    board.passive("Device:C", "100nF", p + "BIAS", "GND", f)
    for k, coil in enumerate(coils):
        end = f"{p}COIL{k}"
        network, common = p + "ANT1", p + "ANT2"
        throws = {"NC": network, "NO": common} if coil["low"] else {"NC": common, "NO": network}
        board.part("coil_switch", {**f, "Coil": coil["Coil"]}, COM=end, GND="GND", IN=coil["Select"],
                   **throws, **{"V+": vsw})
        board.part("antenna", {**f, "Cell": coil["Cell"], "Coil": coil["Coil"]}, **{"1": end, "2": common})
    board.part("buffer", f, OE=nss, A=p + "MISO", Y=miso, GND="GND", VCC="+3V3")
    board.passive("Device:C", "100nF", "+3V3", "GND", f)


def cable_header(board: Board, ref_field: str, names: dict[str, str]) -> None:
    """The cable's header: pin n on the net `names` gives CABLE[n - 1] (its own name by default)."""
    board.part("cable_header", {"Cable": ref_field},
               **{str(i + 1): names.get(sig, sig) for i, sig in enumerate(CABLE)})


def esd(board: Board, nets: list[str]) -> None:
    for i in range(0, len(nets), 5):
        group = nets[i:i + 5]
        board.part("esd", None, GND="GND", **{f"IO{j + 1}": group[j] if j < len(group) else None for j in range(5)})


def cell_board() -> Board:
    board = Board("cell")
    cols, rows = ARCH["boards"]["cell_board_cells"]
    bw, bh = ARCH["reader"]["block"]
    blocks_across = cols // bw
    cable_header(board, "in", {"LED": "LED_IN"})
    cable_header(board, "out", {"EN0": "EN1", "EN1": "EN2", "EN2": "EN3", "EN3": "EN_END", "LED": "LED_OUT"})
    board.passive("Device:R", "10k", "EN_END", "+3V3", None)  # the last board's out: nobody enabled
    esd(board, list(CABLE_SIGNALS))
    # 74HC139: unit 1 decodes EN0 and A0, A1 into the four chip selects; unit 2, always enabled,
    # decodes the coil index C0, C1 into the coil selects SEL0-SEL3 (low: coil k on its network)
    board.part("line_decoder", None, **{"1": "EN0", "2": "A0", "3": "A1", "4": "CS0", "5": "CS1", "6": "CS2",
                                         "7": "CS3", "15": "GND", "14": "C0", "13": "C1", "12": "SEL0",
                                         "11": "SEL1", "10": "SEL2", "9": "SEL3", "16": "+3V3", "8": "GND"})
    board.passive("Device:C", "100nF", "+3V3", "GND", None)
    for _ in range(2):
        board.passive("Device:C", "10uF", "+3V3", "GND", None)
    board.passive("Device:C", "10uF", "+5V", "GND", None)
    for block in range(cols // bw * rows // bh):
        br, bc = divmod(block, blocks_across)
        coils = [{"Cell": (br * bh + r) * cols + bc * bw + c, "Coil": k, "Select": f"SEL{k}", "low": True}
                 for k, (r, c) in enumerate((r, c) for r in range(bh) for c in range(bw))]
        reader_block(board, block, coils, f"CS{block}", "SCK", "MOSI", "MISO", "RST")
    serpentine = [r * cols + (c if r % 2 == 0 else cols - 1 - c) for r in range(rows) for c in range(cols)]
    light_chain(board, serpentine, "LED_IN", "LED_OUT")
    return board


def light_chain(board: Board, cells: list[int], din: str, dout: str) -> None:
    """An LED under each of `cells`, chained in that order from `din` to `dout`, each decoupled on
    the 5 V rail it runs from (wiring.toml [lights])."""
    nets = [din] + [f"LED_D{cell}" for cell in cells[:-1]] + [dout]
    for k, cell in enumerate(cells):
        board.part("led", {"Cell": cell}, DIN=nets[k], DOUT=nets[k + 1], VDD="+5V", VSS="GND")
        board.passive("Device:C", "100nF", "+5V", "GND", {"Cell": cell})


# --- the controller ---------------------------------------------------------------------------------

def controller_board(w: dict) -> Board:
    board = Board("controller")
    gp = {n: f"GP{n}" for n in range(29)}
    sck, mosi, miso, rst = gp[w["SCK"]], gp[w["MOSI"]], gp[w["MISO"]], gp[w["RESET"]]
    line, bank = [gp[n] for n in w["LINE_ADDRESS"]], [gp[n] for n in w["BANK_ADDRESS"]]
    coil_index = [gp[n] for n in w["COIL_SELECT"]]
    # 5 V in: jack, polyfuse, TVS (architecture.toml [power_input])
    board.part("barrel", None, **{"1": "VJACK", "2": "GND", "3": None})
    board.part("polyfuse", None, **{"1": "VJACK", "2": "+5V"})
    board.part("tvs", None, K="+5V", A="GND")
    for _ in range(2):
        board.passive("Device:C", "10uF", "+5V", "GND", None)
    # 3.3 V: TPS563201, 33 k over 10 k on VFB (0.768 V) gives 3.30 V
    board.part("buck", None, VIN="+5V", GND="GND", SW="SW", VBST="BST", EN="+5V", VFB="FB")
    board.passive("Device:C", "100nF", "BST", "SW", None)
    board.passive("Device:L", "2.2uH", "SW", "+3V3", None)
    board.passive("Device:R", "33k", "+3V3", "FB", None)
    board.passive("Device:R", "10k", "FB", "GND", None)
    board.passive("Device:C", "100nF", "+5V", "GND", None)
    for _ in range(2):
        board.passive("Device:C", "10uF", "+3V3", "GND", None)
    # the Pico: VSYS from 5 V through a Schottky diode (USB can power it too); its own 3V3 stays its own
    board.part("schottky", None, K="VSYS", A="+5V")
    used = {w["SCK"], w["MOSI"], w["MISO"], w["STROBE"], w["RESET"], w["REPL_JUMPER"],
            *w["LINE_ADDRESS"][:2], *w["BANK_ADDRESS"], *w["LIGHT_PINS"], *w["COIL_SELECT"]}
    pico = {f"GP{n}": (gp[n] if n in used else None) for n in (*range(23), 26, 27, 28)}
    board.part("pico", None, VSYS="VSYS", GND="GND", AGND="GND", VBUS="VBUS", RUN=None, ADC_VREF=None,
               USB_DP="USB_DP", USB_DM="USB_DM", **{"3V3(OUT)": None, "3V3_EN": None}, **pico)
    # its USB lines at the module's test pads (TP3, TP2; TP1 its ground), each across one line of an
    # ESD array whose clamp rail is the Pico's VBUS (the USBLC6-2's application circuit)
    board.part("usb_esd", None, **{"I/O1": "USB_DP", "I/O2": "USB_DM", "VBUS": "VBUS", "GND": "GND"})
    board.part("jumper_header", None, **{"1": gp[w["REPL_JUMPER"]], "2": "GND"})  # fitted at boot: the REPL
    board.passive("Device:R", "10k", miso, "GND", None)  # no reader answering reads 0x00
    # the bank decoder: output b enables board b (cable b // 4, the (b % 4)-th down its chain), 12 the pad
    cables = -(-ARCH["boards"]["cell_boards"] // BOARDS_PER_CABLE)
    outputs = {f"S{i}": f"C{i // BOARDS_PER_CABLE}_EN{i % BOARDS_PER_CABLE}"
               for i in range(cables * BOARDS_PER_CABLE)}
    pad_bank = cables * BOARDS_PER_CABLE
    outputs[f"S{pad_bank}"] = "PAD_CS"
    board.part("decoder", None, A0=bank[0], A1=bank[1], A2=bank[2], A3=bank[3], E0=gp[w["STROBE"]], E1="GND",
               VCC="+3V3", GND="GND", **{f"S{i}": outputs.get(f"S{i}") for i in range(16)})
    board.passive("Device:C", "100nF", "+3V3", "GND", None)
    # which cable's MISO reaches the trunk: the bank address's upper bits
    board.part("cable_decoder", None, A=bank[2], B=bank[3], Y0="C0_MISOEN", Y1="C1_MISOEN", Y2="C2_MISOEN",
               Y3=None, GND="GND", VCC="+3V3")
    board.passive("Device:C", "100nF", "+3V3", "GND", None)
    for c in range(cables):
        driven = {"SCK": sck, "MOSI": mosi, "RST": rst, "A0": line[0], "A1": line[1], "C0": coil_index[0],
                  "C1": coil_index[1]}
        ins = ("1A0", "1A1", "1A2", "1A3", "2A0", "2A1", "2A2")
        outs = ("1Y0", "1Y1", "1Y2", "1Y3", "2Y0", "2Y1", "2Y2")
        pins = {"1OE": "GND", "2OE": "GND", "VCC": "+3V3", "GND": "GND", "2A3": "GND", "2Y3": None}
        for (sig, src), a, y in zip(driven.items(), ins, outs):
            pins[a], pins[y] = src, f"C{c}_{sig}_DRV"
        board.part("octal_buffer", {"Cable": c}, **pins)
        board.passive("Device:C", "100nF", "+3V3", "GND", None)
        for sig in driven:  # series termination at the driver
            board.passive("Device:R", "33R", f"C{c}_{sig}_DRV", f"C{c}_{sig}", {"Cable": c})
        board.part("buffer", {"Cable": c}, OE=f"C{c}_MISOEN", A=f"C{c}_MISO", Y=miso, GND="GND", VCC="+3V3")
        board.passive("Device:C", "100nF", "+3V3", "GND", None)
        board.passive("Device:R", "10k", f"C{c}_MISO", "GND", {"Cable": c})  # no board answering: 0
        names = {sig: f"C{c}_{sig}" for sig in (*CABLE_SIGNALS, "LED")}
        cable_header(board, str(c), names)
        esd(board, [names[s] for s in CABLE_SIGNALS])
    # the light chains: each GPIO through a 5 V buffer (the LEDs' input high is 0.7 x 5 V) and a
    # series termination; chain pad_chain runs through the scan pad's two LEDs first
    for c, gp_n in enumerate(w["LIGHT_PINS"]):
        board.part("led_buffer", {"Cable": c}, OE="GND", A=gp[gp_n], Y=f"C{c}_LED_DRV", GND="GND", VCC="+5V")
        board.passive("Device:C", "100nF", "+5V", "GND", None)
        start = f"C{c}_LED_PAD" if c == WIRING_LIGHTS["pad_chain"] else f"C{c}_LED"
        board.passive("Device:R", "33R", f"C{c}_LED_DRV", start, {"Cable": c})
        if c == WIRING_LIGHTS["pad_chain"]:
            light_chain(board, [0, 1], start, f"C{c}_LED")
    # the scan pad: one reader, two coils; bit 0 of the coil index picks one (coil 0 on the network
    # while it is low, coil 1 while it is high: their switches' throws are wired opposite ways)
    coils = [{"Cell": k, "Coil": k, "Select": coil_index[0], "low": k == 0}
             for k in range(ARCH["reader"]["coils_per_reader"] // 2)]
    reader_block(board, 0, coils, "PAD_CS", sck, mosi, miso, rst)
    return board


# --- output ----------------------------------------------------------------------------------------

_PIN_TYPES = {"INPUT": "input", "OUTPUT": "output", "BIDIR": "bidirectional", "TRISTATE": "tri_state",
              "PASSIVE": "passive", "PULLUP": "passive", "PULLDN": "passive", "UNSPEC": "unspecified",
              "PWRIN": "power_in", "PWROUT": "power_out", "OPENCOLL": "open_collector",
              "OPENEMIT": "open_emitter", "NOCONNECT": "no_connect", "FREE": "free"}


def _ref_order(ref: str) -> tuple[str, int]:
    """R2 before R10."""
    prefix = ref.rstrip("0123456789")
    return prefix, int(ref[len(prefix):])


def netlist_text(board: Board) -> str:
    """The board as a KiCad 6 netlist (version E: every node with its pin's name and type)."""
    q = kicad.quote
    out = ['(export (version "E")', f'  (design (source {q("hardware/circuit.py")}) '
           f'(tool {q("dominotable hardware/circuit.py (SKiDL)")}))', "  (components"]
    for part in sorted(board.circuit.parts, key=lambda p: _ref_order(p.ref)):
        stamp = uuid.uuid5(uuid.NAMESPACE_URL, f"dominotable/{board.name}/{part.ref}")
        fields = "".join(f"\n        (field (name {q(k)}) {q(v)})" for k, v in sorted(part.fields.items())
                         if k in ("MPN", "Manufacturer", "Key", "Block", "Cell", "Coil", "Cable"))
        lib = Path(part.lib.filename).stem if part.lib else ""
        out.append(f"    (comp (ref {q(part.ref)})\n      (value {q(part.value)})\n"
                   f"      (footprint {q(part.footprint)})\n      (fields{fields})\n"
                   f"      (libsource (lib {q(lib)}) (part {q(part.name)}) (description \"\"))\n"
                   f'      (sheetpath (names "/") (tstamps "/"))\n      (tstamps {q(stamp)}))')
    out.append("  )\n  (nets")
    # a pin marked no-connect is a net of its own, named as KiCad names them
    nets = [(n.name, n.pins) for n in board.circuit.get_nets() if n.pins and n is not board.circuit.NC]
    nets += [(f"unconnected-({p.part.ref}-Pad{p.num})", [p]) for p in board.circuit.NC.pins]
    for code, (name, pins) in enumerate(sorted(nets), 1):
        nodes = "".join(f"\n      (node (ref {q(p.part.ref)}) (pin {q(p.num)}) (pinfunction {q(p.name)}) "
                        f"(pintype {q(_PIN_TYPES[p.func.name])}))"
                        for p in sorted(pins, key=lambda p: (p.part.ref, str(p.num))))
        out.append(f"    (net (code {q(code)}) (name {q(name)}){nodes})")
    out.append("  )\n)")
    return "\n".join(out) + "\n"


def erc_errors(board: Board) -> int:
    from skidl.logger import erc_logger

    board.circuit.ERC()
    return erc_logger.error.count


def board_bom(board: Board) -> list[dict]:
    groups: dict[str, list[str]] = defaultdict(list)
    for ref, key in board.keys.items():
        groups[key].append(ref)
    rows = []
    for key, refs in sorted(groups.items(), key=lambda kv: kv[1][0]):
        spec = PARTS[key]
        refs.sort(key=_ref_order)
        rows.append({"reference": " ".join(refs), "qty": len(refs), "value": spec["value"], "mpn": spec["mpn"],
                     "manufacturer": spec["manufacturer"], "unit_usd": spec["unit_usd"],
                     "source": f"{spec['source']} ({META['price_date']})"})
    return rows


def tray_counts() -> dict[str, int]:
    """How many of each board one tray takes."""
    return {"cell": ARCH["boards"]["cell_boards"], "controller": 1}


TILES = 28  # a double-six set
TAG_SETS = 2  # the set in play and a second (a spare set, or two games side by side)


def extras() -> list[tuple[str, int]]:
    """Bought, not soldered: (parts.toml key, quantity per tray)."""
    return [("psu", 1), ("otg_cable", 1), ("cable", ARCH["boards"]["cell_boards"]), ("jumper", 1),
            ("tag", TAG_SETS * TILES * 2 + 4), ("dot", TAG_SETS * TILES * 2 * 2), ("standoff", len(dimensions.holes()))]


def tray_bom(boms: dict[str, list[dict]]) -> list[dict]:
    rows = []
    for name, count in tray_counts().items():
        for row in boms[name]:
            rows.append({**row, "reference": f"{name} x{count}: {row['reference']}", "qty": row["qty"] * count})
    for key, qty in extras():
        spec = PARTS[key]
        rows.append({"reference": "", "qty": qty, "value": spec["value"], "mpn": spec["mpn"],
                     "manufacturer": spec["manufacturer"], "unit_usd": spec["unit_usd"],
                     "source": f"{spec['source']} ({META['price_date']})"})
    return rows


def write_csv(path: Path, rows: list[dict], columns: list[str]) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def build(w: dict, libdir: Path) -> list[Board]:
    prepare_skidl(libdir)
    return [cell_board(), controller_board(w)]


@dataclass
class Built:
    nets: dict[str, kicad.Netlist] = field(default_factory=dict)
    placed: dict[str, "pcb.Board"] = field(default_factory=dict)
    boms: dict[str, list[dict]] = field(default_factory=dict)
    faults: list[str] = field(default_factory=list)

    @property
    def tray_bom(self) -> list[dict]:
        return tray_bom(self.boms)


def generate(w: dict, out: Path) -> Built:
    """Build, check, place and write every board into `out`; the faults found, if any."""
    import checks

    out.mkdir(parents=True, exist_ok=True)
    built = Built()
    with tempfile.TemporaryDirectory() as tmp:
        boards = build(w, Path(tmp))
        for board in boards:
            errors = erc_errors(board)
            if errors:
                built.faults.append(f"{board.name}: SKiDL's ERC: {errors} error(s)")
            path = out / f"{board.name}.net"
            path.write_text(netlist_text(board))
            built.nets[board.name] = kicad.read_netlist(path)
            built.boms[board.name] = board_bom(board)
    for name, net in built.nets.items():
        faults = checks.netlist_faults(net)
        faults += (checks.firmware_faults(net, w) + checks.usb_faults(net) if name == "controller"
                   else checks.cell_faults(net))
        placed = pcb.place(name, net)
        faults += pcb.placement_faults(placed, net)
        built.faults += [f"{name}: {fault}" for fault in faults]
        built.placed[name] = placed
        write_csv(out / f"{name}-bom.csv", built.boms[name], BOM_COLUMNS)
    built.faults += checks.select_faults(built.nets["cell"], built.nets["controller"], w)
    import ratings

    built.faults += ratings.faults()
    if not built.faults:
        write_csv(out / "bom.csv", built.tray_bom, BOM_COLUMNS)
    return built


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the netlists, boards and BOMs")
    parser.add_argument("--wiring", type=Path, help="another wiring.toml (default: hardware/wiring.toml)")
    parser.add_argument("--tray", type=Path, help="another tray.toml (default: hardware/tray.toml)")
    args = parser.parse_args(argv)
    try:
        w = wiring(args.wiring, args.tray)
    except ValueError as e:
        print(f"wiring: {e}", file=sys.stderr)
        return 2
    built = generate(w, args.out)
    if built.faults:
        print("\n".join(built.faults), file=sys.stderr)
        print(f"{len(built.faults)} fault(s): no tray BOM written", file=sys.stderr)
        return 1
    total = sum(float(r["qty"]) * float(r["unit_usd"]) for r in built.tray_bom)
    sizes = ", ".join(f"{name} {b.width:g} x {b.height:g} mm, {len(b.parts)} footprints"
                      for name, b in built.placed.items())
    print(f"checks clean; {sizes}; the tray's parts {total:.2f} USD; written to {args.out} "
          f"(the all-in cost: python hardware/cost.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
