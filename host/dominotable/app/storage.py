"""Crash-safe scorekeeping: every match and every accepted move in SQLite.

The database runs in WAL mode with `synchronous=FULL`, so a move whose `append_move`
has returned is on disk and survives `kill -9` or a power cut. The controller commits
each accepted move before it shows it; on the next start `unfinished()` finds the
match that was cut off and `resume()` rebuilds the engine by replaying its moves through
the framework, which gives exactly the state it had (shuffles are seeded).

Seats are tied to player names at the start of a match, with the side (partnership) each
seat plays for, so history and the leaderboard need no game engine.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dominotable.app import catalog
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game
from dominotable.rules.outcome import Termination

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON
    seed INTEGER NOT NULL,
    players INTEGER NOT NULL,       -- seat count
    names TEXT NOT NULL,            -- JSON list, one per seat
    started TEXT NOT NULL,          -- ISO 8601 UTC
    finished TEXT,                  -- NULL while the match is being played
    result TEXT,                    -- JSON {"ending", "scores", "winners"} once finished
    observed INTEGER NOT NULL DEFAULT 0  -- 1: played at the table (hidden hands, Game observed mode)
);
CREATE TABLE IF NOT EXISTS seats (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    side INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    ply INTEGER NOT NULL,           -- 1 for the first move
    notation TEXT NOT NULL,
    time TEXT NOT NULL,
    PRIMARY KEY (match_id, ply)
);
"""



class StorageError(DominoError):
    """A database that cannot be opened, or a match that is not in it or cannot be replayed."""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class MatchRecord:
    id: int
    game: str
    options: dict[str, Any]
    seed: int
    players: int
    names: list[str]
    started: str
    finished: str | None
    result: dict[str, Any] | None
    sides: list[int] = field(default_factory=list)  # the side each seat plays for
    observed: bool = False
    moves: list[str] = field(default_factory=list)
    times: list[str] = field(default_factory=list)
    plies: int = 0  # moves recorded (set also when the moves themselves are not loaded)

    def to_dict(self) -> dict[str, Any]:
        """The framework's `Game.to_dict()` plus names, timestamps and the recorded result."""
        return {
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "options": self.options,
            "moves": self.moves,
            "match_id": self.id,
            "names": self.names,
            "sides": self.sides,
            "started": self.started,
            "finished": self.finished,
            "times": self.times,
            "result": self.result,
        } | ({"observed": True} if self.observed else {})


@dataclass
class Standing:
    name: str
    matches: int
    wins: int
    points: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0


class Store:
    def __init__(self, path: str | Path, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise StorageError(f"no database at {self.path}")
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            # autocommit: each statement commits by itself, groups use an explicit BEGIN
            self.db = sqlite3.connect(self.path, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
            columns = [row[1] for row in self.db.execute("PRAGMA table_info(matches)")]
            if "observed" not in columns:  # a database from before observed mode
                self.db.execute("ALTER TABLE matches ADD COLUMN observed INTEGER NOT NULL DEFAULT 0")
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"cannot open the database {self.path}: {exc}") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- recording a match --------------------------------------------------------------------

    def start_match(self, game: Game, names: list[str]) -> int:
        """Record a new match of `game` (before its first move) with one name per seat."""
        if len(names) != game.players:
            raise StorageError(f"{game.title} has {game.players} seats but {len(names)} names were given")
        if any(not n.strip() for n in names):
            raise StorageError("every seat needs a player name")
        folded = [n.casefold() for n in names]
        if len(set(folded)) != len(folded):
            twice = next(n for n in names if folded.count(n.casefold()) > 1)
            raise StorageError(f"{twice} is named for two seats; each seat needs its own name")
        self.db.execute("BEGIN IMMEDIATE")
        try:
            cur = self.db.execute(
                "INSERT INTO matches (game, options, seed, players, names, started, observed) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game.name, json.dumps(game.options.to_dict()), game.seed, game.players, json.dumps(names), now(),
                 int(game.observed)),
            )
            match_id = cur.lastrowid
            for seat, name in enumerate(names):
                self.db.execute("INSERT OR IGNORE INTO players (name) VALUES (?)", (name,))
                self.db.execute(
                    "INSERT INTO seats (match_id, seat, side, player_id) "
                    "SELECT ?, ?, ?, id FROM players WHERE name = ?",
                    (match_id, seat, game.side_of(seat), name),
                )
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return match_id

    def append_move(self, match_id: int, ply: int, notation: str) -> None:
        """Commit move number `ply` (1-based); when this returns, the move is on disk."""
        try:
            self.db.execute(
                "INSERT INTO moves (match_id, ply, notation, time) VALUES (?, ?, ?, ?)",
                (match_id, ply, notation, now()),
            )
        except sqlite3.IntegrityError:
            raise StorageError(f"match {match_id} already has a move {ply}, or no such match") from None

    def take_back(self, match_id: int, ply: int) -> None:
        """Delete move `ply`, which must be the last one recorded."""
        last = self.db.execute("SELECT max(ply) FROM moves WHERE match_id = ?", (match_id,)).fetchone()[0]
        if last != ply:
            raise StorageError(f"match {match_id}: move {ply} is not the last move (that is {last})")
        self.db.execute("DELETE FROM moves WHERE match_id = ? AND ply = ?", (match_id, ply))

    def finish(self, match_id: int, game: Game, ending: Termination = Termination.PLAYED,
               winners: list[int] | None = None) -> None:
        """Close the match with the engine's scores; `winners` overrides the engine's (a resignation).
        The stored ending is the Termination's value."""
        ending = Termination(ending)
        if winners is None:
            winners = game.winners() if game.is_over() else []
        result = {"ending": ending, "scores": list(game.scores), "winners": list(winners)}
        cur = self.db.execute(
            "UPDATE matches SET finished = ?, result = ? WHERE id = ? AND finished IS NULL",
            (now(), json.dumps(result), match_id),
        )
        if cur.rowcount != 1:
            raise StorageError(f"match {match_id} is not an unfinished match")

    # -- reading ---------------------------------------------------------------------------

    def match(self, match_id: int) -> MatchRecord:
        row = self.db.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            raise StorageError(f"no match {match_id} in {self.path}")
        record = _record(row)
        record.sides = [side for (side,) in self.db.execute(
            "SELECT side FROM seats WHERE match_id = ? ORDER BY seat", (match_id,))]
        for ply, notation, time in self.db.execute(
            "SELECT ply, notation, time FROM moves WHERE match_id = ? ORDER BY ply", (match_id,)
        ):
            if ply != len(record.moves) + 1:
                raise StorageError(f"match {match_id}: move {len(record.moves) + 1} is missing")
            record.moves.append(notation)
            record.times.append(time)
        record.plies = len(record.moves)
        return record

    def matches(self) -> list[MatchRecord]:
        """Every match, newest first, with its number of moves but not the moves."""
        rows = self.db.execute("SELECT * FROM matches ORDER BY id DESC").fetchall()
        records = self._with_sides([_record(row) for row in rows])
        counts = dict(self.db.execute("SELECT match_id, count(*) FROM moves GROUP BY match_id"))
        for record in records:
            record.plies = counts.get(record.id, 0)
        return records

    def _with_sides(self, records: list[MatchRecord]) -> list[MatchRecord]:
        by_id = {r.id: r for r in records}
        for match_id, side in self.db.execute("SELECT match_id, side FROM seats ORDER BY match_id, seat"):
            if match_id in by_id:
                by_id[match_id].sides.append(side)
        return records

    def move_count(self, match_id: int) -> int:
        return self.db.execute("SELECT count(*) FROM moves WHERE match_id = ?", (match_id,)).fetchone()[0]

    def unfinished(self) -> MatchRecord | None:
        """The most recent match that was cut off before it finished, with its moves."""
        row = self.db.execute("SELECT id FROM matches WHERE finished IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else self.match(row[0])

    def resume(self, match_id: int) -> Game:
        """The engine of match `match_id`, rebuilt by replaying its recorded moves."""
        return replay(self.match(match_id))

    def leaderboard(self) -> list[Standing]:
        """Per player name over finished, not abandoned matches: best win rate, then most wins."""
        table: dict[str, Standing] = {}
        rows = self.db.execute(
            "SELECT p.name, s.side, m.result FROM seats s "
            "JOIN players p ON p.id = s.player_id JOIN matches m ON m.id = s.match_id "
            "WHERE m.finished IS NOT NULL ORDER BY m.id, s.seat"
        )
        for name, side, result_text in rows:
            result = json.loads(result_text)
            if result["ending"] == Termination.ABANDONED:
                continue
            row = table.setdefault(name, Standing(name, 0, 0, 0))
            row.matches += 1
            row.wins += side in result["winners"]
            row.points += result["scores"][side]
        return sorted(table.values(), key=lambda s: (-s.win_rate, -s.wins, -s.points, s.name.lower()))


def replay(record: MatchRecord | dict[str, Any]) -> Game:
    """Rebuild a game from a record or an exported dict through the framework's replay."""
    data = record.to_dict() if isinstance(record, MatchRecord) else record
    if not isinstance(data, dict):
        raise StorageError("not a recorded match: expected a JSON object")
    moves = data.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise StorageError("not a recorded match: moves must be a list of notations")
    return catalog.load(data)


def _record(row) -> MatchRecord:
    id_, game, options, seed, players, names, started, finished, result, observed = row
    return MatchRecord(id_, game, json.loads(options), seed, players, json.loads(names), started, finished,
                       json.loads(result) if result else None, observed=bool(observed))
