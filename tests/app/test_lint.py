"""The house's lint, as pyproject.toml sets ruff: pyflakes' errors (a name unused or undefined, a
local assigned and never read, an import shadowed) and the import order, over every Python file of
the project: dead code and a stale import are found here, not by a reader."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_finds_nothing_in_the_project():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
