"""`dominotable demo [GAME] [--seed S] [--players P] [--broker URL --table ID] [rule option flags]`: bots play a whole
match at the simulated table. They choose moves with the engines' greedy bots and make them
physically on the virtual tray (behind a real pty, the tray firmware scanning emulated
readers); the session judges the settled tray as at a real table, commits every move to
SQLite and shows the OLED frames in the terminal (and as PNGs with --frames DIR); when standard
output is not a terminal it prints a text transcript of the plays and prompts instead. The
match goes into the table's database (or --db PATH) marked as a demo: `dominotable history`
lists it, the leaderboard leaves it out, and the table never resumes it.

Without a rule option a demo uses short ones (one hand of Castle Rock or Broadway, Doubles to
50). With `--broker` and `--table` (or the [venue] section) the match is published to the venue,
and the demo waits up to ten seconds at its end for the venue to store it. `--text` prints the old engine-only demo: each seat's moves in their notation, then the
game's one-line `brief()` (else its full picture) and the scores whenever they change.
"""

from __future__ import annotations

import random

from dominotable.app.cli import ranged
from dominotable.app.config import listen_address
from dominotable.app.gameargs import add_game_command, parse_game_args
from dominotable.games import catalog
from dominotable.sim.bots.shared import greedy_bot

SPEEDS = (0.1, 1000.0)  # the virtual tray's speeds a demo may ask for


def common(parser, d) -> None:
    parser.add_argument("--seed", type=int, default=d(0), help="the match's seed (default 0)")
    parser.add_argument("--players", type=int, default=d(None), help="number of players (default: the game's)")
    parser.add_argument("--text", action="store_true", default=d(False),
                        help="engine only: print the moves and scores, no table")
    parser.add_argument("--frames", default=d(""), help="also write every OLED frame as a PNG into this folder")
    parser.add_argument("--quiet", action="store_true", default=d(False),
                        help="neither draw the OLED in the terminal nor print the transcript")
    parser.add_argument("--db", default=d(None),
                        help="record the match, marked as a demo, in this database (default: the table's)")
    parser.add_argument("--settle-ms", type=ranged(int, 0, 10_000, "milliseconds"), default=d(60),
                        help="the table's settle time, 0 to 10000 (default 60 ms)")
    parser.add_argument("--speed", type=ranged(float, SPEEDS[0], SPEEDS[1], "times real time"), default=d(30.0),
                        help=f"virtual tray time per wall time, {SPEEDS[0]:g} to {SPEEDS[1]:g} "
                             "(default 30: the tray scans thirty times as fast)")
    parser.add_argument("--http", metavar="HOST:PORT", nargs="?", type=listen_address, const=("127.0.0.1", 8080),
                        default=d(None), help="serve the table page while the bots play (default address "
                                              "127.0.0.1:8080), and keep it up after the match until Ctrl-C")
    parser.add_argument("--broker", metavar="URL", default=d(None),
                        help="publish the match to the venue on this MQTT broker (default: [venue] broker)")
    parser.add_argument("--table", metavar="ID", default=d(None),
                        help="this table's id at the venue (default: [venue] table)")


def register(subparsers) -> None:
    add_game_command(subparsers, "demo", common, run, default_game=catalog.DEMO,
                     help="watch bots play a whole match on the simulated table",
                     description="Bots play a whole match of GAME on the simulated table: tiles placed on "
                                 "the virtual tray, judged by the table, shown on the emulated OLED.")


def run(args) -> int:
    cls = parse_game_args(args, "dominotable demo")
    if cls is None:
        return 0
    if args.text:
        return text_demo(cls(players=args.players, options=args.options, seed=args.seed), args.seed)
    options = {name: value for name, value in args.options.to_dict().items() if name in args.given_options}
    return table_demo(cls.name, options, args)


def table_demo(game: str, options: dict, args) -> int:
    import sys

    from dominotable.app import config
    from dominotable.app.config import Config, DisplayConfig, GameConfig, TrayConfig
    from dominotable.app.demo import BOT_LONG_PRESS, demo_choice, demo_match
    from dominotable.app.hardware import open_hardware
    from dominotable.app.web import start
    from dominotable.match.replay import replay
    from dominotable.store.recovery import open_for_table

    choice = demo_choice(game, args.players, options)
    choice.game(players=choice.players, options=choice.options, seed=args.seed)  # options that do not go
    # together: say so before opening anything
    drawn = not args.quiet and sys.stdout.isatty()  # else a text transcript, not block art in a log
    cfg = Config(tray=TrayConfig(port="none"), display=DisplayConfig(frames=args.frames, terminal=drawn),
                 game=GameConfig(settle_ms=args.settle_ms))
    user = config.load()
    db = args.db or user.storage.path
    # first: a database the table cannot use stops it before anything starts
    store, repairs = open_for_table(db, replay)
    with store:
        hw = open_hardware(cfg, speed=args.speed, long_press=BOT_LONG_PRESS)
        try:
            for i, repair in enumerate(repairs):
                hw.say(repair, f"repair {i}")
            serve = (lambda runtime: start(runtime, cfg.web, args.http, explicit=True, say=hw.say)) if args.http \
                else None
            demo_match(hw, store, choice, args.settle_ms, args.seed, db=db, explicit_db=bool(args.db),
                       transcript=not args.quiet and not drawn, repairs=repairs,
                       venue=(user.venue, args.broker, args.table), serve=serve)
        finally:
            hw.close()
    return 0


def text_demo(game, seed: int) -> int:
    bots = [greedy_bot(random.Random(f"{seed}:{seat}")) for seat in range(game.players)]
    names = game.side_names()
    print(game)
    scores = game.scores
    while not game.is_over():
        seat = game.current_player
        moves = []
        while not game.is_over() and game.current_player == seat:
            move = bots[seat](game)
            game.push(move)
            moves.append(str(move))
            if game.scores != scores:
                break
        brief = game.brief()
        picture = brief is None or (game.scores != scores and game.players > 1 and not game.is_over())
        print(f"P{seat + 1}: {' '.join(moves):<24} {'' if picture else brief}".rstrip())
        if game.scores != scores:
            scores = game.scores
            print("scores: " + ", ".join(f"{name} {score}" for name, score in zip(names, scores)))
        if picture:
            print(game)
    print("final:")
    print(game)
    winners = game.winners()
    print("winner: " + (", ".join(names[side] for side in winners) if winners else "none"))
    return 0
