"""The judge: a position, a settled board and what the tracker knows in, a Decision out. It asks
everything of copies (the engine's, the racks'), so judging changes nothing; the committer makes
what it decides.

- Dead readers are read as empty cells and named in the reading's warning, unless a tile may lie
  on one (a half without its partner beside it): then a prompt.
- A board's own faults (a tag in two cells, a half without its partner) are a prompt, pending
  while they may be hands at work.
- The racks of the seats the table plays are read apart from the game (seats.py); the rest, the
  area, goes to the game's reader. While a match waits for the tray to show its stored position
  (a new match, a resumed one), anything else is the restore prompt.
- Moves the reader calls provisional (Castle Rock's captures until the turn ends) are judged again
  from the position before them when the tray no longer shows them: the moves beyond them, or a
  new reading replacing them (`Commit.revised`).
- The moves read are vetted against what the seats the table plays were told to do, then made on
  the copy, with the moves those seats make without a trace (an end of turn, a pass, a reveal
  from a rack); the board is read again after them, so one decision says what the board means.
- Takebacks follow the hands: a board showing exactly the position before the last move offers
  to take it back; one showing other legal moves from there offers to take it back and play
  those instead.
- In a match two tables play (match/remote.py), while the partner table is to move its moves
  heard are made as far as the tray shows them done (the most of them after which the tray
  reads as the position, or as our next moves), in the partner's own notation; none is read
  off the tray in other words, and none is taken back here (only its table takes it back).
- What the table then waits for, and from whom, is decided here once (steps.py): the step of a
  seat the table plays, what the reader notes, or the turn of the person to move, its places
  those the judge accepts (targets.py). A seat's problem is put in words by the prompt voice.
- `probe(live, board)`: a board with a held tile laid on it, judged as a fresh tray and no
  further than the moves it shows (no moves the seats make without a trace after them, no plan,
  no instruction): what a place offered for the tile must pass (targets.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from dominotray import wire

from dominotable.match import steps
from dominotable.match.decision import Commit, Decision, Prompt, Reading, Wait
from dominotable.match.position import Effect, Play, Position, Undo
from dominotable.match.seats import TableSeats
from dominotable.match.takebacks import Takebacks
from dominotable.match.targets import Targets
from dominotable.reading import prompts
from dominotable.reading.draw import PadDraw
from dominotable.reading.instruction import Do, Fix, Instruction, Step, Wrong
from dominotable.reading.reader import Reader, Verdict, in_motion
from dominotable.rules.game import Game, Move
from dominotable.rules.hidden import DEAL
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.board import Board, Status


@dataclass(frozen=True)
class Context:
    """What the judge needs of the past, from the tracker and the referee."""

    restoring: bool = False  # the tray must first show the stored position
    resumed: bool = False  # ... of a match resumed from the store
    fresh: bool = True  # the board came from the tray (not judged again after a button)
    offered: tuple[Move, ...] | None = None  # a takeback on offer (the moves it would undo), if any
    instead: tuple[Move, ...] = ()  # ... and the moves it would play instead
    before: dict | None = None  # tile -> cells on the board judged before
    draw: PadDraw | None = None  # the draw over the scan pad read so far
    undone: tuple[Move, ...] = ()  # moves taken back with the button that the tray may still show


@dataclass
class Case:
    """One judgement under way: the judge's copy of the position, the board, and what the stages
    have found so far (the effects to commit, the reader's verdict, the draw)."""

    p: Position  # the judge's copy: the stages make their effects on it
    board: Board  # the whole tray, dead readers read as empty cells
    warning: str | None  # a dead reader the table reads around
    area: Board  # the board without the racks of the seats the table plays
    ctx: Context
    probe: bool = False  # a held tile's place asked by targets.py: no further than the moves shown
    effects: list[Effect] = field(default_factory=list)
    verdict: Verdict = Verdict()
    draw: PadDraw | None = None
    revised: tuple[Move, ...] = ()

    def made(self, effect: Effect) -> None:
        _make(self.p, self.effects, effect)


class Judge:
    def __init__(self, reader: Reader, seats: TableSeats, seat_name: Callable[[int], str], cells: frozenset[int]):
        """`seats`: the seats the table plays (none played: a TableSeats without racks or partner)."""
        self.reader = reader
        self.seats = seats
        self.seat_name = seat_name
        self.cells = cells  # the cells the game uses: a dead reader elsewhere is only a note
        self.targets = Targets(self, seats.hands, lambda board: seats.without_racks(board)[0])
        self.takebacks = Takebacks(reader, seats)

    def judge(self, live: Position, board: Board, ctx: Context) -> Decision:
        return self._judge(live, board, ctx, probe=False)

    def probe(self, live: Position, board: Board, undone: tuple[Move, ...] = ()) -> Decision:
        """`board` judged as a fresh tray, no further than the moves it shows (the module's doc);
        `undone`: moves taken back with the button that the tray may still show (the table asks for
        them off first, so a tile laid beside them is not a move yet)."""
        return self._judge(live, board, Context(undone=undone), probe=True)

    def _judge(self, live: Position, board: Board, ctx: Context, probe: bool) -> Decision:
        """The stages in order, each a decision or None to go on: the tray's own faults, the racks,
        the position to restore, a tile replacing the last move's, the moves read and made, and
        what the tray then shows."""
        readable, warning, dead = self._readable(board)
        if dead is not None:
            return Prompt("Check the tray", *dead, reading=Reading(warning=warning))
        case = Case(live.copy(), readable, warning, readable, ctx, probe)
        return (self._faults(case) or self._racks(case) or self._restoring(case) or self._undoing(case)
                or self._replacing(case) or self._moves(case) or self._settled(case))

    # -- the stages -------------------------------------------------------------------------------

    def _faults(self, case: Case) -> Decision | None:
        """A board's own faults (a tag in two cells, a half without its partner): pending while they
        may be hands at work."""
        problems = case.board.problems()
        if not problems:
            return None
        return Prompt("Check the tray", problems[0].message, problems[0].cells, pending=in_motion(case.board),
                      reading=Reading(warning=case.warning))

    def _racks(self, case: Case) -> Decision | None:
        """The racks read apart from the game: the tiles newly laid in them (effects), a problem with
        one (while restoring, the restore prompt)."""
        case.area, wrong, dealt = self.seats.read(case.p, case.board)
        case.effects += dealt
        if wrong is None:
            return None
        problem = self._fixed(case, wrong)
        then = (self.restore(case.p, problem, case.ctx.resumed, len(case.board.placements)) if case.ctx.restoring
                else Prompt("Fix the tray", problem, wrong.cells))
        return _decided(case.effects, then, reading=self._reading(case, case.ctx.draw))

    def _restoring(self, case: Case) -> Decision | None:
        """While the tray must first show the stored position, anything else is the restore prompt
        (a match resumed between hands with the tray already cleared goes on with the deal)."""
        case.verdict, case.draw = self._read(case.p.game, case.area, case.ctx.draw)
        verdict = case.verdict
        if not case.ctx.restoring or verdict.same or (verdict.moves and all(m == DEAL for m in verdict.moves)):
            return None
        return _decided(case.effects, self.restore(case.p, verdict.problem, case.ctx.resumed,
                                                   len(case.board.placements)), reading=self._reading(case, case.draw))

    def _undoing(self, case: Case) -> Decision | None:
        """Moves taken back with the button while the tray still shows them are not read again: the
        tray is asked to show the position before them (their tiles lifted, or put back)."""
        undone = case.ctx.undone
        moves = [str(m) for m in case.verdict.moves[:len(undone)]]
        if not undone or moves != [str(m) for m in undone]:
            return None
        where = {q.tile: q.cells for q in case.area.placements}
        cells = tuple(c for m in undone if m.placed() is not None for c in where.get(m.placed(), ()))
        text = prompts.taken_back(undone, self.takebacks.named(case.p.game, undone, case.area))
        return _decided(case.effects, Prompt("Take back", text, cells, undone=True), reading=self._reading(case, case.draw))

    def _replacing(self, case: Case) -> Decision | None:
        """Moves read past the reader's provisional ones are read again from before them (`_revise`);
        then, if the last move's tile left first (its takeback was offered) or another tile now stands
        where it lay, the new tiles replace it, once confirmed: the takeback and the moves instead."""
        ctx, p = case.ctx, case.p
        case.verdict, case.revised = self._revise(p, case.area, case.verdict, ctx, case.effects)
        where = {q.tile: q.cells for q in case.area.placements}
        if not (case.verdict.moves and ctx.fresh and ((ctx.offered is not None and not ctx.instead)
                                                       or self.takebacks.replaced(p.game, ctx.before or {}, where))):
            return None
        offer = self.takebacks.offer(p, case.area, case.board)
        if offer is None or not offer.instead:
            return None
        return _decided(case.effects, offer, case.revised, self._reading(case, case.draw))

    def _moves(self, case: Case) -> Decision | None:
        """Make the moves the tray shows, with the moves the seats the table plays make without a
        trace between them (an end of turn, a pass, a reveal its racks make), and the partner table's
        moves heard as far as the tray shows them done; the board is read again after each, so one
        decision says what the board means. A decision here: a move read that is not what a seat the
        table plays was told to make, or the partner's move the tray does not show."""
        p, area, partner = case.p, case.area, self.seats.partner
        # Every pass makes moves or ends the loop: the moves read off the tray (each places or takes
        # tiles of the area, so a tray's reading runs out after one pass per tile on it), the partner's
        # moves heard, or the moves without a trace between them (one pass before the first reading and
        # one after the last). The bound only guards against a reader that reads moves from a tray
        # without end.
        for _ in range(len(area.placements) + 2):
            if p.game.is_over():
                break
            if partner is not None and partner.to_move(p.game):
                if not self._theirs(p, area, case.effects):
                    return _decided(case.effects, self._waiting(case), case.revised, self._reading(case, None))
                case.verdict, case.draw = self._read(p.game, area, None)
                continue
            if not case.verdict.moves:
                if case.probe or not (case.verdict.same and self._traceless(p, area, case.effects)):
                    break
            else:
                wrong, plans = self.seats.vet(p, case.verdict.moves, area)
                if wrong is not None:
                    return _decided(case.effects, Prompt("Fix the tray", self._fixed(case, wrong), wrong.cells),
                                    case.revised, self._reading(case, case.draw))
                for plan in plans:
                    case.made(plan)
                for move in case.verdict.moves:
                    case.made(Play(move))
                case.draw = None
            case.verdict, case.draw = self._read(p.game, area, case.draw)
        return None

    def _settled(self, case: Case) -> Decision:
        """What the tray shows once every move is made: the match over; the position (a wait, or
        the takeback of a hand-ending tile lifted right after it ended the hand); else a takeback on
        offer or the problem. The seat to move's plan is recorded with it."""
        p, area, verdict, ctx = case.p, case.area, case.verdict, case.ctx
        reading = self._reading(case, case.draw)
        if p.game.is_over():
            return Commit(tuple(case.effects), None, case.revised, reading)
        if verdict.same:
            then = Wait(self._instruction(case, verdict.note, verdict.who))
            if verdict.note is not None and ctx.fresh and case.draw is None and self.takebacks.lifted_last(p.game, area):
                # the hand-ending tile (or the tiles just shown) lifted right after: its takeback, not
                # tiles cleared away (the reader awaits the clearing; clearing on withdraws the offer)
                offer = self.takebacks.offer(p, area, case.board, noted=True)
                then = offer if offer is not None and not offer.instead else then
        else:
            offer = self.takebacks.offer(p, area, case.board) if ctx.fresh and case.draw is None and not verdict.moves else None
            then = offer or Prompt("Fix the tray", verdict.problem or "", verdict.cells, pending=verdict.pending,
                                   instruction=self._instruction(case) if verdict.pending else None)
        _, plan = self.seats.turn(p, area) if not case.probe else ((), None)
        if plan is not None:
            case.made(plan)
        return _decided(case.effects, then, case.revised, reading)

    def _instruction(self, case: Case, note: str | None = None, who: str = "") -> Instruction | None:
        """What the table waits for now: the step of a seat the table plays first, else what the
        reader notes (a draw over the scan pad: the pad's cells), else the turn of the person to move."""
        if case.probe:
            return None
        p, area = case.p, case.area
        said = steps.waited(self.seats, p, area)
        if said is None and note:
            pad = tuple(area.geometry.pad) if case.draw is not None else ()
            between = p.game.awaiting() == "deal"  # the hand over: what each side scored in it comes first
            said = Instruction(None, who, (Step(Do.NOTE, cells=pad, label=note),),
                               scored=_hand_scored(p.game) if between else ())
        return said or steps.person(self.seats, p, area, self.reader,
                                    lambda tiles: self.targets.places(p, case.board, tiles))

    def _fixed(self, case: Case, wrong: Wrong) -> str:
        """A seat's problem in words, with what the seat does instead: its move as its instruction
        says it; a partner's, its next step heard (without the tile it has not played)."""
        p, area = case.p, case.area
        told = wrong.told
        if wrong.move is not None:
            told = steps.told(self.seats, p, wrong.seat, wrong.move, area)
        elif wrong.fix == Fix.NOT_PLAYED:
            told = steps.remote_step(self.seats, p, _without(area, wrong.tiles[0]))
        elif wrong.fix == Fix.NOT_AS_PARTNER:
            told = steps.remote_step(self.seats, p, area)
        return prompts.fixed(replace(wrong, told=told), area.geometry)

    def _reading(self, case: Case, draw: PadDraw | None) -> Reading:
        buttons = self._buttons(case.p.game, case.area) if not case.probe else ()
        return Reading(case.area, case.warning, draw, buttons)

    # -- the parts ------------------------------------------------------------------------------

    def _readable(self, board: Board) -> tuple[Board, str | None, tuple[str, tuple[int, ...]] | None]:
        """`board` with its dead readers read as empty cells, a warning naming them, and the prompt
        when a tile may lie on one."""
        dead = board.faults
        if not dead:
            return board, None, None
        geometry = board.geometry

        def label(cell: int) -> str:
            return prompts.name(geometry, cell)

        inside = [c for c in dead if c in self.cells]
        named = ", ".join(label(c) for c in dead)
        warning = (f"reader {named} dead: play around it" if inside
                   else f"reader {named} dead (not used by this game)")
        readable = Board([(wire.EMPTY, b"") if status == wire.FAULT else (status, uid)
                          for status, uid in board.cells], board.registry, geometry)
        for problem in readable.problems():
            near = [c for c in geometry.neighbours(problem.cells[0]) if c in dead]
            if problem.flag == Status.LONE_HALF and near:
                return readable, warning, (f"the reader at {label(near[0])} does not answer: move the tile at "
                                           f"{label(problem.cells[0])} off it, or mend the reader", (near[0],))
        return readable, warning, None

    def _read(self, game: Game, area: Board, draw: PadDraw | None) -> tuple[Verdict, PadDraw | None]:
        """The reader's verdict; while the game awaits a draw over the scan pad and the tray is
        otherwise in order, the draw's (started when first judged, the pad's tile not counted)."""
        reader = self.reader.on(game.copy())
        verdict = reader.judge(area)
        awaited = reader.pad_draw()
        if awaited is None:
            return verdict, None
        if draw is None:
            draw = PadDraw(awaited, [self.seat_name(seat) for seat in range(len(game.side_names()))], area)
        else:
            draw = copy.copy(draw)
            draw.tiles = list(draw.tiles)
        return (draw.read(area) if verdict.same else verdict), draw

    def _buttons(self, game: Game, area: Board) -> tuple[tuple[str, Move], ...]:
        return tuple(self.reader.on(game.copy()).button_moves(area))

    def _revise(self, p: Position, area: Board, verdict: Verdict, ctx: Context, effects: list[Effect]
                ) -> tuple[Verdict, tuple[Move, ...]]:
        """A problem read past the reader's provisional moves, read again from before them."""
        game = p.game
        count = self.reader.on(game.copy()).provisional() if verdict.problem is not None and not ctx.restoring else 0
        if not count or not self.takebacks.ours(game, count):
            return verdict, ()
        before = game.copy()
        undone = tuple([before.pop() for _ in range(count)][::-1])
        whole = self.reader.on(before).judge(area)
        if whole.problem is not None:
            return whole, ()
        if tuple(whole.moves[:count]) == undone:
            return Verdict(moves=whole.moves[count:], note=whole.note, who=whole.who), ()
        for _ in undone:
            _make(p, effects, Undo())
        return whole, undone

    def _theirs(self, p: Position, area: Board, effects: list[Effect]) -> bool:
        """Make the partner's moves heard that the tray shows done: the most of them after which
        the tray reads as the position, or as moves of ours; whether there were any."""
        partner, game = self.seats.partner, p.game.copy()
        plan, done = partner.plan(p), 0
        for k, move in enumerate(plan, 1):
            game.push(move)
            if game.is_over():  # nothing more to read: a last move without a trace ends it
                done = k if done == k - 1 and not (move.placed() or move.taken()) else done
                break
            verdict = self.reader.on(game.copy()).judge(area)
            if verdict.problem is None and not (verdict.moves and partner.theirs(game, verdict.moves[0])):
                done = k
        for move in plan[:done]:
            _make(p, effects, Play(move))
        return done > 0

    def _waiting(self, case: Case) -> Wait | Prompt:
        """The partner is to move and the tray does not show its next move: a wait (the
        instruction, or the notice that the table waits, says what is awaited), or what to undo."""
        p, area, verdict = case.p, case.area, case.verdict
        if verdict.problem is not None:
            return Prompt("Fix the tray", verdict.problem, verdict.cells, pending=verdict.pending,
                          instruction=self._instruction(case) if verdict.pending else None)
        wrong = self.seats.astray(p, verdict.moves, self.seats.partner.plan(p), area) if verdict.moves else None
        if wrong is None:
            return Wait(self._instruction(case))
        return Prompt("Fix the tray", self._fixed(case, wrong), wrong.cells)

    def _traceless(self, p: Position, area: Board, effects: list[Effect]) -> bool:
        """Make the seats' moves that leave no trace on the tray; whether there were any."""
        made = False
        # Each pass makes one move without a trace; they stop at the first move that needs the tray or
        # a person, and a round of passes only ends the hand (a blocked hand is scored, then the deal waits)
        while not p.game.is_over():
            move, plan = self.seats.traceless(p, area)
            if plan is not None:
                _make(p, effects, plan)
            if move is None:
                return made
            _make(p, effects, Play(move))
            made = True
        return made

    def clears(self, live: Position, board: Board) -> bool:
        """Whether the tray reads as the position again (or as legal moves from it): a problem's
        prompt goes before the settle time; nothing is committed before it."""
        return (board.is_valid() and not self.seats.playing and self.reader.pad_draw() is None
                and self.reader.on(live.game.copy()).judge(board).problem is None)

    def restore(self, p: Position, problem: str | None, resumed: bool, lying: int = 0) -> Prompt:
        """What the tray must show before play (re)starts; a new match's tray that is not clear
        (`lying` tiles on it, racks too) is first cleared, the tiles counted (issue 28: it named the
        first leftover as a misplaced tile of the new match)."""
        reader = self.reader.on(p.game.copy())
        if not resumed:
            if problem and lying and not p.game.moves:
                problem = f"clear the tray: {prompts.counted(lying, 'tile')} from the last match"
            return Prompt("Set up the table", problem or reader.expected(), restore=True)
        racks = prompts.racks_held(self.seats.expected(p))
        text = f"{reader.expected()}" + (f"; {racks}" if racks else "")
        return Prompt("Restore the table", text + (f" ({problem})" if problem and racks else ""), restore=True)


def _make(p: Position, effects: list[Effect], effect: Effect) -> None:
    p.apply(effect)
    effects.append(effect)


def _decided(effects: list[Effect], then, revised: tuple[Move, ...] = (), reading: Reading | None = None) -> Decision:
    """`then`, after committing `effects` if there are any."""
    reading = reading or Reading()
    if effects:
        return Commit(tuple(effects), then, revised, reading)
    return _with_reading(then, reading)


def _with_reading(then, reading: Reading):
    return replace(then, reading=reading)


def _hand_scored(game: Game) -> tuple[int, ...]:
    """What each side scored in the hand just over: the scores now less those when the hand before
    it was over (or at the start), asked of a copy taken back move by move."""
    before = game.copy()
    # each pass takes a move back: the moves run out at the match's start
    while before.moves:
        before.pop()
        if before.awaiting() == "deal":
            break
    return tuple(now - then for now, then in zip(game.scores, before.scores))


def _without(board: Board, tile) -> Board:
    """`board` with `tile` taken off."""
    tray = MemoryTray.of(board)
    tray.apply(Action(ActionKind.REMOVE, tile))
    return tray.board()
