"""The bots' hands: how a chosen move is made physically on a tray, one module per game."""
