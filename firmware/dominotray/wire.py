"""Wire protocol v4 between the tray (firmware) and the host: one codec for both sides.

Written in the subset of Python that runs on MicroPython and CPython alike (no dataclasses,
no typing, positional `to_bytes` arguments, bytes/bytearray only). hardware/PROTOCOL.md
describes the format; this module is its reference implementation.

Frame on the wire: b"\\x00" + COBS(payload) + b"\\x00"; payload = type u8, seq u8, body, CRC-16/CCITT-FALSE
(big-endian) over type+seq+body.
"""

try:  # CPython: the C implementation of the same CRC (CCITT, poly 0x1021, not reflected).
    from binascii import crc_hqx as _crc_hqx
except ImportError:  # MicroPython's binascii has no crc_hqx.
    _crc_hqx = None

PROTO = 4  # 2: WATCH, the STACK cell status; 3: BRINGUP and its report; 4: LIGHTS and its ack
MAX_PAYLOAD = 2048
MAX_UID = 10  # ISO 14443 UIDs are 4, 7 or 10 bytes; NTAG213 has 7.
# A COBS frame adds one code byte per 254 payload bytes (and one to start).
MAX_ENCODED = MAX_PAYLOAD + MAX_PAYLOAD // 254 + 1

# Firmware -> host
HELLO = 0x01
SNAPSHOT = 0x02
CHANGES = 0x03
BRINGUP_REPORT = 0x04
LIGHTS_ACK = 0x05
# Host -> firmware
GET_HELLO = 0x81
GET_SNAPSHOT = 0x82
RESET_READER = 0x83
RESTART = 0x84
WATCH = 0x85
BRINGUP = 0x86
LIGHTS = 0x87

FROM_TRAY = (HELLO, SNAPSHOT, CHANGES, BRINGUP_REPORT, LIGHTS_ACK)
TO_TRAY = (GET_HELLO, GET_SNAPSHOT, RESET_READER, RESTART, WATCH, BRINGUP, LIGHTS)
NAMES = {
    HELLO: "HELLO", SNAPSHOT: "SNAPSHOT", CHANGES: "CHANGES", BRINGUP_REPORT: "BRINGUP_REPORT",
    LIGHTS_ACK: "LIGHTS_ACK",
    GET_HELLO: "GET_HELLO", GET_SNAPSHOT: "GET_SNAPSHOT", RESET_READER: "RESET_READER", RESTART: "RESTART",
    WATCH: "WATCH", BRINGUP: "BRINGUP", LIGHTS: "LIGHTS",
}

# Cell status
EMPTY = 0
TAG = 1
FAULT = 2
STACK = 3  # two or more tags on one cell (a pile): no UID

# WATCH flags
DRAW = 0x01  # a draw from the scan pad is awaited: keep the pad hot

# LIGHTS_ACK results
TAKEN = 0  # latched at once, or at the next frame the rate allows
REFUSED = 1  # the frame's cell count is not the tray's: nothing changed

# Snapshot reasons
REQUESTED = 0
HEARTBEAT = 1
AFTER_CHANGES = 2
BOOT = 3
REASONS = ("requested", "heartbeat", "after-changes", "boot")

ERROR_KINDS = ("cobs", "crc", "short", "long", "type", "body")


class WireError(ValueError):
    """A malformed frame or body; `kind` is one of ERROR_KINDS."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


# --- CRC-16/CCITT-FALSE -------------------------------------------------------------------

def _make_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _make_table()


def crc16_py(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE by table (the MicroPython path). crc16_py(b"123456789") == 0x29B1."""
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


if _crc_hqx is None:
    crc16 = crc16_py
else:
    def crc16(data, crc=0xFFFF):
        return _crc_hqx(data, crc)


# --- COBS ---------------------------------------------------------------------------------

def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result holds no zero byte."""
    data = bytes(data)
    out = bytearray()
    start = 0
    n = len(data)
    while True:
        end = data.find(b"\x00", start)
        if end < 0:
            end = n
        full = False
        while end - start >= 254:  # a full block: code 255, no zero implied after it
            out.append(255)
            out.extend(data[start:start + 254])
            start += 254
            full = True
        if full and start == n:  # the data ends with a full block: no final code needed
            return bytes(out)
        out.append(end - start + 1)
        out.extend(data[start:end])
        if end == n:
            return bytes(out)
        start = end + 1


def cobs_decode(data):
    """Invert cobs_encode; raises WireError("cobs") on a zero byte or a code past the end."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise WireError("cobs", "zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise WireError("cobs", "COBS block runs past the end of the frame")
        out.extend(data[i + 1:end])
        i = end
        if code < 255 and i < n:
            out.append(0)
    return bytes(out)


# --- frames -------------------------------------------------------------------------------

def frame(kind, seq, body=b""):
    """One complete frame, ready to write: 0x00 + COBS(payload) + 0x00. The leading
    delimiter ends whatever partial frame the receiver holds (a write cut short, a
    receiver that joined mid-frame), so a truncated frame costs only itself."""
    payload = bytearray((kind, seq & 0xFF))
    payload.extend(body)
    if len(payload) + 2 > MAX_PAYLOAD:
        raise WireError("long", "payload of %d bytes exceeds %d" % (len(payload) + 2, MAX_PAYLOAD))
    payload.extend(crc16(payload).to_bytes(2, "big"))
    return b"\x00" + cobs_encode(bytes(payload)) + b"\x00"


class Framer:
    """Frames messages for one direction, keeping that direction's sequence counter."""

    def __init__(self, seq=0):
        self.seq = seq & 0xFF

    def frame(self, kind, body=b""):
        data = frame(kind, self.seq, body)
        self.seq = (self.seq + 1) & 0xFF
        return data


def parse_payload(payload, types=None, message=False):
    """(type, seq, body) from a decoded payload, or WireError naming the problem. The body
    is always parsed to validate it; with message=True the parsed message replaces it."""
    if len(payload) < 4:
        raise WireError("short", "payload of %d bytes is shorter than 4" % len(payload))
    if len(payload) > MAX_PAYLOAD:
        raise WireError("long", "payload of %d bytes exceeds %d" % (len(payload), MAX_PAYLOAD))
    if crc16(payload[:-2]) != (payload[-2] << 8 | payload[-1]):
        raise WireError("crc", "CRC mismatch")
    kind = payload[0]
    if kind not in NAMES or (types is not None and kind not in types):
        raise WireError("type", "unexpected frame type 0x%02x" % kind)
    body = payload[2:-2]
    parsed = decode_body(kind, body)  # raises WireError("body")
    return kind, payload[1], parsed if message else body


class Decoder:
    """Streaming frame decoder: feed() bytes in any chunking, get complete valid frames.

    Returns (type, seq, body) tuples; with parse=True the third item is the decoded message
    instead of the raw body. Every malformed frame is dropped whole and counted in `errors`
    by kind; the decoder resynchronises at the next 0x00 and never raises.
    """

    def __init__(self, types=None, parse=False):
        self.types = types
        self.parse = parse
        self.errors = {}
        for kind in ERROR_KINDS:
            self.errors[kind] = 0
        self.frames = 0
        self._buf = bytearray()
        self._skipping = False  # inside an over-long frame: drop until the next delimiter

    def error_count(self):
        return sum(self.errors.values())

    def feed(self, data):
        if not isinstance(data, bytes):
            data = bytes(data)  # MicroPython's bytearray has no find()
        out = []
        start = 0
        n = len(data)
        while start < n:
            end = data.find(b"\x00", start)
            if end < 0:
                if not self._skipping:
                    self._buf.extend(data[start:])
                    if len(self._buf) > MAX_ENCODED:
                        self.errors["long"] += 1
                        self._buf = bytearray()
                        self._skipping = True
                break
            if self._skipping:
                self._skipping = False
            else:
                self._buf.extend(data[start:end])
                if len(self._buf) > MAX_ENCODED:
                    self.errors["long"] += 1
                elif self._buf:  # empty chunks (repeated delimiters) are idle filler
                    self._take(bytes(self._buf), out)
            self._buf = bytearray()
            start = end + 1
        return out

    def _take(self, encoded, out):
        try:
            kind, seq, body = parse_payload(cobs_decode(encoded), self.types, self.parse)
        except WireError as exc:
            self.errors[exc.kind] += 1
            return
        except Exception:  # defensive: a decoder must never raise on input
            self.errors["body"] += 1
            return
        self.frames += 1
        out.append((kind, seq, body))


# --- messages -----------------------------------------------------------------------------

VIRTUAL_BOARD = b"virtual"  # a board id starting so is an emulated tray with the virtual tag set


class Hello:
    """The tray's HELLO: protocol and firmware versions, board id, cell count, self-test."""

    def __init__(self, proto, fw, board_id, cells, passed):
        self.proto = proto
        self.fw = tuple(fw)
        self.board_id = bytes(board_id)
        self.cells = cells
        self.passed = list(passed)  # passed[i]: reader i passed its self-test

    def failed_cells(self):
        return [i for i in range(self.cells) if not self.passed[i]]

    @property
    def virtual(self):
        """An emulated tray (the host's virtual tray): its tags are the virtual tag set."""
        return self.board_id.startswith(VIRTUAL_BOARD)

    def __eq__(self, other):
        return isinstance(other, Hello) and (self.proto, self.fw, self.board_id, self.cells, self.passed) == (
            other.proto, other.fw, other.board_id, other.cells, other.passed)

    def __repr__(self):
        return "Hello(proto=%d, fw=%d.%d.%d, board=%s, cells=%d, failed=%r)" % (
            (self.proto,) + self.fw + (self.board_id.hex(), self.cells, self.failed_cells()))


class Snapshot:
    """Every cell: `cells[i]` is (status, uid) with uid b"" unless status == TAG."""

    def __init__(self, reason, cells):
        self.reason = reason
        self.cells = cells

    def __eq__(self, other):
        return isinstance(other, Snapshot) and self.reason == other.reason and self.cells == other.cells

    def __repr__(self):
        tags = sum(1 for status, _ in self.cells if status == TAG)
        faults = sum(1 for status, _ in self.cells if status == FAULT)
        return "Snapshot(%s, cells=%d, tags=%d, faults=%d)" % (
            REASONS[self.reason], len(self.cells), tags, faults)


def _bitmap(bits):
    out = bytearray((len(bits) + 7) // 8)
    for i in range(len(bits)):
        if bits[i]:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


def _unbitmap(body, at, what):
    """The cell count (2 bytes at `at`) and the bitmap after it, as one bool per cell."""
    cells = body[at] << 8 | body[at + 1]
    bitmap = body[at + 2:]
    if len(bitmap) != (cells + 7) // 8:
        raise WireError("body", "%s bitmap has %d bytes for %d cells" % (what, len(bitmap), cells))
    return [bool(bitmap[i >> 3] & (1 << (i & 7))) for i in range(cells)]


def _put_cell(out, status, uid):
    if status == TAG:
        if not 1 <= len(uid) <= MAX_UID:
            raise WireError("body", "UID of %d bytes (1 to %d allowed)" % (len(uid), MAX_UID))
        out.append(TAG)
        out.append(len(uid))
        out.extend(uid)
    elif status == EMPTY or status == FAULT or status == STACK:
        out.append(status)
    else:
        raise WireError("body", "unknown cell status %r" % (status,))


def _get_cell(body, i):
    """(status, uid, next index) for the cell entry at body[i]."""
    status = body[i]
    if status == TAG:
        if i + 1 >= len(body):
            raise WireError("body", "UID length missing")
        n = body[i + 1]
        if not 1 <= n <= MAX_UID or i + 2 + n > len(body):
            raise WireError("body", "bad UID length %d" % n)
        return TAG, bytes(body[i + 2:i + 2 + n]), i + 2 + n
    if status == EMPTY or status == FAULT or status == STACK:
        return status, b"", i + 1
    raise WireError("body", "unknown cell status %d" % status)


def encode_hello(fw, board_id, cells, passed, proto=PROTO):
    if len(passed) != cells:
        raise WireError("body", "self-test list has %d entries for %d cells" % (len(passed), cells))
    body = bytearray((proto, fw[0], fw[1], fw[2], len(board_id)))
    body.extend(board_id)
    body.extend(cells.to_bytes(2, "big"))
    body.extend(_bitmap(passed))
    return bytes(body)


def decode_hello(body):
    if len(body) < 5 or len(body) < 5 + body[4] + 2:
        raise WireError("body", "HELLO too short")
    n = body[4]
    passed = _unbitmap(body, 5 + n, "HELLO self-test")
    return Hello(body[0], (body[1], body[2], body[3]), bytes(body[5:5 + n]), len(passed), passed)


def encode_snapshot(reason, cells):
    """`cells`: a sequence of (status, uid)."""
    body = bytearray((reason,))
    body.extend(len(cells).to_bytes(2, "big"))
    for status, uid in cells:
        _put_cell(body, status, uid)
    return bytes(body)


def decode_snapshot(body):
    if len(body) < 3:
        raise WireError("body", "SNAPSHOT too short")
    body = bytes(body)
    reason = body[0]
    if reason >= len(REASONS):
        raise WireError("body", "unknown snapshot reason %d" % reason)
    count = body[1] << 8 | body[2]
    cells = []
    add = cells.append
    empty = (EMPTY, b"")
    fault = (FAULT, b"")
    i = 3
    n = len(body)
    for _ in range(count):  # inlined: this loop is the host's decoding cost
        if i >= n:
            raise WireError("body", "SNAPSHOT ends after %d of %d cells" % (len(cells), count))
        status = body[i]
        if status == EMPTY:
            add(empty)
            i += 1
        elif status == TAG:
            size = body[i + 1] if i + 1 < n else 0
            end = i + 2 + size
            if not 1 <= size <= MAX_UID or end > n:
                raise WireError("body", "bad UID length %d" % size)
            add((TAG, body[i + 2:end]))
            i = end
        elif status == FAULT:
            add(fault)
            i += 1
        elif status == STACK:
            add((STACK, b""))
            i += 1
        else:
            raise WireError("body", "unknown cell status %d" % status)
    if i != n:
        raise WireError("body", "SNAPSHOT has %d bytes after its last cell" % (n - i))
    return Snapshot(reason, cells)


def encode_changes(events):
    """`events`: a sequence of (cell, status, uid), at most 255."""
    if len(events) > 255:
        raise WireError("body", "%d change events in one frame (255 allowed)" % len(events))
    body = bytearray((len(events),))
    for cell, status, uid in events:
        body.extend(cell.to_bytes(2, "big"))
        _put_cell(body, status, uid)
    return bytes(body)


def decode_changes(body):
    if len(body) < 1:
        raise WireError("body", "CHANGES too short")
    events = []
    i = 1
    n = len(body)
    for _ in range(body[0]):
        if i + 3 > n:
            raise WireError("body", "CHANGES ends after %d of %d events" % (len(events), body[0]))
        cell = body[i] << 8 | body[i + 1]
        status, uid, i = _get_cell(body, i + 2)
        events.append((cell, status, uid))
    if i != n:
        raise WireError("body", "CHANGES has %d bytes after its last event" % (n - i))
    return events


def encode_reset_reader(cell):
    return cell.to_bytes(2, "big")


def decode_reset_reader(body):
    if len(body) != 2:
        raise WireError("body", "RESET_READER body must be 2 bytes, not %d" % len(body))
    return body[0] << 8 | body[1]


class Watch:
    """The host's WATCH: which cells the current game uses, and whether a draw is awaited."""

    def __init__(self, draw, cells):
        self.draw = bool(draw)
        self.cells = cells  # cells[i] true: cell i is watched

    def watched(self):
        return [i for i in range(len(self.cells)) if self.cells[i]]

    def __eq__(self, other):
        return isinstance(other, Watch) and (self.draw, list(self.cells)) == (other.draw, list(other.cells))

    def __repr__(self):
        return "Watch(draw=%r, %d of %d cells)" % (self.draw, len(self.watched()), len(self.cells))


def encode_watch(draw, watched, cells):
    """`watched`: the cell numbers the game uses, of `cells` in all."""
    bits = [False] * cells
    for cell in watched:
        if not 0 <= cell < cells:
            raise WireError("body", "watched cell %d is not one of the %d cells" % (cell, cells))
        bits[cell] = True
    body = bytearray((DRAW if draw else 0,))
    body.extend(cells.to_bytes(2, "big"))
    body.extend(_bitmap(bits))
    return bytes(body)


def decode_watch(body):
    if len(body) < 3:
        raise WireError("body", "WATCH too short")
    if body[0] & ~DRAW:
        raise WireError("body", "unknown WATCH flags 0x%02x" % body[0])
    return Watch(body[0] & DRAW, bytearray(_unbitmap(body, 1, "WATCH")))


class Probe:
    """One cell's bring-up result: its reader passed the self-test (`present`), that reader's
    mean SPI transaction time in us, what it read at the drive the firmware uses (status, uid),
    and the weakest drive (1..max) at which that tag still answered (0: none)."""

    def __init__(self, present, spi_us, status, uid, min_drive):
        self.present = bool(present)
        self.spi_us = spi_us
        self.status = status
        self.uid = bytes(uid)
        self.min_drive = min_drive

    def __eq__(self, other):
        return isinstance(other, Probe) and (self.present, self.spi_us, self.status, self.uid, self.min_drive) == (
            other.present, other.spi_us, other.status, other.uid, other.min_drive)

    def __repr__(self):
        return "Probe(present=%r, spi_us=%d, status=%d, uid=%s, min_drive=%d)" % (
            self.present, self.spi_us, self.status, self.uid.hex(), self.min_drive)


class BringupReport:
    """Part of the bring-up report: probes of cells first .. first + len(probes) - 1 of `total`;
    `drive` is the carrier drive the firmware scans with, `max_drive` the strongest."""

    def __init__(self, drive, max_drive, total, first, probes):
        self.drive = drive
        self.max_drive = max_drive
        self.total = total
        self.first = first
        self.probes = probes

    def __repr__(self):
        return "BringupReport(cells %d-%d of %d, drive %d/%d)" % (
            self.first, self.first + len(self.probes) - 1, self.total, self.drive, self.max_drive)


def encode_bringup_report(drive, max_drive, total, first, probes):
    """`probes`: a sequence of Probe, at most 255."""
    if len(probes) > 255:
        raise WireError("body", "%d probes in one frame (255 allowed)" % len(probes))
    body = bytearray((drive, max_drive))
    body.extend(total.to_bytes(2, "big"))
    body.extend(first.to_bytes(2, "big"))
    body.append(len(probes))
    for p in probes:
        body.append(1 if p.present else 0)
        body.extend(min(p.spi_us, 0xFFFF).to_bytes(2, "big"))
        body.append(p.min_drive)
        _put_cell(body, p.status, p.uid)
    return bytes(body)


def decode_bringup_report(body):
    if len(body) < 7:
        raise WireError("body", "BRINGUP_REPORT too short")
    body = bytes(body)
    total = body[2] << 8 | body[3]
    first = body[4] << 8 | body[5]
    probes = []
    i = 7
    for _ in range(body[6]):
        if i + 5 > len(body):
            raise WireError("body", "BRINGUP_REPORT ends after %d of %d probes" % (len(probes), body[6]))
        if body[i] > 1:
            raise WireError("body", "unknown probe flags 0x%02x" % body[i])
        status, uid, nxt = _get_cell(body, i + 4)
        probes.append(Probe(body[i], body[i + 1] << 8 | body[i + 2], status, uid, body[i + 3]))
        i = nxt
    if i != len(body):
        raise WireError("body", "BRINGUP_REPORT has %d bytes after its last probe" % (len(body) - i))
    if first + len(probes) > total:
        raise WireError("body", "BRINGUP_REPORT cells %d-%d beyond its %d" % (first, first + len(probes) - 1, total))
    return BringupReport(body[0], body[1], total, first, probes)


class Lights:
    """The host's LIGHTS: what every LED of the tray shows now. `lit` holds (cell, red, green, blue)
    in cell order, each cell once; a cell not listed is dark."""

    def __init__(self, cells, lit):
        self.cells = cells  # the tray's cell count, as the host knows it
        self.lit = lit

    def __eq__(self, other):
        return isinstance(other, Lights) and (self.cells, list(self.lit)) == (other.cells, list(other.lit))

    def __repr__(self):
        return "Lights(%d of %d cells lit)" % (len(self.lit), self.cells)


def encode_lights(cells, lit):
    """`lit`: (cell, red, green, blue) in cell order, at most one per cell, of `cells` in all."""
    body = bytearray(cells.to_bytes(2, "big"))
    body.extend(len(lit).to_bytes(2, "big"))
    last = -1
    for cell, red, green, blue in lit:
        if not last < cell < cells:
            raise WireError("body", "lit cell %d is out of order or not one of the %d cells" % (cell, cells))
        for value in (red, green, blue):
            if not 0 <= value <= 255:
                raise WireError("body", "colour %r of cell %d is not 0..255" % (value, cell))
        body.extend(cell.to_bytes(2, "big"))
        body.append(red)
        body.append(green)
        body.append(blue)
        last = cell
    return bytes(body)


def decode_lights(body):
    if len(body) < 4:
        raise WireError("body", "LIGHTS too short")
    cells = body[0] << 8 | body[1]
    count = body[2] << 8 | body[3]
    if len(body) != 4 + 5 * count:
        raise WireError("body", "LIGHTS has %d bytes for %d lit cells" % (len(body), count))
    lit = []
    last = -1
    for i in range(4, len(body), 5):
        cell = body[i] << 8 | body[i + 1]
        if not last < cell < cells:
            raise WireError("body", "lit cell %d is out of order or not one of the %d cells" % (cell, cells))
        lit.append((cell, body[i + 2], body[i + 3], body[i + 4]))
        last = cell
    return Lights(cells, lit)


def encode_lights_ack(seq, result):
    return bytes((seq & 0xFF, result))


def decode_lights_ack(body):
    """(the LIGHTS frame's seq, TAKEN or REFUSED)."""
    if len(body) != 2:
        raise WireError("body", "LIGHTS_ACK body must be 2 bytes, not %d" % len(body))
    if body[1] not in (TAKEN, REFUSED):
        raise WireError("body", "unknown LIGHTS_ACK result %d" % body[1])
    return body[0], body[1]


def _decode_empty(body):
    if len(body):
        raise WireError("body", "expected an empty body, got %d bytes" % len(body))
    return None


_DECODERS = {
    HELLO: decode_hello, SNAPSHOT: decode_snapshot, CHANGES: decode_changes,
    BRINGUP_REPORT: decode_bringup_report, LIGHTS_ACK: decode_lights_ack,
    GET_HELLO: _decode_empty, GET_SNAPSHOT: _decode_empty, RESET_READER: decode_reset_reader,
    RESTART: _decode_empty, WATCH: decode_watch, BRINGUP: _decode_empty, LIGHTS: decode_lights,
}


def decode_body(kind, body):
    """The message for a frame body: Hello, Snapshot, list of changes, a cell, Watch, a bring-up
    report, Lights, an ack (seq, result), or None."""
    decoder = _DECODERS.get(kind)
    if decoder is None:
        raise WireError("type", "unknown frame type 0x%02x" % kind)
    return decoder(body)
