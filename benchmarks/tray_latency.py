"""Tray detection latency: the firmware's scheduler against a plain round-robin sweep.

The real firmware (TrayApp, scanner, MFRC522 driver) runs against the emulated reader array
on its virtual clock (an occupied cell costs about 14 ms to read, an empty one about 7.6 ms:
both include the 5.1 ms the tag needs after the reader switches its RF field on, since only
the reader being read has its field on; see dominotray/emulator.py). Each trial places one tile (two half cells) beside the
existing layout at a random moment and measures the virtual time until CHANGES frames for
both halves have been written to the host.

The round-robin runs use the same firmware and debouncing with the scheduler switched off:
"round-robin" is the plain sweep (hot_share=0, max_retries=0: a changed cell is re-read
when the sweep comes back to it); "rr+reread" also re-reads a changed cell at once, the
scheduler's cheapest trick, as a stronger baseline for comparison.

    python benchmarks/tray_latency.py [--trials 300] [--seed 1]

Target: the scheduler's p95 is at most a quarter of the round-robin p95.
"""

import argparse
import random
import statistics

from dominotray import pins, wire
from dominotray.app import TrayApp
from dominotray.emulator import ReaderArray
from dominotray.scanner import grid_neighbours

NEIGHBOURS = grid_neighbours(pins.COLS, pins.ROWS, 0)  # the playing grid only


class Host:
    def __init__(self, emu):
        self.emu = emu
        self.decoder = wire.Decoder(types=wire.FROM_TRAY, parse=True)
        self.reported = {}  # cell -> virtual ms its latest change arrived

    def __call__(self, data):
        for kind, _seq, message in self.decoder.feed(data):
            if kind == wire.CHANGES:
                for cell, _status, _uid in message:
                    self.reported[cell] = self.emu.now_us / 1000


def free_pairs(occupied, beside_layout):
    """(a, b) half-cell pairs for a new tile: both empty, a touching the layout if asked."""
    pairs = []
    for a in range(pins.COLS * pins.ROWS):
        if a in occupied:
            continue
        if beside_layout and not any(n in occupied for n in NEIGHBOURS[a]):
            continue
        for b in NEIGHBOURS[a]:
            if b not in occupied:
                pairs.append((a, b))
    return pairs


def uid(rng):
    return bytes([0x04] + [rng.randrange(256) for _ in range(6)])


def run(options, trials, seed):
    rng = random.Random(seed)
    latencies = []
    reads = sweeps = 0
    elapsed_ms = 0
    while len(latencies) < trials:
        emu = ReaderArray(pins.CELLS, seed=rng.randrange(1, 2**31))
        host = Host(emu)
        app = TrayApp(emu, host, emu.clock_ms, **options)
        while not app.booted:
            app.poll()
        occupied = set()
        a, b = rng.choice(free_pairs(occupied, False))
        for _ in range(rng.randrange(4, 16)):  # an existing layout of 4 to 15 tiles
            for cell in (a, b):
                emu.place(cell, uid(rng))
                occupied.add(cell)
            a, b = rng.choice(free_pairs(occupied, True))
        while not app.scanner.settled or len(host.reported) < len(occupied):
            app.poll()
        start_reads, start_sweeps, start_ms = app.scanner.reads, app.scanner.sweeps, emu.now_us / 1000
        for _ in range(10):  # ten placements on this layout
            end = emu.now_us + rng.uniform(0, 2000) * 1000
            while emu.now_us < end:  # the tile lands at a random point of the schedule
                app.poll()
            a, b = rng.choice(free_pairs(occupied, True))
            placed = emu.now_us / 1000
            for cell in (a, b):
                emu.place(cell, uid(rng))
                occupied.add(cell)
                host.reported.pop(cell, None)
            while a not in host.reported or b not in host.reported:
                app.poll()
            latencies.append(max(host.reported[a], host.reported[b]) - placed)
        reads += app.scanner.reads - start_reads
        sweeps += app.scanner.sweeps - start_sweeps
        elapsed_ms += emu.now_us / 1000 - start_ms
    return latencies[:trials], elapsed_ms / reads, elapsed_ms / sweeps


def read_costs():
    emu = ReaderArray(2)
    app = TrayApp(emu, lambda data: None, emu.clock_ms, cols=1, rows=1, pad_cells=1)
    emu.place(1, b"\x04\x01\x02\x03\x04\x05\x06")
    costs = []
    for cell in (0, 1):
        start = emu.now_us
        app.driver.read_uid(cell)
        costs.append((emu.now_us - start) / 1000)
    return costs


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    empty_ms, full_ms = read_costs()
    print("reader timing model: empty cell %.2f ms, occupied cell %.2f ms" % (empty_ms, full_ms))
    print("%d placements beside the layout on the default %dx%d tray (+%d pad cells)" % (
        args.trials, pins.COLS, pins.ROWS, pins.PAD_CELLS))
    results = {}
    runs = (("scheduler", {}), ("round-robin", {"hot_share": 0, "max_retries": 0}),
            ("rr+reread", {"hot_share": 0}))
    for name, options in runs:
        latencies, per_read, per_sweep = run(options, args.trials, args.seed)
        results[name] = latencies
        print("%-12s p50 %7.1f ms   p95 %7.1f ms   max %7.1f ms   mean read %.2f ms   "
              "full sweep every %.0f ms" % (name, statistics.median(latencies),
                                            percentile(latencies, 95), max(latencies), per_read, per_sweep))
    p95 = percentile(results["scheduler"], 95)
    ratio = p95 / percentile(results["round-robin"], 95)
    print("p95 ratio scheduler / round-robin: %.3f (target <= 0.25): %s" % (
        ratio, "met" if ratio <= 0.25 else "NOT met"))
    print("p95 ratio scheduler / rr+reread:   %.3f" % (p95 / percentile(results["rr+reread"], 95)))


if __name__ == "__main__":
    main()
