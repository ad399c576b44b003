"""Stores: the MemoryStore protocol (``base``), SQLite and PostgreSQL backends, and
``open_store`` choosing a backend by URL."""
