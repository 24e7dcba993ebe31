"""The tray's lights (issue 29): the cells a screen is about, lit under the tiles with one meaning
per colour (host/dominotable/ui/lights.py), sent over the link to the firmware, which latches them
on its LED chains (the virtual tray's emulated chains here: what a person at the tray would see).

The whole match: a person plays Castle Rock against three bots at the simulated table (the pty,
the firmware, the link; table_seats.Person does what the screen says for the bots), and at every
step the tray's LEDs are checked against what the screen says in words: a bot's step lights
exactly its cells (the slot its tile comes from blue, where it goes green, tiles to take yellow),
the person's own turn lights nothing unless they asked for a hint, a misplaced tile is red until
it is put right."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from dominotable.app import config
from dominotable.reading import prompts
from dominotable.reading.instruction import Do, Instruction, Step
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.rules.tiles import Tile
from dominotable.tray.geometry import default
from dominotable.ui.lights import COLOURS, LEGEND, LightsConfig, Meaning, TrayLights, colour, marks
from dominotable.ui.menu import Choice, Setup
from dominotable.ui.oled.screens import draw
from dominotable.ui.press import Press
from dominotable.ui.screen import Game, Rack, Screen, ScreenKind
from dominotray import pins
from support.polling import until
from support.table_seats import PLACE, RACK, TAKE, Person, PtyTable, slot_numbers

NAMES = ["ANN", "West bot", "North bot", "East bot"]
GEO = default()
WEST = next(r for r in GEO.racks("castle-rock") if r.name == "west")


def capped(rgb):
    return tuple(v * pins.LIGHT_BRIGHTNESS // 255 for v in rgb)


def game(racks=()):
    return Game("castle-rock", "Castle Rock", 1, 10, "play", racks=racks)


class Link:
    """The link's face the lights see: what they were last asked to show."""

    def __init__(self):
        self.lit = None
        self.connected = True

    def light(self, lit):
        self.lit = lit


# -- what a screen lights -------------------------------------------------------------------------

def bots(*steps, who="West bot", seat=1):
    return Instruction(seat, who, steps, table=True)


def test_a_bots_step_lights_its_slot_blue_where_the_tile_goes_green_and_tiles_to_take_yellow():
    """Read from the typed instruction, one meaning per step's kind, never from the words."""
    slot, rack = WEST.slots[0], (Rack("West bot", "west", WEST.slots),)
    tray = ((Tile(2, 5), slot), (Tile(3, 3), (70, 86)))

    def lit(said, text="words the lights never read"):
        return marks(Screen(ScreenKind.PROMPT, said.who, text, seat=said.who, game=game(rack), tray=tray,
                            instruction=said))

    assert lit(bots(Step(Do.LAY, (Tile(2, 5),), (100, 116), (1,)))) == \
        {slot[0]: Meaning.FROM, slot[1]: Meaning.FROM, 100: Meaning.GOES, 116: Meaning.GOES}
    assert lit(bots(Step(Do.TAKE, (Tile(3, 3),), (70, 86)))) == {70: Meaning.TAKE, 86: Meaning.TAKE}
    assert lit(bots(Step(Do.DEAL, slots=(1, 2), count=2))) == \
        dict.fromkeys((*WEST.slots[0], *WEST.slots[1]), Meaning.GOES)  # into the slots: where tiles go
    assert lit(bots(Step(Do.EMPTY, slots=(1,)))) == dict.fromkeys(slot, Meaning.FROM)  # out of them
    assert lit(bots(Step(Do.SLIDE, (Tile(3, 3),), (71, 87)))) == {71: Meaning.GOES, 87: Meaning.GOES}
    assert lit(bots(Step(Do.PRESS, label="End turn"))) == {}
    partner = bots(Step(Do.LAY, (Tile(1, 2),), (40, 41)), who="Table B", seat=2)  # no rack here: its cells
    assert lit(partner) == {40: Meaning.GOES, 41: Meaning.GOES}
    draw = Instruction(None, "", (Step(Do.NOTE, cells=tuple(GEO.pad), label="draw for dealer"),))
    assert lit(draw) == dict.fromkeys(GEO.pad, Meaning.GOES)  # anyone at the table: over the scan pad


def test_a_problem_is_red_and_a_persons_own_turn_lights_nothing_but_what_they_asked_for():
    wrong = Screen(ScreenKind.PROMPT, "Fix the tray", "put 4-5 back", problem="put 4-5 back", cells=(40, 41),
                   game=game(), tray=((Tile(4, 5), (40, 41)),))
    assert marks(wrong) == {40: Meaning.WRONG, 41: Meaning.WRONG}
    own = Instruction(0, "ANN", (Step(Do.LAY, cells=(100, 116, 101, 117)), Step(Do.TAKE, cells=(70, 86)),
                                 Step(Do.PRESS, label="End turn")))
    free = Screen(ScreenKind.PLAY, "ANN", "put a tile ...", turn="ANN", game=game(), cells=own.cells, instruction=own)
    assert marks(free) == {}  # the person's own free choice: outlined on the page, never lit
    held = Screen(ScreenKind.PLAY, "ANN", "put a tile ...", turn="ANN", game=game(), cells=own.cells,
                  instruction=own, places=(100, 116))  # a tile held over the scan pad: where it may go
    assert marks(held) == {100: Meaning.PLACES, 116: Meaning.PLACES}
    for kind in (ScreenKind.MENU, ScreenKind.LOST, ScreenKind.OVER):
        assert marks(Screen(kind, cells=(3,), game=game(), instruction=bots(Step(Do.TAKE, cells=(3,))))) == {}
    hint = Screen(ScreenKind.PROMPT, "Hint", "take 3-3", take=("3-3",), cells=(70, 86, 99), game=game(),
                  tray=((Tile(3, 3), (70, 86)), (Tile(1, 1), (40, 41))))
    assert marks(hint) == {70: Meaning.TAKE, 86: Meaning.TAKE}  # asked for: its tiles (not a dead reader's 99)


def test_the_oled_says_a_lit_step_short_only_while_a_tray_that_lights_shows_it():
    link = Link()
    lights = TrayLights(link, LightsConfig(level="on"))
    said = bots(Step(Do.LAY, (Tile(5, 6),), (100, 101), (2,)))
    text = prompts.said(said, GEO)
    short = prompts.said(said, GEO, lit=True)
    assert text == "slot 2 (5-6) -> r6c4-r6c5, the 5 on r6c4" and short == "slot 2 (5-6) -> the lit cells"
    screen = Screen(ScreenKind.PROMPT, "West bot", text, short=short, seat="West bot", instruction=said,
                    game=game((Rack("West bot", "west", WEST.slots),)))
    lights.show(screen)
    assert lights.worded(screen).text == short and screen.bot == f"West bot: {text}"  # the page: in full
    link.connected = False  # no tray (that lights) attached
    assert lights.worded(screen).text == text
    link.connected, lights.level = True, "off"
    lights.show(screen)
    assert lights.worded(screen).text == text
    taking = bots(Step(Do.TAKE, (Tile(3, 5), Tile(2, 6)), (70, 71, 86, 87), place="off the row"),
                  Step(Do.DEAL, slots=(2, 3), count=2), Step(Do.PRESS, label="End turn"))
    assert prompts.said(taking, GEO, lit=True) == \
        "take the 2 lit tiles off the row; 2 tiles from the boneyard, face down, into the lit slots; then End turn"


def test_one_meaning_per_colour_at_every_level():
    seen = {}
    for level in ("on", "dim"):
        for meaning in Meaning:
            rgb = colour(meaning, level)
            assert seen.setdefault(rgb, meaning) == meaning, (rgb, level)
            assert capped(rgb) != (0, 0, 0)  # still visible under the tray's cap
    assert set(LEGEND) == set(COLOURS) == set(Meaning)


def test_the_setting_dims_or_turns_them_off_and_quiet_hours_dim_them():
    link = Link()
    at = [datetime(2026, 12, 7, 21, 59)]
    lights = TrayLights(link, LightsConfig(level="on", quiet_hours="22:00-07:00"), now=lambda: at[0])
    wrong = Screen(ScreenKind.PROMPT, "Fix the tray", "x", problem="x", cells=(5,), game=game())
    lights.show(wrong)
    assert link.lit == {5: COLOURS[Meaning.WRONG]}
    at[0] = datetime(2026, 12, 7, 23, 30)  # quiet hours, across midnight
    lights.show(wrong)
    assert link.lit == {5: colour(Meaning.WRONG, "dim")} and lights.state()["level"] == "dim"
    at[0] = datetime(2026, 12, 8, 7, 0)
    lights.show(wrong)
    assert link.lit == {5: COLOURS[Meaning.WRONG]}
    lights.level = "off"
    lights.show(wrong)
    assert link.lit == {} and lights.state()["cells"] == []
    lights.level = "dim"
    lights.show(wrong)
    assert lights.state()["cells"] == [{"cell": 5, "meaning": "wrong", "colour": "#400000"}]


def test_the_lights_setting_is_checked_in_the_configuration_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[lights]\nlevel = "dim"\nquiet_hours = "23:30-06:00"\n')
    assert config.load(path).lights == LightsConfig("dim", "23:30-06:00")
    for line, why in (('level = "bright"', 'lights.level = \'bright\' is not on, dim or off'),
                      ('quiet_hours = "late"', "lights.quiet_hours = 'late' is not \"\" or a span of local time"),
                      ('quiet_hours = "24:00-07:00"', "is not \"\" or a span")):
        path.write_text(f"[lights]\n{line}\n")
        with pytest.raises(config.ConfigError, match=re.escape(why)):
            config.load(path)


def test_the_setup_menus_last_item_turns_the_lights():
    setup = Setup([CastleRock], lights="on")
    assert setup.current.items == ["Castle Rock", "Lights: on"]
    for press, then in ((Press.DOWN, "on"), (Press.SELECT, "dim"), (Press.SELECT, "off"), (Press.SELECT, "on")):
        setup.handle(press)
        assert setup.lights == then and setup.stage == "game"
    assert setup.current.items[-1] == "Lights: on" and setup.current.selected == 1
    assert Setup([CastleRock]).current.items == ["Castle Rock"]  # no lights to set: no item


# -- a whole match at the simulated table ---------------------------------------------------------

def lit_as_said(table, screen) -> dict[int, tuple[int, int, int]]:
    """What a bot's step, read as words, should light: the tile's slot blue and where it goes
    green; tiles to take yellow; tiles from the boneyard into a rack's slots green."""
    what = re.sub(r"^after [^:]+: ", "", screen.text)
    rack = next(r for r in table.geometry.racks("castle-rock") if r.name == screen.seat.removesuffix(" bot").lower())
    want: dict[int, Meaning] = {}
    if m := PLACE.match(what):
        want |= dict.fromkeys(rack.slots[int(m[1]) - 1], Meaning.FROM)
        want |= dict.fromkeys((cell(m[4]), cell(m[5])), Meaning.GOES)
    elif m := TAKE.match(what):
        tiles = [table.game.dset.parse(name) for name in re.split(r", | and ", m[1])]
        want |= {cell: Meaning.TAKE for t in tiles for cell in table.tiles()[t]}
    elif m := RACK.match(what):
        want |= {cell: Meaning.GOES for slot in slot_numbers(m[2]) for cell in rack.slots[slot - 1]}
    else:
        raise AssertionError(f"a bot's step the test does not read: {screen.bot}")
    return {cell: capped(COLOURS[meaning]) for cell, meaning in want.items()}


def cell(label: str) -> int:
    """r4c6 -> its cell number."""
    row, col = map(int, label[1:].split("c"))
    return GEO.cell(row, col)


def test_a_castle_rock_match_against_three_bots_lights_every_bot_step_and_no_free_turn(tmp_path):
    table = PtyTable(tmp_path / "table.sqlite3", Choice(CastleRock, CastleRock.Options(hands=1), 4, NAMES,
                                                        dict.fromkeys((1, 2, 3), "")), seed=5)
    vtray = table.vtray
    try:
        table.reaches(lambda: table.referee.tracker.judged is not None, "the first board")
        person = Person(table, 0, seed=1, first_column=1)  # the row from column 1: room at its closed end
        steps = free = hints = fixed = short = held = 0
        while True:
            screen = table.screen()
            if screen.bot:
                said = screen.instruction
                want = lit_as_said(table, screen)  # read from the words, the lights from the typed instruction
                rack = next(r for r in GEO.racks("castle-rock") if r.name == said.who.removesuffix(" bot").lower())
                told = set(said.cells) | {cell for k in said.slots for cell in rack.slots[k - 1]}
                assert said.table and set(want) == told, (screen.bot, said)  # the instruction's cells
                steps += 1
            elif screen.kind == ScreenKind.PLAY and screen.turn == "ANN":
                want = {}  # the person's own free choice: not lit
                free += 1
            elif screen.title == "Hint":
                want = {cell: capped(COLOURS[Meaning.TAKE]) for name in screen.take
                        for cell in table.tiles()[table.game.dset.parse(name)]}
                hints += bool(want)
            else:
                want = None
            if want is not None:
                assert until(lambda: vtray.lit() == want), (screen.kind, screen.title, screen.text, vtray.lit(), want)
            if screen.bot:  # the OLED points at the lit cells; the page and the Screen keep the words
                assert screen.short and screen.short != screen.text, screen.bot
                oled = draw(replace(screen, text=screen.short)).tobytes()
                assert until(lambda: table.frames.images[-1].tobytes() == oled), (screen.bot, screen.short)
                short += screen.short.endswith("the lit cells")
            if want == {} and not held and hold_over_the_pad(table, person):
                held = 1
                continue
            if screen.bot and PLACE.match(screen.text) and not fixed and misplace_then_fix(table, screen):
                fixed = 1
                continue
            if not person.step():
                break
        assert steps >= 20 and free >= 3 and hints >= 1 and fixed and held and short >= 5, \
            (steps, free, hints, fixed, held, short)
        assert until(lambda: vtray.lit() == {})  # the match over: nothing lit
    finally:
        table.close()


def hold_over_the_pad(table, person) -> bool:
    """At the person's own turn, a tile of their hand held over the scan pad lights its legal places
    dimly (where the page offers it: the runtime's targets); put back in the hand, nothing is lit."""
    for tile in person.mine:
        table.pad(tile)
        table.settle()
        places = {cell for cells, _ in table.runtime.targets(tile) for cell in cells}  # each place with what it does
        if places:
            dim = capped(COLOURS[Meaning.PLACES])
            assert until(lambda: table.vtray.lit() == dict.fromkeys(places, dim)), (tile, places, table.vtray.lit())
        table.unpad()
        table.settle()
        assert until(lambda: table.vtray.lit() == {})
        if places:
            return True
    return False


def misplace_then_fix(table, screen) -> bool:
    """The bot's tile laid at the closed end of the row: red where it lies until it is moved where
    the screen said; then the step's lights again."""
    m = PLACE.match(screen.text)
    rack = next(r for r in table.geometry.racks("castle-rock") if r.name == screen.seat.removesuffix(" bot").lower())
    tile = next(t for t, cells in table.tiles().items() if set(cells) == set(rack.slots[int(m[1]) - 1]))
    wrong = (table.geometry.cell(4, 0), table.geometry.cell(5, 0))
    if any(cells_overlap(table, wrong)):
        return False
    table.take(tile)
    table.put(tile, wrong)
    table.settle()
    red = capped(COLOURS[Meaning.WRONG])
    assert until(lambda: set(wrong) <= set(table.vtray.lit()) and set(table.vtray.lit().values()) == {red}), \
        (table.screen().text, table.vtray.lit())
    table.take(tile)
    table.put(tile, rack.slots[int(m[1]) - 1])
    table.settle()
    assert until(lambda: red not in table.vtray.lit().values())
    return True


def cells_overlap(table, cells):
    taken = {c for spot in table.tiles().values() for c in spot}
    return [c for c in cells if c in taken]


def test_the_readmes_legend_is_the_lights_legend():
    """The README's table says what each colour means, as the page's legend does (LEGEND)."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme[readme.index("## The tray's lights"):]
    rows = re.findall(r"^\| ([a-z ]+) \| (.+?) \|$", section[:section.index("\n\n", section.index("| colour |"))], re.M)
    assert [(name, text.split(" (")[0].split(":")[0]) for name, text in rows[1:]] == list(LEGEND.values())
