"""The package version, in a leaf module so internal code can name it without importing the public namespace."""

__version__ = "0.1.0"
