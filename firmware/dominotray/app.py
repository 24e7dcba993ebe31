"""The tray application: reader self-test, scanning, the cells' lights, and the wire protocol
towards the host.

Hardware-free: `bus` is the reader array (the Pico's SPI + decoders, or the emulated array),
`chains` the LED chains (dominotray/lights.py), `out(bytes)` writes to the host, `clock_ms()` is a
monotonic millisecond clock (`lights_clock_ms()` the lights', the same on the Pico; the host's
virtual tray, whose readers' clock is virtual, gives them the wall clock people and the host see).
The Pico glue (firmware/main.py) and the host's virtual tray both drive it with `feed()` and
`poll()`.
"""

from dominotray import bringup, pins, wire
from dominotray.lights import Lights, NoChains
from dominotray.mfrc522 import DRIVE_MAX, MFRC522
from dominotray.scanner import Scanner, grid_neighbours

FW_VERSION = (0, 4, 0)
# BRINGUP_REPORT frames carry this many cells each (a 7-byte UID probe is 13 bytes)
REPORT_CELLS = 64
# A USB CDC write on the Pico gives up after about 500 ms when the host holds the port open
# but does not read, and returns how much it wrote. A frame is retried this many times,
# then dropped and counted: the next frame's leading delimiter ends the part that went out.
WRITE_TRIES = 3


class TrayApp:
    def __init__(self, bus, out, clock_ms, board_id=b"emulated", fw=FW_VERSION,
                 cols=pins.COLS, rows=pins.ROWS, pad_cells=pins.PAD_CELLS,
                 heartbeat_ms=5000, settle_ms=300, restart=None, watchdog=None, chains=None,
                 light_chains=pins.LIGHT_CHAINS, lights_clock_ms=None, **scan_options):
        if cols * rows + pad_cells != bus.cells:
            raise ValueError("a %dx%d grid and %d pad cells need %d readers; the bus has %d" % (
                cols, rows, pad_cells, cols * rows + pad_cells, bus.cells))
        lit = sum(len(order) for _, order in light_chains)
        if lit != bus.cells:
            raise ValueError("the light chains reach %d cells; the tray has %d" % (lit, bus.cells))
        self.bus = bus
        self.chains = chains or NoChains()
        self.light_chains = light_chains
        self.lights_clock_ms = lights_clock_ms or clock_ms
        self.out = out
        self.clock_ms = clock_ms
        self.board_id = bytes(board_id)
        self.fw = fw
        self.neighbours = grid_neighbours(cols, rows, pad_cells)
        self.cols = cols
        self.rows = rows
        self.pad = tuple(range(cols * rows, bus.cells))
        self.heartbeat_ms = heartbeat_ms
        self.settle_ms = settle_ms
        self.restart = restart  # callable for RESTART (machine.reset on the Pico)
        self.feed_watchdog = watchdog or (lambda: None)  # WDT.feed on the Pico
        self.dropped = 0  # frames given up after WRITE_TRIES short writes
        self.scan_options = scan_options
        self.driver = MFRC522(bus, drive=pins.TX_DRIVE)
        self.decoder = wire.Decoder(types=wire.TO_TRAY, parse=True)
        self.ignored = 0  # well-formed requests that could not be carried out
        self.boot()

    def boot(self):
        """Dark lights, self-test every reader, announce ourselves, and start the first sweep."""
        self.framer = wire.Framer()
        self.lights = Lights(self.chains, self.lights_clock_ms, self.cols, self.rows, self.light_chains)
        self.lights.poll()  # LEDs keep their colours through a reset of the board: dark first
        self.passed = []
        tested = {}
        for cell in range(self.bus.cells):  # each init is a few transactions, whatever fails
            reader = self.driver.reader_of[cell]
            if reader not in tested:
                tested[reader] = self.driver.init(cell)
                self.feed_watchdog()
            self.passed.append(tested[reader])
        self.scanner = Scanner(self.driver, self.neighbours, self.clock_ms, self.passed,
                               cols=self.cols, pad=self.pad, **self.scan_options)
        self.booted = False
        self.snapshot_wanted = False
        self.burst = False
        self.last_change_ms = self.last_snapshot_ms = self.clock_ms()
        self.send_hello()

    # --- output --------------------------------------------------------------------------

    def send(self, kind, body):
        """Write a frame; `out` returns how many bytes it took (None: all of them)."""
        data = self.framer.frame(kind, body)
        done = 0
        for _ in range(WRITE_TRIES):
            n = self.out(data[done:] if done else data)
            done = len(data) if n is None else done + n
            if done >= len(data):
                return
        self.dropped += 1

    def send_hello(self):
        self.send(wire.HELLO, wire.encode_hello(self.fw, self.board_id, self.bus.cells, self.passed))

    def send_snapshot(self, reason):
        self.send(wire.SNAPSHOT, wire.encode_snapshot(reason, self.scanner.state))
        self.last_snapshot_ms = self.clock_ms()

    def send_changes(self, events):
        for i in range(0, len(events), 255):
            self.send(wire.CHANGES, wire.encode_changes(events[i:i + 255]))

    # --- input ---------------------------------------------------------------------------

    def feed(self, data):
        """Bytes from the host: act on every complete, valid request."""
        for kind, seq, message in self.decoder.feed(data):
            self.lights.heard()
            if kind == wire.GET_HELLO:
                self.send_hello()
            elif kind == wire.GET_SNAPSHOT:
                if self.booted:
                    self.send_snapshot(wire.REQUESTED)
                else:
                    self.snapshot_wanted = True  # answered once the boot sweep is done
            elif kind == wire.RESET_READER:
                self.reset_reader(message)
            elif kind == wire.LIGHTS:
                self.send(wire.LIGHTS_ACK, wire.encode_lights_ack(seq, self.lights.take(message)))
            elif kind == wire.WATCH:
                if len(message.cells) == self.bus.cells:
                    self.scanner.watch(message.cells, message.draw)
                else:
                    self.ignored += 1
            elif kind == wire.RESTART:
                if self.restart is not None:
                    self.restart()
                else:
                    self.boot()
                return  # a restarted board has forgotten the rest of the input
            elif kind == wire.BRINGUP:
                self.bringup()
                return  # the board booted again after it

    def reset_reader(self, cell):
        """Re-initialise and re-test the reader of `cell` (every cell it serves)."""
        if not 0 <= cell < self.bus.cells:
            self.ignored += 1
            return
        ok = self.driver.init(cell)
        for near in self.driver.cells_of(self.driver.reader_of[cell]):
            self.passed[near] = ok
            self.scanner.set_usable(near, ok)

    def bringup(self):
        """Measure every reader and cell (dominotray/bringup.py), report, then boot again:
        the probes leave the readers and the scan in no state to carry on from."""
        drive = self.driver.drive or 0x20
        probes = bringup.probe(self.driver, self.bus.cells, drive, self.feed_watchdog)
        for first in range(0, len(probes), REPORT_CELLS):
            part = probes[first:first + REPORT_CELLS]
            self.send(wire.BRINGUP_REPORT, wire.encode_bringup_report(
                drive, DRIVE_MAX, len(probes), first, part))
        self.boot()

    # --- scanning ------------------------------------------------------------------------

    def poll(self):
        """One scheduler step: read one cell, latch the lights if they changed, then send whatever
        became due."""
        scanner = self.scanner
        scanner.step()
        self.lights.poll()
        now = self.clock_ms()
        if scanner.changes:
            events = scanner.changes
            scanner.changes = []
            if self.booted:
                self.send_changes(events)
                self.burst = True
                self.last_change_ms = now
        if not self.booted:
            if scanner.settled:
                self.booted = True
                self.send_snapshot(wire.BOOT)
                if self.snapshot_wanted:
                    self.snapshot_wanted = False
                    self.send_snapshot(wire.REQUESTED)
            return
        if self.burst and not scanner.pending and now - self.last_change_ms >= self.settle_ms:
            self.burst = False
            self.send_snapshot(wire.AFTER_CHANGES)
        elif now - self.last_snapshot_ms >= self.heartbeat_ms:
            self.send_snapshot(wire.HEARTBEAT)
