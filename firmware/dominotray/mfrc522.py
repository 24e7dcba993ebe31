"""MFRC522 driver for an array of readers on one SPI bus, reading NTAG213 tile tags.

One driver object serves every reader. A reader serves one cell, or a block of cells whose
coils it switches (hardware/data/architecture.toml): `bus.layout`, if the bus has one, gives
each cell's reader and its coil on that reader (None: a reader per cell). Register access
names a reader; reading, waking and sleeping name a cell. `bus.xfer(reader, data)` clocks
`data` out on MOSI with that reader selected and returns the bytes clocked in on MISO (same
length). On the Pico the bus is SPI plus chip-select decoders (main.py); in tests and the
virtual tray it is the emulated array (emulator.py).

Coils: one coil index for the whole tray (`bus.select_coil(index)`: two GPIOs that every cell
board's decoder turns into its coil selects, hardware/wiring.toml [coils]) puts coil index % n of
every reader with n coils on that reader's network and shorts its others: a shorted coil is
detuned, so it does not relay a neighbour's field, and every field that is on is on the same coil
of its block, two cells from the next. A cell is readable when the index selects its coil
(`selected`); waking one that it does not select moves the index first (`select`), and with it
the field of every awake reader to that reader's coil of the new index, which restarts their
guard times (those coils' tags were unpowered). The scanner reads the cells of one index
together, so the index moves seldom.

Register map, command set and SPI framing follow the NXP MFRC522 data sheet: an address byte
is (reg << 1), with bit 7 set for a read; a read returns register n's value during byte n+1.
The tag side follows ISO/IEC 14443-3 type A (WUPA, anticollision/select cascade, HLTA).

Power and RF field: a reader that is not being read sits in soft power-down (CommandReg
PowerDown) with its field off: the whole array then draws microamperes, and no two
neighbouring fields are ever on. `wake(cell)` leaves power-down, which switches the field on
and starts the tag power-up guard time (timed by the microcontroller: `bus.ticks_us()`,
`bus.wait_us(since, us)`); `read_uid(cell)` waits out what is left of it (nothing, if the scanner woke the reader early enough), reads, and leaves the
field on for a quick re-read; `sleep(cell)` switches the field off and powers down. The
scanner wakes the next few readers of its schedule while it reads the current one, so
their guard times overlap (it keeps their fields apart: see scanner.py).

Timings (the constants below), with their sources:
- FIELD_GUARD_US 5.1 ms: ISO/IEC 14443-3 (6.2.3/6.3.1: a PICC must answer REQA/WUPA
  within 5 ms of the field reaching it; the PCD holds an unmodulated field >= 5.1 ms).
- NO_CARD_US 0.3 ms: ISO/IEC 14443-3 6.2.1.1, the frame delay time of the answers to
  REQA/WUPA, ANTICOLLISION and SELECT is fixed at (n*128 + 84 or 20)/fc with n = 9, at most
  1236/fc = 91 us; the MFRC522 timer in TAuto mode stops at the first received bit
  (MFRC522 data sheet 9.3.3.10, TModeReg TAuto), so a timeout three times the frame delay
  time loses no tag.
- WAKE_US 540 us: leaving soft power-down, the reader's own 27.12 MHz crystal restarts
  (500 us, an assumed start-up time for a 3225 fundamental crystal), then 1024 clock periods
  (37.74 us, MFRC522 data sheet 8.8.2); the field, and so the guard time, starts after it.
- ATQA_WINDOW_US 380 us: WUPA takes 85 us on air (7 bits, start and end: 9 x 128/fc), the
  tag answers after the frame delay time (at most 1236/fc = 91 us) with ATQA (2 bytes with
  parity, start and end: 20 x 128/fc = 189 us): 365 us after StartSend the FIFO holds the whole
  answer, or nothing answered. The WUPA of a read is judged by the FIFO then, with no interrupt
  flags to clear first: one SPI transaction less per read.
- A presence check of a cell whose tag is known is WUPA alone: the answer (ATQA) is all
  a removal needs. Every FULL_READ_EVERY-th visit reads the whole UID (a tile swapped
  for another in one go, a tag stacked on top).

Stacks: tags stacked on one cell answer the anticollision loop together, and their UIDs
differ, so the MFRC522 flags a bit collision (ErrorReg CollErr); the read reports STACK
(two or more tags) instead of a garbled read.

Why not one of the popular MicroPython MFRC522 drivers: their `anticoll()` runs cascade
level 1 only and returns its four bytes as "the UID". An NTAG213 has a 7-byte UID, so at
level 1 it answers with the cascade tag 0x88 and only UID bytes 0-2; the 4-byte value those
drivers return (88 xx xx xx) is wrong and, since every NXP tag starts with 0x04, it differs
between tags in three bytes only. This driver selects through level 2 to get all 7 bytes.
"""

# Registers
COMMAND = 0x01
COM_IRQ = 0x04
ERROR = 0x06
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
CONTROL = 0x0C
BIT_FRAMING = 0x0D
TX_CONTROL = 0x14
TX_ASK = 0x15
RF_CFG = 0x26
CW_GS_P = 0x28     # conductance of the drivers' P-channels for the carrier: the field strength
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37
# CWGsPReg: 6 bits, 0x3F the strongest field; 0x20 after reset (data sheet 9.3.3.7)
DRIVE_MAX = 0x3F

# Commands (CommandReg)
CMD_TRANSCEIVE = 0x0C
CMD_SOFT_RESET = 0x0F

# ControlReg: TStartNow starts the timer at once
T_START_NOW = 0x40
# TxControlReg: Tx1RFEn | Tx2RFEn drive the antenna; 0x80 (InvTx2RFOn) is the reset value
FIELD_OFF = 0x80
FIELD_ON = 0x83

# ComIrqReg bits
IRQ_TX = 0x40
IRQ_RX = 0x20
IRQ_IDLE = 0x10
IRQ_ERR = 0x02
IRQ_TIMER = 0x01
# ErrorReg bits that mean "something answered, but garbled"; CollErr: several tags answered
ERR_PARITY = 0x02
ERR_COLL = 0x08
ERR_GARBLED = 0x04 | ERR_PARITY | 0x01  # CRCErr, ParityErr, ProtocolErr
ERR_BUFFER_OVFL = 0x10

# ISO 14443-3 type A
WUPA = 0x52
REQA = 0x26
HLTA = 0x50
SEL_LEVELS = (0x93, 0x95, 0x97)
CASCADE_TAG = 0x88
SAK_UID_INCOMPLETE = 0x04

# VersionReg values of parts that work: 0x91 / 0x92 NXP MFRC522 v1.0 / v2.0, 0x88 the
# FM17522 clone, 0x82 another clone found on cheap modules. 0x00 / 0xFF: no SPI answer.
GOOD_VERSIONS = (0x91, 0x92, 0x88, 0x82)

# Timer: TAuto, prescaler 0x0A9 = 169 -> 13.56 MHz / (2*169+1) = 40 kHz, 25 us a tick.
# The no-card timeout: (11+1) * 25 us = 0.3 ms (see the module docstring), instead of the
# 25 ms of the common init (prescaler 0xD3E, reload 30).
TICK_US = 25
T_MODE_VALUE = 0x80
T_PRESCALER_VALUE = 0xA9
NO_CARD_US = 300
T_RELOAD_VALUE = NO_CARD_US // TICK_US - 1
# The field guard time (timed by the microcontroller, see wake()), and how long after leaving
# soft power-down the field comes on.
FIELD_GUARD_US = 5100
WAKE_US = 540
ATQA_WINDOW_US = 380
# CommandReg bit 4: soft power-down
POWER_DOWN = 0x10

# Read results
EMPTY = 0     # no tag answered WUPA
TAG = 1       # (TAG, uid)
FAULT = 2     # the reader itself did not behave (dead, unplugged, stuck)
STACK = 3     # two or more tags answered together (a pile of tiles on one cell)
GARBLED = 4   # something answered but the exchange failed: the tag is still there

_TIMEOUT = -1
_COLLISION = -2
# Register polls while waiting for one command. The MFRC522's own timer ends every
# transceive within 0.3 ms; a reader that never raises an interrupt is faulty.
_MAX_POLLS = 400


class _Fault(Exception):
    pass


def crc_a(data):
    """ISO 14443-3 CRC_A: preset 0x6363, reflected polynomial 0x8408 (x^16 + x^12 + x^5 + 1).

    Computed here rather than with the MFRC522's CalcCRC command: for these 1- to 7-byte
    frames that saves about nine SPI transactions per CRC.
    """
    crc = 0x6363
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def with_crc(frame):
    """The frame followed by its CRC_A, least significant byte first as sent on air."""
    crc = crc_a(frame)
    return bytes(frame) + bytes((crc & 0xFF, crc >> 8))


_HLTA_FRAME = with_crc(bytes((HLTA, 0)))


class MFRC522:
    def __init__(self, bus, drive=None):
        """`drive`: the CWGsPReg value init() sets (None: the reader's own 0x20)."""
        self.bus = bus
        layout = getattr(bus, "layout", None)
        if layout is None:
            self.reader_of = list(range(bus.cells))
            self.coil_of = bytes(bus.cells)
        else:
            self.reader_of, self.coil_of = layout
        self.readers = max(self.reader_of) + 1 if self.reader_of else 0
        self.coils = [[] for _ in range(self.readers)]  # per reader, the cell of each of its coils
        for cell in range(len(self.reader_of)):
            self.coils[self.reader_of[cell]].append(cell)
        for cells in self.coils:
            cells.sort(key=lambda c: self.coil_of[c])
        self.coil = 0  # the coil index the bus's select lines hold (0 from the board's boot)
        self.drive = drive
        self.awake = []  # cells whose reader is out of power-down with their coil on, in the order woken
        self.woke_at = {}  # cell -> bus.ticks_us() when its field came on
        self._on = {}  # reader -> its awake cell
        # Per reader: its FIFO may hold bytes of an exchange that ended early (flush it first);
        # its last frame got no answer, so the receiver still waits and the Transceive command is
        # issued again before the next frame (StartSend is documented after a reception only)
        self._dirty = bytearray(self.readers)
        self._waiting = bytearray(self.readers)

    def cells_of(self, reader):
        return [c for c in range(len(self.reader_of)) if self.reader_of[c] == reader]

    # --- register access ---------------------------------------------------------------

    def read(self, reader, reg):
        return self.bus.xfer(reader, bytes((0x80 | (reg << 1), 0)))[1]

    def read_regs(self, reader, *regs):
        """Several registers in one SPI transaction (each address byte fetches the next)."""
        data = bytes([0x80 | (reg << 1) for reg in regs] + [0])
        return self.bus.xfer(reader, data)[1:]

    def write(self, reader, reg, *values):
        self.bus.xfer(reader, bytes((reg << 1,) + values))

    def read_fifo(self, reader, n):
        addr = 0x80 | (FIFO_DATA << 1)
        return bytes(self.bus.xfer(reader, bytes([addr] * n + [0]))[1:])

    def write_fifo(self, reader, data):
        self.bus.xfer(reader, bytes((FIFO_DATA << 1,)) + bytes(data))

    # --- setup ---------------------------------------------------------------------------

    def version(self, reader):
        return self.read(reader, VERSION)

    def init(self, cell):
        """Soft-reset and configure the reader of `cell`, leaving it in soft power-down; True if
        its VersionReg names a working part. A reader that
        does not answer costs a few transactions, never a long poll (the boot self-test of
        every reader stays short)."""
        r = self.reader_of[cell]
        self._forget(r)
        self._dirty[r] = 0  # a soft reset empties the FIFO
        self._waiting[r] = 0
        self.write(r, COMMAND, CMD_SOFT_RESET)
        for _ in range(8):  # PowerDown (0x10) clears when the reset is done (~38 us)
            if not self.read(r, COMMAND) & POWER_DOWN:
                break
        else:
            return False
        if self.version(r) not in GOOD_VERSIONS:
            return False
        self.write(r, T_MODE, T_MODE_VALUE)
        self.write(r, T_PRESCALER, T_PRESCALER_VALUE)
        self.write(r, T_RELOAD_H, T_RELOAD_VALUE >> 8)
        self.write(r, T_RELOAD_L, T_RELOAD_VALUE & 0xFF)
        self.write(r, TX_ASK, 0x40)  # force 100 % ASK modulation (type A)
        self.write(r, RF_CFG, 0x70)  # receiver gain 48 dB
        if self.drive is not None:
            self.write(r, CW_GS_P, self.drive)
        ok = self.read(r, T_RELOAD_L) == T_RELOAD_VALUE  # the writes took
        # The drivers stay enabled: in soft power-down the clock stops, and with it the
        # field; leaving power-down is then the one write that switches the field on.
        self.write(r, TX_CONTROL, FIELD_ON)
        self.write(r, COMMAND, POWER_DOWN)
        return ok

    def set_drive(self, reader, drive):
        """The carrier's strength (CWGsPReg, 1..DRIVE_MAX): the bring-up's range test."""
        self.write(reader, CW_GS_P, drive)

    # --- power and RF field --------------------------------------------------------------

    def selected(self, cell):
        """The coil index puts this cell's coil on its reader's network."""
        cells = self.coils[self.reader_of[cell]]
        return cells[self.coil % len(cells)] == cell

    def select(self, cell):
        """Move the coil index to one that selects `cell` (keeping the index's higher bits for a
        reader of fewer coils): every awake reader's field moves to its coil of the new index,
        and that coil's guard time starts now."""
        n = len(self.coils[self.reader_of[cell]])
        index = self.coil - self.coil % n + self.coil_of[cell]
        if index == self.coil:
            return
        self.bus.select_coil(index)
        self.coil = index
        now = self.bus.ticks_us()
        awake = self.awake
        for i in range(len(awake)):
            old = awake[i]
            r = self.reader_of[old]
            cells = self.coils[r]
            new = cells[index % len(cells)]
            if new != old:
                self.woke_at[new] = max(now, self.woke_at.pop(old))
                awake[i] = new
                self._on[r] = new

    def wake(self, cell):
        """Move the coil index to the cell's coil if it selects another, and leave soft
        power-down: the clock restarts and the field comes on at that coil. The guard time runs
        from now, while the scanner reads other readers."""
        if not self.selected(cell):
            self.select(cell)
        if cell in self.woke_at:
            return
        r = self.reader_of[cell]
        self.woke_at[cell] = self.bus.ticks_us() + WAKE_US
        self.awake.append(cell)
        self._on[r] = cell
        # One write leaves power-down and arms the transceiver, which then waits for StartSend
        # (data sheet 10.3.1.8): the read needs no command write of its own.
        self.write(r, COMMAND, CMD_TRANSCEIVE)
        self._waiting[r] = 0

    def sleep(self, cell):
        """Soft power-down: clock, receiver and field off (the coil stays where the index puts
        it: with no field it carries nothing). A reader awake for another of its coils stays so."""
        r = self.reader_of[cell]
        other = self._on.get(r)
        if other is not None and other != cell:
            return
        if other is not None:
            del self.woke_at[cell]
            self.awake.remove(cell)
            del self._on[r]
        self.write(r, COMMAND, POWER_DOWN)

    def _forget(self, reader):
        cell = self._on.pop(reader, None)
        if cell is not None:
            del self.woke_at[cell]
            self.awake.remove(cell)

    def activate(self, cell):
        """Wake the cell if it sleeps (arming its reader's transceiver) and wait out what is
        left of its guard time; a FIFO an earlier exchange left bytes in is flushed."""
        self.wake(cell)
        self.bus.wait_us(self.woke_at[cell], FIELD_GUARD_US)
        r = self.reader_of[cell]
        if self._waiting[r]:
            self.write(r, COMMAND, CMD_TRANSCEIVE)
            self._waiting[r] = 0
        if self._dirty[r]:
            self.write(r, FIFO_LEVEL, 0x80)
            self._dirty[r] = 0

    # --- primitives ----------------------------------------------------------------------

    def _send(self, r, data, last_bits=0, clear=True):
        """Start a frame: the Transceive command keeps running between frames (StartSend
        starts each one, MFRC522 data sheet 10.3.1.8)."""
        if clear:
            self.write(r, COM_IRQ, 0x7F)       # clear every interrupt flag
        self.write_fifo(r, data)
        self.write(r, BIT_FRAMING, 0x80 | last_bits)  # StartSend

    def _receive(self, r, expect_reply=True):
        """The reply to the frame sent: its bytes, _TIMEOUT, _COLLISION, or None for a
        garbled reply."""
        done = IRQ_RX | IRQ_IDLE if expect_reply else IRQ_TX
        for _ in range(_MAX_POLLS):
            irq, error, level = self.read_regs(r, COM_IRQ, ERROR, FIFO_LEVEL)
            if irq & 0x80 or error & 0x20:
                raise _Fault()  # bits that read 0 on a working part: MISO is stuck high
            if irq & done:
                break
            if irq & IRQ_TIMER:
                self._waiting[r] = 1
                return _TIMEOUT
        else:
            raise _Fault()
        if not expect_reply:
            self._waiting[r] = 1  # sent, and nothing will answer: the receiver waits on
            return b""
        return self._reply(r, error, level)

    def _reply(self, r, error, level):
        if error & (ERR_COLL | ERR_GARBLED | ERR_BUFFER_OVFL):
            self._dirty[r] = 1  # what arrived stays in the FIFO
            return _COLLISION if error & ERR_COLL else None
        n = level & 0x7F
        return self.read_fifo(r, n) if n else None

    def _answer_to_wupa(self, r, sent_at):
        """The answer to a WUPA sent at `sent_at`, judged by the FIFO once ATQA_WINDOW_US
        have passed (see the module docstring)."""
        self.bus.wait_us(sent_at, ATQA_WINDOW_US)
        error, level, command = self.read_regs(r, ERROR, FIFO_LEVEL, COMMAND)
        if level & 0x80 or error & 0x20 or command & 0x0F != CMD_TRANSCEIVE:
            raise _Fault()  # MISO stuck high (bits that read 0), or a reader that does not answer
        if not level & 0x7F and not error & (ERR_COLL | ERR_GARBLED | ERR_BUFFER_OVFL):
            self._waiting[r] = 1
            return _TIMEOUT
        return self._reply(r, error, level)

    def _transceive(self, cell, data, last_bits=0, expect_reply=True):
        r = self.reader_of[cell]
        self._send(r, data, last_bits)
        return self._receive(r, expect_reply)

    # --- tag reading ---------------------------------------------------------------------

    def ready(self, cell):
        """The cell's field is on and its guard time over: a read starts at once."""
        at = self.woke_at.get(cell)
        return at is not None and self.bus.ticks_us() - at >= FIELD_GUARD_US

    def read_uid(self, cell, known=None):
        """(status, uid) for the tag(s) on this cell: (EMPTY, b""), (TAG, uid),
        (STACK, b""), (FAULT, b"") or (GARBLED, b"") when something answered but the
        exchange was corrupted. `known`: the UID the cell held; a WUPA answer alone then
        confirms it, returned as (TAG, known). The field stays on (sleep() ends it)."""
        return self.read_many((cell,), (known,))[0]

    def read_many(self, cells, knowns):
        """read_uid for cells of different readers at once: every reader's WUPA is sent
        before the first answer is collected, so their air times overlap."""
        started = []
        for cell in cells:
            try:
                self.activate(cell)
                # WUPA, not REQA: REQA wakes only IDLE tags, so a tag left HALTed or ACTIVE by
                # the previous read would stay silent and the cell would flip present/absent.
                self._send(self.reader_of[cell], bytes((WUPA,)), last_bits=7, clear=False)
                started.append(self.bus.ticks_us())
            except _Fault:
                self.sleep(cell)
                started.append(None)
        results = []
        for cell, known, sent_at in zip(cells, knowns, started):
            try:
                if sent_at is None:
                    raise _Fault()
                result = self._select(cell, known, self._answer_to_wupa(self.reader_of[cell], sent_at))
                if result[0] != EMPTY and not (known is not None and result[0] == TAG):
                    # HLTA after anything but a presence check: an ACTIVE tag goes to HALT, a
                    # READY one (a stack, a garbled exchange) back to IDLE, so that the WUPA
                    # of a quick re-read with the field still on wakes every tag again.
                    self._transceive(cell, _HLTA_FRAME, expect_reply=False)
                results.append(result)
            except _Fault:
                self.sleep(cell)
                results.append((FAULT, b""))
        return results

    def _select(self, cell, known, atqa):
        """The rest of a read, from the answer to WUPA."""
        if atqa == _TIMEOUT:
            return EMPTY, b""
        if atqa == _COLLISION:
            return STACK, b""
        if atqa is None or len(atqa) != 2:
            return GARBLED, b""
        if known is not None:
            # Left READY: a present answer is not re-read, and sleep() powers the tag off.
            return TAG, known
        uid = bytearray()
        for sel in SEL_LEVELS:
            part = self._transceive(cell, bytes((sel, 0x20)))  # anticollision, NVB = 2 bytes
            if part == _COLLISION:
                return STACK, b""
            if part == _TIMEOUT or part is None or len(part) != 5:
                return GARBLED, b""
            if part[0] ^ part[1] ^ part[2] ^ part[3] != part[4]:  # BCC
                return GARBLED, b""
            sak = self._transceive(cell, with_crc(bytes((sel, 0x70)) + part))  # select, NVB 7 bytes
            if sak == _TIMEOUT or sak == _COLLISION or sak is None or len(sak) != 3 or with_crc(sak[:1]) != sak:
                return GARBLED, b""
            if sak[0] & SAK_UID_INCOMPLETE:
                if part[0] != CASCADE_TAG:
                    return GARBLED, b""
                uid.extend(part[1:4])  # the first byte was the cascade tag, not UID
                continue
            uid.extend(part[:4])
            break
        else:
            return GARBLED, b""
        return TAG, bytes(uid)
