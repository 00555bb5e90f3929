"""What a reader does with every document it hands out: proxy limitations, then the read store.

Kept apart from :mod:`.reader` so the read path stays one job: a document
read through an upstream proxy in ``unsafe_proxy_remote_dns`` mode records
:data:`~pagewarden._net.upstream.REMOTE_DNS_LIMITATION` (whether it came from
the cache or the network), and every document is offered to the reader's
read store, which keeps only what the guard allowed (a store failure is
logged, never turned into a failed read).
"""

from __future__ import annotations

import dataclasses
import logging

from .._config import ReaderConfig
from .._document import Document
from .._errors import PagewardenError
from .._net.upstream import REMOTE_DNS_LIMITATION
from .._store.store import ReadStore

__all__ = ["finish_document"]

logger = logging.getLogger("pagewarden.store")


def finish_document(document: Document, config: ReaderConfig, store: ReadStore) -> Document:
    """Add the proxy limitation when it applies, offer the document to ``store``, return it."""
    proxy = config.upstream_proxy
    limitations = document.security.limitations
    if proxy is not None and proxy.remote_dns and REMOTE_DNS_LIMITATION not in limitations:
        security = dataclasses.replace(document.security, limitations=(*limitations, REMOTE_DNS_LIMITATION))
        document = dataclasses.replace(document, security=security)
    try:
        store.add(document)
    except PagewardenError as error:
        # The read itself succeeded; the store is a convenience on top of it.
        logger.warning("pagewarden could not add a page to the read store (%s)", error.reason)
    return document
