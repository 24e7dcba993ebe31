"""The store: every match, move, seat and hint in SQLite, its recovery, and the ratings read from it."""
