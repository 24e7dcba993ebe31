"""The engine's guess at hidden tiles in observed mode, kept consistent with what was seen.

At a real table the engine cannot see hands or the boneyard. It keeps the seeded deal as
a guess: `pools` (a tuple of tuples: each hand, the boneyard) holding every unseen tile.
What the players reveal becomes a rule of where a tile may lie: a tile played by P2 must
have been in P2's hand; a pass says the passer holds no tile that fits; a tile shown face
up belongs to its owner. `rearrange` moves tiles along shortest chains until every tile
lies where `fits(tile, pool)` allows, keeping every pool's size and every unmoved tile's
position (a boneyard keeps its draw order). It is exact (augmenting paths, as in bipartite
matching): it returns None only when no deal at all agrees with the rules given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dominotable.rules.errors import IllegalMove, InvalidNotation
from dominotable.rules.moves import Move
from dominotable.rules.tiles import DominoSet, Tile, fmt

Pools = tuple[tuple[Tile, ...], ...]


def rearrange(pools: Sequence[Sequence[Tile]], fits: Callable[[Tile, int], bool]) -> Pools | None:
    """`pools` with misplaced tiles moved along augmenting paths (each tile that moves takes the
    slot of the tile it displaces), or None if no arrangement fits."""
    slots = [list(pool) for pool in pools]
    homeless = []
    for p, pool in enumerate(slots):
        for k, tile in enumerate(pool):
            if not fits(tile, p):
                homeless.append(tile)
                pool[k] = None
    for tile in homeless:
        if not _settle(slots, tile, fits):
            return None
    return tuple(tuple(pool) for pool in slots)


def _settle(slots: list[list], tile: Tile, fits) -> bool:
    """Put `tile` in a pool it fits, pushing tiles on pool to pool until one fills a hole."""
    came_from: dict[int, tuple[int | None, Tile]] = {}  # pool -> (pool the tile came from, tile)
    queue = []
    for p in range(len(slots)):
        if fits(tile, p):
            came_from[p] = (None, tile)
            queue.append(p)
    for p in queue:  # breadth first: the queue grows while it is walked
        if None in slots[p]:
            _shift(slots, came_from, p, slots[p].index(None))
            return True
        for moved in slots[p]:
            for q in range(len(slots)):
                if q not in came_from and fits(moved, q):
                    came_from[q] = (p, moved)
                    queue.append(q)
    return False


def _shift(slots, came_from, pool: int, slot: int) -> None:
    while True:
        source, tile = came_from[pool]
        slots[pool][slot] = tile
        if source is None:
            return
        pool, slot = source, slots[source].index(tile)


@dataclass(frozen=True)
class Reveal(Move):
    """Tiles the table shows the engine, led by a word: `lots 6-6 3-4` (the tiles drawn for
    dealer or leader, in seat order), `row 1-6 0-6 0-0` (a starting row), `show P2 3-5 1-2`
    (a seat's tiles left at the end of a hand), `lead S` (who leads), `deal` (the last hand's
    tiles gathered off the table, to be shuffled and dealt again)."""

    word: str
    tiles: tuple[Tile, ...] = ()
    seat: str | None = None

    def __str__(self) -> str:
        return " ".join([self.word] + ([self.seat] if self.seat else []) + [str(t) for t in self.tiles])


DEAL = Reveal("deal")  # between hands: every tile of the last hand gathered off the table for the deal


def why_not_deal(move: Reveal, rule: str) -> IllegalMove | None:
    """Why `move` is not the plain `deal` (it names no tile and no seat)."""
    if move.tiles or move.seat:
        return IllegalMove(f"{move}: the deal names no tiles and no seat; write `deal`", rule=rule)
    return None


def made_by(game, move: Move) -> int | None:
    """The seat that makes `move` in `game`'s position, for the record: the player to move,
    except for a reveal, which is the seat it names (`lead S`, `show P2 3-5`), or the table's
    (None) when it names none (`lots`, `row`, `deal`). The player to move is then the engine's
    guess at who holds a hidden tile, never the revealer."""
    if not isinstance(move, Reveal):
        return game.current_player
    if move.seat is None:
        return None
    return next((seat for seat in range(game.players) if game.seat_word(seat) == move.seat), None)


def parse_reveal(text: str, dset: DominoSet, words: dict[str, bool]) -> Reveal | None:
    """A Reveal if `text` starts with one of `words` (word -> whether a seat follows it), else None."""
    parts = text.split()
    if not parts or parts[0].lower() not in words:
        return None
    word = parts[0].lower()
    seat = None
    if words[word]:
        if len(parts) < 2:
            raise InvalidNotation(f"{text.strip()!r}: name the seat after {word}, e.g. `{word} P2 3-5`")
        seat = parts[1].upper()
    return Reveal(word, tuple(dset.parse_many(parts[1 + (seat is not None):])), seat)


def arrange_hands(hands: Pools, barred: Sequence[frozenset], fixed: frozenset, face_up: frozenset,
                  fits: Callable[[Tile, int], bool]) -> Pools | None:
    """The guessed hands rearranged so every hidden tile lies where `fits` allows and no seat
    holds a tile its passes rule out (`barred`); the hands of `fixed` seats (shown) and
    `face_up` tiles stay with their owners."""
    return rearrange(hands, lambda t, seat: t in hands[seat] if t in face_up or seat in fixed
                     else t not in barred[seat] and fits(t, seat))


def why_not_owed(move: Move, awaiting: str | None, wanted: dict[str | None, str], rule: str) -> IllegalMove | None:
    """Why `move` is not a reveal with the word the table owes (`wanted` names what is owed for
    each word, None for play as usual); None when it is."""
    if isinstance(move, Reveal) and move.word == awaiting:
        return None
    return IllegalMove(f"{move} is not expected now: the table owes {wanted[awaiting]}", rule=rule)


def why_not_show(who: str, held: int, tiles: tuple[Tile, ...], why_not_hold: Callable[[Tile], IllegalMove | None],
                 agrees: Callable[[], bool], rules: tuple[str, str],
                 refuse: Callable[[], IllegalMove | None] = lambda: None) -> IllegalMove | None:
    """Why `tiles` cannot be the tiles `who` shows at the end of a hand: `who` has no hidden
    tiles left (`held` 0), `refuse` says so, they are not `held` different tiles, one of them
    cannot be in `who`'s hand, or (`agrees` false) the other hands could then not agree with
    their passes. `rules` are the rule numbers of the show and of the passes."""
    show_rule, pass_rule = rules
    if not held:
        return IllegalMove(f"{who} has no hidden tiles left to show", rule=show_rule)
    error = refuse()
    if error is not None:
        return error
    if len(tiles) != held or len(set(tiles)) != len(tiles):
        return IllegalMove(f"{who} holds {held} tile{'s' * (held != 1)}; show each of them once, not {len(tiles)}",
                           rule=show_rule)
    for tile in tiles:
        error = why_not_hold(tile)
        if error is not None:
            return error
    if not agrees():
        return IllegalMove(f"if {who} held {fmt(tiles)}, the other hands could not agree with their passes",
                           rule=pass_rule, tile=tiles[0])
    return None


class ObservedHands:
    """The engine's guess at the hidden hands, mixed into an engine whose state keeps `hands`,
    `barred` (per seat, the unseen tiles its passes rule out), `revealed` (the seats whose hands
    were shown) and `turn`; tiles held face up (`face_up()`) stay with their owners. The engine
    says which unseen tiles a seat could play now (`_fitting(seat)`)."""

    def ruled_out(self, seat: int) -> frozenset[Tile]:
        """Observed mode: the unseen tiles `seat` cannot hold, having passed when they fitted."""
        return self.state.barred[seat]

    def to_show(self) -> list[int]:
        """Observed mode: the seats that still owe the tiles left in their hands."""
        s = self.state
        return [seat for seat, hand in enumerate(s.hands) if hand and seat not in s.revealed]

    def who_shows(self, tiles) -> str | None:
        """Whose tiles left `tiles` are, when the table cannot tell (laid out together at the end
        of a hand): the first seat still to show, in seat order, that can hold them all (its
        count, and no pass of its ruling one out); else the first holding as many; else the first
        still to show. Written as the `show` move names seats."""
        tiles = tuple(sorted(tiles))
        owing = [seat for seat in self.to_show() if len(self.state.hands[seat]) == len(tiles)] or self.to_show()
        words = [self.seat_word(seat) for seat in owing]
        fitting = (w for w in words if self.why_illegal(Reveal("show", tiles, w)) is None)
        return next(fitting, words[0] if words else None)

    def seat_word(self, seat: int) -> str:
        """How reveals name `seat` (`P2`, `S`)."""
        return self.side_names()[seat]

    def shown_tiles(self) -> frozenset[Tile]:
        """Observed mode: the tiles left in hands that the table has shown."""
        s = self.state
        return frozenset(t for seat in s.revealed for t in s.hands[seat])

    def _unseen(self) -> list[Tile]:
        """Tiles in hands, neither shown nor face up: in observed mode the hands are a guess at them."""
        s, up = self.state, self.face_up()
        return sorted(t for seat, hand in enumerate(s.hands) if seat not in s.revealed for t in hand if t not in up)

    def _arrange(self, fits: Callable[[Tile, int], bool]) -> Pools | None:
        """The guessed hands rearranged so every unseen tile lies where `fits` and the passes allow."""
        s = self.state
        return arrange_hands(s.hands, s.barred, s.revealed, self.face_up(), fits)

    def _holding(self, seat: int, tile: Tile) -> Pools | None:
        return self._arrange(lambda t, at: t is not tile or at == seat)

    def _show_arrangement(self, seat: int, tiles) -> Pools | None:
        shown = frozenset(tiles)
        return self._arrange(lambda t, at: (t in shown) == (at == seat))

    def _pass_arrangement(self) -> Pools | None:
        """A deal in which the player to move holds no unseen tile that could be played."""
        turn = self.state.turn
        fitting = self._fitting(turn)
        return self._arrange(lambda t, seat: seat != turn or t not in fitting)
