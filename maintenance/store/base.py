"""The :class:`MemoryStore` protocol every backend implements.

Stores are the only part of memmaint (with the embedding cache and the CLI) that touch disk.
SQLite (``memmaint.maintenance.store.sqlite``) is the embedded default; PostgreSQL implements
the same protocol. ``open_store`` in ``memmaint.maintenance.store.registry`` picks a backend by
URL (this module imports no backend). The behaviour every store must have is pinned by the
reusable conformance suite in ``tests/store_conformance.py``.

Rules every implementation follows:
- every read and write is scoped to one namespace (``(namespace, id)`` is the key);
- every write happens in one transaction: a failing batch leaves the store unchanged;
- nothing is ever hard-deleted;
- :meth:`StoreTransaction.update` is optimistic: it only writes when the stored version
  equals ``expected_version`` and stores ``expected_version + 1``;
- outcomes are not content: ``record_usage`` changes only the counters (not ``version``),
  and ``update``/``restore`` never write the counters; with a query it also appends one
  :class:`Serve` to the serve history (which question the memory was used for).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np

from memmaint.maintenance.core.records import Memory, Status, utcnow


@dataclass(frozen=True)
class Event:
    """One append-only provenance record.

    ``before`` and ``after`` are the memories' ``to_dict()`` snapshots (``None`` where the
    memory did not exist before, e.g. a merged memory created by a run).
    """

    run_id: str
    action: str
    namespace: str
    memory_ids: tuple[str, ...]
    before: tuple[Mapping[str, Any] | None, ...] = ()
    after: tuple[Mapping[str, Any] | None, ...] = ()
    reason: str = ""
    agent: str = ""
    time: datetime = field(default_factory=utcnow)
    seq: int | None = None  # assigned by the store on write


@dataclass(frozen=True)
class Serve:
    """One use recorded with its query: ``memory_id`` was served for ``query`` and helped
    (``success`` True), failed (False) or was used without a verdict (None)."""

    namespace: str
    memory_id: str
    query: str
    success: bool | None
    time: datetime


@dataclass(frozen=True)
class RunRecord:
    """A stored run report (what ``memmaint runs`` lists)."""

    run_id: str
    started_at: datetime
    finished_at: datetime | None
    status: str  # "running", "succeeded", "failed", "skipped", "dry-run", "undone"
    namespaces: tuple[str, ...]
    report: Mapping[str, Any] = field(default_factory=dict)


class StoreTransaction(Protocol):
    """Writes inside one open transaction (see :meth:`MemoryStore.transaction`)."""

    def insert(self, memory: Memory) -> None:
        """Add a new memory; raises ``DuplicateIdError`` if its (namespace, id) exists."""

    def update(self, memory: Memory, expected_version: int) -> Memory:
        """Overwrite a memory's content if its stored version is ``expected_version``
        (the outcome counters of ``record_usage`` are left as stored).

        Returns the stored value (``version = expected_version + 1``, ``updated_at`` now).
        Raises ``VersionConflict`` otherwise and ``UnknownIdError`` if it does not exist.
        """

    def restore(self, memory: Memory, expected_version: int) -> None:
        """Write ``memory`` exactly as given (version included; the outcome counters left
        as stored) if the stored version is ``expected_version``; used by undo. Raises ``VersionConflict``, or ``UnknownIdError``
        if the memory does not exist."""

    def append_event(self, event: Event) -> None:
        """Append a provenance event."""


@runtime_checkable
class MemoryStore(Protocol):
    """A persistent memory pool. See the module docstring for the rules."""

    url: str

    def close(self) -> None: ...

    # -- memories ---------------------------------------------------------------------
    def namespaces(self) -> list[str]:
        """Namespaces holding at least one memory, sorted."""

    def add_memories(self, memories: Sequence[Memory]) -> None:
        """Insert all memories in one transaction; any duplicate id fails the whole batch."""

    def existing_ids(self, namespace: str, ids: Collection[str]) -> set[str]:
        """The subset of ``ids`` that already exist in ``namespace`` (any status)."""

    def get_memories(self, namespace: str, ids: Sequence[str]) -> list[Memory]:
        """The memories with these ids, in the order given; ``UnknownIdError`` lists missing."""

    def iter_memories(
        self, namespace: str | None = None, statuses: Collection[Status] | None = None
    ) -> Iterator[Memory]:
        """Memories ordered by (namespace, created_at, id); all namespaces when None.

        Ids compare by code point (SQLite's BINARY collation; PostgreSQL needs ``COLLATE "C"``).
        """

    def count_memories(
        self, namespace: str | None = None, statuses: Collection[Status] | None = None
    ) -> int: ...

    def stats(self) -> dict[str, Any]:
        """Counts by namespace, status and kind, and embedding coverage per model:
        ``{"namespaces": {ns: {"total": n, "status": {...}, "kind": {...}}},
        "embeddings": {model_id: {"vectors": n, "covered_active": c, "active": a}}}``."""

    def record_usage(self, namespace: str, memory_id: str, success: bool | None,
                     query: str | None = None) -> Memory:
        """Count one retrieval (and its outcome if known) on a memory's usage counters.

        Increments ``retrievals`` and ``successes`` (``success=True``) or ``failures``
        (``False``) and sets ``last_used_at`` to now; ``version`` and ``updated_at`` are
        unchanged (outcomes are not content). With ``query`` (the question the memory was
        served for) the use is also appended to the serve history, in the same write.
        Returns the stored memory; ``UnknownIdError`` if it does not exist."""

    def serve_history(self, namespace: str) -> list[Serve]:
        """The uses recorded with a query in ``namespace``, oldest first."""

    def transaction(self) -> AbstractContextManager[StoreTransaction]:
        """One atomic write transaction: committed on normal exit, rolled back on error."""

    # -- embedding cache --------------------------------------------------------------
    def get_embeddings(self, model_id: str, hashes: Collection[str]) -> dict[str, np.ndarray]:
        """Cached float32 vectors for these content hashes (missing ones are absent)."""

    def put_embeddings(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Cache vectors keyed by content hash, in one transaction."""

    # -- provenance -------------------------------------------------------------------
    def events(
        self, *, run_id: str | None = None, memory_id: str | None = None,
        namespace: str | None = None,
    ) -> list[Event]:
        """Events in write order, filtered by run, by memory id (in ``memory_ids``) or both."""

    # -- runs -------------------------------------------------------------------------
    def save_run(self, run: RunRecord) -> None:
        """Insert or replace a run record."""

    def get_run(self, run_id: str) -> RunRecord:
        """``UnknownIdError`` when there is no such run."""

    def list_runs(self, limit: int | None = None) -> list[RunRecord]:
        """Newest first."""

    def lock(self, name: str = "run") -> AbstractContextManager[None]:
        """An exclusive, non-blocking, process-safe lock; ``LockHeldError`` if taken."""
