"""Reading the tray: per-game readers that turn a settled board into engine moves or a prompt."""
