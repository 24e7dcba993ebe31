"""The virtual tray: the firmware's TrayApp over emulated MFRC522 readers and LED chains, behind a
real pty.

The host opens `path` (a stable symlink to the pty's slave, like the udev /dev/domino-tray)
with pyserial exactly as it opens the Pico's /dev/ttyACM0. A background thread runs the
firmware in CPython: bytes the host writes reach `TrayApp.feed`, frames the app emits are
written to the pty master. Virtual time is the emulator's clock (each SPI transaction costs
what it would on the Pico), paced to the wall clock times `speed`.

The cells' lights are the firmware's, on emulated chains (`lit()`: what the LEDs show now, as the
chain latched it). Tests and `dominotable tray sim` move tiles with place / remove / slide /
hold_on_scan_pad, and inject faults: corrupted bytes in either direction, unplug / replug, dead readers,
flickering reads, CRC errors.
"""

from __future__ import annotations

import os
import random
import select
import tempfile
import threading
import time
import tty
from pathlib import Path

from dominotray import pins, wire
from dominotray.app import TrayApp
from dominotray.emulator import LightChains, ReaderArray
from dominotray.layout import blocks

from dominotable.rules.tiles import DominoSet, Tile
from dominotable.tray.action import Action, landing
from dominotable.tray.errors import TrayError
from dominotable.tray.geometry import Geometry, default
from dominotable.tray.tags import Half, Registry

DIRECTIONS = {"right": (0, 1), "down": (1, 0), "left": (0, -1), "up": (-1, 0)}


class Faults:
    """Damage on one direction of the byte stream: per-byte bit flips and drops, and per
    write a chance of a burst of random garbage."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self.bit_flip = self.drop = self.garbage = 0.0
        self.damaged = 0  # writes that were altered

    @property
    def active(self) -> bool:
        return bool(self.bit_flip or self.drop or self.garbage)

    def apply(self, data: bytes) -> bytes:
        if not self.active:
            return data
        rng = self.rng
        out = bytearray()
        for byte in data:
            if rng.random() < self.drop:
                continue
            if rng.random() < self.bit_flip:
                byte ^= 1 << rng.randrange(8)
            out.append(byte)
        if rng.random() < self.garbage:
            at = rng.randrange(len(out) + 1)
            out[at:at] = rng.randbytes(rng.randrange(1, 24))
        if out != data:
            self.damaged += 1
        return bytes(out)


BUSY_S = 0.005  # the longest the firmware thread runs without a rest


def _wall_ms() -> int:
    return int(time.monotonic() * 1000)


class VirtualTray:
    def __init__(self, registry: Registry | None = None, geometry: Geometry | None = None, *,
                 speed: float = 1.0, link_dir: str | Path | None = None, board_id: bytes = b"virtual0",
                 seed: int = 0, **app_options):
        """`speed`: virtual milliseconds per wall millisecond (None: as fast as the CPU).
        `app_options` go to TrayApp (heartbeat_ms, settle_ms, scanner options)."""
        self.registry = registry or Registry.virtual()
        self.geometry = geometry or default()
        self.dominoes: DominoSet = self.registry.dominoes
        self.speed = speed
        self.board_id = board_id
        self.app_options = app_options
        geo = self.geometry
        self.array = ReaderArray(geo.cells, seed=seed or 12345,
                                 layout=blocks(geo.columns, geo.rows, len(geo.pad), pins.BLOCK_COLS, pins.BLOCK_ROWS))
        self.chains = LightChains()  # the LEDs outlive a reboot of the board, as on the tray
        self.to_host = Faults(seed)
        self.to_tray = Faults(seed + 1)
        self._own_dir = link_dir is None
        self._dir = Path(link_dir or tempfile.mkdtemp(prefix="domino-tray-"))
        self.path = str(self._dir / "domino-tray")
        self.slave_path: str | None = None
        self.app: TrayApp | None = None
        self._tiles: dict[Tile, tuple[int, int]] = {}  # cells holding side 0, side 1
        self._master: int | None = None
        self._slave: int | None = None
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- life cycle ---------------------------------------------------------------------

    def start(self) -> VirtualTray:
        with self._lock:
            self._boot()
            self._plug()
        self._thread = threading.Thread(target=self._run, name="virtual-tray", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        with self._lock:
            self._unplug()
        if self._own_dir:
            try:
                self._dir.rmdir()
            except OSError:
                pass

    def __enter__(self) -> VirtualTray:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def unplug(self) -> None:
        """Pull the USB cable: the pty and the symlink go away. The tray itself keeps power
        (the readers run from the tray's own supply) and keeps scanning."""
        with self._lock:
            self._unplug()

    def replug(self, reboot: bool = False) -> None:
        """Plug back in, on a new pty behind the same symlink; `reboot`: the board restarts
        too (as when it was powered from USB)."""
        with self._lock:
            self._unplug()
            if reboot:
                self._boot()
            self._plug()

    def _boot(self) -> None:
        self.app = TrayApp(self.array, self._out, self.array.clock_ms, board_id=self.board_id,
                           cols=self.geometry.columns, rows=self.geometry.rows,
                           pad_cells=len(self.geometry.pad), restart=self._boot, chains=self.chains,
                           lights_clock_ms=_wall_ms,  # what people see, and the host's refresh, run on it
                           **self.app_options)

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.slave_path = os.ttyname(slave)
        tmp = self.path + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(self.slave_path, tmp)
        os.replace(tmp, self.path)

    def _unplug(self) -> None:
        if os.path.lexists(self.path):
            os.unlink(self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self.slave_path = None

    # --- the firmware thread ------------------------------------------------------------

    def _out(self, data: bytes) -> None:
        """TrayApp's writes towards the host (called with the lock held)."""
        if self._master is None:
            return  # no USB host: the CDC driver drops the bytes
        data = self.to_host.apply(data)
        try:
            os.write(self._master, data)
        except (BlockingIOError, OSError):
            pass  # host not reading and the buffer is full: lost, like a full USB FIFO

    def _run(self) -> None:
        wall0, virt0 = time.monotonic(), self.array.clock_ms()
        rested = wall0
        while not self._stop.is_set():
            with self._lock:
                master = self._master
                if master is not None:
                    try:
                        data = os.read(master, 4096)
                    except (BlockingIOError, OSError):
                        data = b""
                    if data:
                        self.app.feed(self.to_tray.apply(data))
                before = self.array.clock_ms()
                self.app.poll()
                if self.array.clock_ms() == before:
                    self.array.advance_ms(1)  # nothing to read (all readers dead): time passes
            if self.speed is None:
                continue
            now = time.monotonic()
            ahead = (self.array.clock_ms() - virt0) / self.speed / 1000 - (now - wall0)
            if ahead > 0:
                fds = [master] if master is not None else []
                try:
                    select.select(fds, [], [], min(ahead, 0.02))
                except (OSError, ValueError):
                    pass  # the pty was closed by unplug() meanwhile
                rested = time.monotonic()
            elif now - rested > BUSY_S:
                # Behind (a speed the CPU cannot give): rest as long as it ran. A real tray has its
                # own chip; an emulator spinning here would starve the host's threads of the GIL.
                time.sleep(BUSY_S)
                rested = time.monotonic()
                if ahead < -0.5:  # do not try to catch up later
                    wall0, virt0 = rested, self.array.clock_ms()

    # --- tiles --------------------------------------------------------------------------

    def _tile_halves(self, tile: str | Tile) -> tuple[Tile, Half, Half]:
        """The tile and its halves in the order named: "5-3" names the 5 half first."""
        if isinstance(tile, Tile):
            if tile not in self.dominoes:
                raise TrayError(f"tile {tile} is not in the {self.dominoes.name} set")
            return tile, Half(tile, 0), Half(tile, 1)
        parsed = self.dominoes.parse(tile)
        first = int(tile.strip(" []").replace(":", "-").replace("|", "-").split("-")[0])
        if first == parsed.a:
            return parsed, Half(parsed, 0), Half(parsed, 1)
        return parsed, Half(parsed, 1), Half(parsed, 0)

    def uid(self, half: Half) -> bytes:
        uid = self.registry.uid_of(half)
        if uid is None:
            raise TrayError(f"{half} has no tag in the registry")
        return uid

    def _cells_for(self, at: int, facing: str) -> tuple[int, int]:
        geo = self.geometry
        if facing not in DIRECTIONS:
            raise TrayError(f"facing must be one of {', '.join(DIRECTIONS)}, not {facing!r}")
        row, col = geo.coords(at)
        dr, dc = DIRECTIONS[facing]
        return at, geo.cell(row + dr, col + dc)

    def place(self, tile: str | Tile, at: int, facing: str = "right") -> tuple[int, int]:
        """Lay a tile with its first-named half on cell `at` and the other half on the
        neighbouring cell towards `facing` (right, down, left, up). Returns both cells."""
        return self._put(tile, self._cells_for(at, facing))

    def hold_on_scan_pad(self, tile: str | Tile) -> tuple[int, int]:
        """Hold a tile over the scan pad: first-named half on the left pad cell."""
        return self._put(tile, self.geometry.pad[:2])

    def pile(self, tile: str | Tile, at: int, facing: str = "right") -> tuple[int, int]:
        """Lay a tile on top of whatever lies there (a capture pile, a scrap pile): the
        readers under a pile see several tags at once."""
        return self._put(tile, self._cells_for(at, facing), on_top=True)

    def _put(self, tile, cells: tuple[int, int], on_top: bool = False) -> tuple[int, int]:
        parsed, first, second = self._tile_halves(tile)
        with self._lock:
            if parsed in self._tiles:
                raise TrayError(f"tile {parsed} is already on the tray at cells {self._tiles[parsed]}")
            for cell in cells:
                if self.array.uid_at(cell) is not None and not on_top:
                    raise TrayError(f"{self.geometry.label(cell)} is already covered")
            self.array.stack(cells[0], self.uid(first))
            self.array.stack(cells[1], self.uid(second))
            self._tiles[parsed] = cells if first.side == 0 else (cells[1], cells[0])
        return cells

    def place_tag(self, cell: int, uid: bytes) -> None:
        """Put a bare tag on a cell (an unknown, cloned or lone tag)."""
        with self._lock:
            self.array.place(cell, uid)

    def remove(self, what: str | Tile | int) -> None:
        """Take a tile (named, or by any cell it covers) or a bare tag (by cell) off the tray."""
        with self._lock:
            if isinstance(what, int):
                tile = next((t for t, cells in self._tiles.items() if what in cells), None)
                if tile is None:
                    if self.array.uid_at(what) is None:
                        raise TrayError(f"nothing lies on {self.geometry.label(what)}")
                    self.array.remove(what)
                    return
            else:
                tile = what if isinstance(what, Tile) else self.dominoes.parse(what)
            cells = self._tiles.pop(tile, None)
            if cells is None:
                raise TrayError(f"tile {tile} is not on the tray")
            for side, cell in enumerate(cells):
                self.array.remove(cell, self.uid(Half(tile, side)))

    def take_off_scan_pad(self) -> None:
        self.remove(self.geometry.pad[0])

    def slide(self, tile: str | Tile, to: int, facing: str = "right") -> tuple[int, int]:
        """Move a tile that is on the tray to a new spot (it leaves, then arrives). A spot off
        the grid or covered is refused, and the tile stays where it was."""
        parsed = self._tile_halves(tile)[0]
        with self._lock:
            before = self._tiles.get(parsed)
            self.remove(parsed)
            try:
                return self.place(tile, to, facing)
            except TrayError:
                for side, cell in enumerate(before):
                    self.array.stack(cell, self.uid(Half(parsed, side)))
                self._tiles[parsed] = before
                raise

    def apply(self, action: Action) -> None:
        """Carry out one hand's step (tray/action.py) as a whole or not at all: a tile laid twice,
        a tile that is not there, a cell off the grid or covered, or halves that would not
        touch raise TrayError naming it, and the tray stays as it was."""
        tile = action.tile
        with self._lock:
            if tile not in self.dominoes:
                raise TrayError(f"tile {tile} is not in the {self.dominoes.name} set")
            where = self._tiles.get(tile)
            cells = landing(action, self.geometry, where, lambda cell: self.array.uid_at(cell) is not None)
            if where is not None:
                self.remove(tile)
            if cells is not None:
                self._put(tile, cells)

    def where(self, tile: str | Tile) -> tuple[int, int] | None:
        """Cells holding side 0 and side 1 of the tile, or None."""
        return self._tiles.get(self._tile_halves(tile)[0])

    def tiles(self) -> dict[Tile, tuple[int, int]]:
        """Every tile on the tray now, with the cells holding its side 0 and side 1. Without the
        lock (the firmware thread holds it while it scans): each change of the dict is made
        whole under the lock, and copying it is one step."""
        return dict(self._tiles)

    def cells(self) -> list[tuple[int, bytes]]:
        """What lies on each cell now, as a snapshot's (status, uid) list: the truth, which
        the host sees only once the firmware has read it."""
        with self._lock:
            uids = [self.array.uids_at(c) for c in range(self.geometry.cells)]
        return [(wire.TAG, u[0]) if len(u) == 1 else (wire.STACK, b"") if u else (wire.EMPTY, b"")
                for u in uids]

    def lit(self) -> dict[int, tuple[int, int, int]]:
        """The cells' LEDs that are not dark, as the chains latched them: {cell: (red, green, blue)},
        each channel already under the firmware's brightness cap."""
        with self._lock:
            return self.chains.lit()

    # --- reader faults ------------------------------------------------------------------

    def set_dead(self, cell: int, dead: bool = True) -> None:
        with self._lock:
            self.array.set_dead(cell, dead)

    def set_flicker(self, cell: int, probability: float) -> None:
        with self._lock:
            self.array.set_flicker(cell, probability)

    def inject_crc_errors(self, cell: int, count: int) -> None:
        with self._lock:
            self.array.inject_crc_errors(cell, count)

    def set_coupling(self, cell: int, factor: float) -> None:
        """A detuned (under 1) or shorted (0) coil: see dominotray.emulator."""
        with self._lock:
            self.array.set_coupling(cell, factor)

    def set_stuck(self, cell: int, stuck: bool = True) -> None:
        """The cell's coil switch stuck on the network: its tags answer for its reader's other cells."""
        with self._lock:
            self.array.set_stuck(cell, stuck)

    def set_spi_us(self, us: float) -> None:
        """The time of one SPI transaction (a slow bus)."""
        with self._lock:
            self.array.xfer_us = us
