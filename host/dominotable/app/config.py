"""The table's configuration: a TOML file, else built-in defaults.

The file is `--config PATH`, else `config.toml` in the user config directory
(platformdirs; the Pi's systemd unit points XDG_CONFIG_HOME at /etc), else none at all:
the defaults run the simulated table (virtual tray unless one is plugged in, emulated
OLED, virtual buttons). Every key is checked: an unknown key or a bad value raises
ConfigError naming the key and the file, before any hardware is touched.

    [tray]
    port = "auto"          # "auto": the udev /dev/domino-tray, else the one Pico on USB,
                           # else the virtual tray; "none": always virtual; or a device path
    serial = ""            # the tray Pico's USB serial number, when several Picos are plugged in
    [display]
    driver = "emulated"    # ssd1306 | sh1106 | emulated
    i2c_port = 1
    address = 0x3C
    rotate = 0             # quarter turns clockwise, 0-3
    frames = ""            # emulated only: a folder for PNG frames ("" = none)
    terminal = true        # emulated only: draw frames in the terminal
    window = false         # emulated only: a pygame window (needs the `emulator` extra)
    [buttons]
    up = 17                # BCM numbers, or gpiozero pin names such as "GPIO17", "BOARD11"
    down = 27
    select = 22
    led = 23
    buzzer = 24
    pin_factory = "auto"   # auto | virtual | mock | lgpio | rpigpio | pigpio | native
    [game]
    settle_ms = 400
    prompt_after_ms = 2000 # a tile lifted or moving, a capture half made: prompted after this long
    [storage]
    database = ""          # "" = dominotable.sqlite3 in the user data directory
    [web]
    host = "127.0.0.1"     # where `run` serves the page; "0.0.0.0" for the LAN, "off" for no page
    port = 8080
    token = ""             # controls from other machines need it (loopback never does)
    hosts = []             # more names the page answers to (its addresses, localhost and the
                           # machine's name and name.local always): ["table.bar.lan"], "name:port"
    origins = []           # more pages that may drive it, such as an HTTPS proxy: ["https://table.bar"]
    [venue]
    broker = ""            # mqtt://[user:pass@]HOST:PORT, mqtts:// for TLS; "" = no venue
    table = ""             # this table's id at the venue: letters, digits, - and _
    username = ""          # the broker's user (else from the address)
    password = ""
    ca = ""                # TLS: the CA file that signed the broker's certificate ("" = the system's)
    partner = ""           # another table's id: its people may take seats here (remote seats)
    [lights]
    level = "on"           # the cells' lights: on | dim | off (the setup menu changes it too)
    quiet_hours = ""       # the venue's quiet hours, local time, when "on" is dimmed: "22:00-07:00"
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from dominotable import inputs
from dominotable.rules.errors import DominoError
from dominotable.settings import setting
from dominotable.ui.buttons import ButtonsConfig
from dominotable.ui.lights import LightsConfig
from dominotable.ui.oled.display import DisplayConfig
from dominotable.ui.web.access import split_authority
from dominotable.venue.broker import TABLE_ID

APP = "dominotable"


class ConfigError(DominoError):
    """A configuration file that cannot be read, or a key or value it must not have."""


@dataclass(frozen=True)
class TrayConfig:
    port: str = setting("auto", lambda v: isinstance(v, str) and v != "",
                     'is not "auto", "none" or a device path')
    serial: str = setting("", lambda v: isinstance(v, str), "is not a USB serial number")


@dataclass(frozen=True)
class GameConfig:
    settle_ms: int = setting(400, lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 10_000,
                          "is not a time in milliseconds (0-10000)")
    # how long hands may hold a state that could still become a legal turn before it is prompted
    prompt_after_ms: int = setting(2000, lambda v: isinstance(v, int) and not isinstance(v, bool)
                                   and 0 <= v <= 60_000, "is not a time in milliseconds (0-60000)")


@dataclass(frozen=True)
class StorageConfig:
    database: str = setting("", lambda v: isinstance(v, str), "is not a file path", path=True)

    @property
    def path(self) -> Path:
        if self.database:
            return Path(self.database)
        return Path(platformdirs.user_data_dir(APP)) / "dominotable.sqlite3"


@dataclass(frozen=True)
class WebConfig:
    host: str = setting("127.0.0.1", lambda v: isinstance(v, str) and v != "" and " " not in v,
                        'is not a host address or "off"')
    port: int = setting(8080, lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 65535,
                        "is not a TCP port (0-65535)")
    token: str = setting("", lambda v: isinstance(v, str), "is not a text")
    hosts: tuple[str, ...] = setting((), lambda v: isinstance(v, list) and all(map(_authority, v)),
                                     'is not a list of host names (like ["table.bar.lan", "10.0.0.5:8080"])')
    origins: tuple[str, ...] = setting((), lambda v: isinstance(v, list) and all(map(_origin, v)),
                                       'is not a list of origins (like ["https://table.bar"])')

    @property
    def off(self) -> bool:
        return self.host.lower() == "off"


def _authority(value) -> bool:
    try:
        return isinstance(value, str) and "/" not in value and bool(split_authority(value))
    except ValueError:
        return False


def _origin(value) -> bool:
    if not isinstance(value, str):
        return False
    scheme, sep, authority = value.rstrip("/").partition("://")
    return scheme in ("http", "https") and bool(sep) and _authority(authority)


@dataclass(frozen=True)
class VenueConfig:
    broker: str = setting("", lambda v: isinstance(v, str) and (v == "" or v.startswith(("mqtt://", "mqtts://"))),
                          'is not "" or mqtt://[user:pass@]HOST:PORT (mqtts:// for TLS)')
    table: str = setting("", lambda v: isinstance(v, str) and (v == "" or TABLE_ID.fullmatch(v) is not None),
                         "is not a table id (1-40 letters, digits, - or _)")
    username: str = setting("", lambda v: isinstance(v, str), "is not a text")
    password: str = setting("", lambda v: isinstance(v, str), "is not a text")
    ca: str = setting("", lambda v: isinstance(v, str), "is not a file path", path=True)
    partner: str = setting("", lambda v: isinstance(v, str) and (v == "" or TABLE_ID.fullmatch(v) is not None),
                           "is not a table id (1-40 letters, digits, - or _)")


def listen_address(text: str) -> tuple[str, int] | None:
    """`--http HOST:PORT` (or `:PORT`, or `off`): the address, or None for no page."""
    if text.strip().lower() == "off":
        return None
    host, sep, port = text.strip().rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT (like 127.0.0.1:8080) or off")
    return host, int(port)


@dataclass(frozen=True)
class Config:
    tray: TrayConfig = field(default_factory=TrayConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    game: GameConfig = field(default_factory=GameConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)
    web: WebConfig = field(default_factory=WebConfig)
    venue: VenueConfig = field(default_factory=VenueConfig)
    lights: LightsConfig = field(default_factory=LightsConfig)
    source: Path | None = None  # the file it came from, None for the defaults


SECTIONS = {f.name: f.default_factory for f in dataclasses.fields(Config) if f.name != "source"}


def default_path() -> Path:
    return Path(platformdirs.user_config_dir(APP)) / "config.toml"


def load(path: str | os.PathLike | None = None) -> Config:
    """The configuration from `path`, else from the user config file if it exists, else defaults."""
    if path is None:
        path = default_path()
        if not path.is_file():
            return Config()
    path = Path(path)
    try:
        data = inputs.load_toml(path)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"config file {path}: cannot read it: {exc.strerror}") from None
    except inputs.Refused as exc:
        raise ConfigError(f"config file {path} {exc}") from None
    return from_dict(data, path)


def from_dict(data: dict[str, Any], path: Path | None = None) -> Config:
    where = f"config file {path}" if path else "config"
    sections = {}
    for name, table in data.items():
        if name not in SECTIONS:
            raise ConfigError(f"{where}: unknown section [{name}]; sections are {', '.join(SECTIONS)}")
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: {name} must be a [{name}] table")
        sections[name] = _section(SECTIONS[name], name, table, where, path)
    config = Config(**sections, source=path)
    _check_pins_distinct(config.buttons, where)
    return config


def _section(cls, name: str, table: dict[str, Any], where: str, path: Path | None):
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for key, value in table.items():
        if key not in fields:
            raise ConfigError(f"{where}: unknown key {name}.{key}; [{name}] keys are {', '.join(fields)}")
        meta = fields[key].metadata
        if not meta["check"](value):
            raise ConfigError(f"{where}: {name}.{key} = {value!r} {meta['why']}")
        values[key] = value
        if meta.get("path") and value and path is not None:  # relative to the file
            values[key] = str((path.parent / Path(value).expanduser()).resolve())
    return cls(**values)


def _check_pins_distinct(buttons: ButtonsConfig, where: str) -> None:
    seen: dict[str, str] = {}
    for key in ("up", "down", "select", "led", "buzzer"):
        value = getattr(buttons, key)
        norm = f"GPIO{value}" if isinstance(value, int) else str(value).upper()
        if norm in seen:
            raise ConfigError(f"{where}: buttons.{key} = {value!r} is the same pin as buttons.{seen[norm]}")
        seen[norm] = key
