"""Tray geometry from hardware/tray.toml, and the hardware data files that go with it."""

import csv
from pathlib import Path

import pytest
from dominotable.games import catalog
from dominotable.tray import geometry
from dominotable.tray.errors import TrayError

ROOT = Path(__file__).resolve().parents[2]


def test_packaged_copy_is_identical_to_hardware_tray_toml():
    # If this fails: cp hardware/tray.toml host/dominotable/tray/tray.toml
    assert geometry.packaged_path().read_bytes() == (ROOT / "hardware" / "tray.toml").read_bytes()


def test_default_tray_is_16_by_12_plus_a_two_cell_scan_pad():
    geo = geometry.default()
    assert (geo.columns, geo.rows, geo.playing, geo.cells) == (16, 12, 192, 194)
    assert geo.pad == (192, 193)
    assert geo.coords(0) == (0, 0) and geo.coords(17) == (1, 1) and geo.coords(191) == (11, 15)
    assert all(geo.cell(*geo.coords(c)) == c for c in range(192))
    assert geo.label(53) == "r3c5 (cell 53)" and geo.label(193) == "pad-right (cell 193)"


def test_neighbours_stay_on_the_grid_and_the_pad_pairs_with_itself():
    geo = geometry.default()
    assert sorted(geo.neighbours(0)) == [1, 16]
    assert sorted(geo.neighbours(15)) == [14, 31]  # no wrap to the next row
    assert sorted(geo.neighbours(17)) == [1, 16, 18, 33]
    assert geo.neighbours(192) == (193,) and sorted(geo.neighbours(191)) == [175, 190]


def test_zones_for_the_five_games():
    geo = geometry.default()
    used = {name for spec in catalog.GAMES for name in spec.zones}
    assert used == set(geo.zones)  # every zone is some game's, and every game's zone is on the tray
    assert len(geo.zone("open")) == 192
    assert geo.zone("castle-row") == frozenset(range(64, 96))
    assert geo.zone("uds-column-1").isdisjoint(geo.zone("scrap"))
    with pytest.raises(TrayError, match="no zone 'bar'; zones are .*castle-row"):
        geo.zone("bar")


def test_bad_geometry_files_are_named(tmp_path):
    with pytest.raises(TrayError, match="cannot read tray geometry .*missing.toml"):
        geometry.load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[tray]\nname = 'x'\n")
    with pytest.raises(TrayError, match="bad.toml: missing key 'columns'"):
        geometry.load(bad)
    text = (ROOT / "hardware" / "tray.toml").read_text().replace("cols = [13, 15]", "cols = [13, 16]", 1)
    bad.write_text(text)
    with pytest.raises(TrayError, match="zone scrap lies outside the 16x12 grid"):
        geometry.load(bad)
    with pytest.raises(TrayError, match="cell 192 is not on the playing grid"):
        geometry.default().coords(192)


def test_bom_lists_one_reader_per_block_of_cells():
    # hardware/bom.csv is written by hardware/circuit.py: a reader per 2 x 2 block and the pad's
    from dominotray import pins

    with open(ROOT / "hardware" / "bom.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    readers = sum(int(row["qty"]) for row in rows if row["mpn"] == "FM17522E")
    assert readers == pins.READERS == geometry.default().cells // 4 + 1
    assert all(int(row["qty"]) > 0 and row["mpn"] for row in rows)


def test_the_wiring_serves_exactly_the_cells_of_the_geometry():
    # tray.toml is the one place the grid size is written: wiring.toml only maps cells to
    # chip selects, and the firmware's pins.py takes the grid from tray.toml
    # (firmware/gen_pins.py; tests/firmware/test_firmware.py checks that pins.py is up to date).
    import tomllib

    from dominotray import pins
    from dominotray.layout import blocks

    wiring = tomllib.loads((ROOT / "hardware" / "wiring.toml").read_text())
    geo = geometry.default()
    assert "tray" not in wiring
    reader_of, _coil_of = blocks(geo.columns, geo.rows, len(geo.pad), wiring["blocks"]["cols"], wiring["blocks"]["rows"])
    wired = sorted(reader for decoder in wiring["decoder"] for reader in decoder["readers"] if reader >= 0)
    assert wired == list(range(max(reader_of) + 1)) == list(range(pins.READERS))
    assert (pins.COLS, pins.ROWS, pins.PAD_CELLS, pins.CELLS) == (geo.columns, geo.rows, len(geo.pad), geo.cells)


def test_a_games_cells_are_its_zones_its_racks_and_the_pad():
    geo = geometry.default()
    castle = catalog.spec("castle-rock").cells(geo)
    racks = {c for rack in geo.racks("castle-rock") for c in rack.cells}  # bot seats' hands
    assert castle == geo.zone("castle-row") | geo.zone("castle-row-2") | geo.zone("captures") | set(geo.pad) | racks
    assert len(catalog.spec("broadway").cells(geo)) == geo.cells
    assert geo.cells_of(()) == frozenset(geo.pad) and geo.racks("no-such-racks") == ()
