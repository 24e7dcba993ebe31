"""The scoreboard's data, read from the table's store through a connection of its own (in the
server's one database thread): the leaderboard, the latest matches with their score series, a
match's moves in words and a replay's position."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dominotable.games import catalog
from dominotable.store.ratings import rate
from dominotable.store.storage import StorageError, Store
from dominotable.tray.geometry import Geometry
from dominotable.views import review
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
            records = self._db().matches()
        except Refused:
            return []
        return [{"game": b.game, "title": b.title,
                 "players": [{"name": p.name, "rating": round(p.rating, 2), "matches": p.matches, "wins": p.wins,
                              "win_rate": round(p.win_rate, 3)} for p in b.players]} for b in rate(records)]

    def history(self, live: int | None, limit: int = 20) -> list[dict[str, Any]]:
        """The latest matches, newest first, each with what ended it (or that it is `live` now, or
        was left unfinished), its goal, which way its scores run, and its scores at the start and
        after every hand (or every scoring play, for a match of one hand)."""
        try:
            records = [r for r in self._db().matches() if r.damaged is None][:limit]  # set aside: not replayable
        except Refused:
            return []
        out = []
        for record in records:
            spec = catalog.spec(record.game)
            names = review.side_names(record)
            result = record.result or {}
            ending = result.get("ending")
            if record.finished is None:
                state = "live" if record.id == live else "unfinished"
            else:
                state = ending or "played"
            per, points = self._series(record)
            out.append({"id": record.id, "game": record.game, "title": spec.title, "card": spec.card.removesuffix(".md"),
                        "names": names, "started": record.started, "finished": record.finished, "state": state,
                        "demo": record.demo, "scores": result.get("scores"),
                        "winners": [names[w] for w in result.get("winners", []) if w < len(names)],
                        "target": record.options.get("target"), "goal": spec.goal(spec.options.from_dict(record.options)),
                        "scoring": spec.scoring, "lower_wins": spec.lower_wins, "scores_run": spec.scores_run,
                        "per": per, "points": points, "moves": record.plies})
        return out

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
