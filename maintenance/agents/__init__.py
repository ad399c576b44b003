"""Maintenance agents: rule-based (default) and LLM planners, conflict detection and the
per-namespace cap on active memories."""
