"""Read-time retrieval: similarity, lexical bonus, freshness gate, outcomes and routing."""
