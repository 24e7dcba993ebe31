"""MFRC522 driver for an array of readers on one SPI bus, reading NTAG213 tile tags.

One driver object serves every reader: each call names the cell whose reader it talks to.
`bus.xfer(cell, data)` clocks `data` out on MOSI with that reader selected and returns the
bytes clocked in on MISO (same length). On the Pico the bus is SPI plus chip-select
decoders (main.py); in tests and the virtual tray it is the emulated array (emulator.py).

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
- Soft power-down exit: 1024 clock periods of the 27.12 MHz clock, 37.74 us (MFRC522 data
  sheet 8.8.2; the tray feeds an external clock to OSCIN, so no crystal start-up adds to it).
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
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37

# Commands (CommandReg)
CMD_IDLE = 0x00
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
# The field guard time (timed by the microcontroller, see wake()).
FIELD_GUARD_US = 5100
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
    def __init__(self, bus):
        self.bus = bus
        self.awake = []  # cells out of power-down with their field on, in the order woken
        self.woke_at = {}  # cell -> bus.ticks_us() when it was woken

    # --- register access ---------------------------------------------------------------

    def read(self, cell, reg):
        return self.bus.xfer(cell, bytes((0x80 | (reg << 1), 0)))[1]

    def read_regs(self, cell, *regs):
        """Several registers in one SPI transaction (each address byte fetches the next)."""
        data = bytes([0x80 | (reg << 1) for reg in regs] + [0])
        return self.bus.xfer(cell, data)[1:]

    def write(self, cell, reg, *values):
        self.bus.xfer(cell, bytes((reg << 1,) + values))

    def read_fifo(self, cell, n):
        addr = 0x80 | (FIFO_DATA << 1)
        return bytes(self.bus.xfer(cell, bytes([addr] * n + [0]))[1:])

    def write_fifo(self, cell, data):
        self.bus.xfer(cell, bytes((FIFO_DATA << 1,)) + bytes(data))

    # --- setup ---------------------------------------------------------------------------

    def version(self, cell):
        return self.read(cell, VERSION)

    def init(self, cell):
        """Soft-reset and configure one reader, leaving it in soft power-down; True if its
        VersionReg names a working part. A reader that does not answer costs a few
        transactions, never a long poll (the boot self-test of every reader stays short)."""
        self.write(cell, COMMAND, CMD_SOFT_RESET)
        for _ in range(8):  # PowerDown (0x10) clears when the reset is done (~38 us)
            if not self.read(cell, COMMAND) & POWER_DOWN:
                break
        else:
            return False
        if self.version(cell) not in GOOD_VERSIONS:
            return False
        self.write(cell, T_MODE, T_MODE_VALUE)
        self.write(cell, T_PRESCALER, T_PRESCALER_VALUE)
        self.write(cell, T_RELOAD_H, T_RELOAD_VALUE >> 8)
        self.write(cell, T_RELOAD_L, T_RELOAD_VALUE & 0xFF)
        self.write(cell, TX_ASK, 0x40)  # force 100 % ASK modulation (type A)
        self.write(cell, RF_CFG, 0x70)  # receiver gain 48 dB
        ok = self.read(cell, T_RELOAD_L) == T_RELOAD_VALUE  # the writes took
        # The drivers stay enabled: in soft power-down the clock stops, and with it the
        # field; leaving power-down is then the one write that switches the field on.
        self.write(cell, TX_CONTROL, FIELD_ON)
        self.write(cell, COMMAND, POWER_DOWN)
        return ok

    # --- power and RF field --------------------------------------------------------------

    def wake(self, cell):
        """Leave soft power-down: the clock restarts and the field comes on. The guard
        time runs from now, while the scanner reads other readers."""
        if cell in self.woke_at:
            return
        self.woke_at[cell] = self.bus.ticks_us()
        self.awake.append(cell)
        self.write(cell, COMMAND, CMD_IDLE)

    def sleep(self, cell):
        """Soft power-down: clock, receiver and field off."""
        if cell in self.woke_at:
            del self.woke_at[cell]
            self.awake.remove(cell)
        self.write(cell, COMMAND, POWER_DOWN)

    def activate(self, cell):
        """Wake the reader if it sleeps, wait out what is left of its guard time, and
        (re)start its transceiver with an empty FIFO."""
        self.wake(cell)
        self.bus.wait_us(self.woke_at[cell], FIELD_GUARD_US)
        self.write(cell, COMMAND, CMD_TRANSCEIVE)
        self.write(cell, FIFO_LEVEL, 0x80)

    # --- primitives ----------------------------------------------------------------------

    def _transceive(self, cell, data, last_bits=0, expect_reply=True):
        """Send a frame; returns the reply bytes, _TIMEOUT, _COLLISION, or None for a
        garbled reply. The Transceive command keeps running between frames (StartSend
        starts each one, MFRC522 data sheet 10.3.1.8)."""
        self.write(cell, COM_IRQ, 0x7F)       # clear every interrupt flag
        self.write_fifo(cell, data)
        self.write(cell, BIT_FRAMING, 0x80 | last_bits)  # StartSend
        done = IRQ_RX | IRQ_IDLE if expect_reply else IRQ_TX
        for _ in range(_MAX_POLLS):
            irq, error, level = self.read_regs(cell, COM_IRQ, ERROR, FIFO_LEVEL)
            if irq & 0x80 or error & 0x20:
                raise _Fault()  # bits that read 0 on a working part: MISO is stuck high
            if irq & done:
                break
            if irq & IRQ_TIMER:
                return _TIMEOUT
        else:
            raise _Fault()
        if not expect_reply:
            return b""
        if error & ERR_COLL:
            return _COLLISION
        if error & (ERR_GARBLED | ERR_BUFFER_OVFL):
            return None
        n = level & 0x7F
        return self.read_fifo(cell, n) if n else None

    # --- tag reading ---------------------------------------------------------------------

    def read_uid(self, cell, known=None):
        """(status, uid) for the tag(s) on this reader: (EMPTY, b""), (TAG, uid),
        (STACK, b""), (FAULT, b"") or (GARBLED, b"") when something answered but the
        exchange was corrupted. `known`: the UID the cell held; a WUPA answer alone then
        confirms it, returned as (TAG, known). The field stays on (sleep() ends it)."""
        try:
            self.activate(cell)
            result = self._select(cell, known)
            if result[0] != EMPTY and not (known is not None and result[0] == TAG):
                # HLTA after anything but a presence check: an ACTIVE tag goes to HALT, a
                # READY one (a stack, a garbled exchange) back to IDLE, so that the WUPA
                # of a quick re-read with the field still on wakes every tag again.
                self._transceive(cell, _HLTA_FRAME, expect_reply=False)
            return result
        except _Fault:
            self.sleep(cell)
            return FAULT, b""

    def _select(self, cell, known):
        # WUPA, not REQA: REQA wakes only IDLE tags, so a tag left HALTed or ACTIVE by the
        # previous read would stay silent and the cell would flip present/absent.
        atqa = self._transceive(cell, bytes((WUPA,)), last_bits=7)
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
