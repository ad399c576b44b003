"""The plan: actions (keep, merge, supersede, evict, resolve, archive) per cluster and the
checks that every memory is accounted for once."""
