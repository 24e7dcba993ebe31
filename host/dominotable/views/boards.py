"""What the scoreboards show alike (the table's and the venue's): the leaderboards (per game, the
people by rating with their matches, wins and win rate, and the table's bots apart, never rated,
by name and strength), and a match as the list of matches shows it, its plot drawn."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dominotable.games import catalog
from dominotable.games.spec import strength
from dominotable.rules.errors import DominoError
from dominotable.store.records import MatchRecord
from dominotable.views import review, svg
from dominotable.views.ratings import rate


def leaderboards(records: Iterable[MatchRecord]) -> list[dict[str, Any]]:
    return [{"game": b.game, "title": b.title,
             "players": [{"name": p.name, "rating": round(p.rating, 2), "matches": p.matches, "wins": p.wins,
                          "win_rate": round(p.win_rate, 3)} for p in b.players],
             "bots": [{"name": bot.name, "strength": strength(bot.strategy) if bot.strategy else "", "matches": bot.matches,
                       "wins": bot.wins, "win_rate": round(bot.win_rate, 3)} for bot in b.bots]} for b in rate(records)]


def match(record: MatchRecord, state: str, series: tuple[str, list[list[int]]]) -> dict[str, Any]:
    """A match for the list of matches: `state` (live, unfinished, damaged, or how it ended), its
    goal and which way its scores run, its scores and winners by side, and `series` (the scores
    at the start and after every hand or scoring play) as a plot. A game this version does not
    know is listed by its name."""
    names = review.side_names(record)
    result = record.result or {}
    per, points = series
    try:
        spec = catalog.spec(record.game)
        title, card, goal = spec.title, spec.card.removesuffix(".md"), spec.goal(spec.options.from_dict(record.options))
        scoring, lower_wins, scores_run = spec.scoring, spec.lower_wins, spec.scores_run
    except DominoError:
        title, card, goal, scoring, lower_wins, scores_run = record.game, "", "", "points", False, ""
    target = record.options.get("target")
    return {"id": record.id, "game": record.game, "title": title, "card": card, "names": names,
            "started": record.started, "finished": record.finished, "state": state, "demo": record.demo,
            "damaged": record.damaged, "scores": result.get("scores"),
            "winners": [names[w] for w in result.get("winners", []) if w < len(names)], "target": target,
            "goal": goal, "scoring": scoring, "lower_wins": lower_wins, "scores_run": scores_run, "per": per,
            "points": points, "moves": record.plies,
            "plot": svg.score_plot(names, points, target, per=per, scoring=scoring, lower_wins=lower_wins, title=title)}
