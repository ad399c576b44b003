"""Stores: the MemoryStore protocol (``base``), SQLite and PostgreSQL backends, and
``open_store`` choosing a backend by URL (``registry``).

Backends import ``base`` and ``_sql`` directly, never this package's names, so importing
this package (which imports ``registry``) loads no backend and makes no import circle.
"""

from memmaint.maintenance.store.base import Event, MemoryStore, RunRecord, StoreTransaction
from memmaint.maintenance.store.registry import (
    StoreOpener,
    available_stores,
    open_store,
    register_store,
    unregister_store,
)

__all__ = ["Event", "MemoryStore", "RunRecord", "StoreOpener", "StoreTransaction",
           "available_stores", "open_store", "register_store", "unregister_store"]
