"""Optional integrations with other engines; each module needs its own extra.

* :mod:`pagewarden.integrations.ray`: read a Ray Dataset of URLs on an actor
  pool (``pip install "pagewarden[ray]"``).

Nothing here is imported by ``import pagewarden``: importing an integration
module is what pulls its engine in.
"""

from __future__ import annotations

__all__: list[str] = []
