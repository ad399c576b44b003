"""memmaint.clustering: reducers, HDBSCAN, generalised-kt sequential recombination, metrics."""
