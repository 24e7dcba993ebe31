"""Host-side decoding speed of the tray wire protocol (run by hand).

    python benchmarks/tray_decode.py [--repeats 7]

Reports medians over repeats of: frames per second through `wire.Decoder(parse=True)` (what
the host link runs) for full snapshots, half-full snapshots and small CHANGES frames; CPU time
per full 194-cell snapshot frame (every cell a 7-byte UID: the largest frame the tray sends);
and the same with the pure-Python table CRC that MicroPython uses instead of binascii.
"""

import argparse
import random
import statistics
import time

from dominotray import wire

CELLS = 194


def snapshot_frame(rng, occupied, seq=0):
    cells = [(wire.TAG, rng.randbytes(7)) if i < occupied else (wire.EMPTY, b"") for i in range(CELLS)]
    rng.shuffle(cells)
    return wire.frame(wire.SNAPSHOT, seq, wire.encode_snapshot(wire.HEARTBEAT, cells))


def changes_frame(rng, seq=0):
    return wire.frame(wire.CHANGES, seq, wire.encode_changes([(rng.randrange(CELLS), wire.TAG, rng.randbytes(7)),
                                                              (rng.randrange(CELLS), wire.EMPTY, b"")]))


def run(stream, frames):
    """(frames per second, CPU seconds per frame) for decoding `stream` once."""
    decoder = wire.Decoder(types=wire.FROM_TRAY, parse=True)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    got = decoder.feed(stream)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    assert len(got) == frames and decoder.error_count() == 0
    return frames / wall, cpu / frames


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--frames", type=int, default=500)
    args = parser.parse_args()
    rng = random.Random(1)
    n = args.frames
    cases = {
        "full snapshot (194 tags)": b"".join(snapshot_frame(rng, CELLS, i) for i in range(n)),
        "set laid out (56 tags)": b"".join(snapshot_frame(rng, 56, i) for i in range(n)),
        "changes (2 events)": b"".join(changes_frame(rng, i) for i in range(n)),
    }
    print(f"full snapshot frame: {len(snapshot_frame(rng, CELLS))} bytes on the wire; "
          f"median of {args.repeats} runs of {n} frames")
    print(f"{'frames':28s} {'frames/s':>12s} {'CPU us/frame':>14s}")
    results = {}
    for name, stream in cases.items():
        runs = [run(stream, n) for _ in range(args.repeats)]
        fps = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        results[name] = cpu
        print(f"{name:28s} {fps:12,.0f} {cpu * 1e6:14.1f}")

    fast = wire.crc16
    wire.crc16 = wire.crc16_py
    try:
        runs = [run(cases["full snapshot (194 tags)"], n) for _ in range(args.repeats)]
    finally:
        wire.crc16 = fast
    cpu_py = statistics.median(r[1] for r in runs)
    full = results["full snapshot (194 tags)"]
    print(f"{'full, table CRC (no C)':28s} {statistics.median(r[0] for r in runs):12,.0f} {cpu_py * 1e6:14.1f}")
    print(f"ratio table-CRC / binascii CRC on full snapshots: {cpu_py / full:.2f}")
    # The tray sends at most a few frames per second (heartbeats, change bursts):
    print(f"host CPU share at 10 full snapshots/s: {full * 10 * 100:.3f} %")


if __name__ == "__main__":
    main()
