"""`dominotable tray bringup` against the virtual tray: the firmware's bring-up mode over the
wire, judged per cell, with injected faults (a dead reader, a detuned coil, a shorted coil, a
coil switch stuck on the network, slow SPI)."""

import json
import math

import pytest
from dominotable.app.cli import main
from dominotable.tray import bringup
from dominotable.tray.errors import TrayError
from dominotable.tray.geometry import default
from dominotray import emulator, pins, wire
from dominotray import mfrc522 as M

GEO = default()


def lay_reference_tags(tray, pattern="checker"):
    for cell in bringup.expected_tags(pattern, GEO):
        tray.place_tag(cell, bytes([0x04, 0xB0, 0x00, 0x00, 0x00, cell >> 8, cell & 0xFF]))


def test_a_healthy_tray_passes_every_cell(vtray, capsys):
    lay_reference_tags(vtray)
    assert main(["tray", "bringup", "--port", vtray.path, "--led-ms", "0"]) == 0
    out = capsys.readouterr().out
    assert "194 cells: 194 pass, 0 fail" in out
    row = next(line for line in out.splitlines() if line.startswith("r0c0 "))
    assert "04b00000000000 (tag expected)" in row and row.endswith("pass")
    # the face-down margin the range test found: the scanning drive over the weakest at which the
    # emulated reference tag, face up (the RF model's field: emulator.FULL_DRIVE_MARGIN), still answers
    weakest = math.ceil(M.DRIVE_MAX / emulator.FULL_DRIVE_MARGIN)
    margin = pins.TX_DRIVE / weakest * bringup.FACE_DOWN
    assert f"x{margin:.2f}" in row and margin >= bringup.MIN_MARGIN


def test_faults_fail_their_cells_and_name_why(vtray, capsys):
    lay_reference_tags(vtray)
    vtray.set_dead(GEO.cell(0, 0))            # the reader of r0c0, r0c1, r1c0, r1c1
    vtray.set_coupling(GEO.cell(4, 4), 0.5)   # a detuned coil: reads its tag, but not a tile face down
    vtray.set_coupling(GEO.cell(0, 2), 0.0)   # a coil shorted across: reads nothing
    vtray.set_stuck(GEO.cell(2, 2))           # its switch stuck on: its tag answers for its block
    assert main(["tray", "bringup", "--port", vtray.path, "--cells", "r0c0:r5c5", "--json", "--led-ms", "0"]) == 1
    cells = {c["label"]: c for c in json.loads(capsys.readouterr().out)["cells"]}
    assert len(cells) == 36
    for label in ("r0c0", "r0c1", "r1c0", "r1c1"):
        assert cells[label]["failures"] == ["reader"] and not cells[label]["present"]
    r4c4 = cells["r4c4"]
    assert r4c4["failures"] == [f"range x{r4c4['face_down_margin']:.2f} < x{bringup.MIN_MARGIN:.2f}"]
    assert cells["r4c4"]["read"] == "04b00000000044"  # a detuned coil reads its tag, short of the margin
    assert cells["r0c2"]["failures"] == ["tuned: its tag does not read"]
    for label in ("r2c3", "r3c2"):  # empty cells of the stuck switch's block read r2c2's tag
        assert cells[label]["failures"] == ["cross-read"]
        assert cells[label]["cross_read"] == "reads the tag of r2c2"
    assert cells["r3c3"]["cross_read"] == "a second tag answers with its own"  # its tag and r2c2's
    failing = {label for label, c in cells.items() if c["failures"]}
    assert failing == {"r0c0", "r0c1", "r1c0", "r1c1", "r4c4", "r0c2", "r2c3", "r3c2", "r3c3"}


def test_slow_spi_fails_every_reader_and_a_table_names_it(vtray, capsys):
    lay_reference_tags(vtray, "checker-odd")
    vtray.set_spi_us(bringup.SPI_MAX_US + 50)
    assert main(["tray", "bringup", "--port", vtray.path, "--tags", "checker-odd", "--cells", "r0c0:r3c3",
                 "--led-ms", "0"]) == 1
    out = capsys.readouterr().out
    assert "16 cells: 0 pass, 16 fail (r0c0: SPI 2" in out
    assert f"> {bringup.SPI_MAX_US}" in out


def test_usage_errors_exit_2_without_a_traceback(vtray, capsys):
    assert main(["tray", "bringup", "--port", vtray.path, "--tags", "r99c0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "row 99, column 0 is off the 16x12 grid" in err
    assert main(["tray", "bringup", "--port", vtray.path, "--led-ms", "5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--led-ms 5 is shorter than the tray's frame interval ({bringup.LED_MIN_MS} ms)" in err


def test_every_led_lights_alone_along_its_chain_then_all_red_green_and_blue(vtray, capsys):
    """The LED check, as the tray's chains latched it: each judged cell alone, white, in its chain's
    order from the controller (the scan pad's LEDs lead chain 0), then all of them in each colour,
    then dark."""
    latched = []
    vtray.chains.on_latch = lambda: latched.append(vtray.chains.lit())
    cells = bringup.parse_cells("r0c0:r1c1", GEO) + list(GEO.pad)
    assert main(["tray", "bringup", "--port", vtray.path, "--cells", ",".join(map(str, cells)), "--led-ms", "100"]) == 1
    out = capsys.readouterr().out
    assert "LED pad-left: chain 0 (GP2), LED 1, white" in out and "LED r1c0: chain 0 (GP2), LED 10, white" in out
    cap = [v * pins.LIGHT_BRIGHTNESS // 255 for v in (255, 255, 255)]
    shown = [lit for lit in latched if lit]  # the boot's dark frames and the last one left out
    order = [cell for cell, _, _ in bringup.led_order(cells)]
    assert order == [192, 193, 0, 1, 17, 16]  # serpentine: r0 left to right, r1 right to left
    assert shown == [{cell: tuple(cap)} for cell in order] + [
        dict.fromkeys(order, tuple(v * pins.LIGHT_BRIGHTNESS // 255 for v in rgb)) for _, rgb in bringup.PRIMARIES]
    assert latched[-1] == {}


def test_judging_is_by_uid_owner_and_pattern():
    probe = wire.Probe
    uid = b"\x04\x01\x02\x03\x04\x05\x06"
    probes = [probe(True, 60, wire.EMPTY, b"", 0) for _ in range(GEO.cells)]
    probes[0] = probe(True, 60, wire.TAG, uid, 6)   # its own tag, read down to drive 6
    probes[1] = probe(True, 60, wire.TAG, uid, 20)  # the same tag, only at a stronger drive
    probes[16] = probe(True, 60, wire.STACK, b"", 0)
    result = {r.label: r for r in bringup.judge(probes, 31, GEO, {0, 16}, [0, 1, 16, 17])}
    assert result["r0c0"].failures == [] and abs(result["r0c0"].margin - 31 / 6 * bringup.FACE_DOWN) < 1e-9
    assert result["r0c1"].cross == "reads the tag of r0c0"
    assert result["r1c0"].cross == "a second tag answers with its own"
    assert result["r1c1"].failures == ["tuned: its tag does not read"] or result["r1c1"].failures == []
    assert bringup.parse_cells("r0c0:r1c1", GEO) == [0, 1, 16, 17]
    assert bringup.expected_tags("checker", GEO) >= {0, 2, 17, 192} and 1 not in bringup.expected_tags("checker", GEO)


def test_the_sim_injects_the_bringup_faults(vtray):
    from dominotable.app.commands.tray import sim_command

    assert sim_command(vtray, "detune r4c4 0.5") == "coil at r4c4 (cell 68) makes 0.5 of its field"
    assert sim_command(vtray, "stuck 34") == "coil switch at r2c2 (cell 34) stuck on"
    assert sim_command(vtray, "spi 200") == "SPI transactions take 200 us"
    assert vtray.array.coils[68].coupling == 0.5 and vtray.array.coils[34].stuck and vtray.array.xfer_us == 200
    for bad, message in (("detune 3 2", "from 0 to 1"), ("spi 0", "from 1 to 10000"), ("spi x", "not a number")):
        with pytest.raises(TrayError, match=message):
            sim_command(vtray, bad)
