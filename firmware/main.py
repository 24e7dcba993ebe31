"""Pico glue: SPI and chip-select decoders, the cells' LED chains on the PIO, USB serial, watchdog.
The only module that imports `machine` and `rp2`; everything else runs unchanged in the host's
virtual tray.

Boot: Ctrl-C is switched off before anything else (here and in boot.py, which runs first),
so a 0x03 byte from the host is data at every point of the boot. The REPL stays reachable
only when the maker asks for it at power-up: the jumper from pins.REPL_JUMPER to GND fitted,
or BOOTSEL held (firmware/README.md: Deploy). Then the watchdog starts, and the self-test of
every reader feeds it between readers.

Pins come from dominotray/pins.py, generated from hardware/wiring.toml.
"""

import micropython

micropython.kbd_intr(-1)  # first: from now on 0x03 in a frame is data, not Ctrl-C

import select  # noqa: E402 (after kbd_intr, on purpose)
import sys  # noqa: E402
import time  # noqa: E402

import machine  # noqa: E402
import rp2  # noqa: E402
from machine import SPI, WDT, Pin  # noqa: E402

from dominotray import pins  # noqa: E402
from dominotray.app import TrayApp  # noqa: E402
from dominotray.layout import blocks  # noqa: E402

WATCHDOG_MS = 5000  # the self-test of 49 readers takes about 0.1 s, a scan step milliseconds, a bring-up feeds it per cell
PIO_HZ = 10_000_000  # the LED program's clock: a cycle is 100 ns


@rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT, autopull=True, pull_thresh=8,
             fifo_join=rp2.PIO.JOIN_TX)
def sk6812():
    """One bit per turn of the loop, most significant first, a byte per FIFO word: high for T1
    cycles (a 0) or T1 + T2 (a 1), low for the rest of the bit's T1 + T2 + T3 cycles. The names are
    rp2's (the assembler replaces this module's names while it runs the function), so the cycle
    counts are local. Out of bytes, `out` stalls with the line low: the LEDs latch after Trst."""
    T1 = 3  # 300 ns: a 0's high (hardware/data/led_timing.toml: t0h)
    T2 = 3  # a 1 stays high 300 ns more (t1h 600 ns), a 0 goes low
    T3 = 6  # 600 ns low at the end of every bit (t1l; a 0's low is T2 + T3: t0l 900 ns)
    wrap_target()
    label("bit")
    out(x, 1).side(0)[T3 - 1]
    jmp(not_x, "zero").side(1)[T1 - 1]
    jmp("bit").side(1)[T2 - 1]
    label("zero")
    nop().side(0)[T2 - 1]
    wrap()


def repl_requested():
    """The jumper fitted or BOOTSEL held while the board boots."""
    jumper = Pin(pins.REPL_JUMPER, Pin.IN, Pin.PULL_UP)
    return jumper.value() == 0 or rp2.bootsel_button() == 1


class PicoBus:
    """The reader array on the shared SPI bus; a reader is selected through the decoders, and
    serves the cells of its block (`layout`, for the driver), the coil of the coil index."""

    cells = pins.CELLS

    def __init__(self):
        self.layout = blocks(pins.COLS, pins.ROWS, pins.PAD_CELLS, pins.BLOCK_COLS, pins.BLOCK_ROWS)
        self.spi = SPI(pins.SPI_ID, baudrate=pins.SPI_BAUDRATE, polarity=pins.SPI_POLARITY,
                       phase=pins.SPI_PHASE, sck=Pin(pins.SCK), mosi=Pin(pins.MOSI),
                       miso=Pin(pins.MISO))
        self.strobe = Pin(pins.STROBE, Pin.OUT, value=1)
        # Address bits 0-3 pick the decoder output, bits 4-7 the decoder (pins.SELECT).
        self.address = [(bit, Pin(p, Pin.OUT, value=0)) for bit, p in enumerate(pins.LINE_ADDRESS)]
        self.address += [(4 + bit, Pin(p, Pin.OUT, value=0)) for bit, p in enumerate(pins.BANK_ADDRESS)]
        self.code = 0
        # the coil index every cell board decodes (bit 0 first): 0 from boot, as the driver assumes
        self.coil_lines = [Pin(p, Pin.OUT, value=0) for p in pins.COIL_SELECT]
        reset = Pin(pins.RESET, Pin.OUT, value=0)  # hard-reset every reader once
        time.sleep_ms(2)
        reset.value(1)
        time.sleep_ms(50)

    def ticks_us(self):
        return time.ticks_us()

    def wait_us(self, since, us):
        left = us - time.ticks_diff(time.ticks_us(), since)
        if left > 0:
            time.sleep_us(left)

    def select_coil(self, index):
        """Put coil index % n of every reader with n coils on its network (wiring.toml [coils])."""
        for bit, pin in enumerate(self.coil_lines):
            pin.value((index >> bit) & 1)

    def xfer(self, reader, data):
        code = pins.SELECT[reader]
        if code != self.code:  # the driver talks to one reader many times in a row
            changed = code ^ self.code
            for bit, pin in self.address:
                if changed & (1 << bit):
                    pin.value((code >> bit) & 1)
            self.code = code
        rx = bytearray(len(data))
        self.strobe.value(0)
        try:
            self.spi.write_readinto(data, rx)
        finally:
            self.strobe.value(1)
        return rx


class PicoChains:
    """The cells' LED chains: a PIO state machine per chain (pins.LIGHT_CHAINS), each shifting out
    the bytes `write` gives it on its own pin, while the CPU goes on scanning."""

    def __init__(self):
        self.machines = []
        for i, (gpio, _cells) in enumerate(pins.LIGHT_CHAINS):
            machine = rp2.StateMachine(i, sk6812, freq=PIO_HZ, sideset_base=Pin(gpio))
            machine.active(1)
            self.machines.append(machine)

    def write(self, chain, grb):
        self.machines[chain].put(grb, 24)  # each byte to the top of its FIFO word


class Clock:
    """Milliseconds since boot that never wrap (time.ticks_ms wraps after ~12 days)."""

    def __init__(self):
        self.last = time.ticks_ms()
        self.total = 0

    def ms(self):
        now = time.ticks_ms()
        self.total += time.ticks_diff(now, self.last)
        self.last = now
        return self.total


def main():
    if repl_requested():
        micropython.kbd_intr(3)
        return  # main.py ends: the REPL has the USB serial port
    wdt = WDT(timeout=WATCHDOG_MS)
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    app = TrayApp(PicoBus(), stdout.write, Clock().ms, board_id=machine.unique_id(),
                  restart=machine.reset, watchdog=wdt.feed, chains=PicoChains())
    while True:
        wdt.feed()
        for _ in range(64):  # whatever the host sent, without blocking
            if not poller.poll(0):
                break
            app.feed(stdin.read(1))
        app.poll()


if __name__ == "__main__":  # as on the board, where main.py runs at boot
    main()
