"""The rules: tiles and sets, the game framework, options, hidden information, and one
package per game with its engine. Knows nothing of trays, screens or storage."""
