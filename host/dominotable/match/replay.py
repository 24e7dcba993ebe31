"""A recorded match's engine, rebuilt by replaying its moves through the framework: what resumes a
match cut off, shows one looked back on and checks one recovered from a damaged file."""

from __future__ import annotations

import json
from typing import Any

from dominotable.games import catalog
from dominotable.rules.game import Game
from dominotable.store.errors import StorageError
from dominotable.store.records import MatchRecord


def replay(record: MatchRecord | dict[str, Any]) -> Game:
    """Rebuild a game from a record or an exported dict through the framework's replay."""
    data = record.to_dict() if isinstance(record, MatchRecord) else record
    if not isinstance(data, dict):
        raise StorageError("not a recorded match: expected a JSON object")
    moves = data.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise StorageError("not a recorded match: moves must be a list of notations")
    for key, kind, what in (("game", str, "a game's name"), ("players", int, "a whole number of seats"),
                            ("seed", int, "a whole number"), ("options", dict, "an object of rule options")):
        value = data.get(key, {} if key == "options" else None)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise StorageError(f"not a recorded match: {key} must be {what}, not {json.dumps(value)[:40]}")
    return catalog.load(data)
