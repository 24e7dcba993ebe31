"""The OLED controller's display RAM, and the writes that change only what a frame changes.

SSD1306 and SH1106 keep the picture in 8 pages of 8 pixel rows, one byte per column, bit 0
the top row of the page. A whole frame is 1,024 bytes, about 23 ms on a 400 kHz I2C bus; a
new frame mostly changes a line of text or a number. `Ram.update` packs the frame with Pillow
(a transposed image read out bit-reversed is the pages' bytes, column by column), compares it
page by page with what the RAM holds, and sends only the changed columns:

- SSD1306, in horizontal addressing (luma's start-up sets it): 21h sets the column window and
  22h the page window, each putting the pointer at the window's start; data then fills the
  window a page at a time (datasheet rev 1.1, 10.1.3-10.1.5).
- SH1106, page addressing only: B0h-B7h set the page, 00h-0Fh and 10h-1Fh the column's low and
  high nibbles, and the column steps by one after each data byte. Its RAM is 132 columns wide
  and a 128-pixel panel shows columns 2-129, as luma's driver writes them (datasheet V2.3).

Each command or data call is one I2C transfer: address byte, control byte, payload. So a
window costs 10 bytes besides its data on an SSD1306 (two transfers, six command bytes), a run
7 on an SH1106. Runs of changed columns closer than that are sent as one, and on an SSD1306
neighbouring pages go as one window when that is shorter. luma's drivers clear the RAM when
they start, so the first frame too sends only what is not blank.
"""

from __future__ import annotations

from PIL import Image

Span = tuple[int, int, int, int]  # first column, last column, first page, last page


def pack(image: Image.Image) -> list[bytes]:
    """A 1-bit frame as the controller stores it: page p's byte x holds pixels (x, 8p..8p+7),
    the top one in bit 0."""
    pages = image.height // 8
    columns = image.transpose(Image.Transpose.TRANSPOSE).tobytes("raw", "1;R")  # column by column
    return [columns[page::pages] for page in range(pages)]


def runs(old: bytes, new: bytes, overhead: int) -> list[tuple[int, int]]:
    """The changed columns of a page as (first, last) runs; gaps of `overhead` columns or fewer
    are sent rather than paid for with another write."""
    out: list[tuple[int, int]] = []
    if old == new:
        return out
    for x in (x for x, (a, b) in enumerate(zip(old, new)) if a != b):
        if out and x - out[-1][1] - 1 <= overhead:
            out[-1] = (out[-1][0], x)
        else:
            out.append((x, x))
    return out


class Ram:
    """What the display RAM holds, and the writes that bring it to a new frame."""

    overhead = 0  # bytes on the bus per write besides its data
    windows = False  # several pages in one write

    def __init__(self, device):
        self.device = device
        width, height = (device.width, device.height) if device.rotate % 2 == 0 else (device.height, device.width)
        self.pages: list[bytes] | None = [bytes(width)] * (height // 8)  # blank: luma cleared it

    def update(self, image: Image.Image) -> None:
        """Write what `image` (as the panel is mounted: the device's rotation applied) changes.
        After a failed transfer the RAM is unknown, so the next frame goes whole."""
        new = pack(image)
        old, self.pages = self.pages, None
        for span in self.plan(old, new):
            self.write(span, new)
        self.pages = new

    def plan(self, old: list[bytes] | None, new: list[bytes]) -> list[Span]:
        """The writes covering every changed byte with the fewest bytes on the bus."""
        last = len(new[0]) - 1
        if old is None:
            return [(0, last, 0, len(new) - 1)] if self.windows else [(0, last, p, p) for p in range(len(new))]
        changed = [runs(o, n, self.overhead) for o, n in zip(old, new)]
        # best[j]: the cheapest (cost, spans) for the pages before j. Page j - 1 goes as its own
        # runs, or (SSD1306) in one window with pages i..j-2 over all their changed columns.
        best: list[tuple[int, list[Span]]] = [(0, [])]
        for j in range(1, len(new) + 1):
            cost, spans = best[j - 1]
            own = changed[j - 1]
            options = [(cost + sum(self.overhead + b - a + 1 for a, b in own),
                        spans + [(a, b, j - 1, j - 1) for a, b in own])]
            for i in range(j - 1) if self.windows else ():
                inside = [run for page in changed[i:j] for run in page]
                if inside:
                    a, b = min(a for a, _ in inside), max(b for _, b in inside)
                    cost, spans = best[i]
                    options.append((cost + self.overhead + (j - i) * (b - a + 1), spans + [(a, b, i, j - 1)]))
            best.append(min(options, key=lambda option: option[0]))
        return best[-1][1]

    def write(self, span: Span, new: list[bytes]) -> None:
        raise NotImplementedError


class SSD1306(Ram):
    overhead = 2 + 6 + 2  # the window's transfer (address, control, 21h c0 c1 22h p0 p1), the data's
    windows = True

    def write(self, span: Span, new: list[bytes]) -> None:
        c0, c1, p0, p1 = span
        self.device.command(0x21, c0, c1, 0x22, p0, p1)
        self.device.data(b"".join(new[page][c0:c1 + 1] for page in range(p0, p1 + 1)))


class SH1106(Ram):
    overhead = 2 + 3 + 2  # the address transfer (address, control, B0h+page, low, high), the data's
    OFFSET = 2  # the panel's first column in the 132-column RAM (luma's page_address_offset)

    def write(self, span: Span, new: list[bytes]) -> None:
        c0, c1, page, _ = span
        column = c0 + self.OFFSET
        self.device.command(0xB0 | page, column & 0x0F, 0x10 | column >> 4)
        self.device.data(new[page][c0:c1 + 1])


def ram_of(device) -> Ram | None:
    """The RAM writer for a luma device, None for one that is not such a controller (the
    emulators: they take whole frames)."""
    from luma.oled.device import sh1106, ssd1306

    kind = {ssd1306: SSD1306, sh1106: SH1106}.get(type(device))
    return kind(device) if kind is not None else None
