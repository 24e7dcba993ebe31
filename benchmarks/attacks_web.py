"""The web attacks of issue 17 against a live table: each row's attack, what must happen, what did.

Starts `dominotable run --http 0.0.0.0:0` on the simulated table with no token, at `ulimit -n
1024` (as the Pi's unit), and attacks it from loopback and from this machine's LAN address (so
the table sees another machine; nothing leaves the machine). Rows are (name, expected, function);
a function takes the live target and returns what happened, in the words of `expected`.

Run: python benchmarks/attacks.py --part web   (exits 1 if any row did not hold)
"""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

PLACE = json.dumps({"action": "place", "tile": "1-2", "cells": [0, 1]}).encode()


def lan_address() -> str:
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 9))  # no packet is sent: this only picks the outgoing address
        return probe.getsockname()[0]
    finally:
        probe.close()


class Target:
    """The live table: its port, its loopback and LAN addresses, and what it wrote to stderr."""

    def __init__(self, folder: Path):
        config = folder / "config.toml"
        config.write_text('[tray]\nport = "none"\n[display]\nterminal = false\n')
        self.out, self.err = folder / "stdout.txt", folder / "stderr.txt"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dominotable", "run", "--db", str(folder / "t.sqlite3"), "--http", "0.0.0.0:0",
             "--config", str(config)], stdin=subprocess.DEVNULL, stdout=self.out.open("w"), stderr=self.err.open("w"),
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024)))
        while "the browser is the controls" not in self.said():  # (then SIGTERM ends it cleanly)
            if self.proc.poll() is not None:
                raise SystemExit(f"dominotable run ended: {self.stderr()[-2000:]}")
            time.sleep(0.05)
        self.port = int(re.search(r"the table page: http://\S+:(\d+)/", self.said())[1])
        self.lan = lan_address()

    def said(self) -> str:
        return self.out.read_text()

    def stderr(self) -> str:
        return self.err.read_text()

    def close(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def send(target: Target, method: str, path: str, headers=(), body: bytes | None = None, remote: bool = False):
    """One request with exactly these headers, from loopback or from the LAN address: (status, answer)."""
    address = target.lan if remote else "127.0.0.1"
    conn = http.client.HTTPConnection(address, target.port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        if not any(name.lower() == "host" for name, _ in headers):
            conn.putheader("Host", f"{address}:{target.port}")
        for name, value in headers:
            conn.putheader(name, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        data = response.read()
        return response.status, json.loads(data) if "json" in (response.getheader("Content-Type") or "") else data
    finally:
        conn.close()


def status(*args, **kwargs) -> str:
    return str(send(*args, **kwargs)[0])


def json_post(target: Target, body: bytes, headers=(), remote: bool = False) -> str:
    return status(target, "POST", "/api/tray", [("Content-Type", "application/json"), *headers], body, remote=remote)


def websockets(target: Target, count: int, headers: dict | None = None, remote: bool = False) -> str:
    """Open `count` WebSockets at once: how many opened, and the statuses of those refused."""
    address = target.lan if remote else "127.0.0.1"

    async def run():
        async with aiohttp.ClientSession() as session:
            opened, refused = [], []
            for _ in range(count):
                try:
                    opened.append(await session.ws_connect(f"http://{address}:{target.port}/ws", headers=headers or {}))
                except aiohttp.WSServerHandshakeError as exc:
                    refused.append(exc.status)
            for ws in opened:
                await ws.close()
            return f"{len(opened)} open" + "".join(f", {s}" for s in refused)
    return asyncio.run(run())


def slow_connections(target: Target) -> str:
    """1,100 connections that send half a request line and stall; then: is a request answered
    again within the header timeout and some, and did any traceback reach the log?"""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    slow = []
    try:
        for n in range(1100):
            sock = socket.socket()
            sock.setblocking(False)
            try:
                sock.connect(("127.0.0.1", target.port))
            except BlockingIOError:
                pass
            slow.append(sock)
            if n % 50 == 49:
                time.sleep(0.02)
        time.sleep(0.3)
        for sock in slow:
            try:
                sock.send(b"GET / HT")
            except OSError:
                pass
        deadline, answered = time.monotonic() + 15, False
        while not answered and time.monotonic() < deadline:
            try:
                answered = send(target, "GET", "/api/state")[0] == 200
            except OSError:
                time.sleep(0.2)
    finally:
        for sock in slow:
            sock.close()
    tracebacks = target.stderr().count("Traceback")
    return f"{tracebacks} tracebacks, " + ("answers again" if answered else "never answered")


ROWS = [
    ("cross-origin text/plain POST (CSRF)", "403",
     lambda t: status(t, "POST", "/api/tray", [("Origin", "http://evil.example"), ("Content-Type", "text/plain")], PLACE)),
    ("cross-origin form POST (CSRF)", "403",
     lambda t: status(t, "POST", "/api/tray", [("Origin", "http://evil.example"),
                                               ("Content-Type", "application/x-www-form-urlencoded")], PLACE)),
    ("form POST without an Origin", "415",
     lambda t: status(t, "POST", "/api/tray", [("Content-Type", "application/x-www-form-urlencoded")], PLACE)),
    ("Origin: null JSON POST", "403", lambda t: json_post(t, PLACE, [("Origin", "null")])),
    ("JSON POST from a foreign Origin", "403", lambda t: json_post(t, PLACE, [("Origin", "http://evil.example")])),
    ("Host: evil.example (DNS rebinding)", "403",
     lambda t: status(t, "GET", "/api/state", [("Host", f"evil.example:{t.port}")])),
    ("WebSocket from a foreign Origin", "0 open, 403", lambda t: websockets(t, 1, {"Origin": "http://evil.example"})),
    ("WebSocket with Host: evil.example", "0 open, 403", lambda t: websockets(t, 1, {"Host": "evil.example"})),
    ("token in the query string", "400", lambda t: status(t, "GET", "/api/state?token=x")),
    ("another machine presses a button, no token", "403",
     lambda t: status(t, "POST", "/api/button", [("Content-Type", "application/json")], b'{"button": "select"}',
                      remote=True)),
    ("5 WebSockets from one other machine", "4 open, 429", lambda t: websockets(t, 5, remote=True)),
    ("15,000 [ in a body (under 16 KiB)", "400", lambda t: json_post(t, b"[" * 15000)),
    ("a 5,000-digit number in a body", "400", lambda t: json_post(t, b'{"button": ' + b"9" * 5000 + b"}")),
    ("1e999 in a body", "400", lambda t: json_post(t, b'{"action": "place", "tile": "1-2", "cells": [1e999, 0]}')),
    ("non-UTF-8 byte in the token", "400", lambda t: json_post(t, PLACE, [("X-Dominotable-Token", b"\xff")])),
    ("non-UTF-8 byte in the body", "400", lambda t: json_post(t, b'{"tile": "\xff"}')),
    ("1,100 slow connections at ulimit -n 1024", "0 tracebacks, answers again", slow_connections),
    ("0.0.0.0 without a token: warned at start", "warned",
     lambda t: "warned" if re.search(r"^warning: .* without a \[web\] token", t.said(), re.M) else "no warning"),
]
