"""A stored match looked back on, for the table's scoreboard and the venue's alike: the names of
its sides, the scores after every hand, and its position at any step laid out on a tray (as the
bots' hands would lay it), drawn as a page to step through."""

from __future__ import annotations

from importlib import resources
from typing import Any

from dominotable.games import catalog
from dominotable.rules.errors import DominoError
from dominotable.sim.memtray import MemoryTray
from dominotable.store.records import MatchRecord
from dominotable.tray.geometry import Geometry
from dominotable.tray.tags import Registry
from dominotable.views import markup, svg
from dominotable.views.markup import Markup, el

TEMPLATE = (resources.files(__package__) / "static" / "replay.html").read_text(encoding="utf-8")


def side_names(record: MatchRecord) -> list[str]:
    sides: dict[int, list[str]] = {}
    for name, side in zip(record.names, record.sides or range(len(record.names))):
        sides.setdefault(side, []).append(name)
    return [" & ".join(sides[side]) for side in sorted(sides)]


def hand_scores(record: MatchRecord) -> tuple[str, list[list[int]]]:
    """The scores at the start and after every hand ("hand"), or, for a match of one hand, after
    every play that scored ("scoring play"), from the record's moves replayed by the engine: a
    solitaire's score is its own number from the start (Up-Down-Stop's tiles left: 21 down)."""
    game = catalog.load({**record.to_dict(), "moves": []})
    start = list(game.scores)
    by_hand: list[list[int]] = [start]
    by_move: list[list[int]] = [start]
    hand = game.hands_played()
    for notation in record.moves:
        before = list(game.scores)
        game.push_notation(notation)
        if game.hands_played() != hand:  # a new deal: the scores as the last hand left them
            hand = game.hands_played()
            by_hand.append(list(game.scores))
        if game.scores != before:
            by_move.append(list(game.scores))
    if by_hand[-1] != game.scores or len(by_hand) == 1:
        by_hand.append(list(game.scores))
    return ("hand", by_hand) if len(by_hand) > 2 else ("scoring play", by_move)


def said(record: MatchRecord) -> list[dict[str, Any]]:
    """The record's moves in plain words (each game's own, GameSpec.words), with mover and notation."""
    spec = catalog.spec(record.game)
    start = catalog.load({**record.to_dict(), "moves": []})
    return [{"ply": s.ply, "who": s.who, "notation": s.notation, "words": s.words}
            for s in spec.narrate(start, record.moves, record.names)]


def position(record: MatchRecord, step: int, geometry: Geometry) -> dict[str, Any]:
    """The match after `step` moves (clamped to those it has), laid out on `geometry`'s tray, and
    its moves in words."""
    step = max(0, min(step, len(record.moves)))
    game = catalog.load({**record.to_dict(), "moves": record.moves[:step]})
    tray = MemoryTray(Registry.virtual(game.dset), geometry)
    try:
        tray.apply_all(catalog.hands_for(game, geometry).setup(tray.board()))
    except DominoError:
        pass  # a position the hands cannot lay out: the tray stays as far as it got
    return {"title": game.title, "geometry": geometry, "tiles": list(tray.tiles.items()),
            "zones": list(catalog.spec(game).zones_for(game.options)),
            "step": step, "steps": len(record.moves), "move": record.moves[step - 1] if step else None,
            "names": side_names(record), "scores": list(game.scores), "started": record.started,
            "said": said(record)}


def page(data: dict[str, Any], name: str, link: str, home: str) -> str:
    """The replay page of `data` (from `position`): the match called `name`, its steps at
    `link`?step=N, its moves in words (the notation as a tooltip), and a way back to the
    scoreboard at `home`."""
    step, steps = data["step"], data["steps"]
    picture = svg.tray(data["geometry"], data["tiles"], zones=data["zones"], title=f"the tray after move {step}")
    scores = ", ".join(f"{n} {p}" for n, p in zip(data["names"], data["scores"]))
    at = lambda n: f"{link}?step={n}"  # noqa: E731
    nav = [el("a", {"href": at(0), "id": "first"}, "first"),
           el("a", {"href": at(max(step - 1, 0)), "id": "prev", "accesskey": "p"}, "previous"),
           el("span", {"class": "step"}, f"move {step} of {steps}"),
           el("a", {"href": at(min(step + 1, steps)), "id": "next", "accesskey": "n"}, "next"),
           el("a", {"href": at(steps), "id": "last"}, "last")]
    moves = [el("li", {"value": m["ply"], **({"aria-current": "step", "class": "current"} if m["ply"] == step else {})},
                el("a", {"href": at(m["ply"]), "title": m["notation"]}, m["words"])) for m in data["said"]]
    now = data["said"][step - 1] if step else None
    move = el("span", {"title": now["notation"]}, now["words"]) if now else "the deal"
    return markup.page(TEMPLATE, title=f"{data['title']}: {name}", nav=nav, tray=Markup(picture), move=move,
                       scores=scores, moves=moves, home=home)
