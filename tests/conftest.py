"""Checks that hold in every test: no prompt the table shows names a cell in an engine's own
coordinates (rule of the one prompt voice, reading/prompts.py); and no test reads or writes the
real user's configuration or data (each test gets its own XDG config and data directories)."""

import re

import pytest
from dominotable.match.status import Notice
from dominotable.reading.reader import Verdict

ENGINE_COORDINATES = re.compile(r"\(-?\d+,\s*-?\d+\)")


@pytest.fixture(autouse=True)
def own_user_dirs(tmp_path_factory, monkeypatch):
    """The user config and data directories (config.toml, the default database, the tag registry)
    in a fresh temporary folder per test; the cache (the firmware test's npm install) is shared."""
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    return home


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


# the helpers' fixtures, taken by name in any test
pytest_plugins = ["support.broker", "support.browser", "support.tray_fixtures", "support.venue_fixtures"]
