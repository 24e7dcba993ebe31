"""npm packages the tests need (MicroPython's WebAssembly port, axe-core), installed once into a
cache directory: $DOMINOTABLE_NPM_CACHE, else ~/.cache/dominotable/npm. Without npm a test fails
naming what to install: CI has it, and a skipped run would hide what it checks."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pytest


def cache_dir() -> pathlib.Path:
    base = os.environ.get("DOMINOTABLE_NPM_CACHE")
    if base:
        return pathlib.Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(xdg) / "dominotable" / "npm"


def installed(package: str, version: str, folder: str, needs: str, why: str) -> pathlib.Path:
    """`needs` (a file of the package) of `package@version`, installed under `folder` of the cache
    if it is not there yet; `why`: what the package is for, said when npm is missing."""
    prefix = cache_dir() / folder
    path = prefix / "node_modules" / package / needs
    if path.exists():
        return path
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(f"npm is not installed: it is needed to fetch {package}@{version} {why} "
                    "(install Node.js 20 or newer, which includes npm)")
    prefix.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--no-save",
                             f"{package}@{version}"], capture_output=True, text=True, timeout=300)
    if result.returncode != 0 or not path.exists():
        pytest.fail(f"npm could not install {package}@{version} into {prefix}:\n"
                    f"{(result.stderr or result.stdout)[-2000:]}")
    return path
