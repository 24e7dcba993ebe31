"""What keeps the table up: every part the runtime drives (the match, the setup menu, the OLED, the
page, a venue link, the tray's watch list) runs through `run(part, fn)`. An exception from one
part never ends `run`: it is logged (once a minute per part at most, with how often it happened)
and becomes a fault a person can read on the OLED and the page, naming what failed; the part is
tried again with backoff (0.5 s, doubling to a minute) so a failure that repeats (a display
unplugged, a device gone) is shown and retried, never a restart loop. Only SIGTERM, SIGINT or the
menu end the table.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("dominotable.app")

LOG_EVERY = 60.0  # seconds between log lines about one part
FIRST_RETRY, LAST_RETRY = 0.5, 60.0


@dataclass
class Fault:
    part: str
    what: str  # the exception, as a person can read it
    count: int = 1
    logged: float = 0.0
    retry_at: float = 0.0

    def __str__(self) -> str:
        again = f" ({self.count} times)" if self.count > 1 else ""
        return f"{self.part} failed{again}: {self.what}"


class Supervisor:
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.faults: dict[str, Fault] = {}

    def due(self, part: str) -> bool:
        """Whether `part` may run now (not waiting out its backoff)."""
        fault = self.faults.get(part)
        return fault is None or self.clock() >= fault.retry_at

    def run(self, part: str, fn: Callable[..., object], *args) -> bool:
        """Run `fn(*args)` as `part`; True if it ran without an exception."""
        if not self.due(part):
            return False
        try:
            fn(*args)
        except Exception as exc:  # a bug or a device: the table goes on without it for now
            self.failed(part, exc)
            return False
        self.faults.pop(part, None)
        return True

    def failed(self, part: str, exc: BaseException) -> Fault:
        now = self.clock()
        what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        fault = self.faults.get(part)
        if fault is None:
            fault = self.faults[part] = Fault(part, what, logged=now - LOG_EVERY)
        else:
            fault.count, fault.what = fault.count + 1, what
        if now - fault.logged >= LOG_EVERY:
            fault.logged = now
            log.error("%s", str(fault), exc_info=fault.count == 1)  # the fault goes on changing
        # the doubling stops once it passes the last retry (a float of 2 ** 1024 would overflow)
        fault.retry_at = now + min(LAST_RETRY, FIRST_RETRY * 2 ** min(fault.count - 1, 16))
        return fault
