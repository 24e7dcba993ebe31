"""`dominotable tray monitor` and `dominotable tray sim`."""

import re
import subprocess
import sys

from dominotable.app.cli import main
from dominotable.app.commands.tray import parse_cell
from dominotable.tray.geometry import default
from support.polling import until


def test_monitor_prints_decoded_frames_and_error_counts(vtray, capsys):
    assert main(["tray", "monitor", "--port", vtray.path, "--virtual-tags", "--count", "2", "--seconds", "10"]) == 0
    out = capsys.readouterr().out
    assert "HELLO protocol 4, firmware 0.4.0, board 7669727475616c30, 194 cells, self-test failed: none" in out
    # a tray still in its boot sweep sends its boot snapshot before the requested one
    assert re.search(r"SNAPSHOT \((requested|boot)\): 194 cells, 0 tags, 0 faults", out)
    assert out.endswith("2 frames; frame errors: none\n")
    vtray.to_host.garbage = 1.0  # garbage in every write: the frames hit are counted, not shown
    assert main(["tray", "monitor", "--port", vtray.path, "--seconds", "0.3"]) == 0
    assert re.search(r"frame errors: .*(cobs|crc) [1-9]", capsys.readouterr().out)


def test_monitor_board_view_and_tile_names(vtray, capsys):
    vtray.place("3-5", at=35, facing="down")
    assert until(lambda: vtray.app.scanner.state[51][0] == 1)  # the firmware has confirmed it
    # HELLO and SNAPSHOT, after the CHANGES of the placement if the tray sends it only now
    assert main(["tray", "monitor", "--port", vtray.path, "--virtual-tags", "--board", "--count", "3",
                 "--seconds", "2"]) == 0
    out = capsys.readouterr().out
    assert "r2c3 (cell 35) tag 04565406030500 = the 3 half of 3-5" in out
    assert "\n          |\n" in out  # the vertical tile drawn joined


def test_monitor_without_a_tray_is_one_line_exit_2(tmp_path, capsys):
    assert main(["tray", "monitor", "--port", str(tmp_path / "ttyNONE")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot open tray at" in err and "ttyNONE" in err


def test_parse_cell():
    geo = default()
    assert parse_cell("37", geo) == 37 and parse_cell("r2c5", geo) == 37 and parse_cell("193", geo) == 193
    for bad in ("r12c0", "194", "x"):
        try:
            parse_cell(bad, geo)
        except ValueError as exc:
            assert "cell" in str(exc) or "grid" in str(exc)
        else:
            raise AssertionError(bad)


def test_sim_runs_commands_from_stdin_and_a_monitor_reads_it(capsys):
    sim = subprocess.Popen([sys.executable, "-m", "dominotable", "tray", "sim", "--speed", "8"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        path = sim.stdout.readline().split()[3]
        sim.stdout.readline(), sim.stdout.readline()
        sim.stdin.write("place 6-1 r0c0 down\n")
        sim.stdin.flush()
        assert sim.stdout.readline().strip() == "6-1 on r0c0 (cell 0) and r1c0 (cell 16)"
        assert main(["tray", "monitor", "--port", path, "--virtual-tags", "--count", "2", "--seconds", "10"]) == 0
        assert "HELLO" in capsys.readouterr().out
        out, err = sim.communicate("place 9-9 3\nremove r0c0\npad 2-4\ndead 5\nflicker 6 0.2\ncrc 7 2\n"
                                   "noise 0.001\nbogus\npile 3-3 3\nshow\n", timeout=20)
    finally:
        sim.kill() if sim.poll() is None else None
    assert sim.returncode == 0 and err == ""
    lines = out.splitlines()
    assert "9-9 on r0c3 (cell 3) and r0c4 (cell 4)" in lines  # the double-twelve tags: tiles of every game
    assert "removed r0c0" in lines and "2-4 held over the scan pad" in lines
    assert "error: unknown command 'bogus'; type 'help'" in lines
    assert "3-3 on r0c3 (cell 3) and r0c4 (cell 4)" in lines  # on top of the 9-9: a pile
    assert any(line.startswith("pad:  2  4  (2-4)") for line in lines)


def test_the_sim_says_what_its_leds_show_and_the_monitor_names_an_ack(vtray, link):
    from dominotable.app.commands.tray import sim_command
    from dominotable.tray.describe import frame_text
    from dominotray import pins, wire

    assert sim_command(vtray, "lights") == "every LED dark"
    link.light({0: (255, 0, 0), 193: (0, 0, 255)})
    full = 255 * pins.LIGHT_BRIGHTNESS // 255  # the tray's cap
    assert until(lambda: sim_command(vtray, "lights") == f"r0c0 (cell 0) #{full:02x}0000, pad-right (cell 193) #0000{full:02x}")
    assert frame_text(wire.LIGHTS_ACK, 3, (7, wire.TAKEN), default()) == "#3   LIGHTS_ACK of LIGHTS #7: taken"
