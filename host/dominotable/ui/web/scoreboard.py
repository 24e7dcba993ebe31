"""The scoreboard's data, read from the table's store through a connection of its own (in the
server's one database thread): the leaderboard, the latest matches with their score series, a
match's moves in words and a replay's position."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dominotable.games import catalog
from dominotable.store.errors import StorageError
from dominotable.store.storage import Store
from dominotable.tray.geometry import Geometry
from dominotable.views import boards, review
from dominotable.web.guard import Refused


class Scoreboard:
    def __init__(self, database: Path, geometry: Geometry):
        self.database = database
        self.geometry = geometry
        self._store: Store | None = None
        self._plots: dict[int, tuple[int, tuple]] = {}  # match -> (moves, its series), the latest only
        self._said: dict[int, tuple[int, list]] = {}  # match -> (moves, its moves in words)

    def _db(self) -> Store:
        if self._store is None:
            if not Path(self.database).is_file():
                raise Refused(f"no database at {self.database}")
            self._store = Store(self.database, create=False)
        return self._store

    def leaderboard(self) -> list[dict[str, Any]]:
        try:
            return boards.leaderboards(self._db().matches())
        except Refused:
            return []

    def history(self, live: int | None, limit: int = 20) -> list[dict[str, Any]]:
        """The latest matches, newest first (views/boards.py `match`): each with what ended it, or
        that it is `live` now, or was left unfinished."""
        try:
            records = [r for r in self._db().matches() if r.damaged is None][:limit]  # set aside: not replayable
        except Refused:
            return []
        return [boards.match(record, ("live" if record.id == live else "unfinished") if record.finished is None
                             else (record.result or {}).get("ending") or "played", self._series(record))
                for record in records]

    def _series(self, record) -> tuple[str, list[list[int]]]:
        cached = self._plots.get(record.id)
        if cached is None or cached[0] != record.plies:
            cached = self._plots[record.id] = (record.plies, review.hand_scores(self._db().match(record.id)))
        return cached[1]

    def moves(self, match_id: int) -> dict[str, Any]:
        """A recorded match's moves in plain words, each with its mover and notation."""
        try:
            record = self._db().match(match_id)
        except StorageError as exc:
            raise Refused(str(exc), 404) from None
        cached = self._said.get(record.id)
        if cached is None or cached[0] != len(record.moves):
            cached = self._said[record.id] = (len(record.moves), review.said(record))
        return {"id": record.id, "title": catalog.spec(record.game).title, "moves": cached[1]}

    def replay(self, match_id: int, step: int) -> dict[str, Any]:
        try:
            record = self._db().match(match_id)
        except StorageError as exc:
            raise Refused(str(exc), 404) from None
        return review.position(record, step, self.geometry)
