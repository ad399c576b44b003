"""Run reports: the model (decisions, outcomes, comparisons), text and HTML renderings,
and a memory's lineage."""
