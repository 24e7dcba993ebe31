"""The table's one voice. Every prompt a reader or the match core shows reads the same way:
what to do, then why, then the rule by number, "put 2-4 back between 0-0 and 4-4: ... (rule
CR-5.3)"; tiles by name, places as the tray names them (`span`: r4c6-r4c7, a zone, "the open
end"), never in an engine's own coordinates (a reader translates those: `Reader.in_tray_terms`)
nor by cell number. The typed instruction (instruction.py) and the fixes of a seat the table
plays are put in words here, and nowhere else: `said` and `fixed`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dominotable.reading.instruction import Do, Fix, Instruction, Step, Wrong
from dominotable.rules.errors import DominoError
from dominotable.rules.hidden import Reveal
from dominotable.tray.geometry import Geometry


def say(fix: str, why: str = "", rule: str | None = None) -> str:
    """`fix: why (rule R)`, any part left out when empty."""
    text = f"{fix}: {why}" if fix and why else fix or why
    return f"{text} (rule {rule})" if rule else text


def reason(error: DominoError) -> tuple[str, str | None]:
    """An engine's refusal as (its reason, its rule): the rule taken off the front of the message."""
    rule = getattr(error, "rule", None)
    text = str(error)
    return (text.removeprefix(f"rule {rule}: ") if rule else text), rule


def listed(items: Iterable[object], last: str = "and") -> str:
    """"a", "a and b", "a, b and c" (`last`: "or" for a choice)."""
    words = [str(item) for item in items]
    return f" {last} ".join(words) if len(words) < 3 else ", ".join(words[:-1]) + f" {last} " + words[-1]


def counted(count: int, noun: str) -> str:
    """"1 tile", "3 tiles"."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def slots(numbers: Iterable[int]) -> str:
    """"slot 2", "slots 1 and 3", "slots 1-7"."""
    numbers = sorted(numbers)
    if len(numbers) == 1:
        return f"slot {numbers[0]}"
    if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 2:
        return f"slots {numbers[0]}-{numbers[-1]}"
    return "slots " + listed(numbers)


def name(geometry: Geometry, cell: int) -> str:
    """A cell as the players find it: "r4c6", or the scan pad's side."""
    if geometry.is_pad(cell):
        return geometry.pad_names[geometry.pad.index(cell)]
    row, col = geometry.coords(cell)
    return f"r{row}c{col}"


def span(geometry: Geometry, cells) -> str:
    """`r4c6-r4c7` for a tile's cells."""
    return "-".join(name(geometry, cell) for cell in sorted(cells))


# -- the instruction --------------------------------------------------------------------------


def said(instruction: Instruction, geometry: Geometry, lit: bool = False) -> str:
    """What to do, without whose: the steps in order ("put a tile upright at the open end
    (r4c4-r5c4); take any captures; then End turn"), then what may be done instead. `lit`: the
    tray lights the steps' cells and slots (ui/lights.py), so the words point at them ("slot 6
    (5-6) -> the lit cells") instead of naming them; the other ways are not lit."""
    text = steps(instruction.steps, geometry, lit)
    if instruction.instead:
        text += "; or " + listed((steps(way, geometry) for way in instruction.instead), "or")
    return text


def steps(todo: Sequence[Step], geometry: Geometry, lit: bool = False) -> str:
    """Steps in order, the last after "then" ("...; take any captures; then End turn")."""
    parts = [(short(s) if lit else None) or step(s, geometry) for s in todo]
    if len(parts) > 1 and todo[-1].do != Do.DONE:
        parts[-1] = "then " + parts[-1]
    return "; ".join(parts)


def step(s: Step, geometry: Geometry) -> str:
    """One step in words."""
    tiles = listed(s.tiles)
    match s.do:
        case Do.LAY if not s.tiles:
            return f"put a tile {_places(s, geometry)}"
        case Do.LAY if s.slots:
            return f"slot {s.slots[0]} ({tiles}) -> {_where(s, geometry)}"
        case Do.LAY:
            return f"put {tiles} {_where(s, geometry)}"
        case Do.TAKE if s.tiles:
            return f"take {tiles} {s.place}".rstrip()
        case Do.TAKE:  # any the rules let you take: among the tiles outlined, if any are yet
            spots = [s.cells[i:i + 2] for i in range(0, len(s.cells), 2)]
            return "take any captures" + (f" among {listed(span(geometry, spot) for spot in spots)}" if spots else "")
        case Do.SLIDE if s.by is not None:  # every tile (the tableau, its rule), or these
            rows, cols = s.by
            ways = [f"{abs(cols)} {'right' if cols > 0 else 'left'}"] * bool(cols) + \
                   [f"{abs(rows)} {'down' if rows > 0 else 'up'}"] * bool(rows)
            return say(f"slide {'every tile' if s.rule else tiles} {', '.join(ways)}", rule=s.rule or None)
        case Do.SLIDE:
            return f"slide {tiles} {_where(s, geometry)}"
        case Do.DEAL:
            return f"{'a tile' if s.count == 1 else f'{s.count} tiles'} from the boneyard, face down, into {slots(s.slots)}"
        case Do.EMPTY:
            return f"hand over: take the tiles out of {slots(s.slots)}"
        case Do.PAD:
            return f"hold {tiles} over the scan pad"
        case Do.PRESS | Do.NOTE:
            return s.label
        case Do.DONE:
            return "the turn ends once the table reads it"
    raise AssertionError(f"a step of no kind: {s.do}")


def short(s: Step) -> str | None:
    """A step whose cells and slots the tray lights, pointing at them; None for one said as in
    full (nothing of it lit, or too little said by the cells: a slide of every tile, a button)."""
    tiles = listed(s.tiles)
    match s.do:  # what ui/lights.py lights of each kind
        case Do.LAY if s.tiles and s.slots:
            return f"slot {s.slots[0]} ({tiles}) -> the lit cells"
        case Do.LAY if s.tiles:
            return f"put {tiles} on the lit cells"
        case Do.TAKE if s.tiles:
            return f"take the {'lit tile' if len(s.tiles) == 1 else f'{len(s.tiles)} lit tiles'} {s.place}".rstrip()
        case Do.SLIDE if s.by is None:
            return f"slide {tiles} to the lit cells"
        case Do.DEAL:
            return f"{'a tile' if s.count == 1 else f'{s.count} tiles'} from the boneyard, face down, into the lit " \
                   f"{'slot' if len(s.slots) == 1 else 'slots'}"
        case Do.EMPTY:
            return "hand over: take the tiles out of the lit slots"
    return None


def _where(s: Step, geometry: Geometry) -> str:
    """Where a named tile goes: the game's name for the place and its cells ("upright at the open
    end, r4c6-r5c6"), or the cells and which half lies where ("r4c6-r4c7, the 3 on r4c6")."""
    cells = span(geometry, s.cells)
    if s.place:
        return f"{s.place}, {cells}"
    tile = s.tiles[0]
    return cells if tile.is_double else f"{cells}, the {tile.a} on {name(geometry, s.cells[0])}"


def _places(s: Step, geometry: Geometry) -> str:
    """Where any tile may go: the place named with its cells, or every place's cells."""
    spots = [s.cells[i:i + 2] for i in range(0, len(s.cells), 2)]
    cells = listed((span(geometry, spot) for spot in spots), "or")
    return f"{s.place}, {cells}" if s.place else f"on {cells}"


def scored(names: Sequence[str], points: Sequence[int], unit: str) -> str:
    """The hand-over: "ANN scored 5, BOB 0 (points)"."""
    return ", ".join(f"{name} {'scored ' if k == 0 else ''}{gain}" for k, (name, gain) in
                     enumerate(zip(names, points))) + f" ({unit})"


# -- a seat the table plays, put right -----------------------------------------------------------


def fixed(wrong: Wrong, geometry: Geometry) -> str:
    """What to put right about a seat the table plays, and why."""
    who, tiles, k = wrong.who, listed(wrong.tiles), wrong.slots
    told = said(wrong.told, geometry) if wrong.told is not None else ""
    match wrong.fix:
        case Fix.STRAY:
            return f"lay the tile on {span(geometry, wrong.cells)} in one slot of {who}'s rack, or take it off the rack"
        case Fix.SWAPPED:
            return f"{who}'s rack: move the tile in slot {k[0]} back to slot {k[1]}"
        case Fix.UNREAD:
            return (f"{who}: put the tile from slot {k[0]} where the table says, and let it be read before the "
                    f"rest of the turn")
        case Fix.RETURN:
            plays = f"; {who} plays the tile in slot {k[1]}" if len(k) > 1 else ""
            return f"{who}'s rack: put the tile from slot {k[0]} back, face down{plays}"
        case Fix.OFF_PAD:
            return (f"take the tile off the scan pad and put it back in slot {k[0]} of {who}'s rack, face down: "
                    f"a bot's tile is never shown (rule BW-11.4)")
        case Fix.EXTRA:
            return f"take the tile out of slot {k[0]} of {who}'s rack: {who} holds {counted(wrong.count, 'tile')}"
        case Fix.NEXT_SLOT:
            return f"{who}'s rack: put that tile in slot {k[0]}, the next free slot"
        case Fix.IN_PLAY:
            return f"take {tiles} out of {who}'s rack: it is already in play"
        case Fix.NOT_READY:
            return f"{who}'s rack is not ready: {told}"
        case Fix.NOT_PLAYED:
            return f"take {tiles} off" + (f"; {wrong.told.who}: {told}" if told else f": {who} has not played it")
        case Fix.NOT_TAKEN:
            return f"put {tiles} back: {who} has not taken {'it' if len(wrong.tiles) == 1 else 'them'}"
        case Fix.WAIT:
            return f"wait for {who}"
        case Fix.OTHER_WAY:
            return f"put {tiles} back: {who} takes them another way: {told}"
        case Fix.ELSEWHERE:
            return f"{who} plays {tiles} elsewhere: {told}"
        case Fix.TAKE_OFF:
            return f"take {tiles} off; {who}: {told}" if told else f"take {tiles} off: {who} lays no tile now"
        case Fix.PUT_BACK:
            return f"put {tiles} back: {who} takes {listed(wrong.taken) if wrong.taken else 'nothing'}"
        case Fix.NOT_NOW:
            return f"{who} does not do that now: {told}"
        case Fix.NOT_AS_PARTNER:
            return f"not as at {who}" + (f"; {wrong.told.who}: {told}" if told else "")
    raise AssertionError(f"a fix of no kind: {wrong.fix}")


def racks_held(held: dict[str, Sequence[int]]) -> str:
    """For "restore the table": each rack by its slots (its tiles stay hidden)."""
    return "; ".join(f"{who}'s tiles face down in {slots(numbers)}" for who, numbers in held.items() if numbers)


REVEALED = {"lots": "the draw", "row": "the starting row", "show": "the tiles shown", "lead": "who leads",
            "deal": "the deal"}  # a reveal, as a takeback names it


def named(move, label: str = "") -> str:
    """A move as a takeback names it, in the prompt's words: its tile ("6-5"), "the capture of 3-5
    and 2-6", what a reveal shows ("the starting row"), or its button ("End turn")."""
    if move.placed() is not None:
        return str(move.placed())
    if move.taken():
        return "the capture of " + listed(move.taken())
    if isinstance(move, Reveal):
        shown = f" ({listed(move.tiles)})" if move.word == "show" else ""
        return REVEALED.get(move.word, move.word) + shown
    return label or str(move)


def taken_back(moves: Sequence, what: str) -> str:
    """What a takeback with the button asks of the tray while it still shows `moves`, taken back
    (`what`: their names)."""
    placed = [m.placed() for m in moves if m.placed() is not None]
    taken = [t for m in moves for t in m.taken()]
    fixes = ([f"take {listed(placed)} off the tray"] if placed else []) + \
            ([f"put {listed(taken)} back where {'it' if len(taken) == 1 else 'they'} lay"] if taken else [])
    return f"{'; '.join(fixes) or 'put the tray back as it was'}: {what} is taken back"


def ruled_out(what: object, problem: object) -> str:
    """A seat the table plays whose own move the engine rules out: only a way out is left."""
    return f"{what} is ruled out ({problem}): take back to the move that ruled it out, or resign"


def no_room(what: object, problem: object) -> str:
    """A seat the table plays whose only moves need more tray than there is: only a way out is left."""
    return f"no room on the tray for {what} ({problem}): take back a move, or resign"
