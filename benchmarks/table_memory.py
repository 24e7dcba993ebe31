"""Resident memory of `dominotable run` during a match (target: under 80 MB, a Pi Zero 2 W).

Starts `dominotable run` on the simulated table with no terminal, so it plays its demo match
(bots placing tiles on the virtual tray), and samples VmRSS from /proc every 50 ms until it
exits. The simulated run carries the tray emulator (the firmware over emulated readers) in the
same process, which the Pi's run does not: its figure is an upper bound for the real table.

With `--clients N` the run serves the table page (`--demo --http`) and N WebSocket clients
(another process) follow it through the match; the page then stays up, and the run is stopped
with SIGTERM once the match has ended.

Run: python benchmarks/table_memory.py [--runs 3] [--clients 5]
"""

from __future__ import annotations

import argparse
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from targets import Targets

CONFIG = '[tray]\nport = "none"\n[display]\nterminal = false\n'


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def one_run(folder: Path, clients: int = 0) -> tuple[float, float]:
    from table_latency import Clients

    config = folder / "config.toml"
    config.write_text(CONFIG)
    extra = ["--demo", "--http", f"127.0.0.1:{free_port()}"] if clients else []
    proc = subprocess.Popen([sys.executable, "-m", "dominotable", "run", "--config", str(config), *extra],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE if clients else subprocess.DEVNULL,
                            text=True)
    followers = None
    if clients:
        url = re.search(r"the table page: (\S+)", proc.stdout.readline() + proc.stdout.readline())[1]
        followers = Clients(clients)
        followers.follow(url)
        threading.Thread(target=lambda: [line for line in proc.stdout if "stays up" in line and
                                         proc.send_signal(signal.SIGTERM)], daemon=True).start()
    samples = []
    while proc.poll() is None:
        if (mb := rss_mb(proc.pid)) is not None:
            samples.append(mb)
        time.sleep(0.05)
    if followers is not None:
        followers.close()
    if proc.returncode != 0:
        raise SystemExit(f"dominotable run exited {proc.returncode}")
    during = samples[len(samples) // 5:]  # past start-up: the match itself
    return statistics.median(during), max(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", type=int, default=0, help="serve the page to this many WebSocket clients")
    args = parser.parse_args()
    medians, peaks = [], []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.runs):
            median, peak = one_run(Path(folder), args.clients)
            medians.append(median)
            peaks.append(peak)
    page = f", the page served to {args.clients} clients" if args.clients else ""
    targets = Targets()
    peak = max(peaks) if peaks else None
    targets.check("peak_rss", peak, lambda mb: mb < 80)
    figures = f"median {statistics.median(medians):.1f} MB, peak {peak:.1f} MB" if peaks else "not measured"
    ratio = f"; ratio {peak / 80:.2f}" if peaks else ""
    print(f"dominotable run (simulated, demo match{page}), {args.runs} runs: resident memory {figures} "
          f"(target < 80 MB: {targets.said('peak_rss')}{ratio})")
    targets.done()


if __name__ == "__main__":
    main()
