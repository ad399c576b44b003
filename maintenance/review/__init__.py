"""Review before apply: plan files, the review page and terminal, reviewed apply, the queue."""
