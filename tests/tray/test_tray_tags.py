"""The tag registry: UID -> tile half, stored atomically in the user's data directory."""

import json
import os

import pytest
from dominotable.rules.tiles import DominoSet, Tile
from dominotable.tray import tags
from dominotable.tray.errors import TagConflict, TrayError
from dominotable.tray.tags import Half, Registry

UID_A = bytes.fromhex("04a1b2c3d4e5f6")
UID_B = bytes.fromhex("04a1b2c3d4e5f7")


def test_default_path_is_in_the_user_data_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert tags.default_path() == tmp_path / "dominotable" / "tags.json"


def test_half_names_and_partner():
    assert str(Half(Tile(3, 5), 1)) == "the 5 half of 3-5"
    assert str(Half(Tile(4, 4), 0)) == "the first 4 half of 4-4"
    assert Half(Tile(3, 5), 0).partner == Half(Tile(3, 5), 1)


def test_add_save_load_round_trip(tmp_path):
    reg = Registry(tmp_path / "t.json")
    assert reg.add(UID_A, Half(Tile(3, 5), 0)) and reg.add(UID_B, Half(Tile(3, 5), 1))
    assert not reg.add(UID_A, Half(Tile(3, 5), 0))  # the same again: no change
    reg.save()
    loaded = Registry.load(tmp_path / "t.json")
    assert loaded.lookup(UID_B) == Half(Tile(3, 5), 1) and len(loaded) == 2
    assert json.loads((tmp_path / "t.json").read_text())["tags"][UID_A.hex()] == ["3-5", 0]
    assert [f for f in os.listdir(tmp_path)] == ["t.json"]  # no temporary file left behind


def test_a_uid_enrolled_to_another_half_is_refused_naming_both(tmp_path):
    reg = Registry(tmp_path / "t.json")
    reg.add(UID_A, Half(Tile(3, 5), 0))
    with pytest.raises(TagConflict, match="04a1b2c3d4e5f6 is already enrolled as the 3 half of 3-5; "
                                          "refusing to enroll it as the 6 half of 2-6"):
        reg.add(UID_A, Half(Tile(2, 6), 1))
    with pytest.raises(TagConflict, match=r"as the 5 half of 3-5 \(is the tile turned round\?\)"):
        reg.add(UID_A, Half(Tile(3, 5), 1))
    assert reg.lookup(UID_A) == Half(Tile(3, 5), 0) and len(reg) == 1


def test_replacement_retires_the_old_uid_of_that_half(tmp_path):
    reg = Registry(tmp_path / "t.json")
    reg.add(UID_A, Half(Tile(1, 2), 0))
    reg.add(UID_B, Half(Tile(1, 2), 0))
    assert UID_A not in reg and reg.uid_of(Half(Tile(1, 2), 0)) == UID_B


def test_tile_outside_the_set_is_refused(tmp_path):
    with pytest.raises(TrayError, match="tile 7-8 is not in the double-six set"):
        Registry(tmp_path / "t.json").add(UID_A, Half(Tile(7, 8), 0))


def test_missing_file_is_an_empty_registry_and_bad_files_are_named(tmp_path):
    assert len(Registry.load(tmp_path / "none.json")) == 0
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(TrayError, match="tag registry .*bad.json cannot be read"):
        Registry.load(bad)
    bad.write_text(json.dumps({"format": 1, "set": 6, "tags": {"zz": ["3-5", 0]}}))
    with pytest.raises(TrayError, match="bad.json is malformed"):
        Registry.load(bad)
    bad.write_text(json.dumps({"format": 1, "set": 6, "tags": {"04": ["3-9", 0]}}))
    with pytest.raises(TrayError, match="malformed: tile 3-9 is not in the double-six set"):
        Registry.load(bad)


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    reg = Registry(tmp_path / "t.json")
    reg.add(UID_A, Half(Tile(0, 0), 0))
    reg.save()
    before = (tmp_path / "t.json").read_text()
    reg.add(UID_B, Half(Tile(0, 0), 1))

    def boom(*args):
        raise OSError("disk full")
    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        reg.save()
    assert (tmp_path / "t.json").read_text() == before and os.listdir(tmp_path) == ["t.json"]


def test_virtual_tag_set_is_deterministic_and_complete():
    reg = Registry.virtual(DominoSet(6))
    assert len(reg) == 56 and reg.missing() == []
    assert reg.uid_of(Half(Tile(3, 5), 1)) == bytes((0x04, 0x56, 0x54, 6, 3, 5, 1))
