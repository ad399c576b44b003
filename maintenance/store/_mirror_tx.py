"""The pieces of :class:`~memmaint.maintenance.store.mirror.ExternalStore` that map between
memories and records: the transaction that notes the external write each change needs, the
conversions between a memory and the record holding it in the system, and the scratch copy
of the sidecar a dry run works in."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memmaint.maintenance.core.errors import UnknownIdError, UserError
from memmaint.maintenance.core.records import BUILTIN_KINDS, Memory
from memmaint.maintenance.store._ops import Op
from memmaint.maintenance.store.base import Event, StoreTransaction
from memmaint.maintenance.store.external import ExternalRecord, record_times, redact


class ExternalTransaction:
    """The sidecar's transaction, noting the external write each change needs (``store``:
    the :class:`~memmaint.maintenance.store.mirror.ExternalStore`, which imports this
    module)."""

    def __init__(self, store: Any, conn: sqlite3.Connection,
                 side_tx: StoreTransaction, ops: list[Op]) -> None:
        self._store = store
        self._conn = conn
        self._tx = side_tx
        self._ops = ops

    def insert(self, memory: Memory) -> None:
        self._tx.insert(memory)
        record = record_from_memory(memory, None)
        self._store._keep_record(self._conn, memory.namespace, memory.id, memory.version,
                                 record)
        if memory.is_active:
            self._ops.append(Op(memory.namespace, memory.id, record, None))

    def update(self, memory: Memory, expected_version: int) -> Memory:
        before = self._current(memory.namespace, memory.id)
        stored = self._tx.update(memory, expected_version)
        self._changed(before, stored, restoring=False)
        return stored

    def restore(self, memory: Memory, expected_version: int) -> None:
        before = self._current(memory.namespace, memory.id)
        self._tx.restore(memory, expected_version)
        self._changed(before, memory, restoring=True)

    def append_event(self, event: Event) -> None:
        self._tx.append_event(event)

    def _current(self, ns: str, memory_id: str) -> Memory | None:
        try:
            return self._store._side.get_memories(ns, [memory_id])[0]
        except UnknownIdError:
            return None  # the sidecar's own write raises the error the caller expects

    def _changed(self, before: Memory | None, after: Memory, *, restoring: bool) -> None:
        """Keep the record ``after`` has and note the write the system needs."""
        if before is None:  # pragma: no cover - the sidecar raised already
            return
        ns, mid = after.namespace, after.id
        old = self._store._record_at(ns, mid, before.version)
        found = self._store._record_at(ns, mid, after.version) if restoring else old
        if restoring and found is not None:
            record = found  # undo writes back the very record the memory had at that version
        elif old is not None and old.text == after.text and (
                dict(old.metadata) == dict(after.metadata)
                or dict(before.metadata) == dict(after.metadata)):
            record = old  # a status change: the record stays as the system holds it
        else:
            record = record_from_memory(after, old)
        self._store._keep_record(self._conn, ns, mid, after.version,
                                 None if record is found else record, restoring=restoring)
        in_system = old if before.is_active else None
        target = record if after.is_active else None
        if in_system is None and target is None:
            return
        if in_system is not None and target is not None and \
                in_system.fingerprint() == target.fingerprint():
            return
        self._ops.append(Op(ns, mid, target, in_system, replaced_by=after.replaced_by,
                            known=before.is_active))


def owners(mirror: Mapping[str, Memory],
            kept: Mapping[str, ExternalRecord]) -> dict[str, str]:
    """Record id -> the memory holding it: a merged memory holds its survivor's record
    (:mod:`memmaint.maintenance.store._ops`); an active memory wins over inactive ones, then
    the latest changed."""
    owner: dict[str, str] = {}
    for mid, mem in sorted(mirror.items(),
                           key=lambda kv: (kv[1].is_active, str(kv[1].updated_at))):
        rec = kept.get(mid)
        owner[rec.id if rec is not None else mid] = mid
    return owner


def memory_from_record(ns: str, rec: ExternalRecord,
                       time_keys: Mapping[str, str] | None = None,
                       seen_at: Any = None, *, own_times_named: bool = False) -> Memory:
    """A new active memory for a record first seen in the system, dated by the user's
    time (:func:`record_times`)."""
    meta = dict(rec.metadata)
    importance = meta.get("importance")
    kind = meta.get("kind")
    created, updated = record_times(rec, time_keys or {}, seen_at,
                                    own_times_named=own_times_named)
    return Memory(text=rec.text, id=rec.id, namespace=ns, created_at=created,
                  updated_at=updated,
                  importance=float(importance) if isinstance(importance, (int, float))
                  and not isinstance(importance, bool) and 0 <= importance < float("inf")
                  else 1.0,
                  kind=kind if kind in BUILTIN_KINDS else "default", metadata=meta)


def record_from_memory(memory: Memory, old: ExternalRecord | None) -> ExternalRecord:
    """The record a memory should have in the system: its text and metadata, the old
    record's vector when the text is unchanged (else none yet: :meth:`_fill_vectors`)."""
    keep_vector = old is not None and old.text == memory.text
    return ExternalRecord(
        id=old.id if old is not None else memory.id, text=memory.text, metadata=dict(memory.metadata),
        vector=old.vector if keep_vector and old is not None else None,
        created_at=old.created_at if old is not None else memory.created_at,
        updated_at=memory.updated_at)


def dry_run_copy(sidecar: str, url: str) -> tuple[str, str, str]:
    """A dry run's scratch folder, with a copy of the sidecar (empty when there is none) and
    an empty journal: ``(folder, copy, journal)``. The sidecar is read through a read-only
    connection (SQLite's backup), so its bytes stay as they are. A write a crash left
    pending in the journal is a ``UserError``: finishing it writes, which a dry run never
    does."""
    path = Path(sidecar).expanduser()
    journal = Path(f"{path}.journal")
    if journal.exists():
        conn = sqlite3.connect(f"{journal.resolve().as_uri()}?mode=ro", uri=True)
        try:
            pending = conn.execute("SELECT COUNT(*) FROM journal WHERE state = 'pending'"
                                   ).fetchone()[0]
        except sqlite3.DatabaseError:
            pending = 0  # no journal table yet: nothing pending
        finally:
            conn.close()
        if pending:
            raise UserError(f"{redact(url)}: a write to the system that a crash interrupted "
                            f"is pending in {journal}; a dry run writes nothing, so it cannot "
                            "finish it: open the store once without --dry-run (memmaint stats "
                            "--db URL) first")
    scratch = tempfile.mkdtemp(prefix="memmaint-dry-run-")
    copy = str(Path(scratch) / "sidecar.db")
    try:
        if path.exists():
            copy_sqlite(path, copy)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return scratch, copy, str(Path(scratch) / "journal.db")


def copy_sqlite(path: Path, copy: str) -> None:
    """Copy the SQLite database at ``path`` without writing beside it: with no WAL file
    (every write checkpointed) the file alone is read (``immutable``: no ``-shm`` or
    ``-wal`` created), again through a plain read-only connection if a writer started
    meanwhile (its WAL files then exist already)."""
    wal = Path(f"{path}-wal")
    for query in (("mode=ro&immutable=1",) if not wal.exists() else ()) + ("mode=ro",):
        src = sqlite3.connect(f"{path.resolve().as_uri()}?{query}", uri=True)
        try:
            dst = sqlite3.connect(copy)
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
        if not wal.exists():
            return


__all__ = ["ExternalTransaction", "copy_sqlite", "dry_run_copy", "memory_from_record", "owners",
           "record_from_memory"]
