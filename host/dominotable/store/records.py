"""What the store reads and writes of a match: a match as recorded (MatchRecord, read back from a
row of `matches` by `read_record`) and one change of it, as the committer writes it (Change)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from dominotable.rules.outcome import Termination


class Heard(Protocol):
    """The partner table's events applied (store/partners.py): the last one's `seq`, the partner's
    `moves` as it left them, and whether its match has `ended`."""

    @property
    def seq(self) -> int: ...
    @property
    def moves(self) -> Sequence[str]: ...
    @property
    def ended(self) -> bool: ...


@dataclass(frozen=True)
class Change:
    """One change of a match, written all or nothing (`Store.commit`): its moves after the first
    `keep` taken back, `moves` made after them; what the seats the table plays hold now (`holds`,
    None: as they were); `after` ({"hand": n, "scores": [...]}): the hand the last of the moves
    ended, told to the venue; `heard`: the partner table's events applied with it."""

    keep: int
    moves: tuple[str, ...] = ()
    holds: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    heard: Heard | None = None


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
    demo: bool = False
    damaged: str | None = None  # why the match was set aside
    bots: list[int] = field(default_factory=list)  # the seats the table plays
    strategies: dict[int, str] = field(default_factory=dict)  # bot seat -> its strategy, where one was chosen
    remote: list[int] = field(default_factory=list)  # the seats played at a partner table (store/partners.py)
    racks: dict[int, dict[int, str]] = field(default_factory=dict)  # bot seat -> slot -> tile (before `holds`)
    holds: dict[str, Any] = field(default_factory=dict)  # seat -> what a seat the table plays holds
    hints: list[dict[str, Any]] = field(default_factory=list)  # {"ply", "seat", "hint", "time"}
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
        } | ({"observed": True} if self.observed else {}) | ({"demo": True} if self.demo else {}) | (
            {"damaged": self.damaged} if self.damaged else {}) | ({"bots": self.bots} if self.bots else {}) | (
            {"strategies": {str(k): v for k, v in self.strategies.items()}} if self.strategies else {}) | (
            {"remote": self.remote} if self.remote else {}) | (
            {"hints": self.hints} if self.hints else {})


def parse_result(text: str | None) -> dict[str, Any] | None:
    """A stored result, None when there is none or it is not the shape `finish` writes."""
    try:
        result = json.loads(text) if text else None
    except ValueError:
        return None
    if not (isinstance(result, dict) and isinstance(result.get("ending"), str)
            and result["ending"] in {t.value for t in Termination} and isinstance(result.get("scores"), list)
            and isinstance(result.get("winners"), list) and all(isinstance(v, int) for v in result["scores"])):
        return None
    return result


def read_record(cursor: sqlite3.Cursor, row: tuple) -> MatchRecord:
    """A row of `matches` by column name (a read-only file may predate the newer columns). A row
    whose JSON fields do not decode comes back with game "" and `damaged` saying why."""
    values = dict(zip((d[0] for d in cursor.description), row))
    damaged = values.get("damaged")
    record = MatchRecord(values["id"], "", {}, 0, 0, [], "", None, None,
                         observed=bool(values.get("observed")), demo=bool(values.get("demo")),
                         damaged=damaged if damaged is None or isinstance(damaged, str) else repr(damaged))
    try:
        options, names = json.loads(values["options"]), json.loads(values["names"])
        result = parse_result(values["result"])
        if not isinstance(options, dict) or not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError("not the stored shape")
        if values["result"] and result is None:
            raise ValueError("result is not the stored shape")
        if not isinstance(values["game"], str) or not isinstance(values["seed"], int) or not isinstance(
                values["players"], int) or not isinstance(values["started"], str) or not isinstance(
                values["finished"], str | None):
            raise ValueError("game, seed, players or a time is not the stored type")
    except (ValueError, TypeError) as exc:
        record.damaged = f"its stored options, names or result cannot be read ({exc})"
        return record
    record.game, record.options, record.seed, record.players, record.names, record.result = (
        values["game"], options, values["seed"], values["players"], names, result)
    record.started, record.finished = values["started"], values["finished"]
    try:
        holds = json.loads(values.get("holds") or "{}")
        record.holds = holds if isinstance(holds, dict) else {}
        record.racks = {int(seat): {int(slot): tile for slot, tile in hold["rack"].items()}
                        for seat, hold in record.holds.items() if hold.get("rack")}
    except (ValueError, TypeError, KeyError, AttributeError):
        record.damaged = "what its bot seats hold cannot be read"
    return record
