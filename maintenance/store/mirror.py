""":class:`ExternalStore`: any connector backend as a full memmaint store.

The external system (Chroma, Qdrant, a LangGraph store, mem0, a pgvector table) holds the
memories the agents read. memmaint keeps a *sidecar* SQLite store beside it:

- a mirror of every memory with memmaint's own fields (status, version, importance, usage),
  refreshed from the system when the store is opened (:meth:`ExternalStore.sync`);
- the exact external record of every memory at every version that changed it
  (``external_records``), so ``undo`` writes back the same id, text, metadata and vector;
- provenance events, run records and the embedding cache, as in any store;
- a write-ahead journal of external writes, in its own SQLite file (``<sidecar>.journal``).

Writes follow the applier's transactions. Each transaction level, when it ends normally,
checks that the records it touches still are what the mirror last saw (else
``VersionConflict``: the applier skips that cluster, as it does for a memory changed in a
built-in store). When the outermost transaction ends, before the sidecar commits:

1. the external writes and their inverses are journalled as *pending* (committed at once);
2. the writes are made in the system; if one fails, the inverses are applied, the journal
   entry is marked rolled back and the sidecar transaction rolls back (``StoreError``);
3. the journal's sequence number is written into the sidecar transaction, which commits.

A crash anywhere leaves a pending journal entry. The next open reconciles it: if the sidecar
committed it (its sequence number is there) the writes are replayed (they are idempotent);
otherwise the inverses are applied. So the system never keeps a change the sidecar has no
record of, and a change the sidecar recorded is always completed.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
import sqlite3
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

import numpy as np

from memmaint.maintenance.core.errors import (
    DuplicateIdError,
    MemmaintError,
    StoreError,
    VersionConflict,
)
from memmaint.maintenance.core.records import Memory, Status, content_hash, utcnow
from memmaint.maintenance.store._mirror_tx import (
    ExternalTransaction,
    dry_run_copy,
    memory_from_record,
    owners,
)
from memmaint.maintenance.store._ops import (
    Op,
    alias_merges,
    by_record,
    last_per_memory,
    noop,
    op_json,
)
from memmaint.maintenance.store.base import (
    Event,
    MemoryStore,
    RunRecord,
    Serve,
    StoreTransaction,
)
from memmaint.maintenance.store.external import (
    ExternalBackend,
    ExternalRecord,
    check_dimension,
    dry_run_open,
    redact,
)
from memmaint.maintenance.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from typing_extensions import Self

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS external_records (
    namespace TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL,
    record TEXT NOT NULL, fingerprint TEXT NOT NULL,
    PRIMARY KEY (namespace, id, version));
CREATE TABLE IF NOT EXISTS external_applied (seq INTEGER PRIMARY KEY);
"""
_JOURNAL_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL, forward TEXT NOT NULL,
    inverse TEXT NOT NULL, state TEXT NOT NULL, created_at TEXT NOT NULL);
"""
SYNC_AGENT = "sync"


class ExternalStore:
    """A :class:`MemoryStore` over an :class:`ExternalBackend` and a sidecar SQLite file.

    Args:
        backend: the connector, already connected.
        sidecar: path of the sidecar SQLite file (created with its folder when missing).
        create: accepted for the opener signature; the external system's own existence is
            the backend's to check, the sidecar is always created.
        sync: refresh the mirror from the system now (tests turn it off to look at states).
    """

    def __init__(self, backend: ExternalBackend, sidecar: str, *, create: bool = True,
                 sync: bool = True, dry_run: bool | None = None) -> None:
        self.backend = backend
        self.url = backend.url
        self.sidecar_path = sidecar
        self.dry_run = dry_run_open() if dry_run is None else dry_run
        self._scratch: str | None = None
        if self.dry_run:  # a scratch copy: the sidecar (and the system) are never written
            self._scratch, side_path, journal_path = dry_run_copy(sidecar, self.url)
        else:
            Path(sidecar).expanduser().parent.mkdir(parents=True, exist_ok=True)
            side_path, journal_path = sidecar, sidecar + ".journal"
        self._levels: list[list[Op]] = []
        self._lock = threading.RLock()
        self._embedder: Any = None
        try:
            self._side = SQLiteStore(side_path, create=True)
        except BaseException:
            self._drop_scratch()
            raise
        try:
            with self._side.write_connection() as conn:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
            self._journal = sqlite3.connect(journal_path, isolation_level=None,
                                            check_same_thread=False)
        except BaseException:
            self._side.close()
            self._drop_scratch()
            raise
        try:
            self._journal.executescript(_JOURNAL_SCHEMA)
            self.reconcile()
            if sync:
                self.sync()
        except BaseException:
            self._journal.close()
            self._side.close()
            self._drop_scratch()
            raise

    # -- plumbing -------------------------------------------------------------------------
    def close(self) -> None:
        try:
            self.backend.close()
        finally:
            self._journal.close()
            self._side.close()
            self._drop_scratch()

    def _drop_scratch(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ExternalStore({self.url!r}, sidecar={self.sidecar_path!r})"

    def _params(self) -> dict[str, str]:
        return dict(parse_qsl(urlsplit(self.url).query))

    def embedder(self) -> Any:
        """The memmaint embedder the URL's ``model=`` (and ``dim=``) names, or ``None``."""
        if self._embedder is None and self.backend.vector_model:
            from memmaint.maintenance.core.config import EmbeddingConfig
            from memmaint.maintenance.core.registry import EMBEDDERS

            params = self._params()
            kwargs: dict[str, Any] = {"model": self.backend.vector_model}
            if params.get("dim", "").isdigit():
                kwargs["dim"] = int(params["dim"])
            self._embedder = EMBEDDERS.get(kwargs["model"])(EmbeddingConfig(**kwargs))
        return self._embedder

    # -- external records in the sidecar ----------------------------------------------------
    def _record_at(self, ns: str, memory_id: str, version: int) -> ExternalRecord | None:
        """The external record in force for the memory at ``version`` (latest row <= it)."""
        rows = self._side.query(
            "SELECT record FROM external_records WHERE namespace = ? AND id = ? AND version <= ?"
            " ORDER BY version DESC LIMIT 1", (ns, memory_id, version))
        return ExternalRecord.from_json(json.loads(rows[0][0])) if rows else None

    def _kept_records(self, ns: str, mirror: Mapping[str, Memory]) -> dict[str, ExternalRecord]:
        """Each memory's external record in force at its current version (one query)."""
        out: dict[str, tuple[int, ExternalRecord]] = {}
        for mid, version, record in self._side.query(
                "SELECT id, version, record FROM external_records WHERE namespace = ? "
                "ORDER BY version", (ns,)):
            mem = mirror.get(mid)
            if mem is not None and int(version) <= mem.version:
                out[mid] = (int(version), ExternalRecord.from_json(json.loads(record)))
        return {mid: rec for mid, (_, rec) in out.items()}

    @staticmethod
    def _keep_record(conn: sqlite3.Connection, ns: str, memory_id: str, version: int,
                     record: ExternalRecord | None, *, restoring: bool = False) -> None:
        """Forget rows past ``version`` (an undone branch) and keep ``record`` at it."""
        op = ">" if restoring else ">="
        conn.execute(f"DELETE FROM external_records WHERE namespace = ? AND id = ? AND "
                     f"version {op} ?", (ns, memory_id, version))
        if record is not None:
            conn.execute("INSERT OR REPLACE INTO external_records VALUES (?, ?, ?, ?, ?)",
                         (ns, memory_id, version, json.dumps(record.to_json()),
                          record.fingerprint()))

    # -- sync -----------------------------------------------------------------------------
    def sync(self) -> dict[str, int]:
        """Bring the mirror in line with the system: new records become active memories,
        changed ones a new version, vanished ones ``archived``. Returns the counts.

        Each change is an event of a run named ``sync-<time>`` (agent ``sync``), so
        ``history`` shows what changed outside memmaint. Stored vectors seed the embedding
        cache when the URL names the model that made them. A backend that lists records
        without their vectors (Chroma, Qdrant, pgvector) is asked for the vectors of the
        new and changed records only (:meth:`_read_system`).
        """
        counts = {"added": 0, "changed": 0, "removed": 0}
        timeless: dict[str, int] = {}  # records first seen here without a time of their own
        seen_at = utcnow()  # the one date of records that carry no time of their own
        run_id = "sync-" + seen_at.strftime("%Y%m%dT%H%M%S.%fZ")
        namespaces = sorted(set(self.backend.namespaces()) | set(self._side.namespaces()))
        embedder = self.embedder()
        read = {ns: self._read_system(ns, embedder is not None) for ns in namespaces}
        if embedder is not None:  # before anything is written, dry run or not
            check_dimension(self.url, self.backend.vector_model, embedder.dim,
                            {ns: got[0] for ns, got in read.items()})
        for ns in namespaces:
            records, mirror, kept = read[ns]
            columns = self.backend.system == "pgvector"  # its times: the columns named
            time_keys = {} if columns else self._params()
            owner = owners(mirror, kept)
            seeds: dict[str, np.ndarray] = {}
            with self._side.write_connection() as conn, self._side.transaction() as tx:
                for rid, rec in records.items():
                    known = mirror.get(owner.get(rid, rid))
                    if known is None:
                        mem = memory_from_record(ns, rec, time_keys, seen_at,
                                                 own_times_named=columns)
                        timeless[ns] = timeless.get(ns, 0) + (mem.created_at == seen_at)
                        tx.insert(mem)
                        self._keep_record(conn, ns, rid, mem.version, rec)
                        self._sync_event(tx, run_id, ns, None, mem, "added outside memmaint")
                        counts["added"] += 1
                    else:
                        seen = kept.get(known.id)
                        if known.is_active and seen is not None and \
                                seen.fingerprint() == rec.fingerprint():
                            continue
                        new = dataclasses.replace(
                            known, text=rec.text, metadata=dict(rec.metadata),
                            status=Status.ACTIVE, replaced_by=None, valid_until=None)
                        stored = tx.update(new, known.version)
                        self._keep_record(conn, ns, known.id, stored.version, rec)
                        self._sync_event(tx, run_id, ns, known, stored,
                                         "changed outside memmaint")
                        counts["changed"] += 1
                    if embedder is not None and rec.vector is not None \
                            and rec.vector.shape == (embedder.dim,):
                        seeds[content_hash(rec.text)] = rec.vector
                for mid, mem in mirror.items():
                    held = kept.get(mid)
                    if mem.is_active and (held.id if held is not None else mid) not in records:
                        stored = tx.update(dataclasses.replace(mem, status=Status.ARCHIVED),
                                           mem.version)
                        self._keep_record(conn, ns, mid, stored.version, None,
                                          restoring=True)
                        self._sync_event(tx, run_id, ns, mem, stored,
                                         "deleted outside memmaint: archived")
                        counts["removed"] += 1
            if seeds and embedder is not None:
                self._side.put_embeddings(embedder.model_id, seeds)
        if any(counts.values()):
            log.info("synced %s from %s: %s", self.sidecar_path, self.backend.system, counts)
        for ns, n in sorted(timeless.items()):
            if n:  # said once: the records keep the date they get here
                log.warning("%s namespace %r: %d new record(s) carry no time (%s keeps none "
                            "and their metadata has no created_at key; name one with "
                            "created_at=KEY): dated at first sight, one time for all, so "
                            "decisions that need the newer of them are flagged for review",
                            redact(self.url), ns, n, self.backend.system)
        return counts

    def _read_system(self, ns: str, sample: bool) -> tuple[
            dict[str, ExternalRecord], dict[str, Memory], dict[str, ExternalRecord]]:
        """The system's records of ``ns`` by id, the mirror's memories and the records they
        hold. A backend that lists without vectors gives the vectors of the records that are
        new or changed since the mirror saw them (and, with ``sample``, of one record more,
        so the dimension check at open sees a stored vector)."""
        mirror = {m.id: m for m in self._side.iter_memories(ns)}
        kept = self._kept_records(ns, mirror)
        if not getattr(self.backend, "lists_without_vectors", False):
            return {r.id: r for r in self.backend.read_all(ns)}, mirror, kept
        records = {r.id: r for r in self.backend.read_all(ns, vectors=False)}  # type: ignore[call-arg]
        owner = owners(mirror, kept)
        news = []
        for rid, rec in records.items():
            known = mirror.get(owner.get(rid, rid))
            seen = None if known is None else kept.get(known.id)
            if known is None or not known.is_active or seen is None \
                    or seen.fingerprint() != rec.fingerprint():
                news.append(rid)
        if sample and not news and records:
            news.append(next(iter(records)))
        full = self.backend.read(ns, news) if news else {}
        for rid in news:
            if rid in full:
                records[rid] = full[rid]
            else:  # removed in between: the next sync sees it gone
                records.pop(rid, None)
        return records, mirror, kept

    @staticmethod
    def _sync_event(tx: StoreTransaction, run_id: str, ns: str, before: Memory | None,
                    after: Memory, reason: str) -> None:
        tx.append_event(Event(run_id=run_id, action="sync", namespace=ns,
                              memory_ids=(after.id,),
                              before=(None if before is None else before.to_dict(),),
                              after=(after.to_dict(),), reason=reason, agent=SYNC_AGENT))

    # -- the journal ------------------------------------------------------------------------
    def reconcile(self) -> int:
        """Finish or roll back external writes a crash interrupted; returns how many."""
        pending = self._journal.execute(
            "SELECT seq, namespace, forward, inverse FROM journal WHERE state = 'pending' "
            "ORDER BY seq").fetchall()
        for seq, ns, forward, inverse in pending:
            committed = bool(self._side.query(
                "SELECT 1 FROM external_applied WHERE seq = ?", (seq,)))
            ops = json.loads(forward if committed else inverse)
            log.warning("reconciling an interrupted write to %s (journal %d): %s",
                        self.backend.system, seq, "replaying it" if committed
                        else "rolling it back")
            self._apply_json(ns, ops)
            self._journal.execute("UPDATE journal SET state = ? WHERE seq = ?",
                                  ("done" if committed else "rolled-back", seq))
        return len(pending)

    def _apply_json(self, ns: str, ops: Sequence[Mapping[str, Any]]) -> None:
        upserts = [ExternalRecord.from_json(o["record"]) for o in ops if o["op"] == "upsert"]
        deletes = [str(o["id"]) for o in ops if o["op"] == "delete"]
        if upserts:  # write the new records before removing what they replace
            self.backend.upsert(ns, upserts)
        if deletes:
            self.backend.delete(ns, deletes)

    def _flush(self, conn: sqlite3.Connection, ops: Sequence[Op]) -> list[int]:
        """Steps 1-3 of the module docstring, for the outermost transaction's writes;
        returns the journal entries written."""
        written: list[int] = []
        by_ns: dict[str, list[Op]] = {}
        for op in last_per_memory(ops):
            by_ns.setdefault(op.namespace, []).append(op)
        if by_ns and self.dry_run:
            raise StoreError(f"{redact(self.url)} is open for a dry run, which writes nothing")
        for ns, raw in by_ns.items():
            alias_merges(raw)  # stable ids: a merge rewrites its survivor's record
            self._fill_vectors([op for op in raw if not noop(op)])
            ns_ops = [op for op in by_record(raw) if not noop(op)]
            if not ns_ops:
                for op in raw:  # a merge that keeps its survivor's record as it is
                    if op.record is not None:
                        self._refresh_kept(conn, op)
                continue
            forward = [op_json(op, op.record) for op in ns_ops]
            inverse = [op_json(op, op.previous) for op in ns_ops]
            cur = self._journal.execute(
                "INSERT INTO journal (namespace, forward, inverse, state, created_at) "
                "VALUES (?, ?, ?, 'pending', ?)",
                (ns, json.dumps(forward), json.dumps(inverse), utcnow().isoformat()))
            seq = int(cur.lastrowid or 0)
            try:
                self._apply_json(ns, forward)
            except BaseException as exc:
                try:
                    self._apply_json(ns, inverse)
                    self._journal.execute(
                        "UPDATE journal SET state = 'rolled-back' WHERE seq = ?", (seq,))
                except Exception:  # the next open reconciles the pending entry
                    log.exception("could not roll back the partial write to %s",
                                  self.backend.system)
                if isinstance(exc, MemmaintError):
                    raise
                if isinstance(exc, Exception):
                    raise StoreError(f"{self.backend.system} store {self.url}: the write "
                                     f"failed and was rolled back: {exc}") from exc
                raise
            conn.execute("INSERT INTO external_applied (seq) VALUES (?)", (seq,))
            written.append(seq)
            # keep each record as the system stored it (its vector, columns or ids it added),
            # so the next sync does not take the system's own additions for a change
            written_keys = {op.key for op in ns_ops if op.record is not None}
            upserted = [op for op in raw if op.record is not None]
            stored = self.backend.read(ns, sorted(written_keys)) if written_keys else {}
            for op in upserted:
                live = stored.get(op.key)
                if live is not None and op.key in written_keys:
                    op.record = live if live.vector is not None or op.record is None \
                        else dataclasses.replace(live, vector=op.record.vector)
                self._refresh_kept(conn, op)
        return written

    def _refresh_kept(self, conn: sqlite3.Connection, op: Op) -> None:
        assert op.record is not None
        conn.execute("UPDATE external_records SET record = ?, fingerprint = ? WHERE "
                     "namespace = ? AND id = ? AND version = (SELECT MAX(version) FROM "
                     "external_records WHERE namespace = ? AND id = ?)",
                     (json.dumps(op.record.to_json()), op.record.fingerprint(), op.namespace,
                      op.memory_id, op.namespace, op.memory_id))

    def _fill_vectors(self, ops: list[Op]) -> None:
        """Give every upserted record a vector (unless the system embeds by itself): the
        URL's embedder, else the mean of the vectors of the memories it replaces."""
        if self.backend.embeds_itself or not ops:
            return
        missing = [op for op in ops if op.record is not None and op.record.vector is None]
        if not missing:
            return
        embedder = self.embedder()
        if embedder is not None:
            vectors = embedder.embed([op.record.text for op in missing if op.record])
            for op, vec in zip(missing, vectors):
                assert op.record is not None
                op.record = dataclasses.replace(op.record, vector=np.asarray(vec, np.float32))
            return
        for op in missing:
            assert op.record is not None
            sources = [o.previous.vector for o in ops if o.delete and o.previous is not None
                       and o.replaced_by == op.memory_id and o.previous.vector is not None]
            if not sources:
                raise StoreError(
                    f"cannot compute a vector for memory {op.memory_id!r} in "
                    f"{self.backend.system}: name the embedder that made the stored vectors "
                    "in the store URL (model=..., e.g. model=minilm)")
            mean = np.mean(np.stack(sources), axis=0)
            norm = float(np.linalg.norm(mean))
            op.record = dataclasses.replace(op.record, vector=(
                mean / norm if norm > 0 else mean).astype(np.float32))

    # -- transactions ---------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[StoreTransaction]:
        """One atomic write transaction over the sidecar and the system (module docstring)."""
        outermost = not self._levels
        flushed: list[int] = []
        with self._lock:
            with self._side.write_connection() as conn, self._side.transaction() as side_tx:
                ops: list[Op] = []
                self._levels.append(ops)
                try:
                    yield ExternalTransaction(self, conn, side_tx, ops)
                    self._check_unchanged(ops)
                    if outermost:
                        flushed = self._flush(conn, ops)
                    else:
                        self._levels[-2].extend(ops)
                finally:
                    self._levels.pop()
            if flushed:  # the sidecar has committed: the journal entries are complete
                self._journal.executemany("UPDATE journal SET state = 'done' WHERE seq = ?",
                                          [(seq,) for seq in flushed])

    def _check_unchanged(self, ops: Sequence[Op]) -> None:
        """``VersionConflict`` when a record this level writes changed in the system since
        the mirror saw it (a concurrent writer); ``DuplicateIdError`` for an insert over an
        existing record."""
        by_ns: dict[str, dict[str, Op]] = {}
        for op in by_record(ops):
            by_ns.setdefault(op.namespace, {}).setdefault(op.key, op)
        for ns, first in by_ns.items():
            live = self.backend.read(ns, list(first))
            for key, op in first.items():
                now = live.get(key)
                expected = None if op.previous is None else op.previous.fingerprint()
                actual = None if now is None else now.fingerprint()
                if expected == actual:
                    continue
                if op.previous is None:
                    raise DuplicateIdError(f"memory {key!r} already exists in "
                                           f"{self.backend.system} namespace {ns!r}")
                mem = self._side.get_memories(ns, [op.origin or op.memory_id])[0]
                raise VersionConflict(mem.id, mem.version, mem.version + 1)  # changed there

    def add_memories(self, memories: Sequence[Memory]) -> None:
        """Insert all memories (and their records in the system) in one transaction."""
        with self.transaction() as tx:
            for mem in memories:
                tx.insert(mem)

    # -- reads and everything memmaint-only: the sidecar ------------------------------------
    def namespaces(self) -> list[str]:
        return self._side.namespaces()

    def existing_ids(self, namespace: str, ids: Collection[str]) -> set[str]:
        return self._side.existing_ids(namespace, ids)

    def get_memories(self, namespace: str, ids: Sequence[str]) -> list[Memory]:
        return self._side.get_memories(namespace, ids)

    def iter_memories(self, namespace: str | None = None,
                      statuses: Collection[Status] | None = None) -> Iterator[Memory]:
        return self._side.iter_memories(namespace, statuses)

    def count_memories(self, namespace: str | None = None,
                       statuses: Collection[Status] | None = None) -> int:
        return self._side.count_memories(namespace, statuses)

    def stats(self) -> dict[str, Any]:
        return self._side.stats()

    def change_seq(self, lock: bool = False) -> int:
        """The sidecar's change sequence (``SQLiteStore.change_seq``)."""
        return self._side.change_seq(lock)

    def count_changed(self, namespace: str, ranges: Sequence[tuple[int, int | None]],
                      statuses: Collection[Status] | None = None) -> int:
        """``SQLiteStore.count_changed`` on the sidecar (every write lands there)."""
        return self._side.count_changed(namespace, ranges, statuses)

    def record_usage(self, namespace: str, memory_id: str, success: bool | None,
                     query: str | None = None) -> Memory:
        return self._side.record_usage(namespace, memory_id, success, query)

    def serve_history(self, namespace: str) -> list[Serve]:
        return self._side.serve_history(namespace)

    def get_embeddings(self, model_id: str, hashes: Collection[str]) -> dict[str, np.ndarray]:
        return self._side.get_embeddings(model_id, hashes)

    def put_embeddings(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None:
        self._side.put_embeddings(model_id, vectors)

    def events(self, *, run_id: str | None = None, memory_id: str | None = None,
               namespace: str | None = None) -> list[Event]:
        return self._side.events(run_id=run_id, memory_id=memory_id, namespace=namespace)

    def save_run(self, run: RunRecord) -> None:
        self._side.save_run(run)

    def get_run(self, run_id: str) -> RunRecord:
        return self._side.get_run(run_id)

    def list_runs(self, limit: int | None = None) -> list[RunRecord]:
        return self._side.list_runs(limit)

    def lock(self, name: str = "run") -> AbstractContextManager[None]:
        return self._side.lock(name)


def open_external(backend: ExternalBackend, sidecar: str, *, create: bool) -> MemoryStore:
    """Wrap ``backend`` (closing it if the sidecar cannot be opened)."""
    try:
        return ExternalStore(backend, sidecar, create=create)
    except BaseException:
        backend.close()
        raise


__all__ = ["ExternalStore", "open_external"]
