"""Reading on Ray: one reader per actor, politeness shared across the pool, and the runtime's lifetime.

* :mod:`.options`: reader options that travel to actors, the result columns;
* :mod:`.limiter`: :class:`~.limiter.HostLeases`, per-host leases for every actor;
* :mod:`.actor`: :class:`~.actor.ReaderActor`, the Ray Data callable class;
* :mod:`.engine`: ``read_dataset`` / ``ingest_with_ray`` (the public face is
  :mod:`pagewarden.integrations.ray`) and the quiet runtime of ``--ray``;
* :mod:`.crawl`: crawl reads on plain reader actors, the frontier in the driver.
"""
