"""An emulated array of MFRC522 readers with NTAG213 tags, at register and FIFO level.

Not deployed to the Pico: tests and the host's virtual tray use it in place of the real
bus. It speaks the same `xfer(cell, data)` SPI interface as the Pico bus in main.py, decodes
the MFRC522 address bytes, and implements the registers the driver uses, the FIFO, the
interrupt and error flags, the timer, soft reset and the Transceive command against an
ISO 14443-3 tag state machine (IDLE / READY / ACTIVE / HALT, cascade levels with cascade tag
0x88; unexpected frames send a tag back to IDLE or HALT). Runs unchanged under CPython and
MicroPython.

RF field: a tag is powered only while its reader's field is on (TxControlReg Tx1RFEn or
Tx2RFEn) and answers nothing until TAG_POWER_UP_US after the field comes on, the longest
ISO/IEC 14443-3 allows. A field that was off for more than TAG_HOLD_US leaves the tag
unpowered: it starts again in IDLE. Through a shorter gap (the same cell read again at
once) it keeps its state, as a real tag's supply capacitor would carry it.
`fields_on()` and `most_fields_on` let tests check which fields are on together.

Soft power-down (CommandReg PowerDown): the reader's field is off whatever TxControlReg
says, and it starts no command; clearing the bit brings it back after SOFT_PD_EXIT_US, while
PowerDown still reads 1. `awake()` lists the readers out of power-down (the power model).

Stacks: several tags may lie on one reader (`stack`). They answer together; where their
answers differ bit by bit the reader sees a collision (ErrorReg CollErr), as the Manchester
coding of ISO/IEC 14443-3 type A shows it.

Time is virtual: `now_us` advances by the cost of every SPI transaction and by the air time
of each frame. A poll of ComIrqReg while a command runs advances the clock to that command's
next event, as the driver's busy-wait would on hardware. The constants below are the timing model; the
driver's own timings (guard time, no-card timeout) are in mfrc522.py with their sources.
"""

from dominotray import mfrc522 as M

# Timing model
XFER_US = 65        # one SPI transaction from MicroPython: call overhead + decoder pins
BYTE_US = 2         # 8 bits at 4 MHz
BIT_US = 9.44       # one bit on air at 106 kbit/s (128 / 13.56 MHz)
FDT_US = 90         # tag frame delay time
RESET_US = 50       # soft reset until the oscillator runs again
FC_MHZ = 13.56
TAG_POWER_UP_US = 5000  # field on until the tag accepts WUPA (ISO/IEC 14443-3: at most 5 ms)
TAG_HOLD_US = 500       # a field gap the tag's state survives (an assumed figure)
SOFT_PD_EXIT_US = 37.74  # 1024 periods of 27.12 MHz (MFRC522 data sheet 8.8.2, external clock)

ATQA_NTAG = b"\x44\x00"
SAK_DONE = 0x00     # NTAG213: UID complete, not ISO 14443-4

# Tag states
IDLE = 0
READY = 1
ACTIVE = 2
HALT = 3

def _name(frame, last_bits):
    """A PICC command's name, for the reader's log."""
    if last_bits == 7 and len(frame) == 1:
        return {M.WUPA: "WUPA", M.REQA: "REQA"}.get(frame[0], "SHORT")
    if frame and frame[0] == M.HLTA:
        return "HLTA"
    if len(frame) >= 2 and frame[0] in M.SEL_LEVELS:
        kind = "SEL" if frame[1] == 0x70 else "ANTICOLL"
        return kind + str(M.SEL_LEVELS.index(frame[0]) + 1)
    return "OTHER"


class Tag:
    """An NTAG213's ISO 14443-3 anticollision state machine."""

    def __init__(self, uid):
        if len(uid) not in (4, 7, 10):
            raise ValueError("a type A UID has 4, 7 or 10 bytes, not %d" % len(uid))
        self.uid = bytes(uid)
        self.state = IDLE
        self.home = IDLE   # where an unexpected frame sends it: IDLE, or HALT once halted
        self.level = 0

    def levels(self):
        """The 4 bytes sent at each cascade level (cascade tag 0x88 before 3 UID bytes)."""
        u = self.uid
        if len(u) == 4:
            return [u]
        if len(u) == 7:
            return [bytes((M.CASCADE_TAG,)) + u[:3], u[3:]]
        return [bytes((M.CASCADE_TAG,)) + u[:3], bytes((M.CASCADE_TAG,)) + u[3:6], u[6:]]

    def _reject(self):
        self.state = self.home
        return None

    def receive(self, frame, last_bits):
        """The reply to one frame from the reader, or None for silence."""
        if last_bits == 7 and len(frame) == 1:
            cmd = frame[0] & 0x7F
            if (cmd == M.WUPA and self.state in (IDLE, HALT)) or (cmd == M.REQA and self.state == IDLE):
                self.state = READY
                self.level = 0
                return ATQA_NTAG
            return self._reject()
        if last_bits != 0 or not frame:
            return self._reject()
        levels = self.levels()
        if self.state == READY and len(frame) == 2 and frame[0] == M.SEL_LEVELS[self.level] and frame[1] == 0x20:
            part = levels[self.level]
            return part + bytes((part[0] ^ part[1] ^ part[2] ^ part[3],))
        if self.state == READY and len(frame) == 9 and frame[0] == M.SEL_LEVELS[self.level] and frame[1] == 0x70:
            part = levels[self.level]
            if M.with_crc(frame[:7]) != frame or frame[2:6] != part:
                return self._reject()
            self.level += 1
            if self.level < len(levels):
                sak = M.SAK_UID_INCOMPLETE
            else:
                sak = SAK_DONE
                self.state = ACTIVE
            return M.with_crc(bytes((sak,)))
        if self.state == ACTIVE and len(frame) == 4 and frame[0] == M.HLTA and frame[1] == 0:
            if M.with_crc(frame[:2]) == frame:
                self.state = self.home = HALT
                return None
        return self._reject()


class Reader:
    """One emulated MFRC522 and whatever tags lie on its antenna."""

    def __init__(self, version=0x92):
        self.version = version
        self.dead = False
        self.tags = []  # bottom first
        self.powered_down = False
        self.awake_at = 0  # now_us when it has left soft power-down
        self.field_since = None  # now_us when the field came on; None while it is off
        self.field_off_at = None  # now_us when it went off; None: never on
        self.ready_at = 0  # now_us from which the tag is powered up and answers
        self.flicker = 0.0
        self.crc_errors = 0
        self.parity_errors = 0
        self.log = []  # the last PICC commands sent: "WUPA", "REQA", "ANTICOLL1", "SEL2", "HLTA"...
        self.reset()

    @property
    def tag(self):
        return self.tags[0] if self.tags else None

    def reset(self):
        self.powered_down = False
        self.regs = bytearray(64)
        self.regs[M.COMMAND] = 0x20
        self.regs[M.TX_CONTROL] = 0x80
        self.regs[M.VERSION] = self.version
        self.fifo = []
        self.events = []  # the running command's coming (time_us, irq bits, reply, error bits)


class ReaderArray:
    """`cells` emulated readers on one bus, with a virtual clock and fault injection."""

    def __init__(self, cells, seed=12345):
        self.cells = cells
        self.readers = [Reader() for _ in range(cells)]
        self.now_us = 0
        self._rand = seed & 0xFFFFFFFF or 1
        self.xfers = 0
        self.miso_stuck_high = False  # a short to 3.3 V: every byte reads 0xFF
        self.most_fields_on = 0  # the most fields ever on at once (tests may reset it)
        self._fields = 0

    # --- control API (tests, virtual tray, benchmark) ------------------------------------

    def place(self, cell, uid):
        """Put a tag on an empty reader (or in place of what lies there)."""
        reader = self._reader(cell)
        reader.tags = [Tag(uid)]
        reader.ready_at = self.now_us + TAG_POWER_UP_US  # powers up if the field is on

    def stack(self, cell, uid):
        """Put one more tag on top of whatever lies on this reader."""
        reader = self._reader(cell)
        reader.tags.append(Tag(uid))
        reader.ready_at = self.now_us + TAG_POWER_UP_US

    def fields_on(self):
        """The cells whose reader has its RF field on."""
        return [cell for cell in range(self.cells) if self.readers[cell].field_since is not None]

    def awake(self):
        """The cells whose reader is out of soft power-down."""
        return [cell for cell in range(self.cells) if not self.readers[cell].powered_down]

    def remove(self, cell, uid=None):
        """Take every tag off this reader, or only the one with `uid` (from a stack)."""
        reader = self._reader(cell)
        reader.tags = [] if uid is None else [t for t in reader.tags if t.uid != uid]

    def uid_at(self, cell):
        tag = self._reader(cell).tag
        return None if tag is None else tag.uid

    def uids_at(self, cell):
        return [tag.uid for tag in self._reader(cell).tags]

    def set_dead(self, cell, dead=True):
        self._reader(cell).dead = bool(dead)

    def set_version(self, cell, version):
        reader = self._reader(cell)
        reader.version = reader.regs[M.VERSION] = version

    def set_flicker(self, cell, probability):
        """Each wake-up of this cell's tag is missed with this probability (a marginal tag)."""
        self._reader(cell).flicker = probability

    def inject_crc_errors(self, cell, count):
        """Corrupt the CRC of the next `count` CRC-protected replies (SAK) from this cell."""
        self._reader(cell).crc_errors += count

    def inject_parity_errors(self, cell, count):
        """The next `count` replies from this cell's tag arrive with a parity error."""
        self._reader(cell).parity_errors += count

    def clock_ms(self):
        return int(self.now_us // 1000)

    # The bus's clock for the driver's guard times: the Pico's time.ticks_us / sleep_us.
    def ticks_us(self):
        return self.now_us

    def wait_us(self, since, us):
        self.now_us = max(self.now_us, since + us)

    def advance_ms(self, ms):
        self.now_us += ms * 1000

    def _reader(self, cell):
        if not 0 <= cell < self.cells:
            raise IndexError("no reader at cell %d (0..%d)" % (cell, self.cells - 1))
        return self.readers[cell]

    def _random(self):
        x = self._rand  # xorshift32
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self._rand = x
        return x / 4294967296.0

    # --- the SPI bus ---------------------------------------------------------------------

    def xfer(self, cell, data):
        reader = self._reader(cell)
        self.xfers += 1
        self.now_us += XFER_US + BYTE_US * len(data)
        if self.miso_stuck_high:
            return b"\xff" * len(data)
        out = bytearray(len(data))
        if reader.dead or not data:
            return bytes(out)  # MISO buffer disabled / pulled low: reads 0x00
        self._settle(reader)
        if data[0] & 0x80:  # read: each address byte fetches the register for the next slot
            for i in range(len(data) - 1):
                out[i + 1] = self._read_reg(reader, (data[i] >> 1) & 0x3F)
        else:
            reg = (data[0] >> 1) & 0x3F
            for value in data[1:]:
                self._write_reg(reader, reg, value)
        return bytes(out)

    def _settle(self, reader):
        while reader.events and reader.events[0][0] <= self.now_us:
            self._apply(reader, reader.events.pop(0))

    def _apply(self, reader, event):
        _, irq, reply, error = event
        regs = reader.regs
        regs[M.COM_IRQ] |= irq
        regs[M.ERROR] |= error
        if reply is not None:
            reader.fifo.extend(reply)

    def _read_reg(self, reader, reg):
        if reg == M.COM_IRQ and reader.events:
            # The driver busy-waits on this: let time run to the command's next event.
            event = reader.events.pop(0)
            self.now_us = max(self.now_us, event[0])
            self._apply(reader, event)
        if reg == M.COMMAND and not reader.powered_down and self.now_us < reader.awake_at:
            return reader.regs[reg] | M.POWER_DOWN  # still waking up
        if reg == M.FIFO_DATA:
            return reader.fifo.pop(0) if reader.fifo else 0
        if reg == M.FIFO_LEVEL:
            return min(len(reader.fifo), 64)
        return reader.regs[reg]

    def _write_reg(self, reader, reg, value):
        regs = reader.regs
        if reg == M.FIFO_DATA:
            if len(reader.fifo) < 64:
                reader.fifo.append(value)
            else:
                regs[M.ERROR] |= M.ERR_BUFFER_OVFL
        elif reg == M.FIFO_LEVEL:
            if value & 0x80:
                reader.fifo = []
        elif reg == M.COM_IRQ:  # bit 7 set: set the marked bits, else clear them
            if value & 0x80:
                regs[reg] |= value & 0x7F
            else:
                regs[reg] &= ~value & 0xFF
        elif reg == M.COMMAND:
            self._command(reader, value)
        elif reg == M.BIT_FRAMING:
            regs[reg] = value & 0x7F
            if value & 0x80 and regs[M.COMMAND] & 0x0F == M.CMD_TRANSCEIVE and not reader.powered_down:
                self._transceive(reader)
        elif reg == M.TX_CONTROL:
            regs[reg] = value
            self._field(reader, value & 0x03 and not reader.powered_down)
        elif reg == M.CONTROL:
            if value & M.T_START_NOW and not reader.powered_down:
                self._add_event(reader, (self.now_us + self._timer_us(reader), M.IRQ_TIMER, None, 0))
            regs[reg] = value & 0x07
        elif reg != M.VERSION:
            regs[reg] = value

    def _field(self, reader, on):
        if bool(on) == (reader.field_since is not None):
            return
        if on:
            since = max(self.now_us, reader.awake_at)  # the transmitter runs once the clock does
            reader.field_since = since
            if reader.field_off_at is None or since - reader.field_off_at > TAG_HOLD_US:
                reader.ready_at = since + TAG_POWER_UP_US
                for tag in reader.tags:
                    tag.state = tag.home = IDLE  # a fresh power-up
            self._fields += 1
            self.most_fields_on = max(self.most_fields_on, self._fields)
        else:
            reader.field_since = None
            reader.field_off_at = self.now_us
            self._fields -= 1

    def _add_event(self, reader, event):
        i = 0
        while i < len(reader.events) and reader.events[i][0] <= event[0]:
            i += 1
        reader.events.insert(i, event)

    def _command(self, reader, value):
        regs = reader.regs
        cmd = value & 0x0F
        reader.events = []  # any new command stops the running one
        if cmd == M.CMD_SOFT_RESET:
            self._field(reader, False)  # TxControlReg goes back to antennas off
            reader.reset()
            self.now_us += RESET_US
            return
        down = bool(value & M.POWER_DOWN)
        if down and not reader.powered_down:
            self._field(reader, False)
        elif reader.powered_down and not down:
            reader.awake_at = self.now_us + SOFT_PD_EXIT_US
        reader.powered_down = down
        if not down and regs[M.TX_CONTROL] & 0x03:
            self._field(reader, True)
        regs[M.COMMAND] = (regs[M.COMMAND] & 0xE0) | (value & M.POWER_DOWN) | cmd

    def _timer_us(self, reader):
        regs = reader.regs
        prescaler = (regs[M.T_MODE] & 0x0F) << 8 | regs[M.T_PRESCALER]
        reload = regs[M.T_RELOAD_H] << 8 | regs[M.T_RELOAD_L]
        return (reload + 1) * (2 * prescaler + 1) / FC_MHZ

    def _transceive(self, reader):
        regs = reader.regs
        frame = bytes(reader.fifo)
        last_bits = regs[M.BIT_FRAMING] & 0x07
        reader.fifo = []
        regs[M.ERROR] = 0
        bits = len(frame) * 9 - ((8 - last_bits) if last_bits else 0)
        t_tx = self.now_us + (bits + 2) * BIT_US
        reader.events = [(t_tx, M.IRQ_TX, None, 0)]
        reply, collided = self._tag_reply(reader, frame, last_bits)
        if collided:
            t_rx = t_tx + FDT_US + (len(reply) * 9 + 2) * BIT_US
            reader.events.append((t_rx, M.IRQ_RX | M.IRQ_IDLE | M.IRQ_ERR, reply, M.ERR_COLL))
            return
        if reply is None:
            if regs[M.T_MODE] & 0x80:  # TAuto: the timer starts when transmission ends
                reader.events.append((t_tx + self._timer_us(reader), M.IRQ_TIMER, None, 0))
            return
        irq = M.IRQ_RX | M.IRQ_IDLE
        error = 0
        if len(reply) == 3 and reader.crc_errors:
            reader.crc_errors -= 1
            reply = reply[:1] + bytes((reply[1] ^ 0x5A, reply[2]))
        elif reader.parity_errors:
            reader.parity_errors -= 1
            irq |= M.IRQ_ERR
            error = M.ERR_PARITY
        t_rx = t_tx + FDT_US + (len(reply) * 9 + 2) * BIT_US
        reader.events.append((t_rx, irq, reply, error))

    def _tag_reply(self, reader, frame, last_bits):
        """(reply or None, collided): every tag hears the frame; differing replies collide."""
        reader.log.append(_name(frame, last_bits))
        del reader.log[:-16]
        if not reader.tags or reader.field_since is None or self.now_us < reader.ready_at:
            return None, False  # no tag, no field, or the tags are still powering up
        if last_bits == 7 and reader.flicker and self._random() < reader.flicker:
            return None, False
        replies = [r for r in [tag.receive(frame, last_bits) for tag in reader.tags] if r is not None]
        if not replies:
            return None, False
        first = replies[0]
        if all(r == first for r in replies):
            return first, False  # identical answers (every NTAG's ATQA) superpose cleanly
        return first, True
