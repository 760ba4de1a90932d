"""The package version (one place: the trace records it, the CLI prints it)."""

__version__ = "0.1.0"
