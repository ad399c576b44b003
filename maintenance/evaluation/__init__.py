"""Does maintenance make retrieval better? LoCoMo, scenario and stale-growth evaluations."""
