"""`dominotable run [--config PATH] [--db PATH]`: the table.

With the hardware in the configuration it is the Pi's program. With no tray configured or
found it runs the simulated table: the virtual tray, the OLED drawn in the terminal (and as
PNG frames with display.frames), and the three buttons on the keyboard (see KEY_HELP). When
standard input is not a terminal (or with --demo) nobody can press those keys, so the simulated
table plays a demo match with bots placing the tiles (two players, one hand of Castle Rock, a
fast virtual tray and a short settle time; in a throw-away database unless --db is given) and
exits when it ends.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from dominotable.app import config as config_module
from dominotable.app.storage import Store

DEMO_SPEED = 30.0  # the bots' demo: the virtual tray thirty times as fast as a real one
DEMO_SETTLE_MS = 60


def register(subparsers) -> None:
    parser = subparsers.add_parser("run", help="run the table (simulated when no tray is found)",
                                   description="Run the table: tray, OLED and buttons from the configuration; "
                                               "the simulated table when no tray is configured or found.")
    parser.add_argument("--config", help="configuration file (default: config.toml in the user config directory)")
    parser.add_argument("--db", help="database file (default: [storage] database)")
    parser.add_argument("--seed", type=int, help="seed of new matches' engines (default: from the clock)")
    parser.add_argument("--demo", action="store_true",
                        help="on the simulated table, let bots play a match and exit (the default without a terminal)")
    parser.set_defaults(func=run)


def run(args) -> int:
    from dominotable.app.commands.demo import BOT_LONG_PRESS
    from dominotable.app.demo import TableBots, demo_choice, play, summary
    from dominotable.app.hardware import KEY_HELP, LONG_PRESS, Keyboard, open_hardware
    from dominotable.app.runtime import Runtime

    cfg = config_module.load(args.config)
    unattended = args.demo or not sys.stdin.isatty()
    hw = open_hardware(cfg, speed=DEMO_SPEED if unattended else 1.0,  # the virtual tray's speed
                       long_press=BOT_LONG_PRESS if unattended else LONG_PRESS)
    try:
        buttons = hw.buttons()
        demo = hw.simulated and buttons is not None and unattended
        with tempfile.TemporaryDirectory(prefix="dominotable-demo-") as scratch:
            db = args.db or (Path(scratch) / "demo.sqlite3" if demo else cfg.storage.path)
            with Store(db) as store:
                if demo:
                    print("no terminal to press keys in: bots play a demo match on the simulated table", flush=True)
                    runtime = Runtime(hw, store, min(cfg.game.settle_ms, DEMO_SETTLE_MS), seed=args.seed or 0,
                                      choice=demo_choice(), stop_when_over=True)
                    print(summary(runtime, play(runtime, seed=args.seed or 0)))
                    return 0
                runtime = Runtime(hw, store, cfg.game.settle_ms, seed=args.seed,
                                  prompt_after_ms=cfg.game.prompt_after_ms).start()
                keyboard = None
                if hw.simulated and buttons is not None and sys.stdin.isatty():
                    print(KEY_HELP, flush=True)
                    keyboard = Keyboard(buttons, runtime.stop, TableBots(runtime) if hw.simulated else None).start()
                try:
                    runtime.run()
                finally:
                    if keyboard is not None:
                        keyboard.close()
    finally:
        hw.close()
    return 0
