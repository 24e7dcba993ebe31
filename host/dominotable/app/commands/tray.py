"""`dominotable tray monitor [--port ...]`: decoded tray frames, live.
`dominotable tray sim`: a virtual tray on a pty, driven by commands on stdin.
`dominotable tray bringup [--port ...]`: every reader and cell measured and judged, then each
cell's LED lit in turn for a person to watch."""

from __future__ import annotations

import json
import sys
import time

import serial
from dominotray import wire

from dominotable.app.cli import ranged
from dominotable.rules.tiles import DominoSet
from dominotable.tray import bringup
from dominotable.tray.board import Board
from dominotable.tray.bringup import parse_cell
from dominotable.tray.describe import errors_text, frame_text
from dominotable.tray.errors import TrayError
from dominotable.tray.geometry import default
from dominotable.tray.link import find_port, open_port
from dominotable.tray.tags import Registry
from dominotable.tray.virtual import DIRECTIONS, VirtualTray


def register(subparsers) -> None:
    parser = subparsers.add_parser("tray", help="debug the tile tray: live frames, or a virtual tray",
                                   description="Tools for the RFID tile tray.")
    sub = parser.add_subparsers(dest="tray_command", metavar="TOOL", required=True, help="the tool")

    monitor = sub.add_parser("monitor", help="print decoded tray frames live",
                             description="Open the tray, ask for its HELLO and a snapshot, then print "
                                         "every frame and the malformed-frame counts until Ctrl-C.")
    monitor.add_argument("--port", default="auto", help="device path (default: /dev/domino-tray, else the Pico by USB id)")
    monitor.add_argument("--serial", dest="serial_number", help="the Pico's USB serial number")
    monitor.add_argument("--tags", help="tag registry to name tile halves (default: the user's)")
    monitor.add_argument("--virtual-tags", action="store_true", help="name halves from the virtual tag set")
    monitor.add_argument("--board", action="store_true", help="draw the board after every snapshot")
    monitor.add_argument("--count", type=int, help="stop after this many frames")
    monitor.add_argument("--seconds", type=float, help="stop after this many seconds")
    monitor.set_defaults(func=run_monitor)

    sim = sub.add_parser("sim", help="run a virtual tray on a pty, commands on stdin",
                         description="Create a virtual tray (the firmware over emulated readers) behind a pty, "
                                     "print its path, and read commands from stdin until EOF. "
                                     "Type 'help' for the commands.")
    sim.add_argument("--speed", type=ranged(float, 0.1, 1000, "virtual ms per wall ms"), default=1.0,
                     help="virtual ms per wall ms, 0.1 to 1000 (default 1)")
    sim.add_argument("--seed", type=int, default=0, help="seed for faults and flicker")
    sim.set_defaults(func=run_sim)

    up = sub.add_parser("bringup", help="measure and judge every reader and cell, light every LED (a new board)",
                        description="Ask the tray to measure itself, then judge each cell: reader present, SPI "
                                    "transaction time, tuned (reads its reference tag), range (would read a "
                                    "tile face down), cross-reads. Lay the reference tags first (--tags). Then "
                                    "each cell's LED lights white in turn along its chain, and every LED red, "
                                    "green and blue: watch for one that stays dark or shows another colour. "
                                    "Exit 0 when every judged cell passes, 1 when any fails.")
    up.add_argument("--port", default="auto", help="device path (default: /dev/domino-tray, else the Pico by USB id)")
    up.add_argument("--serial", dest="serial_number", help="the Pico's USB serial number")
    up.add_argument("--tags", default="checker",
                    help="where reference tags lie: checker (cells whose row + column is even, and the "
                         "left pad cell), checker-odd, all, none, or cells (37,r2c5,...); default checker")
    up.add_argument("--cells", help="judge only these cells: r0c0:r3c3 (a rectangle) or 37,r2c5,... "
                                    "(default: every cell)")
    up.add_argument("--timeout", type=ranged(float, 1, 600, "seconds"), default=60.0,
                    help="how long to wait for the report, 1 to 600 s (default 60)")
    up.add_argument("--led-ms", type=ranged(int, 0, 10_000, "milliseconds"), default=300,
                    help=f"how long each LED stays lit, 0 (no LED check) or {bringup.LED_MIN_MS} to 10000 ms "
                         "(default 300)")
    up.add_argument("--json", action="store_true", help="print the results as JSON")
    up.set_defaults(func=run_bringup)


# --- monitor ------------------------------------------------------------------------------

def run_monitor(args) -> int:
    geometry = default()
    registry = Registry.any_virtual() if args.virtual_tags else Registry.load(args.tags)
    path = find_port(args.port, args.serial_number)
    port = open_port(path, timeout=0.1)
    decoder = wire.Decoder(types=wire.FROM_TRAY, parse=True)
    framer = wire.Framer()
    shown_errors = dict(decoder.errors)
    frames = 0
    end = time.monotonic() + args.seconds if args.seconds else None
    print(f"monitoring {path}", flush=True)
    with port:
        try:
            port.reset_input_buffer()
            port.write(b"\x00" + framer.frame(wire.GET_HELLO) + framer.frame(wire.GET_SNAPSHOT))
            while (end is None or time.monotonic() < end) and (args.count is None or frames < args.count):
                for kind, seq, msg in decoder.feed(port.read(port.in_waiting or 1)):
                    frames += 1
                    print(frame_text(kind, seq, msg, geometry, registry))
                    if args.board and kind == wire.SNAPSHOT:
                        try:
                            print(Board(msg.cells, registry, geometry).diagram())
                        except TrayError as exc:  # a tray of another size: the frame is shown, not drawn
                            print(f"(no drawing: {exc})")
                    if args.count is not None and frames >= args.count:
                        break
                if decoder.errors != shown_errors:
                    shown_errors = dict(decoder.errors)
                    print(errors_text(shown_errors))
                sys.stdout.flush()
        except (serial.SerialException, OSError) as exc:
            raise TrayError(f"tray at {path} lost: {exc}") from None
    print(f"{frames} frames; {errors_text(decoder.errors)}")
    return 0


# --- sim ----------------------------------------------------------------------------------

SIM_HELP = """commands (cells as numbers or r<row>c<col>; facing: right, down, left, up):
  place TILE CELL [FACING]   lay a tile, its first-named half on CELL
  remove TILE|CELL           take a tile (or a bare tag) off
  slide TILE CELL [FACING]   move a tile
  pile TILE CELL [FACING]    lay a tile on top of what lies there (a capture or scrap pile)
  pad TILE | unpad           hold a tile over the scan pad / take it off
  tag CELL UIDHEX            put a bare tag on a cell
  unplug | replug [reboot]   pull / reinsert the USB cable
  dead CELL [off]            kill (or revive) a reader
  flicker CELL P             miss this cell's tag with probability P
  crc CELL N                 corrupt the next N replies from CELL
  detune CELL F              CELL's coil makes F of its field (0: shorted across)
  stuck CELL [off]           CELL's coil switch stuck on (its tag answers for its block)
  spi US                     every SPI transaction takes US microseconds
  noise P                    flip and drop bytes towards the host with probability P each
  show                       draw what lies on the tray
  lights                     the cells the tray's LEDs light now, and their colours
  help"""


def sim_command(tray: VirtualTray, line: str) -> str | None:
    """Carry out one sim command; returns text to print."""
    words = line.split()
    if not words:
        return None
    cmd, rest = words[0].lower(), words[1:]
    geo = tray.geometry

    def need(n: int) -> None:
        if len(rest) < n:
            raise TrayError(f"{cmd} needs {n} argument(s); type 'help'")

    if cmd in ("place", "slide", "pile"):
        need(2)
        facing = rest[2] if len(rest) > 2 else "right"
        move = {"place": tray.place, "slide": tray.slide, "pile": tray.pile}[cmd]
        cells = move(rest[0], parse_cell(rest[1], geo), facing)
        return f"{rest[0]} on {geo.label(cells[0])} and {geo.label(cells[1])}"
    if cmd == "remove":
        need(1)
        target = rest[0]
        tray.remove(parse_cell(target, geo) if target[0].lower() == "r" or target.isdigit() else target)
        return f"removed {target}"
    if cmd == "pad":
        need(1)
        tray.hold_on_scan_pad(rest[0])
        return f"{rest[0]} held over the scan pad"
    if cmd == "unpad":
        tray.take_off_scan_pad()
        return "scan pad cleared"
    if cmd == "tag":
        need(2)
        try:
            uid = bytes.fromhex(rest[1])
        except ValueError:
            raise TrayError(f"{rest[1]!r} is not a hex UID") from None
        tray.place_tag(parse_cell(rest[0], geo), uid)
        return f"tag {uid.hex()} on {geo.label(parse_cell(rest[0], geo))}"
    if cmd == "unplug":
        tray.unplug()
        return "unplugged"
    if cmd == "replug":
        tray.replug(reboot=bool(rest) and rest[0] == "reboot")
        return f"plugged in: {tray.path} -> {tray.slave_path}"
    if cmd == "dead":
        need(1)
        cell = parse_cell(rest[0], geo)
        tray.set_dead(cell, not (rest[1:] == ["off"]))
        return f"reader at {geo.label(cell)} {'revived' if rest[1:] == ['off'] else 'dead'}"
    if cmd == "stuck":
        need(1)
        cell = parse_cell(rest[0], geo)
        tray.set_stuck(cell, rest[1:] != ["off"])
        return f"coil switch at {geo.label(cell)} {'freed' if rest[1:] == ['off'] else 'stuck on'}"
    if cmd in ("detune", "spi"):
        need(2 if cmd == "detune" else 1)
        try:
            number = float(rest[-1])
        except ValueError:
            raise TrayError(f"{rest[-1]!r} is not a number") from None
        if cmd == "spi":
            if not 1 <= number <= 10000:
                raise TrayError(f"spi takes a transaction time from 1 to 10000 us, not {rest[-1]}")
            tray.set_spi_us(number)
            return f"SPI transactions take {number:g} us"
        if not 0 <= number <= 1:
            raise TrayError(f"detune takes a share of the field from 0 to 1, not {rest[-1]}")
        cell = parse_cell(rest[0], geo)
        tray.set_coupling(cell, number)
        return f"coil at {geo.label(cell)} makes {number:g} of its field"
    if cmd in ("flicker", "crc", "noise"):
        need(2 if cmd != "noise" else 1)
        try:
            number = float(rest[-1]) if cmd != "crc" else int(rest[-1])
        except ValueError:
            raise TrayError(f"{rest[-1]!r} is not a number") from None
        if cmd == "crc" and not 0 <= number <= 1_000_000:
            raise TrayError(f"{cmd} takes a count of replies from 0 to 1000000, not {rest[-1]}")
        if cmd != "crc" and not 0 <= number <= 1:
            raise TrayError(f"{cmd} takes a probability from 0 to 1, not {rest[-1]}")
        if cmd == "noise":
            tray.to_host.bit_flip = tray.to_host.drop = number
            return f"noise {number:g} on the line to the host"
        cell = parse_cell(rest[0], geo)
        (tray.set_flicker if cmd == "flicker" else tray.inject_crc_errors)(cell, number)
        return f"{cmd} {number:g} at {geo.label(cell)}"
    if cmd == "show":
        return Board(tray.cells(), tray.registry, geo).diagram()
    if cmd == "lights":
        lit = tray.lit()
        return ", ".join(f"{geo.label(cell)} #{r:02x}{g:02x}{b:02x}" for cell, (r, g, b) in sorted(lit.items())) \
            or "every LED dark"
    if cmd == "help":
        return SIM_HELP
    raise TrayError(f"unknown command {cmd!r}; type 'help'")


def run_sim(args) -> int:
    with VirtualTray(Registry.virtual(DominoSet(12)), speed=args.speed, seed=args.seed) as tray:  # every tile any game uses
        print(f"virtual tray at {tray.path} (pty {tray.slave_path}); facing is one of {', '.join(DIRECTIONS)}")
        print(f"connect with: dominotable tray monitor --virtual-tags --port {tray.path}; play on it: "
              f'[tray] port = "{tray.path}" in the config, then dominotable run')
        print("type 'help' for commands; end with Ctrl-D", flush=True)
        for line in sys.stdin:
            try:
                out = sim_command(tray, line)
            except (TrayError, ValueError) as exc:  # DominoError is a ValueError
                out = f"error: {exc}"
            if out:
                print(out, flush=True)
    return 0


# --- bringup ------------------------------------------------------------------------------

def run_bringup(args) -> int:
    geometry = default()
    expected = bringup.expected_tags(args.tags, geometry)  # bad input: TrayError, exit 2
    cells = bringup.parse_cells(args.cells, geometry) if args.cells else None
    if 0 < args.led_ms < bringup.LED_MIN_MS:
        raise TrayError(f"--led-ms {args.led_ms} is shorter than the tray's frame interval "
                        f"({bringup.LED_MIN_MS} ms): 0 skips the LED check")
    path = find_port(args.port, args.serial_number)
    hello, drive, _max_drive, probes = bringup.measure(path, args.timeout)
    if len(probes) != geometry.cells:
        raise TrayError(f"the tray reports {len(probes)} cells, this host's tray has {geometry.cells}")
    results = bringup.judge(probes, drive, geometry, expected, cells)
    if args.json:
        print(json.dumps({"board": hello.board_id.hex(), "fw": ".".join(map(str, hello.fw)), "drive": drive,
                          "cells": [{"cell": r.cell, "label": r.label, "present": r.probe.present,
                                     "spi_us": r.probe.spi_us, "expected_tag": r.expected,
                                     "read": r.probe.uid.hex() if r.probe.status == wire.TAG else
                                     {wire.EMPTY: "empty", wire.FAULT: "fault", wire.STACK: "stack"}[r.probe.status],
                                     "min_drive": r.probe.min_drive, "face_down_margin": r.margin,
                                     "cross_read": r.cross, "failures": r.failures} for r in results]}, indent=1))
    else:
        print(f"bring-up of board {hello.board_id.hex()} (firmware {'.'.join(map(str, hello.fw))}), "
              f"scanning drive {drive}, reference tags: {args.tags}")
        print(bringup.table(results))
    if args.led_ms:
        say = (lambda line: print(line, file=sys.stderr, flush=True)) if args.json else \
            (lambda line: print(line, flush=True))
        say("LED check: each cell lights white in turn along its chain, then every LED red, green and blue; "
            "note any that stays dark or shows another colour")
        bringup.light_each(path, geometry, args.led_ms, cells, say)
    return 1 if any(r.failures for r in results) else 0
