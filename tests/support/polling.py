"""The one way a test waits: for a positive sign that what it waits for has happened, polled
until a deadline that only a broken table reaches (never a sleep that hopes the table was quick).

`until(predicate)` returns whether the predicate held in time; given `what`, it raises
AssertionError naming what was awaited (and `shows()`, what was seen instead). With `condition`
(a threading.Condition the waited-on thread notifies), it waits on it between checks, holding it
while the predicate is asked, instead of sleeping."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

WAIT = 10.0  # seconds: for what normally holds within milliseconds, on a loaded machine too
POLL = 0.005


def until(predicate: Callable[[], object], timeout: float = WAIT, *, what: str | None = None,
          shows: Callable[[], object] | None = None, condition: threading.Condition | None = None) -> bool:
    """Wait until `predicate()` holds, at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if condition is None:
            held = predicate()
        else:
            with condition:
                held = predicate() or condition.wait(POLL * 4) and predicate()
        if held:
            return True
        if time.monotonic() > deadline:
            if what is None:
                return False
            seen = f"; it shows {shows()}" if shows is not None else ""
            raise AssertionError(f"waited {timeout:g} s for {what}{seen}")
        if condition is None:
            time.sleep(POLL)
