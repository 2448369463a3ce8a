"""The package version, single-sourced here and read by pyproject.toml."""

__version__ = "0.1.0"
