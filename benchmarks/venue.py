"""A venue under load: twenty table processes publishing to a real broker and a real venue
process, with the broker restarted once mid-run.

Each of `--tables` tables runs `--matches` matches in a row, each in a process of its own, all
tables at once, against one Mosquitto (tests/support/broker.py: password file, the project's ACL, logging
what deploy/mosquitto/mosquitto.conf logs) and one `dominotable venue` process. A table is its
store and its venue link as app/venue.py wires them, committing a demo match's moves (greedy
bots, the demo's options) one by one `--pace-ms` apart (100 ms: a demo's own pace at full speed).
That is what the venue gets of a table, measured apart from the CPU a simulated table spends on
its tray emulator, OLED and runtime, which at a bar runs on the table's own Pi. With `--demos`
each match is a whole `dominotable demo GAME --broker ... --table tN` instead (the virtual tray at
`--speed`), at the lowest CPU priority (nice 19) so that twenty tables' simulations do not starve
the venue and the broker: on two cores they still starve their own links, and the split below
shows it. When half the matches have started, the broker is stopped (SIGTERM) and started again
a second later. A table waits ten seconds at the end of a match for the venue to keep its events;
what a table still holds after its last match is sent as the table would on its next start (a
VenueLink on its database). Then every table's database is compared with the venue's:

- `events`: events the tables numbered; `lost`: those the venue does not have, or a match whose
  moves or result differ from the table's; `duplicated`: matches or events the venue has twice;
- `events_per_s`: events kept at the venue per second of the run (first start to last kept);
- `commit_to_venue_p95_ms` (and p50): from the commit at the table to the keeping at the venue,
  on this machine's clock, the broker's restart included (target: p95 <= 250 ms);
- where the time goes, from a subscriber beside the venue that notes when each event passes the
  broker: `commit_to_broker_p95_ms` (the table: its commit on disk, the link woken, the event
  read and published) and `broker_to_venue_p95_ms` (the venue: received, batched, kept);
  `broker_up_p95_ms` leaves out the `during_outage` events committed while the broker was down;
- `load_1min`: the machine's load average as the run ended (other work beside it counts).

A table whose run fails (with `--demos`, bots that time out: the table did not take a move
within 10 s, twenty simulated tables on two cores starving one another) is counted in
`failed_runs`; what it committed still counts. A target without a measurement is not met, and
the run then exits 1.

Run: python benchmarks/venue.py --tables 20 --matches 3 [--game castle-rock] [--pace-ms 100]
[--demos [--speed 100]]. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the broker is a test tool
import aiomqtt  # noqa: E402
from dominotable.app.demo import DRAIN, demo_choice  # noqa: E402
from dominotable.sim.bots.shared import greedy_bot  # noqa: E402
from dominotable.sim.stats import percentile  # noqa: E402
from dominotable.store.records import Change  # noqa: E402
from dominotable.store.storage import Store  # noqa: E402
from dominotable.venue.broker import Broker  # noqa: E402
from dominotable.venue.link import VenueLink  # noqa: E402
from dominotable.venue.store import VenueStore  # noqa: E402
from support.broker import VENUE_PASSWORD, Mosquitto, free_port  # noqa: E402
from targets import Targets  # noqa: E402

TARGET_P95_MS = 250  # commit to venue, 20 tables, the broker's restart included
PACE_MS = 100  # a demo match's moves come about this often at full speed, when nothing starves it (94 ms)
DEPLOYED_LOG = ("error", "warning", "notice")  # deploy/mosquitto/mosquitto.conf's, not every message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--game", default="castle-rock")
    parser.add_argument("--demos", action="store_true",
                        help="tables play whole demo matches (the simulated tray, OLED and runtime too), at nice 19")
    parser.add_argument("--speed", default="100", help="with --demos: the virtual trays' speed (demo --speed)")
    parser.add_argument("--pace-ms", type=int, default=PACE_MS, help=f"a table's move every so often (default "
                                                                        f"{PACE_MS} ms, a demo's own pace)")
    parser.add_argument("--play", nargs=4, metavar=("TABLE", "DB", "BROKER", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.play:
        return play(*args.play, game=args.game, pace=args.pace_ms / 1000)
    folder = Path(tempfile.mkdtemp(prefix="dominotable-venue-bench-"))
    names = tuple(f"t{n}" for n in range(1, args.tables + 1))
    broker = Mosquitto(folder / "broker", tables=names, log=DEPLOYED_LOG).start()
    observer = Observer(broker).start()  # when each event passes the broker
    port = free_port()
    venue = subprocess.Popen([sys.executable, "-m", "dominotable", "venue", "--broker", broker.url("venue"),
                              "--db", str(folder / "venue.sqlite3"), "--http", f"127.0.0.1:{port}"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: _get(port, "/api/tables").get("broker"), 30, "the venue did not connect")
    started = [0]
    lock = threading.Lock()
    restarted = threading.Event()
    outage = [0.0, 0.0]  # when the broker was stopped, and started again
    failures: list[str] = []

    def table(name: str, first_seed: int) -> None:
        for seed in range(first_seed, first_seed + args.matches):
            with lock:
                started[0] += 1
                restart = started[0] == args.tables * args.matches // 2 + 1 and not restarted.is_set()
                if restart:
                    restarted.set()
            if restart:
                outage[0] = time.time()
                broker.stop()
                time.sleep(1)
                broker.start()
                outage[1] = time.time()
            db = str(folder / f"{name}.sqlite3")
            if args.demos:
                command = ["-m", "dominotable", "demo", args.game, "--seed", str(seed), "--broker", broker.url(name),
                           "--table", name, "--db", db, "--quiet", "--speed", args.speed]
            else:
                command = [__file__, "--game", args.game, "--pace-ms", str(args.pace_ms), "--play", name, db,
                           broker.url(name), str(seed)]
            done = subprocess.run([sys.executable, *command], capture_output=True, text=True,
                                  preexec_fn=(lambda: os.nice(19)) if args.demos else None)
            if done.returncode != 0:
                failures.append(f"{name} seed {seed}: {done.stderr.strip()[-300:]}")

    begin = time.time()
    threads = [threading.Thread(target=table, args=(name, 1000 * n)) for n, name in enumerate(names)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    left = [name for name in names if _pending(folder / f"{name}.sqlite3")]
    for name in left:  # the table's next start sends what it still holds
        link = VenueLink(folder / f"{name}.sqlite3", name, Broker.parse(broker.url(name))).start()
        link.drain(60)
        link.stop()
    expected = sum(_numbered(folder / f"{name}.sqlite3") for name in names)
    kept = VenueStore(folder / "venue.sqlite3")
    wait_for(lambda: kept.counts()["events"] >= expected, 60, "the venue did not get every event")
    venue.send_signal(signal.SIGTERM)
    venue.wait(timeout=30)
    observer.stop()
    broker.stop()
    lost, duplicated = compare(kept, folder, names)
    rows = kept.db.execute("SELECT table_id, uid, seq, time, stored FROM events").fetchall()
    stamp = {(t, u, q): (_epoch(c), _epoch(k)) for t, u, q, c, k in rows}
    last = max(kept for _, kept in stamp.values())
    latencies = [1000 * (kept - committed) for committed, kept in stamp.values()]
    steady = [1000 * (kept - committed) for committed, kept in stamp.values()
              if not outage[0] - 0.1 <= committed <= outage[1] + 0.1]  # committed while the broker was up
    seen = {key: at for key, at in observer.seen.items() if key in stamp}
    to_broker = [1000 * (at - stamp[key][0]) for key, at in seen.items()]
    to_venue = [1000 * (stamp[key][1] - at) for key, at in seen.items()]
    figures = {
        "tables": args.tables, "matches": args.tables * args.matches, "events": expected,
        "events_per_s": round(len(stamp) / (last - begin), 1),
        "commit_to_venue_p95_ms": _ms(percentile(latencies, 0.95)),
        "commit_to_venue_p50_ms": _ms(percentile(latencies, 0.5)),
        "broker_up_p95_ms": _ms(percentile(steady, 0.95)),  # the events committed while the broker ran
        "commit_to_broker_p95_ms": _ms(percentile(to_broker, 0.95)),  # the table: wake, outbox, publish
        "broker_to_venue_p95_ms": _ms(percentile(to_venue, 0.95)),  # the venue: receive, batch, store
        "during_outage": len(latencies) - len(steady),
        "lost": lost, "duplicated": duplicated, "broker_restarts": int(restarted.is_set()),
        "tables_sending_after_their_run": len(left), "failed_runs": len(failures),
        "load_1min": round(os.getloadavg()[0], 2)}
    targets = Targets()
    targets.check("lost", lost, lambda n: n == 0)
    targets.check("duplicated", duplicated, lambda n: n == 0)
    targets.check("commit_to_venue_p95", figures["commit_to_venue_p95_ms"], lambda ms: ms <= TARGET_P95_MS)
    figures["targets_met"] = targets.met
    print(json.dumps(figures), flush=True)
    for failure in failures:
        print(failure, file=sys.stderr)
    targets.done()


def play(name: str, db: str, broker: str, seed: str, game: str, pace: float) -> None:
    """A table's store and venue link in a process of its own, as app/venue.py wires them, with
    greedy bots' moves committed one by one `pace` seconds apart: what the venue gets of a table,
    without the simulated tray, OLED and runtime a demo adds (at a bar those run on the table's
    own Pi)."""
    choice = demo_choice(game)  # the demo's match: its players, its short options
    match = choice.game(players=choice.players, options=choice.options, seed=int(seed))
    bot = greedy_bot(random.Random(seed))
    with Store(db) as store:
        store.publish()
        link = VenueLink(db, name, Broker.parse(broker)).start()
        store.outbox.told.append(link.wake)
        try:
            match_id = store.start_match(match, choice.names, demo=True)
            while not match.is_over():
                time.sleep(pace)
                move = bot(match)
                match.push(move)
                store.commit(match_id, Change(len(match.moves) - 1, (str(move),)))
            store.finish(match_id, match)
            link.drain(DRAIN)
        finally:
            link.stop()


class Observer:
    """A subscriber beside the venue (its credentials, another client id) noting when each event
    first passes the broker: what splits commit-to-venue into the table's part and the venue's."""

    def __init__(self, broker: Mosquitto):
        self.broker = Broker.parse(broker.url("venue"))
        self.seen: dict[tuple[str, str, int], float] = {}
        self.loop = asyncio.new_event_loop()
        self._task = self.loop.create_task(self._follow())
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Observer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(timeout=10)

    def _run(self) -> None:
        try:
            self.loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            pass

    async def _follow(self) -> None:
        while True:
            try:
                async with aiomqtt.Client(self.broker.host, self.broker.port, identifier="bench-observer",
                                          username="venue", password=VENUE_PASSWORD) as client:
                    await client.subscribe("dominotable/tables/+/events", qos=0)
                    async for message in client.messages:
                        at = time.time()
                        event = json.loads(message.payload)
                        self.seen.setdefault((event["table"], event["uid"], event["seq"]), at)
            except aiomqtt.MqttError:
                await asyncio.sleep(0.1)  # the broker's restart


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def compare(kept: VenueStore, folder: Path, names: tuple[str, ...]) -> tuple[int, int]:
    """(lost, duplicated): events and matches of the tables the venue lacks, and has twice."""
    lost = duplicated = 0
    venue_matches: dict[tuple[str, int], list] = {}
    for record in kept.matches():
        venue_matches.setdefault((record.table, record.table_match), []).append(record)
    (events,) = kept.db.execute("SELECT count(*) FROM events").fetchone()
    for name in names:
        with Store(folder / f"{name}.sqlite3", create=False) as table:
            for record in table.matches():
                theirs = venue_matches.pop((name, record.id), [])
                duplicated += max(len(theirs) - 1, 0)
                mine = table.match(record.id)
                if not theirs:
                    lost += 1
                    continue
                full = kept.match(theirs[0].id)
                if (full.moves, full.result) != (mine.moves, mine.result):
                    lost += 1
    duplicated += len(venue_matches)  # matches no table has
    expected = sum(_numbered(folder / f"{name}.sqlite3") for name in names)
    return lost + max(expected - events, 0), duplicated + max(events - expected, 0)


def _numbered(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return sum(seq for (seq,) in db.execute("SELECT seq FROM outbox_matches"))


def _pending(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM outbox").fetchone()[0]


def _get(port: int, path: str) -> dict:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            return json.loads(response.read())
    except OSError:
        return {}


def wait_for(predicate, timeout: float, why: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(why)
        time.sleep(0.1)


if __name__ == "__main__":
    main()
