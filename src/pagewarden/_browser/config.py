"""The browser pool's configuration, defined in the foundation (:mod:`pagewarden._browser_config`).

``ReaderConfig.browser`` holds a :class:`BrowserConfig`, so it sits beside
the other configuration objects; browser code imports it from here.
"""

from __future__ import annotations

from .._browser_config import (
    BrowserConfig,
)

__all__ = [
    "BrowserConfig",
]
