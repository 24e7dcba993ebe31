"""The chaos test (issue 17, item 6): a hypothesis state machine drives the real runtime on the
virtual tray (the firmware over emulated readers behind a pty, the link, the page, the mock
buttons, a real SQLite file) through the paths people use, for every game and for Castle Rock and
Broadway with bot seats. The rules and the invariants are tests/support/chaos_rules.py's (the long run is
benchmarks/chaos.py): after every step the table is alive, the store replays to the live engine,
the page shows the runtime's screen, every prompt has a way back, and every committed move is one
somebody made on purpose.

A short profile: a few tens of steps a game, no shrinking (a failing run prints its steps, each a
rule and the seed of its choices)."""

import random

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from support import chaos_rules

STEPS = 20  # a game; the whole profile stays under a minute on two cores
WEIGHTED = [name for name, weight in chaos_rules.RULES.items() for _ in range(weight)]


class ChaosTable(RuleBasedStateMachine):
    setting = "castle-rock"

    def __init__(self):
        super().__init__()
        self.chaos: chaos_rules.Chaos | None = None

    @initialize(seed=st.integers(0, 2**31 - 1))
    def open_table(self, seed):
        self.chaos = chaos_rules.Chaos(self.setting, seed)

    @rule(name=st.sampled_from(WEIGHTED), seed=st.integers(0, 2**32 - 1))
    def act(self, name, seed):
        """One of the rules (progress, bot, capture, lay, lift, slide, drop, pad, takeback, buttons,
        menu, unplug, noise, store, page, restore), its choices made with `seed`."""
        self.chaos.do(name, random.Random(seed))

    @invariant()
    def the_table_holds(self):
        if self.chaos is None:
            return
        bad = [f"{count} at step {step}: {what}\n  after: {'; '.join(before)}"
               for count, step, what, before in self.chaos.tally.details if count in (*chaos_rules.COUNTS, "harness")]
        assert not bad, "\n".join(bad)

    def teardown(self):
        if self.chaos is not None:
            self.chaos.close()


@pytest.mark.parametrize("setting", list(chaos_rules.SETTINGS))
def test_chaos_at_the_table(setting):
    machine = type(f"ChaosTable_{setting}", (ChaosTable,), {"setting": setting})
    run_state_machine_as_test(machine, settings=settings(
        max_examples=1, stateful_step_count=STEPS, deadline=None, phases=[Phase.generate], derandomize=True,
        database=None, suppress_health_check=list(HealthCheck)))


def test_the_long_run_prints_one_json_line_a_game_and_refuses_bad_arguments():
    """benchmarks/chaos.py, the long profile: one JSON line with every count, exit 0 when all are
    zero; --help names every count (offered_refused too, issue 28); a bad argument is one line and
    exit 2."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = str(Path(__file__).resolve().parents[2] / "benchmarks" / "chaos.py")
    done = subprocess.run([sys.executable, script, "--steps", "6", "--game", "castle-rock", "--seed", "3"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    line = json.loads(done.stdout.strip())
    assert (line["game"], line["seed"], line["steps"]) == ("castle-rock", 3, 6)
    assert all(line[count] == 0 for count in chaos_rules.COUNTS) and line["offered"] >= 0  # places tried
    assert "chaos castle-rock: step 6 of 6" in done.stderr
    told = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True, timeout=60)
    assert told.returncode == 0 and all(count in " ".join(told.stdout.split()) for count in chaos_rules.COUNTS)
    bad = subprocess.run([sys.executable, script, "--steps", "0"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--steps" in bad.stderr
