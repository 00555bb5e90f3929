"""The browser side of pagewarden: finding, launching and policing Chromium.

Modules:
    discovery: which Chromium executable to use (explicit setting, then
        ``PAGEWARDEN_CHROMIUM``, then a Playwright-managed build, then the
        system's). ``scripts/setup`` runs it as ``python -m
        pagewarden._browser.discovery`` so the order lives in one place.

This package module deliberately imports none of its submodules: importing
``discovery`` here would make ``python -m pagewarden._browser.discovery``
warn that the module was already imported before being run as ``__main__``.
Import from the submodules directly.
"""

from __future__ import annotations

__all__: list[str] = []
