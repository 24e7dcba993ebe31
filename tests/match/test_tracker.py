"""The tracker (match/tracker.py): a board is judged once, when it has settled; judging the same
tray again after the engine changed (a button, a takeback, a move heard from the partner table)
never takes the place of judging a board that has not settled yet."""

from __future__ import annotations

from dominotable.match.tracker import Tracker
from dominotable.rules.tiles import DominoSet
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.geometry import default
from dominotable.tray.tags import Registry


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def boards():
    tray = MemoryTray(Registry.virtual(DominoSet(6)), default())
    tile = DominoSet(6).parse("2-5")
    tray.place(tile, (64, 65))
    laid = tray.board()
    tray.apply(Action(ActionKind.REMOVE, tile))
    return laid, tray.board()


def test_a_settled_board_is_judged_once_and_again_after_the_engine_changed():
    clock, (laid, _) = Clock(), boards()
    tracker = Tracker(400, 2000, clock)
    assert tracker.see(laid) and tracker.due() is None  # not settled yet
    clock.now += 0.45
    assert tracker.due() == (laid, True) and tracker.due() is None
    assert tracker.again() is laid  # the engine changed under the same tray: judged again, not as fresh


def test_again_leaves_a_board_still_settling_to_be_judged_fresh_when_it_settles():
    """Was: a move heard from the partner table while a person lifted the last tile judged the
    unsettled board at once as not fresh, so the takeback offer became "Fix the tray"."""
    clock, (laid, lifted) = Clock(), boards()
    tracker = Tracker(400, 2000, clock)
    tracker.see(laid)
    clock.now += 0.45
    assert tracker.due() == (laid, True)
    tracker.see(lifted)
    clock.now += 0.1
    assert tracker.again() is None and tracker.judged is None
    clock.now += 0.35
    assert tracker.due() == (lifted, True)


def test_a_refused_write_waits_for_its_retry_and_a_board_seen_meanwhile_is_judged_then():
    """While a refused write waits (1, 2, 4 ... s) nothing is judged, and `retrying` says so; once the
    retry is due the board lying then is judged (fresh), and a board seen after that is not held
    back by the old refusal: it settles and is judged as any other. (The chaos harness counted a
    tray that had merely not settled yet as one waiting for the store, and followed a bot's
    instruction twice.)"""
    clock, (laid, lifted) = Clock(), boards()
    tracker = Tracker(400, 2000, clock)
    tracker.see(laid)
    clock.now += 0.45
    assert tracker.due() == (laid, True) and not tracker.retrying
    assert tracker.refused() == 1.0 and tracker.retrying
    tracker.see(lifted)
    clock.now += 0.5
    assert tracker.due() is None and tracker.retrying and tracker.judged is None
    clock.now += 0.5
    assert not tracker.retrying and tracker.due() == (lifted, True)
    tracker.see(laid)
    assert not tracker.retrying and tracker.due() is None and tracker.judged is None  # settling, not waiting
    clock.now += 0.45
    assert tracker.due() == (laid, True) and tracker.refusals == 1  # no write since: the backoff goes on
