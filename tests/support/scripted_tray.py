"""A tray that says what a test tells it: the far end of a real pty, whose slave the host opens
with pyserial as it opens the Pico's /dev/ttyACM0 (through a symlink, as udev's
/dev/domino-tray). It answers GET_HELLO with `hello` and GET_SNAPSHOT with a snapshot of
`cells`, and `send()` puts any frame on the wire: the frames a broken or hostile tray sends."""

from __future__ import annotations

import os
import select
import threading
import tty
from pathlib import Path

from dominotray import wire

CELLS = 194
BOARD = b"virtual0"  # the host reads it with the virtual tag set


def hello(cells: int = CELLS, proto: int = wire.PROTO, board: bytes = BOARD) -> bytes:
    return wire.encode_hello((0, 2, 0), board, cells, [True] * cells, proto=proto)


def snapshot(cells, reason: int = wire.HEARTBEAT) -> bytes:
    """A SNAPSHOT body: `cells` is a list of (status, uid), or a count of empty cells."""
    if isinstance(cells, int):
        cells = [(wire.EMPTY, b"")] * cells
    return wire.encode_snapshot(reason, cells)


class ScriptedTray:
    def __init__(self, folder: str | Path, answer: bool = True):
        """`answer`: reply to requests at all (False: a silent device)."""
        self.hello = hello()
        self.cells: list[tuple[int, bytes]] = [(wire.EMPTY, b"")] * CELLS
        self.answer = answer
        self.requests: list[int] = []  # every request the host sent, by type
        self.lit: list[tuple[int, int, int, int]] = []  # the last LIGHTS: (cell, red, green, blue)
        self.framer = wire.Framer()
        self.path = str(Path(folder) / "tray")
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.symlink(os.ttyname(self._slave), self.path)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="scripted-tray", daemon=True)

    def __enter__(self) -> ScriptedTray:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        os.close(self._master)
        os.close(self._slave)
        os.unlink(self.path)

    def asked(self, kind: int) -> int:
        """How many requests of this type the host has sent."""
        return self.requests.count(kind)

    def send(self, kind: int, body: bytes = b"", seq: int | None = None) -> None:
        """A frame towards the host, with the next sequence number unless `seq` is given."""
        with self._lock:
            self._write(self.framer.frame(kind, body) if seq is None else wire.frame(kind, seq, body))

    def boot(self, body: bytes) -> None:
        """A restart as the firmware makes one: sequence numbers from 0, its HELLO and then its boot
        snapshot (`body`), with no answer to a request between them."""
        with self._lock:
            self.framer.seq = 0
            self._write(self.framer.frame(wire.HELLO, self.hello) + self.framer.frame(wire.SNAPSHOT, body))

    def write(self, data: bytes) -> None:
        """Raw bytes towards the host."""
        with self._lock:
            self._write(data)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:  # a pty takes a few KiB at a time
            view = view[os.write(self._master, view):]

    def _serve(self) -> None:
        decoder = wire.Decoder(types=wire.TO_TRAY, parse=True)
        while not self._stop.is_set():
            if not select.select([self._master], [], [], 0.02)[0]:
                continue
            try:
                data = os.read(self._master, 4096)
            except OSError:
                return
            for kind, seq, message in decoder.feed(data):
                self.requests.append(kind)
                if not self.answer:
                    continue
                if kind == wire.GET_HELLO:
                    self.send(wire.HELLO, self.hello)
                elif kind == wire.GET_SNAPSHOT:
                    self.send(wire.SNAPSHOT, snapshot(self.cells, wire.REQUESTED))
                elif kind == wire.LIGHTS:
                    self.lit = message.lit
                    self.send(wire.LIGHTS_ACK, wire.encode_lights_ack(seq, wire.TAKEN))
