"""One module per CLI command; each defines `register(subparsers)` and is found automatically."""
