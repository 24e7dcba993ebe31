"""The tray's lights: an RGB LED under each cell, on the chains of pins.LIGHT_CHAINS, showing what
the host's last LIGHTS frame asked for (hardware/PROTOCOL.md).

Hardware-free, like the app: `chains.write(c, grb)` shifts chain c's bytes out (the PIO state
machines of firmware/main.py on the Pico; the emulated chains of dominotray/emulator.py on the
host), `clock_ms()` is the app's clock. What shows:

- the host's colours scaled under the brightness cap (pins.LIGHT_BRIGHTNESS: no channel ever above
  it), latched at most pins.LIGHT_MAX_FPS times a second (a frame that comes sooner waits for the
  next slot, and a newer one replaces it);
- nothing once the host has been silent for HOST_GONE_MS: an instruction must not outlive the
  host that gave it;
- never heard from since boot, after HOST_GONE_MS: the tray-lost pattern, the scan pad and the
  grid's corners blinking amber.
"""

from dominotray import pins, wire

HOST_GONE_MS = 3000
BLINK_MS = 500  # the tray-lost pattern: on this long, off as long
LOST_COLOUR = (255, 96, 0)  # amber


class NoChains:
    """A board without LEDs (the reader tests): frames go nowhere."""

    def write(self, chain, grb):
        pass


class Lights:
    def __init__(self, chains, clock_ms, cols=pins.COLS, rows=pins.ROWS, layout=pins.LIGHT_CHAINS,
                 cap=pins.LIGHT_BRIGHTNESS, max_fps=pins.LIGHT_MAX_FPS):
        self.chains = chains
        self.clock_ms = clock_ms
        self.cap = cap
        self.interval_ms = -(-1000 // max_fps)  # rounded up: never more than max_fps a second
        self.where = {}  # cell -> (chain, offset of its G byte)
        for c in range(len(layout)):
            order = layout[c][1]
            for i in range(len(order)):
                self.where[order[i]] = (c, 3 * i)
        self.sizes = [3 * len(order) for _, order in layout]
        self.cells = len(self.where)
        corners = (0, cols - 1, (rows - 1) * cols, rows * cols - 1)
        self.lost = tuple((cell,) + LOST_COLOUR for cell in sorted(corners + tuple(range(cols * rows, self.cells))))
        self.booted_ms = clock_ms()
        self.heard_ms = None  # when the host last sent a valid frame; None: not since boot
        self.wanted = ()  # the host's last lights: (cell, red, green, blue), in cell order
        self.shown = None  # what the chains latched last (None: not yet since boot)
        self.sent = [None] * len(layout)  # each chain's bytes as last written
        self.latched_ms = None
        self.latches = 0

    def heard(self):
        """A valid frame from the host: it is there."""
        self.heard_ms = self.clock_ms()

    def take(self, message):
        """A LIGHTS frame: TAKEN (shown at once, or at the next slot the rate allows) or REFUSED
        (not the tray's cell count: nothing changes)."""
        if message.cells != self.cells:
            return wire.REFUSED
        self.wanted = tuple(message.lit)
        return wire.TAKEN

    def now(self):
        """What the chains should show now, as (cell, red, green, blue) before the cap."""
        now = self.clock_ms()
        if self.heard_ms is None:
            if now - self.booted_ms < HOST_GONE_MS or (now - self.booted_ms) // BLINK_MS % 2:
                return ()
            return self.lost
        return () if now - self.heard_ms > HOST_GONE_MS else self.wanted

    def poll(self):
        """Latch what should show, if it changed and the frame rate allows."""
        want = self.now()
        if want == self.shown:
            return
        now = self.clock_ms()
        if self.latched_ms is not None and now - self.latched_ms < self.interval_ms:
            return
        frames = [bytearray(size) for size in self.sizes]
        cap = self.cap
        for cell, red, green, blue in want:
            chain, at = self.where[cell]
            frame = frames[chain]
            frame[at] = green * cap // 255
            frame[at + 1] = red * cap // 255
            frame[at + 2] = blue * cap // 255
        for c in range(len(frames)):
            if frames[c] != self.sent[c]:
                self.chains.write(c, frames[c])
                self.sent[c] = frames[c]
        self.shown = want
        self.latched_ms = now
        self.latches += 1
