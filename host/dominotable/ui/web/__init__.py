"""The table in a browser: the page, the JSON API and the scoreboard (server.py), drawn from the
tray's geometry and the screen model (views/svg.py); the app wires it to the runtime (app/web.py)."""
