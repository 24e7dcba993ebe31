"""Host-side cost of the OLED: drawing screens, and handing a frame to the real luma driver.

Times (median of --runs, in ms): drawing each screen with Pillow; `Display.show` of a
changed frame through luma.oled's real `ssd1306` class on luma's real `i2c` interface
(over a bus that only counts bytes, so this is the CPU cost; the wire adds ~23 ms for a
full frame at 400 kHz); and `Display.show` of an unchanged frame, which must not touch the
bus. Prints the ratio of a skipped to a sent frame. Target: a changed frame drawn and
handed over in well under 5 ms, the host latency budget.

Run: python benchmarks/display.py [--runs 200]
"""

from __future__ import annotations

import argparse
import statistics
import time

from dominotable.ui.oled import screens
from dominotable.ui.oled.display import DisplayConfig, open_display

SCREENS = {
    "play": lambda i: screens.play(f"Player {i % 4}", [("Ann", i), ("Bob", 30)], "hold select: end turn"),
    "scores": lambda i: screens.scores(["Ann", "Bob", "Cy", "Dee"], [i, 2 * i, 3, 4], "first to 150", current=i % 4),
    "last play": lambda i: screens.prompt("Last play", f"Bob laid {i % 7}-5 +{i % 20}"),
    "prompt": lambda i: screens.prompt("Fix the tray", f"Put 2-4 back between 0-0 and 4-4 (cell {i % 192})"),
    "tray lost": lambda i: screens.tray_lost(i),
    "menu": lambda i: screens.menu("Choose a game", ["Castle Rock", "Solitaire", "Boneyard", "Broadway"], i % 4),
}


class CountingBus:
    def __init__(self):
        self.bytes = 0

    def write_i2c_block_data(self, address, register, data):
        self.bytes += len(data) + 2  # plus address and control byte


def median_ms(fn, runs: int) -> float:
    times = []
    for i in range(runs):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()

    for name, draw in SCREENS.items():
        print(f"draw {name:<10} {median_ms(draw, args.runs):7.3f} ms")

    bus = CountingBus()
    display = open_display(DisplayConfig(driver="ssd1306"), bus=bus)
    frames = [screens.tray_lost(i) for i in range(2)]
    bus.bytes = 0
    sent = median_ms(lambda i: display.show(frames[i % 2]), args.runs)
    per_frame = bus.bytes / args.runs
    skipped = median_ms(lambda i: display.show(frames[0]), args.runs)
    print(f"show changed frame (ssd1306) {sent:7.3f} ms, {per_frame:.0f} bytes on the bus "
          f"(~{per_frame * 9 / 400:.0f} ms at 400 kHz)")
    print(f"show unchanged frame         {skipped:7.3f} ms, ratio skipped/sent {skipped / sent:.3f}")


if __name__ == "__main__":
    main()
