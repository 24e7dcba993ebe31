"""One rule for every benchmark's targets: a target is met only by a measurement. A figure with
nothing behind it (no sample was taken: None, or NaN) is reported as not measured, never as met,
and the benchmark then exits 1 (`Targets.done`), naming what it could not measure."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable


def measured(value) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


class Targets:
    def __init__(self):
        self.met: dict[str, bool] = {}
        self.unmeasured: list[str] = []

    def check(self, name: str, value, ok: Callable[[float], bool]) -> bool:
        """Whether `value` meets target `name` (`ok(value)`); False, and noted, without a value."""
        if not measured(value):
            self.unmeasured.append(name)
            self.met[name] = False
            return False
        self.met[name] = bool(ok(value))
        return self.met[name]

    def said(self, name: str) -> str:
        """The verdict on target `name` in words."""
        return "not measured" if name in self.unmeasured else "met" if self.met[name] else "NOT met"

    def done(self) -> None:
        """Exit 1 if a target had no measurement (said on standard error)."""
        if self.unmeasured:
            print(f"not measured, so not met: {', '.join(self.unmeasured)}", file=sys.stderr, flush=True)
            sys.exit(1)
