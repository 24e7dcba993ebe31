"""The web base both front ends serve on: one aiohttp server in a thread of its own (base.py)
behind its guard (guard.py: the connection gate, hardened JSON, every refusal said as JSON). The
table's page (ui/web/) and the venue's scoreboard (venue/server.py) each add their routes."""
