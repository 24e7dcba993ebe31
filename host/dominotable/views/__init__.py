"""What the table's page and the venue draw alike: the tray and the scores as SVG (svg.py), and a
stored match looked back on (review.py)."""
