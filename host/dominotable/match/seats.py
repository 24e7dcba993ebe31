"""Bot seats at the physical table: the seats the table plays, with real tiles.

A bot's hand lies face down in its rack on the tray (tray.toml `[racks]`), one tile per numbered
slot, so the readers see it and the players do not. `BotSeats` keeps, for one match, what each
bot's rack holds (`known`, slot -> tile, saved in the store as it changes), and:

- `read(board)`: the board without the racks (what the game's reader judges) and a problem with
  a rack, if any: a tile gone from its slot that is not the one the bot is playing, a tile in the
  wrong slot, a tile too many. A tile laid in the next free slot while the bot's hand is short
  (the deal, a draw from the boneyard) becomes the bot's.
- `instruction(board)`: the one thing a person must do for a bot now, short enough for the OLED
  (`Said`: the bot's name for the title, then the step): its next step ("slot 2 (3-5) -> upright
  at the open end, r4c6-r5c6", then "take 2-4 and 4-4 off the row"), else a tile its rack waits
  for ("a tile from the boneyard, face down, into slot 1"), else, while a person may still end a
  turn that the next bot's placement ends (CR-10.5), that bot's step "after ANN: ...".
- `vet(moves)`: why the moves read off the tray are not the bots' turns as they were said.
- `traceless()`: a bot's move that leaves nothing on the tray (the end of its turn, a pass) or a
  reveal its rack makes (Broadway: who leads, a bot's tiles left), which the table makes itself.
- `played(...)` / `taken_back(ply)`: a tile a bot played leaves its rack, and comes back with a
  takeback.

A bot decides on a view of the game made from what its seat can see: its own rack, the tiles on
the table, and every other unseen tile dealt at random (seeded by the match's seed and the move
number, so a resumed match plays on alike). `decide` is the one place the strategy is chosen.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

from dominotray import wire

from dominotable.games import catalog
from dominotable.reading.prompts import span
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game
from dominotable.rules.games.castle_rock.capture import Capture
from dominotable.rules.moves import Move
from dominotable.rules.seat_view import hand_size, seat_view, unseen
from dominotable.rules.tiles import Tile
from dominotable.sim.hands.base import Hands, NoRoom
from dominotable.sim.memtray import MemoryTray
from dominotable.store.storage import Store
from dominotable.tray.action import ActionKind
from dominotable.tray.board import Board, Placement
from dominotable.tray.geometry import Geometry, Rack

STRATEGIES = ("search", "lookahead", "greedy")  # the first a game has is the bots' strategy


def strategy_name(game: Game) -> str:
    strategies = catalog.spec(game).strategies
    return next(name for name in STRATEGIES if name in strategies)


def decide(game: Game, seat: int, hand: Sequence[Tile], seed: int, fits=None) -> list[Move]:
    """The moves `seat` makes this turn (to the end of its turn, or the match), chosen by the
    bots' strategy on the seat's view; the same position and hand always give the same turn.
    `fits(move)`: whether the tray has room for the first move; if not, the first legal move that
    fits, as a player would choose (a Broadway tableau outgrowing its zone)."""
    rng = random.Random(f"{seed}:{len(game.moves)}")
    view = seat_view(game, seat, hand, rng)
    choose = catalog.spec(game).strategies[strategy_name(game)](rng)
    turn: list[Move] = []
    hand = view.hands_played()
    while not view.is_over() and view.current_player == seat and view.hands_played() == hand and len(turn) < 64:
        move = choose(view)
        if fits is not None and not turn and not fits(move):
            move = next((m for m in view.legal_moves() if fits(m)), move)
        turn.append(move)
        view.push(move, trusted=True)
        if not _placed(move) and not _taken(move):
            break  # a move that ends the turn (the seat may be the next to move again)
    return turn


def _placed(move: Move) -> Tile | None:
    """The tile a move places from its player's hand, if it does."""
    tile = getattr(move, "tile", None)
    return tile if isinstance(tile, Tile) else None


def _taken(move: Move) -> tuple[Tile, ...]:
    """The tiles a capture takes (none for other moves)."""
    return move.tiles if isinstance(move, Capture) else ()


class BotSeats:
    def __init__(self, game: Game, geometry: Geometry, bots: Sequence[int], names: Sequence[str], seed: int,
                 store: Store, match_id: int, known: dict[int, dict[int, str]] | None = None):
        self.game = game
        self.geometry = geometry
        self.names = list(names)
        self.seed = seed
        self.store = store
        self.match_id = match_id
        racks = geometry.racks(game.name)
        if any(seat >= len(racks) for seat in bots):
            raise DominoError(f"this tray has racks for {len(racks)} of {game.title}'s seats, not for its bot "
                              f"seats {', '.join(names[seat] for seat in bots)}: see [racks] in tray.toml")
        self.racks: dict[int, Rack] = {seat: racks[seat] for seat in sorted(bots)}
        self.known: dict[int, dict[int, Tile]] = {
            seat: {int(slot): game.dset.parse(tile) for slot, tile in (known or {}).get(seat, {}).items()}
            for seat in self.racks}
        self._cells = {c: seat for seat, rack in self.racks.items() for c in rack.cells}
        self._slot_of = {slot: (seat, k + 1) for seat, rack in self.racks.items() for k, slot in enumerate(rack.slots)}
        self._played: dict[int, tuple[int, int, Tile]] = {}  # ply -> (seat, slot, tile) the move took from a rack
        self._plan: tuple[int, int, list[Move]] | None = None  # (seat, ply it starts at, the turn)
        self.spent: dict[int, dict[int, Tile]] = {seat: {} for seat in self.racks}  # shown, still in the rack
        self._revealing: Move | None = None  # the reveal the table made from a rack
        self.board: Board | None = None  # the tray last read, without the racks
        self.hands: Hands = catalog.hands_for(game, geometry)
        self.hands.keep_clear(frozenset(self._cells))

    def is_bot(self, seat: int | None) -> bool:
        return seat in self.racks

    # -- the racks ------------------------------------------------------------------------------

    def read(self, board: Board) -> tuple[Board, str | None]:
        """The board without the bots' racks, and the first problem with a rack (None if they
        hold what they should). A tile laid in the next free slot of a short hand is recorded."""
        rest, found, stray = self.without_racks(board)
        self.board = rest
        if stray is not None:
            seat = self._cells[next(c for c in stray.cells if c in self._cells)]
            return rest, (f"lay the tile on {span(self.geometry, stray.cells)} in one slot of "
                          f"{self.names[seat]}'s rack, or take it off the rack")
        on_table = {p.tile for p in rest.placements}
        for seat in self.racks:
            problem = self._check(seat, found[seat], on_table)
            if problem is not None:
                return rest, problem
        return rest, None

    def without_racks(self, board: Board) -> tuple[Board, dict[int, dict[int, Tile]], Placement | None]:
        """The board without the bots' racks, the tiles in each rack's slots, and a tile lying on
        a rack in no slot; records nothing."""
        cells = list(board.cells)
        found: dict[int, dict[int, Tile]] = {seat: {} for seat in self.racks}
        stray: Placement | None = None
        for p in board.placements:
            seats = {self._cells[c] for c in p.cells if c in self._cells}
            if not seats:
                continue
            where = self._slot_of.get(tuple(p.cells)) or self._slot_of.get(tuple(reversed(p.cells)))
            if where is None:
                stray = stray or p
            else:
                found[where[0]][where[1]] = p.tile
            for c in p.cells:
                cells[c] = (wire.EMPTY, b"")
        return Board(cells, board.registry, board.geometry), found, stray

    def _check(self, seat: int, rack: dict[int, Tile], on_table: set[Tile]) -> str | None:
        known, name = self.known[seat], self.names[seat]
        spent = self.spent[seat] = {k: t for k, t in self.spent[seat].items() if rack.get(k) is t}
        playing = self._playing(seat)
        for slot, tile in known.items():
            if rack.get(slot) is tile:
                continue
            moved = next((k for k, t in rack.items() if t is tile), None)
            if moved is not None:
                return f"{name}'s rack: move the tile in slot {moved} back to slot {slot}"
            if tile is playing:
                if tile in on_table:
                    continue  # on its way to where the bot plays it
                return (f"{name}: put the tile from slot {slot} where the table says, and let it be read "
                        f"before the rest of the turn")
            if tile in on_table and playing is not None:
                return (f"{name}'s rack: put the tile from slot {slot} back, face down; "
                        f"{name} plays the tile in slot {self._slot(seat, playing)}")
            return f"{name}'s rack: put the tile from slot {slot} back, face down"
        short = self.hand_size(seat) - len(known)
        for slot, tile in sorted(rack.items()):
            if slot in known or tile in known.values() or slot in spent:
                continue
            if self._played.get(len(self.game.moves)) == (seat, slot, tile):
                continue  # back where the last move took it from: a takeback
            if short <= 0:
                return f"take the tile out of slot {slot} of {name}'s rack: {name} holds {len(known)} tiles"
            free = self.free_slots(seat)[0]
            if slot != free:
                return f"{name}'s rack: put that tile in slot {free}, the next free slot"
            if tile not in unseen(self.game) or any(tile in k.values() for k in self.known.values()):
                return f"take {tile} out of {name}'s rack: it is already in play"
            known[slot] = tile
            self.store.set_rack(self.match_id, seat, slot, str(tile))
            short -= 1
        return None

    def hand_size(self, seat: int) -> int:
        """How many tiles `seat` holds now (the engine keeps every hand's size right)."""
        return hand_size(self.game, seat)

    def hand(self, seat: int) -> list[Tile]:
        """`seat`'s tiles, by slot."""
        return [self.known[seat][k] for k in sorted(self.known[seat])]

    def free_slots(self, seat: int) -> list[int]:
        taken = self.known[seat].keys() | self.spent[seat].keys()
        return [k for k in range(1, len(self.racks[seat].slots) + 1) if k not in taken]

    def _slot(self, seat: int, tile: Tile) -> int:
        return next(k for k, t in self.known[seat].items() if t is tile)

    def short(self) -> list[Said]:
        """What the racks wait for: tiles dealt or drawn to a bot not yet in its rack, a finished
        hand's tiles still in one."""
        notes = []
        for seat in self.racks:
            if self.spent[seat]:
                notes.append(Said(self.names[seat], f"hand over: take the tiles out of {_slots(self.spent[seat])}"))
                continue
            missing = self.hand_size(seat) - len(self.known[seat])
            if missing > 0:
                tiles = "a tile" if missing == 1 else f"{missing} tiles"
                notes.append(Said(self.names[seat], f"{tiles} from the boneyard, face down, into "
                                                    f"{_slots(self.free_slots(seat)[:missing])}"))
        return notes

    # -- the bot's turn -------------------------------------------------------------------------

    def turn(self) -> list[Move]:
        """What is left of the bot to move's turn (empty when a person is to move or a rack is short)."""
        game = self.game
        seat = game.current_player
        if (not self.is_bot(seat) or game.is_over() or game.awaiting()
                or len(self.known[seat]) < self.hand_size(seat)):
            return []
        ply = len(game.moves)
        if self._plan is not None and self._plan[0] == seat and self._plan[1] <= ply:
            _, start, plan = self._plan
            done = [str(m) for m in game.moves[start:]]
            if len(done) < len(plan) and done == [str(m) for m in plan[:len(done)]]:
                return plan[len(done):]
        plan = decide(game, seat, self.hand(seat), self.seed, self._fits)
        self._plan = (seat, ply, plan)
        return plan

    def _fits(self, move: Move) -> bool:
        if self.board is None:
            return True
        try:
            self.hands.actions(move, self.board)
        except NoRoom:
            return False
        return True

    def _playing(self, seat: int) -> Tile | None:
        """The tile of `seat`'s rack the bot plays next: on its turn, or once the person to move
        has finished (`implied`)."""
        game = self.game
        if game.current_player == seat:
            turn = self.turn()
            return _placed(turn[0]) if turn else None
        end = self._implied()
        if end is None:
            return None
        with game.kept():
            game.push(end)
            turn = self.turn() if game.current_player == seat else []
            return _placed(turn[0]) if turn else None

    def _implied(self) -> Move | None:
        """The move that ends a person's turn when the next bot's placement is read (CR-10.5), if
        the person to move may make it now."""
        game = self.game
        if self.is_bot(game.current_player) or game.awaiting():
            return None
        return next((m for m in self.hands.reader.implied if game.is_legal(m)), None)

    def traceless(self) -> Move | None:
        """The bot's next move, if it leaves no trace on the tray (the end of its turn, a pass: the
        table makes it); or a reveal the bots' racks make (who leads, a bot's tiles left)."""
        if self.game.awaiting():
            complete = {seat: self.hand(seat) for seat in self.racks
                        if self.hand_size(seat) and len(self.known[seat]) == self.hand_size(seat)}
            self._revealing = self.hands.rack_reveal(complete)
            return self._revealing
        turn = self.turn()
        return turn[0] if turn and not _placed(turn[0]) and not _taken(turn[0]) else None

    def instruction(self, board: Board) -> Said | None:
        """The one thing a person must do now for a bot (short enough for the OLED): the next step
        of the bot to move's turn, else a tile a rack waits for, else, while a person may still end
        a turn that the next bot's placement would end (Castle Rock), that bot's first step for when
        they have finished."""
        game = self.game
        said = self._next_step(board)
        if said is not None:
            return said
        notes = self.short()
        if notes:
            return notes[0]
        end = self._implied()
        if end is None:
            return None
        who = self.names[game.current_player]
        with game.kept():
            game.push(end)
            said = self._next_step(board) if not game.is_over() and not self.short() else None
        return Said(said.who, f"after {who}: {said.what}") if said is not None else None

    def _next_step(self, board: Board) -> Said | None:
        """The next step of the bot to move's turn on the tray (`board`), if it has one."""
        seat = self.game.current_player
        turn = self.turn()
        if not turn:
            return None
        steps = self._say(seat, self._actions(seat, turn, board))
        return Said(self.names[seat], steps[0]) if steps else None

    def _actions(self, seat: int, turn: list[Move], board: Board) -> list:
        """The physical steps of the rest of `seat`'s turn, up to the move ending it (which leaves
        no trace: the table makes it)."""
        game, tray, actions = self.game, MemoryTray.of(board), []
        with game.kept():
            for move in turn:
                if game.current_player != seat or not (_placed(move) or _taken(move)):
                    break
                try:
                    made = self.hands.actions(move, tray.board())
                except NoRoom:
                    made = []
                tray.apply_all(made)
                actions += made
                game.push(move)
        return actions

    def _say(self, seat: int, actions) -> list[str]:
        """`actions` as instructions, one step each: tiles taken one after another in one step, and
        tiles slid by one offset (the tableau moved back onto the tray) in one step."""
        steps, taken, slid = [], [], []
        for action in [*actions, None]:
            if taken and (action is None or action.kind != ActionKind.REMOVE):
                steps.append(f"take {_and(taken)} {self.hands.taking}")
                taken = []
            if slid and (action is None or action.kind != ActionKind.SLIDE):
                steps.append(self._slides(slid))
                slid = []
            if action is None:
                break
            tile = action.tile
            if action.kind == ActionKind.REMOVE:
                taken.append(tile)
            elif action.kind == ActionKind.SLIDE:
                slid.append(action)
            elif action.kind == ActionKind.PLACE:
                where = self.hands.where(action)
                if tile in self.known[seat].values():
                    steps.append(f"slot {self._slot(seat, tile)} ({tile}) -> {where}")
                else:
                    steps.append(f"put {tile} {where}")
            elif action.kind == ActionKind.PAD:
                steps.append(f"hold {tile} over the scan pad")
        return steps

    def _slides(self, slides) -> str:
        """Tiles moved by one offset as one step ("slide every tile 2 right, 1 up"), else each."""
        geo = self.geometry
        board = {p.tile: p.cells for p in self.board.placements} if self.board is not None else {}
        offsets = set()
        for action in slides:
            old = board.get(action.tile)
            if old is None:
                break
            (r0, c0), (r1, c1) = geo.coords(min(old)), geo.coords(min(action.cells))
            offsets.add((r1 - r0, c1 - c0))
        if len(offsets) == 1 and len(slides) == len(board):
            dr, dc = offsets.pop()
            moves = [f"{abs(dc)} {'right' if dc > 0 else 'left'}"] * bool(dc) + \
                    [f"{abs(dr)} {'down' if dr > 0 else 'up'}"] * bool(dr)
            return f"slide every tile {', '.join(moves)} (rule BW-11.1)"
        return "; then ".join(f"slide {a.tile} {self.hands.where(a)}" for a in slides)

    def vet(self, moves: Sequence[Move]) -> str | None:
        """Why the moves read off the tray are not the turns the bots were told to make, or None."""
        game = self.game
        with game.kept():
            for move in moves:
                seat = game.current_player
                if self.is_bot(seat) and not game.awaiting():
                    wanted = self.turn()
                    problem = self._differs(seat, move, wanted)
                    if problem is not None:
                        return problem
                    if _taken(move) and wanted and _taken(wanted[0]) and move != wanted[0]:
                        self._reorder(wanted, move)
                game.push(move)
        return None

    def _differs(self, seat: int, move: Move, wanted: list[Move]) -> str | None:
        name = self.names[seat]
        if not wanted:
            return f"{name}'s rack is not ready: " + "; ".join(f"{n.who}: {n.what}" for n in self.short())
        if str(move) == str(wanted[0]):
            return None
        planned = [t for m in wanted if _taken(m) for t in _taken(m)]
        if _taken(move) and set(_taken(move)) <= set(planned):
            return None  # the same captures, taken in another order
        placed, told = _placed(move), self._what(seat, wanted[0])
        if placed is not None and _placed(wanted[0]) is placed:
            return f"{name} plays {placed} elsewhere: {told}"  # the wrong end, or turned round
        if placed is not None:
            return f"take {placed} off: {name} {'plays ' + told if _placed(wanted[0]) else 'places no tile now'}"
        if _taken(move):
            wrong = [t for t in _taken(move) if t not in planned]
            return f"put {_and(wrong)} back: {name} takes " + (_and(planned) if planned else "nothing")
        return f"{name} does not do that now: {told}"

    def _what(self, seat: int, move: Move) -> str:
        """`move` as the instruction says it (its engine notation if it leaves no trace)."""
        try:
            steps = self._say(seat, self.hands.actions(move, self.board)) if self.board is not None else []
        except NoRoom:
            steps = []
        return "; then ".join(steps) or str(move)

    def _reorder(self, wanted: list[Move], move: Move) -> None:
        """The bot's captures were taken in another order: its turn goes on from the tray's."""
        seat, start, plan = self._plan
        done = len(plan) - len(wanted)
        rest = [m for m in wanted if not (_taken(m) and set(_taken(m)) <= set(_taken(move)))]
        self._plan = (seat, start, plan[:done] + [move] + rest)

    # -- after the controller's changes ---------------------------------------------------------

    def played(self, moves: Sequence[Move], first_ply: int, seats: Sequence[int | None]) -> None:
        """`moves` were committed (the first as move `first_ply`) by `seats`: tiles bots played
        leave their racks."""
        for i, (move, seat) in enumerate(zip(moves, seats)):
            if move == self._revealing and getattr(move, "word", "") == "show":
                self._spend(next(k for k in self.racks if sorted(self.hand(k)) == list(move.tiles)))
            tile = _placed(move)
            if self.is_bot(seat) and tile is not None and tile in self.known[seat].values():
                slot = self._slot(seat, tile)
                del self.known[seat][slot]
                self._played[first_ply + i] = (seat, slot, tile)
                self.store.set_rack(self.match_id, seat, slot, None)

    def _spend(self, seat: int) -> None:
        """`seat`'s tiles were shown at the end of a hand: no longer its hand, still in its rack."""
        self.spent[seat], self.known[seat] = self.known[seat], {}
        for slot in self.spent[seat]:
            self.store.set_rack(self.match_id, seat, slot, None)

    def taken_back(self, ply: int) -> None:
        """Move `ply` was taken back: a tile it took from a rack is the bot's again."""
        if ply in self._played:
            seat, slot, tile = self._played.pop(ply)
            self.known[seat][slot] = tile
            self.store.set_rack(self.match_id, seat, slot, str(tile))
        self._plan = None

    def expected(self) -> str:
        """For "restore the table": each bot's rack, by slot (its tiles stay hidden)."""
        parts = []
        for seat, known in self.known.items():
            if known:
                parts.append(f"{self.names[seat]}'s tiles face down in slots {', '.join(map(str, sorted(known)))}")
        return "; ".join(parts)


class Said(NamedTuple):
    """One instruction for a bot seat: whose (the OLED's title) and what to do."""

    who: str
    what: str

    def __str__(self) -> str:
        return f"{self.who}: {self.what}"


def _slots(slots) -> str:
    slots = sorted(slots)
    if len(slots) == 1:
        return f"slot {slots[0]}"
    if slots == list(range(slots[0], slots[-1] + 1)) and len(slots) > 2:
        return f"slots {slots[0]}-{slots[-1]}"
    return "slots " + _and(slots)


def _and(tiles) -> str:
    names = [str(t) for t in tiles]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

