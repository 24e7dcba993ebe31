"""Doubles in the Boneyard."""

from dominotable.rules.games.doubles_boneyard import engine  # noqa: F401
