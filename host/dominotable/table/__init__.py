"""The physical table: games read off the tray, the session that judges them, and the runtime."""
