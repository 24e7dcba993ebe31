"""Bots against each other over many seeded matches, on every core.

Match i is played on deal `seed + i // B` (B bots), with the bots rotated by i % B: seat k
plays bot `(k + i) % B`. So every deal is played once per rotation, each bot in turn
takes each seat, and with two bots and four seats the partners of Broadway (seats k and
k + 2) are the same bot. A bot wins a match when a seat it plays wins it. Each seat's bot
draws from `Random(f"{deal}:{k}")`, so the same arguments give the same numbers, whatever
the number of processes. Solitaires also report each bot's mean final score.
"""

from __future__ import annotations

import multiprocessing
import os
import random
from collections.abc import Callable, Mapping
from contextlib import ExitStack, nullcontext
from typing import Any

from dominotable.rules.errors import BadOption
from dominotable.rules.game import Game
from dominotable.rules.options import Options
from dominotable.sim.bots.shared import play_out
from dominotable.sim.stats import Progress, wilson


def seat_bots(bots: list[str], players: int, match: int) -> list[str]:
    return [bots[(k + match) % len(bots)] for k in range(players)]


_SETUP: tuple = ()  # the tournament under way, inherited by forked workers (strategies need not pickle)


def _play(match: int) -> tuple[list[str], float | None]:
    """One match: the names of the bots that won it, and the final score of a solitaire."""
    cls, players, options, strategies, bots, seed = _SETUP
    deal = seed + match // len(bots)
    game = cls(players=players, options=options, seed=deal)
    names = seat_bots(bots, game.players, match)
    play_out(game, [strategies[name](random.Random(f"{deal}:{k}")) for k, name in enumerate(names)])
    won = sorted({names[k] for k in range(game.players) if game.side_of(k) in game.winners()})
    return won, game.final_score()


def play_matches(matches: int, processes: int,
                 step: Callable[[], object] = lambda: None) -> list[tuple[list[str], float | None]]:
    """Matches 0..matches-1 of the set-up tournament, on `processes` forked workers; `step()`
    after each one."""
    results = []
    with ExitStack() as stack:
        if processes == 1 or matches == 1:
            played = map(_play, range(matches))
        else:
            pool = stack.enter_context(multiprocessing.get_context("fork").Pool(min(processes, matches)))
            played = pool.imap(_play, range(matches), chunksize=1)
        for result in played:
            results.append(result)
            step()
    return results


def run(cls: type[Game], bots: list[str], matches: int, seed: int, strategies: Mapping[str, Callable],
        players: int | None = None, options: Options | None = None, processes: int | None = None,
        progress: Progress | None = None) -> dict[str, Any]:
    """`progress(total, unit)`: a context giving a step to call after each match (a bar)."""
    if matches < 1:
        raise BadOption(f"--matches must be at least 1, not {matches}")
    if not bots or any(not name for name in bots):
        raise BadOption("--bots names one or more strategies, separated by commas")
    for name in bots:
        if name not in strategies:
            raise BadOption(f"{cls.name} has no strategy {name!r}; strategies are {', '.join(sorted(strategies))}")
    seats = cls(players=players, options=options).players  # a bad player count or option fails here, once
    unique = list(dict.fromkeys(bots))
    global _SETUP
    _SETUP = (cls, players, options, strategies, unique, seed)
    with progress(matches, "matches") if progress else nullcontext(lambda: None) as step:
        results = play_matches(matches, processes or os.cpu_count() or 1, step)
    report: dict[str, Any] = {"game": cls.name, "seed": seed, "bots": {}}
    for name in unique:
        played = [i for i in range(matches) if name in seat_bots(unique, seats, i)]
        wins = sum(1 for i in played if name in results[i][0])
        low, high = wilson(wins, len(played))
        block = {"matches": len(played), "wins": wins, "win_rate": wins / len(played) if played else 0.0,
                 "ci95": [low, high]}
        scores = [results[i][1] for i in played if results[i][1] is not None]
        if scores:
            block["mean_score"] = sum(scores) / len(scores)
        report["bots"][name] = block
    return report


def format_report(report: dict[str, Any]) -> str:
    lines = [f"{report['game']}: seed {report['seed']}"]
    width = max(len(name) for name in report["bots"])
    for name, b in report["bots"].items():
        low, high = b["ci95"]
        line = (f"  {name:<{width}}  {b['wins']}/{b['matches']} wins, {100 * b['win_rate']:.1f}% "
                f"(95% CI {100 * low:.1f}-{100 * high:.1f}%)")
        if "mean_score" in b:
            line += f", mean final score {b['mean_score']:.2f}"
        lines.append(line)
    return "\n".join(lines)
