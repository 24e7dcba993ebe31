"""axe-core (npm) in the browser tests: the page's accessibility checked as it is shown, in
Chromium. The package is installed once into the npm cache (tests/support/npm.py)."""

from __future__ import annotations

from functools import lru_cache

from support.npm import installed

VERSION = "4.14.1"
SERIOUS = ("serious", "critical")


@lru_cache(maxsize=1)
def source() -> str:
    return installed("axe-core", VERSION, f"axe-core-{VERSION}", "axe.min.js",
                     "for the accessibility checks of the pages").read_text(encoding="utf-8")


def violations(page, impacts=SERIOUS) -> list[dict]:
    """axe-core's violations of the page now, those of the given impacts."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=source())
    found = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [v for v in found if v["impact"] in impacts]


def described(found: list[dict]) -> str:
    """The violations, one line each with the elements they concern, for an assertion message."""
    return "\n".join(f"{v['impact']} {v['id']}: {v['help']} at "
                     f"{', '.join(' '.join(n['target']) for n in v['nodes'][:4])}" for v in found)
