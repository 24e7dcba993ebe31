"""Firmware tests that run unchanged under CPython (tests/test_firmware.py) and under the
real MicroPython WebAssembly port (firmware/tests/micropython.test.mjs, via
tests/test_firmware_mpy.py). Every `test_*` function is one test; plain asserts only.

The emulated reader array (dominotray.emulator) answers the driver register by register,
so these exercise the driver command by command: WUPA/REQA, anticollision and select with
cascade tag 0x88, HLTA, no-card timeouts, CRC and parity errors.
"""

from dominotray import mfrc522 as M
from dominotray import pins, wire
from dominotray.app import TrayApp
from dominotray.emulator import HALT, IDLE, ReaderArray
from dominotray.scanner import Scanner, grid_neighbours

UID = b"\x04\xa1\xb2\xc3\xd4\xe5\xf6"
UID2 = b"\x04\x11\x22\x33\x44\x55\x66"
# Most application tests use a smaller tray than the default one: it boots 4x faster.
COLS, ROWS, PAD = 8, 6, 2
CELLS = COLS * ROWS + PAD

# Tests that need the stub `machine` module and MicroPython's time/micropython modules.
MICROPYTHON_ONLY = (
    "test_pico_bus_selects_every_reader_through_the_decoders",
    "test_main_loop_serves_the_host_over_usb_and_feeds_the_watchdog",
)


class Host:
    """The host end of the link: decodes every frame the app writes."""

    def __init__(self):
        self.decoder = wire.Decoder(types=wire.FROM_TRAY, parse=True)
        self.frames = []

    def __call__(self, data):
        self.frames.extend(self.decoder.feed(data))

    def take(self):
        frames = self.frames
        self.frames = []
        return frames


def request(kind, body=b"", seq=0):
    return wire.frame(kind, seq, body)


def reader(cells=4):
    emu = ReaderArray(cells)
    driver = M.MFRC522(emu)
    for cell in range(cells):
        assert driver.init(cell)
    return emu, driver


def booted_app(**options):
    emu = ReaderArray(CELLS)
    host = Host()
    app = TrayApp(emu, host, emu.clock_ms, cols=COLS, rows=ROWS, pad_cells=PAD, **options)
    run_until(app, lambda: app.booted)
    return emu, host, app


def run_until(app, done, limit_ms=20000):
    start = app.clock_ms()
    while not done():
        assert app.clock_ms() - start < limit_ms, "condition not met within %d ms" % limit_ms
        app.poll()


def run_for(app, ms):
    end = app.clock_ms() + ms
    while app.clock_ms() < end:
        app.poll()


def changes(frames):
    out = []
    for kind, _seq, message in frames:
        if kind == wire.CHANGES:
            out.extend(message)
    return out


# --- driver ------------------------------------------------------------------------------

def test_reads_the_full_7_byte_uid_through_both_cascade_levels():
    emu, driver = reader()
    emu.place(1, UID)
    assert driver.read_uid(1) == (M.TAG, UID)
    assert emu.readers[1].log[-6:] == ["WUPA", "ANTICOLL1", "SEL1", "ANTICOLL2", "SEL2", "HLTA"]


def test_level_1_alone_gives_the_cascade_tag_not_the_uid():
    # What the popular drivers return as the UID: 0x88 and the first three UID bytes.
    emu, driver = reader()
    emu.place(0, UID)
    driver.field_on(0)
    assert driver._transceive(0, bytes((M.WUPA,)), last_bits=7) == b"\x44\x00"
    part = driver._transceive(0, b"\x93\x20")
    assert part[:4] == b"\x88" + UID[:3]
    assert part[:4] != UID[:4]


def test_4_and_10_byte_uids_are_read_too():
    emu, driver = reader()
    emu.place(0, b"\xde\xad\xbe\xef")
    emu.place(1, b"\x04\x01\x02\x03\x04\x05\x06\x07\x08\x09")
    assert driver.read_uid(0) == (M.TAG, b"\xde\xad\xbe\xef")
    assert driver.read_uid(1) == (M.TAG, b"\x04\x01\x02\x03\x04\x05\x06\x07\x08\x09")


def test_wupa_and_hlta_keep_repeated_reads_present():
    emu, driver = reader()
    emu.place(2, UID)
    results = [driver.read_uid(2) for _ in range(6)]
    assert results == [(M.TAG, UID)] * 6
    assert "REQA" not in emu.readers[2].log
    assert emu.readers[2].tag.state == HALT


def test_reqa_misses_a_selected_tag_every_other_time():
    # Why the driver uses WUPA: polling a selected tag with REQA alternates present/absent.
    emu, driver = reader()
    emu.place(0, UID)
    driver.field_on(0)
    answers = []
    for _ in range(4):
        atqa = driver._transceive(0, bytes((M.REQA,)), last_bits=7)
        answers.append(atqa != M._TIMEOUT)
        if atqa != M._TIMEOUT:
            for sel in (0x93, 0x95):  # select, leaving the tag ACTIVE (no HLTA)
                part = driver._transceive(0, bytes((sel, 0x20)))
                driver._transceive(0, M.with_crc(bytes((sel, 0x70)) + part))
    assert answers == [True, False, True, False]


def test_a_read_costs_the_field_guard_time_plus_about_two_ms_when_empty():
    emu, driver = reader()
    emu.place(1, UID)
    start = emu.now_us
    assert driver.read_uid(0) == (M.EMPTY, b"")
    empty_us = emu.now_us - start
    start = emu.now_us
    driver.read_uid(1)
    full_us = emu.now_us - start
    assert M.FIELD_GUARD_US + 1500 <= empty_us <= M.FIELD_GUARD_US + 3000, empty_us
    assert M.FIELD_GUARD_US + 6000 <= full_us <= M.FIELD_GUARD_US + 10000, full_us


# --- RF field ----------------------------------------------------------------------------

def _wupa(driver, cell):
    return driver._transceive(cell, bytes((M.WUPA,)), last_bits=7)


def test_a_reader_with_its_field_off_sees_nothing():
    emu, driver = reader()
    emu.place(0, UID)
    assert emu.fields_on() == []  # init leaves every antenna off
    assert driver.read(0, M.TX_CONTROL) & 0x03 == 0
    assert _wupa(driver, 0) == M._TIMEOUT
    driver.field_on(0)
    assert emu.fields_on() == [0]
    assert _wupa(driver, 0) == b"\x44\x00"
    driver.field_off(0)
    emu.advance_ms(10)
    assert _wupa(driver, 0) == M._TIMEOUT


def test_a_tag_needs_the_guard_time_after_the_field_comes_on():
    emu, driver = reader()
    emu.place(0, UID)
    emu.place(1, UID2)
    driver.write(0, M.TX_CONTROL, M.FIELD_ON)  # no guard time: the tag is still powering up
    assert _wupa(driver, 0) == M._TIMEOUT
    driver.field_off(0)
    start = emu.now_us
    driver.field_on(1)
    assert emu.now_us - start >= M.FIELD_GUARD_US
    assert _wupa(driver, 1) == b"\x44\x00"
    assert driver.read(1, M.T_RELOAD_L) == M.T_RELOAD_VALUE  # the 1.5 ms timeout is back


def test_only_the_cell_being_read_has_its_field_on():
    emu, host, app = booted_app()
    emu.place(20, UID)
    emu.place(21, UID2)
    emu.most_fields_on = 0
    transceive = app.driver._transceive
    sent = []

    def checked(cell, *args, **options):
        assert emu.fields_on() == [cell], (cell, emu.fields_on())
        sent.append(cell)
        return transceive(cell, *args, **options)

    app.driver._transceive = checked
    for _ in range(300):
        app.poll()
        assert emu.fields_on() == []  # every field is off between scan steps
    assert emu.most_fields_on == 1
    assert len(set(sent)) == CELLS
    assert sorted(changes(host.frames)) == [(20, wire.TAG, UID), (21, wire.TAG, UID2)]


def test_timer_registers_give_a_1_5_ms_no_card_timeout():
    emu, driver = reader()
    assert driver.read(0, M.T_MODE) & 0x80  # TAuto
    prescaler = (driver.read(0, M.T_MODE) & 0x0F) << 8 | driver.read(0, M.T_PRESCALER)
    reload = driver.read(0, M.T_RELOAD_H) << 8 | driver.read(0, M.T_RELOAD_L)
    period_us = (reload + 1) * (2 * prescaler + 1) / 13.56
    assert 1000 <= period_us <= 2000, period_us


def test_crc_error_is_garbled_and_the_next_read_finds_the_tag():
    emu, driver = reader()
    emu.place(3, UID)
    emu.inject_crc_errors(3, 1)
    assert driver.read_uid(3) == (M.GARBLED, b"")
    assert driver.read_uid(3) == (M.TAG, UID)


def test_parity_error_is_garbled():
    emu, driver = reader()
    emu.place(3, UID)
    emu.inject_parity_errors(3, 1)
    assert driver.read_uid(3) == (M.GARBLED, b"")
    assert driver.read_uid(3) == (M.TAG, UID)


def test_self_test_accepts_genuine_and_clone_parts_only():
    emu = ReaderArray(5)
    driver = M.MFRC522(emu)
    for cell, version in ((0, 0x91), (1, 0x92), (2, 0x88), (3, 0x00), (4, 0xFF)):
        emu.set_version(cell, version)
    assert [driver.init(cell) for cell in range(5)] == [True, True, True, False, False]
    emu.set_dead(0)
    assert not driver.init(0)


def test_a_reader_that_dies_reads_as_a_fault():
    emu, driver = reader()
    emu.place(1, UID)
    emu.set_dead(1)
    assert driver.read_uid(1) == (M.FAULT, b"")


# --- scanner -----------------------------------------------------------------------------

class _NoDriver:
    def read_uid(self, cell):
        raise AssertionError("not used")


def _scanner(clock=None, **options):
    clock = clock or [0]
    return Scanner(_NoDriver(), grid_neighbours(4, 3, 2), lambda: clock[0], [True] * 14, **options)


def test_a_change_needs_consistent_reads():
    clock = [0]
    scanner = _scanner(clock, confirm_present=2, confirm_absent=3, absent_ms=60)
    scanner.observe(5, (M.TAG, UID))
    assert scanner.changes == []
    # re-read soon, and its neighbours probed for the tile's other half
    assert sorted(scanner.pending) == [1, 4, 5, 6, 9]
    scanner.observe(5, (M.TAG, UID2))  # a different tag: starts counting again
    scanner.observe(5, (M.TAG, UID))
    assert scanner.changes == []
    scanner.observe(5, (M.TAG, UID))
    assert scanner.changes == [(5, M.TAG, UID)] and 5 not in scanner.pending
    scanner.changes = []
    scanner.observe(5, (M.EMPTY, b""))
    scanner.observe(5, (M.EMPTY, b""))
    scanner.observe(5, (M.TAG, UID))  # still there after all
    scanner.observe(5, (M.EMPTY, b""))
    scanner.observe(5, (M.EMPTY, b""))
    scanner.observe(5, (M.EMPTY, b""))
    assert scanner.changes == []  # three reads, but all within a few ms
    clock[0] = 60
    scanner.observe(5, (M.EMPTY, b""))
    assert scanner.changes == [(5, M.EMPTY, b"")]


def test_a_garbled_read_cancels_a_removal():
    clock = [0]
    scanner = _scanner(clock, confirm_absent=2, absent_ms=0)
    scanner.observe(1, (M.TAG, UID))
    scanner.observe(1, (M.TAG, UID))
    scanner.changes = []
    scanner.observe(1, (M.EMPTY, b""))
    scanner.observe(1, (M.GARBLED, b""))
    scanner.observe(1, (M.EMPTY, b""))
    assert scanner.changes == []
    assert scanner.state[1] == (M.TAG, UID)


def test_hot_list_is_the_empty_neighbours_of_tiles_and_the_pad():
    scanner = _scanner(recent_ms=0)
    scanner.always_hot = (12, 13)
    for _ in range(2):
        scanner.observe(5, (M.TAG, UID))  # row 1, col 1 of a 4x3 grid
    scanner._changed_at = {}
    scanner._rebuild_hot()
    assert scanner.hot == [1, 4, 6, 9, 12, 13]


# --- application -------------------------------------------------------------------------

def test_boot_sends_hello_with_self_test_then_a_boot_snapshot():
    emu = ReaderArray(pins.CELLS)
    emu.set_dead(7)
    emu.set_version(100, 0x00)
    emu.place(20, UID)
    host = Host()
    app = TrayApp(emu, host, emu.clock_ms, board_id=b"\x01\x02")
    kind, seq, hello = host.take()[0]
    assert (kind, seq) == (wire.HELLO, 0)
    assert hello.proto == wire.PROTO and hello.board_id == b"\x01\x02"
    assert hello.cells == pins.CELLS and hello.failed_cells() == [7, 100]
    run_until(app, lambda: app.booted)
    frames = host.take()
    assert [k for k, _, _ in frames] == [wire.SNAPSHOT]  # no CHANGES for the first sweep
    snap = frames[0][2]
    assert snap.reason == wire.BOOT
    assert snap.cells[20] == (wire.TAG, UID)
    assert snap.cells[7] == (wire.FAULT, b"") and snap.cells[100] == (wire.FAULT, b"")
    assert snap.cells[21] == (wire.EMPTY, b"")


def test_placement_is_reported_as_changes_then_an_after_changes_snapshot():
    emu, host, app = booted_app()
    host.take()
    emu.place(40, UID)
    emu.place(41, UID2)
    run_until(app, lambda: len(changes(host.frames)) == 2)
    assert sorted(changes(host.frames)) == [(40, wire.TAG, UID), (41, wire.TAG, UID2)]
    run_until(app, lambda: any(k == wire.SNAPSHOT for k, _, _ in host.frames), limit_ms=2000)
    snap = [m for k, _, m in host.take() if k == wire.SNAPSHOT][0]
    assert snap.reason == wire.AFTER_CHANGES
    assert snap.cells[40] == (wire.TAG, UID) and snap.cells[41] == (wire.TAG, UID2)
    emu.remove(40)
    run_until(app, lambda: changes(host.frames))
    assert changes(host.frames) == [(40, wire.EMPTY, b"")]


def test_requests_get_hello_snapshot_and_heartbeats():
    emu, host, app = booted_app(heartbeat_ms=500)
    host.take()
    app.feed(request(wire.GET_HELLO) + request(wire.GET_SNAPSHOT, seq=1))
    frames = host.take()
    assert [k for k, _, _ in frames] == [wire.HELLO, wire.SNAPSHOT]
    assert frames[1][2].reason == wire.REQUESTED
    seqs = [frames[0][1], frames[1][1]]
    assert seqs[1] == (seqs[0] + 1) & 0xFF
    run_for(app, 1050)
    reasons = [m.reason for k, _, m in host.take() if k == wire.SNAPSHOT]
    assert reasons == [wire.HEARTBEAT, wire.HEARTBEAT]


def test_snapshot_requested_during_boot_comes_after_the_sweep():
    emu = ReaderArray(CELLS)
    host = Host()
    app = TrayApp(emu, host, emu.clock_ms, cols=COLS, rows=ROWS, pad_cells=PAD)
    app.feed(request(wire.GET_SNAPSHOT))
    run_until(app, lambda: app.booted)
    reasons = [m.reason for k, _, m in host.take() if k == wire.SNAPSHOT]
    assert reasons == [wire.BOOT, wire.REQUESTED]


def test_flicker_and_crc_errors_never_report_a_removal():
    emu, host, app = booted_app()
    emu.place(20, UID)
    emu.place(21, UID2)
    run_until(app, lambda: len(changes(host.frames)) == 2)
    host.take()
    emu.set_flicker(20, 0.3)
    emu.inject_crc_errors(21, 30)
    run_for(app, 3000)
    assert changes(host.take()) == []
    assert emu.readers[21].crc_errors <= 25  # the errors were actually hit


def test_cells_beside_the_layout_are_read_more_often_and_all_are_swept():
    emu, host, app = booted_app()
    for cell, uid in ((2 * COLS + 2, UID), (2 * COLS + 3, UID2)):
        emu.place(cell, uid)
    run_until(app, lambda: len(changes(host.frames)) == 2)
    counts = [0] * CELLS
    driver_read = app.driver.read_uid

    def counting(cell):
        counts[cell] += 1
        return driver_read(cell)

    app.driver.read_uid = counting
    sweeps = app.scanner.sweeps
    run_until(app, lambda: app.scanner.sweeps == sweeps + 2)
    beside = counts[1 * COLS + 2]
    far = counts[5 * COLS + 7]
    assert far >= 1 and min(counts) >= 1
    assert beside >= 4 * far, (beside, far)
    assert counts[CELLS - 1] >= 4 * far  # the scan pad is always hot


def test_reset_reader_reports_a_dead_reader_and_its_recovery():
    emu, host, app = booted_app()
    emu.place(30, UID)
    run_until(app, lambda: changes(host.frames))
    host.take()
    emu.set_dead(30)
    app.feed(request(wire.RESET_READER, wire.encode_reset_reader(30)))
    assert changes(host.take()) == [] and app.passed[30] is False
    app.poll()
    assert changes(host.take()) == [(30, wire.FAULT, b"")]
    emu.set_dead(30, False)
    app.feed(request(wire.RESET_READER, wire.encode_reset_reader(30)))
    run_until(app, lambda: changes(host.frames))
    assert changes(host.take()) == [(30, wire.TAG, UID)]
    app.feed(request(wire.GET_HELLO))
    assert host.take()[0][2].failed_cells() == []


def test_restart_and_bad_requests():
    emu, host, app = booted_app()
    host.take()
    app.feed(b"\x00garbage\x00" + request(wire.RESET_READER, wire.encode_reset_reader(999)))
    assert app.decoder.error_count() == 1 and app.ignored == 1
    assert host.take() == []
    app.feed(request(wire.RESTART))
    kind, seq, _ = host.take()[0]
    assert (kind, seq) == (wire.HELLO, 0)
    assert not app.booted
    restarts = []
    app.restart = lambda: restarts.append(1)
    app.feed(request(wire.RESTART))
    assert restarts == [1]


def test_pico_bus_selects_every_reader_through_the_decoders():
    import machine  # the stub: pins and SPI wired to an emulated array
    import main  # firmware/main.py; main() runs only as __main__

    emu = ReaderArray(pins.CELLS)
    machine.array = emu
    bus = main.PicoBus()
    for cell in range(pins.CELLS):  # a distinct register value per reader
        emu.readers[cell].regs[M.T_RELOAD_L] = cell & 0xFF
    driver = M.MFRC522(bus)
    assert [driver.read(c, M.T_RELOAD_L) for c in range(pins.CELLS)] == [c & 0xFF for c in range(pins.CELLS)]
    assert machine.unselected_xfers == 0
    assert machine.selected_cell() is None  # strobe released between transfers
    emu.place(193, UID)
    emu.set_dead(3)
    host = Host()
    app = TrayApp(bus, host, emu.clock_ms, board_id=machine.unique_id())
    assert host.frames[0][2].board_id == machine.unique_id()
    assert host.frames[0][2].failed_cells() == [3]
    assert driver.read_uid(193) == (M.TAG, UID)


class _Usb:
    """sys.stdin/sys.stdout of the board: bytes from the host in, frames to the host out."""

    def __init__(self, incoming, host):
        self.incoming = bytearray(incoming)
        self.host = host
        self.buffer = self

    def read(self, n):
        data = bytes(self.incoming[:n])
        self.incoming = self.incoming[n:]
        return data

    def write(self, data):
        self.host(data)
        return len(data)


class _Poll:
    def __init__(self, usb):
        self.usb = usb

    def register(self, stream, events):
        pass

    def poll(self, timeout):
        return [(self.usb, 1)] if self.usb.incoming else []


def test_main_loop_serves_the_host_over_usb_and_feeds_the_watchdog():
    import machine
    import main

    emu = ReaderArray(pins.CELLS)
    emu.place(100, UID)
    machine.array = emu
    host = Host()
    usb = _Usb(b"\x00\x03junk\x00" + request(wire.GET_SNAPSHOT), host)

    class Sys:
        stdin = usb
        stdout = usb

    class Select:
        POLLIN = 1

        def poll():
            return _Poll(usb)

    main.sys, main.select, main.GRACE_MS = Sys, Select, 0
    machine.WDT.limit = 400
    try:
        main.main()
        raise AssertionError("main() returned")
    except machine.Stop:
        pass
    finally:
        machine.WDT.limit = None
    assert machine.WDT.last.feeds == 400  # fed once per loop
    kinds = [k for k, _, _ in host.frames]
    assert kinds == [wire.HELLO, wire.SNAPSHOT, wire.SNAPSHOT], kinds
    assert [m.reason for k, _, m in host.frames[1:]] == [wire.BOOT, wire.REQUESTED]
    assert host.frames[2][2].cells[100] == (wire.TAG, UID)
