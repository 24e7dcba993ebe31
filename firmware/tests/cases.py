"""Firmware tests that run unchanged under CPython (tests/firmware/test_firmware.py) and under the
real MicroPython WebAssembly port (firmware/tests/micropython.test.mjs, via
tests/firmware/test_firmware_mpy.py). Every `test_*` function is one test; plain asserts only.

The emulated reader array (dominotray.emulator) answers the driver register by register,
so these exercise the driver command by command: WUPA/REQA, anticollision and select with
cascade tag 0x88, HLTA, no-card timeouts, CRC and parity errors.
"""

import sys

from dominotray import mfrc522 as M
from dominotray import pins, wire
from dominotray.app import TrayApp
from dominotray.emulator import HALT, LightChains, ReaderArray
from dominotray.layout import blocks
from dominotray.lights import HOST_GONE_MS, LOST_COLOUR, Lights
from dominotray.scanner import Scanner, grid_neighbours

UID = b"\x04\xa1\xb2\xc3\xd4\xe5\xf6"
UID2 = b"\x04\x11\x22\x33\x44\x55\x66"
# Most application tests use a smaller tray than the default one: it boots 4x faster.
COLS, ROWS, PAD = 8, 6, 2
CELLS = COLS * ROWS + PAD
SMALL_CHAINS = ((2, bytes(range(CELLS))),)  # its LEDs on one chain, in cell order

# Tests that need the stub `machine` module and MicroPython's time/micropython modules.
MICROPYTHON_ONLY = (
    "test_pico_bus_selects_every_reader_through_the_decoders",
    "test_main_loop_serves_the_host_over_usb_and_feeds_the_watchdog",
    "test_ctrl_c_at_every_point_of_boot_never_stops_the_board",
    "test_the_repl_stays_only_with_the_jumper_or_bootsel_held_at_boot",
    "test_stuck_high_miso_still_reaches_hello_within_the_watchdog",
    "test_the_pico_chains_shift_every_led_within_the_datasheet_timing",
    "test_the_board_lights_what_the_host_asks_over_usb",
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


def board_array():
    """The emulated readers of the real tray: a reader per 2 x 2 block, as wired (pins.py)."""
    return ReaderArray(pins.CELLS, layout=blocks(pins.COLS, pins.ROWS, pins.PAD_CELLS, pins.BLOCK_COLS,
                                                 pins.BLOCK_ROWS))


def reader(cells=4):
    emu = ReaderArray(cells)
    driver = M.MFRC522(emu)
    for cell in range(cells):
        assert driver.init(cell)
    return emu, driver


def booted_app(**options):
    emu = ReaderArray(CELLS)
    host = Host()
    app = TrayApp(emu, host, emu.clock_ms, cols=COLS, rows=ROWS, pad_cells=PAD, light_chains=SMALL_CHAINS, **options)
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
    driver.activate(0)
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
    assert emu.coils[2].tags[0].state == HALT


def test_reqa_misses_a_selected_tag_every_other_time():
    # Why the driver uses WUPA: polling a selected tag with REQA alternates present/absent.
    emu, driver = reader()
    emu.place(0, UID)
    answers = []
    for _ in range(4):
        driver.activate(0)  # (issues Transceive again after a frame nothing answered)
        atqa = driver._transceive(0, bytes((M.REQA,)), last_bits=7)
        answers.append(atqa != M._TIMEOUT)
        if atqa != M._TIMEOUT:
            for sel in (0x93, 0x95):  # select, leaving the tag ACTIVE (no HLTA)
                part = driver._transceive(0, bytes((sel, 0x20)))
                driver._transceive(0, M.with_crc(bytes((sel, 0x70)) + part))
    assert answers == [True, False, True, False]


def test_a_read_costs_the_guard_time_only_when_the_reader_was_not_woken_early():
    emu, driver = reader()
    emu.place(1, UID)
    start = emu.now_us
    assert driver.read_uid(0) == (M.EMPTY, b"")  # cold: the whole guard time
    cold_us = emu.now_us - start
    driver.sleep(0)
    driver.wake(0)
    driver.wake(1)
    emu.advance_ms(6)  # the scanner read other readers meanwhile
    start = emu.now_us
    assert driver.read_uid(1) == (M.TAG, UID)
    full_us = emu.now_us - start
    start = emu.now_us
    assert driver.read_uid(0) == (M.EMPTY, b"")  # awake, guard over: WUPA and the timeout
    warm_us = emu.now_us - start
    start = emu.now_us
    assert driver.read_uid(1, known=UID) == (M.TAG, UID)  # presence check: WUPA alone
    check_us = emu.now_us - start
    assert M.FIELD_GUARD_US + M.WAKE_US <= cold_us <= M.FIELD_GUARD_US + M.WAKE_US + 1200, cold_us
    assert warm_us <= 1200 and check_us <= 1200, (warm_us, check_us)
    assert 2500 <= full_us <= 8000, full_us
    assert emu.readers[1].log[-1] == "WUPA"


def test_timer_registers_give_a_no_card_timeout_of_three_frame_delay_times():
    emu, driver = reader()
    assert driver.read(0, M.T_MODE) & 0x80  # TAuto
    prescaler = (driver.read(0, M.T_MODE) & 0x0F) << 8 | driver.read(0, M.T_PRESCALER)
    reload = driver.read(0, M.T_RELOAD_H) << 8 | driver.read(0, M.T_RELOAD_L)
    period_us = (reload + 1) * (2 * prescaler + 1) / 13.56
    fdt_us = 1236 / 13.56  # ISO/IEC 14443-3: the longest frame delay time of a WUPA answer
    assert 3 * fdt_us <= period_us <= 400, period_us


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


# --- RF field ----------------------------------------------------------------------------

def _wupa(driver, cell):
    return driver._transceive(cell, bytes((M.WUPA,)), last_bits=7)


def test_a_sleeping_reader_has_no_field_and_a_woken_one_needs_the_guard_time():
    emu, driver = reader()
    emu.place(0, UID)
    assert emu.fields_on() == [] and emu.awake() == []  # init leaves every reader powered down
    assert driver.read(0, M.COMMAND) & M.POWER_DOWN
    driver.write(0, M.COMMAND, M.CMD_TRANSCEIVE | M.POWER_DOWN)
    assert _silent(driver, 0)  # powered down: nothing is sent, no timer runs
    driver.wake(0)
    assert emu.fields_on() == [0] and emu.awake() == [0]
    driver.write(0, M.COMMAND, M.CMD_TRANSCEIVE)
    assert _wupa(driver, 0) == M._TIMEOUT  # the tag is still powering up
    start = emu.now_us
    driver.activate(0)
    assert emu.now_us - start >= M.FIELD_GUARD_US - 1000
    assert _wupa(driver, 0) == b"\x44\x00"
    driver.sleep(0)
    assert emu.fields_on() == [] and emu.awake() == []
    emu.advance_ms(10)
    driver.write(0, M.COMMAND, M.CMD_TRANSCEIVE | M.POWER_DOWN)
    assert _silent(driver, 0)


def _silent(driver, cell):
    try:
        _wupa(driver, cell)
    except M._Fault:
        return True
    return False


def test_fields_on_together_are_never_near_and_few():
    emu, host, app = booted_app()
    emu.place(20, UID)
    emu.place(21, UID2)
    scanner = app.scanner
    send = app.driver._send
    sent = []

    def checked(reader, *args, **options):  # every frame sent: the reader's cell has the field
        cell = [c for c in app.driver.awake if app.driver.reader_of[c] == reader][0]
        on = emu.fields_on()
        assert cell in on, (cell, on)
        for other in on:
            assert other == cell or not scanner.near(other, cell), (cell, on)
        sent.append(cell)
        return send(reader, *args, **options)

    app.driver._send = checked
    emu.most_fields_on = 0
    for _ in range(600):
        app.poll()
        assert len(emu.awake()) == len(emu.fields_on()) <= scanner.lookahead
    assert 3 <= emu.most_fields_on <= scanner.lookahead  # guard times overlap
    assert len(set(sent)) == CELLS
    assert sorted(changes(host.frames)) == [(20, wire.TAG, UID), (21, wire.TAG, UID2)]


def test_a_stack_of_tags_is_reported_as_a_stack_never_as_garbage():
    emu, driver = reader()
    emu.place(1, UID)
    emu.stack(1, UID2)
    assert driver.read_uid(1) == (M.STACK, b"")
    assert driver.read_uid(1) == (M.STACK, b"")  # the quick re-read sees it again
    assert driver.read_uid(1, known=UID) == (M.TAG, UID)  # a presence check cannot tell...
    emu2, host, app = booted_app()
    emu2.place(9, UID)
    emu2.place(10, UID2)
    run_until(app, lambda: len(changes(host.frames)) == 2)
    host.take()
    emu2.stack(9, b"\x04\x99\x88\x77\x66\x55\x44")  # a capture laid on top
    run_until(app, lambda: changes(host.frames))  # ...but the next full read does
    assert changes(host.take()) == [(9, wire.STACK, b"")]
    snapshot = app.scanner.state
    assert snapshot[9] == (wire.STACK, b"")
    emu2.remove(9)
    run_until(app, lambda: changes(host.frames))
    assert changes(host.take()) == [(9, wire.EMPTY, b"")]


def test_same_uid_twice_on_one_reader_answers_as_one_tag():
    # Identical answers superpose without a collision (as every NTAG's ATQA does).
    emu, driver = reader()
    emu.place(0, UID)
    emu.stack(0, UID)
    assert driver.read_uid(0) == (M.TAG, UID)


# --- a reader per block of cells ------------------------------------------------------------

def block_reader():
    """One reader switching the coils of a 2 x 2 block (cells 0, 1 / 2, 3)."""
    emu = ReaderArray(4, layout=blocks(2, 2, 0, 2, 2))
    driver = M.MFRC522(emu, drive=40)
    assert driver.init(0)
    return emu, driver


def test_a_block_reader_has_one_field_on_one_coil_and_moving_it_restarts_the_guard():
    emu, driver = block_reader()
    emu.place(0, UID)
    emu.place(3, UID2)
    driver.wake(0)
    assert emu.fields_on() == [0] and emu.awake() == [0]
    assert driver.read_uid(0) == (M.TAG, UID)
    driver.wake(3)  # the field moves: coil 0 opens, coil 3 closes
    assert emu.fields_on() == [3] and driver.awake == [3]
    start = emu.now_us
    assert driver.read_uid(3) == (M.TAG, UID2)
    assert emu.now_us - start >= M.FIELD_GUARD_US  # coil 3's tag was unpowered: a whole guard time
    driver.sleep(3)
    assert emu.fields_on() == [] and emu.awake() == []


def test_one_coil_index_moves_the_field_of_every_awake_reader():
    # two blocks side by side: cells 0 1 | 2 3 over 4 5 | 6 7, coil k at the same place in each
    emu = ReaderArray(8, layout=blocks(4, 2, 0, 2, 2))
    driver = M.MFRC522(emu, drive=40)
    assert driver.init(0) and driver.init(2)
    emu.place(5, UID)
    driver.wake(0)
    driver.wake(2)
    assert emu.fields_on() == [0, 2] and emu.coil_index == 0 and not driver.selected(6)
    driver.wake(5)  # coil 3: the index moves, and reader 1's field with it, two cells from reader 0's
    assert emu.coil_index == 3 and driver.awake == [5, 7] and emu.fields_on() == [5, 7]
    start = emu.now_us
    assert driver.read_uid(5) == (M.TAG, UID)
    assert emu.now_us - start >= M.FIELD_GUARD_US - 100  # coil 3's tag powers up from the move
    driver.sleep(5)
    driver.sleep(7)
    assert emu.fields_on() == [] and emu.selects == 1


def test_a_switch_stuck_closed_lets_its_tag_answer_for_the_block():
    emu, driver = block_reader()
    emu.place(1, UID)
    emu.set_stuck(1)
    assert driver.read_uid(0) == (M.TAG, UID)  # cell 0 reads cell 1's tag: a cross-read
    driver.sleep(0)
    emu.place(0, UID2)
    assert driver.read_uid(0) == (M.STACK, b"")  # both answer


def test_the_drive_the_coupling_and_the_tile_decide_whether_a_tag_answers():
    emu, driver = block_reader()
    emu.place(0, UID, face_down=True)
    assert driver.read_uid(0) == (M.TAG, UID)  # the scanning drive reads through the tile
    driver.set_drive(0, 4)  # a sixteenth of full drive: short of the tag's threshold
    driver.sleep(0)
    assert driver.read_uid(0, UID) == (M.EMPTY, b"")
    driver.set_drive(0, M.DRIVE_MAX)
    emu.set_coupling(0, 0.0)  # a coil shorted across
    assert driver.read_uid(0, UID) == (M.EMPTY, b"")


def test_bringup_reports_every_cell_then_the_board_boots_again():
    emu = ReaderArray(CELLS, layout=blocks(COLS, ROWS, PAD, 2, 2))
    host = Host()
    app = TrayApp(emu, host, emu.clock_ms, cols=COLS, rows=ROWS, pad_cells=PAD, light_chains=SMALL_CHAINS)
    emu.place(5, UID)
    emu.set_dead(CELLS - 1)  # the pad's reader
    host.take()
    app.feed(request(wire.BRINGUP))
    frames = host.take()
    reports = [m for k, _, m in frames if k == wire.BRINGUP_REPORT]
    assert [k for k, _, _ in frames][-1] == wire.HELLO  # booted again
    probes = [p for r in reports for p in r.probes]
    assert len(probes) == reports[0].total == CELLS and reports[0].drive == pins.TX_DRIVE
    assert probes[5].status == M.TAG and probes[5].uid == UID and 1 <= probes[5].min_drive < pins.TX_DRIVE
    assert probes[4].status == M.EMPTY and probes[4].min_drive == 0 and probes[4].present
    assert not probes[CELLS - 1].present and not probes[CELLS - 2].present
    assert all(p.spi_us >= emulator_xfer_us() for p in probes if p.present)


def emulator_xfer_us():
    from dominotray.emulator import XFER_US
    return XFER_US


def test_a_tray_of_blocks_sweeps_every_cell_with_one_field_per_reader():
    emu = ReaderArray(CELLS, layout=blocks(COLS, ROWS, PAD, 2, 2))
    host = Host()
    app = TrayApp(emu, host, emu.clock_ms, cols=COLS, rows=ROWS, pad_cells=PAD, light_chains=SMALL_CHAINS)
    emu.place(9, UID)
    emu.place(10, UID2)
    run_until(app, lambda: app.booted)
    snap = [m for k, _, m in host.take() if k == wire.SNAPSHOT][0]
    assert snap.cells[9] == (wire.TAG, UID) and snap.cells[10] == (wire.TAG, UID2)
    emu.most_fields_on = 0
    run_for(app, 300)
    assert 3 <= emu.most_fields_on <= app.scanner.lookahead
    on_readers = [app.driver.reader_of[c] for c in app.driver.awake]
    assert len(on_readers) == len(set(on_readers))


# --- scanner -----------------------------------------------------------------------------

class _Script:
    """A driver whose readings are scripted per cell (the last one repeats)."""

    def __init__(self, readings=None):
        self.readings = readings or {}
        self.awake = []
        self.calls = []

    def read_uid(self, cell, known=None):
        self.calls.append(cell)
        script = self.readings.get(cell) or [(M.EMPTY, b"")]
        return script.pop(0) if len(script) > 1 else script[0]

    def read_many(self, cells, knowns):
        return [self.read_uid(c, k) for c, k in zip(cells, knowns)]

    def ready(self, cell):
        return False  # one cell a step: the scripts are per call

    def wake(self, cell):
        if cell not in self.awake:
            self.awake.append(cell)

    def sleep(self, cell):
        if cell in self.awake:
            self.awake.remove(cell)


def _scanner(driver, **options):
    return Scanner(driver, grid_neighbours(4, 3, 2), lambda: 0, [True] * 14, cols=4, pad=(12, 13),
                   **options)


def _boot(scanner):
    while not scanner.settled:
        scanner.step()
    scanner.changes = []
    scanner.driver.calls = []


TAGGED = (M.TAG, UID)
NOTHING = (M.EMPTY, b"")


def test_a_removal_is_confirmed_by_quick_re_reads_of_that_one_cell():
    driver = _Script({5: [TAGGED]})
    scanner = _scanner(driver, confirm_present=2, confirm_absent=4)
    _boot(scanner)
    assert scanner.state[5] == TAGGED
    driver.readings[5] = [NOTHING]
    while 5 not in driver.calls:
        scanner.step()
    at = driver.calls.index(5)
    assert driver.calls[at:] == [5, 5, 5, 5]  # four empty reads in a row, in one step
    assert scanner.changes == [(5, M.EMPTY, b"")] and scanner.state[5] == NOTHING


def test_any_answer_cancels_a_removal_and_a_placement_needs_two_equal_reads():
    driver = _Script({5: [TAGGED]})
    scanner = _scanner(driver, confirm_present=2, confirm_absent=4)
    _boot(scanner)
    for answer in (TAGGED, (M.GARBLED, b""), (M.STACK, b"")):
        driver.readings[5] = [NOTHING, NOTHING, answer, NOTHING]
        driver.calls = []
        while 5 not in driver.calls:
            scanner.step()
        assert scanner.changes == [] and scanner.state[5] == TAGGED, answer
    driver.readings[5] = [TAGGED]  # the tile stays
    driver.readings[6] = [(M.TAG, UID2), NOTHING, NOTHING]  # seen once, then gone: not reported
    driver.calls = []
    while 6 not in driver.calls:
        scanner.step()
    assert scanner.changes == []


def test_a_new_tag_gets_its_empty_neighbours_read_next():
    driver = _Script()
    scanner = _scanner(driver)
    _boot(scanner)
    driver.readings[5] = [(M.TAG, UID)]
    while 5 not in driver.calls:
        scanner.step()
    assert scanner.changes == [(5, M.TAG, UID)]
    assert sorted(scanner.pending) == [1, 4, 6, 9]
    driver.calls = []
    for _ in range(4):
        scanner.step()
    assert sorted(driver.calls) == [1, 4, 6, 9]


def test_rings_pad_hot_occupied_watched_and_rest():
    driver = _Script({5: [TAGGED], 6: [(M.TAG, UID2)]})
    scanner = _scanner(driver, recent_ms=-1)
    _boot(scanner)
    scanner.watch(bytes([1] * 8 + [0] * 4 + [1, 1]), draw=False)
    pad, hot, occupied, watched, rest = [sorted(r) for r in scanner._rings]
    # hot: the black cells (row + column even) a tile laid beside 5 and 6 would cover: 2, 7 and 10
    # beside them, 0 and 8 beside their white neighbours 1, 4 and 9
    assert pad == [] and hot == [0, 2, 7, 8, 10] and occupied == [5, 6]
    assert watched == [1, 3, 4, 12, 13] and rest == [9, 11]
    scanner.watch(None, draw=True)
    assert sorted(scanner._rings[0]) == [12, 13]
    assert sorted(scanner._rings[3]) == [1, 3, 4, 9, 11]


def test_each_ring_comes_round_in_proportion_to_its_period():
    driver = _Script({5: [TAGGED], 6: [(M.TAG, UID2)]})
    scanner = _scanner(driver, recent_ms=-1, periods=(10, 20, 40, 80, 160))
    _boot(scanner)
    scanner.watch(bytes([1] * 8 + [0] * 4 + [1, 1]), draw=True)
    counts = [0] * 14
    for _ in range(2000):
        counts[scanner.step()] += 1
    per_visit = [counts[12], counts[2], counts[5], counts[3], counts[11]]
    # pad every 10, hot every 20 (2: black, beside 1, which is beside the tag on 5), occupied every 40,
    # watched every 80 (3: white, not beside a tag), rest every 160
    for faster, slower in zip(per_visit, per_visit[1:]):
        assert 1.6 <= faster / slower <= 2.5, per_visit
    assert min(counts) > 0


def test_the_ring_orders_keep_consecutive_cells_apart():
    scanner = Scanner(_Script(), grid_neighbours(16, 12, 2), lambda: 0, [True] * 194, cols=16,
                      pad=(192, 193), field_spacing=3)
    order = [c for c in scanner._order if c < 192]
    close = sum(1 for a, b in zip(order, order[1:]) if scanner.near(a, b))
    assert close <= 10, close  # only where one spacing class gives way to the next
    assert scanner.near(0, 34) and not scanner.near(0, 3) and not scanner.near(0, 48)
    assert scanner.near(192, 193) and not scanner.near(191, 192)


# --- wire codec --------------------------------------------------------------------------
# The same checks as tests/tray/test_wire.py's, in MicroPython's subset: under MicroPython the
# codec takes its own paths (the table CRC instead of binascii.crc_hqx, bytes-only find).

class _Rand:
    """xorshift32: the same pseudo-random bytes under CPython and MicroPython."""

    def __init__(self, seed):
        self.x = seed & 0xFFFFFFFF or 1

    def below(self, n):
        x = self.x
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.x = x
        return x % n

    def bytes(self, n):
        return bytes(self.below(256) for _ in range(n))


def _crc_bitwise(data):
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def _cobs_reference(data):
    """The textbook byte-at-a-time COBS encoder, to check the block-wise one against."""
    out = bytearray(1)
    code_pos, code = 0, 1
    for i in range(len(data)):
        byte = data[i]
        if byte:
            out.append(byte)
            code += 1
        if not byte or code == 255:
            out[code_pos] = code
            if not byte or i + 1 < len(data):
                code_pos, code = len(out), 1
                out.append(0)
            else:
                return bytes(out)
    out[code_pos] = code
    return bytes(out)


def _raises(kind, text, call, *args):
    try:
        call(*args)
    except wire.WireError as exc:
        assert exc.kind == kind, (exc.kind, kind)
        assert text in str(exc), (text, str(exc))
        return
    raise AssertionError("no WireError(%s)" % kind)


def test_wire_crc16_ccitt_false():
    assert wire.crc16(b"123456789") == wire.crc16_py(b"123456789") == 0x29B1  # the check value
    assert wire.crc16(b"") == 0xFFFF  # init 0xFFFF, no xorout
    if sys.implementation.name == "micropython":  # no binascii.crc_hqx: the table path runs
        assert wire.crc16 is wire.crc16_py
    rng = _Rand(7)
    for n in (1, 2, 31, 255, 300):
        data = rng.bytes(n)
        assert wire.crc16(data) == wire.crc16_py(data) == _crc_bitwise(data), n


def test_wire_cobs_known_vectors():
    run = bytes(range(1, 255))  # 254 non-zero bytes: one full block
    vectors = [
        (b"", b"\x01"),
        (b"\x00", b"\x01\x01"),
        (b"\x00\x00", b"\x01\x01\x01"),
        (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
        (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
        (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
        (run, b"\xff" + run),
        (b"\x00" + run, b"\x01\xff" + run),
        (run + b"\xff", b"\xff" + run + b"\x02\xff"),
        (bytes(range(2, 256)) + b"\x00", b"\xff" + bytes(range(2, 256)) + b"\x01\x01"),
        (bytes(range(3, 256)) + b"\x00\x01", b"\xfe" + bytes(range(3, 256)) + b"\x02\x01"),
    ]
    for raw, encoded in vectors:
        assert wire.cobs_encode(raw) == encoded, raw
        assert wire.cobs_decode(encoded) == raw, encoded


def test_wire_cobs_round_trip_has_no_zeros():
    rng = _Rand(11)
    samples = [b"\x00" * 300, b"\xff" * 600, b"\x01" * 254 + b"\x00" + b"\x01" * 254]
    for n in (1, 3, 253, 254, 255, 507, 508, 509, 1200):
        samples.append(rng.bytes(n))
        samples.append(bytes((0, 1, 255)[rng.below(3)] for _ in range(n)))  # zero-heavy
    for data in samples:
        encoded = wire.cobs_encode(data)
        assert 0 not in encoded
        assert encoded == _cobs_reference(data), len(data)
        assert wire.cobs_decode(encoded) == data, len(data)
    _raises("cobs", "past the end", wire.cobs_decode, b"\x05\x01\x02")
    _raises("cobs", "zero byte", wire.cobs_decode, b"\x02\x01\x00\x01")


def _wire_samples():
    passed = [True] * 194
    passed[17] = passed[193] = False
    cells = [(wire.EMPTY, b"")] * 194
    cells[3] = (wire.TAG, UID)
    cells[4] = (wire.TAG, b"\xde\xad\xbe\xef")
    cells[17] = (wire.FAULT, b"")
    return [
        (wire.HELLO, wire.encode_hello((1, 2, 3), b"\xe6\x61\x41\x04\x03\x2b\x5c\x27", 194, passed)),
        (wire.SNAPSHOT, wire.encode_snapshot(wire.BOOT, cells)),
        (wire.CHANGES, wire.encode_changes([(3, wire.TAG, UID2), (191, wire.EMPTY, b""), (192, wire.FAULT, b"")])),
        (wire.GET_HELLO, b""),
        (wire.GET_SNAPSHOT, b""),
        (wire.RESET_READER, wire.encode_reset_reader(300)),
        (wire.RESTART, b""),
    ]


def test_wire_every_message_encodes_and_decodes():
    samples = _wire_samples()
    framer = wire.Framer()
    stream = b"".join([framer.frame(kind, body) for kind, body in samples])
    frames = wire.Decoder().feed(stream)
    assert [(k, b) for k, _, b in frames] == samples
    assert [s for _, s, _ in frames] == list(range(7))
    hello, snap, events, get_hello, get_snapshot, cell, restart = [
        wire.decode_body(k, b) for k, _, b in frames]
    assert (hello.proto, hello.fw, hello.cells) == (wire.PROTO, (1, 2, 3), 194)
    assert hello.board_id == b"\xe6\x61\x41\x04\x03\x2b\x5c\x27"
    assert hello.failed_cells() == [17, 193]
    assert len(samples[0][1]) == 5 + 8 + 2 + 25  # 194 self-test bits in ceil(194/8) bytes
    assert snap.reason == wire.BOOT and len(snap.cells) == 194
    assert snap.cells[3] == (wire.TAG, UID) and snap.cells[4] == (wire.TAG, b"\xde\xad\xbe\xef")
    assert snap.cells[17] == (wire.FAULT, b"") and snap.cells[0] == (wire.EMPTY, b"")
    assert events == [(3, wire.TAG, UID2), (191, wire.EMPTY, b""), (192, wire.FAULT, b"")]
    assert samples[2][1][:4] == b"\x03\x00\x03\x01"  # count, cell u16 big-endian, status
    assert (get_hello, get_snapshot, cell, restart) == (None, None, 300, None)
    assert samples[5][1] == b"\x01\x2c"
    # parse mode, fed one byte at a time
    decoder = wire.Decoder(parse=True)
    got = []
    for i in range(len(stream)):
        got.extend(decoder.feed(stream[i:i + 1]))
    assert [m for _, _, m in got] == [wire.decode_body(k, b) for k, b in samples]
    assert decoder.error_count() == 0 and decoder.frames == 7


def test_wire_watch_and_stack_round_trip():
    body = wire.encode_watch(True, [0, 9, 193], 194)
    assert body[:3] == b"\x01\x00\xc2" and len(body) == 3 + 25
    watch = wire.decode_body(wire.WATCH, body)
    assert watch.draw and watch.watched() == [0, 9, 193] and len(watch.cells) == 194
    assert wire.decode_watch(wire.encode_watch(False, [], 3)).watched() == []
    _raises("body", "watched cell 194", wire.encode_watch, False, [194], 194)
    _raises("body", "unknown WATCH flags", wire.decode_watch, b"\x02\x00\x01\x00")
    _raises("body", "1 bytes for 9 cells", wire.decode_watch, b"\x00\x00\x09\x00")
    events = [(4, wire.STACK, b""), (5, wire.TAG, UID)]
    assert wire.decode_changes(wire.encode_changes(events)) == events
    cells = [(wire.STACK, b""), (wire.EMPTY, b"")]
    assert wire.decode_snapshot(wire.encode_snapshot(wire.HEARTBEAT, cells)).cells == cells


def test_wire_lights_and_their_ack_round_trip_and_refuse_what_the_format_cannot_carry():
    lit = [(0, 255, 0, 0), (17, 1, 2, 3), (193, 0, 0, 255)]
    body = wire.encode_lights(194, lit)
    assert body[:4] == b"\x00\xc2\x00\x03" and len(body) == 4 + 5 * 3
    assert body[4:9] == b"\x00\x00\xff\x00\x00"  # cell u16, red, green, blue
    message = wire.decode_body(wire.LIGHTS, body)
    assert message == wire.Lights(194, lit) and message.cells == 194
    assert wire.decode_lights(wire.encode_lights(194, [])).lit == []
    whole = [(cell, 9, 9, 9) for cell in range(194)]  # every cell lit: still one frame
    assert wire.decode_lights(wire.encode_lights(194, whole)).lit == whole
    assert len(wire.frame(wire.LIGHTS, 0, wire.encode_lights(194, whole))) < wire.MAX_ENCODED
    _raises("body", "lit cell 17 is out of order", wire.encode_lights, 194, [(17, 0, 0, 0), (17, 1, 1, 1)])
    _raises("body", "lit cell 194 is out of order or not one of the 194", wire.encode_lights, 194, [(194, 0, 0, 0)])
    _raises("body", "colour 256 of cell 3", wire.encode_lights, 194, [(3, 256, 0, 0)])
    _raises("body", "LIGHTS too short", wire.decode_lights, b"\x00\xc2\x00")
    _raises("body", "10 bytes for 2 lit cells", wire.decode_lights, b"\x00\xc2\x00\x02\x00\x01\x01\x01\x01\x00")
    _raises("body", "lit cell 3 is out of order", wire.decode_lights,
            b"\x00\xc2\x00\x02\x00\x05\x01\x01\x01\x00\x03\x01\x01\x01")
    _raises("body", "lit cell 200 is out of order or not one of the 194", wire.decode_lights,
            b"\x00\xc2\x00\x01\x00\xc8\x01\x01\x01")
    assert wire.decode_body(wire.LIGHTS_ACK, wire.encode_lights_ack(300, wire.REFUSED)) == (44, wire.REFUSED)
    _raises("body", "unknown LIGHTS_ACK result 2", wire.decode_lights_ack, b"\x05\x02")
    _raises("body", "must be 2 bytes, not 1", wire.decode_lights_ack, b"\x05")
    # each side takes only the other side's: a tray never takes an ack, a host never takes LIGHTS
    to_tray, to_host = wire.Decoder(types=wire.TO_TRAY), wire.Decoder(types=wire.FROM_TRAY)
    frames = wire.frame(wire.LIGHTS, 1, body) + wire.frame(wire.LIGHTS_ACK, 2, b"\x01\x00")
    assert [k for k, _, _ in to_tray.feed(frames)] == [wire.LIGHTS] and to_tray.errors["type"] == 1
    assert [k for k, _, _ in to_host.feed(frames)] == [wire.LIGHTS_ACK] and to_host.errors["type"] == 1


def test_watch_of_the_wrong_size_is_ignored_and_counted():
    emu, host, app = booted_app()
    app.feed(request(wire.WATCH, wire.encode_watch(True, [1], CELLS + 1)))
    assert app.ignored == 1 and not app.scanner._draw
    app.feed(request(wire.WATCH, wire.encode_watch(True, [1], CELLS)))
    assert app.ignored == 1 and app.scanner._draw


def test_wire_frame_layout_and_sequence_wrap():
    data = wire.frame(wire.RESET_READER, 5, b"\x00\x07")
    assert data[:1] == data[-1:] == b"\x00" and 0 not in data[1:-1]  # delimited at both ends
    payload = wire.cobs_decode(data[1:-1])
    assert payload[:4] == b"\x83\x05\x00\x07"
    assert payload[4:] == wire.crc16(payload[:4]).to_bytes(2, "big")
    framer = wire.Framer(seq=254)
    stream = b"".join([framer.frame(wire.GET_SNAPSHOT) for _ in range(3)])
    assert [s for _, s, _ in wire.Decoder().feed(stream)] == [254, 255, 0]


def _crc_ok(header_and_body):
    return wire.cobs_encode(header_and_body + wire.crc16(header_and_body).to_bytes(2, "big")) + b"\x00"


def test_wire_malformed_frames_are_counted_by_kind_and_the_decoder_resynchronises():
    hello = wire.encode_hello((1, 0, 0), b"id", 16, [True] * 16)
    bad_frames = [
        ("cobs", b"\x05\x01\x02\x00"),
        ("short", wire.cobs_encode(b"\x01\x00\x00") + b"\x00"),
        ("crc", wire.frame(wire.GET_HELLO, 0)[:-2] + b"\x01\x00"),
        ("long", b"\x01" * (wire.MAX_ENCODED + 10) + b"\x00"),
        ("type", _crc_ok(b"\x42\x00")),
        ("body", _crc_ok(b"\x82\x00junk")),                     # GET_SNAPSHOT has no body
        ("body", _crc_ok(b"\x02\x00\x00\x00\x02\x00")),        # 2 cells announced, 1 sent
        ("body", _crc_ok(b"\x02\x00\x00\x00\x01\x01\x0b" + b"\x01" * 11)),  # 11-byte UID
        ("body", _crc_ok(b"\x02\x00\x09\x00\x00")),            # unknown reason
        ("body", _crc_ok(b"\x03\x00\x01\x00\x05\x07")),        # unknown cell status
        ("body", _crc_ok(b"\x01\x00" + hello[:-1])),           # self-test bitmap cut short
    ]
    good = wire.frame(wire.GET_SNAPSHOT, 9)
    for kind, bad in bad_frames:
        decoder = wire.Decoder()
        assert decoder.feed(bad + good) == [(wire.GET_SNAPSHOT, 9, b"")], kind
        assert decoder.errors[kind] == 1 and decoder.error_count() == 1, (kind, decoder.errors)
    # a frame cut off mid-way costs only itself: the next frame's leading delimiter ends it
    for cut in range(2, len(good) - 1):
        decoder = wire.Decoder()
        assert decoder.feed(good[:cut] + good + good) == [(wire.GET_SNAPSHOT, 9, b"")] * 2, cut
        assert decoder.error_count() == 1, cut
    # an over-long frame split across feeds is dropped whole
    decoder = wire.Decoder()
    for _ in range(5):
        assert decoder.feed(b"\x07" * 1000) == []
    assert decoder.feed(b"\x00" + wire.frame(wire.RESTART, 1)) == [(wire.RESTART, 1, b"")]
    assert decoder.errors["long"] == 1
    # each side accepts only the other side's message types
    decoder = wire.Decoder(types=wire.TO_TRAY)
    assert decoder.feed(wire.frame(wire.HELLO, 0, hello) + wire.frame(wire.RESTART, 1)) == [
        (wire.RESTART, 1, b"")]
    assert decoder.errors["type"] == 1


def test_wire_encoders_refuse_what_the_format_cannot_carry():
    _raises("body", "UID of 11 bytes", wire.encode_snapshot, 0, [(wire.TAG, b"\x01" * 11)])
    _raises("body", "256 change events", wire.encode_changes, [(0, wire.EMPTY, b"")] * 256)
    _raises("long", "exceeds 2048", wire.frame, wire.SNAPSHOT, 0, b"\x01" * 2045)
    _raises("body", "3 entries for 4 cells", wire.encode_hello, (1, 0, 0), b"", 4, [True] * 3)


def _random_lit(rng, cells=194):
    lit = {}
    for _ in range(rng.below(12)):
        lit[rng.below(cells)] = (rng.below(256), rng.below(256), rng.below(256))
    return [(cell,) + lit[cell] for cell in sorted(lit)]


def _random_message(rng):
    pick = rng.below(6)
    if pick == 4:
        return wire.LIGHTS, wire.encode_lights(194, _random_lit(rng))
    if pick == 5:
        return wire.LIGHTS_ACK, wire.encode_lights_ack(rng.below(256), rng.below(2))
    kind = wire.TO_TRAY[rng.below(4)] if pick % 2 else wire.FROM_TRAY[rng.below(3)]
    if kind == wire.SNAPSHOT:
        choices = ((wire.EMPTY, b""), (wire.FAULT, b""), None)
        cells = [choices[rng.below(3)] or (wire.TAG, rng.bytes(7)) for _ in range(rng.below(200))]
        return kind, wire.encode_snapshot(rng.below(4), cells)
    if kind == wire.CHANGES:
        return kind, wire.encode_changes([(rng.below(194), wire.TAG, rng.bytes(7)) for _ in range(rng.below(5))])
    if kind == wire.HELLO:
        n = 1 + rng.below(199)
        return kind, wire.encode_hello((1, 0, 0), rng.bytes(8), n, [rng.below(10) > 0 for _ in range(n)])
    if kind == wire.RESET_READER:
        return kind, wire.encode_reset_reader(rng.below(194))
    return kind, b""


def _corrupt(rng, stream):
    data = bytearray(stream)
    for _ in range(1 + rng.below(5)):
        if not data:
            break
        what = rng.below(4)
        at = rng.below(len(data))
        if what == 0:
            data[at] ^= 1 << rng.below(8)
        elif what == 1:
            data = data[:at] + data[at + 1 + rng.below(3):]
        elif what == 2:
            data = data[:at] + rng.bytes(1 + rng.below(19)) + data[at:]
        else:
            data[at] = 0
    return bytes(data)


def test_wire_corrupted_streams_never_yield_a_frame_that_was_not_sent():
    rng = _Rand(2024)
    for _ in range(60):
        framer = wire.Framer(seq=rng.below(256))
        sent = []
        stream = b""
        for _ in range(1 + rng.below(5)):
            kind, body = _random_message(rng)
            sent.append((kind, framer.seq, body))
            stream += framer.frame(kind, body)
        data = _corrupt(rng, stream) + b"\x00"  # the trailing delimiter flushes a cut frame
        decoder = wire.Decoder(parse=True)
        got = []
        at = 0
        while at < len(data):  # in random chunks
            step = 1 + rng.below(64)
            got.extend(decoder.feed(data[at:at + step]))
            at += step
        parsed = [(k, s, wire.decode_body(k, b)) for k, s, b in sent]
        for frame in got:
            assert frame in parsed, frame
        if data.strip(b"\x00"):  # unless the damage left nothing but delimiters, something is seen
            assert len(got) + decoder.error_count() >= 1


def test_wire_decoder_never_raises_on_garbage():
    rng = _Rand(5)
    decoder = wire.Decoder(parse=True)
    for _ in range(200):
        chunk = rng.bytes(rng.below(300))
        if rng.below(3) == 0:
            chunk = chunk.replace(b"\x00", b"") + b"\x00"  # one long frame
        for kind, seq, _message in decoder.feed(chunk):
            assert kind in wire.NAMES and 0 <= seq <= 255
    assert decoder.error_count() > 100
    # after the next delimiter it decodes again
    assert decoder.feed(b"\x00" + wire.frame(wire.CHANGES, 3, wire.encode_changes([]))) == [
        (wire.CHANGES, 3, [])]


# --- application -------------------------------------------------------------------------

def test_boot_sends_hello_with_self_test_then_a_boot_snapshot():
    emu = board_array()
    emu.set_dead(7)
    emu.set_version(100, 0x00)
    emu.place(20, UID)
    host = Host()
    app = TrayApp(emu, host, emu.clock_ms, board_id=b"\x01\x02")
    kind, seq, hello = host.take()[0]
    assert (kind, seq) == (wire.HELLO, 0)
    assert hello.proto == wire.PROTO and hello.board_id == b"\x01\x02"
    # a reader serves a 2 x 2 block: each fault takes its block's four cells
    assert hello.cells == pins.CELLS and hello.failed_cells() == [6, 7, 22, 23, 100, 101, 116, 117]
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
    app = TrayApp(emu, host, emu.clock_ms, cols=COLS, rows=ROWS, pad_cells=PAD, light_chains=SMALL_CHAINS)
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
    assert emu.coils[21].crc_errors <= 25  # the errors were actually hit


def test_cells_beside_the_layout_are_read_more_often_and_all_are_swept():
    emu, host, app = booted_app()
    for cell, uid in ((2 * COLS + 2, UID), (2 * COLS + 3, UID2)):
        emu.place(cell, uid)
    run_until(app, lambda: len(changes(host.frames)) == 2)
    counts = [0] * CELLS
    driver_read = app.driver.read_many

    def counting(cells, knowns):
        for cell in cells:
            counts[cell] += 1
        return driver_read(cells, knowns)

    app.driver.read_many = counting
    app.feed(request(wire.WATCH, wire.encode_watch(True, range(CELLS), CELLS)))
    run_for(app, 3000)
    beside = counts[1 * COLS + 3]  # a black cell beside the tile: a tile laid there covers one
    far = counts[5 * COLS + 7]
    assert far >= 10 and min(counts) >= 10
    assert beside >= 3 * far, (beside, far)  # periods 100 ms and 400 ms
    assert counts[CELLS - 1] >= 5 * far  # the scan pad is hot while a draw is awaited (60 ms)


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


# --- lights ------------------------------------------------------------------------------

def lit_app(**options):
    """A booted small tray whose LEDs are emulated chains (one chain, in cell order)."""
    chains = LightChains(SMALL_CHAINS)
    emu, host, app = booted_app(chains=chains, **options)
    host.take()
    return emu, host, app, chains


def lights_frame(lit, seq=0, cells=CELLS):
    return request(wire.LIGHTS, wire.encode_lights(cells, lit), seq)


def capped(red, green, blue):
    return tuple(value * pins.LIGHT_BRIGHTNESS // 255 for value in (red, green, blue))


def acks(frames):
    return [message for kind, _seq, message in frames if kind == wire.LIGHTS_ACK]


def test_lights_are_acknowledged_with_the_frames_sequence_and_shown_under_the_cap():
    emu, host, app, chains = lit_app()
    app.feed(lights_frame([(3, 255, 0, 0), (49, 0, 128, 255)], seq=41))
    assert acks(host.take()) == [(41, wire.TAKEN)]
    app.poll()
    assert chains.lit() == {3: capped(255, 0, 0), 49: capped(0, 128, 255)}
    assert max(max(c) for c in chains.lit().values()) == pins.LIGHT_BRIGHTNESS < 255
    app.feed(lights_frame([(1, 9, 9, 9)], seq=42, cells=CELLS + 1))  # another tray's count
    assert acks(host.take()) == [(42, wire.REFUSED)]
    run_for(app, 100)
    assert sorted(chains.lit()) == [3, 49]
    app.feed(lights_frame([(2, 0, 0, 255)], seq=43))  # a frame is the whole: the rest goes dark
    run_for(app, 100)
    assert chains.lit() == {2: capped(0, 0, 255)} and acks(host.take()) == [(43, wire.TAKEN)]
    app.feed(b"\x00junk\x00" + lights_frame([(4, 1, 1, 1)], seq=44)[:-3] + b"\x00")  # damaged: no ack
    assert acks(host.take()) == [] and app.decoder.error_count() == 2


def test_lights_latch_at_most_max_fps_and_the_newest_frame_wins():
    emu, host, app, chains = lit_app()
    times = []
    chains.on_latch = lambda: times.append(emu.clock_ms())
    for i in range(40):
        app.feed(lights_frame([(i, 200, 200, 200)], seq=i))
        app.poll()
    run_for(app, 200)
    assert len(acks(host.take())) == 40
    assert 2 <= len(times) < 40
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert min(gaps) >= 1000 / pins.LIGHT_MAX_FPS, gaps
    assert chains.lit() == {39: capped(200, 200, 200)}


def idle(emu, app, ms, step=50):
    """Let `ms` pass on the board's clock in `step`s, polling after each: the lights depend on the
    clock alone, not on what the scan reads meanwhile."""
    for _ in range(ms // step):
        emu.advance_ms(step)
        app.poll()


def test_lights_go_dark_when_the_host_is_gone_and_a_tray_booted_without_one_blinks_lost():
    emu, host, app, chains = lit_app()
    app.feed(lights_frame([(5, 0, 255, 0)]))
    idle(emu, app, HOST_GONE_MS - 500)
    assert sorted(chains.lit()) == [5]
    app.feed(request(wire.GET_SNAPSHOT))  # any frame says the host is there
    idle(emu, app, HOST_GONE_MS - 500)
    assert sorted(chains.lit()) == [5]
    idle(emu, app, 700)
    assert chains.lit() == {}  # the host is gone: its instruction is not left on the tray
    # a tray that boots with no host: dark, then the tray-lost pattern blinking
    emu = ReaderArray(CELLS)
    chains = LightChains(SMALL_CHAINS)
    seen = []
    chains.on_latch = lambda: seen.append((emu.clock_ms(), chains.lit()))
    app = TrayApp(emu, Host(), emu.clock_ms, cols=COLS, rows=ROWS, pad_cells=PAD, light_chains=SMALL_CHAINS,
                  chains=chains)
    idle(emu, app, HOST_GONE_MS + 1600)
    booted = app.lights.booted_ms
    assert all(lit == {} for t, lit in seen if t < booted + HOST_GONE_MS)
    lost = {cell: capped(*LOST_COLOUR) for cell in (0, COLS - 1, CELLS - PAD - COLS, CELLS - PAD - 1, 48, 49)}
    shown = [lit for t, lit in seen if t >= booted + HOST_GONE_MS]
    assert shown[:4] == [lost, {}, lost, {}], shown
    app.feed(request(wire.GET_HELLO))  # a host: the pattern stops
    idle(emu, app, 600)
    assert chains.lit() == {}


def test_the_pico_chains_shift_every_led_within_the_datasheet_timing():
    import main
    import rp2

    rp2.chains.clear()
    chains = main.PicoChains()
    machines = rp2.machines[-len(pins.LIGHT_CHAINS):]
    assert [m.pin for m in machines] == [gpio for gpio, _ in pins.LIGHT_CHAINS]
    now = [0]
    lights = Lights(chains, lambda: now[0])
    lit = [(0, 255, 0, 0), (63, 0, 255, 0), (64, 1, 2, 3), (191, 10, 20, 30), (192, 0, 0, 255), (193, 255, 255, 255)]
    lights.heard()
    assert lights.take(wire.Lights(pins.CELLS, lit)) == wire.TAKEN
    lights.poll()
    want = {}
    for cell, red, green, blue in lit:
        want[cell] = capped(red, green, blue)
    for machine, (gpio, order) in zip(machines, pins.LIGHT_CHAINS):
        chain = rp2.chains[gpio]
        assert chain.errors == [], chain.errors
        assert chain.bits == 24 * len(order)
        for i in range(len(order)):
            red, green, blue = want.get(order[i], (0, 0, 0))
            assert chain.leds[i] == (green, red, blue), (gpio, i, order[i])
        # the program's cycles: 12 a bit (1.2 us at 10 MHz, the datasheet's 1.25 us +- 0.6), three
        # or four instructions a bit, nothing else
        assert machine.cycles == 12 * 24 * len(order), machine.cycles
        assert 3 * 24 * len(order) <= machine.instructions <= 4 * 24 * len(order)
        assert len(machine.program.words) == 4
    # a frame's end latches: the next frame is at least one frame interval later, far over Trst
    assert lights.interval_ms * 1000 >= pins.LIGHT_RESET_US
    lights.take(wire.Lights(pins.CELLS, [(64, 0, 0, 255), (191, 10, 20, 30)]))  # chain 2 as it was
    before = [rp2.chains[gpio].frames for gpio, _ in pins.LIGHT_CHAINS]
    lights.poll()
    assert [rp2.chains[gpio].frames for gpio, _ in pins.LIGHT_CHAINS] == before  # too soon: held
    now[0] += lights.interval_ms
    lights.poll()
    frames = [rp2.chains[gpio].frames - b for (gpio, _), b in zip(pins.LIGHT_CHAINS, before)]
    assert frames == [1, 1, 0]  # only the chains that changed are written
    assert rp2.chains[pins.LIGHT_CHAINS[1][0]].leds[0] == (0, 0, capped(0, 0, 255)[2])


def test_the_board_lights_what_the_host_asks_over_usb():
    import rp2

    rp2.chains.clear()
    incoming = request(wire.GET_HELLO) + lights_frame([(100, 0, 255, 0)], seq=9, cells=pins.CELLS)
    host = run_main(board_array(), incoming, 60)
    assert acks(host.frames) == [(9, wire.TAKEN)]
    gpio, order = next((gpio, order) for gpio, order in pins.LIGHT_CHAINS if 100 in order)
    chain = rp2.chains[gpio]
    assert chain.errors == []
    green = capped(0, 255, 0)[1]
    assert [i for i in range(len(chain.leds)) if chain.leds[i] != (0, 0, 0)] == [list(order).index(100)]
    assert chain.leds[list(order).index(100)] == (green, 0, 0)


class _EmuTime:
    """MicroPython's time functions on the emulated array's clock: the board's time passes
    as its SPI transactions and sleeps take it. `point()` is called at every use."""

    def __init__(self, emu, point=None):
        self.emu = emu
        self.point = point or (lambda: None)

    def ticks_us(self):
        self.point()
        return int(self.emu.now_us)

    def ticks_ms(self):
        self.point()
        return self.emu.clock_ms()

    def ticks_diff(self, a, b):
        return a - b

    def sleep_us(self, us):
        self.point()
        self.emu.now_us += us

    def sleep_ms(self, ms):
        self.point()
        self.emu.advance_ms(ms)


def test_pico_bus_selects_every_reader_through_the_decoders():
    import machine  # the stub: pins and SPI wired to an emulated array
    import main  # firmware/main.py; main() runs only as __main__

    emu = board_array()
    machine.array = emu
    main.time = _EmuTime(emu)
    bus = main.PicoBus()
    for r in range(pins.READERS):  # a distinct register value per reader
        emu.readers[r].regs[M.T_RELOAD_L] = r
    driver = M.MFRC522(bus)
    assert [driver.read(r, M.T_RELOAD_L) for r in range(pins.READERS)] == list(range(pins.READERS))
    assert machine.unselected_xfers == 0
    assert machine.selected_reader() is None  # strobe released between transfers
    emu.place(193, UID)
    emu.set_dead(3)  # the reader of cells 2, 3, 18, 19
    host = Host()
    TrayApp(bus, host, emu.clock_ms, board_id=machine.unique_id())  # says HELLO as it boots
    assert host.frames[0][2].board_id == machine.unique_id()
    assert host.frames[0][2].failed_cells() == [2, 3, 18, 19]
    assert driver.read_uid(193) == (M.TAG, UID)


class _Usb:
    """sys.stdin/sys.stdout of the board: bytes from the host in, frames to the host out."""

    def __init__(self, incoming, host):
        self.incoming = bytearray(incoming)
        self.host = host
        self.buffer = self
        self.point = lambda: None  # a byte from the host arrives

    def read(self, n):
        self.point()
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


def run_main(emu, incoming, feeds):
    """firmware/main.py's main() on the board of `emu`, the host sending `incoming` over USB, until
    the watchdog has been fed `feeds` times; the host's end."""
    import machine
    import main

    machine.array = emu
    main.time = _EmuTime(emu)
    host = Host()
    usb = _Usb(incoming, host)

    class Sys:
        stdin = usb
        stdout = usb

    class Select:
        POLLIN = 1

        def poll():
            return _Poll(usb)

    main.sys, main.select = Sys, Select
    machine.WDT.limit = feeds
    try:
        main.main()
        raise AssertionError("main() returned")
    except machine.Stop:
        pass
    finally:
        machine.WDT.limit = None
    return host


def test_main_loop_serves_the_host_over_usb_and_feeds_the_watchdog():
    import machine

    emu = board_array()
    emu.place(100, UID)
    host = run_main(emu, b"\x00\x03junk\x00" + request(wire.GET_SNAPSHOT), 400)
    assert machine.WDT.last.feeds == 400  # fed once per loop
    kinds = [k for k, _, _ in host.frames]
    assert kinds == [wire.HELLO, wire.SNAPSHOT, wire.SNAPSHOT], kinds
    assert [m.reason for k, _, m in host.frames[1:]] == [wire.BOOT, wire.REQUESTED]
    assert host.frames[2][2].cells[100] == (wire.TAG, UID)


class _Board:
    """Power-up of the board under test: a fresh boot.py and main.py, `machine` and `rp2`
    stubs, the emulated array, MicroPython's time on its clock, and USB serial from a host
    that keeps sending `incoming`. `points` counts the calls into the hardware (every point
    of the boot at which a 0x03 from the host could arrive)."""

    def __init__(self, emu, incoming=b"", jumper=False, bootsel=0, feeds=50):
        import machine
        import rp2

        self.emu = emu
        self.host = Host()
        self.usb = _Usb(incoming, self.host)
        self.usb.point = self.point
        self.armed = True  # Ctrl-C at power-up: a 0x03 raises KeyboardInterrupt
        self.points = 0
        self.kbd = []
        board = self

        class Micropython:  # what the firmware (and the port's own time module) use of it
            def kbd_intr(char):
                board.kbd.append(char)
                board.armed = char != -1

            def const(value):
                return value

        self.micropython = Micropython
        machine.array = emu
        machine.grounded = {pins.REPL_JUMPER} if jumper else set()
        machine.on_point = self.point
        rp2.pressed = bootsel
        machine.WDT.limit = feeds
        machine.WDT.clock_ms = emu.clock_ms
        machine.WDT.last = None

    def point(self):
        """A 0x03 from the host arrives here: it stops the board unless Ctrl-C is off."""
        self.points += 1
        if self.armed:
            raise KeyboardInterrupt("0x03 reached the REPL")

    def boot(self, boot_py=True):
        """Power up: boot.py (unless the board lacks it), then main.py."""
        import machine

        for name in ("boot", "main"):
            sys.modules.pop(name, None)
        saved = sys.modules.get("micropython")
        sys.modules["micropython"] = self.micropython
        try:
            if boot_py:
                import boot  # noqa: F401 (runs at import, as at power-up)
            import main

            main.time = _EmuTime(self.emu, self.point)
            main.sys, main.select = self._sys(), self._select()
            try:
                main.main()
                return "repl"
            except machine.Stop:
                return "running"
        finally:
            if saved is not None:
                sys.modules["micropython"] = saved
            else:
                del sys.modules["micropython"]
            machine.on_point = None
            machine.WDT.limit = machine.WDT.clock_ms = None

    def _sys(self):
        usb = self.usb

        class Sys:
            stdin = usb
            stdout = usb
        return Sys

    def _select(self):
        usb = self.usb

        class Select:
            POLLIN = 1

            def poll():
                return _Poll(usb)
        return Select


def test_ctrl_c_at_every_point_of_boot_never_stops_the_board():
    # With boot.py, and with main.py alone (a board deployed without boot.py): Ctrl-C is
    # off before the first use of the hardware, so a host sending 0x03 all along (here 40
    # of them, a request, and more) never stops the board.
    for boot_py in (True, False):
        emu = board_array()
        emu.place(100, UID)
        board = _Board(emu, b"\x03" * 40 + request(wire.GET_HELLO) + b"\x03\x03", feeds=pins.CELLS + 300)
        assert board.boot(boot_py) == "running"
        assert board.kbd[0] == -1 and board.points > 1000
        kinds = [k for k, _, _ in board.host.frames]
        assert kinds[:2] == [wire.HELLO, wire.HELLO] and wire.SNAPSHOT in kinds  # the request answered
        assert board.usb.incoming == b""


def test_the_repl_stays_only_with_the_jumper_or_bootsel_held_at_boot():
    for jumper, bootsel in ((True, 0), (False, 1)):
        board = _Board(board_array(), jumper=jumper, bootsel=bootsel)
        assert board.boot() == "repl"
        assert board.kbd == [-1, -1, 3] and board.host.frames == []  # boot.py, main.py, then the REPL
        import machine
        assert machine.WDT.last is None  # no watchdog to reset the board under the maker


def test_stuck_high_miso_still_reaches_hello_within_the_watchdog():
    import machine
    import main

    emu = board_array()
    emu.miso_stuck_high = True
    board = _Board(emu, feeds=pins.CELLS + 20)  # the self-test feeds it once per reader
    assert board.boot() == "running"
    wdt = machine.WDT.last
    assert wdt.longest_ms < main.WATCHDOG_MS, wdt.longest_ms
    kind, _seq, hello = board.host.frames[0]
    assert kind == wire.HELLO and hello.failed_cells() == list(range(pins.CELLS))
    snapshots = [m for k, _, m in board.host.frames if k == wire.SNAPSHOT]
    assert snapshots and all(cell == (wire.FAULT, b"") for cell in snapshots[0].cells)


def test_a_write_cut_short_is_retried_or_dropped_and_costs_only_its_frame():
    emu = ReaderArray(CELLS)
    host = Host()
    budget = []  # bytes the USB takes per call; empty: all

    def usb(data):
        if not budget:
            host(data)
            return len(data)
        n = min(budget.pop(0), len(data))
        host(data[:n])
        return n

    app = TrayApp(emu, usb, emu.clock_ms, cols=COLS, rows=ROWS, pad_cells=PAD, light_chains=SMALL_CHAINS)
    host.take()
    budget[:] = [4, 0]  # 4 bytes of the HELLO, nothing, then the rest on the third try
    app.feed(request(wire.GET_HELLO))
    assert app.dropped == 0 and [k for k, _, _ in host.take()] == [wire.HELLO]  # retried to the end
    budget[:] = [5, 0, 0]
    app.feed(request(wire.GET_HELLO) + request(wire.GET_HELLO))
    assert app.dropped == 1
    frames = host.take()
    assert [k for k, _, _ in frames] == [wire.HELLO]  # the next frame survived the cut one
    assert host.decoder.error_count() == 1


def test_a_quiet_tray_keeps_fewer_readers_awake_and_wakes_up_on_a_change():
    emu, host, app = booted_app(idle_ms=2000)
    scanner = app.scanner
    run_for(app, 2100)
    assert scanner.awake_limit() == scanner.idle_lookahead
    emu.most_fields_on = 0
    run_for(app, 500)
    assert emu.most_fields_on <= scanner.idle_lookahead
    emu.place(20, UID)
    emu.place(21, UID2)
    run_until(app, lambda: len(changes(host.frames)) == 2, limit_ms=2000)
    assert scanner.awake_limit() == scanner.lookahead
    app.feed(request(wire.WATCH, wire.encode_watch(True, range(CELLS), CELLS)))
    run_for(app, 2100)
    assert scanner.awake_limit() == scanner.lookahead  # a draw is awaited: never idle
