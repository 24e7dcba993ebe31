"""Doubles in the Boneyard at the table: the line lies anywhere on the grid and may bend.

Rules DB-8.x of seeds/doubles-in-the-boneyard.md ("At the table: reading the tray"). The
engine's line says which tiles lie in it and in what order; the tray says where. Every
tile touches the tile before it number to number (DB-8.2), so the free half of each end
tile is known, and a new tile is a play on the end whose free half it touches with the
same number (DB-8.3). A game's first tile is read only on a tray the last game's tiles have
left (DB-8.1): the match's draw for the lead waits for a clear tray, and every later game
for the deal, recorded once the tray has been seen clear (DB-7.6).
"""

from __future__ import annotations

from dominotable.reading.prompts import counted, listed
from dominotable.reading.reader import Draw, Verdict
from dominotable.reading.step import (
    StepReader,
    first_move,
    half_cell,
    handling,
    on_its_way,
    problem,
    waiting,
)
from dominotable.rules.games.doubles_boneyard.engine import (
    DoublesInTheBoneyard,
    Play,
    line_text,
)
from dominotable.rules.hidden import DEAL, Reveal
from dominotable.rules.line import LEFT, RIGHT, Line
from dominotable.rules.moves import PASS
from dominotable.tray.board import Board, Placement


def joints(line: Line):
    """(outer tile, inner tile, number they share) for every touching pair, from the first
    tile outwards on each side."""
    for side, start in ((LEFT, line.first.a), (RIGHT, line.first.b)):
        inner, shared = line.first, start
        for tile, open_value in line.sides[side]:
            yield tile, inner, shared
            inner, shared = tile, open_value


def _not_a_double(tile) -> str | None:
    return None if tile.is_double else f"{tile} is not a double; only doubles are drawn for the lead (rule DB-7.1)"


def end_tile(line: Line, end: int):
    return line.sides[end][-1][0] if line.sides[end] else line.first


class DoublesBoneyardReader(StepReader):
    game: DoublesInTheBoneyard

    # -- reading -------------------------------------------------------------------------

    def open_ends(self, placed: dict) -> list[tuple[int, int, int]]:
        """(end, number, cell of the end tile's free half) for both ends of the line."""
        line = self.game.line()
        return [(end, number, half_cell(placed[end_tile(line, end)], number))
                for end, number in self.game.open_ends()]

    def touching(self, placement: Placement, ends) -> list[int]:
        """The ends whose free half `placement` touches with the same number."""
        neighbours = self.geometry.neighbours
        return [end for end, number, free in ends
                if any(placement.pips_at(cell) == number and cell in neighbours(free)
                       for cell in placement.cells)]

    def step(self, board: Board) -> Verdict:
        game = self.game
        placed = {p.tile: p for p in board.tiles()}
        word = game.awaiting()
        if word == "deal":
            return self.read_deal(placed)
        if word is not None:
            return self.read_reveal(word, placed, board)
        line = game.line()
        if line is None:
            return self.read_lead(placed, board)
        broken = self.broken_line(line, placed)
        if broken is not None:
            return broken
        in_line = set(line.tiles())
        new = [p for tile, p in placed.items() if tile not in in_line]
        if not new:
            return Verdict()
        ends = self.open_ends(placed)
        verdicts = []
        for placement in new:
            where = self.touching(placement, ends)
            if len(where) == 1 or (len(where) == 2 and line.ends[LEFT] == line.ends[RIGHT]):
                verdicts.append(self.legal(Play(placement.tile, where[0]), board, placement.cells))
            elif len(where) == 2:
                verdicts.append(problem(f"{placement.tile} touches both open ends; move it against one "
                                        f"of them (rule DB-8.3)", placement.cells))
        verdict = first_move(verdicts) or self.misplaced(new[0], ends)
        return on_its_way(verdict, new[0], [placed[t] for t in in_line], self.geometry)

    def broken_line(self, line: Line, placed: dict) -> Verdict | None:
        """A line tile lifted or no longer touching its neighbour number to number (DB-8.2)."""
        label = self.geometry.label
        for tile in line.tiles():
            if tile not in placed:
                return handling(f"put {tile} back in the line ({line_text(line)}) (rule DB-8.2)")
        for outer, inner, shared in joints(line):
            here, there = half_cell(placed[outer], shared), half_cell(placed[inner], shared)
            if there not in self.geometry.neighbours(here):
                return handling(f"put {outer} back with its {shared} against the {shared} of {inner} "
                                f"at {label(there)} (rule DB-8.2)", placed[outer].cells)
        return None

    def read_lead(self, placed: dict, board: Board) -> Verdict:
        """A game's first tile (DB-8.1): any one tile, anywhere. At a real table the tray was seen
        clear first (the deal), so more tiles are more than one player's (pending: hands may be
        taking one back). Without observed play there is no deal: more tiles are the last game's."""
        game = self.game
        leader = self.side_names()[game.current_player]
        if not placed:
            return Verdict()
        if len(placed) > 1:
            if game.observed:
                return handling(f"game {game.game_number()} opens with one tile, {leader}'s: take all but one of "
                                f"{', '.join(map(str, placed))} off (rule DB-8.1)",
                                [c for p in placed.values() for c in p.cells])
            return waiting(f"gather the tiles ({len(placed)} left); then {leader} leads game {game.game_number()}")
        (tile, placement), = placed.items()
        return self.legal(Play(tile), board, placement.cells)

    def read_deal(self, placed: dict) -> Verdict:
        """Between games (DB-7.6, DB-8.1): the deal once the last game's tiles have all left the
        tray; until then a note of how many are left, never a lead (a leftover is no play)."""
        game = self.game
        if not placed:
            return Verdict(moves=(DEAL,))
        leader = self.side_names()[game.current_player]
        return waiting(f"gather the tiles ({len(placed)} left); then {leader} leads game {game.game_number()}")

    def read_reveal(self, word: str, placed: dict, board: Board) -> Verdict:
        """Observed play (DB-8.5): the doubles drawn for the lead are read over the scan pad by
        the session (`pad_draw`); at the end of a game each player's tiles left are laid out,
        one player at a time."""
        game, names = self.game, self.side_names()
        if word == "lots":
            if placed and game.line() is None:  # the match's first draw, on a clear tray (DB-8.1)
                return handling(f"clear the tray ({counted(len(placed), 'tile')}): the doubles drawn for the lead are read "
                                f"over the scan pad, then the leader lays the first tile (rule DB-8.5)",
                                [c for p in placed.values() for c in p.cells])
            return waiting("draw doubles for the lead over the scan pad, one player at a time (rule DB-8.5)")
        line = game.line()
        broken = self.broken_line(line, placed) if line is not None else None
        if broken is not None:  # the game's last play lifted: its takeback, not a tile left out of the line
            return broken
        kept = set(line.tiles()) if line else set()
        kept |= game.shown_tiles()
        new = [p for tile, p in placed.items() if tile not in kept and not tile.is_double]
        if new:
            tiles = tuple(sorted(p.tile for p in new))  # whose, the tray cannot tell: whose they can be
            return self.legal(Reveal(word, tiles, game.who_shows(tiles)), board, [c for p in new for c in p.cells])
        return waiting(f"show your tiles: lay those left on the tray, clear of the line; game {game.game_number()} "
                       f"is over (rule DB-8.5)", listed(names[i] for i in game.to_show()))

    def misplaced(self, placement: Placement, ends) -> Verdict:
        tile, label = placement.tile, self.geometry.label
        wanted = [f"the open {number} at {label(free)} with its {number}"
                  for _, number, free in ends if tile.has(number)]
        if not wanted:
            shown = " and ".join(str(number) for _, number, _ in ends)
            return problem(f"{tile} matches neither open end ({shown}): take it back (rule DB-3.3)",
                           placement.cells)
        return problem(f"{tile} must touch {' or '.join(dict.fromkeys(wanted))} (rule DB-8.3)", placement.cells)

    # -- buttons, restoring --------------------------------------------------------------------

    def pad_draw(self) -> Draw | None:
        if self.game.awaiting() != "lots":
            return None
        return Draw(tuple(self.game.lots_seats()), "for the lead", "DB-8.5", check=_not_a_double)

    def button_moves(self, board: Board | None = None) -> list:
        return self.buttons(("pass", PASS))

    def expected(self) -> str:
        game, line = self.game, self.game.line()
        names = self.side_names()
        if game.is_over():
            return "match over: the tray may be cleared"
        if line is None:
            return f"game {game.game_number()}: an empty tray; {names[game.current_player]} leads"
        return (f"game {game.game_number()}: the line {line_text(line)}, each tile touching the next "
                f"number to number; open ends {line.ends[LEFT]} and {line.ends[RIGHT]}")

