"""Checks of a board's netlist against the real parts: KiCad's symbols and footprints, the data
sheets' pin tables (data/pinouts.toml), the part numbers' values (data/parts.toml) and the
firmware's pin map (wiring.toml). Each check returns its faults as sentences; circuit.py refuses
to write a board with any, and tests/hardware/test_hardware.py plants faults to see each caught.
"""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from pathlib import Path

import firmware_pins
import kicad
from cable import BOARDS_PER_CABLE, CABLE

HERE = Path(__file__).resolve().parent
ARCH = tomllib.loads((HERE / "data" / "architecture.toml").read_text())
PARTS = tomllib.loads((HERE / "data" / "parts.toml").read_text())["parts"]
PINOUTS = tomllib.loads((HERE / "data" / "pinouts.toml").read_text())
SUPPLIES = {"+3V3", "+5V", "VSYS"}  # the positive rails a power input may sit on (and FED_RAILS fed from one)
GROUND = "GND"
FED_RAILS = ("+3V3_", "+VSW_")  # a reader's TVDD through its 1 ohm, a block's switch rail through its feed
_GROUND_PIN = re.compile(r"^(GND|AGND|[A-Z]?VSS\d?|EP)$")


def datasheet_names(symbol: str) -> dict[str, str]:
    """Pin number -> name for a library symbol: the data sheet's (pinouts.toml) where KiCad's is '~'."""
    lib, _, name = symbol.partition(":")
    names = {num: pin.name for num, pin in kicad.symbol(lib, name).pins.items()}
    for table in PINOUTS.values():
        if table["symbol"] == symbol:
            names.update({num: pin[0] for num, pin in table["pins"].items() if names.get(num) == "~"})
    return names


def pinout_faults(key: str) -> list[str]:
    """A pinouts.toml table against its symbol: every pin by number, name and type, both ways."""
    table = PINOUTS[key]
    lib, _, name = table["symbol"].partition(":")
    pins = kicad.symbol(lib, name).pins
    faults = []
    for num, (pname, ptype) in table["pins"].items():
        pin = pins.get(num)
        if pin is None:
            faults.append(f"{table['symbol']} has no pin {num} ({pname} in {table['document']})")
        elif (pin.name not in ("~", pname)) or pin.type != ptype:
            faults.append(f"{table['symbol']} pin {num} is {pin.name} ({pin.type}); {table['document']}, "
                          f"{table['table']}: {pname} ({ptype})")
    for num in sorted(set(pins) - set(table["pins"]), key=lambda n: int(n) if n.isdigit() else 0):
        faults.append(f"{table['symbol']} pin {num} ({pins[num].name}) is not in {table['document']}")
    return faults


# --- the netlist against the libraries -------------------------------------------------------------

UNCONNECTED = "unconnected-("  # KiCad's name for the net of a pin marked no-connect


def netlist_faults(net: kicad.Netlist) -> list[str]:
    return (symbol_faults(net) + unmarked_faults(net) + power_faults(net) + pad_faults(net) + short_faults(net)
            + value_faults(net) + clock_faults(net))


def unmarked_faults(net: kicad.Netlist) -> list[str]:
    """Every pin of every symbol is either connected or marked no-connect."""
    present = defaultdict(set)
    for nodes in net.nets.values():
        for node in nodes:
            present[node.ref].add(node.pin)
    faults = []
    for ref, comp in net.components.items():
        for num, pin in kicad.symbol(comp.lib, comp.part).pins.items():
            if num not in present[ref]:
                faults.append(f"{ref} pin {num} ({pin.name}) is neither connected nor marked no-connect")
    return faults


def short_faults(net: kicad.Netlist) -> list[str]:
    """No signal net joins two different pins of one part (a pin connected by a name it only
    shares, such as the reader's RX and its SDA/NSS/RX, merges two nets)."""
    faults = []
    for name, nodes in net.nets.items():
        if name in SUPPLIES or name.startswith(FED_RAILS) or name == GROUND:
            continue
        by_part = defaultdict(list)
        for node in nodes:
            by_part[node.ref].append(node)
        for ref, pins in by_part.items():
            kinds = {p.function if p.function != "~" else p.pin for p in pins}
            if len(kinds) > 1:
                faults.append(f"{ref} pins {', '.join(f'{p.pin} ({p.function})' for p in pins)} are shorted "
                              f"on net {name}")
    return faults


def symbol_faults(net: kicad.Netlist) -> list[str]:
    """Every node's pin exists in its part's library symbol with the same name and type."""
    faults = []
    for name, nodes in net.nets.items():
        for node in nodes:
            comp = net.components[node.ref]
            pins = kicad.symbol(comp.lib, comp.part).pins
            pin = pins.get(node.pin)
            if pin is None:
                faults.append(f"{node.ref} ({comp.lib}:{comp.part}) has no pin {node.pin} (net {name})")
            elif pin.name != node.function or pin.type != node.type:
                faults.append(f"{node.ref} pin {node.pin} is {node.function} ({node.type}) on the netlist, "
                              f"{pin.name} ({pin.type}) in {comp.lib}:{comp.part}")
    return faults


def power_faults(net: kicad.Netlist) -> list[str]:
    """Every power input on a power net: a ground pin on GND, a supply pin on a supply rail."""
    faults = []
    for name, nodes in net.nets.items():
        for node in nodes:
            if node.type != "power_in":
                continue
            ground = bool(_GROUND_PIN.match(node.function))
            if ground and name != GROUND:
                faults.append(f"{node.ref} pin {node.pin} ({node.function}) is a ground pin on {name}, not {GROUND}")
            elif not ground and name not in SUPPLIES and not name.startswith(FED_RAILS):
                faults.append(f"{node.ref} pin {node.pin} ({node.function}) is a supply pin on {name}, "
                              f"not a supply ({', '.join(sorted(SUPPLIES))})")
    return faults


def pad_faults(net: kicad.Netlist) -> list[str]:
    """Every footprint exists, every connected pin has its pad, and every numbered pad a pin."""
    faults = []
    connected = defaultdict(set)
    for nodes in net.nets.values():
        for node in nodes:
            connected[node.ref].add(node.pin)
    for ref, comp in net.components.items():
        try:
            pads = kicad.footprint(comp.footprint).pad_numbers
        except KeyError as e:
            faults.append(f"{ref}: {e.args[0]}")
            continue
        for pin in sorted(connected[ref] - pads):
            faults.append(f"{ref} pin {pin} is connected but {comp.footprint} has no pad {pin}")
        pins = set(kicad.symbol(comp.lib, comp.part).pins)
        for pad in sorted(pads - pins):
            faults.append(f"{ref}: pad {pad} of {comp.footprint} has no pin in {comp.lib}:{comp.part}: it would float")
    return faults


def clock_faults(net: kicad.Netlist) -> list[str]:
    """Every reader runs on its own crystal (architecture.toml [clock]): its OSCIN net holds that
    reader, one crystal and the crystal's load capacitor, and nothing leaves for another reader."""
    faults = []
    pins = net.pin_nets()
    for ref in _refs(net, "reader"):
        name = pins.get((ref, "21"))
        nodes = net.nets.get(name, [])
        kinds = sorted(net.components[n.ref].fields.get("Key", "") for n in nodes)
        parts = sorted(net.components[n.ref].part for n in nodes)
        if len(nodes) != 3 or "reader" not in kinds or "xtal27" not in kinds or "C" not in parts:
            faults.append(f"{ref}'s OSCIN ({name}) has {len(nodes)} nodes ({', '.join(kinds)}), not its own "
                          "crystal and load capacitor")
    return faults


# --- values against part numbers -----------------------------------------------------------------------

_UNITS = {"p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6, "R": 1.0, "": 1.0}


def parse_value(text: str) -> float | None:
    """'100nF', '4.7uF', '10k', '33R', '2.2uH', '27.12MHz' -> the number in base units."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([pnumkMR]?)(F|H|Hz|A)?", text)
    if not m:
        m = re.fullmatch(r"(\d+)([kMR])(\d+)", text)  # 4k7, 1R5
        if not m:
            return None
        return float(f"{m.group(1)}.{m.group(3)}") * _UNITS[m.group(2)]
    scale = 1e6 if m.group(3) == "Hz" and m.group(2) == "M" else _UNITS[m.group(2)]
    return float(m.group(1)) * scale


def _code(digits: str, exponent: str) -> float:
    return float(digits) * 10 ** int(exponent)


def mpn_value(mpn: str) -> tuple[float, str] | None:
    """The value (base units) and tolerance a passive's part number encodes, for the families
    the boards use: Murata GRM and Samsung CL capacitors, UNI-ROYAL resistors, inductors and
    crystals written with their value. None for a part number that encodes no value."""
    tol = {"B": "+-0.1 pF", "C": "+-0.25 pF", "D": "+-0.5 pF", "S": "+-0.3 nH", "F": "+-1 %", "G": "+-2 %",
           "J": "+-5 %", "K": "+-10 %", "M": "+-20 %"}
    m = re.fullmatch(r"GRM\w{3}\w{2}\w{2}(\d\d|\dR|R\d)(\d|\w)([A-Z])\w+", mpn)
    if m:  # GRM + size + temperature characteristic + voltage + capacitance (pF) + tolerance
        digits, exp = m.group(1), m.group(2)
        pf = float(digits.replace("R", ".") + exp) if "R" in digits else _code(digits, exp)
        return pf * 1e-12, tol[m.group(3)]
    m = re.fullmatch(r"CL\d\d[A-Z](\d\d)(\d)([A-Z])\w+", mpn)
    if m:  # CL + size + dielectric + capacitance (pF) + tolerance + voltage + ...
        return _code(m.group(1), m.group(2)) * 1e-12, tol[m.group(3)]
    m = re.fullmatch(r"\d{4}W\w([FJ])(\d{3})([0-9JKL])T\wE", mpn)
    if m:  # size + W + power + tolerance + three digits + multiplier (J x0.1, K x0.01, L x0.001) + packing
        scale = {"J": 0.1, "K": 0.01, "L": 0.001}.get(m.group(3)) or 10 ** int(m.group(3))
        return float(m.group(2)) * scale, tol[m.group(1)]
    m = re.fullmatch(r"LQ[WG]\d\d[A-Z]{2}(\d+)N(\d*)([A-Z])\w+", mpn)
    if m:  # Murata RF inductors: 56N = 56 nH, 5N6 = 5.6 nH
        return float(m.group(1) + ("." + m.group(2) if m.group(2) else "")) * 1e-9, tol[m.group(3)]
    m = re.search(r"(\d)R(\d)[A-Z]", mpn)
    if m and mpn.startswith(("LQM", "ASPI")):  # inductors: 1R0 = 1.0 uH
        return float(f"{m.group(1)}.{m.group(2)}") * 1e-6, ""
    m = re.search(r"(\d+\.\d+)MHZ", mpn, re.I)
    if m:
        return float(m.group(1)) * 1e6, ""
    return None


def entry_faults(key: str, spec: dict) -> list[str]:
    """A parts.toml entry's value (and tolerance) against what its part number encodes."""
    decoded = mpn_value(spec["mpn"])
    if decoded is None:
        if spec.get("symbol") in ("Device:C", "Device:R", "Device:L", "Device:Crystal_GND24"):
            return [f"parts.toml {key}: cannot read a value from part number {spec['mpn']}"]
        return []
    value, tolerance = decoded
    faults = []
    stated = parse_value(spec["value"])
    if stated is None or abs(stated - value) > 1e-6 * value:
        faults.append(f"parts.toml {key}: part number {spec['mpn']} is {value:g} (base units), "
                      f"not the {spec['value']} recorded")
    if tolerance and spec.get("tolerance") != tolerance:
        faults.append(f"parts.toml {key}: part number {spec['mpn']} is {tolerance}, not {spec.get('tolerance')}")
    return faults

def value_faults(net: kicad.Netlist) -> list[str]:
    """Each part's value is its part number's, and no part number carries two values."""
    faults = []
    by_mpn = {spec["mpn"]: (key, spec) for key, spec in PARTS.items()}
    values = defaultdict(set)
    for ref, comp in net.components.items():
        mpn = comp.fields.get("MPN", "")
        values[mpn].add(comp.value)
        if mpn not in by_mpn:
            faults.append(f"{ref}: part number {mpn!r} is not in parts.toml")
            continue
        key, spec = by_mpn[mpn]
        if comp.value != spec["value"]:
            faults.append(f"{ref} is {comp.value} but its part number {mpn} ({key}) is {spec['value']}")
        faults += [f"{ref}: {fault}" for fault in entry_faults(key, spec)]
    for mpn, vals in values.items():
        if len(vals) > 1:
            faults.append(f"part number {mpn} is bought for {len(vals)} values: {', '.join(sorted(vals))}")
    return faults


# --- the firmware's pin map -------------------------------------------------------------------------------

# Parts a logic signal passes through: (library part, input pin name) -> output pin name.
_THROUGH = {("74HC244", f"{half}A{i}"): f"{half}Y{i}" for half in "12" for i in range(4)}
_THROUGH[("74LVC1G125", "A")] = "Y"
_SERIES_OHM = 100.0  # a resistor this small in a line is a termination, not a pull


def reach(net: kicad.Netlist, start: str) -> set[tuple[str, str]]:
    """Every (reference, pin name) a signal on net `start` arrives at, through buffers and
    series terminations."""
    pin_net = net.pin_nets()
    seen, todo, found = set(), [start], set()
    while todo:
        name = todo.pop()
        if name in seen or name not in net.nets:
            continue
        seen.add(name)
        for node in net.nets[name]:
            comp = net.components[node.ref]
            names = datasheet_names(f"{comp.lib}:{comp.part}")
            pin_name = names.get(node.pin, node.function)
            found |= {(node.ref, pin_name), (node.ref, node.pin)}
            out = _THROUGH.get((comp.part, pin_name))
            if comp.part == "R" and (parse_value(comp.value) or 1e9) <= _SERIES_OHM:
                out = next(n for n in ("1", "2") if n != node.pin)
                todo.append(pin_net[(node.ref, out)])
            elif out:
                num = next(n for n, p in names.items() if p == out)
                todo.append(pin_net.get((node.ref, num), ""))
    return found


def _refs(net: kicad.Netlist, key: str) -> list[str]:
    return sorted(r for r, c in net.components.items() if c.fields.get("Key") == key)


def _has(found: set, ref: str, pin: str) -> bool:
    return any(r == ref and (pin == p or pin in p.split("/")) for r, p in found)


def firmware_faults(net: kicad.Netlist, w: dict, cable: tuple[str, ...] = CABLE) -> list[str]:
    """The Pico's pins on the controller, as wiring.toml gives them to the firmware: each GPIO
    the firmware drives arrives where its function says, and no other GPIO is wired."""
    pico = _refs(net, "pico")[0]
    gpio_net = {node.function: name for name, nodes in net.nets.items() for node in nodes
                if node.ref == pico and node.function.startswith("GP") and not name.startswith(UNCONNECTED)}
    headers = [r for r in _refs(net, "cable_header")]
    reader = _refs(net, "reader")[0]
    decoder = _refs(net, "decoder")[0]
    cable_dec = _refs(net, "cable_decoder")[0]
    jumper = _refs(net, "jumper_header")[0]

    def header_pin(signal):
        return str(cable.index(signal) + 1)

    wants = {
        ("SCK", w["SCK"]): [(reader, "SCK")] + [(h, header_pin("SCK")) for h in headers],
        ("MOSI", w["MOSI"]): [(reader, "MOSI")] + [(h, header_pin("MOSI")) for h in headers],
        ("RESET", w["RESET"]): [(reader, "NRSTPD")] + [(h, header_pin("RST")) for h in headers],
        ("STROBE", w["STROBE"]): [(decoder, "E0")],
        ("REPL_JUMPER", w["REPL_JUMPER"]): [(jumper, "1")],
    }
    for i in range(2):
        wants[(f"LINE_ADDRESS[{i}]", w["LINE_ADDRESS"][i])] = [(h, header_pin(f"A{i}")) for h in headers]
    pad_switches = _refs(net, "coil_switch")
    for i, gp in enumerate(w["COIL_SELECT"]):  # every board's coil index; bit 0 the pad's coil too
        wants[(f"COIL_SELECT[{i}]", gp)] = [(h, header_pin(f"C{i}")) for h in headers] + (
            [(sw, "IN") for sw in pad_switches] if i == 0 else [])
    for i in range(4):
        wants[(f"BANK_ADDRESS[{i}]", w["BANK_ADDRESS"][i])] = [(decoder, f"A{i}")] + (
            [(cable_dec, "AB"[i - 2])] if i >= 2 else [])
    faults = []
    for (function, gp), targets in wants.items():
        name = gpio_net.get(f"GP{gp}")
        if name is None:
            faults.append(f"{function} is GP{gp} in wiring.toml, but the Pico's GP{gp} is not connected")
            continue
        found = reach(net, name)
        faults += [f"{function} (GP{gp}) does not reach {ref} pin {pin}" for ref, pin in targets
                   if not _has(found, ref, pin)]
    miso = gpio_net.get(f"GP{w['MISO']}")
    for source in [(h, header_pin("MISO")) for h in headers] + [(reader, "MISO")]:
        start = next((name for name, nodes in net.nets.items() for n in nodes
                      if n.ref == source[0] and (n.pin == source[1] or source[1] in n.function.split("/"))), None)
        if start is None or not _has(reach(net, start), pico, f"GP{w['MISO']}"):
            faults.append(f"{source[0]} pin {source[1]} (MISO) does not reach the Pico's GP{w['MISO']}")
    repl = gpio_net.get(f"GP{w['REPL_JUMPER']}")
    pins = net.pin_nets()
    for node in net.nets.get(repl, []):
        comp = net.components[node.ref]
        other = pins.get((node.ref, "2" if node.pin == "1" else "1"))
        if comp.part == "R" and other in SUPPLIES:
            faults.append(f"GP{w['REPL_JUMPER']} (REPL_JUMPER) is pulled up to {other} by {node.ref}: that rail is "
                          "off while USB alone powers the Pico and would force the REPL; the RP2040's own "
                          "pull-up keeps it high (architecture.toml [power_input])")
    buffers = _refs(net, "led_buffer")
    for chain, gp in enumerate(w["LIGHT_PINS"]):
        name = gpio_net.get(f"GP{gp}")
        if name is None or not any(_has(reach(net, name), b, "A") for b in buffers):
            faults.append(f"light chain {chain} is GP{gp} in wiring.toml, but it reaches no light buffer's input")
    used = {f"GP{gp}" for (_f, gp) in wants} | {f"GP{w['MISO']}"} | {f"GP{gp}" for gp in w["LIGHT_PINS"]}
    faults += [f"the Pico's {pin} is wired (net {name}) but wiring.toml gives it no function"
               for pin, name in sorted(gpio_net.items()) if pin.split("/")[0] not in used]
    if miso is None:
        faults.append(f"MISO is GP{w['MISO']} in wiring.toml, but the Pico's GP{w['MISO']} is not connected")
    for sw in pad_switches:  # bit 0 low: the pad's coil 0 on the network; high: its coil 1
        faults += switch_faults(net, sw, low=net.components[sw].fields.get("Coil") == "0")
    return faults


USB_LINES = (("USB_DP", "D+"), ("USB_DM", "D-"))


def usb_faults(net: kicad.Netlist) -> list[str]:
    """The Pico's USB lines, at its test pads, each run through one line of the ESD array (both
    pins of that line, the package's flow-through), and the array clamps to the Pico's VBUS and
    to ground, as the USBLC6-2's application circuit has it."""
    pico = _refs(net, "pico")[0]
    arrays = _refs(net, "usb_esd")
    if not arrays:
        return ["the Pico's USB lines have no ESD array (parts.toml usb_esd)"]
    pins = net.pin_nets()
    faults = []
    for name, label in USB_LINES:
        num = _pin_number(net, pico, name)
        line = pins.get((pico, num), "")
        nodes = [] if line.startswith(UNCONNECTED) else net.nets.get(line, [])
        found = [n for n in nodes if n.ref in arrays]
        channels = {(n.ref, n.function) for n in found}
        ref, channel = next(iter(channels)) if len(channels) == 1 else ("", "")
        comp = net.components.get(ref)
        both = {k for k, p in kicad.symbol(comp.lib, comp.part).pins.items() if p.name == channel} if comp else set()
        if not channel.startswith("I/O") or {n.pin for n in found} != both:
            on = ", ".join(f"{n.ref} pin {n.pin} ({n.function})" for n in found) or "no array pin"
            faults.append(f"USB {label} (the Pico's {num}, net {line or 'none'}) is not on both pins of one I/O "
                          f"line of the ESD array: {on}")
    vbus = pins.get((pico, _pin_number(net, pico, "VBUS")), "")
    for ref in arrays:
        for pin_name, want in (("VBUS", vbus), ("GND", GROUND)):
            got = pins.get((ref, _pin_number(net, ref, pin_name)), "")
            if got != want or got.startswith(UNCONNECTED):
                faults.append(f"{ref}'s {pin_name} is on {got or 'no net'}, not the Pico's "
                              f"{'VBUS' if pin_name == 'VBUS' else 'ground'}")
    return faults


def switch_faults(net: kicad.Netlist, ref: str, low: bool) -> list[str]:
    """Coil switch `ref` holds its coil's switched end on COM and puts the coil on the reader's
    network while its control input is low (`low`) or high, shorting it the other way: the throw
    taken then is on the coil's other end (the block's common node)."""
    pin_net = net.pin_nets()
    com, nc, no = (pin_net.get((ref, _pin_number(net, ref, name))) for name in ("COM", "NC", "NO"))
    coil = next((c for c in _refs(net, "antenna") if pin_net.get((c, "1")) == com), None)
    if coil is None:
        return [f"{ref}'s COM holds no coil's end"]
    common = pin_net.get((coil, "2"))
    network, shorting = (nc, no) if low else (no, nc)
    if shorting != common or network == common:
        state = "low" if low else "high"
        return [f"{ref} should put coil {coil} on its network while IN is {state} and short it otherwise: "
                f"NC is on {nc}, NO on {no}, the coil's other end on {common}"]
    return []


def cell_faults(net: kicad.Netlist, cable: tuple[str, ...] = CABLE) -> list[str]:
    """A cell board's bus: the incoming cable reaches every reader; each reader's chip select is
    a decoder output that also enables its MISO buffer; the cable's coil index reaches the
    decoder's second half, always enabled, whose output k drives the switch of coil k of every
    block, which puts it on its network while low."""
    pin_net = net.pin_nets()
    incoming = next(r for r in _refs(net, "cable_header") if net.components[r].fields.get("Cable") == "in")
    faults = []
    readers = _refs(net, "reader")
    for signal, pin in (("SCK", "SCK"), ("MOSI", "MOSI"), ("RST", "NRSTPD")):
        found = reach(net, pin_net[(incoming, str(cable.index(signal) + 1))])
        faults += [f"the cable's {signal} does not reach {r} pin {pin}" for r in readers if not _has(found, r, pin)]
    decoder = _refs(net, "line_decoder")[0]
    selects = {pin_net.get((decoder, str(n))) for n in (4, 5, 6, 7)}
    for signal, pin in (("C0", "14"), ("C1", "13")):
        if not _has(reach(net, pin_net[(incoming, str(cable.index(signal) + 1))]), decoder, pin):
            faults.append(f"the cable's {signal} does not reach {decoder} pin {pin} (its second half's address)")
    if pin_net.get((decoder, "15")) != GROUND:
        faults.append(f"{decoder}'s second half is not always enabled (pin 15 on {pin_net.get((decoder, '15'))})")
    for r in readers:
        nss = pin_net.get((r, "24"))
        if nss not in selects:
            faults.append(f"{r}'s chip select ({nss}) is not an output of {decoder}")
        block = net.components[r].fields.get("Block")
        for buf in _refs(net, "buffer"):
            if net.components[buf].fields.get("Block") == block and pin_net.get((buf, "1")) != nss:
                faults.append(f"{buf}, {r}'s MISO buffer, is not enabled by {r}'s chip select")
    for sw in _refs(net, "coil_switch"):
        k = int(net.components[sw].fields.get("Coil", -1))
        control = pin_net.get((sw, _pin_number(net, sw, "IN")))
        if control != pin_net.get((decoder, str(12 - k))):
            faults.append(f"{sw} switches coil {k} but is not driven by {decoder}'s output 2Y{k} (pin {12 - k})")
        faults += switch_faults(net, sw, low=True)
    return faults


def select_faults(cell: kicad.Netlist, controller: kicad.Netlist, w: dict,
                  cable: tuple[str, ...] = CABLE) -> list[str]:
    """The firmware's chip-select code of each reader (wiring.toml -> SELECT = bank << 4 | line)
    selects the reader the boards wire to it, and its coil k is the cell the firmware gives coil k.
    Bank b is cell board b: the (b % 4)-th board down cable b // 4 (cable c runs along the c-th
    row of boards), whose EN0 is that cable's EN(b % 4); line n is the reader of the board's block
    n; the scan pad's reader sits on the controller's own decoder output."""
    from dominotray import layout

    gen_pins = firmware_pins.gen_pins()
    board_cols, board_rows = ARCH["boards"]["cell_board_cells"]
    reader_of, coil_of = layout.blocks(w["COLS"], w["ROWS"], w["PAD_CELLS"], w["BLOCK_COLS"], w["BLOCK_ROWS"])
    boards_across = w["COLS"] // board_cols
    faults = []
    # the controller: bank b's output reaches its cable's enable, the pad's bank the pad reader
    decoder = _refs(controller, "decoder")[0]
    pad_reader = _refs(controller, "reader")[0]
    headers = {controller.components[h].fields.get("Cable"): h for h in _refs(controller, "cable_header")}
    c_pins = controller.pin_nets()
    pad_bank = w["SELECT"][w["READERS"] - 1] >> 4
    for reader, code in enumerate(w["SELECT"]):
        bank, line = divmod(code, 16)
        found = reach(controller, c_pins.get((decoder, _pin_number(controller, decoder, f"S{bank}")), ""))
        if bank == pad_bank:
            if not _has(found, pad_reader, "NSS"):
                faults.append(f"reader {reader} (the pad's, bank {bank}): {decoder} S{bank} does not reach "
                              f"{pad_reader}'s NSS")
            continue
        header = headers.get(str(bank // BOARDS_PER_CABLE))
        en = f"EN{bank % BOARDS_PER_CABLE}"
        if header is None or not _has(found, header, str(cable.index(en) + 1)):
            faults.append(f"reader {reader}: bank {bank}'s enable ({decoder} S{bank}) does not reach cable "
                          f"{bank // BOARDS_PER_CABLE}'s {en}")
    # a cell board: its decoder takes as many address lines and drives as many selects as the
    # firmware's decoder part (gen_pins.DECODERS) has; line n -> the reader of block n -> its coils
    pins = cell.pin_nets()
    line_decoder = _refs(cell, "line_decoder")[0]
    incoming = next(r for r in _refs(cell, "cable_header") if cell.components[r].fields.get("Cable") == "in")
    address = {pins.get((incoming, str(cable.index(f"A{i}") + 1))) for i in range(2)}
    inputs = sum(pins.get((line_decoder, n)) in address for n in ("2", "3"))
    outputs = sum(any(pins.get((r, "24")) == pins.get((line_decoder, str(n))) for r in _refs(cell, "reader"))
                  for n in (4, 5, 6, 7))
    for dec in w["decoders"]:
        if dec["part"] != "direct" and gen_pins.DECODERS[dec["part"]] != (inputs, outputs):
            faults.append(f"wiring.toml decoder {dec['ref']} is a {dec['part']} {gen_pins.DECODERS[dec['part']]} "
                          f"(address lines, outputs); the cell board's {line_decoder} decodes {inputs} into {outputs}")
    for reader, code in enumerate(w["SELECT"]):
        bank, line = divmod(code, 16)
        if bank == pad_bank:
            continue
        cs = pins.get((line_decoder, str(4 + line)))
        chosen = [r for r in _refs(cell, "reader") if pins.get((r, "24")) == cs]
        if len(chosen) != 1:
            faults.append(f"reader {reader}: line {line} of {line_decoder} selects {len(chosen)} readers")
            continue
        block = cell.components[chosen[0]].fields["Block"]
        board_row, board_col = divmod(bank, boards_across)
        for coil in _refs(cell, "antenna"):
            fields = cell.components[coil].fields
            if fields.get("Block") != block:
                continue
            r, c = divmod(int(fields["Cell"]), board_cols)
            grid_cell = (board_row * board_rows + r) * w["COLS"] + board_col * board_cols + c
            k = int(fields["Coil"])
            if reader_of[grid_cell] != reader or coil_of[grid_cell] != k:
                faults.append(f"reader {reader} (bank {bank}, line {line}) reads cell {grid_cell} with coil {k} "
                              f"({coil}); the firmware reads it with reader {reader_of[grid_cell]}, coil "
                              f"{coil_of[grid_cell]}")
    return faults


def _pin_number(net: kicad.Netlist, ref: str, name: str) -> str:
    comp = net.components[ref]
    return next((n for n, p in datasheet_names(f"{comp.lib}:{comp.part}").items() if p == name), "")
