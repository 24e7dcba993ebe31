"""The games the table plays: one spec per game, naming its engine, reader, hands, bots and hints."""
