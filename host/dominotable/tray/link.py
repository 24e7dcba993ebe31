"""The serial link to the tray: find it, open it exclusively, handshake, keep a live copy of
every cell, and survive unplugs and a tray that contradicts itself.

Opening: discard stale input, GET_HELLO, GET_SNAPSHOT, then WATCH if the host has said which
cells its game uses (`watch()`) and LIGHTS (`light()`: what the cells' LEDs show, tray/lights.py),
both sent again after every reconnect and every tray restart. A HELLO the host cannot use is
refused with the reason: another protocol version, no cells, or a cell count other than the tray
geometry's.

After that a reader thread applies CHANGES and SNAPSHOTs to `cells`, checking every frame
against the session's HELLO. A serial error (the cable pulled) or a frame that contradicts the
HELLO (a SNAPSHOT of another cell count, a change on a cell the tray does not have, a HELLO of
another protocol, cell count or board, a boot snapshot without its HELLO) loses the link: the
thread emits LOST with the reason, reconnects with backoff from a fresh HELLO and snapshot, and
emits BACK. Nothing a frame says is taken in part. Any other exception inside the thread is
lost the same way: the thread never dies of a frame. Malformed frames are counted (`errors`)
and dropped; a gap in the tray's sequence numbers means a frame was lost: the link asks for a
snapshot.

For the runtime: a LOST event's `reason` (its `detail`) says what happened in words a person can
read, as does `TrayLink.lost_reason` for as long as the link is down (None while connected).
While the link stays down, LOST comes again whenever the reason changes (the cable pulled, then
a tray answering another protocol version). `open(retry=True)` does not raise when the tray
answers but cannot be used yet: it returns a lost link (`connected` false, `lost_reason` set,
`cells` empty) that keeps trying. Failures are logged once per reason and minute.
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
from dominotable.tray.geometry import Geometry, default
from dominotable.tray.lights import Lights, Lit

log = logging.getLogger("dominotable.tray")

PICO_VID, PICO_PID = 0x2E8A, 0x0005  # shared by every MicroPython RP2040 board
UDEV_PATH = "/dev/domino-tray"
LOG_EVERY_S = 60.0  # the same failure is logged at most once in this long


class TrayEvent(StrEnum):
    LOST = "lost"  # the link is down (cable pulled, tray reset, a contradiction); the thread reconnects
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


def cell_range(count: int) -> str:
    """'cells 0-193', 'cell 0' or 'no cells'."""
    return "no cells" if count <= 0 else "cell 0" if count == 1 else f"cells 0-{count - 1}"


class Event:
    def __init__(self, kind: TrayEvent, detail=None, cells: tuple[tuple[int, bytes], ...] | None = None):
        """`cells`: the whole tray after a SNAPSHOT or CHANGES frame, copied by the reader thread
        (the only one that writes them): the board the host judges is the one its event carried."""
        self.kind = kind
        self.detail = detail
        self.cells = cells

    @property
    def reason(self) -> str | None:
        """Why the link was lost (LOST only), in words a person can read."""
        return self.detail if self.kind == TrayEvent.LOST else None

    def __repr__(self) -> str:
        return f"Event({self.kind}, {self.detail!r})"


class OnceLog:
    """Logs each distinct failure (`key`, by default the message) at most once per `every`
    seconds, then says how many were held back."""

    def __init__(self, every: float = LOG_EVERY_S):
        self.every = every
        self._seen: dict[str, tuple[float, int]] = {}

    def __call__(self, level: int, message: str, exc: BaseException | None = None, key: str | None = None) -> None:
        key = message if key is None else key
        now = time.monotonic()
        last, held = self._seen.get(key, (None, 0))
        if last is not None and now - last < self.every:
            self._seen[key] = (last, held + 1)
            return
        if len(self._seen) > 256:  # reasons that carry numbers: forget the old ones
            self._seen.clear()
        self._seen[key] = (now, 0)
        more = f" (and {held} more times in the last {self.every:g} s)" if held else ""
        log.log(level, "%s%s", message, more, exc_info=exc)


class TrayLink:
    def __init__(self, port: str | None = None, *, serial_number: str | None = None, locate=None,
                 on_event=None, geometry: Geometry | None = None, handshake_timeout: float = 2.0,
                 backoff: tuple[float, float] = (0.02, 1.0), retry_interval: float = 0.25):
        """`locate()` returns the device path (default: find_port(port, serial_number)), asked
        again at every reconnect since a replugged tray may get another path. `geometry`: the
        tray the host expects (default: the packaged tray.toml's); a tray of another cell
        count is refused."""
        self.locate = locate or (lambda: find_port(port, serial_number))
        self.on_event = on_event
        self.geometry = geometry or default()
        self.handshake_timeout = handshake_timeout
        self.backoff = backoff
        self.retry_interval = retry_interval
        self.path: str | None = None
        self.hello: wire.Hello | None = None
        self.cells: list[tuple[int, bytes]] = []
        self.connected = False
        self.lost_reason: str | None = None  # why the link is down; None while connected
        self.snapshots = 0      # snapshots applied
        self.reconnects = 0
        self.seq_gaps = 0
        self.last_change = time.monotonic()  # when a CHANGES frame last arrived
        self._totals = dict.fromkeys(wire.ERROR_KINDS, 0)
        self._decoder = self._new_decoder()
        self._serial: serial.Serial | None = None
        self._framer = wire.Framer()
        self._expect_seq: int | None = None
        self._last_kind: int | None = None  # of the last frame taken: a boot snapshot follows a HELLO
        self._early: list = []  # frames that arrived in the same read as the handshake's snapshot
        self._watch: tuple[list[int] | None, bool] | None = None
        self._watch_sent = False  # on the current connection, to the tray as it is now
        self.lights = Lights()
        self._say = OnceLog()
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- public -------------------------------------------------------------------------

    def open(self, retry: bool = False) -> TrayLink:
        """Connect, then follow the tray in a background thread. Without `retry` a failed
        first connection raises (TrayNotFound / ProtocolMismatch / TrayError); with it, only a
        port that cannot be opened raises, and a tray that answers but cannot be used yet
        leaves the link lost (LOST emitted, `lost_reason` set) and retrying."""
        try:
            self._connect()
        except TrayNotFound:
            raise
        except TrayError as exc:
            if not retry:
                raise
            self._lost(str(exc))
        else:
            self._emit(TrayEvent.SNAPSHOT, list(self.cells))  # the handshake's: the tray as the host first sees it
        self._thread = threading.Thread(target=self._run, name="tray-link", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self.lights.want({}):  # the table stops: its instruction goes with it, at once
            self._send_lights()
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
        count = self.geometry.cells  # the tray's too: a HELLO saying otherwise is refused
        if wanted and not 0 <= wanted[0] <= wanted[-1] < count:
            bad = next(c for c in wanted if not 0 <= c < count)
            raise TrayError(f"cannot watch cell {bad}: the tray has {cell_range(count)}")
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

    def light(self, lit: Lit) -> None:
        """Show `lit` ({cell: (red, green, blue)}, every other cell dark) on the tray's LEDs: sent
        at once, again until the tray acknowledges it, after every reconnect, and every second
        while anything is lit (tray/lights.py)."""
        if self.lights.want(lit):
            self._send_lights()

    def _send_lights(self) -> None:
        with self._write_lock:  # framed and written together: the seq in flight is the one written
            if self._serial is not None and self.hello is not None:
                self._put(self.lights.frame(self._framer, self.hello.cells))

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

    def refusal(self, hello: wire.Hello) -> str | None:
        """Why this host cannot use a tray that says `hello`; None if it can."""
        where = f"tray at {self.path}"
        if hello.proto != wire.PROTO:
            return f"{where} speaks protocol version {hello.proto}, this host speaks version {wire.PROTO}"
        if hello.cells == 0:
            return f"{where} reports no cells in its HELLO"
        if hello.cells != self.geometry.cells:
            return f"{where} has {hello.cells} cells, the table's ({self.geometry.name}) has {self.geometry.cells}"
        return None

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
            refused = self.refusal(hello)
            if refused is not None:
                raise (ProtocolMismatch if hello.proto != wire.PROTO else TrayError)(refused)
            snapshot = self._exchange(wire.GET_SNAPSHOT, wire.SNAPSHOT)
            if len(snapshot.cells) != hello.cells:
                raise TrayError(f"tray at {path} sent a SNAPSHOT of {len(snapshot.cells)} cells, "
                                f"its HELLO said {hello.cells}")
        except BaseException:
            self._close_serial()
            raise
        with self._cond:
            self.hello = hello
            self._last_kind = wire.SNAPSHOT
            self._apply_snapshot(snapshot)
            self.connected, self.lost_reason = True, None
        self._send_watch()
        self.lights.forget()
        self._send_lights()
        log.info("tray %s connected at %s, %d cells, failed self-test: %s",
                 hello.board_id.hex(), path, hello.cells, hello.failed_cells() or "none")

    def _exchange(self, request: int, answer: int):
        """Send `request` until a frame of type `answer` arrives; return its message."""
        deadline = time.monotonic() + self.handshake_timeout
        ser = self._serial
        while time.monotonic() < deadline:
            self._send(request)
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
                self._say(logging.WARNING, f"tray: dropped malformed frames; totals {self._decoder.errors}",
                          key="malformed")
        return frames

    def _run(self) -> None:
        """Follow the tray; on any failure, lose the link and reconnect with backoff. Nothing
        escapes: a frame, a serial error or a bug here is a LOST event with its reason."""
        delay = self.backoff[0]
        while not self._stop.is_set():
            try:
                if self.connected:
                    self._follow()
                elif not self._stop.wait(delay):
                    self._connect()
                    self.reconnects += 1
                    delay = self.backoff[0]
                    self._emit(TrayEvent.BACK, self.hello)
                    self._emit(TrayEvent.SNAPSHOT, list(self.cells))
            except Exception as exc:
                if self._stop.is_set():
                    break  # close() pulled the port from under the read; any error is fine
                if not self.connected:
                    delay = min(delay * 2, self.backoff[1])
                self._lost(self._reason(exc), exc)

    def _reason(self, exc: Exception) -> str:
        if isinstance(exc, TrayError):
            return str(exc)
        if isinstance(exc, (serial.SerialException, OSError)):
            return f"serial port {self.path} failed: {exc}"
        return f"the tray link failed ({type(exc).__name__}: {exc})"

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
            if self.lights.due():
                self._send_lights()

    def _lost(self, reason: str, exc: Exception | None = None) -> None:
        """The link is down (or still down) for `reason`: said once per reason."""
        was = self.connected
        self._close_serial()
        with self._cond:
            self.connected = False
            again = reason == self.lost_reason
            self.lost_reason = reason
            self._cond.notify_all()
        unexpected = exc is not None and not isinstance(exc, (TrayError, serial.SerialException, OSError))
        self._say(logging.WARNING if was or unexpected or not again else logging.INFO,
                  f"tray {'lost' if was else 'not back yet'}: {reason}", exc if unexpected else None, key=reason)
        if was or not again:
            self._emit(TrayEvent.LOST, reason)

    def _close_serial(self) -> None:
        ser, self._serial = self._serial, None
        if ser is not None:
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass

    # --- frames -------------------------------------------------------------------------

    def _frame(self, kind: int, seq: int, msg) -> None:
        """Take one frame, or raise TrayError naming how it contradicts the session's HELLO."""
        gap = self._expect_seq is not None and seq != self._expect_seq and kind != wire.HELLO
        self._expect_seq = (seq + 1) & 0xFF
        after_hello, self._last_kind = self._last_kind == wire.HELLO, kind
        if kind == wire.HELLO:
            self._restarted(msg)
            return
        if gap:
            self.seq_gaps += 1
        count = self.hello.cells
        if kind == wire.SNAPSHOT:
            if len(msg.cells) != count:
                raise TrayError(f"the tray sent a SNAPSHOT of {len(msg.cells)} cells, its HELLO said {count}")
            if msg.reason == wire.BOOT and not after_hello:
                raise TrayError(f"the tray restarted (a boot snapshot, seq {seq}) and its HELLO never arrived")
            with self._cond:
                self._apply_snapshot(msg)
            self._emit(TrayEvent.SNAPSHOT, list(self.cells))
        elif kind == wire.LIGHTS_ACK:
            self.lights.acked(*msg)
        elif kind == wire.CHANGES:
            bad = next((cell for cell, _, _ in msg if cell >= count), None)
            if bad is not None:
                raise TrayError(f"the tray reported a change on cell {bad}, its HELLO said {cell_range(count)}")
            if gap:
                log.info("tray: sequence gap, asking for a snapshot")
                self.request_snapshot()
            with self._cond:
                self.last_change = time.monotonic()
                for cell, status, uid in msg:
                    self.cells[cell] = (status, uid)
                self._cond.notify_all()
            self._emit(TrayEvent.CHANGES, msg)

    def _restarted(self, hello: wire.Hello) -> None:
        """A HELLO mid-session: the tray restarted (its boot snapshot follows), or answers a
        GET_HELLO repeated during the handshake. It must be the same tray."""
        session = self.hello
        if hello.proto != session.proto:
            raise TrayError(f"the tray sent a HELLO for protocol version {hello.proto} mid-session "
                            f"(this host speaks version {wire.PROTO})")
        if hello.cells != session.cells:
            raise TrayError(f"the tray sent a HELLO with {hello.cells} cells mid-session, "
                            f"its first HELLO said {session.cells}")
        if hello.board_id != session.board_id:
            raise TrayError(f"a HELLO from board {hello.board_id.hex()} mid-session, "
                            f"the session's board is {session.board_id.hex()}")
        with self._cond:
            self.hello = hello  # its self-test may differ
            self._cond.notify_all()
        self._send_watch()  # a restarted tray has forgotten what the game watches, and is dark
        self.lights.forget()
        self._send_lights()

    def _apply_snapshot(self, snapshot: wire.Snapshot) -> None:
        self.cells = list(snapshot.cells)
        self.snapshots += 1
        self._cond.notify_all()

    def _emit(self, kind: TrayEvent, detail) -> None:
        if self.on_event is None:
            return
        board = tuple(self.cells) if kind in (TrayEvent.SNAPSHOT, TrayEvent.CHANGES) else None
        try:
            self.on_event(Event(kind, detail, board))
        except Exception as exc:  # the listener's fault, not the link's: the link goes on
            self._say(logging.ERROR, f"tray: the {kind} listener failed: {type(exc).__name__}: {exc}", exc,
                      key="listener")  # said once a minute, whichever event it failed on

    # --- writing ------------------------------------------------------------------------

    def _send(self, kind: int, body: bytes = b"") -> None:
        with self._write_lock:  # each frame's seq once, whichever thread sends
            self._put(self._framer.frame(kind, body))

    def _put(self, data: bytes) -> None:
        """Write (the write lock held)."""
        ser = self._serial
        if ser is None:
            return  # disconnected: the reconnect will resync anyway
        try:
            ser.write(data)
        except (serial.SerialException, OSError, TypeError, ValueError) as exc:
            # TypeError/ValueError: pyserial's fd was closed by the reader thread meanwhile
            log.info("tray write failed: %s", exc)  # the reader thread notices the loss
