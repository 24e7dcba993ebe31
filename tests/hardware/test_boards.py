"""The tray's boards (hardware/circuit.py, checks.py, pcb.py, cost.py): built once from KiCad 6's
own libraries, checked against the parts, placed, priced; and each check shown to catch the
faults the hardware review found (issue 19, item 7), planted into a copy of the netlist."""

import copy
import csv
import json
import math
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HW = ROOT / "hardware"
sys.path.insert(0, str(HW))

import checks  # noqa: E402
import circuit  # noqa: E402
import cost  # noqa: E402
import kicad  # noqa: E402
import pcb  # noqa: E402


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("boards")
    return circuit.generate(circuit.wiring(), out), out


def _node(net, ref, pin):
    return next((name, n) for name, nodes in net.nets.items() for n in nodes if n.ref == ref and n.pin == pin)


def _move(net, ref, pin, to):
    """A copy of the netlist with (ref, pin) moved onto net `to`."""
    net = copy.deepcopy(net)
    name, node = _node(net, ref, pin)
    net.nets[name].remove(node)
    net.nets.setdefault(to, []).append(node)
    return net


def _ref(net, key, **fields):
    return next(r for r, c in sorted(net.components.items())
                if c.fields.get("Key") == key and all(c.fields.get(k) == v for k, v in fields.items()))


def test_the_boards_pass_every_check_and_are_written(built):
    result, out = built
    assert result.faults == []
    for name in ("cell", "controller"):
        assert (out / f"{name}.net").read_text().startswith('(export (version "E")')
        for suffix in (".kicad_pcb", "-pos.csv", "-bom.csv"):
            assert (out / f"{name}{suffix}").stat().st_size > 0
        assert {p.name for p in (out / f"{name}-gerbers").iterdir()} == {
            f"{name}-{layer}" for layer in ("F_Cu.gbr", "B_Cu.gbr", "F_Mask.gbr", "B_Mask.gbr", "F_Paste.gbr",
                                            "B_Paste.gbr", "Edge_Cuts.gbr", "drill.drl")}
    assert (out / "bom.csv").read_text() == (HW / "bom.csv").read_text(), \
        "hardware/bom.csv is stale: run python hardware/circuit.py --out hardware"


def test_every_pin_is_the_library_symbols_and_every_footprint_the_libraries(built):
    result, _ = built
    for net in result.nets.values():
        for comp in net.components.values():
            kicad.footprint(comp.footprint)  # exists in KiCad's libraries or the project's
            kicad.symbol(comp.lib, comp.part)
        assert checks.symbol_faults(net) == [] and checks.pad_faults(net) == []
    cell = result.nets["cell"]
    reader = _ref(cell, "reader")
    _, sck = _node(cell, reader, "29")
    assert (sck.function, sck.type) == ("D5/ADR_1/SCK/DTRQ", "bidirectional")


def test_project_symbols_match_their_data_sheets_pin_tables():
    for key, table in checks.PINOUTS.items():
        assert table["document"] and table["revision"] and table["url"].startswith("https://"), key
        assert checks.pinout_faults(key) == [], key
    wrong = copy.deepcopy(checks.PINOUTS)
    wrong["RaspberryPi_Pico"]["pins"]["1"] = ["VSYS", "power_in"]
    try:
        checks.PINOUTS, saved = wrong, checks.PINOUTS
        assert checks.pinout_faults("RaspberryPi_Pico") == [
            "dominotable:RaspberryPi_Pico pin 1 is GP0 (bidirectional); Raspberry Pi Pico Datasheet, "
            f"{saved['RaspberryPi_Pico']['table']}: VSYS (power_in)"]
    finally:
        checks.PINOUTS = saved


def test_the_reviews_pin_faults_are_caught(built):
    """Issue 19, item 7: the 74HC154's VCC on GND, a 74LVC244's GND on a MOSI net, the Pico's GP0
    on VSYS, pins numbered in list order."""
    result, _ = built
    ctl = result.nets["controller"]
    dec, drv, pico = _ref(ctl, "decoder"), _ref(ctl, "octal_buffer"), _ref(ctl, "pico")
    assert checks.power_faults(_move(ctl, dec, "24", "GND")) == [
        f"{dec} pin 24 (VCC) is a supply pin on GND, not a supply (+3V3, +5V, VSYS)"]
    mosi = _node(ctl, drv, "2")[0]  # 1A0: the cable's SCK, a signal net
    assert checks.power_faults(_move(ctl, drv, "10", mosi)) == [
        f"{drv} pin 10 (GND) is a ground pin on {mosi}, not GND"]
    w = circuit.wiring()
    on_vsys = copy.deepcopy(ctl)
    on_vsys.nets["VSYS"].append(kicad.Node(pico, "1", "GP0", "bidirectional"))
    faults = checks.firmware_faults(on_vsys, w)
    assert "the Pico's GP0 is wired (net VSYS) but wiring.toml gives it no function" in faults
    # pins numbered in list order: the netlist says pin 1 is VCC where the library has S0
    listed = copy.deepcopy(ctl)
    _, node = _node(listed, dec, "1")
    name = _node(listed, dec, "1")[0]
    listed.nets[name] = [kicad.Node(n.ref, n.pin, "VCC", "power_in") if n == node else n for n in listed.nets[name]]
    assert checks.symbol_faults(listed) == [
        f"{dec} pin 1 is VCC (power_in) on the netlist, S0 (output) in 74xx:74LS154"]


def test_missing_footprints_and_floating_pads_are_caught(built, monkeypatch):
    result, _ = built
    cell = copy.deepcopy(result.nets["cell"])
    inductor = next(r for r, c in sorted(cell.components.items()) if c.part == "L")
    cell.components[inductor].footprint = "Inductor_SMD:L_Sunlord_SWPA4030S"  # the old schematic's
    assert checks.pad_faults(cell) == [f"{inductor}: no footprint L_Sunlord_SWPA4030S in KiCad's library Inductor_SMD"]
    # the reader's exposed pad: a symbol without pin 33 leaves the footprint's pad 33 floating
    reader = _ref(cell, "reader")
    real = kicad.symbol("dominotable", "MFRC522")
    no_ep = kicad.Symbol(real.lib, real.name, {n: p for n, p in real.pins.items() if n != "33"}, real.properties,
                         real.text)
    monkeypatch.setattr(kicad, "symbol", lambda lib, name: no_ep if name == "MFRC522" else real_symbol(lib, name))
    plain = copy.deepcopy(result.nets["cell"])
    for name in list(plain.nets):
        plain.nets[name] = [n for n in plain.nets[name] if not (n.ref == reader and n.pin == "33")]
    faults = checks.pad_faults(plain)
    assert f"{reader}: pad 33 of Package_DFN_QFN:QFN-32-1EP_5x5mm_P0.5mm_EP3.45x3.45mm has no pin in " \
           "dominotable:MFRC522: it would float" in faults


real_symbol = kicad.symbol


def test_values_are_their_part_numbers_and_a_part_number_has_one_value(built):
    result, _ = built
    for key, spec in checks.PARTS.items():
        assert checks.entry_faults(key, spec) == [], key
    mpns = [spec["mpn"] for spec in checks.PARTS.values()]
    assert len(mpns) == len(set(mpns))
    # the review's six wrong BOM lines: 120 pF, 560 pF and 1 nF bought as a 100 pF part; 33 k,
    # 1 ohm and 1 k as a 10 k part
    for value, mpn in (("120pF", "GRM1885C1H101JA01D"), ("560pF", "GRM1885C1H101JA01D"), ("1nF", "GRM1885C1H101JA01D"),
                       ("33k", "0603WAF1002T5E"), ("1R", "0603WAF1002T5E"), ("1k", "0603WAF1002T5E")):
        faults = checks.entry_faults("old", {"mpn": mpn, "value": value, "symbol": "Device:C"})
        assert faults and "not the " + value in faults[0], (value, faults)
    cell = copy.deepcopy(result.nets["cell"])
    caps = [(r, c) for r, c in sorted(cell.components.items()) if c.part == "C"]
    a, comp_a = caps[0]
    b, comp_b = next((r, c) for r, c in caps if c.value != comp_a.value)
    mpn, key = comp_b.fields["MPN"], comp_b.fields["Key"]
    comp_a.fields["MPN"] = mpn  # a's value bought as b's part number
    faults = checks.value_faults(cell)
    assert f"{a} is {comp_a.value} but its part number {mpn} ({key}) is {comp_b.value}" in faults
    assert f"part number {mpn} is bought for 2 values: {', '.join(sorted((comp_a.value, comp_b.value)))}" in faults


def test_the_firmwares_pin_map_is_the_boards(built):
    result, _ = built
    w = circuit.wiring()
    ctl, cell = result.nets["controller"], result.nets["cell"]
    pico = _ref(ctl, "pico")
    # two GPIOs swapped on the board: the firmware's SCK no longer reaches the cables
    swapped = _move(_move(ctl, pico, "24", "GP19"), pico, "25", "GP18")  # GP18 (pin 24) <-> GP19 (pin 25)
    faults = checks.firmware_faults(swapped, w)
    assert any(f.startswith("SCK (GP18) does not reach") for f in faults), faults
    # GP22's pull-up on the tray's 3.3 V rail
    pulled = copy.deepcopy(ctl)
    pulled.components["R999"] = kicad.Component("R999", "10k", "Resistor_SMD:R_0402_1005Metric", "Device", "R",
                                                {"MPN": "0402WGF1002TCE", "Key": "resistor"})
    pulled.nets["GP22"].append(kicad.Node("R999", "1", "~", "passive"))
    pulled.nets["+3V3"].append(kicad.Node("R999", "2", "~", "passive"))
    assert any("GP22 (REPL_JUMPER) is pulled up to +3V3 by R999" in f for f in checks.firmware_faults(pulled, w))
    # the chip-select codes: two readers' codes swapped in the firmware
    select = bytearray(w["SELECT"])
    select[0], select[1] = select[1], select[0]
    faults = checks.select_faults(cell, ctl, {**w, "SELECT": bytes(select)})
    assert any(f.startswith("reader 0 (bank 0, line 1) reads cell") for f in faults), faults
    # a coil switch driven by the wrong select pin
    sw = _ref(cell, "coil_switch", Block="0")
    reader = _ref(cell, "reader", Block="0")
    control = checks._pin_number(cell, sw, "IN")
    other = next(p for p in ("25", "26", "27", "28") if _node(cell, reader, p)[0] != _node(cell, sw, control)[0])
    rewired = _move(cell, sw, control, _node(cell, reader, other)[0])
    assert any(f.startswith(f"{sw} switches coil") for f in checks.cell_faults(rewired))


def test_every_pin_is_connected_or_marked_no_connect(built):
    result, _ = built
    cell = copy.deepcopy(result.nets["cell"])
    reader = _ref(cell, "reader", Block="0")
    irq, node = _node(cell, reader, "23")
    assert irq == f"unconnected-({reader}-Pad23)"
    del cell.nets[irq]
    assert checks.unmarked_faults(cell) == [f"{reader} pin 23 (IRQ) is neither connected nor marked no-connect"]
    # a supply pin marked no-connect is no supply
    faults = checks.power_faults(_move(result.nets["cell"], reader, "2", f"unconnected-({reader}-Pad2)"))
    assert faults == [f"{reader} pin 2 (PVDD) is a supply pin on unconnected-({reader}-Pad2), not a supply "
                      "(+3V3, +5V, VSYS)"]


def test_two_pins_of_a_part_on_one_signal_net_are_caught(built):
    """Connecting the reader's RX by a name its SDA/NSS/RX pin shares once shorted RX to the chip
    select: no signal net may join two different pins of one part."""
    result, _ = built
    cell = result.nets["cell"]
    reader = _ref(cell, "reader", Block="0")
    rx = _node(cell, reader, "17")[0]
    assert checks.short_faults(cell) == []
    faults = checks.short_faults(_move(cell, reader, "24", rx))
    assert len(faults) == 1 and faults[0].startswith(f"{reader} pins ") and "(SDA/NSS/RX)" in faults[0]
    resistor = next(r for r, c in sorted(cell.components.items()) if c.part == "R")
    assert checks.short_faults(_move(cell, resistor, "2", _node(cell, resistor, "1")[0]))  # a shorted resistor


def test_the_usb_lines_run_through_the_esd_array_at_the_picos_usb_end(built):
    """The Pico's USB D+ and D- (its test pads TP3, TP2) each on both pins of one line of the
    USBLC6-2, which clamps to the Pico's VBUS and returns to its TP1 ground; a line taken off the
    array, half on it or left open, and a clamp rail elsewhere are caught."""
    result, _ = built
    ctl = result.nets["controller"]
    pico, esd = _ref(ctl, "pico"), _ref(ctl, "usb_esd")
    lib = kicad.symbol("Power_Protection", "USBLC6-2SC6").pins
    channels = [{n for n, p in lib.items() if p.name == f"I/O{i}"} for i in (1, 2)]
    pins = ctl.pin_nets()
    assert checks.usb_faults(ctl) == []
    on_array = [{n.pin for n in ctl.nets[pins[(pico, tp)]] if n.ref == esd} for tp in ("TP3", "TP2")]
    assert sorted(on_array, key=min) == sorted(channels, key=min)  # D+ and D- each on one whole line
    assert pins[(esd, "5")] == pins[(pico, "40")] == "VBUS" and pins[(esd, "2")] == pins[(pico, "TP1")] == "GND"
    dp, dm = pins[(pico, "TP3")], pins[(pico, "TP2")]
    first, second = sorted(next(c for c, s in zip(channels, on_array) if c == s))
    off = _move(_move(ctl, esd, first, "STRAY"), esd, second, "STRAY")
    assert checks.usb_faults(off) == [f"USB D+ (the Pico's TP3, net {dp}) is not on both pins of one I/O line of "
                                      "the ESD array: no array pin"]
    half = checks.usb_faults(_move(ctl, esd, second, "STRAY"))
    assert half == [f"USB D+ (the Pico's TP3, net {dp}) is not on both pins of one I/O line of the ESD array: "
                    f"{esd} pin {first} ({lib[first].name})"]
    open_dm = checks.usb_faults(_move(ctl, pico, "TP2", f"unconnected-({pico}-PadTP2)"))
    assert open_dm == [f"USB D- (the Pico's TP2, net unconnected-({pico}-PadTP2)) is not on both pins of one I/O "
                       "line of the ESD array: no array pin"]
    assert dm != dp
    assert checks.usb_faults(_move(ctl, esd, "5", "+5V")) == [f"{esd}'s VBUS is on +5V, not the Pico's VBUS"]
    bare = copy.deepcopy(ctl)
    del bare.components[esd]
    assert checks.usb_faults(bare) == ["the Pico's USB lines have no ESD array (parts.toml usb_esd)"]
    # placed just outside the module at its USB end, a short run from the test pads
    board = result.placed["controller"]
    at = {p.ref: p for p in board.parts}
    pads = {pad.number: pad for pad in kicad.footprint(at[pico].footprint).pads}
    x0, y0, x1, y1 = at[esd].box()
    assert math.dist(((x0 + x1) / 2, (y0 + y1) / 2), at[pico].to_board(pads["TP2"].x, pads["TP2"].y)) < 15.0
    assert y1 < at[pico].to_board(0.0, -20.0)[1]  # level with the USB end, not down the module's side


def test_a_shared_clock_is_caught(built):
    """Issue 19, item 7: one buffer output drove 32 readers' OSCIN; now each reader has its crystal."""
    result, _ = built
    cell = result.nets["cell"]
    readers = [_ref(cell, "reader", Block=str(b)) for b in range(4)]
    shared = _move(cell, readers[1], "21", _node(cell, readers[0], "21")[0])
    faults = checks.clock_faults(shared)
    assert len(faults) == 2 and faults[0].startswith(f"{readers[0]}'s OSCIN")


def test_every_footprint_is_placed_inside_the_outline_without_overlaps(built):
    result, out = built
    cell = result.placed["cell"]
    assert (cell.width, cell.height) == (100.0, 100.0)
    for name, board in result.placed.items():
        net = result.nets[name]
        assert pcb.placement_faults(board, net) == []
        assert sorted(p.ref for p in board.parts) == sorted(net.components)
        text = (out / f"{name}.kicad_pcb").read_text()
        tree = kicad.parse(text)
        assert len(kicad.children(tree, "footprint")) == len(net.components) + len(board.holes)
        assert len(board.holes) >= 2  # mounting holes (boards.toml), kept clear of every part
        edges = [g for g in kicad.children(tree, "gr_line") if kicad.child(g, "layer")[1] == "Edge.Cuts"]
        assert len(edges) == 4
    # the cell board's coils on top, every other part below; planted faults are caught
    assert {p.side for p in cell.parts if result.nets["cell"].components[p.ref].fields["Key"] == "antenna"} == {"F"}
    assert {p.side for p in cell.parts if result.nets["cell"].components[p.ref].fields["Key"] != "antenna"} == {"B"}
    # each loop's outer end at its block's centre, where the reader and its switches sit (the inner
    # end of a multi-turn loop is a via inside it, to the bottom side)
    for p in cell.parts:
        comp = result.nets["cell"].components[p.ref]
        if comp.fields["Key"] == "antenna":
            block = int(comp.fields["Block"])
            centre = (50.0 * (block % 2) + 25.0, 50.0 * (block // 2) + 25.0)
            pad = next(pad for pad in kicad.footprint(p.footprint).pads if pad.number == "1")
            assert math.dist(p.to_board(pad.x, pad.y), centre) < 6.0, (p.ref, pad.number)
    # an LED under every cell centre, on the bottom, its body through the board
    leds = [p for p in cell.parts if result.nets["cell"].components[p.ref].fields["Key"] == "led"]
    assert sorted((p.x, p.y) for p in leds) == sorted(((c + 0.5) * 25.0, (r + 0.5) * 25.0)
                                                      for r in range(4) for c in range(4))
    assert {p.side for p in leds} == {"B"}
    # nothing under a loop but what boards.toml keeps there (and the RF model takes): a resistor
    # moved inside one is caught
    stays = set(pcb.BOARDS["cell"]["loop_stays"]) | {"antenna"}
    assert {result.nets["cell"].components[p.ref].fields["Key"] for p in cell.parts if any(
        p.box()[0] < x1 and x0 < p.box()[2] and p.box()[1] < y1 and y0 < p.box()[3]
        for x0, y0, x1, y1 in pcb.loop_boxes(cell.parts, result.nets["cell"]))} <= stays
    moved = copy.deepcopy(cell)
    r = next(p for p in moved.parts if result.nets["cell"].components[p.ref].fields["Key"] == "resistor")
    r.x, r.y = 37.5, 40.0
    assert f"{r.ref} lies under the loop at (37.5, 37.5)" in pcb.placement_faults(moved, result.nets["cell"])
    moved = copy.deepcopy(cell)
    a, b = moved.parts[-1], moved.parts[-2]
    a.x, a.y = b.x, b.y
    assert f"{b.ref} and {a.ref} overlap (B)" in pcb.placement_faults(moved) or \
        f"{a.ref} and {b.ref} overlap (B)" in pcb.placement_faults(moved)
    a.x = -5.0
    assert any(f.startswith(f"{a.ref}'s courtyard") for f in pcb.placement_faults(moved))
    moved.parts.pop()
    assert f"{a.ref} is on the netlist but not placed" in pcb.placement_faults(moved, result.nets["cell"])


def test_gerbers_and_pick_and_place_come_from_the_placement(built):
    result, out = built
    board, net = result.placed["cell"], result.nets["cell"]
    top = (out / "cell-gerbers" / "cell-F_Cu.gbr").read_text()
    assert top.startswith("%TF.FileFunction,Copper,L1,Top*%") and top.rstrip().endswith("M02*")
    loops = [p for p in board.parts if net.components[p.ref].fields["Key"] == "antenna"]
    assert top.count("D03*") == 2 * len(loops)  # the loops' pads: the top carries no part
    # the bottom copper: the bottom parts' copper pads (their own side's, F.Cu in the library) and
    # every plated through-hole pad (a loop's inner end included)
    bottom = (out / "cell-gerbers" / "cell-B_Cu.gbr").read_text()
    assert bottom.count("D03*") == sum(
        1 for p in board.parts for pad in kicad.footprint(p.footprint).pads if pad.kind != "np_thru_hole"
        and ("*.Cu" in pad.layers or f"{'F' if p.side == 'B' else 'B'}.Cu" in pad.layers))
    assert (out / "cell-gerbers" / "cell-Edge_Cuts.gbr").read_text().count("D01*") == 4
    with open(out / "cell-pos.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(board.parts) - len(loops) and {r["Layer"] for r in rows} == {"Bottom"}
    drill = (out / "controller-gerbers" / "controller-drill.drl").read_text()
    holes = sum(1 for p in result.placed["controller"].parts for pad in kicad.footprint(p.footprint).pads if pad.drill)
    assert len(re.findall(r"^X", drill, re.M)) == holes > 0


def test_the_loop_footprint_is_the_architectures_coil():
    assert pcb.loop_path().read_text() == pcb.loop_footprint_text(pcb.ARCH["coil"]), \
        "the loop footprint is stale: run python hardware/pcb.py --footprints"


def test_the_cost_is_computed_and_the_readme_shows_it(built):
    result, _ = built
    figures = cost.costs(result)
    assert figures["usd_per_cell_1"] <= 2.5 and figures["usd_per_cell_10"] <= 1.5  # issue 26, all in
    assert figures["total_usd"] == pytest.approx(sum(line["usd"] for line in figures["lines"]), abs=0.01)
    assert figures["usd_per_cell"] == pytest.approx(figures["total_usd"] / figures["cells"], abs=1e-3)
    items = " ".join(line["item"] for line in figures["lines"])
    for what in ("cell PCB", "cell assembly", "controller PCB", "controller assembly", "pi:", "oled:", "button:",
                 "cover:", "psu:", "pi_psu:", "otg_cable:", "frame:", "tag:", "dot:", "standoff:"):
        assert what in items, what
    readme = (HW / "README.md").read_text()
    block = readme[readme.index(cost.BEGIN) + len(cost.BEGIN):readme.index(cost.END)].strip()
    assert block == cost.report(figures), "hardware/README.md is stale: run python hardware/cost.py --write"
    assert json.loads(cost.RECORD.read_text()) == figures, "data/cost.json is stale: run python hardware/cost.py --write"


def test_the_command_line_builds_everything(tmp_path):
    run = subprocess.run([sys.executable, str(HW / "circuit.py"), "--out", str(tmp_path)], capture_output=True,
                         text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0 and "checks clean" in run.stdout, run.stderr[-2000:]
    assert not list(tmp_path.glob("*.erc")) and not list(tmp_path.glob("*.log"))
    bad = tmp_path / "wiring.toml"
    bad.write_text((HW / "wiring.toml").read_text().replace("sck = 18", "sck = 25"))
    run = subprocess.run([sys.executable, str(HW / "circuit.py"), "--out", str(tmp_path), "--wiring", str(bad)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and "GP25" in run.stderr and "Traceback" not in run.stderr


def test_the_cost_prints_as_json(built, monkeypatch, capsys):
    result, _ = built
    monkeypatch.setattr(cost, "compute", lambda: cost.costs(result))  # the boards as the fixture built them
    assert cost.main(["--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert set(figures) >= {"total_usd", "cells", "usd_per_cell", "lines"} and figures["cells"] == 194


def test_a_missing_kicad_library_fails_naming_the_debian_package(monkeypatch, tmp_path):
    monkeypatch.setenv("KICAD6_SYMBOL_DIR", str(tmp_path / "none"))
    kicad._library_text.cache_clear()
    kicad.symbol.cache_clear()
    try:
        with pytest.raises(kicad.MissingLibrary, match="kicad-symbols kicad-footprints"):
            kicad.symbol("Device", "R")
    finally:
        kicad._library_text.cache_clear()
        kicad.symbol.cache_clear()


def test_parts_toml_records_value_tolerance_package_and_a_dated_source():
    data = tomllib.loads((HW / "data" / "parts.toml").read_text())
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", data["meta"]["price_date"])
    for key, spec in data["parts"].items():
        assert spec["value"] and spec["source"] and spec["unit_usd"] >= 0, key
        if "footprint" in spec:  # a part a board carries
            assert spec["package"] and spec["symbol"], key
            if spec["symbol"] in ("Device:C", "Device:R", "Device:L"):
                assert spec["tolerance"], key
