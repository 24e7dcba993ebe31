"""Playout speed of the rules engines and their playout kernels with random bots, on one core.

For each game: seeded matches are played by random moves for about `--seconds` of CPU time
per run (process time, so other load on the machine matters less), three ways:

- `engine`: the engine with `bots.random_bot`, each move pushed with `push(move, trusted=True)`
  (the move comes from legal_moves, so the check is skipped);
- `checked`: the same with the full check on every push;
- `kernel`: the game's playout kernel (rules/playout.py), its random rollout.

Prints the median over `--runs` runs (the three ways interleaved, so load hits them alike)
of moves per second and, for games that count hands, hands per second, and the kernel's
ratio to the engine. Targets: the kernel at least 3x the engine in every game.

Peers (`--peers`, installed for the benchmark only: `pip install '.[peers]'`):
random play of the `dominoes` package (abw333) on its standard game (four players, double-six,
one game), and of OpenSpiel's `python_team_dominoes`, compared with Doubles in the Boneyard
(target: its kernel at least 1.5x the `dominoes` package).

Run: python benchmarks/playouts.py [GAME ...] [--runs 5] [--seconds 1] [--peers]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from dominotable.games import catalog
from dominotable.sim.bots.shared import random_bot
from targets import Targets

DOUBLES = "doubles-in-the-boneyard"


def engine_run(cls, seconds: float, trusted: bool, first_seed: int) -> tuple[float, float]:
    """(moves per second, hands per second) playing whole matches for about `seconds`."""
    moves = hands = 0
    seed = first_seed
    start = time.process_time()
    while time.process_time() - start < seconds:
        game = cls(seed=seed)
        bot = random_bot(random.Random(seed))
        while not game.is_over():
            game.push(bot(game), trusted=trusted)
            moves += 1
        hands += game.hands_played()
        seed += 1
    elapsed = time.process_time() - start
    return moves / elapsed, hands / elapsed


def kernel_run(kernel, seconds: float, first_seed: int) -> tuple[float, float]:
    moves = hands = 0
    seed = first_seed
    start = time.process_time()
    while time.process_time() - start < seconds:
        k = kernel.new(seed=seed)
        moves += k.rollout(random.Random(seed).random)
        hands += k.hands_played()
        seed += 1
    elapsed = time.process_time() - start
    return moves / elapsed, hands / elapsed


def dominoes_run(seconds: float, first_seed: int) -> tuple[float, float]:
    """The `dominoes` package: its random player (a shuffle of the valid moves), then the first."""
    import dominoes

    dominoes.players.rand.seed(first_seed)
    moves = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game = dominoes.Game.new()
        while game.result is None:
            dominoes.players.random(game)
            game.make_move(*game.valid_moves[0])
            moves += 1
        games += 1
    elapsed = time.process_time() - start
    return moves / elapsed, games / elapsed


def open_spiel_run(seconds: float, first_seed: int) -> tuple[float, float]:
    """OpenSpiel's Python team dominoes: chance nodes deal, players' moves are counted."""
    import pyspiel
    from open_spiel.python.games import team_dominoes  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_team_dominoes")
    rng = random.Random(first_seed)
    moves = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                action = rng.choice(state.chance_outcomes())[0]
            else:
                action = rng.choice(state.legal_actions())
                moves += 1
            state.apply_action(action)
        games += 1
    elapsed = time.process_time() - start
    return moves / elapsed, games / elapsed


def median_of(runs) -> tuple[float, float]:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=catalog.names(), help=f"of {', '.join(catalog.names())}")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--peers", action="store_true", help="also time the dominoes package and OpenSpiel")
    args = parser.parse_args()
    kernels: dict[str, float] = {}
    engines: dict[str, float] = {}
    targets = Targets()
    for name in args.games:
        cls = catalog.engine(name)
        kernel = catalog.spec(name).playout
        runs: dict[str, list] = {"engine": [], "checked": [], "kernel": []}
        for k in range(args.runs):
            runs["engine"].append(engine_run(cls, args.seconds, True, 1000 * k))
            runs["checked"].append(engine_run(cls, args.seconds, False, 1000 * k))
            if kernel is not None:
                runs["kernel"].append(kernel_run(kernel, args.seconds, 1000 * k))
        for way, results in runs.items():
            if not results:
                continue
            moves, hands = median_of(results)
            line = f"{name} ({cls.default_players} players, {way}): median {moves:,.0f} moves/s, {hands:,.0f} hands/s"
            if way == "kernel":
                targets.check(f"{name} kernel", moves / engines[name] if moves else None, lambda x: x >= 3)
                line += f"; {moves / engines[name]:.2f}x the engine (target 3x: {targets.said(f'{name} kernel')})"
                kernels[name] = moves
            elif way == "engine":
                engines[name] = moves
            print(line + f" over {args.runs} runs", flush=True)
    if args.peers:
        for peer, run in (("dominoes package", dominoes_run), ("OpenSpiel python_team_dominoes", open_spiel_run)):
            try:
                moves, games = median_of([run(args.seconds, k) for k in range(args.runs)])
            except ImportError as exc:
                print(f"{peer}: not installed ({exc}); pip install '.[peers]'")
                continue
            line = f"{peer} (4 players, random): median {moves:,.0f} moves/s, {games:,.0f} games/s"
            if DOUBLES in engines:
                line += f"; Doubles engine {engines[DOUBLES] / moves:.2f}x it"
            if DOUBLES in kernels:
                line += f", Doubles kernel {kernels[DOUBLES] / moves:.2f}x it"
                if run is dominoes_run:
                    targets.check("kernel vs dominoes", kernels[DOUBLES] / moves if moves else None, lambda x: x >= 1.5)
                    line += f" (target 1.5x: {targets.said('kernel vs dominoes')})"
            print(line, flush=True)
    targets.done()


if __name__ == "__main__":
    main()
