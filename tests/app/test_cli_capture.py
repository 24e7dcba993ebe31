"""`dominotable solve castle-rock` and `dominotable check-capture` (captures: CR-5.1 to CR-5.5)."""

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from dominotable.app.cli import main

CR9 = "6-1 6-0 0-0 4-2 4-4 4-0 1-1 5-1 4-1"  # the CR-9 row, written high end first


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_json_worked_example(capsys):
    """CR-9: the worked row plus 1-4 clears completely."""
    code, out, err = run(capsys, "solve", "castle-rock", "--row", CR9, "--json")
    answer = json.loads(out)
    assert code == 0 and err == ""
    assert set(answer) == {"clearable", "max_captured", "plan"}
    assert answer["clearable"] is True and answer["max_captured"] == 9
    assert answer["plan"] == ["x4-4", "x2-4", "x0-6+0-0+0-4", "x1-1", "x1-6+1-5+1-4"]


def test_solve_human_output(capsys):
    """CR-5.2: 6-6 6-3 6-4 goes as one triple."""
    code, out, _ = run(capsys, "solve", "castle-rock-solitaire", "--row", "6-6 6-3 6-4")
    assert code == 0
    assert out.splitlines() == ["row of 3: 6-6 3-6 4-6", "clearable: yes",
                                "most captured: 3 of 3, leaving 0", "plan: x6-6+3-6+4-6"]


def test_solve_larger_set(capsys):
    code, out, _ = run(capsys, "solve", "castle-rock", "--row", "9-9 9-7 8-8", "--set", "9", "--json")
    assert code == 0 and json.loads(out) == {"clearable": False, "max_captured": 0, "plan": []}


@pytest.mark.parametrize("argv,words", [
    (["solve", "chess", "--row", "1-2"], "solve knows castle-rock and castle-rock-solitaire, not 'chess'"),
    (["solve", "castle-rock", "--row", "1-2 7-7"], "tile 7-7 is not in the double-six set"),
    (["solve", "castle-rock", "--row", "1-2 2-1"], "tile 1-2 appears twice"),
    (["solve", "castle-rock", "--row", "1-2 banana"], "'banana' is not a tile"),
    (["solve", "castle-rock", "--row", "1-2", "--set", "7"], "no double-7 set"),
    (["check-capture", "--before", CR9, "--after", "0-6 1-6"], "tile 1-6 is out of place"),
    (["check-capture", "--before", CR9, "--after", "1-6 5-5"], "tile 5-5 is in the row after but not"),
    (["check-capture", "--before", "-", "--after", "1-6"], "needs both --before - and --after -"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and words in err


def test_check_capture_legal_and_illegal_both_exit_0(capsys):
    """CR-5.3 chains; CR-5.1 needs pinchers sharing a suit."""
    code, out, _ = run(capsys, "check-capture", "--before", CR9, "--after", "1-6 0-6 0-0", "--json")
    assert code == 0 and json.loads(out) == {"legal": True, "reason": "reached by x2-4+4-4+0-4 x1-1+1-5+1-4"}
    code, out, _ = run(capsys, "check-capture", "--before", CR9, "--after", "1-6 0-6 0-0 4-4 1-4")
    assert code == 0
    assert out.startswith("illegal: 2-4 between 0-0 and 4-4 cannot be captured: 0-0 and 4-4 share no suit")


def test_solve_batch_reports_bad_lines_and_continues(capsys, monkeypatch):
    code, out, _ = run(capsys, "solve", "castle-rock", "--row", "-", monkeypatch=monkeypatch,
                       stdin="6-6 6-3 6-4\n7-7 1-1\n3-3 1-1 3-5\n")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 2
    assert lines[0] == {"clearable": True, "max_captured": 3, "plan": ["x6-6+3-6+4-6"]}
    assert lines[1] == {"error": "tile 7-7 is not in the double-six set"}
    assert lines[2] == {"clearable": False, "max_captured": 1, "plan": ["x1-1"]}


def test_check_capture_batch(capsys, monkeypatch):
    code, out, _ = run(capsys, "check-capture", "--before", "-", "--after", "-", monkeypatch=monkeypatch,
                       stdin="6-6 6-3 6-4 | 6-6 6-4\n6-6 6-3 6-4 | 6-3 6-4\n")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert lines[0] == {"legal": True, "reason": "reached by x3-6"}
    assert lines[1]["legal"] is False and "6-6 between the start of the row and 3-6" in lines[1]["reason"]
    code, out, _ = run(capsys, "check-capture", "--before", "-", "--after", "-", monkeypatch=monkeypatch,
                       stdin="no bar here\n6-6 6-3 6-4 | 6-6 6-3 6-4\n")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and "before tiles | after tiles" in lines[0]["error"] and lines[1]["legal"] is True


def test_installed_script_exits_2_without_traceback():
    script = Path(sys.executable).with_name("dominotable")
    script = str(script) if script.exists() else shutil.which("dominotable")
    assert script, "the dominotable script is not installed"
    done = subprocess.run([script, "check-capture", "--before", "1-2 2-3", "--after", "2-3 1-2"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr and "tile 1-2 is out of place" in done.stderr
