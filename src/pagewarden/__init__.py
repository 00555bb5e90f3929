"""pagewarden: read the web for LLM applications without being hijacked by it."""

__version__ = "0.1.0"
