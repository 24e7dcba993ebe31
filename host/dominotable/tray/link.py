"""The serial link to the tray: find it, open it exclusively, handshake, keep a live copy of
every cell, and survive unplugs.

Opening: discard stale input, GET_HELLO, refuse another protocol version, GET_SNAPSHOT,
then WATCH if the host has said which cells its game uses (`watch()`; sent again after
every reconnect and every tray restart).
After that a reader thread applies CHANGES and SNAPSHOTs to `cells`. A serial error (the
cable pulled) emits a LOST event; the thread reconnects with backoff, resyncs from a fresh
snapshot, and emits BACK. Malformed frames are logged and counted (`errors`), never raised.
A gap in the tray's sequence numbers means a frame was lost: the link asks for a snapshot.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable
from enum import StrEnum

import serial
from dominotray import wire
from serial.tools import list_ports

from dominotable.tray.errors import ProtocolMismatch, TrayError, TrayNotFound

log = logging.getLogger("dominotable.tray")

PICO_VID, PICO_PID = 0x2E8A, 0x0005  # shared by every MicroPython RP2040 board
UDEV_PATH = "/dev/domino-tray"



class TrayEvent(StrEnum):
    LOST = "lost"  # the link is down (cable pulled, tray reset); the thread reconnects
    BACK = "back"  # reconnected and resynced
    SNAPSHOT = "snapshot"  # every cell anew
    CHANGES = "changes"  # some cells changed


def open_port(path: str, timeout: float = 0.05) -> serial.Serial:
    """The tray's serial port, opened exclusively: a second program on it is an error, not a
    second reader stealing half the frames."""
    try:
        return serial.Serial(path, 115200, timeout=timeout, write_timeout=1, exclusive=True)
    except (serial.SerialException, OSError) as exc:
        raise TrayNotFound(f"cannot open tray at {path}: {exc}") from None


def find_port(port: str | None = None, serial_number: str | None = None) -> str:
    """The tray's device path: `port` if given, else the udev symlink, else the one Pico
    (VID:PID 2e8a:0005) whose USB serial number matches `serial_number`."""
    if port and port != "auto":
        return port
    if os.path.exists(UDEV_PATH):
        return UDEV_PATH
    picos = [p for p in list_ports.comports() if (p.vid, p.pid) == (PICO_VID, PICO_PID)]
    matching = [p for p in picos if serial_number is None or p.serial_number == serial_number]
    if len(matching) == 1:
        return matching[0].device
    found = ", ".join(f"{p.device} (serial {p.serial_number})" for p in picos) or "none"
    if not matching and serial_number:
        raise TrayNotFound(f"no Pico with serial number {serial_number}; Picos found: {found}")
    if not matching:
        raise TrayNotFound(f"no tray: {UDEV_PATH} does not exist and no Pico (USB 2e8a:0005) is plugged in")
    raise TrayNotFound(f"{len(matching)} Picos found ({found}); name the tray's serial number or port")


class Event:
    def __init__(self, kind: TrayEvent, detail=None):
        self.kind = kind
        self.detail = detail

    def __repr__(self) -> str:
        return f"Event({self.kind}, {self.detail!r})"


class TrayLink:
    def __init__(self, port: str | None = None, *, serial_number: str | None = None, locate=None,
                 on_event=None, handshake_timeout: float = 2.0, backoff: tuple[float, float] = (0.02, 1.0),
                 retry_interval: float = 0.25):
        """`locate()` returns the device path (default: find_port(port, serial_number)), asked
        again at every reconnect since a replugged tray may get another path."""
        self.locate = locate or (lambda: find_port(port, serial_number))
        self.on_event = on_event
        self.handshake_timeout = handshake_timeout
        self.backoff = backoff
        self.retry_interval = retry_interval
        self.path: str | None = None
        self.hello: wire.Hello | None = None
        self.cells: list[tuple[int, bytes]] = []
        self.connected = False
        self.snapshots = 0      # snapshots applied
        self.reconnects = 0
        self.seq_gaps = 0
        self.last_change = time.monotonic()  # when a CHANGES frame last arrived
        self._totals = dict.fromkeys(wire.ERROR_KINDS, 0)
        self._decoder = self._new_decoder()
        self._serial: serial.Serial | None = None
        self._framer = wire.Framer()
        self._expect_seq: int | None = None
        self._early: list = []  # frames that arrived in the same read as the handshake's snapshot
        self._watch: tuple[list[int] | None, bool] | None = None
        self._watch_sent = False  # on the current connection, to the tray as it is now
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- public -------------------------------------------------------------------------

    def open(self) -> TrayLink:
        """Connect (raising TrayNotFound / ProtocolMismatch / TrayError), then follow the tray
        in a background thread."""
        self._connect()
        self._thread = threading.Thread(target=self._run, name="tray-link", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        self._close_serial()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)

    def __enter__(self) -> TrayLink:
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def errors(self) -> dict[str, int]:
        """Malformed frames dropped since the link was made, by kind."""
        with self._cond:
            return {k: self._totals[k] + self._decoder.errors[k] for k in wire.ERROR_KINDS}

    def wait_for(self, predicate, timeout: float) -> bool:
        """Wait until predicate(self) holds (checked after every frame and every 20 ms), at
        most `timeout` seconds. Returns whether it held."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(min(remaining, 0.02))  # also re-check state changed elsewhere
            return True

    def watch(self, cells: Iterable[int] | None = None, *, draw: bool = False) -> None:
        """Tell the tray which cells the current game uses (None: every cell), and whether
        a draw from the scan pad is awaited: the tray reads those cells first, and the pad
        most often during a draw. Remembered, and sent again after a reconnect."""
        wanted = None if cells is None else sorted(set(cells))
        count = self.hello.cells if self.hello is not None else None
        if wanted and count is not None and not 0 <= wanted[0] <= wanted[-1] < count:
            bad = next(c for c in wanted if not 0 <= c < count)
            raise TrayError(f"cannot watch cell {bad}: the tray has cells 0-{count - 1}")
        if (wanted, bool(draw)) == self._watch and self._watch_sent:
            return
        self._watch = (wanted, bool(draw))
        self._send_watch()

    def _send_watch(self) -> None:
        self._watch_sent = False
        if self._watch is None or self.hello is None or self._serial is None:
            return
        self._watch_sent = True
        cells, draw = self._watch
        count = self.hello.cells
        self._send(wire.WATCH, wire.encode_watch(draw, range(count) if cells is None else cells, count))

    def request_snapshot(self) -> None:
        self._send(wire.GET_SNAPSHOT)

    def reset_reader(self, cell: int) -> None:
        self._send(wire.RESET_READER, wire.encode_reset_reader(cell))

    def restart(self) -> None:
        self._send(wire.RESTART)

    # --- connection ---------------------------------------------------------------------

    @staticmethod
    def _new_decoder() -> wire.Decoder:
        return wire.Decoder(types=wire.FROM_TRAY, parse=True)

    def _connect(self) -> None:
        path = self.locate()
        ser = open_port(path)
        try:
            ser.reset_input_buffer()
            with self._cond:
                self._totals = self.errors
                self._decoder = self._new_decoder()
            self._serial = ser
            self.path = path
            self._expect_seq = None
            hello = self._exchange(wire.GET_HELLO, wire.HELLO)
            if hello.proto != wire.PROTO:
                raise ProtocolMismatch(f"tray at {path} speaks protocol version {hello.proto}, "
                                       f"this host speaks version {wire.PROTO}")
            with self._cond:
                self.hello = hello
            snapshot = self._exchange(wire.GET_SNAPSHOT, wire.SNAPSHOT)
            if len(snapshot.cells) != hello.cells:
                raise TrayError(f"tray at {path} sent {len(snapshot.cells)} cells, its HELLO said {hello.cells}")
        except BaseException:
            self._close_serial()
            raise
        with self._cond:
            self.connected = True
            self._apply_snapshot(snapshot)
        self._send_watch()
        log.info("tray %s connected at %s, %d cells, failed self-test: %s",
                 hello.board_id.hex(), path, hello.cells, hello.failed_cells() or "none")

    def _exchange(self, request: int, answer: int):
        """Send `request` until a frame of type `answer` arrives; return its message."""
        deadline = time.monotonic() + self.handshake_timeout
        ser = self._serial
        while time.monotonic() < deadline:
            self._write(self._framer.frame(request))
            retry = min(deadline, time.monotonic() + self.retry_interval)
            while time.monotonic() < retry:
                try:
                    data = ser.read(ser.in_waiting or 1)
                except (serial.SerialException, OSError) as exc:
                    raise TrayError(f"tray at {self.path} failed during the handshake: {exc}") from None
                frames = self._decode(data)
                for i, (kind, seq, msg) in enumerate(frames):
                    self._expect_seq = (seq + 1) & 0xFF
                    if kind == answer:
                        self._early = frames[i + 1:]  # read along with the answer: applied next
                        return msg
        raise TrayError(f"tray at {self.path} did not answer {wire.NAMES[request]} "
                        f"within {self.handshake_timeout:g} s")

    def _decode(self, data: bytes):
        with self._cond:
            before = self._decoder.error_count()
            frames = self._decoder.feed(data)
            if self._decoder.error_count() != before:
                log.warning("tray: dropped %d malformed frame(s); totals %s",
                            self._decoder.error_count() - before, self._decoder.errors)
        return frames

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._follow()
            except Exception as exc:
                if self._stop.is_set():
                    break  # close() pulled the port from under the read; any error is fine
                if not isinstance(exc, (serial.SerialException, OSError)):
                    raise
                self._lost(exc)
                self._reconnect()

    def _follow(self) -> None:
        ser = self._serial
        if ser is None:
            raise serial.SerialException("not connected")
        early, self._early = self._early, []
        for kind, seq, msg in early:
            self._frame(kind, seq, msg)
        while not self._stop.is_set():
            data = ser.read(ser.in_waiting or 1)
            if data:
                for kind, seq, msg in self._decode(data):
                    self._frame(kind, seq, msg)

    def _lost(self, exc) -> None:
        self._close_serial()
        with self._cond:
            self.connected = False
            self._cond.notify_all()
        log.warning("tray lost at %s: %s", self.path, exc)
        self._emit(TrayEvent.LOST, str(exc))

    def _reconnect(self) -> None:
        delay = self.backoff[0]
        while not self._stop.wait(delay):
            try:
                self._connect()
            except TrayError as exc:
                log.info("tray not back yet: %s", exc)
                delay = min(delay * 2, self.backoff[1])
                continue
            self.reconnects += 1
            self._emit(TrayEvent.BACK, self.hello)
            self._emit(TrayEvent.SNAPSHOT, list(self.cells))
            return

    def _close_serial(self) -> None:
        ser, self._serial = self._serial, None
        if ser is not None:
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass

    # --- frames -------------------------------------------------------------------------

    def _frame(self, kind: int, seq: int, msg) -> None:
        gap = self._expect_seq is not None and seq != self._expect_seq and kind != wire.HELLO
        self._expect_seq = (seq + 1) & 0xFF
        if gap:
            self.seq_gaps += 1
            if kind != wire.SNAPSHOT:  # a snapshot already brings every cell up to date
                log.info("tray: sequence gap, asking for a snapshot")
                self.request_snapshot()
        if kind == wire.SNAPSHOT:
            with self._cond:
                self._apply_snapshot(msg)
            self._emit(TrayEvent.SNAPSHOT, list(self.cells))
        elif kind == wire.CHANGES:
            with self._cond:
                self.last_change = time.monotonic()
                for cell, status, uid in msg:
                    if cell < len(self.cells):
                        self.cells[cell] = (status, uid)
                self._cond.notify_all()
            self._emit(TrayEvent.CHANGES, msg)
        elif kind == wire.HELLO:  # the tray restarted: its own boot snapshot follows
            with self._cond:
                self.hello = msg
                self._cond.notify_all()
            self._send_watch()  # a restarted tray has forgotten what the game watches

    def _apply_snapshot(self, snapshot: wire.Snapshot) -> None:
        self.cells = list(snapshot.cells)
        self.snapshots += 1
        self._cond.notify_all()

    def _emit(self, kind: TrayEvent, detail) -> None:
        if self.on_event is not None:
            self.on_event(Event(kind, detail))

    # --- writing ------------------------------------------------------------------------

    def _send(self, kind: int, body: bytes = b"") -> None:
        self._write(self._framer.frame(kind, body))

    def _write(self, data: bytes) -> None:
        ser = self._serial
        if ser is None:
            return  # disconnected: the reconnect will resync anyway
        with self._write_lock:
            try:
                ser.write(data)
            except (serial.SerialException, OSError, TypeError, ValueError) as exc:
                # TypeError/ValueError: pyserial's fd was closed by the reader thread meanwhile
                log.info("tray write failed: %s", exc)  # the reader thread notices the loss
