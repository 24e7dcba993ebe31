"""The table's one voice. Every prompt a reader or the match core shows reads the same way:
what to do, then why, then the rule by number, "put 2-4 back between 0-0 and 4-4: ... (rule
CR-5.3)"; tiles by name, places as the tray names them (`span`: r4c6-r4c7, a zone, "the open
end"), never in an engine's own coordinates (a reader translates those: `Reader.in_tray_terms`)."""

from __future__ import annotations

from dominotable.rules.errors import DominoError
from dominotable.tray.geometry import Geometry


def say(fix: str, why: str = "", rule: str | None = None) -> str:
    """`fix: why (rule R)`, any part left out when empty."""
    text = f"{fix}: {why}" if fix and why else fix or why
    return f"{text} (rule {rule})" if rule else text


def reason(error: DominoError) -> tuple[str, str | None]:
    """An engine's refusal as (its reason, its rule): the rule taken off the front of the message."""
    rule = getattr(error, "rule", None)
    text = str(error)
    return (text.removeprefix(f"rule {rule}: ") if rule else text), rule


def span(geometry: Geometry, cells) -> str:
    """`r4c6-r4c7` for a tile's cells."""
    labels = []
    for cell in sorted(cells):
        row, col = geometry.coords(cell)
        labels.append(f"r{row}c{col}")
    return "-".join(labels)
