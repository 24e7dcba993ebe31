"""A real Eclipse Mosquitto for the venue tests (Debian's `mosquitto`), on a free loopback port,
with the project's own ACL (deploy/mosquitto/dominotable.acl) and a password file made by
mosquitto_passwd; it can be stopped (SIGTERM: it saves), killed (-9: it loses what it had not
saved) and started again on the same port with the same persistence folder."""

from __future__ import annotations

import functools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

MOSQUITTO = "/usr/sbin/mosquitto"
PASSWD = "/usr/bin/mosquitto_passwd"
ACL = Path(__file__).resolve().parents[2] / "deploy" / "mosquitto" / "dominotable.acl"
VENUE_PASSWORD = "venue-secret"


def need_mosquitto() -> None:
    for tool in (MOSQUITTO, PASSWD):
        if not os.access(tool, os.X_OK):
            pytest.fail(f"{tool} is missing: install Debian's mosquitto package (apt-get install mosquitto)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@functools.cache
def password_file(tables: tuple[str, ...]) -> str:
    """A password file for the venue and `tables`, made once (mosquitto_passwd hashes slowly)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "passwd"
        for n, (user, password) in enumerate([("venue", VENUE_PASSWORD), *((t, f"{t}-secret") for t in tables)]):
            subprocess.run([PASSWD, "-b", *(["-c"] if n == 0 else []), str(path), user, password], check=True,
                           capture_output=True)
        return path.read_text()


class Mosquitto:
    def __init__(self, folder: Path, tables: tuple[str, ...] = (), autosave: int = 60,
                 tls: tuple[Path, Path] | None = None, log: tuple[str, ...] = ("all",)):
        """A broker whose users are the venue and `tables` (password: the table id + "-secret");
        `autosave`: seconds between saves (a kill -9 loses what came since); `tls`: (certificate,
        key) files: the listener takes TLS only; `log`: the log types written (every message's,
        for the tests; a benchmark logs what deploy/mosquitto/mosquitto.conf does)."""
        self.scheme = "mqtts" if tls else "mqtt"
        need_mosquitto()
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        folder.mkdir(parents=True, exist_ok=True)
        passwords = folder / "passwd"
        passwords.write_text(password_file(tables))
        root = os.geteuid() == 0
        (folder / "mosquitto.conf").write_text("\n".join([
            *(["user root"] if root else []),  # as root it would switch to the mosquitto user
            "persistence true", f"persistence_location {folder}/", f"autosave_interval {autosave}",
            "max_queued_messages 200000", "max_queued_bytes 0", "set_tcp_nodelay true",
            f"log_dest file {folder}/mosquitto.log", *(f"log_type {kind}" for kind in log),
            "per_listener_settings true",
            f"listener {self.port} 127.0.0.1", "allow_anonymous false",
            f"password_file {passwords}", f"acl_file {ACL}",
            *([f"certfile {tls[0]}", f"keyfile {tls[1]}"] if tls else []), ""]))

    def url(self, user: str = "venue") -> str:
        password = VENUE_PASSWORD if user == "venue" else f"{user}-secret"
        return f"{self.scheme}://{user}:{password}@127.0.0.1:{self.port}"

    def start(self) -> Mosquitto:
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.folder / "mosquitto.conf")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.process.stderr.read().decode()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("mosquitto did not start listening")

    def stop(self) -> None:
        """SIGTERM: Mosquitto saves its sessions, queues and retained messages, and exits."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL: a crash or power cut; what came since the last save is gone."""
        self._end(signal.SIGKILL)

    def _end(self, sig: int) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=10)
        self.process = None

    def log(self) -> str:
        return (self.folder / "mosquitto.log").read_text(errors="replace")


@pytest.fixture
def mosquitto(tmp_path):
    broker = Mosquitto(tmp_path / "broker", tables=tuple(f"t{n}" for n in range(1, 21))).start()
    yield broker
    broker.stop()
    shutil.rmtree(tmp_path / "broker", ignore_errors=True)
