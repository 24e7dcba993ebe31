"""The tag registry: which tile half each NTAG UID is stuck under.

Stored as JSON in the user's data directory (platformdirs), written atomically: a temporary
file in the same directory, fsync, rename, so a power cut leaves the old or the new registry,
never half of one. One UID per half: enrolling a replacement tile retires the old UIDs.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import platformdirs

from dominotable import inputs
from dominotable.rules.tiles import DominoSet, Tile
from dominotable.tray.errors import TagConflict, TrayError

FORMAT = 1


class Half:
    """One half of a tile: side 0 shows `tile.a` pips, side 1 shows `tile.b`."""

    __slots__ = ("tile", "side")

    def __init__(self, tile: Tile, side: int):
        if side not in (0, 1):
            raise ValueError(f"side must be 0 or 1, not {side!r}")
        self.tile = tile
        self.side = side

    @property
    def pips(self) -> int:
        return self.tile.b if self.side else self.tile.a

    @property
    def partner(self) -> Half:
        return Half(self.tile, 1 - self.side)

    def __eq__(self, other) -> bool:
        return isinstance(other, Half) and (self.tile, self.side) == (other.tile, other.side)

    def __hash__(self) -> int:
        return hash((self.tile, self.side))

    def __str__(self) -> str:
        if self.tile.is_double:
            return f"the {'first' if self.side == 0 else 'second'} {self.pips} half of {self.tile}"
        return f"the {self.pips} half of {self.tile}"

    def __repr__(self) -> str:
        return f"Half({self.tile}, {self.side})"


def halves(dominoes: DominoSet) -> list[Half]:
    return [Half(tile, side) for tile in dominoes for side in (0, 1)]


def default_path() -> Path:
    return Path(platformdirs.user_data_dir("dominotable")) / "tags.json"


def virtual_uid(half: Half, top: int = 6) -> bytes:
    """The deterministic NTAG-like UID of a half in the virtual tag set (0x04 = NXP)."""
    return bytes((0x04, 0x56, 0x54, top, half.tile.a, half.tile.b, half.side))


class Registry:
    def __init__(self, path: str | Path | None = None, dominoes: DominoSet | None = None):
        self.path = Path(path) if path is not None else default_path()
        self.dominoes = dominoes or DominoSet(6)
        self._by_uid: dict[bytes, Half] = {}

    @classmethod
    def load(cls, path: str | Path | None = None) -> Registry:
        """The registry at `path` (default: the user data directory); empty if none exists."""
        registry = cls(path)
        try:
            data = inputs.load_json(registry.path, inputs.SMALL)
        except FileNotFoundError:
            return registry
        except OSError as exc:
            raise TrayError(f"tag registry {registry.path} cannot be read: {exc.strerror}") from None
        except inputs.Refused as exc:
            raise TrayError(f"tag registry {registry.path} cannot be read: it {exc}") from None
        try:
            if data["format"] != FORMAT:
                raise TrayError(f"tag registry {registry.path} has format {data['format']}, expected {FORMAT}")
            registry.dominoes = DominoSet(data["set"])
            for uid, (tile, side) in data["tags"].items():
                registry._by_uid[bytes.fromhex(uid)] = Half(registry.dominoes.parse(tile), side)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise TrayError(f"tag registry {registry.path} is malformed: {exc}") from None
        return registry

    @classmethod
    def virtual(cls, dominoes: DominoSet | None = None, path: str | Path | None = None) -> Registry:
        """A registry of the virtual tag set (not saved unless asked)."""
        registry = cls(path if path is not None else os.devnull, dominoes)
        for half in halves(registry.dominoes):
            registry._by_uid[virtual_uid(half, registry.dominoes.top)] = half
        return registry

    @classmethod
    def any_virtual(cls) -> Registry:
        """The virtual tag sets of every size at once: what a tray whose HELLO says it is virtual
        (`dominotable tray sim`) may carry, whichever set it was started with."""
        registry = cls(os.devnull, DominoSet(max(DominoSet.NAMES)))
        for top in DominoSet.NAMES:
            for half in halves(DominoSet(top)):
                registry._by_uid[virtual_uid(half, top)] = half
        return registry

    def __len__(self) -> int:
        return len(self._by_uid)

    def __contains__(self, uid: bytes) -> bool:
        return uid in self._by_uid

    def items(self):
        return self._by_uid.items()

    def lookup(self, uid: bytes) -> Half | None:
        return self._by_uid.get(uid)

    def uid_of(self, half: Half) -> bytes | None:
        for uid, known in self._by_uid.items():
            if known == half:
                return uid
        return None

    def missing(self) -> list[Half]:
        """Halves of the set that have no UID yet."""
        have = set(self._by_uid.values())
        return [half for half in halves(self.dominoes) if half not in have]

    def copy(self, empty: bool = False) -> Registry:
        """A working copy with the same path and set (`empty`: without any tags)."""
        other = Registry(self.path, self.dominoes)
        if not empty:
            other._by_uid = dict(self._by_uid)
        return other

    def add(self, uid: bytes, half: Half) -> bool:
        """Enroll `uid` as `half`, retiring any other UID of that half. True if anything changed.

        A UID already enrolled to a different half is refused, naming both halves.
        """
        if half.tile not in self.dominoes:
            raise TrayError(f"tile {half.tile} is not in the {self.dominoes.name} set")
        known = self._by_uid.get(uid)
        if known == half:
            return False
        if known is not None:
            hint = " (is the tile turned round?)" if known.tile == half.tile else ""
            raise TagConflict(f"tag {uid.hex()} is already enrolled as {known}; "
                              f"refusing to enroll it as {half}{hint}")
        for old in [u for u, h in self._by_uid.items() if h == half]:
            del self._by_uid[old]
        self._by_uid[uid] = half
        return True

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "set": self.dominoes.top,
            "tags": {uid.hex(): [str(h.tile), h.side] for uid, h in sorted(self._by_uid.items(),
                                                                            key=lambda kv: (kv[1].tile.id, kv[1].side))},
        }

    def save(self) -> None:
        """Write atomically: temp file in the same directory, fsync, rename over the old file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tags-", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(self.to_json(), f, indent=1)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
        dir_fd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
