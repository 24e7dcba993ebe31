"""Start-up time of the table: from process start to the first OLED frame.

Starts `dominotable run` on the simulated table (virtual tray, emulated OLED writing PNG
frames, no terminal) and times, from just before the process is spawned, until the first
frame file appears (the emulated display writes it right after handing the frame to the
device), then stops the process. Medians of --runs. The simulated run also boots the tray
emulator, which the Pi's run does not; Python's own start-up and imports are included.

Run: python benchmarks/table_startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def one_run(folder: Path, i: int) -> float:
    frames = folder / f"frames-{i}"
    config = folder / f"config-{i}.toml"
    config.write_text(f'[tray]\nport = "none"\n[display]\nterminal = false\nframes = "{frames}"\n'
                      f'[storage]\ndatabase = "{folder / f"db-{i}.sqlite3"}"\n')
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "dominotable", "run", "--config", str(config)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        while not (frames / "frame-000001.png").exists():
            if proc.poll() is not None:
                raise SystemExit(f"dominotable run exited {proc.returncode} before its first frame")
            time.sleep(0.001)
        return time.perf_counter() - start
    finally:
        proc.kill()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        times = [one_run(Path(folder), i) for i in range(args.runs)]
    print(f"dominotable run (simulated): process start to first OLED frame, median of {args.runs}: "
          f"{statistics.median(times) * 1000:.0f} ms (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f})")


if __name__ == "__main__":
    main()
