"""The shared base every stage may import: records, errors, configuration, pool I/O and
freshness scores. It imports no stage (layout rule checked by tests/test_layout.py)."""
