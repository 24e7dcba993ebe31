"""The players that choose moves: shared ones (random, greedy) and each game's own."""
