"""memmaint.datasets: synthetic memory pools, maintenance scenarios, labelled-corpus loaders."""
