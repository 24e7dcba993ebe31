"""Checks that hold in every test: no prompt the table shows names a cell in an engine's own
coordinates (rule of the one prompt voice, reading/prompts.py)."""

import re

import pytest
from dominotable.app.controller import Notice
from dominotable.reading.reader import Verdict

ENGINE_COORDINATES = re.compile(r"\(-?\d+,\s*-?\d+\)")


@pytest.fixture(autouse=True)
def prompts_never_show_engine_coordinates(monkeypatch):
    """Every problem, note and notice made during the test is scanned once it is over."""
    said: list[str] = []
    for cls, fields in ((Verdict, ("problem", "note")), (Notice, ("title", "text"))):
        def recording(self, *args, _init=cls.__init__, _fields=fields, **kwargs):
            _init(self, *args, **kwargs)
            said.extend(text for text in map(lambda f: getattr(self, f), _fields) if text)
        monkeypatch.setattr(cls, "__init__", recording)
    yield
    leaks = [text for text in said if ENGINE_COORDINATES.search(text)]
    assert not leaks, f"prompts naming engine coordinates: {leaks}"
