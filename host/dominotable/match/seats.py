"""The seats the table plays, with real tiles: what their racks must hold and what they do next.

A seat is a kind (`SeatKind`): a person plays it, or the table does. A bot keeps its hand face
down in its rack on the tray (tray.toml `[racks]`), so the readers see it and the players do
not; a person lays its tiles as the table says, and its turn comes from its strategy (`decide`;
the strategy is the bot's strength). A remote seat sits at another table (match/remote.py,
`partner`): its turn comes from that table's moves, and in observed play its tiles come from
this table's boneyard (no rack).

`TableSeats` holds what does not change in a match (the racks' cells, the names, the seed, the
game's hands, each seat's strategy) and answers questions about a Position (position.py) without
changing anything but the Position it is given, which is the judge's copy:

- `read(p, board)`: the board without the racks, a problem with a rack (a tile gone from its slot
  that is not the one the seat plays, a tile in the wrong slot, a tile too many), and the tiles
  laid in the next free slot of a short hand (the deal, a draw), as Deal effects;
- `turn(p)`: what is left of the seat to move's turn, with the Plan effect that records a new one;
- `vet(p, moves)`: why moves read off the tray are not the turns the seats were told to make;
- `traceless(p)`: a move the table makes itself (the end of a bot's turn, a pass, a reveal its
  rack makes);
- `short(p)`: what the racks wait for, as instructions;
- `why_not(p, move)`: why the hand the racks leave a person rules out their pass (a tile of it
  fits).

The seats answer with values: a problem is a `Wrong` (reading/instruction.py) naming the fix, the
tiles, slots and cells, and the move the seat makes instead; what a person must do for a seat is
steps.py's, and the words are the prompt voice's (reading/prompts.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum

from dominotray import wire

from dominotable.match.position import Deal, Plan, Position
from dominotable.match.remote import Partner
from dominotable.reading.instruction import Do, Fix, Instruction, Step, Wrong
from dominotable.rules.errors import DominoError, IllegalMove
from dominotable.rules.game import Game, Move
from dominotable.rules.moves import Pass
from dominotable.rules.seat_view import hand_size, seat_view, unseen
from dominotable.rules.tiles import Tile
from dominotable.sim.bots.shared import Strategy
from dominotable.sim.bots.turn import decide
from dominotable.sim.hands.base import Hands
from dominotable.tray.board import Board, Placement
from dominotable.tray.geometry import Rack


class SeatKind(StrEnum):
    HUMAN = "human"  # a person at this table plays the seat
    BOT = "bot"  # the table plays it with the bots' strategy
    REMOTE = "remote"  # a person at the partner table plays it; the table lays its moves here


class TableSeats:
    def __init__(self, racks: Sequence[Rack], kinds: Sequence[SeatKind], names: Sequence[str], seed: int,
                 hands: Hands, strategies: Mapping[int, Callable[[random.Random], Strategy]],
                 partner: Partner | None = None):
        """`strategies`: the strategy of each bot seat; `partner`: the other table, in a match two
        tables play."""
        self.geometry = hands.geometry
        self.names = list(names)
        self.seed = seed
        self.strategies = dict(strategies)
        self.partner = partner
        self.remote = frozenset(seat for seat, kind in enumerate(kinds) if kind == SeatKind.REMOTE)
        game = hands.game
        played = [seat for seat, kind in enumerate(kinds) if kind == SeatKind.BOT]
        if any(seat >= len(racks) for seat in played):
            raise DominoError(f"this tray has racks for {len(racks)} of {game.title}'s seats, not for its bot "
                              f"seats {', '.join(names[seat] for seat in played)}: see [racks] in tray.toml")
        self.racks: dict[int, Rack] = {seat: racks[seat] for seat in played}
        self._cells = {c: seat for seat, rack in self.racks.items() for c in rack.cells}
        self._slot_of = {slot: (seat, k + 1) for seat, rack in self.racks.items() for k, slot in enumerate(rack.slots)}
        self.hands = hands
        hands.keep_clear(frozenset(self._cells))
        self._decided: dict[tuple, list[Move]] = {}  # the last turns worked out (`_decide`)

    @property
    def playing(self) -> bool:
        """Whether the table plays any seat (without, it is the null seats: every question has the
        answer of a table of people alone)."""
        return bool(self.racks or self.remote)

    def plays(self, seat: int | None) -> bool:
        """Whether the table plays `seat` (a bot, its tiles in a rack, or a remote seat)."""
        return seat in self.racks or seat in self.remote

    # -- the racks ------------------------------------------------------------------------------

    def without_racks(self, board: Board) -> tuple[Board, dict[int, dict[int, Tile]], Placement | None]:
        """The board without the racks, the tiles in each rack's slots, and a tile lying on a rack
        in no slot."""
        if not self._cells:  # no rack: the board as it is
            return board, {}, None
        cells = list(board.cells)
        found: dict[int, dict[int, Tile]] = {seat: {} for seat in self.racks}
        stray: Placement | None = None
        for p in board.placements:
            if not any(c in self._cells for c in p.cells):
                continue
            where = self._slot_of.get(tuple(p.cells)) or self._slot_of.get(tuple(reversed(p.cells)))
            if where is None:
                stray = stray or p
            else:
                found[where[0]][where[1]] = p.tile
            for c in p.cells:
                cells[c] = (wire.EMPTY, b"")
        return Board(cells, board.registry, board.geometry), found, stray

    def read(self, p: Position, board: Board) -> tuple[Board, Wrong | None, list[Deal]]:
        """The board without the racks, the first problem with a rack (None if they hold what they
        should), and the tiles newly laid in them (applied to `p`)."""
        rest, found, stray = self.without_racks(board)
        dealt: list[Deal] = []
        if stray is not None:
            seat = self._cells[next(c for c in stray.cells if c in self._cells)]
            return rest, Wrong(Fix.STRAY, self.names[seat], cells=tuple(stray.cells)), dealt
        on_table = {q.tile for q in rest.placements}
        for seat in self.racks:
            problem = self._check(p, seat, found[seat], on_table, rest, dealt)
            if problem is not None:
                return rest, problem, dealt
        return rest, None, dealt

    def _check(self, p: Position, seat: int, rack: dict[int, Tile], on_table: set[Tile], board: Board,
               dealt: list[Deal]) -> Wrong | None:
        hold, name = p.holds[seat], self.names[seat]

        def wrong(fix: Fix, *slots: int, **more) -> Wrong:
            return Wrong(fix, name, slots=slots, cells=self.slot_cells(seat, slots), **more)

        for slot, tile in list(hold.spent.items()):
            if rack.get(slot) is not tile:
                dealt.append(Deal(seat, slot, None))
                p.apply(dealt[-1])
        playing = self._playing(p, seat, board)
        pad = board.on_pad()
        for slot, tile in sorted(hold.rack.items()):
            if rack.get(slot) is tile:
                continue
            moved = next((k for k, t in rack.items() if t is tile), None)
            if moved is not None:
                return wrong(Fix.SWAPPED, moved, slot)
            if pad is not None and pad.tile is tile:  # a bot shows nothing (BW-11.4): its tile slipped
                return Wrong(Fix.OFF_PAD, name, slots=(slot,), cells=tuple(pad.cells) + self.slot_cells(seat, [slot]))
            if tile is playing:
                if tile in on_table:
                    continue  # on its way to where the seat plays it
                return wrong(Fix.UNREAD, slot)
            if tile in on_table and playing is not None:
                return wrong(Fix.RETURN, slot, hold.slot(playing))
            return wrong(Fix.RETURN, slot)
        game = p.game
        short = hand_size(game, seat) - len(hold.rack)
        for slot, tile in sorted(rack.items()):
            if slot in hold.rack or tile in hold.rack.values() or slot in hold.spent:
                continue
            if hold.played.get(len(game.moves)) == (slot, tile):
                continue  # back where the last move took it from: a takeback
            if short <= 0:
                return wrong(Fix.EXTRA, slot, count=len(hold.rack))
            free = self.free_slots(p, seat)[0]
            if slot != free:
                return Wrong(Fix.NEXT_SLOT, name, slots=(free,), cells=self.slot_cells(seat, [slot, free]))
            if tile not in unseen(game) or any(tile in h.rack.values() for h in p.holds.values()):
                return wrong(Fix.IN_PLAY, slot, tiles=(tile,))
            dealt.append(Deal(seat, slot, tile))
            p.apply(dealt[-1])
            short -= 1
        return None

    def free_slots(self, p: Position, seat: int) -> list[int]:
        hold = p.holds[seat]
        taken_slots = hold.rack.keys() | hold.spent.keys()
        return [k for k in range(1, len(self.racks[seat].slots) + 1) if k not in taken_slots]

    def slot_cells(self, seat: int, slots) -> tuple[int, ...]:
        """The cells of `seat`'s rack slots (numbered from 1)."""
        return tuple(c for k in slots for c in self.racks[seat].slots[k - 1])

    def short(self, p: Position) -> list[Instruction]:
        """What the racks wait for: tiles dealt or drawn to a seat not yet in its rack, a finished
        hand's tiles still in one. The deal waits for the last hand's tiles to be gathered off the
        tray: they are the boneyard it is dealt from (in Broadway every tile is on the tray)."""
        notes = []
        gathering = p.game.awaiting() == "deal"
        for seat in self.racks:
            hold = p.holds[seat]
            if hold.spent:
                step = Step(Do.EMPTY, slots=tuple(sorted(hold.spent)))
            else:
                missing = hand_size(p.game, seat) - len(hold.rack)
                if missing <= 0 or gathering:
                    continue
                step = Step(Do.DEAL, slots=tuple(self.free_slots(p, seat)[:missing]), count=missing)
            notes.append(Instruction(seat, self.names[seat], (step,), table=True))
        return notes

    def expected(self, p: Position) -> dict[str, tuple[int, ...]]:
        """For "restore the table": each rack's name and the slots its tiles lie in (hidden)."""
        return {self.names[seat]: tuple(sorted(h.rack)) for seat, h in p.holds.items() if h.rack}

    # -- the turn -------------------------------------------------------------------------------

    def turn(self, p: Position, board: Board | None = None) -> tuple[list[Move], Plan | None]:
        """What is left of the turn of the seat to move (empty when a person is to move or a rack
        is short), and the Plan effect recording it when it is a new plan."""
        game = p.game
        seat = game.current_player
        if seat not in self.racks or game.is_over() or game.awaiting() or len(p.holds[seat].rack) < hand_size(game, seat):
            return [], None
        ply = len(game.moves)
        plan = p.holds[seat].plan
        if plan is not None and plan.start <= ply:
            done = [str(m) for m in game.moves[plan.start:]]
            if len(done) < len(plan.moves) and done == [str(m) for m in plan.moves[:len(done)]]:
                # a capture whose tiles were all taken off on their own (in another order) is done
                taken = {t for m in game.moves[plan.start:] for t in m.taken()}
                rest = [m for m in plan.moves[len(done):] if not (m.taken() and set(m.taken()) <= taken)]
                if rest:
                    return rest, None
        moves = self._decide(game, seat, p.holds[seat].hand(), board)
        return moves, Plan(seat, ply, tuple(moves))

    def _decide(self, game: Game, seat: int, hand: list[Tile], board: Board | None) -> list[Move]:
        """The seat's turn from its strategy, worked out once for a position, a hand and, when the
        strategy's move has no room on the tray, the tray. Until its plan is stored (a rack to put
        right, a bot's tile to lay again, a store refusing writes) the turn is asked for on every
        read of the tray and every screen, and a search bot's turn is the slowest thing the table
        works out (README, "bot seats and hints": 241 ms median in Broadway on the development machine)."""
        key = (seat, tuple(map(str, game.moves)), tuple(hand))
        moves = self._remember(key, lambda: decide(game, seat, hand, self.seed, self.strategies[seat]))
        hands = self.hands.on(game.copy())
        if board is None or _fits(hands, moves[0], board):
            return moves
        where = tuple((q.tile, q.cells) for q in board.placements)
        return self._remember((key, where), lambda: decide(game, seat, hand, self.seed, self.strategies[seat],
                                                            lambda move: _fits(hands, move, board)))

    def _remember(self, key: tuple, work: Callable[[], list[Move]]) -> list[Move]:
        if key not in self._decided:
            self._decided[key] = work()
            while len(self._decided) > 8:  # the turns of the seats about to play, no more
                del self._decided[next(iter(self._decided))]
        return list(self._decided[key])

    def _playing(self, p: Position, seat: int, board: Board) -> Tile | None:
        """The tile of `seat`'s rack it plays next: on its turn, or once the person to move has
        finished (`implied`)."""
        game = p.game
        if game.current_player == seat:
            turn, _ = self.turn(p, board)
            return turn[0].placed() if turn else None
        end = self.implied(p)
        if end is None:
            return None
        after = p.copy()
        after.game.push(end)
        turn, _ = self.turn(after, board) if after.game.current_player == seat else ([], None)
        return turn[0].placed() if turn else None

    def implied(self, p: Position) -> Move | None:
        """The move that ends a person's turn when the next seat's placement is read (CR-10.5), if
        the person to move may make it now."""
        game = p.game
        if self.plays(game.current_player) or game.awaiting():
            return None
        return next((m for m in self.hands.reader.implied if game.is_legal(m)), None)

    def traceless(self, p: Position, board: Board) -> tuple[Move | None, Plan | None]:
        """The next move of the seat to move, if it leaves no trace on the tray (the end of its
        turn, a pass: the table makes it); or a reveal the racks make (who leads, tiles left)."""
        game = p.game
        if game.awaiting():
            complete = self._complete(p)
            return self.hands.on(game.copy()).rack_reveal(complete, board, len(complete) == len(self.racks)), None
        turn, plan = self.turn(p, board)
        return (turn[0] if turn and not turn[0].placed() and not turn[0].taken() else None), plan

    def _complete(self, p: Position) -> dict[int, list[Tile]]:
        """The racks holding their seat's whole hand, by seat."""
        game = p.game
        return {seat: h.hand() for seat, h in p.holds.items()
                if hand_size(game, seat) and len(h.rack) == hand_size(game, seat)}

    def why_not(self, p: Position, move: Move) -> IllegalMove | None:
        """Why a button move the engine allows may not be made at this table. A tile shown as a
        seat's that the racks say is not (BW-11.4). A pass by the person to move, asked of their own
        view of the game when the racks tell their hand: they are the one person at the table, every
        rack is complete, and no tile is left to draw, so their hand is what no rack holds of the
        tiles unseen. The engine sees no rack: a pass it took from a person holding a tile that fits
        would later rule out a bot's own tile (BW-10.3), and the bot could not play."""
        game = p.game
        seat = game.current_player
        shown = self._shown_elsewhere(p, move)
        if shown is not None:
            return shown
        complete = self._complete(p)
        denied = self.hands.on(game.copy()).racks_deny(move, complete, len(complete) == len(self.racks))
        if denied is not None:
            return denied
        if not isinstance(move, Pass) or seat is None or self.plays(seat) or game.awaiting() or game.is_over():
            return None
        hidden = unseen(game)
        hand = hidden - {t for h in p.holds.values() for t in h.rack.values()}
        people = [k for k in range(game.players) if not self.plays(k)]
        if people != [seat] or len(hidden) != sum(hand_size(game, k) for k in range(game.players)):
            return None  # more than one person, or tiles left to draw: the hand cannot be told
        if len(hand) != hand_size(game, seat):  # a bot's tile out of its rack: not yet
            return IllegalMove("a pass waits until every bot's rack is full again, so the table can tell "
                               f"{self.names[seat]}'s tiles", "BW-11.8")
        return seat_view(game, seat, sorted(hand), random.Random(self.seed)).why_illegal(move)

    def _shown_elsewhere(self, p: Position, move: Move) -> IllegalMove | None:
        """Why a tile shown as a seat's (Broadway's exposure, BW-7: a move with a `seat` and a `tile`)
        is no exposure at this table: a tile of a bot's rack is never one. A bot shows nothing: its
        tile over the pad slipped from the hand of the person handling its rack, and goes back to
        its slot (taken as exposed, its opponents would place it, and the rack would wait for it).
        A tile shown as a bot's that its rack does not hold is a person's own."""
        owner, tile = getattr(move, "seat", None), getattr(move, "tile", None)
        if not isinstance(owner, int) or tile is None:
            return None
        holder = next((k for k, hold in p.holds.items() if tile in hold.rack.values()), None)
        if holder is not None:
            return IllegalMove(f"{tile} lies in {self.names[holder]}'s rack: a bot's tile is never exposed, "
                               f"put it back in slot {p.holds[holder].slot(tile)}", "BW-11.4", tile)
        if owner in self.racks:
            return IllegalMove(f"{self.names[owner]}'s rack does not hold {tile}", "BW-11.4", tile)
        return None

    def vet(self, p: Position, moves: Sequence[Move], board: Board) -> tuple[Wrong | None, list[Plan]]:
        """Why the moves read off the tray are not the turns the seats were told to make, and the
        plans they make or reorder (a seat's captures taken in another order: its turn goes on
        from the tray's)."""
        p, plans = p.copy(), []
        for move in moves:
            seat = p.game.current_player
            if self.partner is not None and self.partner.theirs(p.game, move):
                return self.not_made(p, move), []  # the partner's moves come first when due (judge.py)
            if self.plays(seat) and not p.game.awaiting():
                wanted, plan = self.turn(p, board)
                if plan is not None:
                    plans.append(plan)
                    p.apply(plan)
                problem = self._differs(p, seat, move, wanted, board)
                if problem is not None:
                    return problem, []
                if move.taken() and wanted and wanted[0].taken() and move != wanted[0]:
                    plans.append(self._reorder(p, seat, wanted, move))
                    p.apply(plans[-1])
            p.game.push(move)
        return None, plans

    def not_made(self, p: Position, move: Move) -> Wrong:
        """What to undo of `move`, the partner's, read off the tray before the partner made it."""
        who = self.partner.waited(p.game, self.names)
        if move.placed() is not None:
            return Wrong(Fix.NOT_PLAYED, who, (move.placed(),))
        if move.taken():
            return Wrong(Fix.NOT_TAKEN, who, tuple(move.taken()))
        return Wrong(Fix.WAIT, who)

    def astray(self, p: Position, moves: Sequence[Move], plan: Sequence[Move], board: Board) -> Wrong | None:
        """Why `moves`, read off the tray while the partner is to move, are not (a start on) its
        `plan`; None if they may be: its captures being taken off one by one, or a tile of ours
        laid before the end of the partner's turn is heard (it is read again then)."""
        placed = {m.placed() for m in plan if m.placed() is not None}
        taken = {t for m in plan for t in m.taken()}
        game = p.game.copy()
        for move in moves:
            if not self.partner.theirs(game, move):
                return None
            tile, who = move.placed(), self.partner.waited(game, self.names)
            wrong = [t for t in move.taken() if t not in taken]
            if not plan and (tile is not None or wrong):
                return self.not_made(p, move)
            if tile is not None and tile not in placed:
                return Wrong(Fix.NOT_PLAYED, who, (tile,))  # told: the partner's next step, without the tile
            if wrong:
                return Wrong(Fix.PUT_BACK, who, tuple(wrong), taken=tuple(taken))
            if tile is None and not move.taken() and plan and str(move) != str(plan[0]):
                return Wrong(Fix.NOT_AS_PARTNER, f"table {self.partner.table}")  # a reveal laid otherwise (a row)
            game.push(move)
        return None

    def _differs(self, p: Position, seat: int, move: Move, wanted: list[Move], board: Board) -> Wrong | None:
        name = self.names[seat]
        if not wanted:
            short = self.short(p)
            return Wrong(Fix.NOT_READY, name, slots=short[0].slots if short else (),
                         told=short[0] if short else None)
        if str(move) == str(wanted[0]):
            return None
        planned = [t for m in wanted for t in m.taken()]
        tile = move.placed()

        def wrong(fix: Fix, tiles, told: bool = True, **more) -> Wrong:
            return Wrong(fix, name, tuple(tiles), seat=seat, move=wanted[0] if told else None, **more)

        if move.taken() and set(move.taken()) <= set(planned):
            if _within_one(wanted, move) or self._regrouped(p, wanted, move) is not None:
                return None  # the same captures, taken in another order
            return wrong(Fix.OTHER_WAY, move.taken())
        if tile is not None and wanted[0].placed() is tile:
            return wrong(Fix.ELSEWHERE, (tile,))  # the wrong end, or turned round
        if tile is not None:
            return wrong(Fix.TAKE_OFF, (tile,), told=wanted[0].placed() is not None)
        if move.taken():
            return wrong(Fix.PUT_BACK, [t for t in move.taken() if t not in planned], told=False,
                         taken=tuple(planned))
        return wrong(Fix.NOT_NOW, ())

    def _reorder(self, p: Position, seat: int, wanted: list[Move], move: Move) -> Plan:
        plan = p.holds[seat].plan
        done = len(plan.moves) - len(wanted)
        if _within_one(wanted, move):  # provisional: undone when the rest is said, read whole once off
            rest = [m for m in wanted if not (m.taken() and set(m.taken()) <= set(move.taken()))]
        else:
            rest = self._regrouped(p, wanted, move)
        return Plan(seat, plan.start, plan.moves[:done] + (move, *rest))

    @staticmethod
    def _regrouped(p: Position, wanted: list[Move], move: Move) -> list[Move] | None:
        """The rest of the turn after `move`, a capture of tiles from several planned captures: the
        planned tiles still on the row taken by captures legal after it, then what the plan does
        after its captures; None if the row no longer lets them be taken."""
        after = p.game.copy()
        after.push(move)
        # the planned tiles still on the row: not this move's, nor any an earlier reading took (a
        # capture begun alone stays in the plan, provisional, until the whole is read)
        gone = {t for m in after.moves for t in m.taken()}
        left = {t for m in wanted for t in m.taken()} - gone
        captures = _captures(after, frozenset(left))
        return None if captures is None else captures + [m for m in wanted if not m.taken()]


def _within_one(wanted: Sequence[Move], move: Move) -> bool:
    """Whether the tiles `move` captures are all in one capture of the plan (a start on it)."""
    return any(set(move.taken()) <= set(m.taken()) for m in wanted if m.taken())


def _captures(game: Game, left: frozenset[Tile]) -> list[Move] | None:
    """Legal captures, one after another, that take exactly the tiles `left` (judged on copies)."""
    if not left:
        return []
    for move in game.legal_moves():
        taken = set(move.taken())
        if taken and taken <= left:
            after = game.copy()
            after.push(move)
            rest = _captures(after, left - taken)
            if rest is not None:
                return [move, *rest]
    return None


def _fits(hands: Hands, move: Move, board: Board) -> bool:
    try:
        hands.actions(move, board)
    except DominoError:  # no room for it, or the tray does not show the position (hands at work)
        return False
    return True
