"""Ratings per game with openskill (app/ratings.py): free-for-all for Castle Rock and Doubles in
the Boneyard, two-player teams for Broadway; abandoned and unfinished matches count for
nobody; names are one player whatever their case."""

from dominotable.store.records import MatchRecord
from dominotable.views.ratings import rate


def match(id_, game, names, sides, winners, ending="played", finished=True):
    return MatchRecord(id_, game, {}, 0, len(names), names, "2026-01-01T00:00:00", "x" if finished else None,
                       {"ending": ending, "scores": [0] * (max(sides) + 1), "winners": winners} if finished else None,
                       sides=sides)


def test_free_for_all_the_winner_rises_and_the_others_fall():
    boards = rate([match(1, "castle-rock", ["Ann", "Bob", "Cy"], [0, 1, 2], [1])])
    (board,) = boards
    assert board.title == "Castle Rock"
    by = {p.name: p for p in board.players}
    assert board.players[0].name == "Bob" and by["Bob"].rating > by["Ann"].rating
    assert by["Ann"].rating == by["Cy"].rating  # both lost to the same winner
    assert [(p.matches, p.wins) for p in board.players] == [(1, 1), (1, 0), (1, 0)]


def test_broadway_rates_partners_as_a_team():
    boards = rate([match(1, "broadway", ["Ann", "Bob", "Cy", "Dee"], [0, 1, 0, 1], [0])])
    by = {p.name: p for p in boards[0].players}
    assert by["Ann"].rating == by["Cy"].rating > by["Bob"].rating == by["Dee"].rating
    assert by["Ann"].win_rate == 1.0 and by["Bob"].win_rate == 0.0


def test_per_game_abandoned_and_unfinished_not_counted_names_folded():
    records = [
        match(1, "castle-rock", ["Ann", "Bob"], [0, 1], [0]),
        match(2, "doubles-in-the-boneyard", ["ann", "Bob"], [0, 1], [1]),
        match(3, "castle-rock", ["Ann", "Bob"], [0, 1], [], ending="abandoned"),
        match(4, "castle-rock", ["Ann", "Bob"], [0, 1], [], finished=False),
        match(5, "castle-rock", ["ANN", "Bob"], [0, 1], [0]),
    ]
    boards = {b.game: b for b in rate(records)}
    assert set(boards) == {"castle-rock", "doubles-in-the-boneyard"}
    castle = {p.name: p for p in boards["castle-rock"].players}
    assert set(castle) == {"Ann", "Bob"} and castle["Ann"].matches == 2 and castle["Ann"].wins == 2
    doubles = {p.name: p for p in boards["doubles-in-the-boneyard"].players}
    assert doubles["Bob"].rating > doubles["ann"].rating  # ratings are per game: Bob leads here only


def test_solitaire_counts_without_a_rating_change():
    boards = rate([match(1, "castle-rock-solitaire", ["Ann"], [0], [0])])
    (ann,) = boards[0].players
    assert (ann.matches, ann.wins) == (1, 1) and ann.rating == 0.0
