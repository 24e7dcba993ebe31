"""The game framework every rules engine fits.

A `Game` is a whole match of one game: its options, a seed that fixes every shuffle,
the move history, and a state. Like python-chess's Board it offers a lazy legal-move
generator, `is_legal` / `why_illegal` with a reason naming the rule and tile, and
`push` / `pop`. Each game supplies only:

- `Options` (a dataclass of variants), `min_players` / `max_players`;
- `_initial_state()` and a state object with a cheap `copy()`;
- `_moves()` (lazy, legal only), `_why_illegal(move)`, `_apply(move)`;
- `parse_move(text)`; moves print as their notation with `str(move)`;
- `current_player`, `is_over()`, `winners()`, and `scores` unless the state holds them.

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
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from dominotable.rules.errors import BadOption, DominoError, IllegalMove
from dominotable.rules.options import Options
from dominotable.rules.tiles import DominoSet


def replace_at(items: tuple, index: int, item) -> tuple:
    """`items` with position `index` holding `item` (states keep tuples, so copies are cheap)."""
    changed = list(items)
    changed[index] = item
    return tuple(changed)


class Move:
    """Base of every game's moves: frozen dataclasses whose `str()` is their notation."""


class Game(ABC):
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
        top = getattr(options, "set", 6)
        self.dset = DominoSet(top)
        self._history: list[Move] = []
        self._before: list[Any] = []  # the state before each move, for pop (two lists: no tuple per move)
        self.state = self._initial_state()

    # -- what each game supplies ---------------------------------------------------------

    @abstractmethod
    def _initial_state(self) -> Any: ...

    @abstractmethod
    def _moves(self) -> Iterator[Move]: ...

    @abstractmethod
    def _why_illegal(self, move: Move) -> IllegalMove | None: ...

    @abstractmethod
    def _apply(self, move: Move) -> None: ...

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

    def side_of(self, seat: int) -> int:
        return seat

    def side_names(self) -> list[str]:
        return [f"P{i + 1}" for i in range(self.players)]

    # -- provided --------------------------------------------------------------------------

    def rng(self, label: object) -> random.Random:
        return random.Random(f"{self.name}:{self.seed}:{label}")

    def legal_moves(self) -> Iterable[Move]:
        """The legal moves: lazily generated, or a tuple where a game has them at hand."""
        if self.is_over():
            return iter(())
        return self._moves()

    def why_illegal(self, move: Move) -> IllegalMove | None:
        if self.is_over():
            return IllegalMove(f"the {self.title} match is over; {move} cannot be played")
        return self._why_illegal(move)

    def is_legal(self, move: Move) -> bool:
        return self.why_illegal(move) is None

    def push(self, move: Move, trusted: bool = False) -> None:
        """Play `move`, or raise IllegalMove (naming rule and tile) leaving the state unchanged.

        `trusted=True` skips the check, for a move just taken from `legal_moves()` (bots, playouts).
        """
        if not trusted:
            error = self.why_illegal(move)
            if error is not None:
                raise error
        self._before.append(self.state.copy())
        self._history.append(move)
        self._apply(move)

    def push_notation(self, text: str) -> Move:
        move = self.parse_move(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        if not self._history:
            raise IndexError("no move to take back")
        self.state = self._before.pop()
        return self._history.pop()

    @property
    def moves(self) -> list[Move]:
        return list(self._history)

    # -- serialization ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.name,
            "players": self.players,
            "seed": self.seed,
            "options": self.options.to_dict(),
            "moves": [str(m) for m in self.moves],
        } | ({"observed": True} if self.observed else {})

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """A game of this class saved with `to_dict()`, its moves replayed (app.catalog.load
        finds the class for any saved game)."""
        try:
            if data["game"] != cls.name:
                raise DominoError(f"not a saved {cls.title} game: it is {data['game']!r}")
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
