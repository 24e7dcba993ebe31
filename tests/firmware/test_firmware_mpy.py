"""The firmware's tests under a real MicroPython: the WebAssembly port from npm
(@micropython/micropython-webassembly-pyscript), driven by Node's test runner
(firmware/tests/micropython.test.mjs runs every case of firmware/tests/cases.py).

The npm package is installed once into a cache directory (tests/support/npm.py: $DOMINOTABLE_NPM_CACHE,
else ~/.cache/dominotable/npm). Without node or npm this test fails, naming what is missing:
CI has both, and a skipped run would hide a firmware that no longer runs on MicroPython.
"""

import os
import pathlib
import re
import shutil
import subprocess

import pytest
from support.npm import installed

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = "@micropython/micropython-webassembly-pyscript"
VERSION = "1.27.0"


def _micropython_mjs():
    return installed(PACKAGE, VERSION, "micropython-webassembly-" + VERSION, "micropython.mjs",
                     "for the MicroPython firmware tests")


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
