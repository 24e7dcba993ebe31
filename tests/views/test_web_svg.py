"""The server-side drawings (views/svg.py): the tray to scale from tray/geometry.py, tiles with
their pips and orientation, highlighted and ghost tiles, the bots' racks, escaped text; the
score plot."""

import re

from dominotable.rules.tiles import DOUBLE_SIX, DominoSet
from dominotable.tray.geometry import default
from dominotable.views import svg

GEO = default()
T = DOUBLE_SIX.parse


def test_the_tray_is_drawn_to_scale_in_millimetres():
    lay = svg.Layout(GEO)
    assert lay.width == GEO.columns * GEO.pitch_mm + 2 * svg.MARGIN
    drawing = svg.tray(GEO, [])
    cells = {int(c): (float(x), float(y), float(w)) for c, x, y, w in
             re.findall(r'data-cell="(\d+)" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"', drawing)}
    assert len(cells) == GEO.cells
    for cell in (0, 17, GEO.playing - 1):
        row, col = GEO.coords(cell)
        assert cells[cell] == (svg.MARGIN + col * GEO.pitch_mm, svg.MARGIN + row * GEO.pitch_mm, GEO.pitch_mm)
    left, right = (cells[c] for c in GEO.pad)
    assert right[0] - left[0] == GEO.pitch_mm and left[1] > cells[GEO.playing - 1][1]  # the pad below the grid


def test_tiles_show_their_pips_on_the_cells_of_each_half():
    drawing = svg.tray(GEO, [(T("2-5"), (GEO.cell(3, 4), GEO.cell(3, 3)))])
    (tile,) = re.findall(r'<g class="tile" data-tile="2-5" data-cells="52,51">.*?</g>', drawing)
    assert tile.count("<circle") == 7
    dots = [(float(x), float(y)) for x, y in re.findall(r'cx="([\d.]+)" cy="([\d.]+)"', tile)]
    x3 = svg.MARGIN + 3 * GEO.pitch_mm  # the 5 lies on r3c3 (the left cell): five pips left of r3c4
    assert sum(x3 < x < x3 + GEO.pitch_mm for x, _ in dots) == 5


def test_pip_layouts_for_every_count_up_to_twelve():
    for n in range(13):
        points = svg.pip_points(n)
        assert len(points) == n == len(set(points))
        assert all(0 < u < 1 and 0 < v < 1 for u, v in points)


def test_highlights_ghosts_zones_and_escaping():
    drawing = svg.tray(GEO, [], zones=["castle-row"], highlight=[5, 999], ghosts=[(T("1-1"), (0, 1))],
                       title="<x>")
    assert drawing.count('class="named"') == 1  # cell 999 is not on the tray
    assert 'class="tile ghost" data-tile="1-1"' in drawing and ">row<" in drawing  # the zone as people call it
    assert "<x>" not in drawing and "&lt;x&gt;" in drawing
    assert svg.tray(GEO, [(t, (0, 1)) for t in [DominoSet(12).parse("12-12")]]).count("<circle") == 24


def test_the_racks_of_the_seats_the_table_plays_are_drawn_numbered_their_tiles_face_down():
    """A bot's rack: its slots outlined and numbered (over their tiles), its name; a tile in it
    drawn face down (no pips, no line, no name: issue 28, item 2); a tile gone from where it was last read drawn faint;
    the alarm's outlines apart from an instruction's."""
    rack = GEO.racks("castle-rock")[1]
    first, second = rack.slots
    drawing = svg.overlay(GEO, [(T("6-6"), first), (T("3-5"), (64, 80))], racks=[("West <bot>", rack.slots)],
                          face_down=rack.cells, lifted=[T("3-5")], highlight=[64], alarm=True)
    assert drawing.count('<g class="slot" data-rack="West &lt;bot&gt;"') == 2 and "West &lt;bot&gt;</text>" in drawing
    assert re.findall(r'class="slot-number"[^>]*>(\d)<', drawing) == ["1", "2"]
    assert drawing.index('class="slot-number"') > drawing.index('class="tile face-down"')  # numbered over the tile
    (back,) = re.findall(r'<g class="tile face-down" data-cells="%d,%d">.*?</g>' % first, drawing)
    assert "<circle" not in back and "<line" not in back and "6-6" not in drawing  # its back only: never its name
    assert '<g class="tile lifted" data-tile="3-5"' in drawing and 'class="named alarm" data-cell="64"' in drawing
    assert 'class="named" ' in svg.overlay(GEO, [], highlight=[64])


def test_score_plot_draws_a_line_per_side_through_every_hand():
    plot = svg.score_plot(["<b>ANN</b>", "BOB"], [[0, 0], [10, 0], [10, 25], [40, 30]], target=50)
    lines = re.findall(r'<polyline class="side side-\d" points="([^"]+)"', plot)
    assert len(lines) == 2 and all(len(line.split()) == 4 for line in lines)  # the start and three hands
    assert "&lt;b&gt;ANN&lt;/b&gt; 40" in plot and "<b>" not in plot
    assert 'class="target"' in plot and "3 hands" in plot and "points, higher is better" in plot
    assert svg.score_plot(["A"], []).count("<polyline") == 1
