"""Up-Down-Stop's own player: `lookahead`, an expectimax over the tiles still unseen."""

from __future__ import annotations

from dominotable.rules.game import Move
from dominotable.rules.games.up_down_stop.engine import Rules, UDSState, UpDownStop


class _OverBudget(Exception):
    pass


def lookahead_bot(rng, depth: int = 2, budget: int = 4000):
    """Expectimax over the tiles still unseen (their set, never their order).

    Each decision is valued by the mean, over every tile the next draw could bring, of
    the best reply, `depth` draws deep, ending in `Rules.outlook`. Depth 1 is always
    searched; a deeper search is kept only if it values at most `budget` positions, so
    the same deal always gets the same play, on any machine.
    """

    def value(rules: Rules, s: UDSState, plies: int, spent: list[int] | None) -> float:
        pool, reshuffle = rules.next_pool(s)
        if plies == 0 or not pool:
            return rules.outlook(s)
        if spent is not None:
            spent[0] += 1
            if spent[0] > budget:
                raise _OverBudget
        total = 0.0
        for tile in pool:
            drawn = s.copy()
            if reshuffle:
                rules.reshuffle(drawn, pool)
            rules.take(drawn, tile)
            best = None
            for move in rules.moves_for(drawn, tile):
                after = drawn.copy()
                rules.place(after, move)
                v = value(rules, after, plies - 1, spent)
                if best is None or v > best:
                    best = v
            total += best
        return total / len(pool)

    def choose(game: UpDownStop) -> Move:
        moves = list(game.legal_moves())
        if len(moves) == 1:
            return moves[0]
        rules, state = game.rules, game.position()
        afters = []
        for move in moves:
            after = state.copy()
            rules.place(after, move)
            afters.append(after)
        values = [value(rules, a, 1, None) for a in afters]
        for plies in range(2, depth + 1):
            spent = [0]
            try:
                values = [value(rules, a, plies, spent) for a in afters]
            except _OverBudget:
                break
        top = max(values)
        return rng.choice([m for m, v in zip(moves, values) if v >= top - 1e-9])

    return choose


UP_DOWN_STOP = {"lookahead": lookahead_bot}
