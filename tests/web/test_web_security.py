"""The table page closed to other web pages and to floods (issue 17, items 4 and 5), against the
real aiohttp server (ui/web/server.py, ui/web/access.py) in front of a running table: a page
elsewhere cannot drive the table (cross-site requests, DNS rebinding, foreign WebSockets); the
token never rides in the address, a phone logs in once and its cookie carries it; one machine
cannot take every connection or WebSocket; bad bodies and tokens are 4xx with a message; 1,100
slow connections at a file limit of 1024 are dropped without a traceback. (A phone logging in
through the page in Chromium is in test_web_page.py, beside the browser it shares.)

"Another machine" is this machine's LAN address (web_table.lan_address): a server bound to it
sees requests that do not come from loopback, and nothing leaves the machine."""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import json
import os
import re
import resource
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import aiohttp
import pytest
from dominotable.ui.web import push
from dominotable.ui.web.access import WRONG_TOKENS
from dominotable.web.guard import CONNECTIONS, HEADER_TIMEOUT, RESERVED_FDS
from support.polling import until
from support.web_table import LiveTable, lan_address

TOKEN = "staff-only-7"
PLACE = {"action": "place", "tile": "1-2", "cells": [0, 1]}
REMOVE = {"action": "remove", "tile": "1-2"}
JSON = ("Content-Type", "application/json")
UPGRADE = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13"),
           ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """On loopback, with a token, a name of its own and an HTTPS proxy's origin configured."""
    table = LiveTable(tmp_path_factory.mktemp("sec") / "t.sqlite3", "castle-rock", token=TOKEN,
                      hosts=("table.bar.lan",), origins=("https://table.bar",))
    yield table
    table.close()


@pytest.fixture(scope="module")
def lan(tmp_path_factory):
    """Bound to this machine's LAN address only, with a token: what a phone at the bar meets."""
    table = LiveTable(tmp_path_factory.mktemp("lan") / "t.sqlite3", "castle-rock", host=lan_address(), token=TOKEN)
    yield table
    table.close()


def send(url: str, method: str, path: str, headers=(), body: bytes | None = None, host: bool = True):
    """One request with exactly these headers ((name, value) pairs, values text or bytes): the
    status, the answer (parsed when JSON) and the response."""
    where = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        if host and not any(name.lower() == "host" for name, _ in headers):
            conn.putheader("Host", where.netloc)
        for name, value in headers:
            conn.putheader(name, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        data = response.read()
        kind = response.getheader("Content-Type") or ""
        return response.status, json.loads(data) if "json" in kind else data, response
    finally:
        conn.close()


def post(url: str, path: str, body, headers=()):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return send(url, "POST", path, [JSON, *headers], data)


def ws(url: str, headers: dict | None = None, count: int = 1, meanwhile=None):
    """Open `count` WebSockets to the page and read their first messages: each one's (101, message),
    or (status, None) when the upgrade is refused. `meanwhile()` is called while they are open;
    all are closed before returning."""
    async def run():
        async with aiohttp.ClientSession() as session:
            opened, results = [], []
            try:
                for _ in range(count):
                    try:
                        socket_ = await session.ws_connect(url + "/ws", headers=headers or {})
                    except aiohttp.WSServerHandshakeError as exc:
                        results.append((exc.status, None))
                        continue
                    opened.append(socket_)
                    results.append((101, await socket_.receive_json(timeout=5)))
                if meanwhile is not None:
                    meanwhile()
            finally:
                for socket_ in opened:
                    await socket_.close()
            return results
    with concurrent.futures.ThreadPoolExecutor(1) as thread:  # (Playwright's loop may be running in this one)
        return thread.submit(asyncio.run, run()).result()


def no_websockets(table) -> None:
    """Wait until the server has let go of the WebSockets closed before (it does so as their close arrives)."""
    assert until(lambda: not table.server.clients), "WebSockets left open"


def answers(url: str) -> bool:
    """Whether the table answers a request now (a connection it cannot hold yet is closed)."""
    try:
        return send(url, "GET", "/api/state")[0] == 200
    except OSError:
        return False


def test_cross_site_posts_are_refused_csrf(table):
    """A page elsewhere posting to the table (text/plain and form bodies need no permission from
    the table; JSON from a foreign or null Origin) is refused, and nothing is laid."""
    url, port = table.url, table.server.port
    attack = json.dumps(PLACE).encode()  # a JSON text in a body the browser sends without asking
    cases = [
        ([("Origin", "http://evil.example"), ("Content-Type", "text/plain")], 403),
        ([("Origin", "http://evil.example"), ("Content-Type", "application/x-www-form-urlencoded")], 403),
        ([("Origin", "http://evil.example"), JSON], 403),
        ([("Origin", "null"), JSON], 403),  # a sandboxed frame or a file
        ([("Origin", f"http://127.0.0.1:{port + 1}"), JSON], 403),  # another program's page on this machine
        ([("Origin", f"https://127.0.0.1:{port}"), JSON], 403),
        ([("Content-Type", "text/plain")], 415),
        ([("Content-Type", "application/x-www-form-urlencoded")], 415),
        ([("Content-Type", "multipart/form-data; boundary=x")], 415),
        ([], 415),
    ]
    for headers, status in cases:
        got, answer, _ = send(url, "POST", "/api/tray", headers, attack)
        assert got == status, (headers, got, answer)
        words = "may not drive this table" if status == 403 else "must be JSON (Content-Type: application/json)"
        assert words in answer["error"], answer
        assert table.vtray.where("1-2") is None
    for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", "https://table.bar",
                   "http://table.bar.lan:8443"):  # its own page, a configured origin, a configured name
        assert post(url, "/api/tray", PLACE, [("Origin", origin)])[0] == 200
        assert table.vtray.where("1-2") == (0, 1)
        status, _, _ = send(url, "POST", "/api/tray", [("Origin", origin), ("Content-Type", "application/json; charset=utf-8")],
                            json.dumps(REMOVE).encode())
        assert status == 200 and table.vtray.where("1-2") is None


def test_a_host_that_does_not_name_the_table_is_refused_dns_rebinding(table, caplog):
    url, port = table.url, table.server.port
    for host in ["evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}", f"localhost.evil.example:{port}",
                 f"[::1:{port}", f"127.0.0.1:{port}0", "", "table.bar.lan.evil.example"]:
        for path in ("/", "/api/state", "/oled.png"):
            status, answer, _ = send(url, "GET", path, [("Host", host)])
            assert status == 403 and "answers to its own addresses only" in answer["error"], (host, status, answer)
    status, _, _ = send(url, "GET", "/api/state", host=False)  # HTTP/1.1 with no Host: aiohttp's own 400
    assert status == 400
    (said,) = [r for r in caplog.records if "malformed requests refused" in r.getMessage()]  # a line, no traceback
    assert said.exc_info is None and "BadHttpMessage" in said.getMessage()
    with socket.create_connection(("127.0.0.1", port)) as sock:  # HTTP/1.0 may leave it out: it names nothing
        sock.sendall(b"GET /api/state HTTP/1.0\r\n\r\n")
        answer = b"".join(iter(lambda: sock.recv(4096), b""))
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b" 403 " in head.split(b"\r\n")[0] and "Host None" in json.loads(body)["error"]
    hostname = socket.gethostname()
    for host in [f"127.0.0.1:{port}", f"localhost:{port}", f"LocalHost.:{port}", f"[::1]:{port}",
                 f"{hostname}:{port}", f"{hostname.split('.')[0]}.local:{port}", "table.bar.lan", "table.bar.lan:8443"]:
        status, answer, _ = send(url, "GET", "/api/state", [("Host", host)])
        assert status == 200 and answer["screen"]["game"]["name"] == "castle-rock", (host, answer)


def test_websocket_upgrades_check_origin_and_host(table):
    url, port = table.url, table.server.port
    for headers in ([("Origin", "http://evil.example")], [("Origin", "null")], [("Host", "evil.example")],
                    [("Host", f"evil.example:{port}"), ("Origin", f"http://evil.example:{port}")]):
        status, answer, _ = send(url, "GET", "/ws", [*UPGRADE, *headers])
        assert status == 403 and "error" in answer, (headers, status, answer)
    assert ws(url, {"Origin": "http://evil.example"}) == [(403, None)]
    assert ws(url, {"Host": "evil.example"}) == [(403, None)]
    ((status, hello),) = ws(url, {"Origin": f"http://127.0.0.1:{port}"})
    assert status == 101 and hello == {"controls": True, "login": False}  # loopback controls


def test_the_token_in_the_address_is_refused(table):
    for path in (f"/?token={TOKEN}", f"/api/state?token={TOKEN}", f"/ws?token={TOKEN}", "/scores?x=1&token="):
        status, answer, _ = send(table.url, "GET", path)
        assert status == 400 and "the token never goes in the address" in answer["error"], (path, answer)
        assert "X-Dominotable-Token header, or log in at /login" in answer["error"]
    status, answer, _ = post(table.url, f"/api/tray?token={TOKEN}", PLACE)
    assert status == 400 and table.vtray.where("1-2") is None


def test_bad_bodies_and_tokens_are_4xx_with_a_message_never_500(table):
    """Deep JSON under the size limit, numbers too large, bytes that are not UTF-8 in the body or
    the token: 400 naming the problem; every other client error a 4xx with {"error": ...}."""
    url = table.url
    before = table.vtray.tiles()
    for body, words in [
        (b"[" * 15000, "nested 15000 deep; 8 is the most"),
        (b'{"a": ' * 9 + b"1" + b"}" * 9, "nested 9 deep"),
        (b'{"button": ' + b"9" * 5000 + b"}", "has 5000 digits; 15 is the most"),
        (b'{"action": "place", "tile": "1-2", "cells": [1e999, 0]}', "1e999 in the request body is too large"),
        (b'{"button": NaN}', "NaN is not a number JSON has"),
        (b'{"button": -Infinity}', "-Infinity is not a number JSON has"),
        (b'{"button": "\xff"}', "byte 12 (0xff) is not UTF-8"),
        (b'{"tile": "[[[[[[[[[[[["}', "action must be one of"),  # brackets in a string are text
    ]:
        status, answer, _ = post(url, "/api/tray", body)
        assert status == 400 and words in answer["error"], (body[:40], status, answer)
    for path, body in [("/api/button", {"button": "down"}), ("/api/login", {"token": TOKEN})]:
        status, answer, _ = post(url, path, body, [("X-Dominotable-Token", b"\xff\xfe")])
        assert status == 400 and "X-Dominotable-Token header is not UTF-8 text" in answer["error"], answer
    status, answer, _ = send(url, "GET", "/api/state", [("X-Dominotable-Token", b"caf\xe9")])
    assert status == 400 and "not UTF-8 text" in answer["error"]
    for method, path, status, words in [("GET", "/nowhere", 404, "nothing here: /nowhere"),
                                        ("GET", "/static/../../etc/passwd", 404, "nothing here"),
                                        ("GET", "/static/secret.py", 404, "no file 'secret.py'"),
                                        ("GET", "/api/button", 405, "GET is not taken at /api/button"),
                                        ("PUT", "/api/tray", 405, "PUT is not taken at /api/tray"),
                                        ("GET", "/replay/x", 400, "whole numbers"),
                                        ("GET", "/replay/9999", 404, "9999")]:
        got, answer, _ = send(url, method, path, [JSON] if method == "PUT" else [], b"{}" if method == "PUT" else None)
        assert got == status and words in answer["error"], (path, got, answer)
    assert table.vtray.tiles() == before
    assert post(url, "/api/button", {"button": "down"})[0] == 200  # and the table still answers


def test_another_machine_controls_with_the_token_header_or_the_login_cookie_only(lan):
    url = lan.url
    status, answer, _ = post(url, "/api/tray", PLACE)
    assert status == 403 and "may only watch" in answer["error"] and "log in at /login" in answer["error"]
    assert send(url, "GET", "/api/state")[1]["controls"] is False
    assert ws(url) == [(101, {"controls": False, "login": True})]  # the page offers the login

    assert post(url, "/api/tray", PLACE, [("X-Dominotable-Token", TOKEN)])[0] == 200  # a script's header
    assert lan.vtray.where("1-2") == (0, 1)

    status, answer, response = post(url, "/api/login", {"token": "staff-only-8"})
    assert status == 403 and answer["error"] == "that is not the table's token" and not response.getheader("Set-Cookie")
    status, answer, response = post(url, "/api/login", {"token": TOKEN})
    assert (status, answer) == (200, {"ok": True, "controls": True})
    cookie = response.getheader("Set-Cookie")
    assert re.search(r"(?i)httponly", cookie) and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert "Max-Age=2592000" in cookie  # 30 days
    pair = cookie.split(";")[0]
    assert pair.startswith("dominotable=") and TOKEN not in pair  # derived from the token, not the token

    assert post(url, "/api/tray", REMOVE, [("Cookie", pair)])[0] == 200
    assert lan.vtray.where("1-2") is None
    assert send(url, "GET", "/api/state", [("Cookie", pair)])[1]["controls"] is True
    assert ws(url, {"Cookie": pair}) == [(101, {"controls": True, "login": False})]
    assert post(url, "/api/tray", PLACE, [("Cookie", "dominotable=" + "0" * 64)])[0] == 403  # a made-up cookie

    status, _, response = post(url, "/api/logout", {}, [("Cookie", pair)])
    assert status == 200 and "Max-Age=0" in response.getheader("Set-Cookie")
    assert lan.vtray.where("1-2") is None


def test_wrong_tokens_from_one_machine_make_it_wait(lan):
    url = lan.url
    lan.server.access.wrong.clear()  # (the wrong login of the test before)
    try:
        for _ in range(WRONG_TOKENS):
            assert post(url, "/api/tray", PLACE, [("X-Dominotable-Token", "guess")])[0] == 403
        status, answer, _ = post(url, "/api/login", {"token": TOKEN})
        assert status == 429 and "too many wrong tokens" in answer["error"]
        assert post(url, "/api/tray", PLACE, [("X-Dominotable-Token", TOKEN)])[0] == 429  # even the right one, for now
        assert lan.vtray.where("1-2") is None
    finally:
        lan.server.access.wrong.clear()  # the minute, over at once for the other tests


def test_one_machine_holds_four_websockets_and_32_connections(lan):
    """One viewer cannot take every WebSocket slot (4 per machine) or every connection (32)."""
    no_websockets(lan)
    said = []
    results = ws(lan.url, count=5, meanwhile=lambda: said.append(send(lan.url, "GET", "/ws", UPGRADE)[:2]))
    assert [status for status, _ in results] == [101, 101, 101, 101, 429]
    ((status, answer),) = said
    assert status == 429 and "already has 4 pages of this table open, the most one machine may" in answer["error"]
    host, port = lan_address(), lan.server.port
    held = [socket.create_connection((host, port)) for _ in range(32)]
    try:
        for sock in held:  # each answered, so each is one the server holds (kept alive)
            sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (host.encode(), port))
            assert sock.recv(12).startswith(b"HTTP/1.1 200"), "a connection within the limit was refused"
        extra = socket.create_connection((host, port))
        assert _closed(extra, wait=2)  # closed at once
        extra.close()
    finally:
        for sock in held:
            sock.close()
    assert until(lambda: answers(lan.url)), "the table never answered again"  # once it saw the 32 go


def test_all_websockets_together_are_limited(table, monkeypatch, caplog):
    monkeypatch.setattr(push, "MAX_CLIENTS", 3)
    no_websockets(table)
    said = []
    results = ws(table.url, count=4, meanwhile=lambda: said.append(send(table.url, "GET", "/ws", UPGRADE)[:2]))
    assert [status for status, _ in results] == [101, 101, 101, 503]
    assert said == [(503, {"error": "too many pages are open (3); try again later"})]
    assert any("WebSockets refused" in record.getMessage() for record in caplog.records)


def test_running_out_of_files_while_accepting_is_a_line_now_and_then_not_a_traceback(table, caplog):
    """What asyncio reports when accept() fails for want of file descriptors (it tries again a
    second later, and would report it each time)."""
    loop = table.server.loop
    context = {"message": "socket.accept() out of system resource", "exception": OSError(24, "Too many open files")}
    for _ in range(3):
        loop.call_soon_threadsafe(loop.call_exception_handler, context)
    done = asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop)
    done.result(timeout=5)
    said = [r for r in caplog.records if "out of file descriptors" in r.getMessage()]
    assert len(said) == 1 and said[0].exc_info is None and "Too many open files" in said[0].getMessage()


def raise_open_files(want: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        if hard != resource.RLIM_INFINITY and hard < want:
            pytest.fail(f"this test opens {want} sockets; the file limit here is {hard} (raise it: ulimit -n {want})")
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def test_1100_slow_connections_at_a_file_limit_of_1024_are_dropped_without_tracebacks(tmp_path):
    """`dominotable run` at `ulimit -n 1024`: 1,100 connections that send half a request line and
    stall, and one that stalls in its body. The table refuses what it cannot hold at once, drops
    the rest after the header timeout, answers again, and its log has a few lines, no traceback."""
    raise_open_files(1100 + 400)
    config = tmp_path / "config.toml"
    config.write_text('[tray]\nport = "none"\n[display]\nterminal = false\n')

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

    proc = subprocess.Popen([sys.executable, "-m", "dominotable", "run", "--db", str(tmp_path / "t.sqlite3"),
                             "--http", "127.0.0.1:0", "--config", str(config)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit)
    slow = []
    try:
        url = None
        while url is None:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            found = re.search(r"the table page: (http://\S+)/", line)
            url = found and found[1]
        port = int(url.rsplit(":", 1)[1])
        own = len(os.listdir(f"/proc/{proc.pid}/fd"))
        assert own < RESERVED_FDS / 2, own  # what the table keeps for itself is ample
        body_stall = socket.create_connection(("127.0.0.1", port))
        body_stall.sendall(b"POST /api/button HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                           b"Content-Length: 50\r\n\r\n{" % port)
        started = time.monotonic()
        for n in range(1100):
            sock = socket.socket()
            sock.setblocking(False)
            try:
                sock.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            slow.append(sock)
            if n % 50 == 49:  # a full accept queue would hold the rest back: each 50 taken (connected) first
                assert until(lambda: connected(slow[-50:])), "the table stopped accepting"
        for sock in slow:
            try:
                sock.send(b"GET / HT")
            except OSError:  # already closed by the table: more than it holds
                pass
        refused = lambda: sum(1 for sock in slow if _closed(sock))  # noqa: E731
        # the table holds at most 400, whatever the file limit lets in
        assert until(lambda: refused() >= 600), refused()
        deadline = time.monotonic() + HEADER_TIMEOUT + 10
        while True:
            try:
                status, answer, _ = send(url, "GET", "/api/state")
                if status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the table never answered again"
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        assert elapsed < HEADER_TIMEOUT + 5
        assert all(_closed(sock, wait=1) for sock in slow[:50])  # the stalled ones were dropped
        body_stall.settimeout(5)
        answer = body_stall.recv(4000)
        assert b" 408 " in answer.split(b"\r\n")[0] and b"did not arrive within" in answer, answer
    finally:
        for sock in slow:
            sock.close()
        proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    lines = [line for line in err.splitlines() if line.strip()]
    assert any("web: connections refused" in line for line in lines), lines
    assert len(lines) <= 10, lines  # a line now and then, not one per connection


def connected(socks: list[socket.socket]) -> bool:
    """Whether each of these connections is through: its handshake done (room in the accept queue), or refused."""
    poller = select.poll()
    for sock in socks:
        poller.register(sock, select.POLLOUT)
    return len(poller.poll(0)) == len(socks)


def _closed(sock: socket.socket, wait: float = 0.0) -> bool:
    """Has the other end closed this socket (EOF or reset)?"""
    sock.settimeout(wait) if wait else sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except (BlockingIOError, TimeoutError):
        return False
    except OSError:
        return True


def test_the_service_leaves_the_page_and_the_table_their_files_and_sockets():
    unit = (Path(__file__).resolve().parents[2] / "hardware/pi/dominotable.service").read_text()
    limit = int(re.search(r"^LimitNOFILE=(\d+)$", unit, re.M)[1])
    assert limit >= CONNECTIONS + RESERVED_FDS
    families = re.search(r"^RestrictAddressFamilies=(.*)$", unit, re.M)[1].split()
    assert {"AF_INET", "AF_INET6"} <= set(families)  # the page can listen at all
