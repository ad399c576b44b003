"""The ``memmaint`` command (click): ``main`` is the entry point; one module per group."""
