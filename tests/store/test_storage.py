"""Scorekeeping in a real SQLite file: recording, resume, kill -9, history, leaderboard, replay.

The matches are real games played out by the shared random bot: Castle Rock (two seats),
Broadway (partnerships: four seats, two sides) and Doubles in the Boneyard (three seats).
"""

import json
import os
import random
import signal
import sqlite3
import time

import pytest
from dominotable.app import cli
from dominotable.games import catalog
from dominotable.match.replay import replay
from dominotable.sim.bots.shared import play_out, random_bot
from dominotable.store.errors import StorageError
from dominotable.store.storage import Store
from dominotable.views.ratings import rate

SHORT = {"castle-rock": {"hands": 1}, "broadway": {"hands": 1}, "doubles-in-the-boneyard": {"target": 50}}


def fresh(name="castle-rock", seed=1, players=None):
    cls = catalog.engine(name)
    return cls(players=players or (2 if name == "castle-rock" else None), options=SHORT.get(name), seed=seed)


def scripted(name="castle-rock", seed=1, players=None):
    """A whole short match, played by the random bot."""
    return play_out(fresh(name, seed, players), [random_bot(random.Random(seed))])


def record(store, game, names, moves=None):
    """Record a game as the controller does: start, then each move committed."""
    match_id = store.start_match(fresh(game.name, game.seed, game.players), names)
    for ply, move in enumerate(game.moves[:moves], 1):
        store.append_move(match_id, ply, str(move))
    return match_id


def state_of(game):
    return game.scores, game.current_player, [str(m) for m in game.legal_moves()], game.is_over()


def test_database_is_wal_with_full_sync(tmp_path):
    store = Store(tmp_path / "t.db")
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_moves_are_committed_as_appended_and_resume_rebuilds_exactly(tmp_path):
    game = scripted("doubles-in-the-boneyard", seed=2)
    path = tmp_path / "t.db"
    store = Store(path)
    match_id = store.start_match(fresh(game.name, game.seed), ["Ann", "Bob", "Cy"])
    half = len(game.moves) // 2
    twin = fresh(game.name, game.seed)  # the same match, uninterrupted
    for ply, move in enumerate(game.moves[:half], 1):
        store.append_move(match_id, ply, str(move))
        twin.push(move)
        # another connection (a restarted process) already sees the move: it is committed
        other = sqlite3.connect(path)
        assert other.execute("SELECT count(*) FROM moves").fetchone()[0] == ply
        other.close()
    store.db.close()  # no clean shutdown is needed
    del store  # (the table's lock goes with the process)

    store = Store(path)
    cut_off = store.match(store.unfinished())
    assert cut_off.id == match_id and cut_off.names == ["Ann", "Bob", "Cy"]
    assert cut_off.moves == [str(m) for m in game.moves[:half]]
    resumed = replay(store.match(match_id))
    assert resumed.options == twin.options and resumed.seed == game.seed
    assert state_of(resumed) == state_of(twin)
    for move in game.moves[half:]:
        resumed.push_notation(str(move))
    assert resumed.scores == game.scores and resumed.winners() == game.winners()


def test_take_back_removes_only_the_last_move(tmp_path):
    game = scripted()
    store = Store(tmp_path / "t.db")
    match_id = record(store, game, ["Ann", "Bob"], moves=3)
    with pytest.raises(StorageError, match="move 2 is not the last move"):
        store.take_back(match_id, 2)
    store.take_back(match_id, 3)
    assert store.match(match_id).moves == [str(m) for m in game.moves[:2]]
    store.append_move(match_id, 3, str(game.moves[2]))
    assert store.match(match_id).moves == [str(m) for m in game.moves[:3]]


def test_a_move_number_cannot_be_recorded_twice(tmp_path):
    game = scripted()
    store = Store(tmp_path / "t.db")
    match_id = record(store, game, ["Ann", "Bob"], moves=1)
    with pytest.raises(StorageError, match="already has a move 1"):
        store.append_move(match_id, 1, str(game.moves[1]))
    assert store.match(match_id).moves == [str(game.moves[0])]


def test_start_match_checks_names(tmp_path):
    store = Store(tmp_path / "t.db")
    with pytest.raises(StorageError, match="2 seats but 3 names"):
        store.start_match(fresh(), ["A", "B", "C"])
    with pytest.raises(StorageError, match="needs a player name"):
        store.start_match(fresh(), ["A", " "])
    with pytest.raises(StorageError, match="ann is named for two seats"):
        store.start_match(fresh(), ["ann", "Ann"])
    assert store.matches() == []


def test_a_file_that_is_not_a_database_is_named(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a database, just some text that is long enough to have a header " * 20)
    with pytest.raises(StorageError, match=f"{path} is not a dominotable database: it is not an SQLite file"):
        Store(path)
    assert path.read_text().startswith("not a database")
    with pytest.raises(StorageError, match=f"{tmp_path} is not a database: it is a folder"):
        Store(tmp_path)


def test_a_move_that_does_not_replay_is_named(tmp_path):
    game = fresh("doubles-in-the-boneyard")
    first = next(iter(game.legal_moves()))
    game.push(first)
    store = Store(tmp_path / "t.db")
    match_id = store.start_match(fresh("doubles-in-the-boneyard"), ["Ann", "Bob", "Cy"])
    store.append_move(match_id, 1, str(first))
    store.append_move(match_id, 2, str(first))  # the same tile again
    reason = game.why_illegal(first)
    with pytest.raises(Exception, match=rf"move 2 \({first}\).*{reason}"):
        replay(store.match(match_id))


def test_unfinished_is_none_once_every_match_is_finished(tmp_path):
    store = Store(tmp_path / "t.db")
    game = scripted()
    match_id = record(store, game, ["Ann", "Bob"])
    store.finish(match_id, game)
    assert store.unfinished() is None
    with pytest.raises(StorageError, match="not an unfinished match"):
        store.finish(match_id, game)


def test_ratings_count_stored_matches_and_wins_per_name_and_side(tmp_path):
    store = Store(tmp_path / "t.db")
    expected = {}

    def count(game, names):
        store.finish(record(store, game, names), game)
        for seat, name in enumerate(names):
            row = expected.setdefault((game.name, name), [0, 0])
            row[0] += 1
            row[1] += game.side_of(seat) in game.winners()

    for seed in (1, 2):
        count(scripted(seed=seed), ["Ann", "Bob"])
    broadway = scripted("broadway", seed=4)
    assert broadway.side_of(0) == broadway.side_of(2) != broadway.side_of(1)
    count(broadway, ["Ann", "Cy", "Bob", "Dee"])  # Ann and Bob are partners here
    # a resignation: the engine has no winner yet, the controller names the other side
    resigned = fresh(seed=9)
    match_id = store.start_match(resigned, ["bob", "Cy"])  # names match case-insensitively
    store.finish(match_id, resigned, ending="resigned", winners=[1])
    expected["castle-rock", "Bob"][0] += 1
    expected["castle-rock", "Cy"] = [1, 1]
    # an abandoned match counts for nobody
    abandoned = fresh(seed=10)
    store.finish(store.start_match(abandoned, ["Ann", "Eve"]), abandoned, ending="abandoned")

    boards = rate(store.matches())
    assert {(b.game, p.name): [p.matches, p.wins] for b in boards for p in b.players} == expected


def _append_until_killed(path, match_id, script, write_fd):
    """The child: resume like a restarted table, then commit moves, reporting each commit."""
    status = 1
    try:
        store = Store(path)
        game = replay(store.match(match_id))
        os.write(write_fd, b"resumed\n")
        for notation in script[len(game.moves):]:
            game.push_notation(notation)
            store.append_move(match_id, len(game.moves), notation)
            os.write(write_fd, f"{len(game.moves)}\n".encode())
        status = 0
    finally:
        os._exit(status)


def test_kill_9_at_random_points_loses_no_committed_move(tmp_path):
    """SIGKILL a process appending moves, many times: the file always reopens to a prefix of
    the script that holds every move whose commit had returned, and the match resumes exactly."""
    rng = random.Random(2024)
    path = tmp_path / "kill.db"
    kills = seed = 0
    while kills < KILLS:
        seed += 1
        game = scripted(seed=seed)
        script = [str(m) for m in game.moves]
        with Store(path) as store:
            match_id = store.start_match(fresh(seed=seed), ["Ann", "Bob"])
        recorded = 0
        while recorded < len(script):
            confirmed, status = recorded, _run_child(path, match_id, script, rng, kill=kills < KILLS)
            kills += os.WIFSIGNALED(status[0])
            assert not os.WIFEXITED(status[0]) or os.WEXITSTATUS(status[0]) == 0
            confirmed = max(confirmed, status[1])
            with Store(path) as store:
                moves = store.match(match_id).moves
            assert moves == script[:len(moves)]
            assert len(moves) >= confirmed
            recorded = len(moves)
        # the last restart played the match to its end, exactly as without the kills
        with Store(path) as store:
            resumed = replay(store.match(match_id))
        assert resumed.scores == game.scores and resumed.winners() == game.winners() and resumed.is_over()


KILLS = 30


def _run_child(path, match_id, script, rng, kill):
    """Fork a child that appends moves; kill it at a random moment. (wait status, last confirmed ply)"""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _append_until_killed(path, match_id, script, write_fd)
    os.close(write_fd)
    confirmed = 0
    with os.fdopen(read_fd) as reports:
        if kill:
            # kill while it opens and resumes, or a random way into the commit after the k-th
            if rng.random() < 0.85:
                reports.readline()
                last = time.monotonic()
                interval = 0.003
                for _ in range(rng.randrange(3)):
                    line = reports.readline()
                    if not line:
                        break
                    confirmed = int(line)
                    interval, last = time.monotonic() - last, time.monotonic()
                time.sleep(rng.uniform(0, 1.5 * interval))
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        for line in reports:  # every commit the child reported before it died
            if line != "resumed\n":
                confirmed = int(line)
    return status, confirmed


# -- the commands -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("history") / "scores.db"
    with Store(path) as store:
        game = scripted(seed=1)
        store.finish(record(store, game, ["Ann", "Bob"]), game)
        game = scripted("broadway", seed=2)
        store.finish(record(store, game, ["Ann", "Bob", "Cy", "Dee"]), game)
        record(store, scripted(seed=3), ["Cy", "Ann"], moves=5)
    return path


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_history_lists_matches_newest_first(db, capsys):
    code, out, err = run(capsys, "history", "--db", str(db))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["id", "game", "started", "moves", "players", "result"]
    rows = [line.split() for line in lines[1:]]
    assert [r[0] for r in rows] == ["3", "2", "1"]
    assert "unfinished" in lines[1] and "Cy, Ann" in lines[1] and " 5 " in lines[1]
    broadway = scripted("broadway", seed=2)
    winners = [name for seat, name in enumerate(["Ann", "Bob", "Cy", "Dee"])
               if broadway.side_of(seat) in broadway.winners()]
    assert f"won by {' & '.join(winners)}, {broadway.scores[0]}-{broadway.scores[1]}" in lines[2]


def test_history_of_one_match_shows_its_moves_in_plain_words_with_their_notation(db, capsys):
    """Issue 18: "Ann laid 6-6 ... [6-6]": who played each move, in words, the notation beside."""
    code, out, _ = run(capsys, "history", "--db", str(db), "1")
    assert code == 0
    game = scripted(seed=1)
    twin = fresh(seed=1)
    lines = out.splitlines()
    for ply, move in enumerate(game.moves, 1):
        line = next(line for line in lines if line.startswith(f"{ply:>3}. "))
        who = ["Ann", "Bob"][twin.current_player]
        assert line.split()[1] == who and f"[{move}]" in line, line
        if move.placed() is not None:
            assert f"{who} laid {move.placed()}" in line
        for tile in move.taken():
            assert "captured" in line and str(tile) in line.split("[")[0]
        twin.push(move)
    assert lines[-1].startswith(f"final: Ann {game.scores[0]}, Bob {game.scores[1]}; won by ")


@pytest.mark.parametrize("name", ["castle-rock", "broadway", "doubles-in-the-boneyard", "up-down-stop"])
def test_history_of_a_match_played_at_the_table(tmp_path, capsys, name):
    """Observed matches (hands hidden, reveals named) list their moves like any other."""
    cls = catalog.engine(name)
    game = cls(players=2 if name == "castle-rock" else None, options=SHORT.get(name), seed=4, observed=True)
    bot = random_bot(random.Random(4))
    for _ in range(12):
        game.push(bot(game))
    path = tmp_path / "table.db"
    with Store(path) as store:
        match_id = store.start_match(cls(players=game.players, options=game.options, seed=4, observed=True),
                                     ["Ann", "Bob", "Cy", "Dee"][:game.players])
        for ply, move in enumerate(game.moves, 1):
            store.append_move(match_id, ply, str(move))
    code, out, err = run(capsys, "history", "--db", str(path), str(match_id))
    assert code == 0, err
    lines = out.splitlines()
    for ply, move in enumerate(game.moves, 1):
        assert any(line.startswith(f"{ply:>3}. ") and str(move) in line for line in lines), (ply, move)


def test_leaderboard_command(db, capsys):
    """Per game, the openskill ratings of app/ratings.py (tests/views/test_ratings.py checks them)."""
    from dominotable.views.ratings import rate

    code, out, _ = run(capsys, "leaderboard", "--db", str(db))
    assert code == 0
    with Store(db) as store:
        boards = rate(store.matches())
    blocks = out.strip().split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == [board.title for board in boards] == ["Broadway", "Castle Rock"]
    for block, board in zip(blocks, boards):
        lines = block.splitlines()
        assert lines[1].split() == ["player", "rating", "matches", "wins", "win%"]
        rows = [line.split() for line in lines[2:]]
        assert rows == [[p.name, f"{p.rating:.1f}", str(p.matches), str(p.wins), f"{100 * p.win_rate:.0f}"]
                        for p in board.players]
    castle = {row.split()[0]: row.split()[2] for row in blocks[1].splitlines()[2:]}
    assert castle == {"Ann": "1", "Bob": "1"}  # the unfinished match (Cy, Ann) counts for nobody


def test_export_then_replay(db, tmp_path, capsys):
    code, out, _ = run(capsys, "history", "--db", str(db), "--export", "2")
    assert code == 0
    data = json.loads(out)
    game = scripted("broadway", seed=2)
    assert {k: data[k] for k in game.to_dict()} == game.to_dict()  # the framework's form, plus:
    assert data["names"] == ["Ann", "Bob", "Cy", "Dee"] and data["started"] and data["finished"]
    assert len(data["times"]) == len(data["moves"])
    assert replay(data).scores == game.scores
    path = tmp_path / "match.json"
    path.write_text(out)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0, err
    for ply, move in enumerate(game.moves, 1):
        assert f"{ply:>3}. " in out and str(move) in out
    assert f"final: Ann & Cy {game.scores[0]}, Bob & Dee {game.scores[1]}" in out


def bad(**changes):
    data = {"game": "castle-rock", "players": 2, "seed": 1, "options": {"hands": 1}, "moves": []}
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize("content, message", [
    ("{not json", "not a saved game"),
    ("[1, 2]", "expected a JSON object"),
    (bad(game="nope"), "unknown game 'nope'"),
    (bad(moves=5), "moves must be a list"),
    (bad(moves=["zz"]), "move 1 (zz)"),
    (bad(players=9), "not 9"),
    (bad(options={"colour": "red"}), "unknown option 'colour'"),
    (bad(names=["A"]), "1 names for 2 seats"),
    (bad(result={"ending": "played", "scores": [5, 0], "winners": []}), "replayed scores [0, 0]"),
])
def test_replay_of_a_bad_file_is_one_line_and_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_commands_name_a_missing_database_or_match(tmp_path, db, capsys):
    code, _, err = run(capsys, "history", "--db", str(tmp_path / "none.db"))
    assert code == 2 and "no database at" in err
    assert not (tmp_path / "none.db").exists()
    code, _, err = run(capsys, "history", "--db", str(db), "--export", "99")
    assert code == 2 and "no match 99" in err
    code, _, err = run(capsys, "replay", str(tmp_path / "none.json"))
    assert code == 2 and "none.json" in err


def test_commands_find_the_database_through_the_config_file(db, capsys):
    config = db.parent / "config.toml"
    config.write_text(f'[storage]\ndatabase = "{db.name}"\n')  # relative to the config file
    code, out, _ = run(capsys, "leaderboard", "--config", str(config))
    assert code == 0 and "Ann" in out


def test_a_bots_strength_is_kept_with_its_seat_and_a_version_1_file_gains_its_column(tmp_path):
    """Each bot seat's strategy is stored with the seat; a file of schema version 1 (before the
    strengths) is upgraded, and its bots play on at the game's own strategy."""
    from dominotable.match import opening
    from dominotable.store.schema import SCHEMA_VERSION
    from dominotable.tray.geometry import default

    path = tmp_path / "t.db"
    with Store(path) as store:
        match_id = store.start_match(fresh("castle-rock", seed=3, players=3), ["Ann", "West bot", "North bot"],
                                     bots={1: "greedy", 2: "random"})
        record = store.match(match_id)
        assert record.bots == [1, 2] and record.strategies == {1: "greedy", 2: "random"}
        assert record.to_dict()["strategies"] == {"1": "greedy", "2": "random"}
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE seats DROP COLUMN strategy")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with Store(path) as store:
        assert "strategy" in store.columns("seats")
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        record = store.match(match_id)
        assert record.bots == [1, 2] and record.strategies == {}
        referee = opening.resume(store, match_id, default())
        assert referee.seating.strategies == {1: "search", 2: "search"}  # Castle Rock's own


def test_bot_seats_racks_and_hints_are_kept_and_an_older_database_still_reads(tmp_path, capsys):
    """A database from before bot seats (no `seats.kind`, no racks or hints tables) opens and
    reads as all-human; a match with bot seats keeps which seats are bots, what their racks
    hold (slot by slot, as last read) and every hint asked for, and history shows the hints."""
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    old.executescript("""
        CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE);
        CREATE TABLE matches (id INTEGER PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL,
            seed INTEGER NOT NULL, players INTEGER NOT NULL, names TEXT NOT NULL, started TEXT NOT NULL,
            finished TEXT, result TEXT, observed INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE seats (match_id INTEGER NOT NULL, seat INTEGER NOT NULL, side INTEGER NOT NULL,
            player_id INTEGER NOT NULL, PRIMARY KEY (match_id, seat));
        CREATE TABLE moves (match_id INTEGER NOT NULL, ply INTEGER NOT NULL, notation TEXT NOT NULL,
            time TEXT NOT NULL, PRIMARY KEY (match_id, ply));
        INSERT INTO players VALUES (1, 'Ann'), (2, 'Bob');
        INSERT INTO matches VALUES (1, 'castle-rock', '{"hands": 1}', 1, 2, '["Ann", "Bob"]',
            '2026-01-01T00:00:00.000+00:00', NULL, NULL, 0);
        INSERT INTO seats VALUES (1, 0, 0, 1), (1, 1, 1, 2);
    """)
    old.commit()
    old.close()
    with Store(path) as store:
        before = store.match(1)
        assert before.bots == [] and before.racks == {} and before.hints == [] and before.sides == [0, 1]
        game = fresh("castle-rock", seed=3)
        match_id = store.start_match(game, ["Ann", "East bot"], bots=(1,))
        store.set_rack(match_id, 1, 1, "3-5")
        store.set_rack(match_id, 1, 2, "0-0")
        store.set_rack(match_id, 1, 1, None)
        store.add_hint(match_id, 0, 0, "take x4-4: 1 tile")
        got = store.match(match_id)
        assert got.bots == [1] and got.racks == {1: {2: "0-0"}}
        assert [(h["ply"], h["seat"], h["hint"]) for h in got.hints] == [(0, 0, "take x4-4: 1 tile")]
        assert got.to_dict()["bots"] == [1] and got.to_dict()["hints"][0]["hint"] == "take x4-4: 1 tile"
        listed = {r.id: r for r in store.matches()}
        assert listed[match_id].bots == [1] and len(listed[match_id].hints) == 1 and listed[1].bots == []
    assert cli.main(["history", str(match_id), "--db", str(path)]) == 0
    assert "hint for Ann: take x4-4: 1 tile" in capsys.readouterr().out
