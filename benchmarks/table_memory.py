"""Resident memory of `dominotable run` during a match (target: under 80 MB, a Pi Zero 2 W).

Starts `dominotable run` on the simulated table with no terminal, so it plays its demo match
(bots placing tiles on the virtual tray), and samples VmRSS from /proc every 50 ms until it
exits. The simulated run carries the tray emulator (the firmware over emulated readers) in the
same process, which the Pi's run does not: its figure is an upper bound for the real table.

Run: python benchmarks/table_memory.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIG = '[tray]\nport = "none"\n[display]\nterminal = false\n'


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def one_run(folder: Path) -> tuple[float, float]:
    config = folder / "config.toml"
    config.write_text(CONFIG)
    proc = subprocess.Popen([sys.executable, "-m", "dominotable", "run", "--config", str(config)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    samples = []
    while proc.poll() is None:
        if (mb := rss_mb(proc.pid)) is not None:
            samples.append(mb)
        time.sleep(0.05)
    if proc.returncode != 0:
        raise SystemExit(f"dominotable run exited {proc.returncode}")
    during = samples[len(samples) // 5:]  # past start-up: the match itself
    return statistics.median(during), max(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    medians, peaks = [], []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.runs):
            median, peak = one_run(Path(folder))
            medians.append(median)
            peaks.append(peak)
    print(f"dominotable run (simulated, demo match), {args.runs} runs: resident memory median "
          f"{statistics.median(medians):.1f} MB, peak {max(peaks):.1f} MB "
          f"(target < 80 MB: {'met' if max(peaks) < 80 else 'NOT met'}; ratio {max(peaks) / 80:.2f})")


if __name__ == "__main__":
    main()
