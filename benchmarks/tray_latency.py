"""Tray detection latency: how long after a tile lands on (or leaves) the tray the host hears
of it, for the real firmware (TrayApp, scanner, MFRC522 driver) against the emulated reader
array on its virtual clock. The clock advances by the modelled cost of every SPI transaction
and every frame on air (firmware/dominotray/emulator.py: datasheet timings), so the figures
are the tray's real-speed latencies, without waiting for them.

Each game trial boots a tray, tells it which cells the game watches (WATCH), lays out a
layout of 8 to 30 tiles in the game's zones, then at random moments of the schedule:
- anywhere: places a tile on free cells away from the layout (anywhere on the grid);
- beside: places a tile touching the layout;
- pad: with a draw awaited, holds a tile on the scan pad (then takes it off: removal_pad);
- removal: lifts a tile from the layout;
- removal_anywhere: lifts a tile lying away from the layout, outside the game's zones;
- after_quiet: places a tile anywhere after more than the scanner's idle_ms without any
  change (the tray then keeps fewer readers awake; `--quiet-trials` of these, they are slow
  to simulate).
A latency is the time until CHANGES frames for both halves reached the host. The tray is the
real one: a reader per 2 x 2 block switching its coils (dominotray.layout, pins.py).

SPI transactions take `--spi-us` each (the emulator's XFER_US, 65 us, is an assumption: `tray
bringup` measures the board's); several values give one table row each:

    python benchmarks/tray_latency.py [--trials 200] [--seed 1] [--spi-us 65,100,150] [--json]

Targets (issue 9): placement p95 <= 500 ms anywhere, <= 150 ms beside the layout and on the
pad; removal p95 <= 300 ms in the layout and on the pad, <= 500 ms anywhere.
"""

import argparse
import json
import random
import statistics

from dominotable.sim.stats import percentile
from dominotable.tray.geometry import default
from dominotray import pins, wire
from dominotray.app import TrayApp
from dominotray.emulator import XFER_US, ReaderArray
from dominotray.layout import blocks
from targets import Targets

GEO = default()
TARGETS_MS = {"anywhere": 500, "beside": 150, "pad": 150, "removal": 300, "removal_pad": 300,
              "removal_anywhere": 500, "after_quiet": 500}
# Per game: the zones it watches (the host's WATCH message) and where its layout grows.
GAMES = {
    "broadway": (("open",), "open"),
    "castle-rock": (("castle-row", "castle-row-2", "captures"), "castle-row"),
}


class Host:
    def __init__(self, emu):
        self.emu = emu
        self.decoder = wire.Decoder(types=wire.FROM_TRAY, parse=True)
        self.reported = {}  # cell -> (virtual ms its latest change arrived, status)

    def __call__(self, data):
        for kind, _seq, message in self.decoder.feed(data):
            if kind == wire.CHANGES:
                for cell, status, _uid in message:
                    self.reported[cell] = (self.emu.now_us / 1000, status)


def uid(rng):
    return bytes([0x04] + [rng.randrange(256) for _ in range(6)])


def pairs(cells, occupied):
    out = []
    for a in sorted(cells):
        if a in occupied:
            continue
        for b in GEO.neighbours(a):
            if b in cells and b not in occupied and a < b:
                out.append((a, b))
    return out


def touching(cells, occupied):
    return any(n in occupied for c in cells for n in GEO.neighbours(c))


def far(a, b, occupied):
    """Both cells at least two rows/columns away from every occupied cell."""
    for cell in (a, b):
        r, c = GEO.coords(cell)
        for o in occupied:
            if o < GEO.playing:
                ro, co = GEO.coords(o)
                if abs(ro - r) <= 2 and abs(co - c) <= 2:
                    return False
    return True


LAYOUTS = {"block": blocks(pins.COLS, pins.ROWS, pins.PAD_CELLS, pins.BLOCK_COLS, pins.BLOCK_ROWS), "cell": None}


class Trial:
    def __init__(self, game, rng, spi_us=XFER_US, layout="block"):
        zones, layout_zone = GAMES[game]
        self.rng = rng
        self.emu = ReaderArray(pins.CELLS, seed=rng.randrange(1, 2**31), xfer_us=spi_us, layout=LAYOUTS[layout])
        self.host = Host(self.emu)
        self.app = TrayApp(self.emu, self.host, self.emu.clock_ms)
        self.watched = set().union(*(GEO.zone(z) for z in zones)) | set(GEO.pad)
        self.watch(draw=False)
        self.run_until(lambda: self.app.booted)
        self.occupied = set()
        self.layout = []  # (a, b) of the layout's tiles
        zone = GEO.zone(layout_zone)
        a, b = rng.choice(pairs(zone, self.occupied))
        for _ in range(rng.randrange(8, 31)):
            self.put((a, b))
            self.layout.append((a, b))
            choices = [p for p in pairs(zone, self.occupied) if touching(p, self.occupied)]
            if not choices:  # the zone is full
                break
            a, b = rng.choice(choices)
        self.run_until(lambda: all(c in self.host.reported for c in self.occupied))

    def watch(self, draw):
        if hasattr(wire, "WATCH"):  # protocol 2; the benchmark also runs the old firmware
            self.app.feed(wire.frame(wire.WATCH, 0, wire.encode_watch(draw, self.watched, pins.CELLS)))

    def run_until(self, done, limit_ms=60000):
        start = self.emu.now_us
        while not done():
            if self.emu.now_us - start > limit_ms * 1000:
                raise RuntimeError(f"not reported within {limit_ms} ms")
            self.app.poll()

    def put(self, cells):
        for cell in cells:
            self.emu.place(cell, uid(self.rng))
            self.occupied.add(cell)
            self.host.reported.pop(cell, None)

    def lift(self, cells):
        for cell in cells:
            self.emu.remove(cell)
            self.occupied.discard(cell)
            self.host.reported.pop(cell, None)

    def timed(self, action, cells):
        end = self.emu.now_us + self.rng.uniform(0, 1000) * 1000
        while self.emu.now_us < end:  # the event lands at a random point of the schedule
            self.app.poll()
        start = self.emu.now_us / 1000
        action(cells)
        self.run_until(lambda: all(c in self.host.reported for c in cells))
        return max(self.host.reported[c][0] for c in cells) - start

    def measure(self, out):
        rng = self.rng
        grid = set(range(GEO.playing))
        away = [p for p in pairs(grid, self.occupied) if far(p[0], p[1], self.occupied)]
        if away:
            spot = rng.choice(away)
            out["anywhere"].append(self.timed(self.put, spot))
            if not (set(spot) & self.watched):
                out["removal_anywhere"].append(self.timed(self.lift, spot))
            else:
                self.lift(spot)
                self.run_until(lambda: all(c in self.host.reported for c in spot))
        beside = [p for p in pairs(grid, self.occupied) if touching(p, self.occupied)]
        spot = rng.choice(beside)
        out["beside"].append(self.timed(self.put, spot))
        self.layout.append(spot)
        self.watch(draw=True)
        out["pad"].append(self.timed(self.put, GEO.pad))
        out["removal_pad"].append(self.timed(self.lift, GEO.pad))
        self.watch(draw=False)
        tile = self.layout.pop(rng.randrange(len(self.layout)))
        out["removal"].append(self.timed(self.lift, tile))


    def after_quiet(self, out):
        rng = self.rng
        end = self.emu.now_us + (self.app.scanner.idle_ms + rng.uniform(0, 1000)) * 1000
        while self.emu.now_us < end:
            self.app.poll()
        grid = set(range(GEO.playing))
        spot = rng.choice([p for p in pairs(grid, self.occupied) if far(p[0], p[1], self.occupied)])
        out["after_quiet"].append(self.timed(self.put, spot))


def run(trials, quiet_trials, seed, spi_us=XFER_US, layout="block"):
    rng = random.Random(seed)
    out = {key: [] for key in TARGETS_MS}
    games = sorted(GAMES)
    i = 0
    while len(out["beside"]) < trials or len(out["after_quiet"]) < quiet_trials:
        trial = Trial(games[i % len(games)], rng, spi_us, layout)
        for _ in range(5 if len(out["beside"]) < trials else 0):
            trial.measure(out)
        if len(out["after_quiet"]) < quiet_trials:
            trial.after_quiet(out)
        i += 1
    return out


def figures(out):
    result = {}
    for key, values in out.items():
        if values:
            p95 = percentile(values, 0.95)
            result[f"p95_{key}_ms"] = round(p95, 1)
            result[f"p50_{key}_ms"] = round(statistics.median(values), 1)
            result[f"max_{key}_ms"] = round(max(values), 1)
            result[f"n_{key}"] = len(values)
            result[f"target_p95_{key}_ms"] = TARGETS_MS[key]
            result[f"met_{key}"] = p95 <= TARGETS_MS[key]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--quiet-trials", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spi-us", default=str(XFER_US),
                        help="SPI transaction time(s) in us, comma-separated (default: the emulator's %d)" % XFER_US)
    parser.add_argument("--layouts", default="block", help="block (the tray), cell (design a), or both: block,cell")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON: layout -> SPI time -> figures")
    args = parser.parse_args()
    speeds = [float(x) for x in args.spi_us.split(",")]
    layouts = args.layouts.split(",")
    if not set(layouts) <= set(LAYOUTS):
        parser.error(f"--layouts takes {', '.join(LAYOUTS)}")
    results = {layout: {f"{spi_us:g}": figures(run(args.trials, args.quiet_trials, args.seed, spi_us, layout))
                        for spi_us in speeds} for layout in layouts}
    targets = Targets()
    for layout, by_speed in results.items():
        for speed, result in by_speed.items():
            for key, limit in TARGETS_MS.items():
                targets.check(f"{layout} {speed} us {key}", result.get(f"p95_{key}_ms"), lambda ms: ms <= limit)
    if args.json:
        print(json.dumps(results, indent=1, sort_keys=True))
        targets.done()
        return
    print(f"{args.trials} trials per kind, virtual time of the emulated tray (datasheet timings); p50 / p95 ms")
    print("| layout | SPI us | " + " | ".join(k.replace("_", " ") for k in TARGETS_MS) + " |")
    print("|---" * (len(TARGETS_MS) + 2) + "|")
    for layout, by_speed in results.items():
        for speed, result in by_speed.items():
            cells = []
            for key in TARGETS_MS:
                if f"p95_{key}_ms" in result:
                    mark = "" if result[f"met_{key}"] else " NOT met"
                    cells.append(f"{result[f'p50_{key}_ms']:.0f} / {result[f'p95_{key}_ms']:.0f}{mark}")
                else:
                    cells.append("not measured")
            print(f"| {layout} | {speed} | " + " | ".join(cells) + " |")
    print("targets p95: " + ", ".join(f"{k.replace('_', ' ')} <= {v} ms" for k, v in TARGETS_MS.items()))
    targets.done()

if __name__ == "__main__":
    main()
