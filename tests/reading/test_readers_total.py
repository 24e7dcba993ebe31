"""Every reader's verdict is total: for any board the hands can make from a position reached by
play (tiles taken off, laid on, slid, held over the scan pad, a half alone), `judge(board)`
returns a Verdict and never raises, and never changes the engine it reads (the readers are
pure functions of the engine and the board, reading/reader.py). Castle Rock's captures taken
tile by tile, in any order and partly, are a pending problem or legal captures (CR-10.10)."""

from __future__ import annotations

import itertools
import random

import pytest
from dominotable.games import catalog
from dominotable.reading.reader import Verdict
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.rules.tiles import Tile
from dominotable.sim.bots.shared import random_bot
from dominotable.sim.hands.base import fitting
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.errors import TrayError
from dominotable.tray.tags import Half
from dominotray import wire
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.table_sim import SimTray, hands_of

SHORT = {"castle-rock": {"hands": 2}, "broadway": {"hands": 2}, "doubles-in-the-boneyard": {"target": 50}}


def played(name: str, seed: int, observed: bool, plies: int):
    """A game of `name` after `plies` random moves, each made on a SimTray by the game's hands."""
    cls = catalog.engine(name)
    game = cls(seed=seed, options=SHORT.get(name), observed=observed)
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    hands = hands_of(reader)
    choose = random_bot(random.Random(seed))
    for _ in range(plies):
        if game.is_over():
            break
        fit = fitting(game, hands, tray.board(), choose(game))
        if fit is None:
            break
        move, actions = fit
        try:
            tray.apply(actions)
        except TrayError:
            break
        game.push(move)
        pad = tray.board().on_pad()
        if pad is not None and game.awaiting() is None:
            tray.apply(Action(ActionKind.UNPAD, pad.tile))
    return game, reader, tray


def free_pairs(tray: SimTray) -> list[tuple[int, int]]:
    geo = tray.geometry
    taken = {c for cells in tray.tiles.values() for c in cells} | set(tray.extra)
    return [(a, b) for a in range(geo.playing) for b in geo.neighbours(a)
            if a not in taken and b not in taken and b < geo.playing]


def edit(tray: SimTray, draw, kind: str) -> None:
    """One thing a hand does to the tray."""
    on = sorted(tray.tiles, key=str)
    off = sorted((t for t in tray.dset.tiles if t not in tray.tiles), key=str)
    if kind == "take" and on:
        tray.take(draw(st.sampled_from(on)))
    elif kind in ("lay", "slide") and (off if kind == "lay" else on):
        tile = draw(st.sampled_from(off if kind == "lay" else on))
        if kind == "slide":
            tray.take(tile)
        pairs = free_pairs(tray)
        if pairs:
            tray.put(tile, draw(st.sampled_from(pairs)))
    elif kind == "pad" and (off or on):
        pad = tray.board().on_pad()
        if pad is not None:
            tray.apply(Action(ActionKind.UNPAD, pad.tile))
        else:
            tile = draw(st.sampled_from(off or on))
            tray.tiles.pop(tile, None)
            tray.pad(str(tile))
    elif kind == "half" and off:
        tile = draw(st.sampled_from(off))
        cells = [c for pair in free_pairs(tray) for c in pair]
        if cells:
            tray.extra[draw(st.sampled_from(cells))] = (wire.TAG, tray._uid[Half(tile, 0)])


def check_total(game, reader, board) -> Verdict:
    state, before = game.state, game.to_dict()
    verdict = reader.judge(board)
    reader.button_moves(board)
    reader.expected()
    reader.pad_draw()
    reader.provisional()
    assert isinstance(verdict, Verdict)
    assert game.state is state and game.to_dict() == before
    assert verdict.problem is None or verdict.problem.strip()
    return verdict


@pytest.mark.parametrize("name", catalog.names())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_judge_is_total_and_leaves_the_engine_alone(name, data):
    """Any board the hands can make: a Verdict, never an exception, the engine untouched."""
    game, reader, tray = played(name, data.draw(st.integers(0, 10_000)), data.draw(st.booleans()),
                                data.draw(st.integers(0, 60)))
    check_total(game, reader, tray.board())
    for _ in range(data.draw(st.integers(1, 6))):
        edit(tray, data.draw, data.draw(st.sampled_from(["take", "take", "lay", "slide", "pad", "half"])))
        check_total(game, reader, tray.board())


def test_a_bots_capture_taken_in_any_order_or_partly_is_never_a_refusal():
    """CR-10.10, issue 17's row `6-6 1-2 2-6 2-2 4-5` after West placed 4-5, its capture "take 1-2,
    2-6 and 2-2": every part of it, in any order (the closed end's 1-2 first, the placed tile's
    neighbour first), reads as legal captures or as a capture in progress (pending, no alarm)."""
    game = CastleRock.from_position("row: 6-6 1-2 2-6 2-2\nP1: 4-5 0-0\nP2: 3-3 1-1\nturn: P1", observed=True)
    game.push_notation("4-5")
    tray = SimTray()
    reader = catalog.reader_for(game, tray.geometry)
    for tile, slot in zip(game.row(), reader.slots):
        tray.put(tile, slot)
    taken = [Tile(1, 2), Tile(2, 6), Tile(2, 2)]
    for order in itertools.permutations(taken):
        for k in range(1, 4):
            board_tray = SimTray()
            board_tray.tiles = {t: c for t, c in tray.tiles.items() if t not in order[:k]}
            verdict = check_total(game, reader, board_tray.board())
            assert verdict.moves or verdict.pending, (order[:k], verdict)
    whole = SimTray()
    whole.tiles = {t: c for t, c in tray.tiles.items() if t not in taken}
    assert check_total(game, reader, whole.board()).moves  # the whole capture is legal


@pytest.mark.parametrize("columns", [2, 3])
def test_regression_a_full_column_with_its_stopper_lifted_is_a_prompt_not_a_crash(columns):
    """Found by the chaos test: an Up-Down-Stop column filling its zone to the bottom row, stopped
    with 5-5 (UDS-3.5), and the stopper lifted: the stopper's slot fell below the grid and `judge`
    raised TrayError ("row 12, column 1 is off the 16x12 grid") at every board, so the table
    faulted again and again. With a zone free for the next column it is a prompt to put 5-5 back
    (UDS-10.3); with two columns the stopped column's zone is the next column's, so it may be
    cleared, the stopper first (UDS-10.4)."""
    moves = ["0-4 new", "1-6 c1-6", "1-5 c1-5", "2-4 c1-4", "3-6 c1-3", "2-5 c1-2", "1-2 c1-1", "0-5 c1-0",
             "1-4 new", "4-6 c1-6", "3-5 c1-5", "3-4 c1-4", "1-3 c1-3", "2-6 c1-2", "0-1 c1-1", "0-3 c1-0",
             "0-6 c1-6", "4-5 c1-5", "0-2 c2+2", "5-5 stop c1"]
    game = catalog.load({"game": "up-down-stop", "players": 1, "seed": 11, "observed": True, "moves": moves,
                         "options": {"set": 6, "columns": columns, "reshuffles": 1}})
    tray = SimTray()
    tray.apply_all(catalog.hands_for(game, tray.geometry).setup(tray.board()))
    reader = catalog.reader_for(game, tray.geometry)
    assert check_total(game, reader, tray.board()) == Verdict()  # the position as the hands lay it
    tray.apply(Action(ActionKind.REMOVE, game.dset.parse("5-5")))
    verdict = check_total(game, reader, tray.board())
    if columns == 3:
        assert verdict.problem == "put 5-5 back on top of column 1 (rule UDS-10.3)" and not verdict.moves
    else:
        assert verdict == Verdict()
