"""The buttons, the status LED and the buzzer as the configuration names them (`[buttons]`: their
pins, and the gpiozero pin factory that drives them), and the backend that choice comes to
(`factory_name`): what both backends (controls.py's virtual one, pins.py's gpiozero one) read.

The backend is chosen the gpiozero way: `buttons.pin_factory` in the configuration, or with
"auto" the GPIOZERO_PIN_FACTORY environment variable; failing both, lgpio on a Raspberry Pi 5,
RPi.GPIO (`rpigpio`) on older Pis, and `virtual` anywhere else.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from dominotable.rules.errors import DominoError
from dominotable.settings import setting

MODEL_FILE = Path("/proc/device-tree/model")


class ControlsError(DominoError):
    """A pin factory that cannot start, or a pin it cannot give us."""


def pi_model() -> str:
    try:
        return MODEL_FILE.read_bytes().rstrip(b"\0").decode(errors="replace")
    except OSError:
        return ""


FACTORIES = ("auto", "virtual", "mock", "lgpio", "rpigpio", "pigpio", "native")


def _pin(value) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 27) or (
        isinstance(value, str) and value.strip() != ""
    )


@dataclass(frozen=True)
class ButtonsConfig:
    up: int | str = setting(17, _pin, "is not a GPIO pin")
    down: int | str = setting(27, _pin, "is not a GPIO pin")
    select: int | str = setting(22, _pin, "is not a GPIO pin")
    led: int | str = setting(23, _pin, "is not a GPIO pin")
    buzzer: int | str = setting(24, _pin, "is not a GPIO pin")
    pin_factory: str = setting("auto", lambda v: v in FACTORIES, f"is not one of {', '.join(FACTORIES)}")


def factory_name(configured: str = "auto", model: str | None = None) -> str:
    """The gpiozero pin factory to use: the configured one, else the environment's, else by board."""
    if configured != "auto":
        return configured
    env = os.environ.get("GPIOZERO_PIN_FACTORY")
    if env:
        return env
    model = pi_model() if model is None else model
    if not model.startswith("Raspberry Pi"):
        return "virtual"
    return "lgpio" if re.match(r"Raspberry Pi (5|500|Compute Module 5)\b", model) else "rpigpio"
