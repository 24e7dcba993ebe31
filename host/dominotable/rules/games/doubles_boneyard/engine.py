"""Doubles in the Boneyard: a three-player line game without doubles, match to 200.

Rule numbers (DB-x.y) refer to seeds/doubles-in-the-boneyard.md.

Observed mode (DB-7): the doubles drawn are named (`lots`), any unseen tile may be played
and is swapped into the player's guessed hand, a pass bars the tiles that fit from the
passer's hand, a finished game waits for each hand to be shown (`show P2 3-5 1-2`), and the
next game for the last one's tiles to be cleared away (`deal`): observed.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from dominotable.rules.errors import IllegalMove, InvalidNotation
from dominotable.rules.game import Game, State, applies, checks
from dominotable.rules.games.doubles_boneyard.observed import ObservedPlay
from dominotable.rules.hidden import Reveal, parse_reveal
from dominotable.rules.line import END_NAMES, LEFT, RIGHT, Line, fits, split_end
from dominotable.rules.moves import PASS, Move, Pass
from dominotable.rules.options import Options, option
from dominotable.rules.position import BadPosition, Position
from dominotable.rules.tiles import Tile, fmt

SEATS = 3


@dataclass(frozen=True)
class Play(Move):
    tile: Tile
    end: int | None = None  # None: the first tile, or the short form when one end fits

    def __str__(self) -> str:
        if self.end == LEFT:
            return f"<{self.tile}"
        if self.end == RIGHT:
            return f"{self.tile}>"
        return str(self.tile)


class OpenEnd(NamedTuple):
    end: int  # LEFT or RIGHT
    number: int  # the number a tile must have to go there


class GameResult(NamedTuple):
    game: int
    how: str  # "out" or "blocked"
    deltas: tuple[int, ...]  # match score change per seat
    next_leader: int
    draws: tuple[tuple[int, Tile], ...]  # (seat, double) drawn to pick the next leader, if any


@dataclass(frozen=True)
class DoublesBoneyardOptions(Options):
    target: int = option(200, "match score that wins (DB-5.1)", choices=(50, 100, 200, 300))


@dataclass(slots=True)
class DBState(State):
    lead_draw: tuple[tuple[int, Tile], ...]  # (seat, double) drawn for the first leader (DB-2.1)
    hands: tuple[tuple[Tile, ...], ...] = ()
    line: Line | None = None
    turn: int | None = 0
    game_no: int = 1
    scores: tuple[int, ...] = (0,) * SEATS
    results: tuple[GameResult, ...] = ()
    winner: int | None = None
    awaiting: str | None = None  # observed mode: "lots", "show" or "deal", the reveal owed (DB-7)
    ending: str | None = None  # "out" or "blocked" once the game under way has ended
    barred: tuple[frozenset, ...] = (frozenset(),) * SEATS  # tiles each seat's passes rule out (DB-7.3)
    revealed: frozenset = frozenset()  # seats whose hands were shown (DB-7.4)


def pips(hand) -> int:
    return sum(t.pips for t in hand)


def highest(draws: tuple[tuple[int, Tile], ...]) -> int:
    """The seat that drew the highest double."""
    return max(draws, key=lambda draw: draw[1].a)[0]


def draws_text(draws, names) -> str:
    return ", ".join(f"{names[seat]} {double}" for seat, double in draws)


class DoublesInTheBoneyard(ObservedPlay, Game):
    name = "doubles-in-the-boneyard"
    title = "Doubles in the Boneyard"
    Options = DoublesBoneyardOptions
    min_players = max_players = default_players = SEATS

    # -- setup: the only places tiles are dealt or doubles drawn ----------------------------

    def _initial_state(self) -> DBState:
        s = DBState(lead_draw=self._draw_doubles("first", range(SEATS)),  # rule DB-2.1
                    awaiting="lots" if self.observed else None)  # rule DB-7.1
        self._deal(s, 1, leader=highest(s.lead_draw))
        return s

    def _state_from(self, position: Position) -> DBState:
        """A game under way: `game` (from 1), `scores`, the `line` written as the line prints,
        every tile turned so touching numbers meet (`5-3 3-1 1-4`), a hand per seat (`P1: ...`)
        and `turn` (default P1). At a real table (observed) a game that has just ended waits
        for the table: `ending` (out or blocked) and `shown`, the seats whose hands were shown;
        it then owes the other hands, or the doubles drawn after a tie. A tile named nowhere is
        out of the position, as in a problem: no hand holds it."""
        names = self.side_names()
        number = position.number("game", 1)
        scores = position.numbers("scores", SEATS, (0,) * SEATS)
        line = self._line_from(position)
        hands = tuple(position.tiles(name.lower(), f"in {name}'s hand") for name in names)
        doubles = [t for hand in hands for t in hand if t.is_double]
        if doubles:
            raise BadPosition(f"{doubles[0]} is a double; doubles stay in the boneyard all match (rule DB-1.1)")
        turn_name = (position.take("turn") or names[0]).upper()
        if turn_name not in names:
            raise BadPosition(f"turn: {turn_name} is not a seat; seats are {', '.join(names)}")
        ending = position.take("ending")
        shown = position.take("shown", "").upper().split()
        position.done("game, scores, line, P1, P2, P3, turn, ending, shown")
        if any(name not in names for name in shown):
            raise BadPosition(f"shown: seats are {', '.join(names)}")
        s = DBState(lead_draw=(), hands=hands, line=line, turn=names.index(turn_name), game_no=number,
                    scores=scores, revealed=frozenset(names.index(name) for name in shown))
        if ending is None:
            if shown:
                raise BadPosition("shown: hands are shown only once a game has ended (write its ending)")
            return s
        if ending not in ("out", "blocked") or not self.observed:
            raise BadPosition("ending: only at a real table (observed) does an ended game (out or blocked) "
                              "wait for the table")
        s.ending = ending
        if any(hand and seat not in s.revealed for seat, hand in enumerate(hands)):
            s.awaiting = "show"  # rule DB-7.4
        elif len(self._outcome(s)[1]) > 1:
            s.awaiting = "lots"  # rule DB-7.1
        else:
            raise BadPosition("the ended game is scored at once: write the next game's position")
        return s

    def _line_from(self, position: Position) -> Line | None:
        text = position.take("line", "")
        line = None
        for token in text.split():
            m = re.fullmatch(r"(\d+)-(\d+)", token)
            if m is None:
                raise BadPosition(f"line: {token!r} is not a tile like 3-5")
            a, b = int(m.group(1)), int(m.group(2))
            tile = self.dset.parse(token) if max(a, b) <= self.dset.top else None
            if tile is None or tile.is_double:
                raise BadPosition(f"line: {token} is not a tile of the line (rule DB-1.1)")
            position.place(tile, "on the line")
            if line is None:
                line = Line.start(tile, a, b)
            elif line.ends[RIGHT] != a:
                raise BadPosition(f"line: {token} does not touch the {line.ends[RIGHT]} before it (rule DB-3.3)")
            else:
                line = line.add(RIGHT, tile, b)
        return line

    def _draw_doubles(self, label: str, seats) -> tuple[tuple[int, Tile], ...]:
        doubles = list(self.dset.doubles)
        self.rng(f"doubles:{label}").shuffle(doubles)
        return tuple(zip(seats, doubles))

    def _deal(self, s: DBState, game_no: int, leader: int) -> None:
        tiles = [t for t in self.dset if not t.is_double]
        self.rng(f"deal:{game_no}").shuffle(tiles)
        size = len(tiles) // SEATS
        s.hands = tuple(tuple(sorted(tiles[i * size:(i + 1) * size])) for i in range(SEATS))
        s.game_no = game_no
        s.line = None
        s.turn = leader
        s.ending = None
        s.barred = (frozenset(),) * SEATS  # tiles each seat's passes rule out (DB-7.3)
        s.revealed = frozenset()

    # -- moves ------------------------------------------------------------------------------

    def parse_move(self, text: str) -> Move:
        if text.strip().lower() == "pass":
            return PASS
        reveal = parse_reveal(text, self.dset, {"lots": False, "show": True, "deal": False})
        if reveal is not None:
            return reveal
        core, end = split_end(text)
        try:
            tile = self.dset.parse(core)
        except InvalidNotation as exc:
            raise InvalidNotation(f"{exc}; moves are a tile like 3-5, <3-5 (left end), 3-5> (right end) or pass") from None
        return Play(tile, end)

    def _moves(self) -> Iterator[Move]:
        s = self.state
        if s.awaiting is not None:
            yield from self._guessed_reveals()
            return
        any_play = False
        for tile in self._playable():
            if s.line is None:
                any_play = True
                yield Play(tile)
                continue
            for end in (LEFT, RIGHT):
                if tile.has(s.line.ends[end]):
                    any_play = True
                    yield Play(tile, end)
        if not any_play if not self.observed else self._pass_arrangement() is not None:
            yield PASS

    def _resolve_end(self, move: Play) -> int | IllegalMove:
        """The end `move` goes on, or why it cannot go anywhere."""
        line, tile = self.state.line, move.tile
        left, right = line.ends
        if move.end is not None:
            if tile.has(line.ends[move.end]):
                return move.end
            return IllegalMove(f"{tile} does not match the {END_NAMES[move.end]} end ({line.ends[move.end]})",
                               rule="DB-3.3", tile=tile)
        ends = [end for end in (LEFT, RIGHT) if tile.has(line.ends[end])]
        if not ends:
            return IllegalMove(f"{tile} does not match either end ({left} and {right})", rule="DB-3.3", tile=tile)
        if len(ends) == 2 and left != right:
            return IllegalMove(f"{tile} fits both ends ({left} and {right}); write <{tile} or {tile}>",
                               rule="DB-3.4", tile=tile)
        return ends[0]

    def _why_illegal(self, move: Move) -> IllegalMove | None:
        if self.state.awaiting is not None:
            return self._why_not_reveal(move)
        return super()._why_illegal(move)

    @checks(Pass)
    def _why_not_pass_move(self, move: Pass) -> IllegalMove | None:
        s = self.state
        who = self.side_names()[s.turn]
        if self.observed:
            return self._why_not_pass(who)
        playable = [t for t in s.hands[s.turn] if fits(t, s.line)]
        if playable:
            return IllegalMove(f"{who} can play {playable[0]}; pass only when no tile fits",
                               rule="DB-3.5", tile=playable[0])
        return None

    @checks(Play)
    def _why_not_play(self, move: Play) -> IllegalMove | None:
        s = self.state
        seat = s.turn
        who = self.side_names()[seat]
        tile = move.tile
        if tile.is_double:
            return IllegalMove(f"{tile} is a double; doubles stay in the boneyard all match", rule="DB-1.1", tile=tile)
        if self.observed:
            if tile not in self._unseen():
                return IllegalMove(f"{tile} is already on the line", rule="DB-7.2", tile=tile)
            if tile in s.barred[seat]:
                return IllegalMove(f"{who} passed when {tile} would have fitted, so cannot hold it",
                                   rule="DB-7.3", tile=tile)
            if self._holding(seat, tile) is None:
                return IllegalMove(f"if {who} held {tile}, the other hands could not agree with their passes",
                                   rule="DB-7.3", tile=tile)
        elif tile not in s.hands[seat]:
            return IllegalMove(f"{tile} is not in {who}'s hand", rule="DB-3.1", tile=tile)
        if s.line is None:
            if move.end is not None:
                return IllegalMove(f"the first tile of a game goes on no end; write {tile}", rule="DB-3.2", tile=tile)
            return None
        end = self._resolve_end(move)
        return end if isinstance(end, IllegalMove) else None

    @applies(Pass)
    def _pass(self, move: Pass) -> None:
        s = self.state
        if self.observed:
            s.hands = self._pass_arrangement()
            s.barred = tuple(b | self._fitting(s.turn) if i == s.turn else b for i, b in enumerate(s.barred))
        s.turn = (s.turn + 1) % SEATS  # rule DB-1.2

    @applies(Play)
    def _play(self, move: Play) -> None:
        s = self.state
        seat = s.turn
        tile = move.tile
        if self.observed:
            s.hands = self._holding(seat, tile)
        s.hands = tuple(tuple(t for t in h if t is not tile) if i == seat else h for i, h in enumerate(s.hands))
        if s.line is None:
            s.line = Line.start(tile, tile.a, tile.b)  # rule DB-3.2
        else:
            end = self._resolve_end(move)
            s.line = s.line.add(end, tile, tile.other(s.line.ends[end]))
        if not s.hands[seat]:
            self._end_game("out")
        elif not any(fits(t, s.line) for h in s.hands for t in h):
            self._end_game("blocked")
        else:
            s.turn = (seat + 1) % SEATS  # rule DB-1.2

    @applies(Reveal)
    def _reveal(self, move: Reveal) -> None:
        s = self.state
        s.awaiting = None
        if move.word == "deal":  # rule DB-7.6: the next game's first tile may now be read
            return
        if move.word == "show":  # rule DB-7.4
            seat = self.side_names().index(move.seat)
            s.hands = self._show_arrangement(seat, move.tiles)
            s.hands = tuple(move.tiles if i == seat else h for i, h in enumerate(s.hands))
            s.revealed = s.revealed | {seat}
            self._end_game(s.ending)
        elif s.ending is None:  # rule DB-7.1: the first leader
            s.lead_draw = tuple(zip(range(SEATS), move.tiles))
            s.turn = highest(s.lead_draw)
        else:
            self._score(tuple(zip(self.lots_seats(), move.tiles)))

    def _end_game(self, how: str) -> None:
        s = self.state
        s.ending = how
        if self.observed and any(h and i not in s.revealed for i, h in enumerate(s.hands)):
            s.awaiting = "show"  # rule DB-7.4
            return
        self._score()

    def _outcome(self, s: DBState | None = None) -> tuple[list[int], list[int]]:
        """The change to each seat's score, and the seats in line to lead next: one, or those
        tied for fewest pips, who draw doubles for it (in position `s`, by default the game's)."""
        s = s or self.state
        totals = [pips(h) for h in s.hands]
        deltas = [0] * SEATS
        if s.ending == "out":  # rule DB-4.1
            deltas[s.turn] = sum(totals)
            return deltas, [s.turn]
        low = min(totals)
        lowest = [i for i in range(SEATS) if totals[i] == low]
        if len(lowest) == 1:  # rule DB-4.3
            deltas[lowest[0]] = sum(totals)
        else:  # rules DB-4.4, DB-4.5
            for i in range(SEATS):
                if i not in lowest:
                    deltas[i] = -totals[i]
        return deltas, lowest

    def _score(self, draws: tuple = ()) -> None:
        s = self.state
        deltas, leaders = self._outcome()
        if len(leaders) > 1 and not draws:
            if self.observed:
                s.awaiting = "lots"  # rule DB-7.1
                return
            draws = self._draw_doubles(f"tie:{s.game_no}", leaders)
        leader = highest(draws) if draws else leaders[0]
        s.results = s.results + (GameResult(s.game_no, s.ending, tuple(deltas), leader, draws),)
        s.scores = tuple(a + b for a, b in zip(s.scores, deltas))
        reached = [i for i in range(SEATS) if s.scores[i] >= self.options.target]
        if reached:  # rule DB-5.1; only one score rises per game (DB-5.2)
            s.winner = reached[0]
            s.turn = None
        else:
            self._deal(s, s.game_no + 1, leader)  # rule DB-5.3
            if self.observed:
                s.awaiting = "deal"  # rule DB-7.6

    # -- status -----------------------------------------------------------------------------

    @property
    def current_player(self) -> int | None:
        return self.state.turn

    def is_over(self) -> bool:
        return self.state.winner is not None

    def winners(self) -> list[int]:
        return [] if self.state.winner is None else [self.state.winner]

    def awaiting(self) -> str | None:
        return self.state.awaiting

    # -- queries ----------------------------------------------------------------------------

    def hands(self) -> tuple[tuple[Tile, ...], ...]:
        """Each seat's hand (in observed mode, the engine's guess at the hidden tiles)."""
        return self.state.hands

    def lead_draw(self) -> tuple[tuple[int, Tile], ...]:
        """The (seat, double) each seat drew for the first lead (DB-2.1)."""
        return self.state.lead_draw

    def results(self) -> tuple[GameResult, ...]:
        """The games of the match finished so far."""
        return self.state.results

    def line(self) -> Line | None:
        """The line of this game, None before its first tile."""
        return self.state.line

    def open_ends(self) -> list[OpenEnd]:
        """Both ends of the line, left first (none before the first tile)."""
        line = self.state.line
        return [] if line is None else [OpenEnd(end, line.ends[end]) for end in (LEFT, RIGHT)]

    def game_number(self) -> int:
        """The game under way in the match, from 1."""
        return self.state.game_no

    def hands_played(self) -> int:
        """Games finished so far in this match (benchmarks/playouts.py counts them)."""
        return len(self.state.results)

    def heuristic(self, side: int) -> float:
        """Match score, less the pips still held: shedding heavy tiles is what wins a game."""
        s = self.state
        return s.scores[side] - pips(s.hands[side]) / 10

    def brief(self) -> str:
        """One line for the demo: the open ends and the tiles each player still holds."""
        s = self.state
        ends = "empty" if s.line is None else f"{s.line.ends[LEFT]}...{s.line.ends[RIGHT]}"
        held = " ".join(f"{n}:{len(h)}" for n, h in zip(self.side_names(), s.hands))
        return f"line {ends}  tiles {held}"

    def __str__(self) -> str:
        s = self.state
        names = self.side_names()
        score = "  ".join(f"{n} {v}" for n, v in zip(names, s.scores))
        out = [f"{self.title}  game {s.game_no}  match to {self.options.target}: {score}"]
        if s.line is None:
            out.append("line  (empty)")
        else:
            out.append(f"line  {line_text(s.line)}    open ends {s.line.ends[LEFT]} | {s.line.ends[RIGHT]}")
        for i, hand in enumerate(s.hands):
            mark = ">" if i == s.turn else " "
            if self.observed and i not in s.revealed:
                out.append(f"{mark} {names[i]}  {len(hand)} hidden")
            else:
                out.append(f"{mark} {names[i]}  {fmt(hand) or '(out)'}  [{pips(hand)} pips]")
        if not s.results:
            out.append(f"drew {draws_text(s.lead_draw, names)}: {names[highest(s.lead_draw)]} leads")
        else:
            r = s.results[-1]
            change = ", ".join(f"{names[i]} {d:+d}" for i, d in enumerate(r.deltas) if d)
            drew = f" drew {draws_text(r.draws, names)};" if r.draws else ""
            out.append(f"game {r.game}: {r.how}; {change or 'no score'};{drew} {names[r.next_leader]} leads next")
        if s.winner is not None:
            out.append(f"match over: {names[s.winner]} wins with {s.scores[s.winner]}")
        return "\n".join(out)


def line_text(line: Line) -> str:
    """The line with every tile turned so touching numbers meet: `5-3 3-1 1-4`."""
    left = [f"{value}-{tile.other(value)}" for tile, value in reversed(line.sides[LEFT])]
    first = f"{line.first.a}-{line.first.b}"
    right = [f"{tile.other(value)}-{value}" for tile, value in line.sides[RIGHT]]
    return " ".join(left + [first] + right)
