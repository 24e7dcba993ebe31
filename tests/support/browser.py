"""The browser for the page tests: Debian's Chromium (/usr/bin/chromium) driven by Playwright for
Python through `executable_path` (Playwright's own browser download is not used). When the
browser is missing and we are root, it is installed with apt-get (as CI's clean machines
allow); when it cannot be, the tests fail naming the package, never skip. `overflow(page)`
measures sideways scrolling.

`PageHands` makes a bot's physical steps (tray/action.py) by dragging on the table page: tiles
from off the tray onto two cells (turned first by clicking them), tiles on the tray slid (turned
with the r key while dragged), dragged off the tray, onto and off the scan pad; and presses the
three buttons by clicking them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from dominotable.tray.action import Action, ActionKind

CHROMIUM = Path("/usr/bin/chromium")
DOCS = Path(__file__).resolve().parents[2] / "docs"
WRITE_DOCS = os.environ.get("DOMINOTABLE_WRITE_DOCS") == "1"  # the README's screenshots: rewrite them


def screenshot(page, name: str, folder: Path, **options) -> Path:
    """The page as a PNG in `folder`, and into docs/ for the README when DOMINOTABLE_WRITE_DOCS=1."""
    path = (DOCS if WRITE_DOCS else folder) / name
    page.screenshot(path=str(path), **options)
    assert path.stat().st_size > 1000 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return path
DIRS = [(0, 1), (1, 0), (0, -1), (-1, 0)]  # the page's rotations: right, down, left, up


def overflow(page) -> int:
    """How many CSS pixels the page is wider than its viewport (0: no sideways scrolling)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def ensure_chromium() -> Path:
    if CHROMIUM.exists():
        return CHROMIUM
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run `apt-get install chromium` (as root) "
                    "for the browser tests")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    result = subprocess.run([apt, "install", "-y", "-q", "chromium"], capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:  # a fresh machine may need the package lists first
        subprocess.run([apt, "update", "-q"], capture_output=True, text=True, env=env, check=False)
        result = subprocess.run([apt, "install", "-y", "-q", "chromium"], capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0 or not CHROMIUM.exists():
        pytest.fail(f"`apt-get install chromium` failed; the browser tests need it:\n{result.stderr[-2000:]}")
    return CHROMIUM


_shared: dict = {}  # one Chromium for every module that imports these fixtures (each import is a fixture of its own)


@pytest.fixture(scope="session")
def browser():
    if not _shared:
        executable = ensure_chromium()
        from playwright.sync_api import sync_playwright

        playwright = sync_playwright().start()  # a second one would find the first one's loop running
        _shared.update(playwright=playwright, chromium=playwright.chromium.launch(executable_path=str(executable)),
                       users=0)
    _shared["users"] += 1
    yield _shared["chromium"]
    _shared["users"] -= 1
    if not _shared["users"]:
        _shared["chromium"].close()
        _shared.pop("playwright").stop()
        _shared.clear()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 950})
    page = context.new_page()
    yield page
    context.close()


def direction(geometry, first: int, second: int) -> int:
    (r0, c0), (r1, c1) = geometry.coords(first), geometry.coords(second)
    return DIRS.index((r1 - r0, c1 - c0))


class PageHands:
    def __init__(self, page, table):
        self.page = page
        self.table = table
        self.vtray = table.vtray
        self.geometry = table.vtray.geometry

    # --- where things are on the page ---------------------------------------------------------

    def cell(self, cell: int) -> tuple[float, float]:
        return self.centre(f'#tray rect.cell[data-cell="{cell}"]')

    def centre(self, selector: str) -> tuple[float, float]:
        """The middle of an element (the page redraws the tray and the tiles off it on every update)."""
        for _ in range(50):
            locator = self.page.locator(selector)
            locator.wait_for(timeout=10_000)
            box = locator.bounding_box()
            if box is not None:
                return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            self.page.wait_for_timeout(20)
        raise AssertionError(f"{selector} is not on the page")

    def off_tray(self) -> tuple[float, float]:
        box = self.page.locator("header").bounding_box()
        return box["x"] + 20, box["y"] + box["height"] / 2

    def tile_shown(self, tile, cells) -> None:
        """Wait until the page draws the tile at these cells (the table has read it there)."""
        self.page.locator(f'#tray g.tile:not(.ghost)[data-tile="{tile.a}-{tile.b}"]'
                          f'[data-cells="{cells[0]},{cells[1]}"]').wait_for(timeout=10_000)

    # --- hands ----------------------------------------------------------------------------------

    def drag(self, start, end, turns: int = 0) -> None:
        mouse = self.page.mouse
        with self.page.expect_response("**/api/tray") as response:
            mouse.move(*start)
            mouse.down()
            for _ in range(turns):
                self.page.keyboard.press("r")
            mouse.move(*end)
            mouse.up()
        assert response.value.ok, response.value.json()

    def turn_off_tile(self, tile, want: int) -> None:
        tile_el = self.page.locator(f'.off-tile[data-tile="{tile.a}-{tile.b}"]')
        for _ in range(5):
            tile_el.wait_for(timeout=10_000)
            if int(tile_el.get_attribute("data-dir")) == want:
                return
            tile_el.click()
        raise AssertionError(f"the off-tray tile {tile} would not turn to {want}")

    def off_half(self, tile, half: int = 0) -> tuple[float, float]:
        return self.centre(f'.off-tile[data-tile="{tile.a}-{tile.b}"] .half[data-half="{half}"]')

    def do(self, action: Action) -> None:
        tile, kind = action.tile, action.kind
        where = self.vtray.where(tile)
        if kind in (ActionKind.REMOVE, ActionKind.UNPAD, ActionKind.SLIDE):
            self.tile_shown(tile, where)
        if kind == ActionKind.PLACE:
            self.turn_off_tile(tile, direction(self.geometry, *action.cells))
            self.drag(self.off_half(tile), self.cell(action.cells[0]))
        elif kind == ActionKind.PAD:
            self.drag(self.off_half(tile), self.cell(self.geometry.pad[0]))
        elif kind in (ActionKind.REMOVE, ActionKind.UNPAD):
            self.drag(self.cell(where[0]), self.off_tray())
        elif kind == ActionKind.SLIDE:
            turns = (direction(self.geometry, *action.cells) - direction(self.geometry, *where)) % 4
            self.drag(self.cell(where[0]), self.cell(action.cells[0]), turns)
        expected = None if kind in (ActionKind.REMOVE, ActionKind.UNPAD) else \
            tuple(self.geometry.pad[:2]) if kind == ActionKind.PAD else tuple(action.cells)
        assert self.vtray.where(tile) == expected, (action, self.vtray.where(tile))

    def perform(self, actions, read=None) -> None:
        for action in actions:
            if action.kind == ActionKind.UNPAD and read is not None:
                read(action.tile)
            if action.kind == ActionKind.REMOVE and self.vtray.where(action.tile) is None:
                continue
            self.do(action)

    def press(self, press) -> None:
        button = {"up": "#btn-up", "down": "#btn-down", "select": "#btn-select", "long-select": "#btn-long"}[press]
        with self.page.expect_response("**/api/button") as response:
            self.page.click(button)
        assert response.value.ok
