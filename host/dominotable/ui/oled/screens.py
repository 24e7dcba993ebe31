"""The OLED screens, drawn with Pillow as 1-bit images (128x64 unless told otherwise).

Text must be readable at arm's length, so every screen uses the largest size that fits,
from Pillow's built-in scalable font (Aileron Regular, public domain, embedded in Pillow
>= 10.1, so nothing is committed or downloaded). That font covers ASCII and a little
Latin-1; `printable()` folds everything else (accents, dashes, arrows) into ASCII.
Each function returns a new image and draws nothing else; `display.py` sends it.
"""

from __future__ import annotations

import math
import unicodedata
from functools import lru_cache

import segno
from PIL import Image, ImageDraw, ImageFont

from dominotable.reading.instruction import Do, Instruction, Step
from dominotable.ui import menu as m
from dominotable.ui.screen import Screen, ScreenKind

SIZE = (128, 64)
TITLE = 12  # font size of title bars and footnotes
BAR = 13  # height of a menu's title bar
BAND = 16  # two RAM pages: a match screen's title bar, and each line under it (display.py sends only changed columns)
BASE = 12  # a line's baseline in its band: the ink of any size up to 17 stays inside it
BANDS = 3  # bands under the title bar
BAND_LARGEST = 14  # a prompt that fits three lines at this size; else PROMPT_TEXT, paged at PROMPT_SMALLEST
PROMPT_TEXT = 12


@lru_cache(maxsize=None)
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


_FOLD = str.maketrans({"–": "-", "—": "-", "−": "-", "→": "->", "←": "<-", "×": "x", "’": "'", "‘": "'",
                       "“": '"', "”": '"', "…": "..."})


def printable(text: str) -> str:
    """`text` in characters the font has: accents dropped, dashes and arrows spelled in ASCII."""
    text = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(c for c in text if not unicodedata.combining(c)).encode("ascii", "replace").decode()


def canvas(size=SIZE) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("1", size, 0)
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"  # crisp pixels, no antialiasing to threshold
    return image, draw


@lru_cache(maxsize=4096)
def width(text: str, size: int) -> float:
    return font(size).getlength(text, mode="1")  # hinted for 1-bit, wider than antialiased


def fit(text: str, box_w: int, box_h: int, largest: int, smallest: int = 10) -> int:
    """The largest font size at which one line of `text` fits the box."""
    for size in range(largest, smallest, -1):
        if width(text, size) <= box_w and line_height(size) <= box_h:
            return size
    return smallest


def line_height(size: int) -> int:
    ascent, descent = font(size).getmetrics()
    return ascent + descent


def wrap(text: str, size: int, box_w: int) -> list[str]:
    """Greedy word wrap; a word wider than the box is split where it must be."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            trial = f"{line} {word}" if line else word
            if width(trial, size) <= box_w:
                line = trial
                continue
            if line:
                lines.append(line)
            while width(word, size) > box_w:
                cut = max(i for i in range(1, len(word) + 1) if width(word[:i], size) <= box_w or i == 1)
                lines.append(word[:cut])
                word = word[cut:]
            line = word
        lines.append(line)
    return lines


PROMPT_SMALLEST = 10  # below this a prompt is paged rather than shrunk: it must be read at arm's length


def fit_wrapped(text: str, box_w: int, box_h: int, largest: int, smallest: int = PROMPT_SMALLEST
                ) -> tuple[int, list[str]]:
    """The largest size at which `text`, wrapped, fits the box, and its lines; at the smallest
    size, all its lines (more than the box holds)."""

    def fits(size: int) -> bool:
        return len(wrap(text, size, box_w)) * line_height(size) <= box_h

    low, high = smallest, largest  # a bigger size never needs fewer lines: bisect
    if fits(high):
        return high, wrap(text, high, box_w)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return low, wrap(text, low, box_w)


def title_bar(draw: ImageDraw.ImageDraw, text: str, w: int, counter: str = "", largest: int = TITLE,
              bar: int = BAR) -> None:
    """An inverted bar `bar` high with the title (as large as fits, up to `largest`), and on its
    right a page counter ("1/3") or a label ("to play") when there is one."""
    draw.rectangle((0, 0, w - 1, bar - 1), fill=1)
    room = w - 4
    if counter:
        draw.text((w - 2, bar // 2), counter, font=font(TITLE), fill=0, anchor="rm")
        room -= width(counter, TITLE) + 6
    text = printable(text)
    size = fit(text, room, 99, largest, 8)
    while width(text, size) > room:  # a title too long even small: its last words go (the text says the rest)
        text = text.rsplit(" ", 1)[0] if " " in text else text[:-1]
    draw.text((2, bar // 2), text, font=font(size), fill=0, anchor="lm")


def shorten(text: str, size: int, box_w: int) -> str:
    """A menu item cut to the width with "..." (the menu's own title says what it is about)."""
    if width(text, size) <= box_w:
        return text
    while text and width(text + "...", size) > box_w:
        text = text[:-1]
    return text + "..."


def centered(draw, text: str, cy: float, size: int, w: int, fill: int = 1) -> None:
    draw.text((w // 2, cy), text, font=font(size), fill=fill, anchor="mm")


# -- game screens -----------------------------------------------------------------------------
#
# The play page keeps a fixed layout, so a turn changes few bytes on the bus (display.py sends only
# the changed columns): whose turn in the title bar on the top two RAM pages, left-aligned (never
# re-centred), the scores in fixed rows below, numbers right-aligned, and a short note on the bottom
# two pages. Prompts, the scores page and the match's end keep the same bar, so moving between them
# and the play page rewrites the words in it, not the bar.

NOTE_BASE = 61  # the note's baseline: RAM pages 6-7


def play(turn: str, sides: list[tuple[str, int]], note: str = "", scoring: str = "", size=SIZE,
         label: str = "to play") -> Image.Image:
    """Whose turn in the title bar, the scores, and a note (what to hold select for, a warning, the
    last play): each in its own band. A note too long for one line takes the scores' place (page 2
    has them). The match's end is the same page, saying who won instead of whose turn."""
    image, draw = canvas(size)
    w, h = size
    if turn:
        title_bar(draw, turn, w, label, largest=17, bar=BAND)
    note = printable(note)
    small = fit(note, w, 14, TITLE, 10) if note else TITLE
    if note and width(note, small) > w:
        text_size, lines = fit_wrapped(note, w, h - 18, 14, 8)
        for i, line in enumerate(lines):
            draw.text((0, 18 + line_height(text_size) * (i + 1) - 3), line, font=font(text_size), fill=1, anchor="ls")
        return image
    if note:
        draw.text((0, NOTE_BASE), note, font=font(small), fill=1, anchor="ls")
    _sides(draw, sides, scoring, (0, 17, w, 48))
    return image


def _sides(draw, sides: list[tuple[str, int]], scoring: str, box: tuple[int, int, int, int]) -> None:
    """The sides' names left and their scores right, one row each (two columns past three); a
    solitaire's one score beside what it counts."""
    x0, y0, x1, y1 = box
    if len(sides) == 1:
        number = str(sides[0][1])
        draw.text((x1, y1 - 6), number, font=font(22), fill=1, anchor="rs")
        label = printable(scoring or sides[0][0])
        draw.text((x0, y1 - 8), label, font=font(fit(label, x1 - x0 - width(number, 22) - 6, 99, TITLE, 9)),
                  fill=1, anchor="ls")
        return
    columns = 1 if len(sides) <= 3 else 2
    per = math.ceil(len(sides) / columns)
    col_w = (x1 - x0) // columns
    row_h = (y1 - y0) // per
    text = 14 if per <= 2 else 11
    for i, (name, points) in enumerate(sides):
        x = x0 + (i // per) * col_w
        base = y0 + (i % per + 1) * row_h - (3 if per <= 2 else 1)
        number = str(points)
        right = x + col_w - (4 if columns > 1 and i // per == 0 else 0)
        draw.text((right, base), number, font=font(text), fill=1, anchor="rs")
        label = printable(name)
        draw.text((x, base), label, font=font(fit(label, col_w - width(number, text) - 8, 99, text, 8)), fill=1,
                  anchor="ls")


def scores(names: list[str], points: list[int], goal: str = "", current: int | None = None,
           title: str = "Scores", size=SIZE) -> Image.Image:
    """One row per side, name left and score right, the side to play inverted; two columns past
    three. The title bar says what ends the match ("one hand", "first to 50 or 20 hands")."""
    image, draw = canvas(size)
    w, h = size
    title_bar(draw, goal or title, w, bar=BAND)
    columns = 1 if len(names) <= 3 else 2
    per_column = math.ceil(len(names) / columns)
    col_w = w // columns
    row_h = (h - BAND - 1) // max(per_column, 1)
    text_size = min(20, max(10, row_h - 3))
    for i, (name, score) in enumerate(zip(names, points)):
        x0 = (i // per_column) * col_w
        y0 = BAND + 1 + (i % per_column) * row_h
        fill = 1
        if i == current:
            draw.rectangle((x0, y0, x0 + col_w - 2, y0 + row_h - 1), fill=1)
            fill = 0
        number = str(score)
        number_w = width(number, text_size)
        label = printable(name)
        label_size = fit(label, col_w - number_w - 8, 99, text_size, 8)
        draw.text((x0 + 2, y0 + row_h / 2), label, font=font(label_size), fill=fill, anchor="lm")
        draw.text((x0 + col_w - 4, y0 + row_h / 2), number, font=font(text_size), fill=fill, anchor="rm")
    return image


def prompt(title: str, message: str, page: int = 0, size=SIZE) -> Image.Image:
    """A prompt or an error: the title in the bar, then the message left-aligned one line a band
    under it (`banded`); a message that does not fit at a readable size is paged (up/down turn
    the pages), the page counter in the title bar. Never cut."""
    image, draw = canvas(size)
    w, h = size
    text_size, pages = banded(printable(message), w)
    lines = pages[page % len(pages)]
    title_bar(draw, title, w, f"{page % len(pages) + 1}/{len(pages)}" if len(pages) > 1 else "", bar=BAND)
    for band, line in enumerate(lines, start=1):
        draw.text((0, band * BAND + BASE), line, font=font(text_size), fill=1, anchor="ls")
    return image


def banded(text: str, box_w: int) -> tuple[int, list[list[str]]]:
    """`text` wrapped one line a band under the title: large when that fits, else at the prompt
    size, in pages of as many lines as there are bands: never cut. Two sizes, not the largest that
    fits: the next prompt is mostly drawn in the same letters, so few of its columns change."""
    for text_size in (BAND_LARGEST, PROMPT_TEXT, PROMPT_SMALLEST):
        lines = wrap(text, text_size, box_w)
        if len(lines) <= BANDS:
            break
    return text_size, [lines[i:i + BANDS] for i in range(0, len(lines), BANDS)] or [[]]


def prompt_pages(message: str, size=SIZE) -> int:
    """How many pages `prompt` takes for this message."""
    return len(banded(printable(message), size[0])[1])


QR_SCALE = 2  # px per module: a version-2 code (25 modules) is 50 px, a version 3 58 px


def follow(url: str, size=SIZE) -> Image.Image:
    """The scoreboard's address as a QR code for phones (dark modules on a lit quiet zone, as
    printed codes are), and what it is for."""
    image, draw = canvas(size)
    w, h = size
    code = segno.make(url, error="l", micro=False)
    modules = len(code.matrix)
    side = min(h, modules * QR_SCALE + 8)  # up to two modules of quiet zone each side, as the panel allows
    draw.rectangle((0, 0, side - 1, side - 1), fill=1)
    offset = (side - modules * QR_SCALE) // 2
    for y, row in enumerate(code.matrix):
        for x, dark in enumerate(row):
            if dark:
                x0, y0 = offset + x * QR_SCALE, offset + y * QR_SCALE
                draw.rectangle((x0, y0, x0 + QR_SCALE - 1, y0 + QR_SCALE - 1), fill=0)
    words = ["Scan for", "the score-", "board on", "your phone"]
    for i, line in enumerate(words):
        draw.text((side + 3, 14 + 13 * i), line, font=font(TITLE), fill=1, anchor="ls")
    return image


SPINNER_DOTS = 8


def tray_lost(frame: int, detail: str = "reconnecting...", size=SIZE) -> Image.Image:
    """"Tray lost" with a spinner: frame i lights dot i mod 8 of a ring, the one before it dimmer."""
    image, draw = canvas(size)
    w, h = size
    draw.text((4, 20), "Tray", font=font(22), fill=1, anchor="ls")
    draw.text((4, 42), "lost", font=font(22), fill=1, anchor="ls")
    cx, cy, r = w - 24, 24, 14
    for i in range(SPINNER_DOTS):
        angle = 2 * math.pi * i / SPINNER_DOTS - math.pi / 2
        x, y = cx + r * math.cos(angle), cy + r * math.sin(angle)
        lit = frame % SPINNER_DOTS
        if i == lit:
            draw.ellipse((x - 4, y - 4, x + 4, y + 4), fill=1)
        elif i == (lit - 1) % SPINNER_DOTS:
            draw.ellipse((x - 3, y - 3, x + 3, y + 3), outline=1)
        else:
            draw.ellipse((x - 1, y - 1, x + 1, y + 1), fill=1)
    detail = printable(detail)
    lines = wrap(detail, 10, w - 2) if width(detail, TITLE) > w - 2 else [detail]
    small = TITLE if len(lines) == 1 else 10
    for i, line in enumerate(lines[-2:]):
        centered(draw, line, h - 6 - 11 * (min(len(lines), 2) - 1 - i), small, w)
    return image


# -- button-driven screens (the models are in menu.py) ----------------------------------------

MENU_TEXT = 14


def menu(title: str, items: list[str], selected: int, size=SIZE) -> Image.Image:
    """A list with the selected item inverted; it scrolls to keep the selection in view."""
    image, draw = canvas(size)
    w, h = size
    title_bar(draw, title, w)
    row_h = line_height(MENU_TEXT) - 2
    rows = (h - BAR - 1) // row_h
    first = min(max(0, selected - rows + 1), max(0, len(items) - rows))
    first = min(first, selected)
    scroll = len(items) > rows
    text_w = w - (8 if scroll else 2)
    for row, index in enumerate(range(first, min(first + rows, len(items)))):
        y0 = BAR + 1 + row * row_h
        fill = 1
        if index == selected:
            draw.rectangle((0, y0, text_w, y0 + row_h - 1), fill=1)
            fill = 0
        label = shorten(printable(items[index]), MENU_TEXT, text_w - 4)
        draw.text((3, y0 + row_h / 2), label, font=font(MENU_TEXT), fill=fill, anchor="lm")
    if scroll:  # a scroll bar: the thumb's size and place show the visible share of the list
        top, bottom = BAR + 1, h - 1
        draw.line((w - 3, top, w - 3, bottom), fill=1)
        span = bottom - top
        t0 = top + span * first // len(items)
        t1 = top + span * (first + rows) // len(items)
        draw.rectangle((w - 5, t0, w - 1, t1), fill=1)
    return image


def number(title: str, value: int, low: int, high: int, size=SIZE) -> Image.Image:
    """A number to choose, big, with up and down arrows where it can still move."""
    image, draw = canvas(size)
    w, h = size
    title_bar(draw, title, w)
    cy = BAR + (h - BAR) / 2
    centered(draw, str(value), cy, 32, w)
    if value < high:
        draw.polygon([(w - 20, cy - 6), (w - 12, cy - 16), (w - 4, cy - 6)], fill=1)
    if value > low:
        draw.polygon([(w - 20, cy + 6), (w - 12, cy + 16), (w - 4, cy + 6)], fill=1)
    return image


def name_entry(title: str, text: str, wheel: str, max_len: int, size=SIZE) -> Image.Image:
    """The name so far and, in an inverted box after it, the wheel's current letter or action."""
    image, draw = canvas(size)
    w, h = size
    title_bar(draw, title, w)
    shown = printable(text[:max_len])
    action_w = width("DEL", TITLE + 2) + 6
    big = next((pt for pt in range(20, 11, -1)  # the name and the widest box must fit
                if 4 + width(shown, pt) + 1 + max(width("W", pt) + 4, action_w) <= w), 12)
    cy = BAR + 3 + line_height(20) / 2
    x = 4
    draw.text((x, cy), shown, font=font(big), fill=1, anchor="lm")
    x += width(shown, big) + 1
    if wheel in ("DEL", "OK"):
        box_w = width(wheel, TITLE + 2) + 6
        draw.rectangle((x, cy - 10, x + box_w, cy + 10), fill=1)
        draw.text((x + box_w / 2, cy), wheel, font=font(TITLE + 2), fill=0, anchor="mm")
    else:
        glyph = "_" if wheel == " " else wheel
        box_w = max(width(glyph, big), 10) + 4
        draw.rectangle((x, cy - 12, x + box_w, cy + 12), fill=1)
        draw.text((x + box_w / 2, cy), glyph, font=font(big), fill=0, anchor="mm")
    centered(draw, "select adds the letter", h - 17, 10, w)
    centered(draw, "hold select when done", h - 6, 10, w)
    return image


def confirm(question: str, yes: bool, size=SIZE) -> Image.Image:
    """A yes/no question; the highlighted answer is inverted."""
    image, draw = canvas(size)
    w, h = size
    button_h = 18
    text_size, lines = fit_wrapped(printable(question), w - 4, h - button_h - 4, 18)
    step = line_height(text_size)
    top = (h - button_h - 2 - step * len(lines)) / 2
    for i, line in enumerate(lines):
        centered(draw, line, top + step * (i + 0.5), text_size, w)
    for label, x0, chosen in (("No", 4, not yes), ("Yes", w // 2 + 2, yes)):
        box = (x0, h - button_h, x0 + w // 2 - 7, h - 1)
        draw.rectangle(box, fill=1 if chosen else 0, outline=1)
        draw.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), label, font=font(16), fill=0 if chosen else 1,
                  anchor="mm")
    return image


def render(model, size=SIZE) -> Image.Image:
    """The screen for a button model from menu.py, in whatever state it is."""
    if isinstance(model, m.Setup):
        return render(model.current, size)
    if isinstance(model, m.ListMenu):
        return menu(model.title, model.items, model.selected, size)
    if isinstance(model, m.NumberChoice):
        return number(model.title, model.number, model.low, model.high, size)
    if isinstance(model, m.Confirm):
        return confirm(model.title, model.yes, size)
    if isinstance(model, m.NameEntry):
        return name_entry(model.title, model.text, model.wheel, model.max_len, size)
    if isinstance(model, m.Message):
        return prompt(model.title, model.text, model.page, size)
    raise TypeError(f"no screen for {type(model).__name__}")


_BRIEF = {Do.TAKE: "take captures", Do.SLIDE: "slide tiles", Do.DEAL: "deal", Do.EMPTY: "empty a rack",
          Do.PAD: "a tile over the pad"}


def _brief(step: Step) -> str:
    if step.do == Do.LAY:
        places = len(step.cells) // 2
        return f"put {step.tiles[0] if step.tiles else 'a tile'}" + (f": {places} places" if places > 1 else "")
    if step.do in (Do.PRESS, Do.NOTE):
        return step.label
    if step.do == Do.TAKE and step.tiles:  # named tiles, not a capture's choice ("take 2-2": Doubles' lead)
        return "take " + " ".join(map(str, step.tiles))
    return _BRIEF.get(step.do, "")


def brief(said: Instruction, box_w: int = SIZE[0], size: int = 10) -> str:
    """The turn in a few words for the play page's one line ("put a tile: 20 places, or pass"): the
    kind of each step and how many places, not the places (the lights and the turn's own pages show
    them), so the line keeps its pixels from turn to turn; as many of its parts as fit, then "..."."""
    parts = [part for part in map(_brief, said.steps) if part]
    parts[1:] = [f"then {part}" for part in parts[1:]]
    parts += [f"or {other.lower()}" for other in (_brief(way[0]) for way in said.instead if way) if other]
    for end in range(len(parts), 0, -1):
        text = ", ".join(parts[:end]) + ("..." if end < len(parts) else "")
        if width(text, size) <= box_w:
            return text
    return clauses(parts[0], size, box_w) if parts else ""


def clauses(text: str, size: int, box_w: int) -> str:
    """`text` cut after the most of its clauses that fit the width, then "..." (a reader's note:
    "gather the tiles (21 left)..."); one too long for that is cut where it must be."""
    if width(text, size) <= box_w:
        return text
    cuts = [i for i, c in enumerate(text) if c in ",;:" and text[i + 1:i + 2] == " "]
    return next((text[:i] + "..." for i in reversed(cuts) if width(text[:i] + "...", size) <= box_w),
                shorten(text, size, box_w))


def draw(screen: Screen, frame: int = 0, size=SIZE) -> Image.Image:
    """A screen model (ui/screen.py) as the OLED shows it; `frame` turns the tray-lost spinner.
    What the table waits for between hands (players named to show their tiles, the hand over) is
    a card on the play page's layout: who or "Hand over" in the bar, the scores where the play
    page keeps them, the gist in a line, the words in full on the pages after; so the hand's last
    turn, the card and the next turn rewrite the bar and the line, not the screen."""
    said = screen.instruction
    card = screen.kind == ScreenKind.PROMPT and said is not None and said.seat is None and bool(said.who or said.scored)
    if screen.kind == ScreenKind.PROMPT and not card:
        return prompt(screen.title, screen.text, screen.page, size)
    if screen.kind == ScreenKind.LOST:
        return tray_lost(frame, size=size)
    if screen.kind == ScreenKind.MENU:
        return render(screen.menu, size)
    game, names, points = screen.game, [s.name for s in screen.scores], [s.points for s in screen.scores]
    sides, scoring = list(zip(names, points)), game.scoring if game else ""
    if screen.kind == ScreenKind.OVER:
        return play(screen.title, sides, screen.text, scoring, size, label="")
    note = screen.text
    short = brief(said) if said is not None and not screen.warning else note
    if short != note and width(printable(note), 10) <= size[0]:
        short = note  # the whole turn fits the note's line
    move = [("move", k) for k in range(prompt_pages(note, size))] if short != note else []
    pages = [("play", 0), *move, ("scores", 0)] + [("last", 0)] * bool(screen.last) + [("follow", 0)] * bool(screen.link)
    shown, part = pages[screen.page % len(pages)]
    if shown == "play":
        last = screen.last
        if last is not None and short == str(last):  # in full on its own page; here as much as one line holds
            short = short if width(printable(short), 10) <= size[0] else f"last: {last.who}{last.gained}"
        bar = screen.title if card else screen.turn or (game.title if game else "")  # nobody's turn (a deal): the game's
        return play(bar, sides, short, scoring, size, label="to play" if screen.turn and not card else "")
    if shown == "move":  # the turn in full words, on pages of its own after the play page
        return prompt(screen.title if card else f"{screen.turn or screen.title} to play", note, part, size)
    if shown == "scores":
        current = next((side for side, s in enumerate(screen.scores) if s.to_move), None)
        return scores(names, points, game.goal if game else "", current, size=size)
    if shown == "last":
        return prompt("Last play", str(screen.last), size=size)
    return follow(screen.link, size)
