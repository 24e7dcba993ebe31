"""Castle Rock and its solitaire read off the tray: rules CR-10 and CRS-8 of the cards."""

import random

import pytest
from dominotable.games import catalog
from dominotable.rules.games.castle_rock.engine import DRAW, END, CastleRock, place
from dominotable.rules.games.castle_rock.solitaire import CastleRockSolitaire
from dominotable.rules.hidden import DEAL, Reveal
from dominotable.sim.bots.shared import random_bot
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.tags import Half, virtual_uid
from dominotray import wire
from support.table_helpers import GEO, REGISTRY, ROW, T, column, laid, rigged, with_tiles
from support.table_sim import hands_of, read_draw

CR9 = "1-6 0-6 0-0 2-4 4-4 0-4 1-1 1-5"  # the worked example, CR-9


def verdict_after(reader, layout, *actions):
    layout.apply_all(actions)
    return reader.judge(layout.board())


def test_cr10_1_row_read_left_to_right_gaps_and_other_tiles_ignored():
    """rule CR-10.1, CR-10.2: upright tiles by column, band 2 after band 1; gaps, the captures
    band and the pad do not matter."""
    game = rigged(CR9, ["2-2 3-3", "5-5 6-6"])
    reader = catalog.reader_for(game, GEO)
    layout = MemoryTray(REGISTRY, GEO)
    tiles = ROW(CR9)
    for i, tile in enumerate(tiles[:5]):
        layout.place(tile, column(2 * i + 5 if i else 0))  # gaps between the tiles
    for i, tile in enumerate(tiles[5:]):
        layout.place(tile, column(i + 3, band=1))
    layout.place(T("2-2"), (GEO.cell(0, 0), GEO.cell(0, 1)))  # lying in the captures band
    layout.apply(Action(ActionKind.PAD, T("3-3")))
    assert [p.tile for p in reader.row_placements(layout.board())] == tiles
    assert reader.judge(layout.board()).same
    assert reader.expected() == f"row: {CR9} (open end right)"


def test_cr10_placement_at_the_open_end_is_the_current_players():
    """rule CR-4.1, CR-10.4: a new tile standing after the row is the placement."""
    game = rigged(CR9, ["1-4 3-3", "5-5 6-6"])
    reader, layout = laid(game)
    verdict = verdict_after(reader, layout, *hands_of(reader).actions(place(T("1-4")), layout.board()))
    assert verdict.moves == (place(T("1-4")),)
    assert reader.button_moves() == []


def test_cr10_captures_are_judged_exactly_even_made_all_at_once():
    """rule CR-5.3, CR-9, CR-10.4: the whole example row removed at once is found as legal
    captures (the exact analysis), which leave exactly the tray's row."""
    game = rigged(CR9 + " 1-4", ["3-3", "5-5 6-6"], placed=True)
    reader, layout = laid(game)
    layout = with_tiles(layout, **{f"t{t.a}_{t.b}": None for t in ROW(CR9 + " 1-4")})
    verdict = reader.judge(layout.board())
    assert verdict.problem is None and len(verdict.moves) == 5
    for move in verdict.moves:
        game.push(move)
    assert game.row() == () and game.captured()[0] == 9
    assert reader.button_moves() == [("End turn", END)]


def test_cr5_1_illegal_capture_prompt_says_what_to_put_back_and_why():
    """rule CR-5.1, CR-10.4: a tile whose neighbours share no suit goes back between them."""
    game = rigged("1-2 3-4 5-6 0-0 1-1", ["2-2", "3-3"], placed=True)
    reader, layout = laid(game)
    verdict = reader.judge(with_tiles(layout, t3_4=None).board())
    assert verdict.moves == () and not verdict.pending
    assert verdict.problem == "put 3-4 back between 1-2 and 5-6: 1-2 and 5-6 share no suit (rule CR-5.1)"
    verdict = reader.judge(with_tiles(layout, t1_1=None).board())
    assert verdict.problem == ("put 1-1 back at the open end, after 0-0: 1-1 is at an end of the row, "
                               "so nothing pinches it (rule CR-5.1)")


def test_cr10_4_removals_a_legal_capture_can_complete_are_pending():
    """rule CR-10.4: removals that are the start of a legal capture (more removals make them
    one) are a capture in progress, with the removals that would finish it."""
    game = rigged(CR9 + " 1-4", ["3-3", "5-5 6-6"], placed=True)
    reader, layout = laid(game)
    verdict = reader.judge(with_tiles(layout, t2_4=None).board())
    assert verdict.moves == () and verdict.pending
    assert verdict.problem == "finish the capture: take 4-4 too, or put 2-4 back (rule CR-5.3)"


def test_cr5_3_group_that_cannot_all_go_is_named():
    """rule CR-5.3: several tiles gone where no order of captures takes them all."""
    game = rigged("1-2 3-4 5-6 0-0 1-1", ["2-2", "3-3"], placed=True)
    reader, layout = laid(game)
    verdict = reader.judge(with_tiles(layout, t3_4=None, t5_6=None).board())
    assert verdict.problem == ("put 3-4 5-6 back between 1-2 and 0-0: no order of captures takes them all "
                               "while 1-2 and 0-0 stay (rule CR-5.3)")


def test_cr5_5_no_capture_in_a_short_row():
    """rule CR-5.5: with fewer than three tiles nothing can be captured."""
    game = rigged("1-1 1-2", ["2-2", "3-3"], placed=True)
    reader, layout = laid(game)
    assert reader.judge(with_tiles(layout, t1_1=None).board()).problem == (
        "put 1-1 back at the closed end, before 1-2: no capture with fewer than three tiles in the row (rule CR-5.5)")


def test_cr4_2_capture_before_placing_is_refused():
    """rule CR-4.2: removals before the player has placed are not captures."""
    game = rigged(CR9, ["1-4", "5-5"])
    reader, layout = laid(game)
    verdict = reader.judge(with_tiles(layout, t4_4=None).board())
    assert verdict.problem == "put 4-4 back: P1 must place a tile before capturing 4-4 (rule CR-4.2)"


def test_cr10_next_placement_closes_the_turn_after_captures():
    """rule CR-4.3, CR-10.5: captures, then a new tile: the captures, `end`, the next placement."""
    game = rigged("6-6 3-6 4-6 1-2", ["1-1", "2-5 0-3"], placed=True)
    reader, layout = laid(game)
    layout = with_tiles(layout, t3_6=None)
    layout.place(T("2-5"), column(10))
    verdict = reader.judge(layout.board())
    assert [str(m) for m in verdict.moves] == ["x3-6", "end", "2-5"]


def test_cr10_captures_after_the_next_placement_are_the_placers():
    """rule CR-10.5: removals only a new tile allows are that tile's placer's captures."""
    game = rigged("6-6 3-6 1-2", ["1-1", "4-6 0-3"], placed=True)
    reader, layout = laid(game)
    layout = with_tiles(layout, t1_2=None)  # pinched by 3-6 and 4-6: only once 4-6 stands there
    layout.place(T("4-6"), column(3))
    verdict = reader.judge(layout.board())
    assert [str(m) for m in verdict.moves] == ["end", "4-6", "x1-2"]


def test_cr4_1_tile_not_in_hand_is_refused():
    """rule CR-4.1: the placement must come from the hand of the player to move."""
    game = rigged(CR9, ["1-4", "5-5"])
    reader, layout = laid(game)
    layout.place(T("5-5"), column(8))
    assert reader.judge(layout.board()).problem == "take 5-5 off the row: 5-5 is not in P1's hand (rule CR-4.1)"


def test_cr4_1_second_placement_in_one_turn_is_out_of_turn():
    """rule CR-4.1: two new tiles at once: the second is out of turn."""
    game = rigged(CR9, ["1-4 2-2", "5-5"])
    reader, layout = laid(game)
    layout.place(T("1-4"), column(8))
    layout.place(T("2-2"), column(9))
    verdict = reader.judge(layout.board())
    assert verdict.problem == "take 2-2 off the row: one tile per turn, and 1-4 came first (rule CR-4.1)"


def test_cr10_tile_at_the_wrong_end_or_in_the_middle():
    """rule CR-3.4, CR-10.4: new tiles join at the open (right) end only."""
    game = rigged("1-6 0-6 0-0", ["1-4", "5-5"])
    reader = catalog.reader_for(game, GEO)
    layout = MemoryTray(REGISTRY, GEO)
    for i, tile in enumerate(ROW("1-6 0-6 0-0")):
        layout.place(tile, column(2 * i + 2))
    layout.place(T("1-4"), column(0))
    verdict = reader.judge(layout.board())
    assert verdict.problem == "move 1-4 to the open end of the row, after 0-0 (rule CR-4.1)"
    assert verdict.cells == column(0)
    layout = with_tiles(layout, t1_4=column(5))
    assert reader.judge(layout.board()).problem == "move 1-4 to the open end of the row, after 0-0 (rule CR-4.1)"


def test_cr10_3_tile_moved_inside_the_row():
    """rule CR-10.3: the row keeps its order; a tile moved elsewhere in it goes back."""
    game = rigged("0-0 2-4 4-4 0-4", ["1-4", "5-5"])
    reader, layout = laid(game)
    moved = with_tiles(layout, t2_4=column(6))
    verdict = reader.judge(moved.board())
    assert verdict.problem == "put 2-4 back between 0-0 and 4-4 (the row keeps its order, rule CR-10.3)"
    assert verdict.cells == column(6)
    swapped = with_tiles(layout, t0_0=column(1), t2_4=column(0))
    assert "back at the closed end, before 2-4" in reader.judge(swapped.board()).problem
    assert reader.judge(with_tiles(layout, t0_4=column(9)).board()).same  # a slide along: no move


def test_cr10_1_horizontal_tile_in_the_row_band():
    """rule CR-10.1: tiles stand upright in the row; lying flat there is refused."""
    game = rigged("1-6 0-6 0-0", ["1-4", "5-5"])
    reader, layout = laid(game)
    flat = with_tiles(layout, t1_4=(GEO.cell(4, 5), GEO.cell(4, 6)))
    verdict = reader.judge(flat.board())
    assert verdict.problem == "stand 1-4 upright at the open end (rule CR-10.1)"
    assert verdict.cells == (GEO.cell(4, 5), GEO.cell(4, 6))
    across = with_tiles(layout, t1_4=(GEO.cell(3, 5), GEO.cell(4, 5)))
    assert reader.judge(across.board()).problem == "set 1-4 upright at the open end, in rows 4 and 5 (rule CR-10.1)"
    inside = with_tiles(layout, t0_6=None, t0_0=column(6), t1_4=(GEO.cell(4, 2), GEO.cell(4, 3)))
    assert reader.judge(inside.board()).problem == "stand 1-4 upright in the row (rule CR-10.1)"


def test_cr6_1_last_turn_of_a_hand_ends_with_the_button():
    """rule CR-6.1, CR-10.6: with every hand empty a new tile cannot follow; End turn scores."""
    game = CastleRock.from_position("row: 1-6 0-6 0-0 2-3\nP1:\nP2:\nplaced\nboneyard:\ncaptured: 12 12")
    reader, layout = laid(game)
    layout.place(T("5-5"), column(8))
    assert reader.judge(layout.board()).problem == ("take 5-5 off the row: every hand is played out, "
                                                     "so press End turn to score the hand (rule CR-6.1)")
    assert reader.button_moves() == [("End turn", END)]


def test_cr10_7_new_hand_asks_for_the_dealt_row():
    """rule CR-10.7: at the start of a hand the tray must show the row as dealt."""
    game = CastleRock(players=2, seed=3)
    reader = catalog.reader_for(game, GEO)
    layout = MemoryTray(REGISTRY, GEO)
    dealt = " ".join(str(t) for t in game.row())
    assert reader.judge(layout.board()).problem == f"lay out the starting row left to right: {dealt}"
    stale = [t for t in game.dset.tiles if t not in game.row()][:3]
    for i, tile in enumerate(stale):
        layout.place(tile, column(i))
    assert reader.judge(layout.board()).problem == f"clear the row, then lay out the starting row left to right: {dealt}"
    layout = MemoryTray(REGISTRY, GEO)
    layout.apply_all(hands_of(reader).setup(layout.board()))
    assert reader.judge(layout.board()).same


def test_actions_slide_the_row_left_only_when_the_bands_are_full():
    """Bots place at the next free column; with no column left they close the gaps first."""
    tiles = ROW("0-0 0-1 0-2 0-3 0-4 0-5 0-6 1-1 1-2 1-3 1-4 1-5 1-6 2-2 2-3 2-4 2-5 2-6")
    game = rigged(" ".join(map(str, tiles)), ["3-3", "4-4"])
    reader = catalog.reader_for(game, GEO)
    layout = MemoryTray(REGISTRY, GEO)
    for i, tile in enumerate(tiles[:15]):
        layout.place(tile, column(i + 1))  # a gap at the closed end
    for i, tile in enumerate(tiles[15:]):
        layout.place(tile, column(13 + i, band=1))  # the last column taken
    assert reader.judge(layout.board()).same
    actions = hands_of(reader).actions(place(T("3-3")), layout.board())
    assert actions[0] == Action(ActionKind.SLIDE, tiles[0], column(0))
    assert actions[-1] == Action(ActionKind.PLACE, T("3-3"), column(2, band=1))
    layout.apply_all(actions)
    assert reader.judge(layout.board()).moves == (place(T("3-3")),)


@pytest.mark.parametrize("cls,seed,observed", [(CastleRock, 1, False), (CastleRock, 2, False),
                                               (CastleRock, 3, True), (CastleRockSolitaire, 1, False),
                                               (CastleRockSolitaire, 5, False), (CastleRockSolitaire, 6, True)])
def test_cr10_bot_actions_read_back_as_their_moves(cls, seed, observed):
    """rule CR-10, CR-11, CRS-8, CRS-9: a whole match played through `actions`: each board
    judges to the bot's move, or (for captures) to captures leaving the same row; `end` with
    no trace is read with the next placement. Scores equal the engine's. Observed, the table's
    engine guesses another deal (seed + 50) and follows the tiles it sees."""
    options = {"hands": 2} if cls is CastleRock else {}
    players = 3 if cls is CastleRock else None
    game = cls(players=players, options=options, seed=seed + 50 * observed, observed=observed)
    ref = cls(players=players, options=options, seed=seed, observed=observed)
    bot = random_bot(random.Random(seed))
    reader, layout = laid(game)
    hands = catalog.hands_for(ref, GEO)  # the bot's view: its own engine, one move ahead at times
    while not ref.is_over():
        move = bot(ref)
        actions = hands.actions(move, layout.board())
        hand = ref.hand_number() if isinstance(ref, CastleRock) else 0
        ref.push(move)
        if move == END and (ref.is_over() or ref.hand_number() != hand):
            game.push(END)  # the last turn of a hand ends with the button, then the new row
        elif not actions:
            continue  # `end` mid-hand: the next placement shows it
        if reader.pad_draw() is not None:
            verdict = read_draw(reader, layout, actions)
        else:
            layout.apply_all(actions)
            verdict = reader.judge(layout.board())
        assert verdict.problem is None, verdict.problem
        for m in verdict.moves:
            game.push(m)
        assert reader.shown_row() == hands.reader.shown_row()
        assert reader.judge(layout.board()).same
    assert game.is_over() and game.scores == ref.scores


def test_crs8_draw_is_a_new_tile_at_the_right_end():
    """rule CRS-4.1, CRS-8.2: the boneyard's next tile at the open end is a draw."""
    game = CastleRockSolitaire(seed=2)
    reader, layout = laid(game)
    nxt = game.deck().tiles[3]
    verdict = verdict_after(reader, with_tiles(layout), Action(ActionKind.PLACE, nxt, column(5)))
    assert verdict.moves == (DRAW,)
    other = next(t for t in game.dset.tiles if t not in game.row() and t is not nxt)
    layout.place(other, column(5))
    assert reader.judge(layout.board()).problem == f"take {other} off the row: the boneyard's next tile is {nxt} (rule CRS-4.1)"
    assert reader.button_moves() == []


def test_crs4_2_draw_when_blocked_with_a_capture_available():
    """rule CRS-4.2: with draw=when-blocked a draw while a capture is open is refused."""
    game = CastleRockSolitaire(options={"draw": "when-blocked"}, seed=0)
    while not next((m for m in game.legal_moves() if m != DRAW), None):
        game.push(DRAW)
    reader, layout = laid(game)
    layout.place(game.deck().rest[0], column(len(game.row())))
    problem = reader.judge(layout.board()).problem
    assert problem.startswith(f"take {game.deck().rest[0]} off the row: draw only when no capture")
    assert problem.endswith("(rule CRS-4.2)")


def test_layout_cells_are_the_virtual_tags():
    """The in-memory layout reports each half's virtual UID on its cell."""
    layout = MemoryTray(REGISTRY, GEO)
    layout.place(T("3-5"), column(0))
    cells = layout.cells()
    assert cells[column(0)[0]] == (wire.TAG, virtual_uid(Half(T("3-5"), 0)))
    assert cells[column(0)[1]] == (wire.TAG, virtual_uid(Half(T("3-5"), 1)))


def test_cr10_8_observed_lots_over_the_scan_pad_then_the_starting_row():
    """rule CR-10.8, CR-11.1, CR-11.2: observed, the tiles drawn for dealer are read over the
    scan pad seat by seat with the row clear, pushed as `lots`; then the starting row is read
    from the row band. Until then the verdict is a note, not a problem."""
    game = CastleRock(players=3, seed=9, observed=True)
    reader = catalog.reader_for(game, GEO)
    layout = MemoryTray(REGISTRY, GEO)
    verdict = reader.judge(layout.board())
    assert verdict.same and verdict.note == "draw for dealer over the scan pad, one player at a time"
    assert reader.expected() == "an empty row; then the draw for dealer over the scan pad (3 players)"
    draw = reader.pad_draw()
    assert (draw.seats, draw.what, draw.rule) == ((0, 1, 2), "for dealer", "CR-10.8")
    layout.place(T("4-4"), column(0))
    assert reader.judge(layout.board()).problem == ("clear the row: the tiles drawn for dealer are read over "
                                                     "the scan pad (rule CR-10.8)")
    layout.apply(Action(ActionKind.REMOVE, T("4-4")))
    lots = game.parse_move("lots 0-1 6-6 2-3")
    actions = hands_of(reader).actions(lots, layout.board())
    assert [a.kind for a in actions] == ["pad", "unpad"] * 3
    assert read_draw(reader, layout, actions).moves == (lots,)
    game.push(lots)
    assert reader.pad_draw() is None
    assert reader.judge(layout.board()).note == "lay out the starting row (4 tiles) upright in the row, left to right"
    for i, tile in enumerate(ROW("1-6 0-6 0-0")):
        layout.place(tile, column(i))
    assert reader.judge(layout.board()).same
    layout.place(T("6-6"), column(3))  # a tile drawn for dealer, back in the boneyard and dealt again
    (row,) = reader.judge(layout.board()).moves
    assert str(row) == "row 1-6 0-6 0-0 6-6"


def test_cr10_8_observed_new_hand_waits_for_the_old_row_to_go():
    """rules CR-10.8, CR-11.2, CR-11.5: at a new observed hand the old row must be cleared before
    the new starting row is read: its leftovers are never the new row, and once the deal is
    recorded a new row made of the old row's tiles is read (it used to wait for ever)."""
    for seed in range(9, 60):  # a first hand that leaves more tiles in the row than a starting row
        game = CastleRock(players=3, seed=9, observed=True)
        game.push(game.parse_move("lots 0-1 6-6 2-3"))
        game.push(game.parse_move("row 1-6 0-6 0-0 4-6"))
        bot = random_bot(random.Random(seed))
        while game.awaiting() is None:  # play the first hand out
            game.push(bot(game))
        if len(game.last_hand().row) > 4:
            break
    reader = catalog.reader_for(game, GEO)
    layout = MemoryTray(REGISTRY, GEO)
    old = game.last_hand().row
    for k, tile in enumerate(old):  # the old row, still on the tray
        layout.place(tile, column(k % 16, band=k // 16))
    assert reader.judge(layout.board()).note == (f"new hand: gather the tiles ({len(old)} left), then lay out the "
                                                 f"starting row (4 tiles) (rule CR-10.12)")
    for tile in old[:-4]:
        layout.apply(Action(ActionKind.REMOVE, tile))
    verdict = reader.judge(layout.board())  # four leftovers: never the new row
    assert verdict.same and verdict.note.startswith("new hand: gather the tiles (4 left)")
    layout.apply_all(hands_of(reader).setup(layout.board()))
    assert layout.tiles == {} and reader.judge(layout.board()).moves == (DEAL,)  # rule CR-11.5
    game.push(DEAL)
    assert reader.judge(layout.board()).note.startswith("lay out the starting row")
    for k, tile in enumerate(old[-4:][::-1]):  # the same tiles dealt again as the new row: read, now
        layout.place(tile, column(k))
    assert reader.judge(layout.board()).moves == (Reveal("row", tuple(old[-4:][::-1])),)


def test_cr10_2_a_tile_stood_past_a_gap_is_at_the_open_end():
    """rules CR-10.2, CR-10.4 (issue 18's tile four columns past an open end, read as the card's
    ambiguity list says): empty columns do not count anywhere in the row, so a new tile standing
    after a gap is the placement, and closing the gap later is no move."""
    game = rigged("1-6 0-6 0-0", ["1-4 3-3", "5-5 6-6"])
    reader, layout = laid(game)
    layout.place(T("1-4"), column(7))  # the row ends at column 2
    verdict = reader.judge(layout.board())
    assert verdict.moves == (place(T("1-4")),)
    game.push(verdict.moves[0])
    assert reader.judge(with_tiles(layout, t1_4=column(3)).board()).same


def test_regression_cr10_12_the_deal_waits_for_the_captured_tiles_too():
    """Issue 28, Why 5: a hand ended with its row captured; the next deal was recorded in the same
    second (the row bands were empty) and a bot's rack was asked for "2 tiles from the boneyard"
    while all 28 tiles still lay on the tray. The deal waits for every tile of the last hand,
    counted: "gather the tiles (N left)" (CR-10.12)."""
    game = CastleRock(players=2, seed=3, observed=True)
    game.push(game.parse_move("lots 0-1 6-6"))
    while not game.awaiting() == "deal":
        game.push(next(m for m in game.legal_moves()))
    reader = catalog.reader_for(game, GEO)
    layout = MemoryTray(REGISTRY, GEO)
    captures = sorted(GEO.zone("captures"))
    layout.place(T("2-5"), (captures[0], captures[1]))  # a captured tile, beside the empty row bands
    assert reader.judge(layout.board()).note == ("new hand: gather the tiles (1 left), then lay out the starting "
                                                 "row (4 tiles) (rule CR-10.12)")
    layout.apply(Action(ActionKind.REMOVE, T("2-5")))
    assert reader.judge(layout.board()).moves == (DEAL,)


def test_regression_cr10_13_the_row_lifted_on_the_last_turn_says_end_turn_first():
    """Issue 28, Why 5: on Castle Rock's last turn of a hand, lifting the row (to gather it) was
    refused with "put 1-4 3-4 0-6 back ... (rule CR-5.3)", never saying End turn comes first."""
    game = CastleRock.from_position("row: 1-6 0-6 0-0 2-3\nP1:\nP2:\nplaced\nboneyard:\ncaptured: 12 12")
    reader, layout = laid(game)
    for tile in ("1-6", "0-6", "0-0"):
        layout.apply(Action(ActionKind.REMOVE, T(tile)))
    problem = reader.judge(layout.board()).problem
    assert problem.startswith("End turn first: every tile is played, and End turn scores the hand (rule CR-10.13); "
                              "put "), problem
