"""Errors of the tray: each names the cell, tile, UID, path or version concerned."""

from dominotable.rules.errors import DominoError


class TrayError(DominoError):
    """A tray problem a user can act on."""


class TrayNotFound(TrayError):
    """No tray at the configured path, the udev symlink, or by USB id."""


class ProtocolMismatch(TrayError):
    """The tray speaks another protocol version than this host."""


class TagConflict(TrayError):
    """A UID already enrolled to a different tile half."""


class EnrollError(TrayError):
    """Enrollment cannot finish: a missing, doubled or unreadable tag, or a bad layout."""
