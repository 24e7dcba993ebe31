"""Buttons, LED and buzzer on gpiozero's MockFactory pins, pressed with drive_low/drive_high."""

import queue
import threading
import time

import pytest
from dominotable.ui import pins as pins_module
from dominotable.ui.buttons import ButtonsConfig, ControlsError, factory_name
from dominotable.ui.controls import open_controls
from dominotable.ui.pins import PinControls, make_factory
from gpiozero.pins.mock import MockFactory, MockPin
from support.polling import until

CFG = ButtonsConfig(up=5, down=6, select=13, led=19, buzzer=26)
LONG = 0.15


class ButtonPin(MockPin):
    """A mock pin wired to a push button to ground: pushed, it reads low whatever the pull-up."""

    pushed = False

    def _set_pull(self, value):
        super()._set_pull(value)
        if self.pushed:
            self.drive_low()


@pytest.fixture
def factory():
    factory = MockFactory(pin_class=ButtonPin)
    yield factory
    factory.reset()


@pytest.fixture
def controls(factory):
    controls = PinControls(CFG, factory=factory, long_press=LONG)
    yield controls
    controls.close()


def press(factory, pin, hold=0.0):
    factory.pin(pin).drive_low()
    if hold:
        time.sleep(hold)
    factory.pin(pin).drive_high()


def drain(controls, wait=0.0):
    events = []
    while True:
        try:
            events.append(controls.events.get(timeout=wait))
        except queue.Empty:
            return events


def test_presses_become_queued_events(factory, controls):
    press(factory, 5)
    press(factory, 6)
    press(factory, 6)
    press(factory, 13)
    assert drain(controls) == ["up", "down", "down", "select"]


def test_holding_select_is_a_long_select_and_no_select(factory, controls):
    press(factory, 13, hold=LONG * 2.5)
    press(factory, 13)
    assert drain(controls, wait=0.05) == ["long-select", "select"]


def test_up_fires_on_press_select_on_release(factory, controls):
    factory.pin(5).drive_low()
    factory.pin(13).drive_low()
    assert drain(controls) == ["up"]
    factory.pin(13).drive_high()
    factory.pin(5).drive_high()
    assert drain(controls) == ["select"]


def test_a_button_held_at_boot_is_ignored_until_released(factory):
    factory.pin(13).pushed = True
    factory.pin(5).pushed = True
    controls = PinControls(CFG, factory=factory, long_press=LONG)
    try:
        # held past the long-press time, as gpiozero counts it: still nothing
        assert until(lambda: (controls.buttons["select"].active_time or 0) >= LONG * 2)
        press(factory, 6)
        assert drain(controls) == ["down"]
        factory.pin(13).drive_high()  # the stale presses end
        factory.pin(5).drive_high()
        assert drain(controls) == []
        press(factory, 13)
        press(factory, 5)
        assert drain(controls) == ["select", "up"]
    finally:
        controls.close()


def test_illegal_play_beeps_twice_and_blinks_three_times(factory, controls):
    led, buzzer = factory.pin(19), factory.pin(26)
    led.clear_states()
    buzzer.clear_states()
    changed_by = set()
    for pin in (led, buzzer):
        def change(value, _change=pin._change_state):
            changed_by.add(threading.current_thread())
            return _change(value)
        pin._change_state = change
    controls.illegal()
    patterns = [controls.buzzer._blink_thread, controls.led._blink_thread]  # gpiozero's threads that play them
    assert until(lambda: not any(thread.is_alive() for thread in patterns)), "the beeps and blinks never ended"
    assert changed_by and threading.current_thread() not in changed_by  # played beside the controller, never by it
    assert [s.state for s in buzzer.states] == [False, True, False, True, False]
    assert [s.state for s in led.states] == [False, True, False, True, False, True, False]
    # the beeps are short: on 80 ms, off 60 ms (the mock pins record the time between changes)
    on_times = [s.timestamp for s in buzzer.states[2::2]]
    assert all(0.06 <= t for t in on_times)


def test_status_led(factory, controls):
    controls.status(True)
    assert factory.pin(19).state
    controls.status(False)
    assert not factory.pin(19).state


@pytest.mark.parametrize("configured, env, model, expected", [
    ("lgpio", "rpigpio", "Raspberry Pi 4 Model B Rev 1.4", "lgpio"),  # the config file wins
    ("auto", "pigpio", "Raspberry Pi 5 Model B Rev 1.0", "pigpio"),   # then the environment
    ("auto", None, "Raspberry Pi 5 Model B Rev 1.0", "lgpio"),
    ("auto", None, "Raspberry Pi Compute Module 5 Rev 1.0", "lgpio"),
    ("auto", None, "Raspberry Pi 4 Model B Rev 1.4", "rpigpio"),
    ("auto", None, "Raspberry Pi Zero 2 W Rev 1.0", "rpigpio"),
    ("auto", None, "", "virtual"),  # a laptop
])
def test_pin_factory_is_chosen_the_gpiozero_way(monkeypatch, configured, env, model, expected):
    if env is None:
        monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    else:
        monkeypatch.setenv("GPIOZERO_PIN_FACTORY", env)
    assert factory_name(configured, model) == expected


def test_mock_factory_by_name():
    assert isinstance(make_factory("mock"), MockFactory)


def test_unknown_or_unusable_factory_is_a_controls_error(monkeypatch):
    with pytest.raises(ControlsError, match="'gpio' is not a gpiozero pin factory"):
        make_factory("gpio")

    class Missing:  # what an entry point looks like when its library is not installed
        name = "lgpio"

        def load(self):
            raise ImportError("No module named 'lgpio'")

    monkeypatch.setattr(pins_module, "entry_points", lambda group: [Missing()])
    with pytest.raises(ControlsError, match=r"pin_factory lgpio: cannot start it: No module .*dominotable\[pi\]"):
        make_factory("lgpio")


def test_a_pin_that_does_not_exist_is_a_controls_error(factory):
    with pytest.raises(ControlsError, match="buttons:"):
        PinControls(ButtonsConfig(up="GPIO99"), factory=factory)


def test_the_laptop_gets_virtual_buttons_and_never_imports_gpiozero():
    """Off a Pi ("auto"), the buttons are virtual: presses queue as they are, the buzzer's marks
    and the LED are state, and gpiozero (5 MB) is not even imported."""
    import subprocess
    import sys

    code = ("import sys; from dominotable.ui.buttons import ButtonsConfig;"
            "from dominotable.ui.controls import open_controls;"
            "c = open_controls(ButtonsConfig(pin_factory='virtual')); c.press('long-select'); c.illegal(); c.status(True);"
            "print(c.events.get_nowait(), c.illegal_marks, c.led, 'gpiozero' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["long-select", "1", "True", "False"]


def test_explicit_mock_opens_gpiozero_mock_pins():
    controls = open_controls(ButtonsConfig(pin_factory="mock"))
    try:
        assert isinstance(controls, PinControls) and isinstance(controls.factory, MockFactory)
    finally:
        controls.close()
