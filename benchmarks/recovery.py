"""A damaged database: what the table recovers, and what it costs.

For a database of 1000 real matches (tests/support/damage.py builds it with the table's Store, and
applies the same damage kinds the tests check):

- opening it for the table (`Store(path)`: WAL, the schema, and the `PRAGMA quick_check` that
  tells a damaged file), median of several opens, with the check's share;
- per damage kind: matches recovered whole (checked against the recorded moves) out of the
  matches recorded, matches set aside as damaged, and the recovery's wall and CPU time;
- for comparison, SQLite's own `.recover` (its command-line shell, when installed): matches
  whose moves come back complete in the `matches` and `moves` tables it rebuilds.

Run: python benchmarks/recovery.py [--matches 1000] [--opens 7]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from dominotable.match.replay import replay  # noqa: E402
from dominotable.store.recovery import recover  # noqa: E402
from dominotable.store.storage import Store  # noqa: E402
from support import damage  # noqa: E402 (the tests' damage kinds)


def open_times(path: Path, runs: int) -> tuple[float, float]:
    """Median seconds to open for the table, and of the quick_check within it."""
    opens, checks = [], []
    for _ in range(runs):
        start = time.perf_counter()
        store = Store(path)
        opens.append(time.perf_counter() - start)
        start = time.perf_counter()
        store.db.execute("PRAGMA quick_check").fetchall()
        checks.append(time.perf_counter() - start)
        store.close()
    return statistics.median(opens), statistics.median(checks)


def whole(moves: dict[int, list[str]], found: dict[int, list[str]]) -> int:
    """Matches that came back with all their moves."""
    return sum(1 for match_id, notations in moves.items() if found.get(match_id) == notations)


def ours(path: Path, moves: dict[int, list[str]]) -> tuple[int, int, float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    salvage = recover(path, replay)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    with Store(path) as store:
        found = {r.id: store.match(r.id).moves for r in store.matches() if r.damaged is None}
    return whole(moves, found), len(salvage.set_aside), seconds, cpu


def sqlite_recover(path: Path, moves: dict[int, list[str]]) -> str:
    shell = shutil.which("sqlite3")
    if shell is None:
        return "not installed"
    out = path.with_name("recovered.sqlite3")
    dump = subprocess.run([shell, str(path), ".recover"], capture_output=True, text=True, errors="replace")
    if dump.returncode != 0:  # Debian's 3.40.1 shell: "SQL logic error" even on a sound file
        return "fails: " + dump.stderr.strip()[:30]
    subprocess.run([shell, str(out)], input=dump.stdout, capture_output=True, text=True)
    db = sqlite3.connect(out)
    try:
        found: dict[int, list[str]] = {}
        ids = {row[0] for row in db.execute("SELECT id FROM matches WHERE game IS NOT NULL")}
        for match_id, _, notation in db.execute("SELECT match_id, ply, notation FROM moves ORDER BY match_id, ply"):
            if match_id in ids:
                found.setdefault(match_id, []).append(notation)
    except sqlite3.Error:
        return f"0 / {len(moves)}"
    finally:
        db.close()
    return f"{whole(moves, found)} / {len(moves)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--opens", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.sqlite3"
        moves = damage.build(base, args.matches)
        print(f"{args.matches} matches, {sum(map(len, moves.values()))} moves, "
              f"{base.stat().st_size / 1e6:.1f} MB")
        opened, check = open_times(base, args.opens)
        print(f"open for the table: median {opened * 1000:.1f} ms, of which quick_check {check * 1000:.1f} ms")
        print(f"{'damage':<10} {'recovered whole':>16} {'set aside':>10} {'wall':>8} {'CPU':>8}  sqlite3 .recover")
        for kind in damage.KINDS:
            path = Path(tmp) / kind / "table.sqlite3"
            path.parent.mkdir()
            shutil.copy(base, path)
            damage.damage(path, kind)
            theirs = sqlite_recover(path, moves)
            got, aside, seconds, cpu = ours(path, moves)
            print(f"{kind:<10} {f'{got} / {len(moves)}':>16} {aside:>10} {seconds:>7.2f}s {cpu:>7.2f}s  {theirs}")


if __name__ == "__main__":
    main()
