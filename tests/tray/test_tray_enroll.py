"""Enrollment through the virtual tray: the whole set laid out, or tile by tile on the scan
pad, and every way it can fail (nothing is saved when it fails)."""

import re

import pytest
from dominotable.app.cli import main
from dominotable.rules.tiles import DominoSet, Tile
from dominotable.tray.enroll import Enroller, arrangement, draw_arrangement, majority
from dominotable.tray.errors import EnrollError, TagConflict
from dominotable.tray.geometry import default
from dominotable.tray.tags import Half, Registry
from dominotray import wire
from support.polling import until

SEEN = (wire.TAG, b"\x04\x01\x02\x03\x04\x05\x06")
NONE = (wire.EMPTY, b"")


@pytest.fixture
def reg(tmp_path):
    return Registry(tmp_path / "tags.json")


def lay_out(tray, registry, skip=(), link=None):
    """Lay the set out as printed; with a link, wait until the host has seen every tag (on a
    slow machine the emulator may take longer than the enroller's settle time)."""
    for half, cell in arrangement(registry, default()).items():
        if half.side == 0 and half.tile not in skip:
            tray.place(half.tile, at=cell)
    if link is not None:
        placed = {c for c in range(192) if tray.array.uid_at(c)}
        assert link.wait_for(lambda lk: all(lk.cells[c][0] == wire.TAG for c in placed), 10)


def test_arrangement_fits_every_set_and_prints():
    geo = default()
    six = arrangement(Registry(dominoes=DominoSet(6)), geo)
    assert len(set(six.values())) == 56 and max(six.values()) < 192
    assert six[Half(Tile(0, 0), 0)] == 0 and six[Half(Tile(0, 1), 1)] == 3
    assert len(set(arrangement(Registry(dominoes=DominoSet(12)), geo).values())) == 182
    text = draw_arrangement(six, geo)
    assert text.splitlines()[0].startswith("row  0: [ 0|0 ] [ 0|1 ] [ 1|1 ]")
    with pytest.raises(EnrollError, match="unknown layout 'spiral'; layouts are rows"):
        arrangement(Registry(), geo, "spiral")


def test_majority_vote_needs_a_strict_majority():
    assert majority([[SEEN, NONE]] * 3) == [SEEN, NONE]
    assert majority([[SEEN], [SEEN], [NONE]]) == [SEEN]
    assert majority([[SEEN], [NONE], [SEEN], [NONE]]) == [(None, b"")]  # unsteady: no majority


def test_layout_enrolls_the_whole_set(vtray, link, reg):
    lay_out(vtray, reg, link=link)
    prompts = []
    result = Enroller(link, reg, prompts.append, votes=3, settle=0.1).by_layout()
    assert "[ 3|5 ]" in prompts[0]
    assert dict(result.items()) == dict(vtray.registry.items())
    assert dict(Registry.load(reg.path).items()) == dict(vtray.registry.items())


def test_layout_missing_tile_names_it_and_saves_nothing(vtray, link, reg):
    lay_out(vtray, reg, skip={Tile(3, 5)}, link=link)
    with pytest.raises(EnrollError, match=r"nothing saved: no tag under the 3 half of 3-5: nothing read at r4c\d+"):
        Enroller(link, reg, lambda m: None, votes=3, settle=0.1).by_layout()
    assert not reg.path.exists()


def test_layout_tag_outside_the_arrangement(vtray, link, reg):
    lay_out(vtray, reg, link=link)
    vtray.place_tag(191, b"\x04\x11\x11\x11\x11\x11\x11")
    assert link.wait_for(lambda lk: lk.cells[191][0] == wire.TAG, 10)
    with pytest.raises(EnrollError, match=r"a tag \(04111111111111\) lies at r11c15 \(cell 191\), outside the arrangement"):
        Enroller(link, reg, lambda m: None, votes=3, settle=0.1).by_layout()


def test_layout_duplicate_uid_is_a_cloned_tag(vtray, link, reg):
    lay_out(vtray, reg, skip={Tile(6, 6)}, link=link)
    cells = arrangement(reg, default())
    clone = vtray.uid(Half(Tile(0, 0), 0))
    vtray.place_tag(cells[Half(Tile(6, 6), 0)], clone)
    vtray.place_tag(cells[Half(Tile(6, 6), 1)], b"\x04\x22\x22\x22\x22\x22\x22")
    assert link.wait_for(lambda lk: lk.cells[cells[Half(Tile(6, 6), 1)]][0] == wire.TAG, 10)
    with pytest.raises(EnrollError, match=f"tag {clone.hex()} read under both the first 0 half of 0-0 and "
                                          "the first 6 half of 6-6: a cloned tag"):
        Enroller(link, reg, lambda m: None, votes=3, settle=0.1).by_layout()


def test_layout_swapped_halves_are_refused_when_the_tile_is_known(vtray, link, reg):
    lay_out(vtray, reg, link=link)
    Enroller(link, reg, lambda m: None, votes=3, settle=0.1).by_layout()
    saved = reg.path.read_text()
    vtray.remove("2-4")
    cells = vtray.place("4-2", at=arrangement(reg, default())[Half(Tile(2, 4), 0)])  # turned round
    assert link.wait_for(lambda lk: lk.cells[cells[0]][1] == vtray.uid(Half(Tile(2, 4), 1))
                         and lk.cells[cells[1]][1] == vtray.uid(Half(Tile(2, 4), 0)), 10)
    with pytest.raises(TagConflict, match=r"already enrolled as the 4 half of 2-4; refusing to enroll it as "
                                          r"the 2 half of 2-4 \(is the tile turned round\?\)"):
        Enroller(link, Registry.load(reg.path), lambda m: None, votes=3, settle=0.1).by_layout()
    assert reg.path.read_text() == saved


def test_layout_reader_fault_is_named(vtray, link, reg):
    lay_out(vtray, reg, link=link)
    vtray.set_dead(0)
    assert link.wait_for(lambda lk: lk.cells[0][0] == wire.FAULT, 10)
    with pytest.raises(EnrollError, match=r"reader fault at r0c0 \(cell 0\)"):
        Enroller(link, reg, lambda m: None, votes=3, settle=0.1).by_layout()


def test_layout_with_the_tray_unplugged_fails_cleanly(vtray, link, reg):
    lay_out(vtray, reg, link=link)
    vtray.unplug()
    assert link.wait_for(lambda lk: not lk.connected, 10)
    with pytest.raises(EnrollError, match="the tray sent no snapshot within 0.3 s"):
        Enroller(link, reg, lambda m: None, votes=3, timeout=0.3, settle=0.05).by_layout()
    assert not reg.path.exists()


class Person:
    """Does what the pad prompts say, on the virtual tray; `hold` may hold something else."""

    def __init__(self, tray, hold=None):
        self.tray = tray
        self.hold = hold or (lambda tile: tray.hold_on_scan_pad(tile))
        self.asked = []

    def __call__(self, message):
        if m := re.match(r"Hold (\d+-\d+) over the scan pad", message):
            self.asked.append(m.group(1))
            self.hold(m.group(1))
        elif message.startswith("Take"):
            for cell in self.tray.geometry.pad:
                if self.tray.array.uid_at(cell) is not None:
                    self.tray.remove(cell)


def test_pad_enrolls_tile_by_tile(vtray, link, reg):
    tiles = [Tile(0, 0), Tile(3, 5), Tile(6, 6)]
    person = Person(vtray)
    result = Enroller(link, reg, person).by_pad(tiles)
    assert person.asked == ["0-0", "3-5", "6-6"]
    assert len(result) == 6 and result.lookup(vtray.uid(Half(Tile(3, 5), 1))) == Half(Tile(3, 5), 1)
    assert len(Registry.load(reg.path)) == 6


def test_pad_replacement_tile_is_additive(tmp_path, link, vtray):
    reg = Registry.virtual(path=tmp_path / "tags.json")  # the full set, already enrolled
    new_left, new_right = b"\x04\x77\x00\x00\x00\x00\x01", b"\x04\x77\x00\x00\x00\x00\x02"
    vtray.registry.add(new_left, Half(Tile(3, 5), 0))   # the replacement tile's own tags
    vtray.registry.add(new_right, Half(Tile(3, 5), 1))
    result = Enroller(link, reg, Person(vtray)).by_pad([Tile(3, 5)])
    assert result.uid_of(Half(Tile(3, 5), 0)) == new_left and result.uid_of(Half(Tile(3, 5), 1)) == new_right
    assert len(result) == 56 and result.missing() == []  # the other 27 tiles kept, the old 3-5 tags retired


def test_pad_uid_enrolled_to_another_half_is_refused_naming_both(vtray, link, tmp_path):
    reg = Registry.virtual(path=tmp_path / "tags.json")
    person = Person(vtray, hold=lambda tile: vtray.hold_on_scan_pad("2-6"))  # the wrong tile
    with pytest.raises(TagConflict, match="already enrolled as the 2 half of 2-6; refusing to enroll it as "
                                          "the 1 half of 1-4"):
        Enroller(link, reg, person).by_pad([Tile(1, 4)])
    assert not reg.path.exists()


def test_pad_one_tag_missing(vtray, link, reg):
    person = Person(vtray, hold=lambda tile: vtray.place_tag(192, vtray.uid(Half(Tile(3, 5), 0))))
    with pytest.raises(EnrollError, match=r"only one tag of 3-5 read: nothing at pad-right \(cell 193\), "
                                          "so the tag under its 5 half is missing or dead"):
        Enroller(link, reg, person, timeout=0.5).by_pad([Tile(3, 5)])


def test_pad_nothing_held(vtray, link, reg):
    with pytest.raises(EnrollError, match="no tile on the scan pad within 0.3 s"):
        Enroller(link, reg, lambda m: None, timeout=0.3).by_pad([Tile(3, 5)])


def test_pad_same_tag_under_both_halves(vtray, link, reg):
    uid = b"\x04\x33\x33\x33\x33\x33\x33"

    def hold(tile):
        vtray.place_tag(192, uid)
        vtray.place_tag(193, uid)
    with pytest.raises(EnrollError, match="both halves of 1-2 read the same tag 04333333333333: a cloned tag"):
        Enroller(link, reg, Person(vtray, hold)).by_pad([Tile(1, 2)])


def test_pad_reader_fault(vtray, link, reg):
    vtray.set_dead(193)  # the pad's one reader serves both its cells
    assert link.wait_for(lambda lk: lk.cells[193][0] == lk.cells[192][0] == wire.FAULT, 10)
    with pytest.raises(EnrollError, match=r"reader fault at pad-left \(cell 192\); the scan pad cannot read"):
        Enroller(link, reg, Person(vtray)).by_pad([Tile(1, 2)])


def test_pad_left_covered_is_asked_to_clear(vtray, link, reg):
    vtray.hold_on_scan_pad("5-5")
    assert link.wait_for(lambda lk: lk.cells[192][0] == wire.TAG, 10)
    with pytest.raises(EnrollError, match="the scan pad is still covered after 0.3 s; take the tile off"):
        Enroller(link, reg, lambda m: None, timeout=0.3).by_pad([Tile(1, 2)])


def test_cli_enroll_layout_and_its_errors(vtray, tmp_path, capsys, monkeypatch):
    reg = Registry(tmp_path / "cli-tags.json")
    lay_out(vtray, reg, skip={Tile(0, 6)})
    monkeypatch.setattr("sys.stdin", open("/dev/null"))
    argv = ["enroll", "layout", "--port", vtray.path, "--tags", str(reg.path), "--votes", "3", "--settle", "0.3"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error: enrollment failed, nothing saved: no tag under the 0 half of 0-6" in err
    cell = vtray.place("0-6", at=arrangement(reg, default())[Half(Tile(0, 6), 0)])[0]
    assert until(lambda: vtray.app.scanner.state[cell][0] == wire.TAG)  # the firmware has confirmed it
    assert main(argv) == 0
    assert "enrolled: 56 tags" in capsys.readouterr().out
    assert main(["enroll", "pad", "7-7", "--port", vtray.path, "--tags", str(reg.path)]) == 2
    assert "7-7 is not in the double-six set" in capsys.readouterr().err
