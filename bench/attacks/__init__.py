"""Attack benchmarks: another client's latency while one client attacks (issue 32)."""
