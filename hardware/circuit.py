"""The tray's schematic as code (SKiDL): the chosen design (a2) of hardware/DESIGN.md.

    python hardware/circuit.py --out DIR

runs the electrical rules check, exits non-zero on any ERC error, and writes DIR/tray.net
(a KiCad netlist) and DIR/bom.csv (reference,qty,value,mpn,manufacturer,unit_usd,source):
every part of the netlist, plus what is bought but not soldered (power supply, USB cable,
boards, tags), priced from hardware/data/parts.toml. Parts are defined here pin by pin
(SKiDL's own part definitions), so no KiCad library is needed.

What it holds, from the 5 V input down to every cell:
- controller board: DC jack, TPS563201 buck to 3.3 V with its inductor, feedback divider and
  capacitors; the Pico (powered from 5 V through a Schottky diode on VSYS, USB to the Pi);
  the 27.12 MHz oscillator; the bank decoder (74HC154) whose outputs enable the cell
  decoders; the scan pad's decoder and two readers;
- per row board (two cell rows): an SN74LVC244A driving SCK, MOSI, the 27.12 MHz clock and
  the readers' reset onto the board, a tri-state buffer putting the board's MISO on the trunk
  while one of its decoders is enabled (a 74LVC1G08 ANDs the two active-low enables), two
  74HC154 cell decoders, bulk capacitors;
- per cell: the reader (MFRC522 class, SPI mode: I2C low, EA high; OSCIN from the shared
  clock), its four supply decouplers and VMID capacitor, the AN1445 antenna network (EMC
  filter L0/C0, series C1, parallel C2, damping resistors, receive divider and coupling
  capacitor), the etched loop, and a 74LVC1G125 isolating its MISO.

Which cell sits on which decoder output comes from hardware/wiring.toml (firmware/gen_pins.py
checks it against tray.toml): the netlist and the firmware cannot disagree.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import logging
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PARTS = tomllib.loads((HERE / "data" / "parts.toml").read_text())["parts"]
META = tomllib.loads((HERE / "data" / "parts.toml").read_text())["meta"]
ROWS_PER_BOARD = tomllib.loads((HERE / "data" / "parts.toml").read_text())["board"]["rows_per_board"]
BOM_COLUMNS = ["reference", "qty", "value", "mpn", "manufacturer", "unit_usd", "source"]
# Bought, not on the netlist: (part key, quantity as a function of the tray)
EXTRAS = (("psu", lambda w: 1), ("usb_cable", lambda w: 1), ("pcb_main", lambda w: 1),
          ("pcb_row", lambda w: w["boards"]), ("tag", lambda w: 2 * 28 + 4))
# Passive values by position in the antenna network (design.py computes C0/C1/C2 from the
# coil; these are the nearest E12 C0G values, per side of the balanced network).
VALUES = {"L0": "1.0uH", "C0": "120pF", "C1": "100pF", "C2": "560pF", "RQ": "1R", "RRX": "1k",
          "CRX": "1nF", "RVMID": "0R", "RFB_TOP": "33k", "RFB_BOT": "10k"}


def _gen_pins():
    spec = importlib.util.spec_from_file_location("gen_pins", ROOT / "firmware" / "gen_pins.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wiring(wiring_path: Path | None = None, tray_path: Path | None = None) -> dict:
    """The checked wiring (pins, chip-select codes) and the tray's shape."""
    gen_pins = _gen_pins()
    values = gen_pins.load(wiring_path or gen_pins.WIRING, tray_path or gen_pins.TRAY)
    rows = values["ROWS"]
    values["boards"] = -(-rows // ROWS_PER_BOARD)
    return values


def build(w: dict):
    """Describe the circuit in SKiDL's default circuit; returns the part keys by reference."""
    import builtins

    from skidl import POWER, SKIDL, TEMPLATE, Net, Part, Pin

    logging.getLogger("skidl").setLevel(logging.ERROR)  # after the import: SKiDL sets up its loggers

    NC = builtins.NC  # SKiDL's no-connect net lives in builtins, like its default circuit
    T = Pin.types
    keys: dict[str, str] = {}

    def template(name, prefix, pins, footprint):
        return Part(tool=SKIDL, name=name, ref_prefix=prefix, dest=TEMPLATE, footprint=footprint,
                    pins=[Pin(num=i + 1, name=n, func=f) for i, (n, f) in enumerate(pins)])

    def make(tmpl, key, value=None, **nets):
        part = tmpl(value=value or PARTS[key]["value"])
        part.fields["MPN"] = PARTS[key]["mpn"]
        part.fields["Manufacturer"] = PARTS[key]["manufacturer"]
        keys[part.ref] = key
        for pin, net in nets.items():
            part[pin] += net
        return part

    passive2 = [("1", T.PASSIVE), ("2", T.PASSIVE)]
    R = template("R", "R", passive2, "Resistor_SMD:R_0603_1608Metric")
    C = template("C", "C", passive2, "Capacitor_SMD:C_0603_1608Metric")
    C805 = template("C", "C", passive2, "Capacitor_SMD:C_0805_2012Metric")
    L = template("L", "L", passive2, "Inductor_SMD:L_0603_1608Metric")
    LP = template("L", "L", passive2, "Inductor_SMD:L_Sunlord_SWPA4030S")
    ANT = template("Antenna_Loop", "AE", passive2, "dominotable:Loop_20mm_3turns")
    D = template("D_Schottky", "D", [("K", T.PASSIVE), ("A", T.PASSIVE)], "Diode_SMD:D_SMA")
    JACK = template("Barrel_Jack", "J", [("VIN", T.PWROUT), ("GND", T.PWROUT)], "Connector_BarrelJack:BarrelJack_Horizontal")
    BUCK = template("TPS563201", "U", [("GND", T.PWRIN), ("SW", T.PWROUT), ("VIN", T.PWRIN), ("VFB", T.INPUT),
                                       ("EN", T.INPUT), ("VBST", T.PASSIVE)], "Package_TO_SOT_SMD:SOT-23-6")
    OSC = template("Oscillator_27M12", "X", [("EN", T.INPUT), ("GND", T.PWRIN), ("OUT", T.OUTPUT), ("VDD", T.PWRIN)],
                   "Oscillator:Oscillator_SMD_2.5x2.0mm")
    gp_used = sorted(set((w["SCK"], w["MOSI"], w["MISO"], w["STROBE"], w["RESET"], w["REPL_JUMPER"])
                         + w["LINE_ADDRESS"] + w["BANK_ADDRESS"]))
    PICO = template("Pico", "A", [("VSYS", T.PWRIN), ("GND", T.PWRIN)]
                    + [(f"GP{n}", T.INPUT if n == w["MISO"] or n == w["REPL_JUMPER"] else T.OUTPUT)
                       for n in gp_used], "dominotable:RaspberryPi_Pico_SMD")
    DEC = template("74HC154", "U", [(f"Y{i}", T.OUTPUT) for i in range(16)]
                   + [("A0", T.INPUT), ("A1", T.INPUT), ("A2", T.INPUT), ("A3", T.INPUT), ("E1", T.INPUT),
                      ("E2", T.INPUT), ("VCC", T.PWRIN), ("GND", T.PWRIN)], "Package_SO:TSSOP-24_4.4x7.8mm_P0.65mm")
    BUF8 = template("74LVC244", "U", [(f"A{i}", T.INPUT) for i in range(8)] + [(f"Y{i}", T.OUTPUT) for i in range(8)]
                    + [("OE1", T.INPUT), ("OE2", T.INPUT), ("VCC", T.PWRIN), ("GND", T.PWRIN)],
                    "Package_SO:TSSOP-20_4.4x6.5mm_P0.65mm")
    BUF1 = template("74LVC1G125", "U", [("OE", T.INPUT), ("A", T.INPUT), ("GND", T.PWRIN), ("Y", T.TRISTATE),
                                        ("VCC", T.PWRIN)], "Package_TO_SOT_SMD:SOT-23-5")
    AND1 = template("74LVC1G08", "U", [("A", T.INPUT), ("B", T.INPUT), ("GND", T.PWRIN), ("Y", T.OUTPUT),
                                       ("VCC", T.PWRIN)], "Package_TO_SOT_SMD:SOT-23-5")
    # MFRC522 HVQFN32, SPI mode (MFRC522 data sheet Table 3 pin names; D1-D4, AUX, MFOUT, IRQ unused)
    READER = template("MFRC522", "U", [
        ("I2C", T.INPUT), ("PVDD", T.PWRIN), ("DVDD", T.PWRIN), ("DVSS", T.PWRIN), ("PVSS", T.PWRIN),
        ("NRSTPD", T.INPUT), ("MFIN", T.INPUT), ("MFOUT", T.OUTPUT), ("SVDD", T.PWRIN), ("TVSS1", T.PWRIN),
        ("TX1", T.OUTPUT), ("TVDD", T.PWRIN), ("TX2", T.OUTPUT), ("TVSS2", T.PWRIN), ("AVDD", T.PWRIN),
        ("VMID", T.PASSIVE), ("RX", T.INPUT), ("AVSS", T.PWRIN), ("AUX1", T.OUTPUT), ("AUX2", T.OUTPUT),
        ("OSCIN", T.INPUT), ("OSCOUT", T.OUTPUT), ("IRQ", T.OUTPUT), ("NSS", T.INPUT), ("D1", T.BIDIR),
        ("D2", T.BIDIR), ("D3", T.BIDIR), ("D4", T.BIDIR), ("SCK", T.INPUT), ("MOSI", T.INPUT),
        ("MISO", T.TRISTATE), ("EA", T.INPUT)], "Package_DFN_QFN:QFN-32-1EP_5x5mm_P0.5mm_EP3.45x3.45mm")

    vin, v33, gnd = Net("VIN_5V"), Net("+3V3"), Net("GND")
    for net in (vin, v33, gnd):
        net.drive = POWER

    def decouple(key="cap_100n", tmpl=C, value=None):
        make(tmpl, key, value, **{"1": v33, "2": gnd})

    # --- power ---
    make(JACK, "barrel", VIN=vin, GND=gnd)
    sw, fb, bst = Net("BUCK_SW"), Net("BUCK_FB"), Net("BUCK_BST")
    buck = make(BUCK, "buck", GND=gnd, SW=sw, VIN=vin, VFB=fb, EN=vin, VBST=bst)
    make(C, "cap_100n", None, **{"1": bst, "2": sw})
    make(LP, "buck_inductor", None, **{"1": sw, "2": v33})
    v33.drive = POWER  # the buck's inductor makes it
    make(R, "resistor", VALUES["RFB_TOP"], **{"1": v33, "2": fb})
    make(R, "resistor", VALUES["RFB_BOT"], **{"1": fb, "2": gnd})
    for _ in range(2):
        make(C805, "cap_10u", None, **{"1": vin, "2": gnd})
        make(C805, "cap_10u", None, **{"1": v33, "2": gnd})
    del buck

    # --- controller ---
    vsys = Net("PICO_VSYS")
    vsys.drive = POWER  # 5 V through the diode
    make(D, "schottky", K=vsys, A=vin)
    pico = make(PICO, "pico", VSYS=vsys, GND=gnd)
    gp = {n: Net(f"GP{n}") for n in gp_used}
    for n, net in gp.items():
        pico[f"GP{n}"] += net
    make(R, "resistor", "10k", **{"1": gp[w["MISO"]], "2": gnd})  # MISO pull-down: no reader reads 0x00
    make(R, "resistor", "10k", **{"1": gp[w["REPL_JUMPER"]], "2": v33})  # jumper to GND opens the REPL
    clk = Net("CLK_27M12")
    make(OSC, "osc27", EN=v33, GND=gnd, OUT=clk, VDD=v33)
    decouple()
    bank_dec = make(DEC, "decoder", A0=gp[w["BANK_ADDRESS"][0]], A1=gp[w["BANK_ADDRESS"][1]],
                    A2=gp[w["BANK_ADDRESS"][2]], A3=gp[w["BANK_ADDRESS"][3]], E1=gp[w["STROBE"]], E2=gnd,
                    VCC=v33, GND=gnd)
    decouple()
    used_banks = sorted({code >> 4 for code in w["SELECT"]})
    enable = {i: Net(f"BANK_EN{i}") for i in used_banks}
    for i in range(16):
        bank_dec[f"Y{i}"] += enable.get(i, NC)
    line = [gp[n] for n in w["LINE_ADDRESS"]]
    miso_trunk = gp[w["MISO"]]

    def cell_decoder(bank, local_line, cs_nets):
        dec = make(DEC, "decoder", A0=local_line[0], A1=local_line[1], A2=local_line[2], A3=local_line[3],
                   E1=enable[bank], E2=gnd, VCC=v33, GND=gnd)
        decouple()
        for i in range(16):
            dec[f"Y{i}"] += cs_nets.get(i, NC)

    def reader(cell, cs, sck, mosi, miso, clock, reset):
        tx1, tx2, n1, n2, a1, a2 = (Net(f"C{cell}_{s}") for s in ("TX1", "TX2", "F1", "F2", "ANT1", "ANT2"))
        rx, vmid, rxc = Net(f"C{cell}_RX"), Net(f"C{cell}_VMID"), Net(f"C{cell}_RXC")
        loop1, loop2 = Net(f"C{cell}_LOOP1"), Net(f"C{cell}_LOOP2")
        u = make(READER, "reader", I2C=gnd, PVDD=v33, DVDD=v33, DVSS=gnd, PVSS=gnd, NRSTPD=reset, MFIN=gnd,
                 MFOUT=NC, SVDD=v33, TVSS1=gnd, TX1=tx1, TVDD=v33, TX2=tx2, TVSS2=gnd, AVDD=v33, VMID=vmid,
                 RX=rx, AVSS=gnd, AUX1=NC, AUX2=NC, OSCIN=clock, OSCOUT=NC, IRQ=NC, NSS=cs, D1=NC, D2=NC, D3=NC,
                 D4=NC, SCK=sck, MOSI=mosi, EA=v33)
        local_miso = Net(f"C{cell}_MISO")
        u["MISO"] += local_miso
        for _ in range(4):  # DVDD, AVDD, TVDD, PVDD
            decouple()
        make(C, "cap_100n", None, **{"1": vmid, "2": gnd})
        for tx, node, ant in ((tx1, n1, a1), (tx2, n2, a2)):
            make(L, "emc_inductor", VALUES["L0"], **{"1": tx, "2": node})
            make(C, "cap_c0g", VALUES["C0"], **{"1": node, "2": gnd})
            make(C, "cap_c0g", VALUES["C1"], **{"1": node, "2": ant})
            make(C, "cap_c0g", VALUES["C2"], **{"1": ant, "2": gnd})
        make(R, "resistor", VALUES["RQ"], **{"1": a1, "2": loop1})  # Q damping, in series with the loop
        make(R, "resistor", VALUES["RQ"], **{"1": a2, "2": loop2})
        make(ANT, "antenna", None, **{"1": loop1, "2": loop2})
        make(C, "cap_c0g", VALUES["CRX"], **{"1": a1, "2": rxc})
        make(R, "resistor", VALUES["RRX"], **{"1": rxc, "2": rx})
        make(R, "resistor", VALUES["RRX"], **{"1": rx, "2": vmid})
        make(BUF1, "buffer", OE=cs, A=local_miso, GND=gnd, Y=miso, VCC=v33)
        decouple()

    # --- row boards and the pad ---
    cells_of_bank = defaultdict(dict)
    for cell, code in enumerate(w["SELECT"]):
        cells_of_bank[code >> 4][code & 0x0F] = cell
    playing_banks = [b for b in used_banks if min(cells_of_bank[b].values()) < w["COLS"] * w["ROWS"]]
    for board in range(w["boards"]):
        banks = playing_banks[board * ROWS_PER_BOARD:(board + 1) * ROWS_PER_BOARD]
        sck, mosi, clock, reset = (Net(f"B{board}_{s}") for s in ("SCK", "MOSI", "CLK", "RST"))
        local_line = [Net(f"B{board}_A{i}") for i in range(4)]
        drv = make(BUF8, "octal_buffer", OE1=gnd, OE2=gnd, VCC=v33, GND=gnd)
        for i, (src, dst) in enumerate(zip([gp[w["SCK"]], gp[w["MOSI"]], clk, gp[w["RESET"]]] + line,
                                           [sck, mosi, clock, reset] + local_line)):
            drv[f"A{i}"] += src
            drv[f"Y{i}"] += dst
        decouple()
        for _ in range(2):
            decouple("cap_10u", C805)
        miso = Net(f"B{board}_MISO")
        any_enabled = Net(f"B{board}_SEL")
        make(AND1, "and_gate", A=enable[banks[0]], B=enable[banks[-1]], GND=gnd, Y=any_enabled, VCC=v33)
        decouple()
        make(BUF1, "buffer", OE=any_enabled, A=miso, GND=gnd, Y=miso_trunk, VCC=v33)
        decouple()
        for bank in banks:
            cs_nets = {i: Net(f"CS{cell}") for i, cell in cells_of_bank[bank].items()}
            cell_decoder(bank, local_line, cs_nets)
            for i, cell in cells_of_bank[bank].items():
                reader(cell, cs_nets[i], sck, mosi, miso, clock, reset)
    for bank in used_banks:
        if bank in playing_banks:
            continue
        cs_nets = {i: Net(f"CS{cell}") for i, cell in cells_of_bank[bank].items()}
        cell_decoder(bank, line, cs_nets)
        for i, cell in cells_of_bank[bank].items():
            reader(cell, cs_nets[i], gp[w["SCK"]], gp[w["MOSI"]], miso_trunk, clk, gp[w["RESET"]])
    return keys


def erc_errors() -> int:
    from skidl import ERC
    from skidl.logger import erc_logger

    before = erc_logger.error.count
    ERC()
    return erc_logger.error.count - before


def bom_rows(keys: dict[str, str], w: dict) -> list[dict]:
    import builtins

    values = {p.ref: p.value for p in builtins.default_circuit.parts}
    groups: dict[tuple, list[str]] = defaultdict(list)
    for ref, key in keys.items():
        groups[(key, values[ref])].append(ref)
    rows = []
    for (key, value), refs in sorted(groups.items(), key=lambda kv: kv[1][0]):
        part = PARTS[key]
        rows.append({"reference": " ".join(refs), "qty": len(refs), "value": value, "mpn": part["mpn"],
                     "manufacturer": part["manufacturer"], "unit_usd": part["unit_usd"],
                     "source": f"{part['source']} ({META['price_date']})"})
    for key, qty in EXTRAS:
        part = PARTS[key]
        rows.append({"reference": "", "qty": qty(w), "value": part["value"], "mpn": part["mpn"],
                     "manufacturer": part["manufacturer"], "unit_usd": part["unit_usd"],
                     "source": f"{part['source']} ({META['price_date']})"})
    return rows


def total_usd(rows) -> float:
    return sum(float(r["qty"]) * float(r["unit_usd"]) for r in rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for tray.net and bom.csv")
    parser.add_argument("--wiring", type=Path, help="another wiring.toml (default: hardware/wiring.toml)")
    parser.add_argument("--tray", type=Path, help="another tray.toml (default: hardware/tray.toml)")
    args = parser.parse_args(argv)
    from skidl import generate_netlist

    w = wiring(args.wiring, args.tray)
    keys = build(w)
    errors = erc_errors()
    if errors:
        print(f"ERC: {errors} error(s); no netlist written", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    generate_netlist(file_=str(args.out / "tray.net"), do_backup=False)
    rows = bom_rows(keys, w)
    with open(args.out / "bom.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=BOM_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    cells = w["CELLS"]
    total = total_usd(rows)
    print(f"ERC clean; {len(keys)} parts on the netlist; BOM total {total:.2f} USD "
          f"({total / cells:.2f} USD per cell, {cells} cells; prices: {META['price_source']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
