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
from datetime import datetime

import pytest
from dominotable.app import config
from dominotable.rules.games.castle_rock.engine import CastleRock
from dominotable.rules.tiles import Tile
from dominotable.tray.geometry import default
from dominotable.ui.lights import COLOURS, LEGEND, LightsConfig, Meaning, TrayLights, colour, marks
from dominotable.ui.menu import Choice, Setup
from dominotable.ui.press import Press
from dominotable.ui.screen import Game, Rack, Screen, ScreenKind
from dominotray import pins
from polling import until
from table_seats import PLACE, RACK, TAKE, Person, PtyTable, slot_numbers

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

    def light(self, lit):
        self.lit = lit


# -- what a screen lights -------------------------------------------------------------------------

def test_a_bots_step_lights_its_slot_blue_where_the_tile_goes_green_and_tiles_to_take_yellow():
    slot = WEST.slots[0]
    rack = Rack("West bot", "west", WEST.slots)
    tray = ((Tile(2, 5), slot), (Tile(3, 3), (70, 86)))
    step = Screen(ScreenKind.PROMPT, "West bot", "slot 1 (2-5) -> r4c6-r5c6", seat="West bot",
                  cells=(*slot, 70, 86), game=game((rack,)), tray=tray)
    assert marks(step) == {slot[0]: Meaning.FROM, slot[1]: Meaning.FROM, 70: Meaning.TAKE, 86: Meaning.TAKE}
    place = Screen(ScreenKind.PROMPT, "West bot", "slot 1 (2-5) -> ...", seat="West bot",
                   cells=(*slot, 100, 116), game=game((rack,)), tray=tray[:1])
    assert marks(place) == {slot[0]: Meaning.FROM, slot[1]: Meaning.FROM, 100: Meaning.GOES, 116: Meaning.GOES}
    deal = Screen(ScreenKind.PROMPT, "West bot's rack", "a tile from the boneyard, face down, into slot 2",
                  seat="West bot", cells=WEST.slots[1], game=game((rack,)), tray=tray[:1])
    assert set(marks(deal).values()) == {Meaning.GOES}  # into an empty slot: where a tile goes


def test_a_problem_is_red_and_a_persons_own_turn_lights_nothing():
    wrong = Screen(ScreenKind.PROMPT, "Fix the tray", "put 4-5 back", problem="put 4-5 back", cells=(40, 41),
                   game=game(), tray=((Tile(4, 5), (40, 41)),))
    assert marks(wrong) == {40: Meaning.WRONG, 41: Meaning.WRONG}
    free = Screen(ScreenKind.PLAY, turn="ANN", game=game(), cells=(99,))  # a dead reader marked on the page
    assert marks(free) == {}
    for kind in (ScreenKind.MENU, ScreenKind.LOST, ScreenKind.OVER):
        assert marks(Screen(kind, cells=(3,), game=game())) == {}
    hint = Screen(ScreenKind.PROMPT, "Hint", "take 3-3", take=("3-3",), cells=(70, 86), game=game(),
                  tray=((Tile(3, 3), (70, 86)),))
    assert marks(hint) == {70: Meaning.TAKE, 86: Meaning.TAKE}  # asked for: lit


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
        steps = free = hints = fixed = 0
        while True:
            screen = table.screen()
            if screen.bot:
                want = lit_as_said(table, screen)
                assert set(want) == set(screen.cells), (screen.bot, screen.cells)  # the instruction's cells
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
            if screen.bot and PLACE.match(screen.text) and not fixed and misplace_then_fix(table, screen):
                fixed = 1
                continue
            if not person.step():
                break
        assert steps >= 20 and free >= 3 and hints >= 1 and fixed, (steps, free, hints, fixed)
        assert until(lambda: vtray.lit() == {})  # the match over: nothing lit
    finally:
        table.close()


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
