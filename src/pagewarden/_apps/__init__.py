"""Applications built on the reader: the command-line front ends of ingest and crawl, and the Ray engine.

Each of them constructs an :class:`~pagewarden.AsyncReader` and drives an
engine below the reader (:mod:`pagewarden._ingest`, :mod:`pagewarden._crawl`):

* :mod:`.ingest_cli`: ``pagewarden ingest`` (one machine, or ``--ray``);
* :mod:`.crawl_cli`: ``pagewarden crawl`` and ``pagewarden map``;
* :mod:`.ray`: reader actors, the shared per-host limiter, the Dataset
  engine behind :mod:`pagewarden.integrations.ray`, and crawl reads on Ray.
"""
