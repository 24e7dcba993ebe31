from dataclasses import dataclass

import pytest
from dominotable.rules.errors import BadOption
from dominotable.rules.options import Options, option


@dataclass(frozen=True)
class Sample(Options):
    set: int = option(6, "set", choices=(6, 9, 12))
    draw: str = option("any-time", "when to draw", choices=("any-time", "when-blocked"))
    strict: bool = option(False, "strict")


def test_defaults_and_parse():
    assert Sample() == Sample.parse([])
    assert Sample.parse(["set=9", "draw=when-blocked", "strict=yes"]) == Sample(9, "when-blocked", True)


@pytest.mark.parametrize("pairs,message", [
    (["colour=red"], "unknown option 'colour'"),
    (["set=7"], "option set: '7' is not one of 6, 9, 12"),
    (["set=six"], "option set: 'six' is not a int"),
    (["draw=never"], "option draw: 'never' is not one of any-time, when-blocked"),
    (["set"], "must be written name=value"),
])
def test_bad_options_named(pairs, message):
    with pytest.raises(BadOption, match=message):
        Sample.parse(pairs)
