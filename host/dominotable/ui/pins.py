"""The buttons, the status LED and the buzzer on GPIO pins, through gpiozero (any pin factory,
`mock` included).

Up and down are events when pressed, select when select is released after a short press, long
select once it has been held `long_press` seconds. A button already held when the table starts
(a stuck key, a finger resting on it through a reboot) is ignored until it has been released.
"""

from __future__ import annotations

import queue
import threading
import warnings
from importlib.metadata import entry_points

from gpiozero import LED, Button, Buzzer
from gpiozero.pins.mock import MockFactory

from dominotable.ui.buttons import ButtonsConfig, ControlsError
from dominotable.ui.press import Press


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


class PinControls:
    def __init__(self, cfg: ButtonsConfig, factory, long_press: float = 0.8, bounce: float | None = 0.02):
        self.factory = factory
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

    @property
    def long_held(self) -> bool:
        """Select has been held past the long-press time since it was last pressed: its long
        select is queued."""
        with self._lock:
            return self._held_long

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
