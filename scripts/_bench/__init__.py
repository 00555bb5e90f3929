"""Helpers of ``scripts/bench``: corpus loading, a loopback server, metrics."""
