"""The game framework every rules engine fits.

A `Game` is a whole match of one game: its options, a seed that fixes every shuffle,
the move history, and a state. Like python-chess's Board it offers a lazy legal-move
view (`legal_moves()`), `is_legal` / `why_illegal` with a reason naming the rule and tile,
`push` / `pop`, and `outcome()`.

What a game MUST supply:

- `name`, `title`, `Options` (a dataclass of variants), `min_players` / `max_players`;
- a state: a `@dataclass(slots=True)` subclass of `State` whose fields are immutable values
  (tuples, frozensets, ints, immutable helpers such as `Line` or `Grid`). `push` gives each
  move a shallow copy of the state, and the move replaces the fields it changes;
- `_initial_state()`, which builds and returns the first state without touching `self.state`;
- `_moves()` (lazy or a tuple, legal only), `parse_move(text)`; moves print as their notation;
- one checker and one applier per move type, marked `@checks(MoveType)` / `@applies(MoveType)`
  (a game with a precondition common to every move overrides `_why_illegal` and calls super);
- `current_player`, `is_over()`, `winners()`, and `scores` unless the state holds `scores`.

What a game MAY override (each has a working default here):

- `side_of(seat)`, `side_names()`: partnerships (default: every seat its own side);
- `heuristic(side)`: a greedy bot's value of the position (default: the side's score);
- `final_score()`: the one number a solitaire ends on (default: None, no such number);
- `hands_played()`: hands (deals) finished or under way, for playout benchmarks (default 1);
- `awaiting()`: in observed mode, the reveal the table owes ("lots", "row", "lead", "show");
- `brief()`: one line for `demo` between full pictures (default: None, always the picture);
- `resign(seat)`: who wins when `seat` gives up (default: the best score among the others);
- `_state_from(position)` (and `_position_players`): the state a written position describes,
  for `Game.from_position` (position.py); by default a game has no written positions.

Shuffles come from `self.rng(label)`, which derives a fresh generator from the seed
and a label (for example the hand number), so undo and replay need no generator state.

`observed=True` is play at a real table, where hands and the boneyard are hidden: the
seeded deal is only the engine's private guess for the tiles nobody has seen, and the
moves name what the players reveal (see hidden.py and each rule card's "At the table").
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from dominotable.rules.errors import BadOption, DominoError, IllegalMove, SealedGame
from dominotable.rules.moves import Move
from dominotable.rules.options import Options
from dominotable.rules.outcome import Outcome, Termination
from dominotable.rules.position import BadPosition, Position
from dominotable.rules.tiles import DominoSet, Tile


def seeded(engine: type[Game], seed: int, label: object) -> random.Random:
    """The generator `engine(seed=seed).rng(label)` gives, without building the engine."""
    return random.Random(f"{engine.name}:{seed}:{label}")


def replace_at(items: tuple, index: int, item) -> tuple:
    """`items` with position `index` holding `item` (states keep tuples, so copies are cheap)."""
    changed = list(items)
    changed[index] = item
    return tuple(changed)


def _copier(cls: type) -> Callable[[Any], Any]:
    """A function copying every field of dataclass `cls` by reference, generated once per class
    as dataclasses generates __init__ (and three times as fast as calling __init__ with them)."""
    body = "".join(f"    new.{name} = self.{name}\n" for name in cls.__dataclass_fields__)
    namespace = {"new_object": object.__new__, "cls": cls}
    exec(f"def copy(self):\n    new = new_object(cls)\n{body}    return new\n", namespace)
    return namespace["copy"]


class State:
    """Base of the engines' states, each a `@dataclass(slots=True)` of immutable values:
    `copy()` is shallow, and a move replaces the fields it changes."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__dataclass_fields__" in cls.__dict__:  # the class dataclass(slots=True) builds
            cls.copy = _copier(cls)

    def copy(self):
        raise TypeError(f"{type(self).__name__} is not a @dataclass(slots=True) State")


def checks(*types: type[Move]):
    """Mark a method `why_not(self, move) -> IllegalMove | None` as the check of these move types."""
    def mark(method):
        method.checks = types
        return method
    return mark


def applies(*types: type[Move]):
    """Mark a method `apply(self, move)` as what these move types do to the (copied) state."""
    def mark(method):
        method.applies = types
        return method
    return mark


class LegalMoves:
    """The legal moves of a position, like python-chess's LegalMoveGenerator: iterate it
    (lazily where the game generates lazily), test it (`bool`), `count()` it, ask `move in`
    it, or take `all()` as a tuple."""

    __slots__ = ("_game",)

    def __init__(self, game: Game):
        self._game = game

    def __iter__(self) -> Iterator[Move]:
        game = self._game
        return iter(()) if game.is_over() else iter(game._moves())

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self._game.is_legal(move)

    def all(self) -> Sequence[Move]:
        game = self._game
        if game.is_over():
            return ()
        moves = game._moves()
        return moves if type(moves) is tuple else tuple(moves)

    def count(self) -> int:
        return len(self.all())

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(map(str, self))})>"


class ByMoveType:
    """Collects each subclass's methods marked `@checks` / `@applies` into tables by move type
    (`_checkers`, `_appliers`); an override of a marked method replaces it in the tables."""

    _checkers: ClassVar[dict[type, Callable]] = {}
    _appliers: ClassVar[dict[type, Callable]] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._checkers, cls._appliers = {}, {}
        for name in dir(cls):
            method = getattr(cls, name, None)
            for kind in getattr(method, "checks", ()):
                cls._checkers[kind] = method
            for kind in getattr(method, "applies", ()):
                cls._appliers[kind] = method


class Game(ByMoveType, ABC):
    name: ClassVar[str]
    title: ClassVar[str]
    Options: ClassVar[type[Options]] = Options
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 1
    default_players: ClassVar[int] = 1

    def __init__(self, players: int | None = None, options: Options | dict | None = None, seed: int = 0,
                 observed: bool = False):
        if options is None:
            options = self.Options()
        elif isinstance(options, dict):
            options = self.Options.from_dict(options)
        elif not isinstance(options, self.Options):
            raise BadOption(f"{self.name} takes {self.Options.__name__}, not {type(options).__name__}")
        self.options = options
        self.players = self.default_players if players is None else players
        if not (self.min_players <= self.players <= self.max_players):
            span = (f"{self.min_players}" if self.min_players == self.max_players
                    else f"{self.min_players} to {self.max_players}")
            raise BadOption(f"{self.title} is for {span} players, not {self.players}")
        self.seed = seed
        self.observed = observed
        self.setup: str | None = None  # the written position the match started from, if any
        self.dset = DominoSet(options.set)
        self._history: list[Move] = []
        self._before: list[Any] = []  # the state before each move, for pop (two lists: no tuple per move)
        self._sealed = False
        self.state = self._initial_state()

    # -- what each game supplies ---------------------------------------------------------

    @abstractmethod
    def _initial_state(self) -> State: ...

    @abstractmethod
    def _moves(self) -> Iterator[Move] | tuple[Move, ...]: ...

    @abstractmethod
    def parse_move(self, text: str) -> Move: ...

    @property
    @abstractmethod
    def current_player(self) -> int | None:
        """The seat to move, or None when the match is over."""

    @property
    def scores(self) -> list[int]:
        """Match score per side (per seat, or per partnership where there are partnerships);
        by default the state's `scores`."""
        return list(self.state.scores)

    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def winners(self) -> list[int]:
        """Winning sides once the match is over (empty for a lost solitaire)."""

    def _why_illegal(self, move: Move) -> IllegalMove | None:
        """The check registered with `@checks` for the move's type."""
        check = self._checkers.get(type(move))
        if check is None:
            return IllegalMove(f"{move} is not a {self.title} move")
        return check(self, move)

    def _apply(self, move: Move) -> None:
        """What the move registered with `@applies` for its type does to `self.state` (a copy)."""
        self._appliers[type(move)](self, move)

    # -- what each game may override -------------------------------------------------------

    @classmethod
    def _position_players(cls, position: Position) -> int | None:
        """How many players a written position has (None: the default)."""
        return None

    def _state_from(self, position: Position) -> State:
        """The state a written position describes (position.py), or BadPosition."""
        raise BadPosition(f"{self.title} has no written positions")

    def side_of(self, seat: int) -> int:
        return seat

    def side_names(self) -> list[str]:
        return [f"P{i + 1}" for i in range(self.players)]

    def heuristic(self, side: int) -> float:
        """How good the position is for `side`, for the greedy bot: by default its score."""
        return self.scores[side]

    def final_score(self) -> int | None:
        """The one number a solitaire ends on, where it has one (win-rate statistics)."""
        return None

    def hands_played(self) -> int:
        """Hands (deals) finished or under way: what playout benchmarks count."""
        return 1

    def awaiting(self) -> str | None:
        """Observed mode: the word of the reveal the table owes now (`lots`, `row`, `lead`,
        `show`), or None while play goes on."""
        return None

    def brief(self) -> str | None:
        """One line on the position for `demo` between full pictures, or None for the picture."""
        return None

    def shown_tiles(self) -> frozenset[Tile]:
        """Observed mode: the tiles left in hands that the table has shown (none in a game
        that never shows hands)."""
        return frozenset()

    def face_up(self) -> frozenset[Tile]:
        """Tiles a player holds face up, seen by all (none in most games)."""
        return frozenset()

    def resign(self, seat: int) -> Outcome:
        """The outcome if `seat` resigns now: its side loses, and the other sides with the
        best score win (nobody, in a solitaire)."""
        loser = self.side_of(seat)
        scores = self.scores
        others = [side for side in range(len(scores)) if side != loser]
        top = max((scores[side] for side in others), default=None)
        return Outcome(Termination.RESIGNED, tuple(side for side in others if scores[side] == top))

    # -- provided --------------------------------------------------------------------------

    def rng(self, label: object) -> random.Random:
        return seeded(type(self), self.seed, label)

    def legal_moves(self) -> LegalMoves:
        """A view of the legal moves in this position."""
        return LegalMoves(self)

    def why_illegal(self, move: Move) -> IllegalMove | None:
        if self.is_over():
            return IllegalMove(f"the {self.title} match is over; {move} cannot be played")
        return self._why_illegal(move)

    def is_legal(self, move: Move) -> bool:
        return self.why_illegal(move) is None

    def outcome(self) -> Outcome | None:
        """How the match ended by the rules, or None while it goes on."""
        if not self.is_over():
            return None
        return Outcome(Termination.PLAYED, tuple(self.winners()))

    def push(self, move: Move, trusted: bool = False) -> None:
        """Play `move`, or raise IllegalMove (naming rule and tile) leaving the state unchanged.

        `trusted=True` skips the check, for a move just taken from `legal_moves()` (bots, playouts).
        """
        if self._sealed:
            raise SealedGame(f"the live {self.title} engine changes only through its committer; ask a copy()")
        if not trusted:
            error = self.why_illegal(move)
            if error is not None:
                raise error
        before = self.state
        self._before.append(before)
        self._history.append(move)
        self.state = before.copy()
        self._apply(move)
    @classmethod
    def from_position(cls, text: str, options: Options | dict | None = None, seed: int = 0,
                      observed: bool = False) -> Game:
        """A match starting from a written position (position.py) instead of the seeded deal;
        BadPosition names what the rules could not reach. Tiles the position leaves unplaced
        lie in the seeded order."""
        game = cls(players=cls._position_players(Position(text, DominoSet(cls.Options.set))),
                   options=options, seed=seed, observed=observed)
        game.state = game._state_from(Position(text, game.dset))
        game.setup = text
        return game

    def push_notation(self, text: str) -> Move:
        move = self.parse_move(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        if self._sealed:
            raise SealedGame(f"the live {self.title} engine changes only through its committer; ask a copy()")
        if not self._history:
            raise IndexError("no move to take back")
        self.state = self._before.pop()
        return self._history.pop()

    @property
    def moves(self) -> list[Move]:
        return list(self._history)

    def copy(self) -> Game:
        """An independent copy of the match: the same position and history. Pushing or popping
        the copy never touches this game (states are immutable values, so it costs one list copy);
        a copy is never sealed. Every look ahead or back is asked of a copy."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._history, new._before, new._sealed = self._history[:], self._before[:], False
        return new

    def seal(self) -> None:
        """Make this the live engine of a match: `push` and `pop` raise SealedGame unless inside
        `changing()`, which only the match's committer uses. Queries still work."""
        self._sealed = True

    @contextmanager
    def changing(self) -> Iterator[Game]:
        """Unseal for one change (the committer's, once the store has it)."""
        sealed, self._sealed = self._sealed, False
        try:
            yield self
        finally:
            self._sealed = sealed

    # -- serialization ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.name,
            "players": self.players,
            "seed": self.seed,
            "options": self.options.to_dict(),
            "moves": [str(m) for m in self.moves],
        } | ({"observed": True} if self.observed else {}) | ({"position": self.setup} if self.setup else {})

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """A game of this class saved with `to_dict()`, its moves replayed (app.catalog.load
        finds the class for any saved game)."""
        try:
            if data["game"] != cls.name:
                raise DominoError(f"not a saved {cls.title} game: it is {data['game']!r}")
            if data.get("position"):
                game = cls.from_position(data["position"], options=data.get("options") or {}, seed=data["seed"],
                                         observed=bool(data.get("observed", False)))
            else:
                game = cls(players=data["players"], options=data.get("options") or {}, seed=data["seed"],
                           observed=bool(data.get("observed", False)))
            moves = data["moves"]
        except (KeyError, TypeError) as exc:
            raise DominoError(f"not a saved game: missing or bad {exc}") from None
        for i, text in enumerate(moves):
            try:
                game.push_notation(text)
            except DominoError as exc:
                raise DominoError(f"saved game move {i + 1} ({text}): {exc}") from None
        return game

    @classmethod
    def from_json(cls, text: str) -> Game:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DominoError(f"not a saved game: {exc}") from None
        return cls.from_dict(data)
