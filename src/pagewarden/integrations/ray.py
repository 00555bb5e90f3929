"""Read a Ray Dataset of URLs on an actor pool (``pip install "pagewarden[ray]"``).

:func:`read_dataset` maps the dataset's batches over a pool of reader actors
(:class:`pagewarden._apps.ray.actor.ReaderActor`); each actor owns one
:class:`pagewarden.AsyncReader`, and so one pooled browser, for its whole life.
The result is a Dataset with one output row per input row, in the same
order within each batch: the input columns followed by the result columns

===============  ========  ==============================================
``ok``           bool      the page was read
``final_url``    string    documents: the URL after redirects (cite it)
``title``        string    documents: the page title
``markdown``     string    documents: the guarded, safe Markdown
``method``       string    documents: ``http`` or ``browser``
``status``       int64     documents: the final HTTP status
``code``         string    failures: the stable error code
``reason``       string    failures: the named reason
``retryable``    bool      failures: whether a later retry can succeed
``record``       string    the complete record as JSON, exactly the line
                           ``pagewarden ingest`` writes
===============  ========  ==============================================

Per-host politeness holds across actors through one shared limiter actor
(:class:`pagewarden._apps.ray.limiter.HostLeases`): see docs/ray.md for the
choice and its trade-offs. :func:`ingest_with_ray` is the engine of
``pagewarden ingest --ray ADDRESS``.
"""

from __future__ import annotations

from .._apps.ray.engine import RESULT_COLUMNS, ingest_with_ray, read_dataset

__all__ = ["RESULT_COLUMNS", "ingest_with_ray", "read_dataset"]
