"""Simulation: bots that choose moves, the hands that make them on a tray, the in-memory tray."""
