"""The three buttons, the status LED and the buzzer, through gpiozero.

Presses (ui/press.py) become events on a thread-safe queue for the app: up and down when
pressed, select when select is released after a short press, long select once it has been
held `long_press` seconds. A button already held when the table starts (a stuck key,
a finger resting on it through a reboot) is ignored until it has been released.

The pin factory is chosen the gpiozero way: `buttons.pin_factory` in the configuration,
or with "auto" the GPIOZERO_PIN_FACTORY environment variable; failing both, lgpio on a
Raspberry Pi 5, RPi.GPIO (`rpigpio`) on older Pis, and gpiozero's MockFactory anywhere
else, which is how the simulated table and the tests press buttons.
"""

from __future__ import annotations

import os
import queue
import re
import threading
import warnings
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from gpiozero import LED, Button, Buzzer
from gpiozero.pins.mock import MockFactory

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
    pin_factory: str = setting("auto", lambda v: v in ("auto", "mock", "lgpio", "rpigpio", "pigpio", "native"),
                            "is not one of auto, mock, lgpio, rpigpio, pigpio, native")

def factory_name(configured: str = "auto", model: str | None = None) -> str:
    """The gpiozero pin factory to use: the configured one, else the environment's, else by board."""
    if configured != "auto":
        return configured
    env = os.environ.get("GPIOZERO_PIN_FACTORY")
    if env:
        return env
    model = pi_model() if model is None else model
    if not model.startswith("Raspberry Pi"):
        return "mock"
    return "lgpio" if re.match(r"Raspberry Pi (5|500|Compute Module 5)\b", model) else "rpigpio"


def make_factory(name: str):
    """A gpiozero pin factory by its entry-point name (lgpio, rpigpio, pigpio, native, mock)."""
    if name == "mock":
        return MockFactory()
    for ep in entry_points(group="gpiozero_pin_factories"):
        if ep.name == name:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return ep.load()()
            except Exception as exc:  # each library fails its own way off a Pi or without access
                hint = " (pip install 'dominotable[pi]')" if isinstance(exc, ImportError) else ""
                raise ControlsError(f"buttons.pin_factory {name}: cannot start it: {exc}{hint}") from None
    raise ControlsError(f"buttons.pin_factory {name!r} is not a gpiozero pin factory")


class Controls:
    def __init__(self, cfg: ButtonsConfig, factory=None, long_press: float = 0.8, bounce: float | None = 0.02):
        self.factory = factory or make_factory(factory_name(cfg.pin_factory))
        self.events: queue.Queue[Press] = queue.Queue()
        self._lock = threading.Lock()
        self._held_long = False
        self._stale: set[str] = set()
        self.buttons: dict[str, Button] = {}
        try:
            for name in ("up", "down", "select"):
                button = Button(getattr(cfg, name), pull_up=True, bounce_time=bounce, hold_time=long_press,
                                pin_factory=self.factory)
                self.buttons[name] = button
                if button.is_pressed:
                    self._stale.add(name)
                button.when_pressed = lambda _=None, n=name: self._pressed(n)
                button.when_released = lambda _=None, n=name: self._released(n)
            self.buttons["select"].when_held = lambda _=None: self._held()
            self.led = LED(cfg.led, pin_factory=self.factory)
            self.buzzer = Buzzer(cfg.buzzer, pin_factory=self.factory)
        except Exception as exc:  # gpiozero's pin errors: in use, no such pin, no permission
            self.close()
            raise ControlsError(f"buttons: {exc}") from None

    def _pressed(self, name: str) -> None:
        with self._lock:
            if name in self._stale:
                return
            if name == "select":
                self._held_long = False
            else:
                self.events.put(Press(name))

    def _held(self) -> None:
        with self._lock:
            if "select" in self._stale:
                return
            self._held_long = True
            self.events.put(Press.LONG_SELECT)

    def _released(self, name: str) -> None:
        with self._lock:
            if name in self._stale:
                self._stale.discard(name)  # from now on this button counts
                return
            if name == "select" and not self._held_long:
                self.events.put(Press.SELECT)

    def get(self, timeout: float | None = None) -> Press | None:
        """The next button event, or None if there is none within `timeout` seconds."""
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def illegal(self) -> None:
        """Mark an illegal play: two short beeps and three LED blinks, without blocking."""
        self.buzzer.beep(on_time=0.08, off_time=0.06, n=2, background=True)
        self.led.blink(on_time=0.1, off_time=0.1, n=3, background=True)

    def status(self, on: bool) -> None:
        """The status LED held steady (say while the table waits for the tray to be fixed)."""
        self.led.on() if on else self.led.off()

    def close(self) -> None:
        for device in [*self.buttons.values(), getattr(self, "led", None), getattr(self, "buzzer", None)]:
            if device is not None:
                device.close()
