"""Castle Rock captures: the single captures of a row, and an exact analysis of a turn's captures.

Rules (seeds/castle-rock.md): a tile whose two current neighbours share a suit may be taken
(CR-5.1, "middle"); three adjacent tiles sharing one suit may be taken together (CR-5.2,
"triple"); the row closes up after each capture and a turn may chain any number of
captures anywhere (CR-5.3); captures are optional (CR-5.4); a row of fewer than three tiles
allows none (CR-5.5).

A capture is named by its tiles, not by a position, so the notation survives squeezes:
`x2-4` takes 2-4 from between its neighbours, `x2-4+4-4+0-4` takes those three together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dominotable.rules.errors import (
    DominoError,
    DuplicateTile,
    IllegalMove,
    InvalidNotation,
)
from dominotable.rules.moves import Move
from dominotable.rules.tiles import DominoSet, Tile

MIDDLE = "middle"
TRIPLE = "triple"


@dataclass(frozen=True)
class Capture(Move):
    """One capture. `index` is where its first tile stood when it was found (not compared)."""

    kind: str
    index: int = field(compare=False)
    tiles: tuple[Tile, ...]

    def __str__(self) -> str:
        return "x" + "+".join(str(t) for t in self.tiles)

    def taken(self) -> tuple[Tile, ...]:
        return self.tiles


def parse_capture(text: str, dset: DominoSet) -> Capture:
    """Inverse of `str(capture)`: `x3-5` or `x2-4+4-4+0-4` (the leading x is optional)."""
    body = text.strip()
    body = body[1:] if body[:1] in ("x", "X") else body
    tokens = body.split("+")
    if len(tokens) not in (1, 3) or not all(tok.strip() for tok in tokens):
        raise InvalidNotation(f"{text.strip()!r} is not a capture; write x3-5 or x2-4+4-4+0-4")
    tiles = tuple(dset.parse_many(tokens))
    return Capture(MIDDLE if len(tiles) == 1 else TRIPLE, -1, tiles)


def single_captures(row: Sequence[Tile], first: int = 1) -> list[Capture]:
    """Every capture available in `row` right now, left to right, middles before triples;
    only those whose middle tile stands at `first` or later if given."""
    found: list[Capture] = []
    for k in range(max(first, 1), len(row) - 1):
        left, mid, right = row[k - 1], row[k], row[k + 1]
        common = left.suits & right.suits
        if common:
            found.append(Capture(MIDDLE, k, (mid,)))
            if common & mid.suits:
                found.append(Capture(TRIPLE, k - 1, (left, mid, right)))
    return found


def why_not_capture(row: Sequence[Tile], capture: Capture) -> IllegalMove | None:
    """None if `capture` can be made in `row` now, else the reason (rule and tile)."""
    first = capture.tiles[0]

    def refuse(message: str, rule: str = "CR-5.1" if capture.kind == MIDDLE else "CR-5.2") -> IllegalMove:
        return IllegalMove(message, rule=rule, tile=first)

    try:
        at = row.index(first)
    except ValueError:
        return refuse(f"{first} is not in the row")
    if len(row) < 3:
        return refuse(f"no capture with only {len(row)} tile(s) in the row", "CR-5.5")
    if capture.kind == MIDDLE:
        if at == 0 or at == len(row) - 1:
            return refuse(f"{first} is at the end of the row, so nothing pinches it")
        left, right = row[at - 1], row[at + 1]
        if not left.suits & right.suits:
            return refuse(f"{first}'s neighbours {left} and {right} share no suit")
        return None
    shown = " ".join(str(t) for t in capture.tiles)
    if len(capture.tiles) != 3:
        return refuse("a triple capture takes exactly three tiles")
    if tuple(row[at:at + 3]) != capture.tiles:
        return refuse(f"{shown} are not three adjacent tiles in the row")
    a, b, c = capture.tiles
    if not a.suits & b.suits & c.suits:
        return refuse(f"{shown} do not all share one suit")
    return None


def squeeze(row: tuple[Tile, ...], capture: Capture) -> tuple[Tile, ...]:
    """The row after `capture`, which must be available (CR-5.3: the row closes up)."""
    at = row.index(capture.tiles[0])
    return row[:at] + row[at + len(capture.tiles):]


def apply_capture(row: Sequence[Tile], capture: Capture) -> list[Tile]:
    """The row after `capture`, closed up (CR-5.3). Raises IllegalMove if it is not available."""
    problem = why_not_capture(row, capture)
    if problem is not None:
        raise problem
    return list(squeeze(tuple(row), capture))


# -- exact analysis -------------------------------------------------------------------------
#
# Number the row 1..n and put suitless sentinels at 0 and n+1. Tiles that survive a turn are
# never touched, so the tiles strictly between two consecutive survivors are cleared on their
# own. R(i, j) means "everything strictly between i and j can be cleared while i and j stay".
# Look at the last capture inside (i, j): either a middle capture of the one remaining tile k
# (i and j are real tiles sharing a suit, R(i, k) and R(k, j)), or a triple k1 < k2 < k3 sharing
# a suit s (R(i, k1), R(k1, k2), R(k2, k3), R(k3, j)). Conversely any such pieces combine.
#
# Everything is kept column-wise as Python-int bitsets: col[j] = {i : R(i, j)}. With
#   P[k2][s] = union of col[k1] over k1 in col[k2] holding s        (s in k2)
#   T[k3]    = union of P[k2][s] over s in k3, k2 in col[k3] holding s
# (T[k3] = the i from which a triple ending at k3 can be the last capture), col[j] is the
# closure of {j-1} under k -> (col[k] & pinchers(j)) | T[k], where pinchers(j) are the real
# tiles sharing a suit with j. Each bit found costs O(1) big-int operations, so the whole
# table costs O(#true pairs) <= O(n^2) of them.


@dataclass(frozen=True)
class Plan:
    max_captured: int
    steps: list[Capture]
    remaining: list[Tile]


@dataclass(frozen=True)
class Verdict:
    legal: bool
    reason: str


def _check_unique(row: Sequence[Tile]) -> None:
    seen: set[Tile] = set()
    for tile in row:
        if tile in seen:
            raise DuplicateTile(f"tile {tile} appears twice in the row")
        seen.add(tile)


class Analysis:
    """The exact capture analysis of one row (call `analyse(row)`)."""

    def __init__(self, row: Sequence[Tile]):
        _check_unique(row)
        self.row = tuple(row)
        n = len(self.row)
        suits = [0, *(t.suits for t in self.row), 0]
        lows = [(), *(((1 << t.a),) if t.is_double else (1 << t.a, 1 << t.b) for t in self.row), ()]
        by_suit: dict[int, int] = {}
        for p in range(1, n + 1):
            for low in lows[p]:
                by_suit[low] = by_suit.get(low, 0) | (1 << p)
        self._suits = suits
        self._by_suit = by_suit
        col = [0] * (n + 2)
        P: list[dict[int, int]] = [{}] * (n + 2)
        T = [0] * (n + 2)
        for j in range(1, n + 2):
            pinchers = 0
            for low in lows[j]:
                pinchers |= by_suit[low]
            found = 0
            pending = 1 << (j - 1)
            while pending:
                k = pending.bit_length() - 1
                bit = 1 << k
                found |= bit
                pending = (pending ^ bit) | (((col[k] & pinchers) | T[k]) & ~found)
            col[j] = found
            if not pinchers:
                continue
            pj: dict[int, int] = {}
            t = 0
            for low in lows[j]:
                u = 0
                m = found & by_suit[low]
                while m:
                    k = m.bit_length() - 1
                    m ^= 1 << k
                    u |= col[k]
                    t |= P[k][low]
                pj[low] = u
            P[j] = pj
            T[j] = t
        self._col = col
        self._P = P
        self._T = T
        self._best: Plan | None = None

    def can_clear(self, i: int, j: int) -> bool:
        """R(i, j) on positions 0..n+1 (0 and n+1 are the row's ends)."""
        return bool(self._col[j] >> i & 1)

    @property
    def clearable(self) -> bool:
        return self.can_clear(0, len(self.row) + 1)

    def _fewest_survivors(self, lo: int, hi: int) -> list[int]:
        """Positions strictly between lo and hi that survive in a best clearing of (lo, hi)."""
        col = self._col
        cost = [0] * (hi + 1)
        back = [0] * (hi + 1)
        for j in range(lo + 1, hi + 1):
            m = col[j] >> lo << lo
            best = hi
            while m:
                i = m.bit_length() - 1
                m ^= 1 << i
                if cost[i] < best:
                    best, back[j] = cost[i], i
            cost[j] = best + 1
        kept = []
        j = back[hi]
        while j != lo:
            kept.append(j)
            j = back[j]
        kept.reverse()
        return kept

    def _witness(self, i: int, j: int, out: list[tuple[int, ...]]) -> None:
        """Append position tuples of captures clearing (i, j); R(i, j) must hold."""
        if j == i + 1:
            return
        col, suits, above = self._col, self._suits, ~((2 << i) - 1)
        if suits[i] & suits[j]:
            m = col[j] & above
            while m:
                k = m.bit_length() - 1
                m ^= 1 << k
                if col[k] >> i & 1:
                    self._witness(i, k, out)
                    self._witness(k, j, out)
                    out.append((k,))
                    return
        m = col[j] & above
        while m:
            k3 = m.bit_length() - 1
            m ^= 1 << k3
            if not self._T[k3] >> i & 1:
                continue
            for low in self._P[k3]:
                mask = self._by_suit[low]
                m2 = col[k3] & mask & above
                while m2:
                    k2 = m2.bit_length() - 1
                    m2 ^= 1 << k2
                    if not self._P[k2][low] >> i & 1:
                        continue
                    m1 = col[k2] & mask & above
                    while m1:
                        k1 = m1.bit_length() - 1
                        m1 ^= 1 << k1
                        if col[k1] >> i & 1:
                            for a, b in ((i, k1), (k1, k2), (k2, k3), (k3, j)):
                                self._witness(a, b, out)
                            out.append((k1, k2, k3))
                            return
        raise AssertionError(f"no witness for R({i}, {j})")

    def _captures(self, groups: list[tuple[int, ...]]) -> list[Capture]:
        """Turn position tuples into Captures, with indices in the row as it stands at each step."""
        alive = list(range(1, len(self.row) + 1))
        steps = []
        for group in groups:
            at = alive.index(group[0])
            del alive[at:at + len(group)]
            tiles = tuple(self.row[p - 1] for p in group)
            steps.append(Capture(MIDDLE if len(group) == 1 else TRIPLE, at, tiles))
        return steps

    def best(self) -> Plan:
        """The most tiles this turn's captures can take, and one order of captures taking them."""
        if self._best is None:
            n = len(self.row)
            kept = self._fewest_survivors(0, n + 1)
            groups: list[tuple[int, ...]] = []
            for a, b in zip([0, *kept], [*kept, n + 1]):
                self._witness(a, b, groups)
            self._best = Plan(n - len(kept), self._captures(groups), [self.row[p - 1] for p in kept])
        return self._best

    def _name(self, p: int) -> str:
        if p == 0:
            return "the start of the row"
        if p == len(self.row) + 1:
            return "the end of the row"
        return str(self.row[p - 1])

    def _why_not_cleared(self, a: int, b: int) -> str:
        """Why the tiles strictly between positions a and b cannot all go while a and b stay."""
        gap = self.row[a:b - 1]
        shown = " ".join(str(t) for t in gap)
        verb = "cannot be captured" if len(gap) == 1 else "cannot all be captured"
        where = f"{shown} between {self._name(a)} and {self._name(b)} {verb}"
        if len(gap) == 1:
            if a == 0 or b == len(self.row) + 1:
                stays = self._name(b if a == 0 else a)
                return (f"{where}: at the end of the row {shown} has a neighbour on one side only"
                        f" (CR-5.1), and a triple would also take {stays}")
            return (f"{where}: {self._name(a)} and {self._name(b)} share no suit (CR-5.1),"
                    f" and a triple would also take {self._name(a)} or {self._name(b)}")
        kept = self._fewest_survivors(a, b)
        if len(kept) == len(gap):
            return f"{where}: none of them can be captured while those two stay"
        groups: list[tuple[int, ...]] = []
        for lo, hi in zip([a, *kept], [*kept, b]):
            self._witness(lo, hi, groups)
        example = " ".join(str(c) for c in self._captures(groups))
        left = " ".join(self._name(p) for p in kept)
        return (f"{where}: while those two stay at most {len(gap) - len(kept)} of the {len(gap)}"
                f" can be (e.g. {example}, leaving {left})")

    def _positions(self, after: Sequence[Tile]) -> list[int]:
        """Where the tiles of `after` stand in the row; DominoError unless it is a subsequence."""
        _check_unique(after)
        where = {tile: p for p, tile in enumerate(self.row, 1)}
        kept: list[int] = []
        for tile in after:
            p = where.get(tile)
            if p is None:
                raise DominoError(f"tile {tile} is in the row after but not in the row before")
            if kept and p < kept[-1]:
                raise DominoError(f"tile {tile} is out of place: before the captures it came"
                                  f" before {self.row[kept[-1] - 1]}")
            kept.append(p)
        return kept

    def _route(self, after: Sequence[Tile]) -> tuple[list[Capture] | None, str]:
        kept = self._positions(after)
        if len(kept) == len(self.row):
            return [], "no captures: the row is unchanged"
        if len(self.row) < 3:
            return None, f"no capture is possible with only {len(self.row)} tile(s) in the row (CR-5.5)"
        groups: list[tuple[int, ...]] = []
        for a, b in zip([0, *kept], [*kept, len(self.row) + 1]):
            if not self.can_clear(a, b):
                return None, self._why_not_cleared(a, b)
            self._witness(a, b, groups)
        steps = self._captures(groups)
        return steps, "reached by " + " ".join(str(c) for c in steps)

    def reachable(self, after: Sequence[Tile]) -> tuple[bool, str]:
        """Can this turn's captures turn the row into `after`? (answer, reason).

        Raises DominoError when `after` is not the row with some tiles taken out.
        """
        steps, reason = self._route(after)
        return steps is not None, reason

    def completion(self, after: Sequence[Tile]) -> tuple[Tile, ...] | None:
        """The reachable row that keeps the most tiles of `after` (a row with some tiles taken
        out): `after` itself if reachable, else the fewest further removals that make the
        removals so far one legal turn of captures; None if no further removals can."""
        kept = self._positions(after)
        if len(self.row) < 3:
            return tuple(after) if len(kept) == len(self.row) else None
        stops = [0, *kept, len(self.row) + 1]
        most: list[int | None] = [0] + [None] * (len(stops) - 1)  # tiles kept up to each stop
        back = [0] * len(stops)
        for j in range(1, len(stops)):
            for i in range(j):
                if most[i] is not None and self.can_clear(stops[i], stops[j]) and (most[j] is None or most[i] + 1 > most[j]):
                    most[j], back[j] = most[i] + 1, i
        if most[-1] is None:
            return None
        survivors, j = [], back[-1]
        while j:
            survivors.append(self.row[stops[j] - 1])
            j = back[j]
        return tuple(reversed(survivors))

    def captures_to(self, after: Sequence[Tile]) -> list[Capture]:
        """One legal order of captures turning the row into `after`; IllegalMove (CR-5.3) if none."""
        steps, reason = self._route(after)
        if steps is None:
            raise IllegalMove(reason, rule="CR-5.3")
        return steps


def analyse(row: Sequence[Tile]) -> Analysis:
    return Analysis(row)


def check_capture(before: Sequence[Tile], after: Sequence[Tile]) -> Verdict:
    """Is `after` what some legal sequence of captures makes of `before` in one turn?"""
    return Verdict(*Analysis(before).reachable(after))


def brute_force(row: Sequence[Tile]) -> set[tuple[Tile, ...]]:
    """Every row a turn's captures can leave, by trying every order (tests and benchmarks only)."""
    start = tuple(row)
    seen = {start}
    stack = [start]
    while stack:
        here = stack.pop()
        for capture in single_captures(here):
            there = tuple(apply_capture(here, capture))
            if there not in seen:
                seen.add(there)
                stack.append(there)
    return seen
