"""`dominotable run [--config PATH] [--db PATH] [--frames DIR] [--http HOST:PORT|off]
[--broker URL --table ID [--partner ID]]`: the table.

With the hardware in the configuration it is the Pi's program. With no tray configured or
found it runs the simulated table: the virtual tray, the OLED drawn in the terminal (and as
PNG frames with --frames or display.frames), and the three buttons on the keyboard (see
KEY_HELP; the keys work whatever the tray, `tray sim`'s too). When standard output is not a
terminal, a text transcript (plays, prompts, scores) replaces the OLED's block art.

The table page (app/web.py) is served on the [web] address, 127.0.0.1:8080 by default, or on
--http's. When standard input is not a terminal (or with --demo) nobody can press keys: without
an explicit --http the simulated table plays a demo match with bots placing the tiles (two
players, one hand of Castle Rock, a fast virtual tray and a short settle time) and exits when it
ends. The demo is recorded in the database marked as a demo: it never resumes, nor is resumed
instead of, a real match, and the leaderboard leaves it out. With an explicit --http the browser is
the controls and the table runs until SIGINT or SIGTERM (with --demo: the bots' match, then the
page stays up until then).

With a venue's broker (--broker or [venue] broker) and this table's id there (--table or [venue]
table), every committed event is published to the venue (app/venue.py); play never waits for it.
With a partner table (--partner or [venue] partner) the setup menu offers seats at that table,
and the table joins a match that table starts with seats here (match/remote.py).

A damaged database does not stop the table: it is moved aside and its matches recovered
(recovery.py), and the OLED says so. A database the table cannot use (read-only, another
program's, a newer dominotable's, or held by another table) stops it with one line, exit 2, before
the hardware is opened.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import threading

from dominotable.app import config as config_module
from dominotable.app.config import listen_address
from dominotable.match.replay import replay
from dominotable.store.recovery import open_for_table

DEMO_SPEED = 30.0  # the bots' demo: the virtual tray thirty times as fast as a real one
DEMO_SETTLE_MS = 60


def register(subparsers) -> None:
    parser = subparsers.add_parser("run", help="run the table (simulated when no tray is found)",
                                   description="Run the table: tray, OLED and buttons from the configuration; "
                                               "the simulated table when no tray is configured or found.")
    parser.add_argument("--config", help="configuration file (default: config.toml in the user config directory)")
    parser.add_argument("--db", help="database file (default: [storage] database)")
    parser.add_argument("--seed", type=int, help="seed of new matches' engines (default: from the clock)")
    parser.add_argument("--frames", metavar="DIR", help="also write every OLED frame as a PNG into DIR")
    parser.add_argument("--demo", action="store_true",
                        help="on the simulated table, let bots play a match and exit (the default without a terminal)")
    parser.add_argument("--http", metavar="HOST:PORT|off", type=listen_address,
                        help="serve the table page here (default: the [web] section, 127.0.0.1:8080), or off")
    venue_arguments(parser)
    parser.add_argument("--partner", metavar="ID",
                        help="another table at the venue whose people may take seats in this table's matches, "
                             "and whose matches this table joins (default: [venue] partner)")
    parser.set_defaults(func=run, http=False)


def venue_arguments(parser) -> None:
    parser.add_argument("--broker", metavar="URL",
                        help="publish to the venue on this MQTT broker, mqtt://[user:pass@]HOST:PORT "
                             "(mqtts:// for TLS; default: [venue] broker)")
    parser.add_argument("--table", metavar="ID", help="this table's id at the venue (default: [venue] table)")


def run(args) -> int:
    from dominotable.app.demo import BOT_LONG_PRESS, TableBots, demo_choice, demo_match, transcribe
    from dominotable.app.hardware import KEY_HELP, LONG_PRESS, Keyboard, open_hardware
    from dominotable.app.offtray import OffTray
    from dominotable.app.runtime import Runtime
    from dominotable.app.venue import start_link, stop_link
    from dominotable.app.web import on_signals, start

    cfg = config_module.load(args.config)
    explicit = args.http is not False
    terminal = sys.stdin.isatty()
    listen = args.http if explicit else None if cfg.web.off else (cfg.web.host, cfg.web.port)
    bots_play = args.demo or (not terminal and not explicit)
    transcript = cfg.display.driver == "emulated" and cfg.display.terminal and not sys.stdout.isatty()
    cfg = dataclasses.replace(cfg, display=dataclasses.replace(
        cfg.display, frames=args.frames or cfg.display.frames, terminal=cfg.display.terminal and not transcript))
    keys_help = "" if bots_play or not terminal else KEY_HELP + (", o open the page" if listen is not None else "")
    db = args.db or cfg.storage.path
    # first: a database the table cannot use stops it before anything starts
    store, repairs = open_for_table(db, replay)
    with store:
        hw = open_hardware(cfg, speed=DEMO_SPEED if bots_play else 1.0,  # the virtual tray's speed
                           long_press=BOT_LONG_PRESS if bots_play else LONG_PRESS, footer=keys_help)
        server = link = None
        said = LogLine(hw.say) if hw.display.terminal() is not None and sys.stdout.isatty() else None
        if said is not None:
            logging.getLogger().addHandler(said)
        try:
            buttons = hw.buttons()
            demo = hw.simulated and buttons is not None and bots_play
            for i, repair in enumerate(repairs):
                hw.say(repair, f"repair {i}")
            if demo:
                hw.say("no terminal to press keys in: bots play a demo match on the simulated table"
                       if not args.demo else "bots play a demo match on the simulated table", "demo")
                serve = (lambda runtime: start(runtime, cfg.web, listen, explicit, hw.say)) if explicit and \
                    listen is not None else None
                demo_match(hw, store, demo_choice(), min(cfg.game.settle_ms, DEMO_SETTLE_MS), args.seed or 0,
                           db=db, explicit_db=bool(args.db), transcript=transcript, repairs=repairs,
                           venue=(cfg.venue, args.broker, args.table), serve=serve)
                return 0
            runtime = Runtime(hw, store, cfg.game.settle_ms, seed=args.seed, repairs=repairs,
                              prompt_after_ms=cfg.game.prompt_after_ms)
            if listen is not None:
                server = start(runtime, cfg.web, listen, explicit, hw.say)
            link = start_link(runtime, cfg.venue, args.broker, args.table, args.partner)
            if transcript:
                transcribe(runtime)
            runtime.start()
            on_signals(runtime.stop)
            keyboard = None
            if buttons is not None and terminal:
                keys = {}
                if server is not None:
                    url = server.url
                    keys["o"] = lambda: threading.Thread(target=open_page, args=(url, hw.say), daemon=True).start()
                hands = OffTray(hw.tray.virtual, lambda: runtime.session.referee.game.dset.tiles
                                if runtime.session is not None else ()) if hw.simulated else None
                keyboard = Keyboard(buttons, runtime.stop, TableBots(runtime) if hw.simulated else None,
                                    keys=keys, command=hands.command if hands is not None else None).start()
            elif server is not None:
                hw.say("the browser is the controls; Ctrl-C or SIGTERM stops the table", "controls")
            try:
                runtime.run()
            finally:
                if keyboard is not None:
                    keyboard.close()
                stop_link(link, 2.0)
                link = None
        finally:
            if link is not None:
                link.stop()
            if server is not None:
                server.stop()
            hw.close()
            if said is not None:
                logging.getLogger().removeHandler(said)
    return 0


class LogLine(logging.Handler):
    """A warning or an error said on the status line under the OLED drawn in the terminal (its
    first line): printed between two drawings it would shift the frame and be left behind by the
    next redraw, which backs up over the lines the drawing wrote."""

    def __init__(self, say):
        super().__init__(logging.WARNING)
        self.say = say

    def emit(self, record: logging.LogRecord) -> None:
        self.say(f"{record.levelname.lower()}: {(record.getMessage().splitlines() or [''])[0]}", "log")


def open_page(url: str, say) -> None:
    """The `o` key: the table page in a browser, or, with none to open (a server, a terminal
    over SSH), say so and where the page is. Without a display only text browsers could start,
    and they would take over the table's own terminal, so none is tried there."""
    import webbrowser

    display = sys.platform in ("darwin", "win32") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    try:
        opened = bool(display) and webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    say(f"opened the table page in a browser: {url}" if opened else
        f"no web browser to open here{'' if display else ' (no display)'}: open {url} in one")
