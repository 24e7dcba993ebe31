"""Rule options (variants): frozen dataclasses whose fields carry help text and choices.

A game declares its options like

    @dataclass(frozen=True)
    class CastleRockOptions(Options):
        set: int = option(6, "domino set: the highest double", choices=(6, 9, 12))

and the framework parses them from `name=value` strings or command-line flags,
rejecting unknown names and values outside the choices with a message naming both.
Two names have a meaning for every game and a default here, for games without the option:
`set` (the highest double, 6) and `target` (the score that ends the match, None).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from dominotable.rules.errors import BadOption


def option(default: Any, help: str, choices: tuple | None = None, hidden: bool = False):
    """`hidden`: set by the table, not by people (no menu, flag or docs offers it), and kept with
    the match like any option."""
    return dataclasses.field(default=default, metadata={"help": help, "choices": choices, "hidden": hidden})


@dataclass(frozen=True)
class Options:
    set: ClassVar[int] = 6
    target: ClassVar[int | None] = None

    @classmethod
    def fields(cls) -> list[dataclasses.Field]:
        return list(dataclasses.fields(cls))

    @classmethod
    def describe(cls) -> list[tuple[str, Any, tuple | None, str]]:
        """(name, default, choices, help) for every option people set, for menus, docs and --help."""
        return [(f.name, f.default, f.metadata.get("choices"), f.metadata.get("help", "")) for f in cls.fields()
                if not f.metadata.get("hidden")]

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Options:
        known = {f.name: f for f in cls.fields()}
        kwargs = {}
        for name, raw in values.items():
            key = name.replace("-", "_")
            if key not in known:
                raise BadOption(f"unknown option {name!r}; options are {', '.join(known) or 'none'}")
            kwargs[key] = _convert(known[key], raw)
        return cls(**kwargs)

    @classmethod
    def parse(cls, pairs: list[str]) -> Options:
        """Parse `name=value` strings."""
        values = {}
        for pair in pairs:
            name, sep, value = pair.partition("=")
            if not sep:
                raise BadOption(f"option {pair!r} must be written name=value")
            values[name.strip()] = value.strip()
        return cls.from_dict(values)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _convert(field: dataclasses.Field, raw: Any) -> Any:
    default = field.default
    value = raw
    if isinstance(raw, str):
        try:
            if isinstance(default, bool):
                if raw.lower() not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
                    raise ValueError
                value = raw.lower() in ("true", "yes", "1", "on")
            elif isinstance(default, int):
                value = int(raw)
        except ValueError:
            raise BadOption(f"option {field.name}: {raw!r} is not a {type(default).__name__}") from None
    elif isinstance(default, bool) != isinstance(raw, bool) or not isinstance(raw, type(default)):
        raise BadOption(f"option {field.name}: {raw!r} is not a {type(default).__name__}")
    choices = field.metadata.get("choices")
    if choices is not None and value not in choices:
        raise BadOption(
            f"option {field.name}: {raw!r} is not one of {', '.join(str(c) for c in choices)}"
        )
    return value
