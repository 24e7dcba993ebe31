"""Reading a file a person named: a regular file only, up to a size, nested up to a depth.

A path on the command line or in a configuration may name anything: `/dev/zero`, a FIFO no one
writes to, a serial port (opening one resets a Pico), a log of many gigabytes. A reader here
looks at the file's type before opening it, opens it without blocking and checks the type again
on what it opened (the path may have changed in between), reads at most the limit, and counts
brackets before a parser recurses into them. Outside the layers: a leaf anyone may use.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from typing import Any

KB = 1024
MB = 1024 * KB

# What a file may hold: a configuration, a tag registry or a tray's geometry is a few kilobytes,
# an exported match about 50 bytes a move (a long match, 300 moves, 15 KB).
SMALL = 1 * MB
MATCH = 4 * MB
# How deep brackets may nest: an exported match nests 4 deep, a configuration 2.
JSON_DEPTH = 32
TOML_DEPTH = 16

JSON_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"?')  # a string, maybe unclosed
TOML_QUOTED = re.compile(r'"""[\s\S]*?(?:"""|$)|\'\'\'[\s\S]*?(?:\'\'\'|$)|"(?:[^"\\\n]|\\.)*"?|\'[^\'\n]*\'?|#[^\n]*')
NOT_BRACKETS = re.compile(r"[^][{}]+")


class Refused(ValueError):
    """A file that is not read: what it is, or why (the caller names the file)."""


KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
         (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def kind(mode: int) -> str | None:
    """None for a regular file, else what it is."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in KINDS if test(mode)), "not a regular file")


def read_bytes(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file at `path`, refused when larger than `limit`.
    Raises Refused, or OSError when the file cannot be opened or read."""
    what = kind(os.stat(path).st_mode)
    if what is not None:
        raise Refused(f"is {what}, not a file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        what = kind(info.st_mode)
        if what is not None:  # swapped since the first look
            raise Refused(f"is {what}, not a file")
        if info.st_size > limit:
            raise Refused(f"is {_size(info.st_size)}, more than the {_size(limit)} it may be")
        data = file.read(limit + 1)
    if len(data) > limit:  # it grew while being read
        raise Refused(f"is more than the {_size(limit)} it may be")
    return data


def read_text(path: str | os.PathLike, limit: int) -> str:
    """`read_bytes` decoded as UTF-8 (Refused when it is not)."""
    try:
        return read_bytes(path, limit).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(f"is not UTF-8 text (byte {exc.start})") from None


def load_json(path: str | os.PathLike, limit: int = MATCH, depth: int = JSON_DEPTH) -> Any:
    """The JSON document in the file at `path`, within `limit` bytes and `depth` brackets."""
    return parse_json(read_text(path, limit), depth)


def parse_json(text: str, depth: int = JSON_DEPTH) -> Any:
    check_depth(text, depth, JSON_QUOTED)
    try:
        return json.loads(text)
    except ValueError as exc:  # not JSON, or a number too long to convert
        raise Refused(f"is not JSON: {exc}") from None


def load_toml(path: str | os.PathLike, limit: int = SMALL, depth: int = TOML_DEPTH) -> dict[str, Any]:
    """The TOML document in the file at `path`, within `limit` bytes and `depth` brackets."""
    text = read_text(path, limit)
    check_depth(text, depth, TOML_QUOTED)
    try:
        return tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or a number too long to convert
        raise Refused(f"is not valid TOML: {exc}") from None


def check_depth(text: str, depth: int, quoted: re.Pattern) -> None:
    """Refuse `text` whose brackets nest deeper than `depth` (outside what `quoted` matches:
    strings, comments), so that no parser recurses into it. Each pass takes away the pairs with
    nothing between them; after `depth` passes no pair may be left, nor more than `depth`
    brackets left open (a file cut short is left to the parser to name)."""
    brackets = NOT_BRACKETS.sub("", quoted.sub("", text)).replace("{", "[").replace("}", "]")
    for _ in range(depth):
        if "[" not in brackets:
            return
        brackets = brackets.replace("[]", "")
    opened = brackets.find("[")
    if opened >= 0 and ("]" in brackets[opened:] or len(brackets) - opened > depth):
        raise Refused(f"nests brackets more than {depth} deep")


def _size(n: int) -> str:
    return f"{n / MB:.3g} MB" if n >= MB else f"{n / KB:.3g} KB" if n >= KB else f"{n} bytes"
