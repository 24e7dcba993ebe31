"""The application: the CLI and its commands, the configuration, and the table runtime that wires the layers."""
