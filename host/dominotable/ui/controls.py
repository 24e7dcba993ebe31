"""The three buttons, the status LED and the buzzer: their settings and the backend chosen.

Whatever the backend, presses (ui/press.py) arrive as events on a queue for the app, and the
app marks an illegal play with `illegal()` and a waiting table with `status(on)`.

The backend is chosen the gpiozero way: `buttons.pin_factory` in the configuration, or with
"auto" the GPIOZERO_PIN_FACTORY environment variable; failing both, lgpio on a Raspberry Pi 5,
RPi.GPIO (`rpigpio`) on older Pis, and `virtual` anywhere else. Any gpiozero factory
(`mock` included, which tests use to drive pins) opens `PinControls` (ui/pins.py); only then
is gpiozero imported. `virtual` is the laptop's table: presses come from the keyboard, the web
page or a bot, straight onto the queue, and the LED and buzzer are kept as state.
"""

from __future__ import annotations

import os
import queue
import re
from dataclasses import dataclass
from pathlib import Path

from dominotable.rules.errors import DominoError
from dominotable.settings import setting
from dominotable.ui.press import Press

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


def open_controls(cfg: ButtonsConfig, long_press: float = 0.8):
    """The buttons the configuration names: `VirtualControls`, or gpiozero's `PinControls`."""
    name = factory_name(cfg.pin_factory)
    if name == "virtual":
        return VirtualControls()
    from dominotable.ui.pins import PinControls, make_factory

    return PinControls(cfg, make_factory(name), long_press=long_press)


class VirtualControls:
    """The simulated table's buttons: `press()` queues the press as a finger on a button would
    end it; the buzzer's marks and the LED are state a front end or a test can read."""

    def __init__(self):
        self.events: queue.Queue[Press] = queue.Queue()
        self.illegal_marks = 0
        self.led = False

    def press(self, name: str) -> None:
        self.events.put(Press(name))

    def illegal(self) -> None:
        self.illegal_marks += 1

    def status(self, on: bool) -> None:
        self.led = on

    def close(self) -> None:
        pass
