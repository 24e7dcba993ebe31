"""The three buttons, the status LED and the buzzer: the backend the configuration chose, opened.

Whatever the backend, presses (ui/press.py) arrive as events on a queue for the app, and the
app marks an illegal play with `illegal()` and a waiting table with `status(on)`.

The backend is the one the configuration comes to (ui/buttons.py's `factory_name`). Any gpiozero
factory (`mock` included, which tests use to drive pins) opens `PinControls` (ui/pins.py); only
then is gpiozero imported. `virtual` is the laptop's table: presses come from the keyboard, the web
page or a bot, straight onto the queue, and the LED and buzzer are kept as state.
"""

from __future__ import annotations

import queue

from dominotable.ui.buttons import ButtonsConfig, factory_name
from dominotable.ui.press import Press


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
