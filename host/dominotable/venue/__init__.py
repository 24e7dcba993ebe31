"""A venue of tables on an MQTT broker: the table's link that publishes its committed events and
live state (link.py), and the venue that keeps them and serves one scoreboard and one rating
list across tables (server.py, store.py); the broker's address and topics in broker.py."""
