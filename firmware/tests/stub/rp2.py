"""Stub of MicroPython's `rp2` for running firmware/main.py off the Pico.

Only the physical edge is faked. `asm_pio` assembles a program into RP2040 instruction words, as
the RP2040 datasheet (section 3.4, "Instruction Set") encodes them, for the instructions the
firmware uses; `StateMachine` runs those words cycle by cycle, each instruction 1 + its delay
cycles, the side-set pin driven from the instruction's start (through a stall too), autopull from
the TX FIFO. Its pin's waveform goes to the LED chain on that pin (`Chain`): the LEDs read each
bit against their datasheet's windows (pins.LIGHT_*_NS), pass the bits after their own 24 on, and
latch when the line stays low for Trst; a pulse outside every window is an error the test sees.
"""

from dominotray import pins

pressed = 0  # a test holds BOOTSEL by setting this to 1
chains = {}  # GPIO -> the Chain of LEDs on it
machines = []  # every StateMachine made, in order


def bootsel_button():
    return pressed


class PIO:
    OUT_LOW = 0
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1


class PIOASMError(Exception):
    pass


# --- the assembler ------------------------------------------------------------------------------

X, NOT_X = "x", "not_x"
_OUT_DEST = {X: 1}
_JMP_COND = {None: 0, NOT_X: 1}


class Program:
    def __init__(self, settings):
        self.settings = settings
        self.words = []
        self.labels = {}
        self.wrap_target = 0
        self.wrap = None
        self.sideset = 1 if settings.get("sideset_init") is not None else 0


class _Emit:
    """The assembler's names while the program's function runs: two passes, the first to find
    the labels, the second to encode."""

    def __init__(self, program):
        self.p = program
        self.pass_ = 0
        self.count = 0

    def start(self, pass_):
        self.pass_, self.count = pass_, 0
        self.p.words = []

    def _word(self, word):
        self.count += 1
        if self.pass_:
            self.p.words.append(word)
        return self

    def side(self, value):
        if self.pass_:
            if not self.p.sideset or value >> self.p.sideset:
                raise PIOASMError("side-set %r without a side-set pin for it" % value)
            self.p.words[-1] |= value << (13 - self.p.sideset)
        return self

    def __getitem__(self, delay):
        if self.pass_:
            if not 0 <= delay < 1 << (5 - self.p.sideset):
                raise PIOASMError("delay %d too large" % delay)
            self.p.words[-1] |= delay << 8
        return self

    def names(self):
        def label(name):
            if self.pass_ == 0:
                self.p.labels[name] = self.count

        def wrap_target():
            self.p.wrap_target = self.count

        def wrap():
            self.p.wrap = self.count - 1

        def out(dest, bits):
            return self._word(0x6000 | _OUT_DEST[dest] << 5 | (bits & 0x1F))

        def jmp(cond, target=None):
            if target is None:
                cond, target = None, cond
            address = self.p.labels.get(target, 0) if self.pass_ else 0
            return self._word(_JMP_COND[cond] << 5 | address)

        def nop():
            return self._word(0xA042)  # mov y, y

        return {"label": label, "wrap_target": wrap_target, "wrap": wrap, "out": out, "jmp": jmp, "nop": nop,
                "x": X, "not_x": NOT_X}


def asm_pio(**settings):
    def assemble(function):
        program = Program(settings)
        emit = _Emit(program)
        names = function.__globals__
        saved = names.copy()
        try:
            for pass_ in (0, 1):
                names.clear()
                names.update(emit.names())
                emit.start(pass_)
                function()
        finally:
            names.clear()
            names.update(saved)
        if program.wrap is None:
            program.wrap = len(program.words) - 1
        return program

    return assemble


# --- the state machine --------------------------------------------------------------------------

class StateMachine:
    def __init__(self, index, program, freq=125_000_000, sideset_base=None):
        self.index = index
        self.program = program
        self.freq = freq
        self.pin = sideset_base.gpio
        self.chain = chains.setdefault(self.pin, Chain(self.pin))
        self.running = False
        self.pc = program.wrap_target
        self.x = 0
        self.osr = 0
        self.osr_count = 32  # empty: the first `out` pulls
        self.cycles = 0  # cycles run, all puts
        self.instructions = 0
        self._known = {}  # (pc, word pulled) -> what it does until the next pull
        machines.append(self)

    def active(self, on=None):
        if on is not None:
            self.running = bool(on)
        return self.running

    def put(self, data, shift=0):
        """Push every item of `data` (shifted left by `shift`) and run until the program stalls on
        an empty FIFO; the pin's waveform goes to the chain."""
        if not self.running:
            raise RuntimeError("state machine %d is not active" % self.index)
        fifo = [(value << shift) & 0xFFFFFFFF for value in data]
        runs = []  # (level, cycles), the waveform
        while True:
            word = self.program.words[self.pc]
            if word >> 13 == 3 and self.osr_count >= self.program.settings["pull_thresh"]:  # out, OSR spent
                if not fifo:
                    _drive(runs, self._side(word), 0)  # stalled at its side-set: the frame is over
                    break
                self._pulled(fifo.pop(0), runs)
            else:
                self._step(runs)
        self.chain.receive(runs, 1e9 / self.freq)

    def _pulled(self, value, runs):
        """Autopull `value`, then run to the next `out` that finds the OSR spent. What a word does
        depends only on it and the pc it is pulled at (its first `out` sets x, the only register the
        program reads): worked out once, then replayed."""
        key = (self.pc, value)
        done = self._known.get(key)
        if done is None:
            self.osr, self.osr_count = value, 0
            part, start = [], (self.cycles, self.instructions)
            self._step(part)
            while self.program.words[self.pc] >> 13 != 3 or self.osr_count < self.program.settings["pull_thresh"]:
                self._step(part)
            done = self._known[key] = (part, self.cycles - start[0], self.instructions - start[1], self.pc,
                                       self.osr, self.osr_count, self.x)
            self.cycles, self.instructions = start
        part, cycles, instructions, self.pc, self.osr, self.osr_count, self.x = done
        for level, n in part:
            _drive(runs, level, n)
        self.cycles += cycles
        self.instructions += instructions

    def _side(self, word):
        return word >> (13 - self.program.sideset) & ((1 << self.program.sideset) - 1)

    def _step(self, runs):
        """One instruction: its side-set for 1 + its delay cycles."""
        word = self.program.words[self.pc]
        cycles = 1 + (word >> 8 & ((1 << (5 - self.program.sideset)) - 1))
        _drive(runs, self._side(word), cycles)
        self.cycles += cycles
        self.instructions += 1
        self.pc = self._execute(word >> 13, word)

    def _execute(self, op, word):
        """The instruction `word` (opcode `op`): the next pc."""
        following = self.program.wrap_target if self.pc == self.program.wrap else self.pc + 1
        if op == 0:  # jmp
            cond, address = word >> 5 & 7, word & 0x1F
            if cond == 0 or (cond == 1 and self.x == 0):
                return address
            if cond > 1:
                raise NotImplementedError("jmp condition %d" % cond)
            return following
        if op == 3:  # out
            dest, bits = word >> 5 & 7, word & 0x1F or 32
            if dest != 1 or self.program.settings.get("out_shiftdir", PIO.SHIFT_RIGHT) != PIO.SHIFT_LEFT:
                raise NotImplementedError("out to %d, shifting right" % dest)
            self.x = self.osr >> (32 - bits)
            self.osr = (self.osr << bits) & 0xFFFFFFFF
            self.osr_count += bits
            return following
        if word & 0xE0FF == 0xA042:  # nop (mov y, y), whatever its delay and side-set
            return following
        raise NotImplementedError("PIO instruction 0x%04x" % word)


def _drive(runs, level, cycles):
    if runs and runs[-1][0] == level:
        runs[-1][1] += cycles
    else:
        runs.append([level, cycles])


# --- the LEDs on a pin ----------------------------------------------------------------------------

def _within(ns, window):
    return window[0] <= ns <= window[1]


class Chain:
    """The LEDs on one data line: each takes the first 24 bits of a frame (G, R, B, most significant
    bit first) and passes the rest on; all latch when the line has been low for Trst. `errors`
    names every pulse the datasheet's windows do not allow."""

    def __init__(self, gpio):
        self.gpio = gpio
        self.leds = []  # latched (green, red, blue) per LED, from the controller on
        self.frames = 0
        self.errors = []
        self.bits = 0

    def receive(self, runs, ns_per_cycle):
        """One frame's waveform from an idle (low) line: [level, cycles] runs, the last one the
        low the state machine stalled in, held until the next frame (the firmware writes a chain
        at most pins.LIGHT_MAX_FPS times a second: far longer than Trst)."""
        if runs and runs[0][0] == 0:
            runs = runs[1:]  # the idle line before the frame
        bits = []
        for i in range(0, len(runs) - 1, 2):
            (_, high), (_, low) = runs[i], runs[i + 1]
            high_ns, low_ns = high * ns_per_cycle, low * ns_per_cycle
            last = i + 2 >= len(runs)
            if _within(high_ns, pins.LIGHT_T1H_NS) and (last or _within(low_ns, pins.LIGHT_T1L_NS)):
                bits.append(1)
            elif _within(high_ns, pins.LIGHT_T0H_NS) and (last or _within(low_ns, pins.LIGHT_T0L_NS)):
                bits.append(0)
            else:
                self.errors.append("bit %d: high %d ns, low %d ns" % (len(bits), high_ns, low_ns))
                continue
            if not last and not _within(high_ns + low_ns, pins.LIGHT_BIT_NS):
                self.errors.append("bit %d lasts %d ns" % (len(bits) - 1, high_ns + low_ns))
        if len(runs) % 2 or runs[-1][0] != 0:
            self.errors.append("the frame does not end low")
        self.bits = len(bits)
        self.leds = []
        for at in range(0, len(bits) - 23, 24):
            value = 0
            for bit in bits[at:at + 24]:
                value = value << 1 | bit
            self.leds.append((value >> 16, value >> 8 & 0xFF, value & 0xFF))
        self.frames += 1
