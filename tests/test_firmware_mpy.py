"""The firmware's tests under a real MicroPython: the WebAssembly port from npm
(@micropython/micropython-webassembly-pyscript), driven by Node's test runner
(firmware/tests/micropython.test.mjs runs every case of firmware/tests/cases.py).

The npm package is installed once into a cache directory ($DOMINOTABLE_NPM_CACHE, else
~/.cache/dominotable/npm). Without node or npm this test fails, naming what is missing:
CI has both, and a skipped run would hide a firmware that no longer runs on MicroPython.
"""

import os
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = "@micropython/micropython-webassembly-pyscript"
VERSION = "1.27.0"


def _cache_dir():
    base = os.environ.get("DOMINOTABLE_NPM_CACHE")
    if base:
        return pathlib.Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(xdg) / "dominotable" / "npm"


def _micropython_mjs():
    prefix = _cache_dir() / ("micropython-webassembly-" + VERSION)
    mjs = prefix / "node_modules" / PACKAGE / "micropython.mjs"
    if mjs.exists():
        return mjs
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not installed: it is needed to fetch %s@%s for the MicroPython "
                    "firmware tests (install Node.js 20 or newer, which includes npm)" % (PACKAGE, VERSION))
    prefix.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--no-save",
         "%s@%s" % (PACKAGE, VERSION)],
        capture_output=True, text=True, timeout=300)
    if result.returncode != 0 or not mjs.exists():
        pytest.fail("npm could not install %s@%s into %s:\n%s" % (
            PACKAGE, VERSION, prefix, (result.stderr or result.stdout)[-2000:]))
    return mjs


def test_firmware_cases_pass_under_micropython_webassembly():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: the firmware tests run MicroPython's WebAssembly "
                    "port under Node.js (version 20 or newer)")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 20:
        pytest.fail("node %s is too old for the firmware tests: 20 or newer is needed" % version)
    env = dict(os.environ, MICROPYTHON_MJS=str(_micropython_mjs()))
    result = subprocess.run(
        [node, "--test", "--test-reporter=tap", str(ROOT / "firmware" / "tests")],
        capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    out = result.stdout + result.stderr
    failed = re.findall(r"^\s*not ok \d+ - (\S+)", out, re.M)
    passed = re.findall(r"^\s*ok \d+ - (test_\S+)", out, re.M)
    assert result.returncode == 0 and not failed, "failed under MicroPython: %s\n%s" % (
        failed, out[-6000:])
    assert len(passed) >= 20, out[-3000:]
