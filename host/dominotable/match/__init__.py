"""The match core: whose turn it is and what settled (tracker), what a board means (judge, on a copy of the engine), and what is written and played (committer)."""
