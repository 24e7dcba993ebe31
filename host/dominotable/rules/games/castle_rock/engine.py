"""Castle Rock (seeds/castle-rock.md), and the row-and-capture mechanics its solitaire shares.

The row is a tuple of tiles listed from the blocked end to the open end, so tiles always
join at the right (CR-3.4). Every tile enters play from one shuffled order per hand
(`_shuffled`): dealt from the front, then drawn through a pointer (`deck`, `drawn`).
Dealing happens in that one place, so a later observed mode can supply tiles as they appear.

Moves: `Place` (notation `3-5`), a `Capture` from capture.py as it is (`x2-4`,
`x2-4+4-4+0-4`), and the one-word moves `end` / `draw`. State fields are immutable values
(tuples, ints) replaced on each move, so the framework's shallow copy makes push/pop cheap.

Observed mode (CR-11): the match opens with `lots` naming each seat's dealer-draw tile and
every hand with `row` naming the starting row (after the first hand, once the last hand's row
is cleared away: `deal`); hands and boneyard stay a guess, and a
placement of any unseen tile is swapped into the player's hand first (hidden.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import ClassVar, NamedTuple

from dominotable.rules.errors import BadOption, IllegalMove, InvalidNotation
from dominotable.rules.game import Game, State, applies, checks, replace_at
from dominotable.rules.games.castle_rock.capture import (
    Capture,
    analyse,
    parse_capture,
    single_captures,
    squeeze,
    why_not_capture,
)
from dominotable.rules.hidden import DEAL, Reveal, parse_reveal, rearrange, why_not_deal
from dominotable.rules.moves import Move
from dominotable.rules.options import Options, option
from dominotable.rules.position import BadPosition, Position
from dominotable.rules.tiles import MAX_PIP, DominoSet, Tile, fmt


@dataclass(frozen=True)
class Place(Move):
    tile: Tile

    def __str__(self) -> str:
        return str(self.tile)


_PLACES = {tile: Place(tile) for tile in DominoSet(MAX_PIP)}
place = _PLACES.__getitem__  # the shared move placing a tile


@dataclass(frozen=True)
class Word(Move):
    """A one-word move: `end` (Castle Rock) or `draw` (the solitaire)."""

    word: ClassVar[str]

    def __str__(self) -> str:
        return self.word


class End(Word):
    word = "end"


class Draw(Word):
    word = "draw"


END = End()
DRAW = Draw()


class Deck(NamedTuple):
    """A hand's shuffled tiles in the order they come out, and how many are out."""

    tiles: tuple[Tile, ...]
    drawn: int

    @property
    def rest(self) -> tuple[Tile, ...]:
        """The boneyard, next tile first."""
        return self.tiles[self.drawn:]


class HandScore(NamedTuple):
    """A scored hand: the row left at its end and the points each seat made (CR-6)."""

    row: tuple[Tile, ...]
    points: tuple[int, ...]


@dataclass(slots=True)
class RowState(State):
    """What every capture-row game's state holds: the row, the shuffled deck with a pointer
    to the next tile, and `caps`, the captures available in the row (None until needed)."""

    deck: tuple[Tile, ...] = ()
    drawn: int = 0
    row: tuple[Tile, ...] = ()
    caps: tuple[Capture, ...] | None = None


@dataclass(slots=True)
class CastleRockState(RowState):
    scores: tuple[int, ...] = ()
    hand_no: int = 0
    over: bool = False
    last_hand: HandScore | None = None
    awaiting: str | None = None  # observed mode: "lots", "deal" or "row", the reveal owed (CR-11)
    dealer: int = 0
    hands: tuple[tuple[Tile, ...], ...] = ()
    captured: tuple[int, ...] = ()
    turn: int | None = None
    placed: bool = False


class CaptureRowGame(Game):
    """What Castle Rock and its solitaire share: a one-ended row, captures, a shuffled deck.

    The state is a `RowState`. Subclasses change the row only through `_extend_row` and `_capture`, which keep `caps`
    up to date cheaply: a tile added at the right end leaves every capture standing (none
    looks beyond its own tiles and their two neighbours) and can only add captures around
    the old last tile; after a capture they are found afresh when next needed.
    """

    move_words: tuple[Word, ...] = ()

    def _shuffled(self, label: object) -> tuple[Tile, ...]:
        """The order in which the tiles of hand `label` come out of the boneyard."""
        tiles = list(self.dset.tiles)
        self.rng(label).shuffle(tiles)
        return tuple(tiles)

    @staticmethod
    def _draw(s: RowState) -> Tile:
        tile = s.deck[s.drawn]
        s.drawn += 1
        return tile

    # -- queries ----------------------------------------------------------------------------

    def boneyard(self) -> int:
        """Tiles left to draw."""
        return len(self.state.deck) - self.state.drawn

    def deck(self) -> Deck:
        return Deck(self.state.deck, self.state.drawn)

    def row(self) -> tuple[Tile, ...]:
        """The row from the blocked end to the open end."""
        return self.state.row

    def captures(self) -> tuple[Capture, ...]:
        """The single captures available in the row now."""
        return self._row_captures()

    def _row_captures(self) -> tuple[Capture, ...]:
        s = self.state
        if s.caps is None:
            s.caps = tuple(single_captures(s.row))
        return s.caps

    def _extend_row(self, tile: Tile) -> None:
        s = self.state
        s.row += (tile,)
        if s.caps is not None and len(s.row) >= 3 and s.row[-3].suits & tile.suits:
            # the old last tile is pinched: captures among the last three
            s.caps += tuple(single_captures(s.row, len(s.row) - 2))

    def _capture(self, capture: Capture) -> int:
        """Make an available capture; return how many tiles it took."""
        self.state.row = squeeze(self.state.row, capture)
        self.state.caps = None
        return len(capture.tiles)

    reveal_words: dict[str, bool] = {}

    def parse_move(self, text: str) -> Move:
        reveal = parse_reveal(text, self.dset, self.reveal_words)
        if reveal is not None:
            return reveal
        word = text.strip().lower()
        for move in self.move_words:
            if word == move.word:
                return move
        try:
            if word.startswith("x"):
                return parse_capture(word, self.dset)
            return place(self.dset.parse(word))
        except InvalidNotation as exc:
            words = "".join(f" or {w.word}" for w in self.move_words)
            raise InvalidNotation(f"{exc}; a {self.title} move is a tile (3-5), "
                                  f"a capture (x2-4 or x2-4+4-4+0-4){words}") from None

    def captures_to(self, after: Sequence[Tile]) -> list[Capture]:
        """The single captures that turn the current row into `after` (a hand-made capture seen
        on the table), in an order that can be pushed. Raises IllegalMove naming the tiles and
        rule when no legal sequence of captures does it (DominoError when `after` is not the
        row with some tiles taken out)."""
        return analyse(self.state.row).captures_to(tuple(after))

    def row_text(self) -> str:
        if self.awaiting():  # observed mode: the row is not named yet (CR-11.1)
            return f"row: waiting for `{self.awaiting()}`"
        return "row: " + (fmt(self.state.row) or "(empty)") + " <- open end"

    def brief(self) -> str:
        """One line for `demo`: the row and the boneyard."""
        return f"{self.row_text()}  (boneyard {self.boneyard()})"


@dataclass(frozen=True)
class CastleRockOptions(Options):
    set: int = option(6, "domino set: the highest double", choices=(6, 9, 12))
    target: int = option(50, "the match ends when someone reaches this score")
    hands: int = option(20, "the match also ends after this many hands (1: one hand, for a round of drinks)")


def rank(tile: Tile) -> tuple[int, int]:
    """Order for drawing the dealer (CR-2.1): pip total, then the higher end."""
    return (tile.pips, tile.b)


def starting_row(tiles: int, players: int) -> int:
    """Tiles in the starting row (CR-3.2): 4 when the rest deals out evenly, else the nearest
    count that does, the smaller of two equally near (so 3 with five players on double-six)."""
    fits = [r for r in range(1, tiles - 2 * players + 1) if (tiles - r) % players == 0]
    if not fits:
        raise BadOption(f"too many players for the set: {players} players cannot share {tiles} tiles")
    return min(fits, key=lambda r: (abs(r - 4), r))


class CastleRock(CaptureRowGame):
    name = "castle-rock"
    title = "Castle Rock"
    Options = CastleRockOptions
    min_players = 2
    max_players = 6
    default_players = 4
    move_words = (END,)
    reveal_words = {"lots": False, "row": False, "deal": False}

    _after_place: tuple = (None, ())  # (captures, the moves they make with END): a cache of _moves

    @cached_property
    def row_size(self) -> int:
        return starting_row(len(self.dset), self.players)

    @cached_property
    def dealer_draw(self) -> tuple[Tile, ...]:
        """The tiles the seats draw for dealer (CR-2.1), in seat order."""
        return self._shuffled("dealer")[: self.players]

    def _initial_state(self) -> CastleRockState:
        for name in ("target", "hands"):
            if getattr(self.options, name) < 1:
                raise BadOption(f"option {name}: must be at least 1, not {getattr(self.options, name)}")
        s = CastleRockState(scores=(0,) * self.players, awaiting="lots" if self.observed else None)
        self._start_match(s, self.dealer_draw)
        return s

    @classmethod
    def _position_players(cls, position: Position) -> int | None:
        return sum(1 for name in position.values if re.fullmatch(r"p\d+", name)) or None

    def _state_from(self, position: Position) -> CastleRockState:
        """A hand under way: `row`, a hand per seat (`P1: 1-4 3-3`, at most two tiles), `turn`
        (default P1), the flag `placed` (the player to move has placed the row's last tile),
        `boneyard` in draw order (default: every tile not named, in the seeded order) and, when
        the boneyard leaves tiles out, `captured` (this hand's captures per seat, the tiles
        left out), `hand` (from 1, default 1) and `scores` (the score before this hand: none in
        the first hand, and below the target, or the match would be over)."""
        p, names = self.players, self.side_names()
        number = position.number("hand", 1)
        if not 1 <= number <= self.options.hands:
            raise BadPosition(f"hand: {number} is not a hand of a match of {self.options.hands} (rule CR-8.4)")
        row = position.tiles("row", "in the row")
        hands = tuple(position.tiles(name.lower(), f"in {name}'s hand") for name in names)
        for name, hand in zip(names, hands):
            if len(hand) > 2:
                raise BadPosition(f"{name} holds {len(hand)} tiles; a hand holds at most two (rule CR-4.3)")
        turn_name = (position.take("turn") or names[0]).upper()
        if turn_name not in names:
            raise BadPosition(f"turn: {turn_name} is not a seat; seats are {', '.join(names)}")
        turn = names.index(turn_name)
        placed = position.flag("placed")
        if placed and not row:
            raise BadPosition("placed: the row is empty, so no tile was placed")
        if placed and len(hands[turn]) > 1:
            raise BadPosition(f"placed: {turn_name} holds two tiles after placing one (rule CR-4.3)")
        if not placed and not hands[turn]:
            raise BadPosition(f"{turn_name} is to move but holds no tile")
        if "boneyard" in position.values:
            boneyard = position.tiles("boneyard", "in the boneyard")
        else:
            left = set(position.unseen())
            boneyard = tuple(t for t in self._shuffled(("hand", 0)) if t in left)
            for tile in boneyard:
                position.place(tile, "in the boneyard")
        gone = position.unseen()
        captured = position.numbers("captured", p, (0,) * p)
        if sum(captured) != len(gone) or min(captured) < 0:
            raise BadPosition(f"{len(gone)} tiles are in no hand, not in the row and not in the boneyard, "
                              f"but captured counts {sum(captured)}")
        scores = position.numbers("scores", p, (0,) * p)
        if any(scores) and number == 1:
            raise BadPosition("scores: nobody has scored before the first hand (write the hand)")
        if max(scores) >= self.options.target:
            raise BadPosition(f"scores: a score of {max(scores)} reached the target, so the match is over "
                              f"(rule CR-8.1)")
        position.done("row, P1..., turn, placed, boneyard, captured, hand, scores")
        out = tuple(t for hand in hands for t in hand) + row + tuple(gone)
        return CastleRockState(deck=out + boneyard, drawn=len(out), row=row, scores=scores, hand_no=number - 1,
                               dealer=(turn - 1) % p, hands=hands, captured=captured, turn=turn, placed=placed)

    def _start_match(self, s: CastleRockState, lots: tuple[Tile, ...]) -> None:
        """CR-2.1: the highest drawn tile deals the first hand."""
        s.dealer = max(range(self.players), key=lambda seat: rank(lots[seat]))
        self._deal(s)

    def _deal(self, s: CastleRockState) -> None:
        """Start hand `hand_no` (CR-3): stacks of two to each player from the dealer's left,
        then the starting row in the order dealt; the rest is the boneyard."""
        p = self.players
        s.deck = self._shuffled(("hand", s.hand_no))
        s.drawn = 0
        first = (s.dealer + 1) % p
        hands = [()] * p
        for k in range(p):
            hands[(first + k) % p] = (self._draw(s), self._draw(s))
        s.hands = tuple(hands)
        s.row = tuple(self._draw(s) for _ in range(self.row_size))
        s.caps = None
        s.captured = (0,) * p
        s.turn = first
        s.placed = False
        if self.observed and s.awaiting is None:
            s.awaiting = "deal" if s.hand_no else "row"  # CR-11.5, CR-11.1

    # -- moves --------------------------------------------------------------------------------

    def _unseen(self) -> tuple[Tile, ...]:
        """Observed mode: every tile in a hand or the boneyard, none of which the table has seen."""
        s = self.state
        return tuple(t for hand in s.hands for t in hand) + s.deck[s.drawn:]

    def _moves(self) -> Iterator[Move]:
        s = self.state
        if s.awaiting == "lots":
            return iter((Reveal("lots", self.dealer_draw),))
        if s.awaiting == "row":
            return iter((Reveal("row", s.row),))
        if s.awaiting == "deal":
            return iter((DEAL,))
        if not s.placed:
            return tuple(map(place, sorted(self._unseen()))) if self.observed else _places(s.hands[s.turn])
        caps = self._row_captures()
        if self._after_place[0] is not caps:  # the same captures as last time, unless the row changed
            self._after_place = (caps, caps + (END,))
        return self._after_place[1]

    @checks(Reveal)
    def _why_not_reveal(self, move: Reveal) -> IllegalMove | None:
        s = self.state
        if move.word != s.awaiting:
            if s.awaiting is None:
                return IllegalMove(f"`{move.word}` is not expected now: the hand is under way", rule="CR-11.1")
            return IllegalMove(f"first name the {self._awaited()}, not {move.word}", rule="CR-11.1")
        if move.word == "deal":
            return why_not_deal(move, "CR-11.5")
        count = self.players if move.word == "lots" else self.row_size
        if len(move.tiles) != count or len(set(move.tiles)) != count:
            what = "one tile per player, in seat order" if move.word == "lots" else "the tiles of the starting row"
            return IllegalMove(f"{move}: name {count} different tiles, {what}", rule="CR-11.1")
        return None

    def _awaited(self) -> str:
        if self.state.awaiting == "lots":
            return f"tiles drawn for dealer (lots, {self.players} tiles in seat order)"
        if self.state.awaiting == "deal":
            return f"deal for hand {self.state.hand_no + 1}, the last hand's row cleared away (deal)"
        return f"starting row of hand {self.state.hand_no + 1} (row, {self.row_size} tiles)"

    def _why_illegal(self, move: Move) -> IllegalMove | None:
        if self.state.awaiting is not None and type(move) is not Reveal:
            return IllegalMove(f"first name the {self._awaited()}, not {move}", rule="CR-11.1")
        return super()._why_illegal(move)

    @checks(Place)
    def _why_not_place(self, move: Place) -> IllegalMove | None:
        s = self.state
        who = self.side_names()[s.turn]
        if s.placed:
            return IllegalMove(f"{who} has already placed a tile this turn, so not {move.tile}",
                               rule="CR-4.1", tile=move.tile)
        if self.observed:
            if move.tile not in self._unseen():
                where = "in the row" if move.tile in s.row else "already out of play"
                return IllegalMove(f"{move.tile} is {where}, so it cannot come from {who}'s hand",
                                   rule="CR-11.3", tile=move.tile)
            return None
        if move.tile not in s.hands[s.turn]:
            return IllegalMove(f"{move.tile} is not in {who}'s hand", rule="CR-4.1", tile=move.tile)
        return None

    @checks(Capture)
    def _why_not_capture(self, move: Capture) -> IllegalMove | None:
        s = self.state
        if not s.placed:
            first = move.tiles[0]
            return IllegalMove(f"{self.side_names()[s.turn]} must place a tile before capturing {first}",
                               rule="CR-4.2", tile=first)
        return why_not_capture(s.row, move)

    @checks(End)
    def _why_not_end(self, move: End) -> IllegalMove | None:
        if not self.state.placed:
            return IllegalMove(f"{self.side_names()[self.state.turn]} must place a tile before ending the turn",
                               rule="CR-4.1")
        return None

    @applies(Place)
    def _place(self, move: Place) -> None:
        s = self.state
        if self.observed:
            self._hide_guess(lambda tile, pool: tile is not move.tile or pool == s.turn)
        hand = s.hands[s.turn]
        at = hand.index(move.tile)
        s.hands = replace_at(s.hands, s.turn, hand[:at] + hand[at + 1:])
        self._extend_row(move.tile)
        s.placed = True

    @applies(Capture)
    def _take(self, move: Capture) -> None:
        s = self.state
        s.captured = replace_at(s.captured, s.turn, s.captured[s.turn] + self._capture(move))

    @applies(Reveal)
    def _reveal(self, move: Reveal) -> None:
        s = self.state
        s.awaiting = None
        if move.word == "deal":
            s.awaiting = "row"  # CR-11.5, then CR-11.1
            return
        if move.word == "lots":
            self._start_match(s, move.tiles)
            return
        # CR-11.2: the named row comes out of the guessed hands and boneyard
        row = frozenset(move.tiles)
        pools = s.hands + (s.row, s.deck[s.drawn:])
        at = len(s.hands)
        pools = rearrange(pools, lambda tile, pool: (tile in row) == (pool == at))
        s.hands, s.deck = pools[:at], s.deck[:s.drawn] + pools[at + 1]
        s.row, s.caps = move.tiles, None

    def _hide_guess(self, fits) -> None:
        """Rearrange the guessed hands and boneyard so each unseen tile lies where `fits` allows."""
        s = self.state
        pools = rearrange(s.hands + (s.deck[s.drawn:],), fits)
        s.hands, s.deck = pools[:-1], s.deck[:s.drawn] + pools[-1]

    @applies(End)
    def _end_turn(self, move: End) -> None:
        """CR-4.3, CR-4.4: draw a replacement while the boneyard lasts; the next player round
        to the left who holds tiles moves; when every hand is empty the hand is scored."""
        s = self.state
        if s.drawn < len(s.deck):
            s.hands = replace_at(s.hands, s.turn, s.hands[s.turn] + (self._draw(s),))
        s.placed = False
        p = self.players
        for step in range(1, p + 1):
            seat = (s.turn + step) % p
            if s.hands[seat]:
                s.turn = seat
                return
        self._score_hand()

    def _score_hand(self) -> None:
        """CR-6, CR-7, CR-8: tally the hand, then end the match or deal the next hand."""
        s = self.state
        left = len(s.row)
        s.last_hand = HandScore(s.row, tuple(c - left for c in s.captured))
        s.scores = tuple(a + b for a, b in zip(s.scores, s.last_hand.points))
        if max(s.scores) >= self.options.target or s.hand_no + 1 >= self.options.hands:
            s.over = True
            s.turn = None
            return
        s.hand_no += 1
        s.dealer = (s.dealer + 1) % self.players
        self._deal(s)

    # -- results ------------------------------------------------------------------------------

    @property
    def current_player(self) -> int | None:
        return self.state.turn

    def is_over(self) -> bool:
        return self.state.over

    def winners(self) -> list[int]:
        """CR-8.2, CR-8.3: the highest score; a tie goes to the youngest hand, the tied player
        who plays latest in the last hand's turn order (the dealer plays last)."""
        s = self.state
        if not s.over:
            return []
        top = max(s.scores)
        tied = [seat for seat in range(self.players) if s.scores[seat] == top]
        return [max(tied, key=lambda seat: (seat - s.dealer - 1) % self.players)]

    def awaiting(self) -> str | None:
        return self.state.awaiting

    def hands(self) -> tuple[tuple[Tile, ...], ...]:
        """Each seat's hand (in observed mode, the engine's guess)."""
        return self.state.hands

    def placed(self) -> bool:
        """Whether the player to move has placed this turn's tile."""
        return self.state.placed

    def captured(self) -> tuple[int, ...]:
        """Tiles each seat has captured this hand."""
        return self.state.captured

    def hand_number(self) -> int:
        """The hand under way, from 0."""
        return self.state.hand_no

    def dealer(self) -> int:
        return self.state.dealer

    def last_hand(self) -> HandScore | None:
        """The hand scored last, once there is one."""
        return self.state.last_hand

    def hands_played(self) -> int:
        """Hands finished or under way (benchmarks count playout speed in hands)."""
        return self.state.hand_no + 1

    def heuristic(self, side: int) -> float:
        """Match score plus the tiles captured so far this hand (greedy's provisional value)."""
        return self.state.scores[side] + self.state.captured[side]

    def __str__(self) -> str:
        s = self.state
        names = self.side_names()
        lines = [f"{self.title} - hand {s.hand_no + 1}, dealer {names[s.dealer]}, "
                 f"boneyard {self.boneyard()}, target {self.options.target}", "  " + self.row_text()]
        if s.last_hand and s.turn is not None:
            row, points = s.last_hand
            lines.insert(1, f"  hand {s.hand_no} scored {' '.join(f'{n} {p:+d}' for n, p in zip(names, points))}; "
                            f"left in the row: {fmt(row) or 'none'}")
        for seat in range(self.players):
            mark = ">" if seat == s.turn else " "
            hand = f"{len(s.hands[seat])} hidden" if self.observed else fmt(s.hands[seat])
            lines.append(f"{mark} {names[seat]}: hand [{hand}]  captured {s.captured[seat]}"
                         f"  score {s.scores[seat]}")
        return "\n".join(lines)




@cache
def _places(hand: tuple[Tile, ...]) -> tuple[Place, ...]:
    """The moves placing a tile of `hand` (a hand holds at most two tiles, so few are ever made)."""
    return tuple(map(place, hand))
