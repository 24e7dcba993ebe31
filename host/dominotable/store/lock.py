"""The table's hold on its database file: no second table on it (TableLock), and a file that this
process can write (`probe_writable`), both checked before any play."""

from __future__ import annotations

import errno
import fcntl
import os
import tempfile
from pathlib import Path

from dominotable.store.errors import DatabaseInUse, StorageError


def _read_only(path: Path, why: str) -> StorageError:
    return StorageError(f"database {path} is read-only: {why}; the table must write every move "
                        f"(`history` and `leaderboard` can still read it)")


def probe_writable(path: Path) -> None:
    """Refuse a database this process cannot write before any play: SQLite would open it
    read-only without a word, and the first move would fail. Opening for writing changes nothing;
    the folder is tried by making (and removing) a file in it, as SQLite makes its WAL there."""
    for target in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            os.close(os.open(target, os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC))
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise _read_only(path, f"{target.name} cannot be opened for writing ({_why(exc)})") from None
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=path.parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise _read_only(path, f"no file can be made in its folder {path.parent} for SQLite's log "
                               f"({_why(exc)})") from None


def _why(exc: OSError) -> str:
    if exc.errno == errno.EPERM:
        return f"{exc.strerror}: is it immutable? lsattr shows an i"
    if exc.errno == errno.EACCES:
        return f"{exc.strerror} to uid {os.geteuid()}"
    return exc.strerror or str(exc)


class TableLock:
    """The table's hold on its database: `NAME.lock` beside it, under flock. The kernel lets go of
    it when the process ends however it ends (kill -9 too), so a crash never leaves it held; a
    clean release removes the file. It holds the holder's pid and command line, for the message a
    second table gets. Readers (history, the scoreboard) take no lock: WAL lets them read while
    the table writes."""

    def __init__(self, database: Path):
        self.database = Path(database)
        self.path = Path(f"{self.database}.lock")
        self.fd: int | None = None
        try:
            self.database.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot make the folder of the database {self.database}: {exc.strerror}") from None
        while self.fd is None:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid, command = _holder(fd)
                os.close(fd)
                who = f"pid {pid}" + (f" ({command})" if command else "") if pid else f"a process (see {self.path})"
                raise DatabaseInUse(f"database {self.database} is in use by another table: {who}; stop it first, "
                                    f"or give this one another database with --db", pid) from None
            if _same_file(fd, self.path):
                self.fd = fd
            else:  # its holder let go and removed it while this one was opening it: try the new one
                os.close(fd)
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n{_command(os.getpid())}\n".encode(), 0)

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise _read_only(self.database, f"no file can be made in its folder {self.database.parent} "
                                                f"({_why(exc)})") from None
            raise StorageError(f"cannot lock the database {self.database}: {exc.strerror} ({self.path})") from None

    def release(self) -> None:
        if self.fd is not None:
            try:
                self.path.unlink()  # while still held: a table waiting on it opens it anew
            except OSError:
                pass
            os.close(self.fd)  # closing lets go of the flock
            self.fd = None

    def __del__(self) -> None:
        self.release()


def _holder(fd: int) -> tuple[int | None, str]:
    """The pid and command line written in a held lock file."""
    lines = os.pread(fd, 4096, 0).decode(errors="replace").splitlines()
    pid = int(lines[0]) if lines and lines[0].strip().isdigit() else None
    return pid, (_command(pid) or (lines[1] if len(lines) > 1 else "")) if pid else ""


def _same_file(fd: int, path: Path) -> bool:
    try:
        opened, named = os.fstat(fd), os.stat(path)
    except FileNotFoundError:
        return False
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)


def _command(pid: int) -> str:
    """The command line of process `pid`, "" if it cannot be read."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return b" ".join(file.read(4096).split(b"\0")).decode(errors="replace").strip()
    except OSError:
        return ""
