"""Win rates of any registered game over many seeded deals, with Wilson 95% intervals.

Deal i is the match `cls(players, options, seed=seed + i)`; seat k's bot draws its own
random numbers from `Random(f"{seed + i}:{k}")`, so the same arguments replay exactly.

A strategy factory may declare boolean parameters (for example a solver's `clairvoyant`)
in a `flags` attribute, a dict name -> help; the stats command offers each as `--name`.
A solitaire that scores its result (lower or higher is better, the game knows) defines
`final_score()`, and the report adds that score's mean and histogram.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from dominotable.rules.errors import BadOption
from dominotable.rules.game import Game
from dominotable.rules.options import Options
from dominotable.sim.bots.shared import SHARED, play_out

# progress(total, unit): a context (a progress bar) giving a step to call once per unit done
Progress = Callable[[int, str], AbstractContextManager[Callable[[], object]]]


def percentile(values, q: float) -> float | None:
    """The `q` quantile (0 to 1) of `values` by the nearest rank; None for no values."""
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def wilson(wins: int, deals: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default)."""
    if deals == 0:
        return (0.0, 1.0)
    p = wins / deals
    denom = 1 + z * z / deals
    centre = (p + z * z / (2 * deals)) / denom
    half = z * math.sqrt(p * (1 - p) / deals + z * z / (4 * deals * deals)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def strategy_flags(strategies: Mapping[str, Callable]) -> dict[str, str]:
    """Every flag declared by any of `strategies` (a game's, name -> factory): name -> help."""
    flags: dict[str, str] = {}
    for factory in strategies.values():
        flags.update(getattr(factory, "flags", {}))
    return flags


def make_strategy(cls: type[Game], known: Mapping[str, Callable], name: str, params: dict[str, Any]):
    """A factory `rng -> choose` for strategy `name` of `known`, checking its parameters."""
    if name not in known:
        raise BadOption(f"{cls.name} has no strategy {name!r}; strategies are {', '.join(sorted(known))}")
    factory = known[name]
    declared = getattr(factory, "flags", {})
    for key in params:
        if key not in declared:
            raise BadOption(f"strategy {name!r} takes no --{key.replace('_', '-')}")
    return lambda rng: factory(rng, **params)


def _block(wins: int, deals: int) -> dict[str, Any]:
    low, high = wilson(wins, deals)
    return {"wins": wins, "win_rate": wins / deals if deals else 0.0, "ci95": [low, high]}


def run(cls: type[Game], deals: int, seed: int = 0, strategy: str = "random", players: int | None = None,
        options: Options | None = None, params: dict[str, Any] | None = None,
        strategies: Mapping[str, Callable] = SHARED, progress: Progress | None = None) -> dict[str, Any]:
    """Play `deals` seeded matches with every seat using `strategy`; return the report as a dict.
    `progress(total, unit)`: a context giving a step to call after each deal (a bar)."""
    if deals < 1:
        raise BadOption(f"--deals must be at least 1, not {deals}")
    build = make_strategy(cls, strategies, strategy, params or {})
    side_wins: Counter[int] = Counter()
    final_scores: Counter[Any] = Counter()
    names: list[str] = []
    solitaire = False
    with progress(deals, "deals") if progress else nullcontext(lambda: None) as step:
        for i in range(deals):
            game = cls(players=players, options=options, seed=seed + i)
            seats = [build(random.Random(f"{seed + i}:{k}")) for k in range(game.players)]
            play_out(game, seats)
            side_wins.update(set(game.winners()))
            if game.final_score() is not None:
                final_scores[game.final_score()] += 1
            names = game.side_names()
            solitaire = game.players == 1
            step()
    report: dict[str, Any] = {
        "game": cls.name,
        "strategy": strategy,
        "params": params or {},
        "options": (options or cls.Options()).to_dict(),
        "seed": seed,
        "deals": deals,
    }
    if solitaire:
        report.update(_block(side_wins[0], deals))
    else:
        report["sides"] = [{"side": name, **_block(side_wins[k], deals)} for k, name in enumerate(names)]
    if final_scores:
        total = sum(score * count for score, count in final_scores.items())
        report["score"] = {
            "mean": total / deals,
            "histogram": {str(score): final_scores[score] for score in sorted(final_scores)},
        }
    return report


def format_report(report: dict[str, Any]) -> str:
    """A few readable lines."""
    params = "".join(f" --{k.replace('_', '-')}" for k, v in report["params"].items() if v)
    opts = " ".join(f"{k}={v}" for k, v in report["options"].items())
    lines = [f"{report['game']}: {report['deals']} deals, strategy {report['strategy']}{params}, "
             f"seed {report['seed']}" + (f", {opts}" if opts else "")]

    def rate(block: dict[str, Any]) -> str:
        low, high = block["ci95"]
        return (f"{block['wins']} wins, {100 * block['win_rate']:.1f}% "
                f"(95% CI {100 * low:.1f}-{100 * high:.1f}%)")

    if "sides" in report:
        width = max(len(side["side"]) for side in report["sides"])
        lines += [f"  {side['side']:<{width}}  {rate(side)}" for side in report["sides"]]
    else:
        lines.append(f"  {rate(report)}")
    if "score" in report:
        hist = ", ".join(f"{score}: {count}" for score, count in report["score"]["histogram"].items())
        lines.append(f"  final score mean {report['score']['mean']:.2f}; histogram {hist}")
    return "\n".join(lines)
