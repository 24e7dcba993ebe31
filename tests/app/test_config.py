from pathlib import Path

import pytest
from dominotable.app import config
from dominotable.app.config import ConfigError
from dominotable.rules.errors import DominoError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_defaults_run_the_simulated_table(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nothing-here"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    cfg = config.load()
    assert cfg.source is None
    assert cfg.display.driver == "emulated"
    assert cfg.buttons.pin_factory == "auto"
    assert cfg.tray.port == "auto"
    assert cfg.storage.path == tmp_path / "data" / "dominotable" / "dominotable.sqlite3"


def test_user_config_directory_is_used_when_no_path_given(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "dominotable").mkdir()
    (tmp_path / "dominotable" / "config.toml").write_text('[display]\ndriver = "sh1106"\n')
    cfg = config.load()
    assert cfg.display.driver == "sh1106"
    assert cfg.source == tmp_path / "dominotable" / "config.toml"


def test_full_file_is_read(tmp_path):
    path = write(tmp_path, """
[tray]
port = "/dev/ttyACM0"
serial = "E6614C311B7A9A2E"
[display]
driver = "ssd1306"
i2c_port = 3
address = 0x3D
rotate = 2
[buttons]
up = 5
down = "GPIO6"
select = 13
led = 19
buzzer = 26
pin_factory = "lgpio"
[game]
settle_ms = 250
[storage]
database = "scores/table.db"
""")
    cfg = config.load(path)
    assert cfg.tray.port == "/dev/ttyACM0" and cfg.tray.serial == "E6614C311B7A9A2E"
    assert (cfg.display.driver, cfg.display.i2c_port, cfg.display.address, cfg.display.rotate) == ("ssd1306", 3, 0x3D, 2)
    assert (cfg.buttons.up, cfg.buttons.down, cfg.buttons.pin_factory) == (5, "GPIO6", "lgpio")
    assert cfg.game.settle_ms == 250
    # a relative database path is relative to the config file, not the working directory
    assert cfg.storage.path == (tmp_path / "scores" / "table.db").resolve()


def test_tray_none_means_virtual(tmp_path):
    from dominotable.tray.connect import open_tray

    port = config.load(write(tmp_path, '[tray]\nport = "None"\n')).tray.port
    with open_tray(port, speed=20.0) as tray:
        assert tray.virtual is not None and tray.link.path == tray.virtual.path


@pytest.mark.parametrize("text, names", [
    ('[dispaly]\ndriver = "ssd1306"\n', "[dispaly]"),
    ('[display]\ndrvier = "ssd1306"\n', "display.drvier"),
    ('[display]\ndriver = "ssd1309"\n', "display.driver = 'ssd1309'"),
    ('[display]\naddress = 300\n', "display.address = 300"),
    ('[display]\naddress = "0x3C"\n', "display.address = '0x3C'"),
    ('[display]\nrotate = 4\n', "display.rotate = 4"),
    ('[display]\nrotate = true\n', "display.rotate = True"),
    ('[buttons]\nup = 40\n', "buttons.up = 40"),
    ('[buttons]\npin_factory = "gpio"\n', "buttons.pin_factory = 'gpio'"),
    ('[buttons]\nled = 17\n', "buttons.led = 17 is the same pin as buttons.up"),
    ('[game]\nsettle_ms = -5\n', "game.settle_ms = -5"),
    ('[game]\nsettle_ms = "fast"\n', "game.settle_ms = 'fast'"),
    ('game = 5\n', "[game] table"),
    ('[display\n', "not valid TOML"),
])
def test_bad_keys_and_values_name_the_key_and_file(tmp_path, text, names):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        config.load(path)
    assert names in str(err.value)
    assert str(path) in str(err.value)
    assert isinstance(err.value, DominoError)


def test_missing_explicit_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        config.load(tmp_path / "nope.toml")
