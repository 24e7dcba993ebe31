"""`dominotable replay FILE`: replay an exported match, printing each move and the final scores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dominotable import inputs
from dominotable.games import catalog
from dominotable.match.replay import replay
from dominotable.rules.errors import DominoError
from dominotable.rules.game import Game
from dominotable.rules.outcome import Termination
from dominotable.store.errors import StorageError


def register(subparsers) -> None:
    parser = subparsers.add_parser("replay", help="replay a match exported with `history --export`",
                                   description="Replay an exported match through its game's rules: every move, "
                                               "who played it, and the final scores.")
    parser.add_argument("file", help="the exported match (JSON)")
    parser.set_defaults(func=run)


def run(args) -> int:
    path = Path(args.file)
    try:
        data = inputs.load_json(path)
    except OSError as exc:
        raise DominoError(f"cannot read {path}: {exc.strerror}") from None
    except inputs.Refused as exc:
        raise DominoError(f"{path}: not a saved game: it {exc}") from None
    try:
        game, names = replay_with_names(data)
    except DominoError as exc:
        raise type(exc)(f"{path}: {exc}") from None
    for line in match_lines(data, game, names):
        print(line)
    return 0


def replay_with_names(data: Any) -> tuple[Game, list[str]]:
    """The replayed game and one name per seat, checked against the recorded result."""
    game = replay(data)
    names = data.get("names") or [f"P{seat + 1}" for seat in range(game.players)]
    if not isinstance(names, list) or len(names) != game.players or not all(isinstance(n, str) for n in names):
        count = len(names) if isinstance(names, list) else "no list of"
        raise StorageError(f"{count} names for {game.players} seats")
    result = data.get("result")
    if isinstance(result, dict) and result.get("ending") == Termination.PLAYED and result.get("scores") != game.scores:
        raise StorageError(f"replayed scores {game.scores} differ from the recorded {result.get('scores')}")
    return game, names


def side_labels(game: Game, names: list[str]) -> list[str]:
    """A label per side: the seat's name, or the partners' names joined."""
    labels = [[] for _ in game.scores]
    for seat, name in enumerate(names):
        labels[game.side_of(seat)].append(name)
    return [" & ".join(seats) for seats in labels]


def match_lines(data: dict[str, Any], game: Game, names: list[str]) -> list[str]:
    """A header, one line per move in plain words with its notation (and the hints asked for before
    it), and the final scores."""
    head = f"{game.title} ({game.name}), seed {game.seed}, {', '.join(names)}"
    set_by_people = {name for name, *_ in game.Options.describe()}  # not the table's own (Broadway's room)
    options = ", ".join(f"{k}={v}" for k, v in game.options.to_dict().items() if k in set_by_people)
    lines = [head + (f"; {options}" if options else "")]
    if data.get("started"):
        lines.append(f"started {data['started']}" + (f", finished {data['finished']}" if data.get("finished") else ""))
    start = type(game).from_dict({**game.to_dict(), "moves": []})  # the same game, observed or not
    times = data.get("times")
    if not isinstance(times, list) or not all(isinstance(t, str) for t in times):
        times = []  # no times, or not the exported shape: the moves without them
    hints: dict[int, list[str]] = {}  # moves made before the hint -> lines
    for hint in data["hints"] if isinstance(data.get("hints"), list) else []:
        if not isinstance(hint, dict) or not isinstance(hint.get("ply"), int):
            continue  # not the shape a hint is recorded in
        seat = hint.get("seat")
        who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "the table"
        hints.setdefault(hint["ply"], []).append(f"     hint for {who}: {hint.get('hint')}")
    said = catalog.spec(game).narrate(start, [str(m) for m in game.moves], names)  # replay() checked them
    width = max((len(s.words) for s in said), default=0)
    for s in said:
        lines += hints.get(s.ply - 1, [])
        when = f"  {times[s.ply - 1][11:19]}" if s.ply <= len(times) else ""
        lines.append(f"{s.ply:>3}. {s.words:<{width}}  [{s.notation}]{when}".rstrip())
    lines += hints.get(len(game.moves), [])
    labels = side_labels(game, names)
    scores = ", ".join(f"{label} {score}" for label, score in zip(labels, game.scores))
    if game.is_over():
        won = [labels[side] for side in game.winners()]
        ending = f"won by {' and '.join(won)}" if won else "no winner"
    else:
        result = data.get("result")
        ending = result.get("ending", "unfinished") if isinstance(result, dict) else "unfinished"
    lines.append(f"final: {scores}; {ending}")
    return lines
