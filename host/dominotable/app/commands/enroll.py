"""`dominotable enroll layout|pad`: teach the table which tag is under which tile half."""

from __future__ import annotations

from dominotable.app.cli import ranged
from dominotable.app.progress import bar
from dominotable.rules.tiles import DominoSet
from dominotable.tray.enroll import LAYOUTS, Enroller
from dominotable.tray.errors import EnrollError
from dominotable.tray.link import TrayLink
from dominotable.tray.tags import Registry


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "enroll", help="enroll the tiles' RFID tags",
        description="Record which NTAG UID is stuck under which tile half, in the tag registry "
                    "(the user data directory unless --tags). Either lay the whole set out in the "
                    "printed arrangement (layout), or hold the tiles over the scan pad one by one "
                    "(pad). Nothing is saved unless every tag was read cleanly.")
    sub = parser.add_subparsers(dest="mode", metavar="MODE", required=True, help="how the tiles are read")
    layout = sub.add_parser("layout", help="lay the whole set out; majority vote over several snapshots",
                            description="Lay the whole set out on the tray as printed, press Enter, and every "
                                        "tag is read from several snapshots of the tray (a majority vote).")
    layout.add_argument("--layout", default="rows", choices=LAYOUTS, help="the arrangement (default rows)")
    layout.add_argument("--votes", type=ranged(int, 1, 99, "snapshots"), default=5,
                        help="snapshots to vote over, 1 to 99 (default 5)")
    layout.add_argument("--settle", type=ranged(float, 0, 60, "seconds"), default=1.5,
                        help="seconds without changes before voting (default 1.5; over one full sweep)")
    pad = sub.add_parser("pad", help="tile by tile over the scan pad",
                         description="Hold the tiles over the scan pad one at a time, as asked: the whole set, "
                                     "or only the tiles named (replacements).")
    pad.add_argument("tiles", nargs="*", metavar="TILE",
                     help="only these tiles, e.g. replacement tiles (default: the whole set)")
    for p in (layout, pad):
        p.add_argument("--port", default="auto", help="tray device (default: /dev/domino-tray, else by USB id)")
        p.add_argument("--serial", dest="serial_number", help="the tray Pico's USB serial number")
        p.add_argument("--tags", help="tag registry file (default: tags.json in the user data directory)")
        p.add_argument("--set", dest="top", type=int, choices=(6, 9, 12),
                       help="domino set of a new registry (default: the registry's, else 6)")
        p.add_argument("--fresh", action="store_true", help="start from an empty registry")
        p.add_argument("--timeout", type=ranged(float, 0.1, 3600, "seconds"), default=30.0,
                       help="seconds to wait for each step, 0.1 to 3600 (default 30)")
        p.set_defaults(func=run)


def prompt_waiting(message: str) -> None:
    print(message, flush=True)
    try:
        input()
    except EOFError:
        pass  # not interactive: go on


def prompt(message: str) -> None:
    print(message, flush=True)


def run(args) -> int:
    registry = Registry.load(args.tags)
    before = dict(registry.items())  # before --fresh empties it, so the summary counts what it retires
    if args.top and args.top != registry.dominoes.top:
        if len(registry) and not args.fresh:
            raise EnrollError(f"the registry {registry.path} holds a {registry.dominoes.name} set; "
                              f"use --fresh to start a double-{args.top} one")
        registry = Registry(registry.path, DominoSet(args.top))
    tiles = registry.dominoes.parse_many(args.tiles) if args.mode == "pad" else None
    with TrayLink(args.port, serial_number=args.serial_number) as link:
        enroller = Enroller(link, registry, prompt_waiting if args.mode == "layout" else prompt,
                            votes=getattr(args, "votes", 5), settle=getattr(args, "settle", 1.5),
                            timeout=args.timeout, progress=bar)
        if args.mode == "layout":
            result = enroller.by_layout(args.layout, fresh=args.fresh)
        else:
            result = enroller.by_pad(tiles, fresh=args.fresh)
    after = dict(result.items())
    new = sum(1 for uid in after if uid not in before)
    print(f"enrolled: {len(after)} tags in {result.path} ({new} new, {len(before) - (len(after) - new)} retired)")
    missing = result.missing()
    if missing:
        print(f"{len(missing)} halves still without a tag, e.g. {missing[0]}")
    return 0
