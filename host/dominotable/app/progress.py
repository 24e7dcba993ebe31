"""Progress bars for the long commands (tournament, stats, enroll layout): tqdm on standard
error when it is a terminal, nothing at all when it is not (a pipe, a log, CI), so what the
commands print stays as it was."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def bar(total: int, unit: str) -> Iterator[Callable[[], object]]:
    """A bar of `total` `unit`s; yields the step, called once per unit done."""
    if not sys.stderr.isatty():
        yield lambda: None
        return
    from tqdm import tqdm

    with tqdm(total=total, unit=f" {unit}", file=sys.stderr) as shown:
        yield shown.update
