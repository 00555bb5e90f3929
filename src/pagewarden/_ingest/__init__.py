"""Batch ingestion: records, robots.txt, politeness, input and output files, progress and the runner.

The record functions (:mod:`.records`) are shared by the one-machine runner
(:mod:`.runner`) and the Ray engine. The ``ingest`` command and the Ray
engine, which build readers, are applications above the reader
(:mod:`pagewarden._apps`).
"""

from .records import INPUT_ERROR_FIELD, document_record, failure_record, parse_input_line, read_record
from .robots import RobotsRules, parse_robots
from .robots_cache import RobotsCache

__all__ = [
    "INPUT_ERROR_FIELD",
    "RobotsCache",
    "RobotsRules",
    "document_record",
    "failure_record",
    "parse_input_line",
    "parse_robots",
    "read_record",
]
