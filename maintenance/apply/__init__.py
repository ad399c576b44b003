"""Applying a plan in one store transaction, with provenance events, and undoing a run."""
