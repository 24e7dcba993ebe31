"""Crash safety of the whole table: the host process (tray emulator, link, session, bots, all
in one process) is killed with SIGKILL at 50 random points of a scripted match and started
again each time; the match resumes from SQLite ("restore the table": the bots lay the stored
position out on the fresh virtual tray) and ends exactly as the uninterrupted match does.

The processes are forked from a forkserver that has the table imported already, so a restart
costs the table's start-up, not Python's."""

from __future__ import annotations

import multiprocessing
import random
import sqlite3
import threading
import time

from dominotable.app.demo import choose
from dominotable.match.replay import replay
from dominotable.store.storage import Store
from support import table_match

GAME = "castle-rock-solitaire"
SEED = 11
KILLS = 50


def host(db: str) -> None:
    table_match.bot_match(db, GAME, seed=SEED, timeout=60)


def engine_moves(name: str = GAME, seed: int = SEED) -> list[str]:
    """The match the bots play, in the engine alone (their choices depend on seed and position)."""
    choice = table_match.demo_choice(name, None, table_match.SHORT[name])
    game = choice.game(players=choice.players, options=choice.options, seed=seed, observed=True)
    while not game.is_over():
        game.push(choose(game, seed))
    return [str(m) for m in game.moves]


def moves_in(db) -> tuple[int, bool]:
    """(moves recorded, finished) of the database's match, read as another process would."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
    except sqlite3.OperationalError:
        return 0, False
    try:
        row = con.execute("SELECT id, finished FROM matches ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return 0, False
        count = con.execute("SELECT count(*) FROM moves WHERE match_id = ?", (row[0],)).fetchone()[0]
        return count, row[1] is not None
    except sqlite3.OperationalError:
        return 0, False
    finally:
        con.close()


def test_killed_at_50_random_points_the_resumed_match_ends_identically(tmp_path):
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["support.table_match", "dominotable.rules.games", "dominotable.reading.games"])

    whole_db = tmp_path / "whole.sqlite3"
    uninterrupted = ctx.Process(target=host, args=(str(whole_db),))
    uninterrupted.start()  # alongside the killed one: its moves are compared at the end
    total = len(engine_moves())
    assert total > 20

    rng = random.Random(SEED)
    points = sorted(rng.randrange(total) for _ in range(KILLS))  # kill once move k is stored, a moment later
    db = tmp_path / "killed.sqlite3"
    kills = restarts = 0
    while True:
        p = ctx.Process(target=host, args=(str(db),))
        p.start()
        restarts += 1
        target = points[kills] if kills < KILLS else None
        while p.is_alive():
            count, finished = moves_in(db)
            if target is not None and count >= target:
                time.sleep(rng.uniform(0, 0.05))
                p.kill()
                kills += 1
                break
            time.sleep(0.01)
        p.join(30)
        count, finished = moves_in(db)
        if finished:
            break
        assert restarts < KILLS + 5, f"no progress: {count} moves after {restarts} starts"
    uninterrupted.join(90)
    assert uninterrupted.exitcode == 0
    with Store(whole_db) as store:
        whole = store.match(store.matches()[0].id)
    assert whole.finished is not None and whole.moves == engine_moves()
    with Store(db) as store:
        resumed = store.match(store.matches()[0].id)
    assert kills >= KILLS - 2  # a kill may come after the last move: then the match is finished
    assert resumed.moves == whole.moves
    assert resumed.result == whole.result
    assert replay(resumed).scores == whole.result["scores"]


def test_a_stopped_match_resumes_after_the_table_is_restored_from_its_moves(tmp_path):
    """Up-Down-Stop has no `layout` of its own: the bots restore the fresh virtual tray by
    replaying the stored moves' actions, the session waits ("Restore the table") until the
    tray shows the stored position, then the match goes on to the engine's end."""
    name, seed = "up-down-stop", 2
    db = tmp_path / "uds.sqlite3"
    shown = []

    def stop_after_8(runtime):
        def run():
            while runtime.session is None or len(runtime.session.referee.game.moves) < 8:
                time.sleep(0.005)
            runtime.stop()
        threading.Thread(target=run, daemon=True).start()

    def watch_restore(runtime):
        def run():
            while not runtime.stopped:
                session = runtime.session
                if session is not None:
                    shown.append(session.screen().title)
                time.sleep(0.005)
        threading.Thread(target=run, daemon=True).start()

    first, record, _ = table_match.bot_match(db, name, seed=seed, before=stop_after_8)
    assert not first.is_over() and record.finished is None and len(record.moves) >= 8
    final, record, _ = table_match.bot_match(db, name, seed=seed, before=watch_restore)
    assert "Restore the table" in shown
    assert final.is_over() and record.moves == engine_moves(name, seed)
    assert replay(record).scores == record.result["scores"]
