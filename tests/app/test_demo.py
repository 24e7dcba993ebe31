"""The `demo --text` command: greedy bots play a whole match in the engine, turn by turn."""

import re

from dominotable.app.cli import main


def demo(capsys, *argv):
    assert main(["demo", "--text", *argv]) == 0
    return capsys.readouterr().out


def test_default_is_castle_rock_four_players(capsys):
    out = demo(capsys, "castle-rock", "--hands", "2", "--seed", "4")
    lines = out.splitlines()
    assert lines[0].startswith("Castle Rock - hand 1") and sum(ln.startswith("  P") or ln.startswith("> P")
                                                                  for ln in lines[:7]) == 4
    turns = [ln for ln in lines if re.match(r"P[1-4]: ", ln)]
    assert len(turns) == 2 * 24  # six placements each per hand (CR-3: 28 - 4 = 24)
    assert all(re.match(r"P\d: (\d-\d|x\S+) ", ln) for ln in turns)
    assert "hand 1 scored" in out and lines[-1].startswith("winner: P")
    final = [ln for ln in lines if ln.startswith("scores: ")][-1]
    scores = {name: int(score) for name, score in re.findall(r"(P\d) (-?\d+)", final)}
    assert lines[-1] == f"winner: {max(scores, key=scores.get)}" or list(scores.values()).count(max(scores.values())) > 1


def test_same_seed_same_match(capsys):
    assert demo(capsys, "castle-rock", "--hands", "1", "--seed", "9") == demo(capsys, "castle-rock", "--hands", "1", "--seed", "9")
    assert demo(capsys, "castle-rock", "--hands", "1", "--seed", "9") != demo(capsys, "castle-rock", "--hands", "1", "--seed", "10")


def test_players_and_other_games(capsys):
    out = demo(capsys, "--players", "2", "--seed", "1", "castle-rock", "--hands", "1")
    assert "P3" not in out and "P2: hand [" in out
    out = demo(capsys, "castle-rock-solitaire", "--seed", "2")
    assert out.startswith("Castle Rock Solitaire") and re.search(r"^winner: (P1|none)$", out, re.M)


def test_bad_input_exits_2(capsys):
    assert main(["demo", "castle-rock", "--players", "8"]) == 2
    assert "2 to 6 players, not 8" in capsys.readouterr().err
    assert main(["demo", "backgammon"]) == 2
    assert "unknown game 'backgammon'" in capsys.readouterr().err
