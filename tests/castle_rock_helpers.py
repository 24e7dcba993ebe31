"""Helpers shared by the Castle Rock and Castle Rock Solitaire tests."""

from dominotable.rules.games.castle_rock.capture import single_captures


def fields(game):
    """The state without its cache of available captures."""
    state = dict(game.state.__dict__)
    state.pop("caps")
    return state


def check_caps(game):
    """The cached captures are exactly what capture.py finds, positions included."""
    found = [(c.kind, c.index, c.tiles) for c in single_captures(game.state.row)]
    assert [(c.kind, c.index, c.tiles) for c in game._row_captures()] == found
