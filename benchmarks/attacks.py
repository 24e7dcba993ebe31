"""Attacks and faults against a live table (issue 17): each row does to a real `dominotable`
what an attacker, a careless user or a failing card would, and says what came of it.

A row is a function in ATTACKS: it gets a Lab (a fresh folder, the commands a person would
type, a live `dominotable run` on a temporary database with the virtual tray and the page on
127.0.0.1, a mount namespace of its own for read-only and small file systems) and returns a Row:
the attack, what the table is expected to do, what it did, and whether that held. Add a row by
adding a function to the list.

Rows of the web and of the wire are in attacks_web.py and attacks_wire.py, run here too.

Run as root (the namespaces): python benchmarks/attacks.py [--part store web wire] [--only NAME ...] [--json]
Prints the table `attack | expected | got | held`; exits 1 if any row did not hold.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from dominotable.games import catalog
from dominotable.match.replay import replay
from dominotable.store.records import Change
from dominotable.store.schema import SCHEMA_VERSION
from dominotable.store.storage import Store

PYTHON = sys.executable
URL = re.compile(r"the table page: (http://\S+/)")


@dataclass
class Row:
    attack: str
    expected: str
    got: str
    held: bool


class Live:
    """A `dominotable run` in its own process, serving the page on a free loopback port."""

    def __init__(self, argv: list[str], prefix: tuple[str, ...] = ()):
        self.proc = subprocess.Popen([*prefix, PYTHON, "-m", "dominotable", *argv, "--http", "127.0.0.1:0"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.url = self._url()

    def _url(self, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if found := URL.search(line):
                return found[1]
        self.proc.kill()
        raise RuntimeError(f"the table never served its page: {self.proc.stderr.read()[-500:]}")

    def state(self) -> dict | None:
        """What this benchmark reads of the page's /api/state (its screen), None if the table does not answer."""
        try:
            with urllib.request.urlopen(self.url + "api/state", timeout=5) as response:
                screen = json.loads(response.read())["screen"]
        except (OSError, ValueError, KeyError):
            return None
        game = screen.get("game") or {}
        return {"moves": game.get("moves"), "mode": game.get("mode"), "prompt_title": screen.get("title"),
                "prompt": screen.get("text"), "scores": screen.get("scores", [])}

    def alive(self) -> bool:
        return self.proc.poll() is None and self.state() is not None

    def stop(self) -> tuple[int, str]:
        """SIGTERM, then the exit code and what it wrote on stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        return code, self.proc.stderr.read()


class Lab:
    """A fresh folder for one row, and the ways in."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.config = folder / "config.toml"
        self.config.write_text('[tray]\nport = "none"\n[display]\nterminal = false\n[game]\nsettle_ms = 50\n')

    def command(self, *argv: str, prefix: tuple[str, ...] = (), timeout: float = 30) -> tuple[int | str, str, float]:
        """`dominotable argv` as a person runs it: exit code ("hung" past `timeout`), stderr, seconds."""
        start = time.monotonic()
        try:
            done = subprocess.run([*prefix, PYTHON, "-m", "dominotable", *argv], capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return "hung", "", time.monotonic() - start
        return done.returncode, done.stderr, time.monotonic() - start

    @contextlib.contextmanager
    def table(self, db: Path, *argv: str, prefix: tuple[str, ...] = ()) -> Iterator[Live]:
        live = Live(["run", "--config", str(self.config), "--db", str(db), *argv], prefix)
        try:
            yield live
        finally:
            live.stop()

    def recorded(self, name: str = "table.db") -> Path:
        """A database holding one short match of real moves."""
        path = self.folder / name
        game = catalog.engine("castle-rock")(players=2, options={"hands": 1}, seed=1)
        with Store(path) as store:
            match_id = store.start_match(game, ["Ann", "Bob"])
            for ply in range(1, 7):
                move = next(iter(game.legal_moves()))
                game.push(move)
                store.commit(match_id, Change(ply - 1, (str(move),)))
        return path

    def namespace(self, script: str) -> tuple[str, ...]:
        """A prefix running a command after `script` (sh), in a mount namespace of its own."""
        return ("unshare", "-m", "--propagation", "private", "sh", "-ec", script + '\nexec "$@"', "sh")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line(code, err: str, seconds: float | None = None) -> str:
    first = err.strip().splitlines()[0] if err.strip() else ""
    lines = len(err.strip().splitlines())
    timing = f" in {seconds:.1f} s" if seconds is not None else ""
    return f"exit {code}{timing}, {lines} line{'s' * (lines != 1)}: {first[:220]}"


def refused(code, err: str) -> bool:
    return code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


# --- the rows --------------------------------------------------------------------------------------

def unwritable_database(lab: Lab) -> Row:
    """The database file read-only in a writable folder (a read-only bind mount: chmod does not
    stop root). It used to fail at the first move with a traceback and exit 1."""
    db = lab.recorded()
    before = digest(db)
    code, err, seconds = lab.command("run", "--config", str(lab.config), "--db", str(db), "--http", "127.0.0.1:0",
                                     prefix=lab.namespace(f"mount --bind {db} {db}; mount -o remount,ro,bind {db} {db}"))
    return Row("unwritable database file (writable folder)", "one line 'database … is read-only: …', exit 2, "
               "before any play", one_line(code, err, seconds),
               refused(code, err) and "is read-only" in err and digest(db) == before)


def foreign_database(lab: Lab) -> Row:
    """--db naming another program's SQLite database: it used to be altered, then a traceback."""
    db = lab.folder / "accounts.sqlite"
    with contextlib.closing(sqlite3.connect(db)) as other:
        other.executescript("PRAGMA journal_mode=WAL; CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT);"
                            "INSERT INTO accounts (owner) VALUES ('the bar');")
    before = digest(db)
    code, err, seconds = lab.command("run", "--config", str(lab.config), "--db", str(db), "--http", "127.0.0.1:0")
    same = digest(db) == before
    return Row("another program's database as --db", "one line 'not a dominotable database', exit 2, "
               "the file byte for byte as it was", one_line(code, err, seconds) + ("; file unchanged" if same else
                                                                                   "; FILE CHANGED"),
               refused(code, err) and "not a dominotable database" in err and same)


def future_schema(lab: Lab) -> Row:
    db = lab.recorded()
    with contextlib.closing(sqlite3.connect(db)) as con:
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        con.commit()
    before = digest(db)
    code, err, seconds = lab.command("run", "--config", str(lab.config), "--db", str(db), "--http", "127.0.0.1:0")
    same = digest(db) == before
    return Row("a newer dominotable's database (user_version + 1)", "one line 'written by a newer dominotable', "
               "exit 2, unchanged", one_line(code, err, seconds) + ("; file unchanged" if same else "; FILE CHANGED"),
               refused(code, err) and "newer dominotable" in err and same)


def second_run(lab: Lab) -> Row:
    db = lab.recorded()
    with lab.table(db) as first:
        code, err, seconds = lab.command("run", "--config", str(lab.config), "--db", str(db), "--http", "127.0.0.1:0")
        history, _, _ = lab.command("history", "--db", str(db))
        serving = first.alive()
    names = f"pid {first.proc.pid}" in err
    return Row("a second `run` on the held database", "one line naming the holder's pid, exit 2; the first table "
               "serves on; history reads", one_line(code, err, seconds) + f"; first serving: {serving}; "
               f"history exit {history}", refused(code, err) and names and serving and history == 0)


def disk_full_mid_match(lab: Lab) -> Row:
    """The database on a small tmpfs; mid-match another file takes the rest of the disk, then is
    removed. Runs inside a mount namespace (the row re-runs this script there)."""
    done = subprocess.run(["unshare", "-m", "--propagation", "private", PYTHON, __file__, "--inside",
                           "disk_full_inside", "--folder", str(lab.folder)], capture_output=True, text=True,
                          timeout=600)
    try:
        return Row(**json.loads(done.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError, TypeError):
        return Row("disk full mid-match", "", f"the row failed: {done.stderr.strip()[-300:]}", False)


def disk_full_inside(lab: Lab) -> Row:
    small = lab.folder / "small"
    small.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "dominotable-attack", str(small)], check=True)
    db = small / "table.db"
    expected = ("moves refused with a notice while full, the table keeps running, the match goes on once "
                "space returns; the store replays to the table's position")
    got, notice = [], None
    with lab.table(db, "--demo", "--seed", "3") as table:
        deadline = time.monotonic() + 60
        while (state := table.state()) is not None and (state.get("moves") or 0) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        filler = small / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 65536)
        os.close(fd)
        full_at = (table.state() or {}).get("moves")
        notice, deadline = None, time.monotonic() + 20  # full until the table says so (a move refused)
        while notice is None and (during := table.state()) is not None and time.monotonic() < deadline:
            if "disk is full" in f"{during.get('prompt_title')} {during.get('prompt')}":
                notice = f"{during.get('prompt_title')}: {during.get('prompt')}"
            time.sleep(0.05)
        time.sleep(1)
        during = table.state()
        if during is not None:
            got.append(f"filled at move {full_at}; alive, moves {during.get('moves')}, notice "
                       + (repr(notice[:140]) if notice else "none in 20 s"))
        filler.unlink()
        deadline = time.monotonic() + 120
        while (state := table.state()) is not None and state.get("mode") != "over" and time.monotonic() < deadline:
            time.sleep(0.2)
        final = table.state()
        if during is not None:
            got.append("freed: " + (f"mode {final.get('mode')}, moves {final.get('moves')}" if final else "not running"))
        code, err = table.stop()
    if during is None:
        last = [line for line in err.strip().splitlines() if line.strip()][-1:] or [""]
        got.append(f"filled at move {full_at}; run ended, exit {code}: {last[0][:160]}")
    replays = False
    try:
        with Store(db, create=False) as store:
            game = replay(store.match(store.matches()[0].id))
        got.append(f"store: {len(game.moves)} moves, they replay")
        replays = final is not None and len(game.moves) == final.get("moves") and game.scores == [
            s["points"] for s in final.get("scores", [])]
    except Exception as exc:  # the row reports whatever the store says
        got.append(f"store: {exc}")
    held = notice is not None and final is not None and final.get("mode") == "over" and replays and code == 0
    return Row("disk full mid-match (a real 4 MB tmpfs), then freed", expected, "; ".join(got), held)


def replay_dev_zero(lab: Lab) -> Row:
    code, err, seconds = lab.command("replay", "/dev/zero")
    return Row("replay /dev/zero", "one line, exit 2, at once", one_line(code, err, seconds),
               refused(code, err) and seconds < 10)


def config_dev_zero(lab: Lab) -> Row:
    code, err, seconds = lab.command("run", "--config", "/dev/zero")
    return Row("run --config /dev/zero", "one line, exit 2, at once", one_line(code, err, seconds),
               refused(code, err) and seconds < 10)


def nested_replay(lab: Lab) -> Row:
    path = lab.folder / "deep.json"
    path.write_text("[" * 15000 + "]" * 15000)
    code, err, seconds = lab.command("replay", str(path))
    return Row("replay of 15,000 nested brackets", "one line naming the depth, exit 2, no RecursionError",
               one_line(code, err, seconds), refused(code, err) and "deep" in err)


ATTACKS: list[Callable[[Lab], Row]] = [
    unwritable_database, foreign_database, future_schema, second_run, disk_full_mid_match,
    replay_dev_zero, config_dev_zero, nested_replay,
]


def run_row(attack: Callable[[Lab], Row]) -> Row:
    with tempfile.TemporaryDirectory(prefix=f"attack-{attack.__name__}-") as folder:
        try:
            return attack(Lab(Path(folder)))
        except Exception as exc:  # a row that could not be run is reported, not a traceback
            return Row(attack.__name__, "", f"the row failed: {type(exc).__name__}: {exc}", False)


def table(rows: list[Row]) -> str:
    lines = ["| attack | expected | got | held |", "|---|---|---|---|"]
    lines += [f"| {r.attack} | {r.expected} | {r.got.replace('|', '/')} | {'yes' if r.held else 'NO'} |" for r in rows]
    return "\n".join(lines)


def web_rows() -> list[Row]:
    """The web's rows (attacks_web.py) against one live `run` serving the page to the LAN."""
    import attacks_web

    with tempfile.TemporaryDirectory(prefix="attack-web-") as folder:
        target = attacks_web.Target(Path(folder))
        try:
            return [_row(name, expected, lambda: attack(target)) for name, expected, attack in attacks_web.ROWS]
        finally:
            target.close()


def wire_rows() -> list[Row]:
    """The wire's rows (attacks_wire.py): bad frames from a scripted tray against a live `run`."""
    import attacks_wire

    return [_row(name, expected, attack) for name, expected, attack in attacks_wire.ROWS]


def _row(name: str, expected: str, attack: Callable[[], str]) -> Row:
    try:
        got = attack()
    except Exception as exc:  # an attack that breaks the harness is a row that did not hold
        got = f"{type(exc).__name__}: {exc}"
    return Row(name, expected, got, got == expected)


PARTS = ("store", "web", "wire")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", nargs="+", choices=PARTS, default=list(PARTS),
                        help="which rows: the store and inputs (here), the web (attacks_web.py), the wire "
                             "(attacks_wire.py); default all")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these store rows (function names)")
    parser.add_argument("--json", action="store_true", help="one JSON object a row instead of the table")
    parser.add_argument("--inside", help=argparse.SUPPRESS)  # a row's part run in its own namespace
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        print(json.dumps(asdict(globals()[args.inside](Lab(Path(args.folder))))))
        return 0
    if shutil.which("unshare") is None or os.geteuid() != 0:
        print("note: the namespace rows need root and unshare (util-linux)", file=sys.stderr)
    chosen = [a for a in ATTACKS if not args.only or a.__name__ in args.only] if "store" in args.part else []
    rows = []
    for attack in chosen:
        rows.append(run_row(attack))
        if args.json:
            print(json.dumps(asdict(rows[-1])), flush=True)
    for part, make in (("web", web_rows), ("wire", wire_rows)):
        if part in args.part:
            for row in make():
                rows.append(row)
                if args.json:
                    print(json.dumps(asdict(row)), flush=True)
    if not args.json:
        print(table(rows))
    return 0 if all(r.held for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
