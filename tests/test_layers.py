"""The import direction between the layers (pyproject.toml's import-linter contract): app above the
front ends and the simulation, above reading, above the tray, above the rules."""

import shutil
import subprocess
import sys
from pathlib import Path

import dominotable

ROOT = Path(__file__).resolve().parent.parent


def lint_imports(package_parent: Path | None = None) -> subprocess.CompletedProcess:
    """Run the contract; with `package_parent`, against the copy of dominotable found there."""
    env = None
    if package_parent is not None:
        env = {"PYTHONPATH": str(package_parent), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                           "lint_imports_command()", "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def test_the_layers_contract_is_kept():
    result = lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_a_rules_module_importing_the_app_breaks_the_contract(tmp_path):
    """A throwaway module in a copy of the package, importing upwards, is caught and named."""
    copy = tmp_path / "dominotable"
    shutil.copytree(Path(dominotable.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "rules" / "upward.py").write_text("from dominotable.app import runtime  # noqa: F401\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "dominotable.rules is not allowed to import dominotable.app" in result.stdout
    assert "dominotable.rules.upward -> dominotable.app.runtime" in result.stdout
