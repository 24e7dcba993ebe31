"""MFRC522 driver for an array of readers on one SPI bus, reading NTAG213 tile tags.

One driver object serves every reader: each call names the cell whose reader it talks to.
`bus.xfer(cell, data)` clocks `data` out on MOSI with that reader selected and returns the
bytes clocked in on MISO (same length). On the Pico the bus is SPI plus chip-select
decoders (main.py); in tests and the virtual tray it is the emulated array (emulator.py).

Register map, command set and SPI framing follow the NXP MFRC522 data sheet: an address byte
is (reg << 1), with bit 7 set for a read; a read returns register n's value during byte n+1.
The tag side follows ISO/IEC 14443-3 type A (WUPA, anticollision/select cascade, HLTA).

RF field: 194 antennas 25 mm apart would disturb each other and draw amperes if all were on,
so a reader's field (TxControlReg Tx1RFEn/Tx2RFEn) is on only while `read_uid` reads it.
A tag powered up by a fresh field need not answer for 5 ms (ISO/IEC 14443-3 lets a PICC
take that long before it accepts REQA/WUPA; the standard has the reader hold an unmodulated
field for at least 5.1 ms first), so every read waits FIELD_GUARD_US before its WUPA.

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
# ErrorReg bits that mean "something answered, but garbled"
ERR_PARITY = 0x02
ERR_GARBLED = 0x08 | 0x04 | ERR_PARITY | 0x01  # CollErr, CRCErr, ParityErr, ProtocolErr
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
# Reload 59 -> (59+1) * 25 us = 1.5 ms. A tag answers WUPA, anticollision and select within
# about 0.1 ms, so 1.5 ms is ample, and an empty cell costs that instead of the 15 ms of the
# common init (prescaler 0xD3E, reload 30).
T_MODE_VALUE = 0x80
T_PRESCALER_VALUE = 0xA9
T_RELOAD_VALUE = 59
# The field guard time, timed by the same timer: (203+1) * 25 us = 5.1 ms.
FIELD_GUARD_US = 5100
T_RELOAD_GUARD = FIELD_GUARD_US // 25 - 1

# Read results
EMPTY = 0     # no tag answered WUPA
TAG = 1       # (TAG, uid)
FAULT = 2     # the reader itself did not behave (dead, unplugged, stuck)
GARBLED = 3   # something answered but the exchange failed: the tag is still there

_TIMEOUT = -1
# Register polls while waiting for one command. The MFRC522's own timer ends every
# transceive within 1.5 ms; a reader that never raises an interrupt is faulty.
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

    # --- register access ---------------------------------------------------------------

    def read(self, cell, reg):
        return self.bus.xfer(cell, bytes((0x80 | (reg << 1), 0)))[1]

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
        """Soft-reset and configure one reader; True if its VersionReg names a working part."""
        self.write(cell, COMMAND, CMD_SOFT_RESET)
        for _ in range(_MAX_POLLS):  # PowerDown bit (0x10) clears when the reset is done
            if not self.read(cell, COMMAND) & 0x10:
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
        self.write(cell, TX_CONTROL, FIELD_OFF)  # on only while a read needs it
        return self.read(cell, T_RELOAD_L) == T_RELOAD_VALUE  # the writes took

    # --- RF field ------------------------------------------------------------------------

    def field_on(self, cell):
        """Switch this reader's field on and wait out the tag power-up guard time.

        The wait runs on the reader's own timer (TStartNow, polled like a transceive),
        not on a sleep of the host: the driver keeps to the bus interface, and the
        emulated readers account for the time exactly as for any other command."""
        self.write(cell, TX_CONTROL, FIELD_ON)
        self.write(cell, T_RELOAD_L, T_RELOAD_GUARD)
        self.write(cell, COM_IRQ, 0x7F)
        self.write(cell, CONTROL, T_START_NOW)
        for _ in range(_MAX_POLLS * 4):  # 5.1 ms instead of a transceive's 1.5 ms
            if self.read(cell, COM_IRQ) & IRQ_TIMER:
                break
        else:
            raise _Fault()
        self.write(cell, T_RELOAD_L, T_RELOAD_VALUE)

    def field_off(self, cell):
        self.write(cell, TX_CONTROL, FIELD_OFF)

    # --- primitives ----------------------------------------------------------------------

    def _transceive(self, cell, data, last_bits=0, expect_reply=True):
        """Send a frame; returns the reply bytes, _TIMEOUT, or None for a garbled reply."""
        self.write(cell, COMMAND, CMD_IDLE)
        self.write(cell, COM_IRQ, 0x7F)       # clear every interrupt flag
        self.write(cell, FIFO_LEVEL, 0x80)    # flush the FIFO
        self.write_fifo(cell, data)
        self.write(cell, COMMAND, CMD_TRANSCEIVE)
        self.write(cell, BIT_FRAMING, 0x80 | last_bits)  # StartSend
        done = IRQ_RX | IRQ_IDLE if expect_reply else IRQ_TX
        for _ in range(_MAX_POLLS):
            irq = self.read(cell, COM_IRQ)
            if irq & done:
                break
            if irq & IRQ_TIMER:
                self.write(cell, BIT_FRAMING, 0)
                return _TIMEOUT
        else:
            raise _Fault()
        self.write(cell, BIT_FRAMING, 0)
        if not expect_reply:
            return b""
        error = self.read(cell, ERROR)
        if error & (ERR_GARBLED | ERR_BUFFER_OVFL):
            return None
        n = self.read(cell, FIFO_LEVEL) & 0x7F
        return self.read_fifo(cell, n) if n else None

    # --- tag reading ---------------------------------------------------------------------

    def read_uid(self, cell):
        """(status, uid) for the tag on this reader: (EMPTY, b""), (TAG, uid), (FAULT, b"")
        or (GARBLED, b"") when something answered but the exchange was corrupted.
        The reader's field is on only during the call."""
        try:
            try:
                self.field_on(cell)
                result = self._select(cell)
                if result[0] != EMPTY:
                    # HALT the tag even after a garbled exchange: a tag left READY or
                    # ACTIVE keeps that state through a short field gap (an immediate
                    # re-read) and would ignore the next WUPA, reading empty once.
                    self._transceive(cell, _HLTA_FRAME, expect_reply=False)
                return result
            finally:
                self.field_off(cell)  # also after a fault
        except _Fault:
            return FAULT, b""

    def _select(self, cell):
        # WUPA, not REQA: REQA wakes only IDLE tags, so a tag left HALTed or ACTIVE by the
        # previous read would stay silent and the cell would flip present/absent.
        atqa = self._transceive(cell, bytes((WUPA,)), last_bits=7)
        if atqa == _TIMEOUT:
            return EMPTY, b""
        if atqa is None or len(atqa) != 2:
            return GARBLED, b""
        uid = bytearray()
        for sel in SEL_LEVELS:
            part = self._transceive(cell, bytes((sel, 0x20)))  # anticollision, NVB = 2 bytes
            if part == _TIMEOUT or part is None or len(part) != 5:
                return GARBLED, b""
            if part[0] ^ part[1] ^ part[2] ^ part[3] != part[4]:  # BCC
                return GARBLED, b""
            sak = self._transceive(cell, with_crc(bytes((sel, 0x70)) + part))  # select, NVB 7 bytes
            if sak == _TIMEOUT or sak is None or len(sak) != 3 or with_crc(sak[:1]) != sak:
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
