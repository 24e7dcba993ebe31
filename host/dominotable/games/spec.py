"""What makes a game playable at the table: its spec, one frozen value per game naming every part
the table needs (python-chess's `VARIANTS`, made of types). A game is its own files (engine,
reader, hands, kernel, rule card) plus one spec registered in catalog.py; nothing else in the
table names a game or asks which game it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources

from dominotable.reading.prompts import listed
from dominotable.reading.reader import Reader
from dominotable.rules.game import Game
from dominotable.rules.hidden import Reveal, made_by
from dominotable.rules.moves import Move, Pass
from dominotable.rules.options import Options
from dominotable.rules.playout import Playout
from dominotable.rules.tiles import Tile
from dominotable.sim.bots.search import searcher
from dominotable.sim.bots.shared import SHARED, Strategy
from dominotable.sim.bots.turn import decide
from dominotable.sim.hands.base import Hands
from dominotable.tray.geometry import Geometry

StrategyFactory = Callable[..., Strategy]


@dataclass(frozen=True)
class Hint:
    text: str
    take: tuple[Tile, ...] = ()  # the tiles to take, in order (a capture plan)


# A game's own hint for the player to move (`hand`: that player's tiles, when the table knows
# them), or None for the bots' choice.
HintProvider = Callable[[Game, Sequence[Tile] | None, int, "GameSpec"], Hint | None]


def no_hint_of_its_own(game: Game, hand: Sequence[Tile] | None, seed: int, spec: GameSpec) -> Hint | None:
    return None


@dataclass(frozen=True)
class Said:
    """A recorded move as people read it: its number, who made it, its notation, its words."""

    ply: int
    who: str
    notation: str
    words: str


# A move in plain words, for people ("ANN captured 6-6 and 6-3 between 6-1 and 3-2"): `before` is
# the game as the move found it (a copy: a hook may look ahead on it), `names` one name per seat.
Words = Callable[[Game, Move, Sequence[str]], str]


def who(game: Game, names: Sequence[str], move: Move | None = None) -> str:
    """The name of the seat that makes `move` (rules/hidden.py's made_by: a reveal is the seat's it
    names, or the table's), or of the seat to move."""
    seat = game.current_player if move is None else made_by(game, move)
    return names[seat] if seat is not None and seat < len(names) else "the table"


def shared_words(before: Game, move: Move, names: Sequence[str]) -> str:
    """The moves every game may have (a pass, the tiles the table is shown), and any other as its
    notation; a game's own `words` says its own moves and leaves the rest to this."""
    if isinstance(move, Pass):
        return f"{who(before, names)} passed"
    if isinstance(move, Reveal):
        if move.word == "lots":
            drawn = ", ".join(f"{name} {tile}" for name, tile in zip(names, move.tiles))
            return f"lots drawn: {drawn}"
        if move.word == "row":
            return f"the starting row: {' '.join(map(str, move.tiles))}"
        if move.word == "show":
            return f"{who(before, names, move)} showed {listed(move.tiles)}, left in hand"
        if move.word == "lead":
            return f"{who(before, names, move)} leads"
        if move.word == "deal":
            return "the tiles cleared away for a new deal"
        return f"{who(before, names, move)}: {move}"
    return f"{who(before, names)} played {move}"


def stated(options: Options) -> str:
    """What ends a match under `options`, when a game says nothing of its own: its target."""
    return f"first to {options.target}" if options.target else ""


@dataclass(frozen=True)
class GameSpec:
    engine: type[Game]
    reader: type[Reader]  # how the tray shows it
    hands: type[Hands]  # how a bot's hands make a move on a tray
    card: str  # its rule card, in seeds/
    zones: tuple[str, ...]  # the tray's zones it uses (tray.toml)
    racks: str | None = None  # the tray's racks for the seats the table plays (none: no bot seats)
    remote: bool = False  # seats may sit at another table (match/remote.py)
    strategies: Mapping[str, StrategyFactory] = field(default_factory=lambda: dict(SHARED))
    bot: str = "greedy"  # the strategy a bot seat plays
    playout: type[Playout] | None = None  # the fast kernel for search and benchmarks (rules/playout.py)
    observed: bool = True  # at the table, hands and boneyard are hidden (the engine's observed mode)
    lower_wins: bool = False  # the score counts against the player (tiles left)
    demo: Mapping[str, object] = field(default_factory=dict)  # options for a short demo match
    own_hint: HintProvider = no_hint_of_its_own
    words: Words = shared_words  # a move in plain words
    goal: Callable[[Options], str] = stated  # what ends a match, short ("first to 50", "one hand")
    scoring: str = "points"  # what a score counts
    zones_used: Callable[[Options], tuple[str, ...]] | None = None  # the zones a match uses (None: all)
    # the options that bound a new match to the tray it is played on, from the tray and the cells the
    # bots' racks take (Broadway's room, BW-11.6); None: the game needs none
    bounds: Callable[[Geometry, frozenset[int]], dict] | None = None

    @property
    def name(self) -> str:
        return self.engine.name

    @property
    def title(self) -> str:
        return self.engine.title

    @property
    def options(self) -> type[Options]:
        return self.engine.Options

    @property
    def scores_run(self) -> str:
        """Which way the scores run, said for people."""
        return f"{self.scoring}: {'lower' if self.lower_wins else 'higher'} is better"

    def zones_for(self, options: Options) -> tuple[str, ...]:
        """The zones a match with these options uses: what a drawing of its tray shows."""
        return self.zones if self.zones_used is None else self.zones_used(options)

    def rule_card(self) -> str:
        """The game's rule card (seeds/, packaged as games/cards/), as Markdown."""
        return (resources.files(__package__) / "cards" / self.card).read_text(encoding="utf-8")

    def word(self, before: Game, move: Move, names: Sequence[str]) -> str:
        """One move in plain words (`before` is left as it is)."""
        try:
            return self.words(before.copy(), move, names)
        except Exception:  # noqa: BLE001 - words are for people: a slip in them must not cost a commit
            return shared_words(before, move, names)

    def narrate(self, start: Game, notations: Sequence[str], names: Sequence[str]) -> list[Said]:
        """A match's moves from `start` (its deal), each with its mover and in plain words."""
        game = start.copy()
        out = []
        for ply, text in enumerate(notations, 1):
            before = game.copy()
            move = game.push_notation(text)
            out.append(Said(ply, who(before, names, move), text, self.word(before, move, names)))
        return out

    def say(self, before: Game, moves: Sequence[Move], names: Sequence[str]) -> str:
        """Moves made one after another, in plain words, the mover named once ("ANN laid 3-5,
        then captured 2-4 between 0-0 and 4-4")."""
        game = before.copy()
        said = subject = ""
        for move in moves:
            text = self.word(game, move, names)
            mover = who(game, names, move) + " "
            if said and subject == mover and text.startswith(mover):
                said += ", then " + text[len(mover):]
            else:
                said += ("; " if said else "") + text
                subject = mover if text.startswith(mover) else ""
            game.push(move, trusted=True)
        return said

    @property
    def bot_seats(self) -> bool:
        """Whether the table can play some of its seats (its tiles in racks on the tray)."""
        return self.racks is not None

    def new(self, players: int | None, options: Options | dict | None, seed: int, observed: bool = True) -> Game:
        return self.engine(players=players, options=options, seed=seed, observed=observed and self.observed)

    def reader_for(self, game: Game, geometry: Geometry, players: Sequence[str] = ()) -> Reader:
        """The game's reader; `players`, the sides' names at the table, are the names its words use."""
        reader = self.reader(game, geometry)
        reader.players = tuple(players)
        return reader

    def hands_for(self, game: Game, geometry: Geometry) -> Hands:
        return self.hands(game, geometry)

    def cells(self, geometry: Geometry) -> frozenset[int]:
        """The cells the game uses on `geometry`: its zones, its racks, the scan pad."""
        return geometry.cells_of(self.zones, self.racks)

    def strategy(self, name: str | None = None) -> StrategyFactory:
        return self.strategies[name or self.bot]

    def hint(self, game: Game, hand: Sequence[Tile] | None = None, seed: int = 0) -> Hint:
        """The hint for the player to move; `hand`: that player's tiles, when the table knows them."""
        seat = game.current_player
        if seat is None:
            return Hint("the match is over")
        if game.awaiting():
            return Hint("no hint while the table waits for the tiles to be shown")
        own = self.own_hint(game.copy(), hand, seed, self)
        if own is not None:
            return own
        if hand is None and game.observed:
            return Hint("the table cannot see your tiles, so it has no hint")
        turn = decide(game, seat, hand if hand is not None else game.hands()[seat], seed, self.strategy())
        return Hint(f"the bots would play: {self.say(game, turn, game.side_names())}" if turn else "pass")

    def hints(self, game: Game, hand: Sequence[Tile] | None = None) -> bool:
        """Whether `hint` can say anything for the player to move now: a game's own hint, or the
        bots' choice where the player's tiles are known (Hint is offered only where it can act)."""
        if game.is_over() or game.awaiting() or game.current_player is None:
            return False
        return self.own_hint is not no_hint_of_its_own or hand is not None or not game.observed


STRENGTHS = {"random": "easy", "greedy": "normal", "search": "hard"}  # a bot's strategy as a person calls it


def strength(strategy: str) -> str:
    """A bot's strategy in a person's words (easy, normal, hard), or its own name: the setup (the
    OLED's menu and the page's form) and the leaderboards say it so."""
    return STRENGTHS.get(strategy, strategy)


def with_search(kernel: type[Playout], own: Mapping[str, StrategyFactory] | None = None) -> dict:
    """The shared strategies, a game's own, and `search` over its playout kernel."""
    return {**SHARED, **(own or {}), "search": searcher(kernel)}
