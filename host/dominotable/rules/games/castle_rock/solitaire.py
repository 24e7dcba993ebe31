"""Castle Rock Solitaire (seeds/castle-rock-solitaire.md): Castle Rock's row and captures, alone.

Three tiles start the row; `draw` puts the next boneyard tile at the right end (CRS-4);
captures are Castle Rock's (CR-5). Options choose when drawing is allowed and what wins.

The `solver` strategy rests on one fact (tested against brute force in the tests): a
capture never depends on what lies to the right of its tiles, and a draw only adds at the
right, so any mix of draws and captures can be replayed as "the same draws first, then the
same captures". Hence with `draw=any-time` the best play needs no look at the boneyard:
under `win=all-captured` draw everything, then clear the row if the capture analysis says it
can be cleared; under `win=tableau-empty` clear the row as soon as the row dealt so far can
be cleared. The clairvoyant (who sees the draw order) can do no better there. With
`draw=when-blocked` every capture is forced before the next draw, the choice of captures
matters, and the clairvoyant searches every choice against the known draw order.

Observed mode (CRS-9): the row starts empty and every draw names the tile that lands
(`draw 3-5`); the seeded order is only the guess for the tiles still face down.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dominotable.rules.errors import IllegalMove, InvalidNotation
from dominotable.rules.game import applies, checks
from dominotable.rules.games.castle_rock.capture import (
    Capture,
    single_captures,
    squeeze,
    why_not_capture,
)
from dominotable.rules.games.castle_rock.engine import DRAW, CaptureRowGame, Draw, End, Place, RowState
from dominotable.rules.hidden import rearrange
from dominotable.rules.moves import Move
from dominotable.rules.options import Options, option
from dominotable.rules.tiles import Tile

ANY_TIME, WHEN_BLOCKED = "any-time", "when-blocked"
ALL_CAPTURED, TABLEAU_EMPTY = "all-captured", "tableau-empty"


@dataclass(frozen=True)
class SolitaireOptions(Options):
    set: int = option(6, "domino set: the highest double", choices=(6, 9, 12))
    draw: str = option(ANY_TIME, "when a tile may be drawn", choices=(ANY_TIME, WHEN_BLOCKED))
    win: str = option(ALL_CAPTURED, "what wins: every tile captured, or the row emptied at any point",
                      choices=(ALL_CAPTURED, TABLEAU_EMPTY))


def can_win(deck: tuple[Tile, ...], row: tuple[Tile, ...], drawn: int, draw: str, win: str,
            memo: dict | None = None) -> bool:
    """Exhaustive search: from this row, with deck[drawn:] still to come in that order, can
    some sequence of captures and draws win? Exponential with `draw=any-time`, so used there
    only by tests on small decks; with `draw=when-blocked` it is the clairvoyant's search."""
    memo = {} if memo is None else memo
    key = (row, drawn)
    if key in memo:
        return memo[key]
    if not row and (win == TABLEAU_EMPTY or drawn == len(deck)):
        result = True
    else:
        captures = single_captures(row)
        result = any(can_win(deck, squeeze(row, c), drawn, draw, win, memo) for c in captures)
        if not result and drawn < len(deck) and (draw == ANY_TIME or not captures):
            result = can_win(deck, row + (deck[drawn],), drawn + 1, draw, win, memo)
    memo[key] = result
    return result


@dataclass(frozen=True)
class DrawTile(Move):
    """Observed mode: a draw naming the tile that landed at the right end (CRS-9.1)."""

    tile: Tile

    def __str__(self) -> str:
        return f"draw {self.tile}"


@dataclass(slots=True)
class SolitaireState(RowState):
    captured: int = 0
    won: bool = False
    over: bool = False


class CastleRockSolitaire(CaptureRowGame):
    name = "castle-rock-solitaire"
    title = "Castle Rock Solitaire"
    Options = SolitaireOptions
    move_words = (DRAW,)

    def _initial_state(self) -> SolitaireState:
        s = SolitaireState(deck=self._shuffled("deal"))
        if not self.observed:
            s.row = tuple(self._draw(s) for _ in range(3))
        return s

    def _dealing(self) -> bool:
        """Observed mode only: the three starting tiles are still being drawn (CRS-9.1)."""
        return self.observed and self.state.drawn < 3

    def _draw_allowed(self, captures) -> bool:
        return bool(self.boneyard()) and (self._dealing() or self.options.draw == ANY_TIME or not captures)

    def _moves(self) -> Iterator[Move]:
        moves = self._row_captures()
        if self._draw_allowed(moves):
            s = self.state
            moves += tuple(map(DrawTile, s.deck[s.drawn:])) if self.observed else (DRAW,)
        return iter(moves)

    def draw_move(self) -> Move:
        """The draw as this game writes it; in observed mode it names the guessed next tile."""
        s = self.state
        return DrawTile(s.deck[s.drawn]) if self.observed else DRAW

    def parse_move(self, text: str) -> Move:
        word, _, rest = text.strip().lower().partition(" ")
        if word == DRAW.word and rest.strip():
            try:
                return DrawTile(self.dset.parse(rest))
            except InvalidNotation as exc:
                raise InvalidNotation(f"{exc}; at the table a draw names its tile: draw 3-5") from None
        return super().parse_move(text)

    @checks(Capture)
    def _why_not_capture(self, move: Capture) -> IllegalMove | None:
        return why_not_capture(self.state.row, move)

    @checks(Draw, DrawTile)
    def _why_not_draw(self, move: Draw | DrawTile) -> IllegalMove | None:
        s = self.state
        if self.observed != isinstance(move, DrawTile):
            form = "names the tile that landed (draw 3-5)" if self.observed else "is just `draw`"
            return IllegalMove(f"{move}: a draw {form} in this game", rule="CRS-9.1",
                               tile=move.tile if isinstance(move, DrawTile) else None)
        if not self.boneyard():
            return IllegalMove("the boneyard is empty; nothing to draw", rule="CRS-4.1")
        if isinstance(move, DrawTile) and move.tile not in s.deck[s.drawn:]:
            return IllegalMove(f"{move.tile} is already face up ({self._where(move.tile)}), so it cannot be drawn",
                               rule="CRS-9.1", tile=move.tile)
        if self.options.draw == WHEN_BLOCKED and not self._dealing():
            available = self._row_captures()
            if available:
                return IllegalMove(f"draw only when no capture is left, and {available[0]} is available",
                                   rule="CRS-4.2", tile=available[0].tiles[0])
        return None

    @checks(Place, End)
    def _why_not_place(self, move: Place | End) -> IllegalMove | None:
        tile = move.tile if isinstance(move, Place) else None
        return IllegalMove(f"tiles come only from the boneyard (draw), so {move} cannot be placed",
                           rule="CRS-4.1", tile=tile)

    @applies(DrawTile)
    def _draw_named(self, move: DrawTile) -> None:
        s = self.state
        front, rest = rearrange(((s.deck[s.drawn],), s.deck[s.drawn + 1:]),
                                lambda tile, pool: (tile is move.tile) == (pool == 0))
        s.deck = s.deck[:s.drawn] + front + rest
        self._draw_next(DRAW)

    @applies(Draw)
    def _draw_next(self, move: Draw) -> None:
        self._extend_row(self._draw(self.state))
        self._check_blocked()

    @applies(Capture)
    def _take(self, move: Capture) -> None:
        s = self.state
        s.captured += self._capture(move)
        if not s.row and (self.options.win == TABLEAU_EMPTY or not self.boneyard()):
            s.won = s.over = True
            return
        self._check_blocked()

    def _check_blocked(self) -> None:
        if not self.boneyard() and not self._row_captures():
            self.state.over = True

    def _where(self, tile: Tile) -> str:
        return "in the row" if tile in self.state.row else "captured"

    @property
    def current_player(self) -> int | None:
        return None if self.state.over else 0

    @property
    def scores(self) -> list[int]:
        return [self.state.captured]

    def is_over(self) -> bool:
        return self.state.over

    def winners(self) -> list[int]:
        return [0] if self.state.won else []

    def heuristic(self, side: int) -> float:
        return self.state.captured

    def __str__(self) -> str:
        s = self.state
        result = " - won" if s.won else " - lost" if s.over else ""
        return (f"{self.title} (draw {self.options.draw}, win {self.options.win}){result}\n"
                f"  {self.row_text()}\n  boneyard {self.boneyard()}, captured {s.captured}")
