"""An emulated array of MFRC522 readers with NTAG213 tags, at register and FIFO level, and the
cells' LED chains as the LEDs would show what the firmware writes (`LightChains`).

Not deployed to the Pico: tests and the host's virtual tray use it in place of the real
bus. It speaks the same `xfer(cell, data)` SPI interface as the Pico bus in main.py, decodes
the MFRC522 address bytes, and implements the registers the driver uses, the FIFO, the
interrupt and error flags, the timer, soft reset and the Transceive command against an
ISO 14443-3 tag state machine (IDLE / READY / ACTIVE / HALT, cascade levels with cascade tag
0x88; unexpected frames send a tag back to IDLE or HALT). Runs unchanged under CPython and
MicroPython.

Readers and coils: `layout` gives each cell's reader and its coil on that reader (None: a
reader per cell, its coil hard-wired). The coil index (`select_coil`, the two select lines of
hardware/wiring.toml [coils]) connects coil index % n of every reader with n coils and shorts the
others; tags lie on cells, that is on coils. `xfer(reader, data)` is the SPI bus.

RF field: a tag is powered only while its coil carries the field (its reader's TxControlReg
Tx1RFEn or Tx2RFEn, out of power-down, the coil connected) and answers nothing until
TAG_POWER_UP_US after the field comes on, the longest ISO/IEC 14443-3 allows. A field that
was off for more than TAG_HOLD_US leaves the tag unpowered: it starts again in IDLE. Through a
shorter gap (the same cell read again at once) it keeps its state, as a real tag's supply
capacitor would carry it. `fields_on()` and `most_fields_on` let tests check which coils carry
a field together.

Field strength: a tag answers only if the field reaches its threshold: the drive (CWGsPReg,
0..63) times FULL_DRIVE_MARGIN (a centred face-up tag's field over its threshold at full drive,
from the RF model: hardware/DESIGN.md) times the cell's coupling (1; less for a detuned or
shorted coil: `set_coupling`) times FACE_DOWN for a tag read through its tile. Faults for the
bring-up: a dead reader, a detuned or shorted coil, a switch stuck on the network (its coil stays on
the reader's network, so its tags answer for the reader's other coils: `set_stuck`), slow SPI
(`xfer_us`).

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
from dominotray import pins

# Timing model
XFER_US = 65        # one SPI transaction from MicroPython: call overhead + decoder pins (assumed;
#                     tray bringup measures it; benchmarks/tray_latency.py runs 65-150)
BYTE_US = 2         # 8 bits at 4 MHz
BIT_US = 9.44       # one bit on air at 106 kbit/s (128 / 13.56 MHz)
FDT_US = 90         # tag frame delay time
RESET_US = 50       # soft reset until the oscillator runs again
FC_MHZ = 13.56
TAG_POWER_UP_US = 5000  # field on until the tag accepts WUPA (ISO/IEC 14443-3: at most 5 ms)
TAG_HOLD_US = 500       # a field gap the tag's state survives (an assumed figure)
# Leaving soft power-down: the reader's own 27.12 MHz crystal restarts, then 1024 clock periods
# (37.74 us, MFRC522 data sheet 8.8.2). The crystal's start-up is an assumed figure (typical of
# a 3225 fundamental crystal); the field comes on only then, so it adds to each cold read's guard.
SOFT_PD_EXIT_US = 537.74
SELECT_US = 20      # the coil index's two GPIO writes from MicroPython (assumed, as XFER_US)
# Field strength (see above): a centred face-up tag at full drive has FULL_DRIVE_MARGIN times its
# threshold field; through its tile (face down) FACE_DOWN of that (the tag at the tile's
# mid-thickness: the same). From the RF model of the chosen coil (hardware/design.py;
# tests/hardware/test_hardware.py keeps them in step).
FULL_DRIVE_MARGIN = 9.2
FACE_DOWN = 1.0

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
    """One emulated MFRC522: registers, FIFO, the running command, and its field."""

    def __init__(self, coils, version=0x92):
        self.coils = coils  # the cells of its coils, coil k at index k
        self.version = version
        self.dead = False
        self.powered_down = False
        self.awake_at = 0  # now_us when it has left soft power-down
        self.field = False  # its transmitter drives the antenna network
        self.on = []  # the cells whose coil carries its field
        # a frame got no answer: the receiver waits on, and StartSend is not taken again until
        # the Transceive command is issued anew (the data sheet documents StartSend between
        # frames only after a reception: the emulator takes the strict reading)
        self.rx_wait = False
        self.log = []  # the last PICC commands sent: "WUPA", "REQA", "ANTICOLL1", "SEL2", "HLTA"...
        self.reset()

    def reset(self):
        self.powered_down = False
        self.regs = bytearray(64)
        self.regs[M.COMMAND] = 0x20
        self.regs[M.TX_CONTROL] = 0x80
        self.regs[M.CW_GS_P] = 0x20
        self.regs[M.VERSION] = self.version
        self.fifo = []
        self.events = []  # the running command's coming (time_us, irq bits, reply, error bits)

    def connected(self, coils, index):
        """The cells whose coil is on this reader's network now, at coil index `index`."""
        if len(self.coils) == 1:
            return self.coils
        chosen = self.coils[index % len(self.coils)]
        return [cell for cell in self.coils if cell == chosen or coils[cell].stuck]


class Coil:
    """A cell's coil and whatever tags lie on it."""

    def __init__(self):
        self.tags = []  # bottom first
        self.field_since = None  # now_us when the field came on; None while it is off
        self.field_off_at = None  # now_us when it went off; None: never on
        self.ready_at = 0  # now_us from which the tags are powered up and answer
        self.coupling = 1.0
        self.stuck = False
        self.face_down = False
        self.flicker = 0.0
        self.crc_errors = 0
        self.parity_errors = 0


class ReaderArray:
    """`cells` emulated coils on their readers (`layout`: (reader of each cell, coil of each
    cell), None: a reader per cell), on one bus, with a virtual clock and fault injection."""

    def __init__(self, cells, seed=12345, layout=None, xfer_us=XFER_US):
        self.cells = cells
        if layout is None:
            layout = (list(range(cells)), bytes(cells))
        self.layout = layout
        reader_of, coil_of = layout
        count = max(reader_of) + 1 if cells else 0
        members = [[] for _ in range(count)]
        for cell in range(cells):
            members[reader_of[cell]].append((coil_of[cell], cell))
        self.readers = [Reader([cell for _k, cell in sorted(m)]) for m in members]
        self.coils = [Coil() for _ in range(cells)]
        self.xfer_us = xfer_us
        self.now_us = 0
        self._rand = seed & 0xFFFFFFFF or 1
        self.xfers = 0
        self.miso_stuck_high = False  # a short to 3.3 V: every byte reads 0xFF
        self.most_fields_on = 0  # the most coils with a field at once (tests may reset it)
        self._fields = 0
        self.coil_index = 0  # what the select lines hold (the board boots with them low)
        self.selects = 0  # how often the index moved

    # --- control API (tests, virtual tray, benchmark) ------------------------------------

    def place(self, cell, uid, face_down=False):
        """Put a tag on an empty cell (or in place of what lies there)."""
        coil = self._coil(cell)
        coil.tags = [Tag(uid)]
        coil.face_down = face_down
        coil.ready_at = self.now_us + TAG_POWER_UP_US  # powers up if the field is on

    def stack(self, cell, uid):
        """Put one more tag on top of whatever lies on this cell."""
        coil = self._coil(cell)
        coil.tags.append(Tag(uid))
        coil.ready_at = self.now_us + TAG_POWER_UP_US

    def fields_on(self):
        """The cells whose coil carries its reader's field."""
        return [cell for cell in range(self.cells) if self.coils[cell].field_since is not None]

    def awake(self):
        """The readers out of soft power-down."""
        return [r for r in range(len(self.readers)) if not self.readers[r].powered_down]

    def remove(self, cell, uid=None):
        """Take every tag off this cell, or only the one with `uid` (from a stack)."""
        coil = self._coil(cell)
        coil.tags = [] if uid is None else [t for t in coil.tags if t.uid != uid]

    def uid_at(self, cell):
        tags = self._coil(cell).tags
        return tags[0].uid if tags else None

    def uids_at(self, cell):
        return [tag.uid for tag in self._coil(cell).tags]

    def reader(self, cell):
        """The emulated reader serving this cell."""
        return self.readers[self.layout[0][self._index(cell)]]

    def set_dead(self, cell, dead=True):
        """The reader serving this cell stops answering (MISO reads 0x00)."""
        self.reader(cell).dead = bool(dead)

    def set_version(self, cell, version):
        reader = self.reader(cell)
        reader.version = reader.regs[M.VERSION] = version

    def set_coupling(self, cell, factor):
        """The share of the designed field this cell's coil makes (a detuned coil: under 1; a
        coil shorted across its terminals: 0)."""
        self._coil(cell).coupling = factor

    def set_stuck(self, cell, stuck=True):
        """This coil's switch stays on the network: its tags answer whichever coil its reader reads."""
        self._coil(cell).stuck = bool(stuck)
        self._update(self.reader(cell))

    def set_flicker(self, cell, probability):
        """Each wake-up of this cell's tag is missed with this probability (a marginal tag)."""
        self._coil(cell).flicker = probability

    def inject_crc_errors(self, cell, count):
        """Corrupt the CRC of the next `count` CRC-protected replies (SAK) from this cell."""
        self._coil(cell).crc_errors += count

    def inject_parity_errors(self, cell, count):
        """The next `count` replies from this cell's tag arrive with a parity error."""
        self._coil(cell).parity_errors += count

    def clock_ms(self):
        return int(self.now_us // 1000)

    # The bus's clock for the driver's guard times: the Pico's time.ticks_us / sleep_us.
    def ticks_us(self):
        return self.now_us

    def wait_us(self, since, us):
        self.now_us = max(self.now_us, since + us)

    def advance_ms(self, ms):
        self.now_us += ms * 1000

    def _index(self, cell):
        if not 0 <= cell < self.cells:
            raise IndexError("no cell %d (0..%d)" % (cell, self.cells - 1))
        return cell

    def _coil(self, cell):
        return self.coils[self._index(cell)]

    def _random(self):
        x = self._rand  # xorshift32
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self._rand = x
        return x / 4294967296.0

    # --- the SPI bus and the coil select lines --------------------------------------------

    def select_coil(self, index):
        """Set the coil index: every reader's field moves to its coil of that index."""
        self.now_us += SELECT_US
        self.selects += 1
        self.coil_index = index
        for reader in self.readers:
            if len(reader.coils) > 1:
                self._update(reader)

    def xfer(self, reader_index, data):
        if not 0 <= reader_index < len(self.readers):
            raise IndexError("no reader %d (0..%d)" % (reader_index, len(self.readers) - 1))
        reader = self.readers[reader_index]
        self.xfers += 1
        self.now_us += self.xfer_us + BYTE_US * len(data)
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
            if value & 0x80 and regs[M.COMMAND] & 0x0F == M.CMD_TRANSCEIVE and not reader.powered_down \
                    and not reader.rx_wait:
                self._transceive(reader)
        elif reg == M.TX_CONTROL:
            regs[reg] = value
            reader.field = bool(value & 0x03)
            self._update(reader)
        elif reg == M.CONTROL:
            if value & M.T_START_NOW and not reader.powered_down:
                self._add_event(reader, (self.now_us + self._timer_us(reader), M.IRQ_TIMER, None, 0))
            regs[reg] = value & 0x07
        elif reg != M.VERSION:
            regs[reg] = value

    def _update(self, reader):
        """Which of the reader's coils carry its field now: every coil's field on or off."""
        live = reader.field and not reader.powered_down
        on = reader.connected(self.coils, self.coil_index) if live else []
        if on == reader.on:
            return  # (most register writes change nothing here)
        reader.on = on
        since = max(self.now_us, reader.awake_at)  # the transmitter runs once the clock does
        for cell in [c for c in reader.coils if c not in on] + on:  # the fields that go, first
            coil = self.coils[cell]
            if cell in on and coil.field_since is None:
                coil.field_since = since
                if coil.field_off_at is None or since - coil.field_off_at > TAG_HOLD_US:
                    coil.ready_at = since + TAG_POWER_UP_US
                    for tag in coil.tags:
                        tag.state = tag.home = IDLE  # a fresh power-up
                self._fields += 1
                self.most_fields_on = max(self.most_fields_on, self._fields)
            elif cell not in on and coil.field_since is not None:
                coil.field_since = None
                coil.field_off_at = self.now_us
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
        reader.rx_wait = False
        if cmd == M.CMD_SOFT_RESET:
            reader.reset()  # TxControlReg back to antennas off
            reader.field = False
            self._update(reader)
            self.now_us += RESET_US
            return
        down = bool(value & M.POWER_DOWN)
        if reader.powered_down and not down:
            reader.awake_at = self.now_us + SOFT_PD_EXIT_US
        reader.powered_down = down
        regs[M.COMMAND] = (regs[M.COMMAND] & 0xE0) | (value & M.POWER_DOWN) | cmd
        self._update(reader)

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
        reply, collided, coil = self._tag_reply(reader, frame, last_bits)
        if collided:
            t_rx = t_tx + FDT_US + (len(reply) * 9 + 2) * BIT_US
            reader.events.append((t_rx, M.IRQ_RX | M.IRQ_IDLE | M.IRQ_ERR, reply, M.ERR_COLL))
            return
        if reply is None:
            if regs[M.T_MODE] & 0x80:  # TAuto: the timer starts when transmission ends
                reader.events.append((t_tx + self._timer_us(reader), M.IRQ_TIMER, None, 0))
            reader.rx_wait = True
            return
        irq = M.IRQ_RX | M.IRQ_IDLE
        error = 0
        if len(reply) == 3 and coil.crc_errors:
            coil.crc_errors -= 1
            reply = reply[:1] + bytes((reply[1] ^ 0x5A, reply[2]))
        elif coil.parity_errors:
            coil.parity_errors -= 1
            irq |= M.IRQ_ERR
            error = M.ERR_PARITY
        t_rx = t_tx + FDT_US + (len(reply) * 9 + 2) * BIT_US
        reader.events.append((t_rx, irq, reply, error))

    def _hears(self, reader, coil):
        """The coil's tags are powered, up, and in a field strong enough."""
        if coil.field_since is None or self.now_us < coil.ready_at or not coil.tags:
            return False
        strength = (reader.regs[M.CW_GS_P] & 0x3F) / 63 * FULL_DRIVE_MARGIN * coil.coupling
        return strength * (FACE_DOWN if coil.face_down else 1) >= 1

    def _tag_reply(self, reader, frame, last_bits):
        """(reply or None, collided, the coil answering): every powered tag on the reader's
        connected coils hears the frame; differing replies collide."""
        reader.log.append(_name(frame, last_bits))
        del reader.log[:-16]
        heard = [self.coils[c] for c in reader.coils if self._hears(reader, self.coils[c])]
        if not heard:
            return None, False, None  # no tag, no field, a weak field, or still powering up
        first_coil = heard[0]
        if last_bits == 7 and first_coil.flicker and self._random() < first_coil.flicker:
            return None, False, None
        replies = [r for coil in heard for r in [tag.receive(frame, last_bits) for tag in coil.tags] if r is not None]
        if not replies:
            return None, False, None
        first = replies[0]
        if all(r == first for r in replies):
            return first, False, first_coil  # identical answers (every NTAG's ATQA) superpose cleanly
        return first, True, first_coil


class LightChains:
    """The cells' LED chains (pins.LIGHT_CHAINS), as `Lights` writes them (dominotray/lights.py):
    a chain's bytes, GRB per LED from the controller on, latch as soon as they are written (the
    PIO's bit timing is the firmware tests' to check). `lit()` is what the tray shows; `on_latch`,
    when set, is called after every latch (the host's virtual tray times them)."""

    def __init__(self, layout=pins.LIGHT_CHAINS):
        self.layout = layout
        self.frames = [bytes(3 * len(order)) for _, order in layout]
        self.latches = 0
        self.on_latch = None

    def write(self, chain, grb):
        if len(grb) != len(self.frames[chain]):
            raise ValueError("%d bytes for chain %d of %d LEDs" % (len(grb), chain, len(self.frames[chain]) // 3))
        self.frames[chain] = bytes(grb)
        self.latches += 1
        if self.on_latch is not None:
            self.on_latch()

    def lit(self):
        """{cell: (red, green, blue)} for every LED that is not dark."""
        out = {}
        for c in range(len(self.layout)):
            order, frame = self.layout[c][1], self.frames[c]
            for i in range(len(order)):
                green, red, blue = frame[3 * i], frame[3 * i + 1], frame[3 * i + 2]
                if red or green or blue:
                    out[order[i]] = (red, green, blue)
        return out
