"""The host link over a real pty: handshake, live cells, unplugs, corruption, finding the tray."""

import random
import threading
import time
from types import SimpleNamespace

import pytest
from dominotable.rules.tiles import Tile
from dominotable.tray import link as link_mod
from dominotable.tray.board import Board, Status
from dominotable.tray.errors import ProtocolMismatch, TrayError, TrayNotFound
from dominotable.tray.link import TrayEvent, TrayLink
from dominotable.tray.tags import Half
from dominotable.tray.virtual import VirtualTray
from dominotray import wire
from support.polling import WAIT, until
from support.scripted_tray import BOARD, ScriptedTray
from support.scripted_tray import hello as tray_hello
from support.scripted_tray import snapshot as tray_snapshot
from support.tray_fixtures import count

SLOW = 6  # virtual ms per wall ms: the firmware thread is mostly idle


def test_handshake_reports_the_tray(vtray, link):
    assert link.connected and link.hello.proto == wire.PROTO
    assert link.hello.board_id == b"virtual0" and link.hello.cells == 194
    assert link.hello.failed_cells() == []
    assert len(link.cells) == 194 and link.snapshots >= 1


def test_a_placement_travels_from_the_reader_to_a_host_snapshot_and_board(vtray, link):
    vtray.place("5-3", at=20, facing="down")  # the 5 half on cell 20, the 3 half below it

    def snapshot_shows_tile(lk):
        snaps = [e.detail for e in lk.events if e.kind == TrayEvent.SNAPSHOT]
        return bool(snaps) and snaps[-1][20][0] == wire.TAG and snaps[-1][36][0] == wire.TAG

    link.request_snapshot()
    assert link.wait_for(snapshot_shows_tile, WAIT)
    snap = [e.detail for e in link.events if e.kind == TrayEvent.SNAPSHOT][-1]
    assert snap[20] == (wire.TAG, vtray.uid(Half(Tile(3, 5), 1)))
    assert snap[36] == (wire.TAG, vtray.uid(Half(Tile(3, 5), 0)))
    board = Board(snap, vtray.registry)
    assert board.status() == Status.VALID
    (placement,) = board.placements
    assert placement.tile == Tile(3, 5) and placement.orientation == "vertical"
    assert placement.pips_at(20) == 5 and placement.pips_at(36) == 3 and placement.facing == (5, 3)
    assert any(e.kind == TrayEvent.CHANGES for e in link.events)  # the change events came first


def test_scan_pad_and_slide(vtray, link):
    vtray.hold_on_scan_pad("6-2")
    assert link.wait_for(lambda lk: (p := Board(lk.cells, vtray.registry).on_pad()) is not None
                         and p.facing == (6, 2), WAIT)
    vtray.take_off_scan_pad()
    vtray.place("1-4", at=0)
    vtray.slide("1-4", to=100, facing="left")
    assert link.wait_for(lambda lk: [(p.tile, p.cells) for p in Board(lk.cells, vtray.registry).placements]
                         == [(Tile(1, 4), (100, 99))], WAIT)


def test_dead_reader_at_boot_is_reported_by_cell_and_comes_back_after_reset(tmp_path):
    from dominotable.tray.virtual import VirtualTray
    tray = VirtualTray(speed=8, link_dir=tmp_path)
    tray.set_dead(50)  # the reader of the 2 x 2 block of cells 34, 35, 50, 51
    block = [34, 35, 50, 51]
    with tray, TrayLink(locate=lambda: tray.path) as lk:
        assert lk.hello.failed_cells() == block
        board = Board(lk.cells, tray.registry)
        assert board.status() == Status.READER_FAULT and board.faults == block
        assert "reader fault at r3c2 (cell 50)" in board.diagram()
        tray.set_dead(50, False)
        lk.reset_reader(50)
        assert lk.wait_for(lambda k: all(k.cells[c] == (wire.EMPTY, b"") for c in block), WAIT)


def test_reader_dying_while_running_becomes_a_fault_cell(vtray, link):
    vtray.set_dead(77)
    assert link.wait_for(lambda lk: lk.cells[77][0] == wire.FAULT, WAIT)


def test_flickering_and_crc_errors_do_not_remove_a_tile(vtray, link):
    vtray.place("2-2", at=40)
    assert link.wait_for(lambda lk: lk.cells[41][0] == wire.TAG, WAIT)
    vtray.set_flicker(40, 0.15)
    vtray.inject_crc_errors(41, 20)
    sweeps = vtray.app.scanner.sweeps
    assert link.wait_for(lambda lk: vtray.app.scanner.sweeps >= sweeps + 3, WAIT)
    removals = [e for e in link.events if e.kind == TrayEvent.CHANGES for cell, status, _ in e.detail
                if cell in (40, 41) and status != wire.TAG]
    assert removals == []


def test_a_lost_frame_shows_as_a_sequence_gap_and_triggers_a_snapshot(vtray, link):
    seq = vtray.app.framer.seq
    vtray.to_host.drop = 1.0  # every byte of the next frame(s) is lost
    vtray.place("0-6", at=150)
    assert link.wait_for(lambda lk: vtray.app.framer.seq != seq, WAIT)  # its CHANGES went missing
    vtray.to_host.drop = 0.0
    vtray.place("1-6", at=152)  # next to it: reported within milliseconds, with a seq gap
    assert link.wait_for(lambda lk: lk.seq_gaps >= 1, WAIT)
    assert link.wait_for(lambda lk: all(lk.cells[c][0] == wire.TAG for c in (150, 151, 152, 153)), WAIT)


def test_random_corruption_never_delivers_a_wrong_tile_event(vtray, link):
    """Bit flips, dropped bytes and garbage in both directions: every cell value the host is
    told (by CHANGES or SNAPSHOT) is one that cell really had; once the line is clean the
    host converges to the truth."""
    rng = random.Random(7)
    history = {cell: {(wire.EMPTY, b"")} for cell in range(194)}
    vtray.to_host.bit_flip = vtray.to_host.drop = 0.002
    vtray.to_host.garbage = 0.1
    vtray.to_tray.bit_flip = 0.01
    tiles = [Tile(a, b) for b in range(7) for a in range(b + 1)]
    spots = [r * 16 + c for r in range(0, 12, 2) for c in range(0, 15, 3)]
    placed = {}
    for step in range(40):
        if placed and rng.random() < 0.4:
            tile = rng.choice(list(placed))
            vtray.remove(tile)
            del placed[tile]
        else:
            tile = rng.choice([t for t in tiles if t not in placed])
            spot = rng.choice([s for s in spots if s not in placed.values()])
            vtray.place(tile, at=spot)
            placed[tile] = spot
            for cell in vtray.where(tile):
                history[cell].add((wire.TAG, vtray.array.uid_at(cell)))
        clock = vtray.array.clock_ms()
        assert link.wait_for(lambda lk: vtray.array.clock_ms() >= clock + 60, WAIT)
    vtray.to_host.bit_flip = vtray.to_host.drop = vtray.to_host.garbage = 0.0
    vtray.to_tray.bit_flip = 0.0
    truth = [(wire.TAG, vtray.array.uid_at(c)) if vtray.array.uid_at(c) else (wire.EMPTY, b"") for c in range(194)]
    link.request_snapshot()
    assert link.wait_for(lambda lk: lk.cells == truth, WAIT)

    assert vtray.to_host.damaged > 10 and sum(link.errors.values()) > 0
    for event in link.events:
        if event.kind == TrayEvent.CHANGES:
            for cell, status, uid in event.detail:
                assert (status, uid) in history[cell], (cell, status, uid)
        elif event.kind == TrayEvent.SNAPSHOT:
            for cell, value in enumerate(event.detail):
                assert value in history[cell], (cell, value)


def test_hundred_unplug_replug_cycles_each_resync_from_a_fresh_snapshot(tmp_path):
    """Two of the replugs reboot the board too (as when it is powered from USB)."""
    events = []
    vtray = VirtualTray(speed=SLOW, link_dir=tmp_path)  # mostly idle: the host thread gets the CPU
    with vtray, TrayLink(locate=lambda: vtray.path, on_event=events.append, backoff=(0.002, 0.05)) as link:
        link.events = events
        hundred_cycles(vtray, link)


def hundred_cycles(vtray, link):
    for cycle in range(100):
        lost, back, snaps = count(link.events, TrayEvent.LOST), count(link.events, TrayEvent.BACK), link.snapshots
        vtray.unplug()
        assert link.wait_for(lambda lk: count(lk.events, TrayEvent.LOST) > lost and not lk.connected, WAIT), cycle
        if cycle % 10 == 0:  # the tray changes while the host cannot see it
            vtray.place(list(vtray.dominoes)[cycle // 10], at=2 * cycle)
        vtray.replug(reboot=cycle % 50 == 0)
        assert link.wait_for(lambda lk: count(lk.events, TrayEvent.BACK) > back and lk.snapshots > snaps, WAIT), cycle
    assert link.reconnects == 100
    assert link.wait_for(lambda lk: Board(lk.cells, vtray.registry).status() == Status.VALID
                         and len(Board(lk.cells, vtray.registry).placements) == 10, WAIT)


def test_exclusive_open_refuses_a_second_link(vtray, link):
    with pytest.raises(TrayNotFound, match="cannot open tray"):
        TrayLink(locate=lambda: vtray.path).open()


def test_missing_tray_path_is_a_clear_error(tmp_path):
    with pytest.raises(TrayNotFound, match="cannot open tray at .*nothing-here"):
        TrayLink(str(tmp_path / "nothing-here")).open()


def test_a_hello_with_another_protocol_version_is_refused_naming_both(tmp_path):
    with ScriptedTray(tmp_path) as tray:
        tray.hello = tray_hello(proto=wire.PROTO + 1)
        with pytest.raises(ProtocolMismatch, match=f"speaks protocol version {wire.PROTO + 1}, this host speaks version {wire.PROTO}"):
            TrayLink(tray.path, handshake_timeout=2).open()


def test_a_version_3_tray_is_refused_in_one_line(tmp_path):
    """A tray with the firmware before the lights (protocol 3): refused before anything is sent
    to it, in one line naming both versions; the table says that line while it keeps trying."""
    with ScriptedTray(tmp_path) as tray:
        tray.hello = tray_hello(proto=3)
        with pytest.raises(ProtocolMismatch) as refused:
            TrayLink(tray.path, handshake_timeout=2).open()
        assert str(refused.value) == f"tray at {tray.path} speaks protocol version 3, this host speaks version 4"
        assert wire.LIGHTS not in tray.requests and wire.WATCH not in tray.requests
        events = []
        link = TrayLink(tray.path, on_event=events.append, handshake_timeout=0.5, backoff=(0.01, 0.05)).open(retry=True)
        try:
            assert not link.connected and link.lost_reason == str(refused.value)
            assert [e.reason for e in events if e.kind == TrayEvent.LOST][:1] == [str(refused.value)]
        finally:
            link.close()


def capped(red, green, blue):
    from dominotray import pins
    return tuple(v * pins.LIGHT_BRIGHTNESS // 255 for v in (red, green, blue))


def test_lights_reach_the_tray_acknowledged_and_again_after_it_restarts(vtray, link):
    link.light({5: (255, 0, 0), 193: (0, 0, 255)})
    want = {5: capped(255, 0, 0), 193: capped(0, 0, 255)}
    assert until(lambda: vtray.lit() == want)
    assert link.wait_for(lambda lk: lk.lights.shown == {5: (255, 0, 0), 193: (0, 0, 255)}, WAIT)
    latches = vtray.chains.latches
    vtray.replug(reboot=True)  # the board restarts: it latches every LED dark, then the host's again
    assert until(lambda: vtray.chains.latches >= latches + 2 and vtray.lit() == want)
    link.light({})
    assert until(lambda: vtray.lit() == {})


def test_a_lights_frame_lost_on_the_line_is_sent_again_until_acknowledged(vtray, link):
    vtray.to_tray.drop = 1.0  # every byte towards the tray lost
    frames = link.lights.frames
    link.light({7: (0, 255, 0)})
    assert until(lambda: link.lights.frames >= frames + 3)  # sent, then again each RESEND_S
    assert vtray.lit() == {} and link.lights.shown != link.lights.wanted
    vtray.to_tray.drop = 0.0
    assert until(lambda: vtray.lit() == {7: capped(0, 255, 0)})
    assert link.wait_for(lambda lk: lk.lights.shown == {7: (0, 255, 0)}, WAIT)


def test_the_tray_goes_dark_once_its_host_is_gone_and_when_the_link_closes(vtray, link):
    link.light({40: (255, 255, 255)})
    assert until(lambda: vtray.lit() == {40: capped(255, 255, 255)})
    vtray.to_tray.drop = 1.0  # the host hangs: nothing from it reaches the tray, no refresh either
    assert until(lambda: vtray.lit() == {}, timeout=WAIT)
    vtray.to_tray.drop = 0.0
    link.light({41: (255, 255, 255)})
    assert until(lambda: vtray.lit() == {41: capped(255, 255, 255)})
    link.close()  # the table stops: dark at once
    assert until(lambda: vtray.lit() == {}, timeout=1.0)


def test_a_silent_device_times_out_with_a_message(tmp_path):
    with ScriptedTray(tmp_path, answer=False) as tray:
        with pytest.raises(TrayError, match="did not answer GET_HELLO within 0.3 s"):
            TrayLink(tray.path, handshake_timeout=0.3, retry_interval=0.1).open()


def port(device, serial_number, vid=0x2E8A, pid=0x0005):
    return SimpleNamespace(device=device, serial_number=serial_number, vid=vid, pid=pid)


@pytest.fixture
def no_udev(monkeypatch, tmp_path):
    monkeypatch.setattr(link_mod, "UDEV_PATH", str(tmp_path / "no-such-symlink"))


def test_find_port_prefers_configured_path_then_udev_symlink(monkeypatch, tmp_path):
    monkeypatch.setattr(link_mod.list_ports, "comports", lambda: [port("/dev/ttyACM0", "E661")])
    assert link_mod.find_port("/dev/ttyUSB7") == "/dev/ttyUSB7"
    symlink = tmp_path / "domino-tray"
    symlink.touch()
    monkeypatch.setattr(link_mod, "UDEV_PATH", str(symlink))
    assert link_mod.find_port("auto") == str(symlink)


def test_find_port_by_usb_id_and_serial_number(monkeypatch, no_udev):
    picos = [port("/dev/ttyACM0", "E661AAAA"), port("/dev/ttyACM1", "E661BBBB"), port("/dev/ttyUSB0", "X", vid=0x10C4)]
    monkeypatch.setattr(link_mod.list_ports, "comports", lambda: picos)
    assert link_mod.find_port(serial_number="E661BBBB") == "/dev/ttyACM1"
    with pytest.raises(TrayNotFound, match=r"2 Picos found \(/dev/ttyACM0 \(serial E661AAAA\), /dev/ttyACM1"):
        link_mod.find_port()
    with pytest.raises(TrayNotFound, match="no Pico with serial number E661CCCC"):
        link_mod.find_port(serial_number="E661CCCC")
    monkeypatch.setattr(link_mod.list_ports, "comports", lambda: picos[1:])
    assert link_mod.find_port() == "/dev/ttyACM1"
    monkeypatch.setattr(link_mod.list_ports, "comports", lambda: [])
    with pytest.raises(TrayNotFound, match="no Pico .* is plugged in"):
        link_mod.find_port()


def test_serial_errors_never_reach_the_caller_as_exceptions(vtray, link):
    vtray.unplug()
    link.request_snapshot()  # writing to a pulled cable is swallowed; the thread reconnects
    vtray.replug()
    assert link.wait_for(lambda lk: lk.connected and count(lk.events, TrayEvent.BACK) == 1, WAIT)
    assert link.errors == dict.fromkeys(wire.ERROR_KINDS, 0)


def test_open_tray_follows_the_config_port(monkeypatch, no_udev, tmp_path):
    from dominotable.tray.connect import open_tray
    monkeypatch.setattr(link_mod.list_ports, "comports", lambda: [])
    with open_tray("auto", speed=8, link_dir=tmp_path) as tray:  # nothing plugged in: virtual
        assert tray.virtual is not None and tray.link.connected and tray.link.path == tray.virtual.path
    with open_tray("none", speed=8, link_dir=tmp_path) as tray:
        assert tray.virtual is not None and tray.link.hello.cells == 194
    with pytest.raises(TrayNotFound, match="cannot open tray at /dev/ttyNOPE"):
        open_tray("/dev/ttyNOPE")


def test_watch_tells_the_tray_the_game_cells_and_survives_a_tray_restart(vtray, link):
    def watching(count, draw):  # a restart makes a new scanner: look at the current one once
        scanner = vtray.app.scanner
        return (scanner._draw == draw and scanner._mask is not None and sum(scanner._mask) == count
                and (count != 32 or [c for c in range(194) if scanner._mask[c]] == list(range(32))))

    link.watch(range(32), draw=True)
    assert until(lambda: watching(32, True))
    assert sorted(vtray.app.scanner._rings[0]) == [192, 193]  # the pad ring, while a draw is awaited
    before = vtray.app
    link.restart()
    assert until(lambda: vtray.app is not before and watching(32, True))  # again after the new HELLO
    link.watch(None)  # every cell, no draw
    assert until(lambda: watching(194, False))
    with pytest.raises(TrayError, match="cannot watch cell 194: the tray has cells 0-193"):
        link.watch([3, 194])


def test_a_pile_of_tiles_reads_as_a_stack_never_as_another_tile(vtray, link):
    vtray.place("6-6", at=40)
    assert link.wait_for(lambda lk: lk.cells[40][0] == lk.cells[41][0] == wire.TAG, WAIT)
    vtray.pile("2-3", at=40)  # a capture laid on top, exactly over it
    assert link.wait_for(lambda lk: lk.cells[40] == lk.cells[41] == (wire.STACK, b""), WAIT)
    board = Board(link.cells, vtray.registry)
    assert board.stacks == [40, 41] and board.placements == [] and board.is_valid()
    assert " S  S" in board.diagram()
    vtray.remove("2-3")
    assert link.wait_for(lambda lk: [p.tile for p in Board(lk.cells, vtray.registry).placements]
                         == [Tile(6, 6)], WAIT)


def test_a_speed_the_cpu_cannot_give_runs_fast_but_rests_as_long_as_it_runs(tmp_path, monkeypatch):
    """A real tray has its own chip: the emulator asked for more than the CPU gives rests as
    long as it ran, or it would starve the host's threads of the GIL (the link, the table)."""
    from dominotable.tray import virtual

    rests = []
    sleep = time.sleep

    def rest(seconds):
        start = time.monotonic()
        sleep(seconds)
        if threading.current_thread().name == "virtual-tray":
            rests.append(time.monotonic() - start)

    with VirtualTray(speed=1000, link_dir=tmp_path) as tray:
        (emulator,) = [t for t in threading.enumerate() if t.name == "virtual-tray"]
        cpu = time.pthread_getcpuclockid(emulator.ident)  # its own CPU time: what the machine's load leaves it
        monkeypatch.setattr(virtual.time, "sleep", rest)
        wall0, cpu0, virt0 = time.monotonic(), time.clock_gettime(cpu), tray.array.clock_ms()
        sleep(1)
        wall, ran = time.monotonic() - wall0, time.clock_gettime(cpu) - cpu0
        rested, speed = sum(rests) / wall, (tray.array.clock_ms() - virt0) / 1000 / ran
    assert rested > 0.3 and speed > 2, (rested, speed)  # speed: virtual seconds per second it ran


# --- a tray that contradicts its HELLO (issue 17): a lost link and a fresh HELLO, never an exit,
# a traceback or a silent drop ------------------------------------------------------------------

class Watched:
    """A link to a scripted tray, with every event kept and the cell count checked at each."""

    def __init__(self, tray: ScriptedTray, retry: bool = False):
        self.events: list = []
        self.lengths: set[int] = set()  # len(link.cells) whenever an event arrived
        self.link = TrayLink(locate=lambda: tray.path, on_event=self._event, backoff=(0.002, 0.05))
        self.link.open(retry)

    def _event(self, event):
        self.events.append(event)
        self.lengths.add(len(self.link.cells))

    def reasons(self):
        return [e.reason for e in self.events if e.kind == TrayEvent.LOST]

    def close(self):
        self.link.close()


@pytest.fixture
def scripted(tmp_path):
    with ScriptedTray(tmp_path) as tray:
        watched = Watched(tray)
        yield tray, watched
        watched.close()


def lost_then_back(tray, watched, reason, *frame, seq=None):
    """After the tray sends `frame` (kind, body[, seq]) if given, the link reports LOST with
    `reason`, asks for a fresh HELLO, and is back; its thread lives on and it never held a
    reading of another size."""
    link = watched.link
    hellos = tray.asked(wire.GET_HELLO)
    if frame:
        tray.send(*frame, seq=seq)
    assert link.wait_for(lambda lk: any(reason in r for r in watched.reasons()), WAIT), watched.events
    assert until(lambda: tray.asked(wire.GET_HELLO) > hellos)
    back(watched)


def back(watched):
    """The link is back from a fresh HELLO, its thread alive, and never held a reading of another size."""
    link = watched.link
    assert link.wait_for(lambda lk: lk.connected and count(watched.events, TrayEvent.BACK) >= 1, WAIT)
    assert link.lost_reason is None and link._thread.is_alive()
    assert watched.lengths == {194} and len(link.cells) == 194


def test_a_handshake_snapshot_of_another_cell_count_is_retried_not_an_exit(tmp_path):
    """Was: `run` exited 2 when the SNAPSHOT's cell count differed from the HELLO's."""
    with ScriptedTray(tmp_path) as tray:
        tray.cells = tray.cells[:150]
        with pytest.raises(TrayError, match="sent a SNAPSHOT of 150 cells, its HELLO said 194"):
            TrayLink(tray.path, handshake_timeout=1).open()  # a one-shot command: one line, exit 2
        watched = Watched(tray, retry=True)  # the table: lost, and trying again
        try:
            link = watched.link
            assert not link.connected and link.cells == []
            assert "sent a SNAPSHOT of 150 cells, its HELLO said 194" in link.lost_reason
            assert watched.reasons() == [link.lost_reason]
            tries = tray.asked(wire.GET_HELLO)
            assert until(lambda: tray.asked(wire.GET_HELLO) >= tries + 3)  # it keeps trying
            assert watched.reasons() == [link.lost_reason]  # the same reason is said once
            tray.cells = [(wire.EMPTY, b"")] * 194
            assert link.wait_for(lambda lk: lk.connected and len(lk.cells) == 194, WAIT)
            assert until(lambda: count(watched.events, TrayEvent.BACK) == 1) and link.lost_reason is None
        finally:
            watched.close()


def test_a_mid_game_hello_with_no_cells_is_a_lost_link_not_a_traceback(scripted):
    """Was: a traceback in the link thread (its WATCH of 0 cells), then the process exited."""
    tray, watched = scripted
    watched.link.watch(range(32), draw=True)
    lost_then_back(tray, watched, "the tray sent a HELLO with 0 cells mid-session, its first HELLO said 194",
                   wire.HELLO, tray_hello(cells=0), seq=0)
    assert until(lambda: tray.asked(wire.WATCH) >= 2)  # told again after the fresh HELLO


def test_a_short_snapshot_is_a_lost_link_never_a_silent_drop(scripted):
    tray, watched = scripted
    lost_then_back(tray, watched, "the tray sent a SNAPSHOT of 150 cells, its HELLO said 194",
                   wire.SNAPSHOT, tray_snapshot(150))


def test_a_mid_stream_snapshot_with_more_cells_than_the_hellos_is_a_lost_link(scripted):
    tray, watched = scripted
    lost_then_back(tray, watched, "the tray sent a SNAPSHOT of 250 cells, its HELLO said 194",
                   wire.SNAPSHOT, tray_snapshot(250))


def test_a_mid_stream_hello_with_protocol_9_is_refused_and_retried_with_backoff(scripted):
    """Was: accepted mid-stream. Now the link is lost; while the tray answers protocol 9 the
    link says so and keeps trying, more slowly; once it speaks 2 again the link is back."""
    tray, watched = scripted
    link = watched.link
    tray.hello = tray_hello(proto=9)
    tray.send(wire.HELLO, tray.hello, seq=0)
    assert link.wait_for(lambda lk: "the tray sent a HELLO for protocol version 9 mid-session (this host "
                         f"speaks version {wire.PROTO})" in watched.reasons(), WAIT)
    refused = f"tray at {tray.path} speaks protocol version 9, this host speaks version {wire.PROTO}"
    # lost_reason is set before the LOST event reaches the listener: wait for both
    assert link.wait_for(lambda lk: lk.lost_reason == refused and watched.reasons()[-1:] == [refused], WAIT)
    assert not link.connected
    waits = []  # what the link waits before each try: its backoff, whatever the machine's load

    class Recorded(threading.Event):
        def wait(self, timeout=None):
            waits.append(timeout)
            return super().wait(timeout)

    link._stop = Recorded()
    tries = tray.asked(wire.GET_HELLO)
    assert until(lambda: tray.asked(wire.GET_HELLO) >= tries + 8 and len(waits) >= 7)  # it keeps trying
    # more slowly: each wait twice the one before, up to 50 ms (not a busy loop)
    assert all(abs(later - min(2 * before, 0.05)) < 1e-9 for before, later in zip(waits, waits[1:])), waits
    assert waits[-1] == 0.05, waits
    tray.hello = tray_hello()
    back(watched)


def test_a_change_on_a_cell_the_hello_does_not_have_is_a_lost_link(scripted):
    tray, watched = scripted
    lost_then_back(tray, watched, "the tray reported a change on cell 200, its HELLO said cells 0-193",
                   wire.CHANGES, wire.encode_changes([(5, wire.TAG, b"\x04" * 7), (200, wire.EMPTY, b"")]))
    assert watched.link.cells[5] == (wire.EMPTY, b"")  # nothing of the frame was taken


def test_a_hello_from_another_board_mid_session_is_a_lost_link(scripted):
    tray, watched = scripted
    lost_then_back(tray, watched, f"a HELLO from board {'01' * 8} mid-session, the session's board is "
                                  f"{BOARD.hex()}", wire.HELLO, tray_hello(board=b"\x01" * 8), seq=0)


def test_a_tray_restart_is_followed_but_a_boot_snapshot_without_its_hello_is_a_lost_link(scripted):
    """Sequence numbers restart with the tray: its HELLO (seq 0) then its boot snapshot. A boot
    snapshot whose HELLO never arrived means the tray forgot the WATCH unseen: start afresh."""
    tray, watched = scripted
    link = watched.link
    link.watch(range(32))
    assert until(lambda: tray.asked(wire.WATCH) == 1)
    tray.boot(tray_snapshot(194, wire.BOOT))  # (sent apart, the link's WATCH could be answered between them)
    assert until(lambda: tray.asked(wire.WATCH) == 2)  # told again what to watch
    assert link.wait_for(lambda lk: lk.snapshots >= 2, WAIT)
    assert link.connected and watched.reasons() == [] and link.seq_gaps == 0
    lost_then_back(tray, watched, "the tray restarted (a boot snapshot, seq 1) and its HELLO never arrived",
                   wire.SNAPSHOT, tray_snapshot(194, wire.BOOT), seq=1)


def test_a_hello_the_host_cannot_use_is_said_and_no_message_reads_cells_0_to_minus_1(tmp_path):
    """Was: "the tray has cells 0--1" after a HELLO of no cells."""
    with ScriptedTray(tmp_path) as tray:
        tray.hello, tray.cells = tray_hello(cells=0), []
        watched = Watched(tray, retry=True)
        try:
            link = watched.link
            assert link.lost_reason == f"tray at {tray.path} reports no cells in its HELLO"
            with pytest.raises(TrayError, match="cannot watch cell 194: the tray has cells 0-193$"):
                link.watch([3, 194])
            link.watch([3])  # remembered, sent once the tray is back
            tray.hello, tray.cells = tray_hello(cells=100), [(wire.EMPTY, b"")] * 100
            assert link.wait_for(lambda lk: lk.lost_reason == f"tray at {tray.path} has 100 cells, the table's "
                                 "(default bar-table tray) has 194", WAIT)
            tray.hello, tray.cells = tray_hello(), [(wire.EMPTY, b"")] * 194
            assert link.wait_for(lambda lk: lk.connected, WAIT) and until(lambda: tray.asked(wire.WATCH) == 1)
            assert not any("--" in reason for reason in watched.reasons())
        finally:
            watched.close()


def test_any_exception_in_the_link_thread_is_a_lost_link_said_once(scripted, monkeypatch, caplog):
    """A bug the frames trip inside the thread: LOST with the reason, one log record with its
    traceback however often it recurs, reconnects meanwhile; the thread never dies."""
    tray, watched = scripted
    link = watched.link

    def boom(snapshot):
        raise RuntimeError("boom")

    monkeypatch.setattr(link, "_apply_snapshot", boom)
    for _ in range(5):
        tray.send(wire.SNAPSHOT, tray_snapshot(194))
    reason = "the tray link failed (RuntimeError: boom)"
    assert link.wait_for(lambda lk: lk.lost_reason == reason, WAIT)
    tries = tray.asked(wire.GET_SNAPSHOT)
    assert until(lambda: tray.asked(wire.GET_SNAPSHOT) >= tries + 3)  # each reconnect trips it again
    assert watched.reasons() == [reason] and link._thread.is_alive()
    logged = [r for r in caplog.records if "boom" in r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None
    monkeypatch.undo()
    back(watched)


def test_a_listener_that_raises_does_not_stop_the_link(tmp_path, caplog):
    def listener(event):
        raise ValueError("the listener broke")

    with ScriptedTray(tmp_path) as tray, TrayLink(locate=lambda: tray.path, on_event=listener) as link:
        for cell in range(3):
            tray.send(wire.CHANGES, wire.encode_changes([(cell, wire.STACK, b"")]))
        assert link.wait_for(lambda lk: lk.cells[:3] == [(wire.STACK, b"")] * 3, WAIT)
        assert link.connected and link.lost_reason is None
        assert len([r for r in caplog.records if "the listener broke" in r.getMessage()]) == 1
