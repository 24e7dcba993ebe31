"""What the store raises: a file it cannot use, a match it cannot find, a write SQLite refused."""

from __future__ import annotations

from dominotable.rules.errors import DominoError


class StorageError(DominoError):
    """A database that cannot be opened, or a match that is not in it or cannot be replayed."""


class DamagedDatabase(StorageError):
    """A database file that SQLite finds corrupt (see recovery.py)."""


class DatabaseInUse(StorageError):
    """A database another table holds (TableLock): `pid` is the holder's, None if it is not known."""

    def __init__(self, message: str, pid: int | None):
        super().__init__(message)
        self.pid = pid


class StoreUnavailable(StorageError):
    """A write SQLite refused (the disk full, an I/O error, read-only, busy): rolled back whole,
    nothing half-written; try again when `Store.writable()` says so."""
