"""Typed errors. All are ValueError so callers may catch broadly, as in python-chess."""


class DominoError(ValueError):
    """Base of every error that a user can cause and that gets a one-line message."""


class InvalidNotation(DominoError):
    """A token that is not a tile, or a tile that is not in the chosen set."""


class DuplicateTile(DominoError):
    """The same tile named twice where each tile may appear once."""


class BadOption(DominoError):
    """An unknown option, a value outside its choices, or a bad player count."""


class UnknownGame(DominoError):
    """A game name that the registry does not know."""


class IllegalMove(DominoError):
    """A well-formed move that the rules forbid. Names the rule and the tile."""

    def __init__(self, message: str, rule: str | None = None, tile=None):
        self.rule = rule
        self.tile = tile
        prefix = f"rule {rule}: " if rule else ""
        super().__init__(prefix + message)


class SealedGame(RuntimeError):
    """Code other than the match's committer tried to push or pop the live engine: a bug."""
