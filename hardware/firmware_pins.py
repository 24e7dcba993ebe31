"""The firmware's pin generator (firmware/gen_pins.py), loaded from its file: the one reader of
wiring.toml and tray.toml that both the firmware and the boards (circuit.py, checks.py) trust."""

from __future__ import annotations

import importlib.util
import tomllib
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@cache
def gen_pins():
    spec = importlib.util.spec_from_file_location("gen_pins", ROOT / "firmware" / "gen_pins.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wiring(wiring_path: Path | None = None, tray_path: Path | None = None) -> dict:
    """The checked wiring (the Pico's pins, the chip-select codes, the decoders, the light chains'
    pins) and the tray's shape."""
    g = gen_pins()
    values = g.load(wiring_path or g.WIRING, tray_path or g.TRAY)
    raw = tomllib.loads(Path(wiring_path or g.WIRING).read_text())
    values["decoders"] = raw["decoder"]
    values["LIGHT_PINS"] = tuple(gpio for gpio, _cells in values["LIGHT_CHAINS"])
    return values
