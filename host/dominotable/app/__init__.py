"""The application: the CLI and its commands, the table runtime and session, storage, config."""
