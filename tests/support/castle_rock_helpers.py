"""Helpers shared by the Castle Rock and Castle Rock Solitaire tests."""

import dataclasses

from dominotable.rules.games.castle_rock.capture import single_captures


def fields(game):
    """The state without its cache of available captures."""
    return {f.name: getattr(game.state, f.name) for f in dataclasses.fields(game.state) if f.name != "caps"}


def check_caps(game):
    """The cached captures are exactly what capture.py finds, positions included."""
    found = [(c.kind, c.index, c.tiles) for c in single_captures(game.row())]
    assert [(c.kind, c.index, c.tiles) for c in game.captures()] == found
