"""dominotable: the software of an instrumented domino bar table."""

__version__ = "0.1.0"
