"""Databases of real matches and the ways a file gets damaged (shared by tests/store/test_recovery.py
and benchmarks/recovery.py, so the benchmark measures exactly what the tests check).

A database is built with the table's own Store from a few whole matches the random bot plays
(Castle Rock, Broadway, Doubles in the Boneyard, Up-Down-Stop), repeated under new ids; every
seventh match is cut off halfway (unfinished). Damage kinds, each on a closed file (its WAL
checkpointed into it):

- truncated: the file cut at 75 % of its length (a copy interrupted, a full card);
- random: every byte random (the wrong file, a wiped card);
- page: one page in the middle of the file overwritten with random bytes;
- index: every index page (the moves' and seats' primary-key indexes) overwritten;
- schema: page 1's schema table (CREATE statements, root pages) overwritten, the file header kept.
"""

from __future__ import annotations

import random
import sqlite3
import struct
from pathlib import Path

from dominotable.games import catalog
from dominotable.sim.bots.shared import play_out, random_bot
from dominotable.store.storage import Store

GAMES = (("castle-rock", 2, {"hands": 1}), ("broadway", 4, {"hands": 1}),
         ("doubles-in-the-boneyard", 3, {"target": 50}), ("up-down-stop", 1, {}))
NAMES = ["Ann", "Bob", "Cy", "Dee"]
KINDS = ("truncated", "random", "page", "index", "schema")


def build(path: Path, matches: int, seed: int = 0) -> dict[int, list[str]]:
    """A database of `matches` matches; returns each match's moves."""
    played = []
    for i, (name, players, options) in enumerate(GAMES):
        cls = catalog.engine(name)
        game = play_out(cls(players=players, options=options, seed=seed + i, observed=True),
                        [random_bot(random.Random(seed + i))])
        played.append((cls, players, options, seed + i, game))
    moves = {}
    with Store(path) as store:
        store.db.execute("PRAGMA synchronous=OFF")  # building, not playing: no fsync per move
        for n in range(matches):
            cls, players, options, game_seed, game = played[n % len(played)]
            fresh = cls(players=players, options=options, seed=game_seed, observed=True)
            match_id = store.start_match(fresh, NAMES[:players])
            cut = len(game.moves) // 2 if n % 7 == 6 else len(game.moves)
            notations = [str(m) for m in game.moves[:cut]]
            store.db.execute("BEGIN")
            for ply, notation in enumerate(notations, 1):
                store.append_move(match_id, ply, notation)
            store.db.execute("COMMIT")
            if cut == len(game.moves):
                store.finish(match_id, game)
            moves[match_id] = notations
    return moves


def page_size(path: Path) -> int:
    return struct.unpack_from(">H", path.read_bytes(), 16)[0]


def index_pages(path: Path) -> list[int]:
    """The pages of every index b-tree (interior 0x02, leaf 0x0A)."""
    data = path.read_bytes()
    size = page_size(path)
    return [n + 1 for n in range(1, len(data) // size) if data[n * size] in (0x02, 0x0A)]


def damage(path: Path, kind: str, seed: int = 0) -> None:
    rng = random.Random(seed)
    data = bytearray(path.read_bytes())
    size = page_size(path)
    if kind == "truncated":
        del data[int(len(data) * 0.75):]
    elif kind == "random":
        data = bytearray(rng.randbytes(len(data)))
    elif kind == "page":
        page = len(data) // size // 2
        data[page * size:(page + 1) * size] = rng.randbytes(size)
    elif kind == "index":
        for page in index_pages(path):
            data[(page - 1) * size:page * size] = rng.randbytes(size)
    elif kind == "schema":
        data[100:size] = rng.randbytes(size - 100)
    else:
        raise ValueError(kind)
    path.write_bytes(bytes(data))


def readable_with_sqlite(path: Path) -> bool:
    try:
        db = sqlite3.connect(path)
        try:
            return db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        finally:
            db.close()
    except sqlite3.Error:
        return False
