"""The field helper of every configuration section: a default, a check and what a failed check
says. Sections live with what they configure (the display's and the buttons' in ui/, the rest in
app/config.py), which reads them from the TOML file. Outside the layers: a leaf anyone may use."""

from __future__ import annotations

import dataclasses


def setting(default, check=None, why: str = "", path: bool = False):
    """A configuration key: `check(value)` must hold, else the error says `why`; `path` keys are
    read relative to the configuration file's folder."""
    return dataclasses.field(default=default, metadata={"check": check, "why": why, "path": path})
