"""A stored match looked back on, for the table's scoreboard and the venue's alike: the names of
its sides, the scores after every hand, and its position at any step laid out on a tray (as the
bots' hands would lay it), drawn as a page to step through."""

from __future__ import annotations

from html import escape
from importlib import resources
from typing import Any

from dominotable.games import catalog
from dominotable.rules.errors import DominoError
from dominotable.sim.memtray import MemoryTray
from dominotable.store.storage import MatchRecord
from dominotable.tray.geometry import Geometry
from dominotable.tray.tags import Registry
from dominotable.views import svg

TEMPLATE = (resources.files(__package__) / "static" / "replay.html").read_text(encoding="utf-8")


def side_names(record: MatchRecord) -> list[str]:
    sides: dict[int, list[str]] = {}
    for name, side in zip(record.names, record.sides or range(len(record.names))):
        sides.setdefault(side, []).append(name)
    return [" & ".join(sides[side]) for side in sorted(sides)]


def hand_scores(record: MatchRecord) -> list[list[int]]:
    """The scores after every hand (for a match of one hand: after every scoring move), from
    the record's moves replayed by the engine."""
    game = catalog.load({**record.to_dict(), "moves": []})
    by_hand: list[list[int]] = []
    by_move: list[list[int]] = []
    hand = game.hands_played()
    for notation in record.moves:
        before = list(game.scores)
        game.push_notation(notation)
        if game.hands_played() != hand:  # a new deal: the scores as the last hand left them
            hand = game.hands_played()
            by_hand.append(list(game.scores))
        if game.scores != before:
            by_move.append(list(game.scores))
    if not by_hand or by_hand[-1] != game.scores:
        by_hand.append(list(game.scores))
    return by_hand if len(by_hand) > 1 else by_move


def position(record: MatchRecord, step: int, geometry: Geometry) -> dict[str, Any]:
    """The match after `step` moves (clamped to those it has), laid out on `geometry`'s tray."""
    step = max(0, min(step, len(record.moves)))
    game = catalog.load({**record.to_dict(), "moves": record.moves[:step]})
    tray = MemoryTray(Registry.virtual(game.dset), geometry)
    try:
        tray.apply_all(catalog.hands_for(game, geometry).setup(tray.board()))
    except DominoError:
        pass  # a position the hands cannot lay out: the tray stays as far as it got
    return {"title": game.title, "geometry": geometry, "tiles": list(tray.tiles.items()),
            "zones": list(catalog.spec(game).zones),
            "step": step, "steps": len(record.moves), "move": record.moves[step - 1] if step else None,
            "names": side_names(record), "scores": list(game.scores)}


def page(data: dict[str, Any], name: str, link: str, home: str) -> str:
    """The replay page of `data` (from `position`): the match called `name`, its steps at
    `link`?step=N, and a way back to the scoreboard at `home`."""
    picture = svg.tray(data["geometry"], data["tiles"], zones=data["zones"], title=name)
    scores = ", ".join(f"{escape(n)} {p}" for n, p in zip(data["names"], data["scores"]))
    step, steps = data["step"], data["steps"]
    nav = "".join([
        f'<a href="{link}?step=0" id="first">first</a>',
        f'<a href="{link}?step={max(step - 1, 0)}" id="prev" accesskey="p">previous</a>',
        f'<span class="step">move {step} of {steps}</span>',
        f'<a href="{link}?step={min(step + 1, steps)}" id="next" accesskey="n">next</a>',
        f'<a href="{link}?step={steps}" id="last">last</a>',
    ])
    return TEMPLATE.format(title=escape(f"{data['title']}, {name}"), nav=nav, tray=picture,
                           move=escape(data["move"] or "the deal"), scores=scores, home=escape(home))
