"""Fixtures shared by the tray tests: a virtual tray behind a real pty, and a link to it."""

import pytest
from dominotable.tray.link import TrayLink
from dominotable.tray.virtual import VirtualTray

SPEED = 24    # virtual ms per wall ms: a boot sweep of 194 readers (~1.5 s virtual) takes ~0.1 s


@pytest.fixture
def vtray(tmp_path):
    with VirtualTray(speed=SPEED, link_dir=tmp_path, heartbeat_ms=1000) as tray:
        yield tray


@pytest.fixture
def link(vtray):
    events = []
    with TrayLink(locate=lambda: vtray.path, on_event=events.append, backoff=(0.002, 0.05)) as tray_link:
        tray_link.events = events
        yield tray_link


def count(events, kind):
    return sum(1 for e in events if e.kind == kind)
