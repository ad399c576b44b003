"""What the SQL stores (SQLite, PostgreSQL) share, written once, on top of a
:class:`~memmaint.maintenance.store._dialect.Dialect` (how each spells parameters and encodes
values):

- :class:`SQLStore`: the memory, embedding-cache, provenance and run methods of a
  :class:`~memmaint.maintenance.store.base.MemoryStore`; a backend supplies the connection
  handling (``_read``, ``_write``), opening, migrations and the lock.
- :class:`SQLTransaction`: update, restore and event appends inside one open transaction.

The two backends keep their own schemas, migrations and error handling; only logic that is
the same apart from the spelling lives here.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import numpy as np

from memmaint.maintenance.core.errors import (
    DuplicateIdError,
    InputError,
    MemmaintError,
    UnknownIdError,
    VersionConflict,
)
from memmaint.maintenance.core.records import Memory, Status, parse_time, utcnow
from memmaint.maintenance.store._dialect import (
    BUMP_SEQ,
    EVENT_COLUMNS,
    MEMORY_COLUMNS,
    PAGE,
    RUN_COLUMNS,
    SELECT_MEMORY,
    Dialect,
    dump_json,
    dupe_message,
)
from memmaint.maintenance.store.base import Event, RunRecord, Serve

if TYPE_CHECKING:
    from typing_extensions import Self


class SQLTransaction:
    """Writes inside one open store transaction (a ``StoreTransaction``); backends add
    :meth:`insert` and, where needed, :meth:`_after_event`."""

    dialect: ClassVar[Dialect]

    def __init__(self, conn: Any) -> None:
        self._conn: Any = conn

    def _c(self) -> Any:
        if self._conn is None:
            raise MemmaintError("transaction is closed")
        return self._conn

    def insert(self, memory: Memory) -> None:
        """Add a new memory; raises ``DuplicateIdError`` if its (namespace, id) exists."""
        raise NotImplementedError

    def _overwrite(self, memory: Memory, expected_version: int) -> None:
        d = self.dialect
        conn = self._c()
        conn.execute(BUMP_SEQ)  # a content write is a change (gaps after a conflict are fine)
        cur = conn.execute(d.write_memory_sql, (*d.content_params(memory), memory.namespace,
                                                memory.id, expected_version))
        if cur.rowcount == 0:
            found = conn.execute(
                f"SELECT version FROM memories WHERE namespace = {d.param} AND id = {d.param}",
                (memory.namespace, memory.id)).fetchone()
            if found is None:
                raise UnknownIdError(f"unknown memory id in namespace {memory.namespace!r}: "
                                     f"{memory.id!r}")
            raise VersionConflict(memory.id, expected_version, int(found[0]))

    def update(self, memory: Memory, expected_version: int) -> Memory:
        """Overwrite a memory's content if its stored version is ``expected_version``.

        Returns the value written (``version = expected_version + 1``, ``updated_at`` now).
        The outcome counters (``retrievals``, ``successes``, ``failures``,
        ``last_used_at``) are not written: they belong to ``record_usage``.
        """
        stored = dataclasses.replace(memory, version=int(expected_version) + 1,
                                     updated_at=utcnow())
        self._overwrite(stored, int(expected_version))
        return stored

    def restore(self, memory: Memory, expected_version: int) -> None:
        """Write ``memory``'s content exactly as given (version included) if the stored
        version is ``expected_version`` (the outcome counters stay as stored: undo keeps the
        feedback recorded since). ``VersionConflict`` otherwise, ``UnknownIdError`` if
        absent."""
        self._overwrite(memory, int(expected_version))

    def append_event(self, event: Event) -> None:
        """Append a provenance event (its ``seq`` is assigned by the store)."""
        d = self.dialect
        d.check_event(event)
        conn = self._c()
        p, j = d.param, d.json_param
        cur = conn.execute(
            "INSERT INTO events (run_id, time, action, namespace, memory_ids, before, after, "
            f"reason, agent) VALUES ({p}, {p}, {p}, {p}, {p}, {j}, {j}, {p}, {p})",
            (event.run_id, d.encode_time(event.time), event.action, event.namespace,
             d.encode_memory_ids(event.memory_ids),
             dump_json([None if b is None else dict(b) for b in event.before], "event before"),
             dump_json([None if a is None else dict(a) for a in event.after], "event after"),
             event.reason, event.agent))
        self._after_event(conn, cur, event)

    def _after_event(self, conn: Any, cur: Any, event: Event) -> None:
        """Backend bookkeeping once an event row is written."""


TxT = TypeVar("TxT", bound=SQLTransaction)


class SQLStore(Generic[TxT]):
    """The :class:`~memmaint.maintenance.store.base.MemoryStore` methods both SQL stores
    share. A backend sets :attr:`dialect` and ``url``, ``_mutex`` and ``_closed``, and
    implements the hooks below the ``# -- backend hooks`` line."""

    dialect: ClassVar[Dialect]
    url: str
    _mutex: threading.RLock
    _closed: bool
    _conn: Any

    # -- backend hooks ----------------------------------------------------------------------
    def _label(self) -> str:
        """The store as named in messages and reprs."""
        return self.url

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    def _before_bulk_read(self, rows: int) -> None:
        """A hint that ``rows`` cached vectors are about to be read (default: nothing)."""

    def _write(self) -> AbstractContextManager[Any]:
        """One atomic write: a transaction, or a savepoint inside an open one."""
        raise NotImplementedError

    def _transaction(self, conn: Any) -> TxT:
        raise NotImplementedError

    def _add(self, memories: Sequence[Memory]) -> None:
        """Insert a batch free of repeated keys in one write."""
        raise NotImplementedError

    def _update_memory(self, conn: Any, sql: str, params: Sequence[Any], namespace: str,
                       memory_id: str) -> Sequence[Any] | None:
        """Run ``sql`` (an UPDATE of one memory); the updated row, or None if no row."""
        raise NotImplementedError

    def _embedding_counts(self) -> list[tuple[str, int, int]]:
        """``(model_id, vectors, active memories covered)`` per model, by model id."""
        raise NotImplementedError

    def _embedding_row(self, model_id: str, h: str, arr: np.ndarray,
                       now: datetime) -> tuple[Any, ...]:
        raise NotImplementedError

    def _upsert_embeddings(self, conn: Any, rows: list[tuple[Any, ...]]) -> None:
        raise NotImplementedError

    # -- handle -----------------------------------------------------------------------------
    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._mutex:
            if not self._closed:
                self._closed = True
                self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._label()!r})"

    def _check_open(self) -> None:
        if self._closed:
            raise MemmaintError(f"store {self._label()} is closed")

    # -- memories ---------------------------------------------------------------------------
    def namespaces(self) -> list[str]:
        """Namespaces holding at least one memory, sorted (by code point)."""
        return [r[0] for r in self._read(
            "SELECT DISTINCT namespace FROM memories ORDER BY namespace")]

    def existing_ids(self, namespace: str, ids: Collection[str]) -> set[str]:
        """The subset of ``ids`` that exist in ``namespace``."""
        p = self.dialect.param
        found: set[str] = set()
        for clause, params in self.dialect.in_batches("id", list(dict.fromkeys(ids))):
            found.update(r[0] for r in self._read(
                f"SELECT id FROM memories WHERE namespace = {p} AND {clause}",
                [namespace, *params]))
        return found

    def add_memories(self, memories: Sequence[Memory]) -> None:
        """Insert all memories in one transaction; any duplicate id fails the whole batch."""
        seen: set[tuple[str, str]] = set()
        dupes = []
        for m in memories:
            key = (m.namespace, m.id)
            if key in seen:
                dupes.append(key)
            seen.add(key)
        if dupes:
            raise DuplicateIdError(dupe_message(dupes, "appears twice in the batch"))
        self._add(memories)

    def get_memories(self, namespace: str, ids: Sequence[str]) -> list[Memory]:
        """The memories with these ids, in the order given; ``UnknownIdError`` lists missing."""
        d = self.dialect
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Memory] = {}
        for clause, params in d.in_batches("id", wanted):
            rows = self._read(f"{SELECT_MEMORY} WHERE namespace = {d.param} AND {clause}",
                              [namespace, *params])
            found.update((m.id, m) for m in map(d.row_memory, rows))
        missing = [i for i in wanted if i not in found]
        if missing:
            shown = ", ".join(repr(i) for i in missing[:10])
            more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
            raise UnknownIdError(f"unknown memory id(s) in namespace {namespace!r}: "
                                 f"{shown}{more}")
        return [found[i] for i in ids]

    def _where(self, *filters: tuple[str, list[Any]] | None) -> tuple[str, list[Any]]:
        """The ``WHERE`` condition ANDing the given ``(condition, params)`` filters
        (``None`` ones skipped), and its parameters."""
        where: list[str] = [self.dialect.true]
        params: list[Any] = []
        for f in filters:
            if f is not None:
                where.append(f[0])
                params += f[1]
        return " AND ".join(where), params

    def _filters(self, namespace: str | None,
                 statuses: Collection[Status] | None) -> tuple[str, list[Any]]:
        d = self.dialect
        return self._where(
            None if namespace is None else (f"namespace = {d.param}", [namespace]),
            None if statuses is None else d.status_filter(
                sorted({Status(s).value for s in statuses})))

    def iter_memories(self, namespace: str | None = None,
                      statuses: Collection[Status] | None = None) -> Iterator[Memory]:
        """Memories ordered by (namespace, created_at, id); all namespaces when None.

        Reads in pages (keyset pagination), so writing to the store while iterating is safe
        (rows written behind the cursor are not revisited).
        """
        d = self.dialect
        where, params = self._filters(namespace, statuses)
        # the key after the last row read; within one namespace only (created_at, id), a
        # range the index seeks to: with the namespace in the tuple as well SQLite walks the
        # namespace's rows from its first on every page (quadratic: 150 s at 900k rows)
        key_columns = ("namespace", "created_at", "id") if namespace is None else (
            "created_at", "id")
        after: list[Any] | None = None
        while True:
            key_sql = (f" AND ({', '.join(key_columns)}) > "
                       f"({d.placeholders(len(key_columns))})" if after else "")
            rows = self._read(
                f"{SELECT_MEMORY}{d.ordered_scan_hint} WHERE {where}{key_sql} "
                f"ORDER BY namespace, created_at, id LIMIT {PAGE}", [*params, *(after or [])])
            for row in rows:
                yield d.row_memory(row)
            if len(rows) < PAGE:
                return
            last = dict(zip(MEMORY_COLUMNS, rows[-1]))
            after = [last[c] for c in key_columns]

    def count_memories(self, namespace: str | None = None,
                       statuses: Collection[Status] | None = None) -> int:
        where, params = self._filters(namespace, statuses)
        return int(self._read(f"SELECT COUNT(*) FROM memories WHERE {where}", params)[0][0])

    def change_seq(self, lock: bool = False) -> int:
        """The store's change sequence: the highest ``seq`` handed out so far (every insert
        and content write takes a new one; feedback does not).

        With ``lock``, inside an open :meth:`transaction`, no other writer can take a number
        until it commits (SQLite's write transactions are exclusive anyway; PostgreSQL locks
        the counter row), so the numbers taken after this call are this transaction's own.
        """
        suffix = self.dialect.lock_row if lock else ""
        return int(self._read(f"SELECT value FROM change_seq{suffix}")[0][0])

    def count_changed(self, namespace: str, ranges: Sequence[tuple[int, int | None]],
                      statuses: Collection[Status] | None = None) -> int:
        """Memories of ``namespace`` (with one of ``statuses``) whose last insert or content
        write took a sequence number in one of ``ranges``: ``(after, upto)`` means
        ``after < seq <= upto``, ``upto`` None no upper bound."""
        p = self.dialect.param
        spans: list[str] = []
        span_params: list[Any] = []
        for after, upto in ranges:
            if upto is None:
                spans.append(f"seq > {p}")
                span_params.append(int(after))
            elif upto > after:
                spans.append(f"(seq > {p} AND seq <= {p})")
                span_params += [int(after), int(upto)]
        if not spans:
            return 0
        where, params = self._filters(namespace, statuses)
        return int(self._read(f"SELECT COUNT(*) FROM memories WHERE {where} AND "
                              f"({' OR '.join(spans)})", [*params, *span_params])[0][0])

    def stats(self) -> dict[str, Any]:
        """Counts by namespace, status and kind, and embedding coverage per model."""
        out: dict[str, Any] = {"namespaces": {}, "embeddings": {}}
        for ns, status, kind, n in self._read(
                "SELECT namespace, status, kind, COUNT(*) FROM memories "
                "GROUP BY namespace, status, kind ORDER BY namespace, status, kind"):
            entry = out["namespaces"].setdefault(ns, {"total": 0, "status": {}, "kind": {}})
            entry["total"] += n
            entry["status"][status] = entry["status"].get(status, 0) + n
            entry["kind"][kind] = entry["kind"].get(kind, 0) + n
        active = self.count_memories(statuses=[Status.ACTIVE])
        for model_id, n, covered in self._embedding_counts():
            out["embeddings"][model_id] = {"vectors": int(n), "covered_active": int(covered),
                                           "active": active}
        return out

    def record_usage(self, namespace: str, memory_id: str, success: bool | None,
                     query: str | None = None) -> Memory:
        """Count one retrieval (and its outcome if known) on a memory's usage counters.

        Sets ``last_used_at`` to now. Outcomes are not content: ``version`` and
        ``updated_at`` are left alone, so feedback never makes a plan stale or an undo
        impossible, and content writes (``update``/``restore``) never touch the counters,
        so a concurrent maintenance run cannot overwrite them.
        """
        d = self.dialect
        p = d.param
        sql = ("UPDATE memories SET retrievals = retrievals + 1, "
               f"successes = successes + {p}, failures = failures + {p}, last_used_at = {p} "
               f"WHERE namespace = {p} AND id = {p}")
        now = d.encode_time(utcnow())
        with self._write() as conn:
            params = (int(success is True), int(success is False), now, namespace, memory_id)
            row = self._update_memory(conn, sql, params, namespace, memory_id)
            if row is None:
                raise UnknownIdError(f"unknown memory id in namespace {namespace!r}: "
                                     f"{memory_id!r}")
            if query is not None:
                conn.execute("INSERT INTO serves (namespace, memory_id, query, success, time) "
                             f"VALUES ({p}, {p}, {p}, {p}, {p})",
                             (namespace, memory_id, query,
                              None if success is None else int(success), now))
        return d.row_memory(row)

    def serve_history(self, namespace: str) -> list[Serve]:
        """The uses recorded with a query in ``namespace``, oldest first."""
        p = self.dialect.param
        rows = self._read("SELECT namespace, memory_id, query, success, time FROM serves "
                          f"WHERE namespace = {p} ORDER BY seq", [namespace])
        return [Serve(ns, mid, q, None if ok is None else bool(ok),
                      parse_time(t)) for ns, mid, q, ok, t in rows]

    @contextmanager
    def transaction(self) -> Iterator[TxT]:
        """One atomic write transaction: committed on normal exit, rolled back on error."""
        with self._write() as conn:
            tx = self._transaction(conn)
            try:
                yield tx
            finally:
                tx._conn = None

    # -- embedding cache --------------------------------------------------------------------
    def get_embeddings(self, model_id: str, hashes: Collection[str]) -> dict[str, np.ndarray]:
        """Cached float32 vectors for these content hashes (missing ones are absent)."""
        d = self.dialect
        out: dict[str, np.ndarray] = {}
        wanted = sorted(set(hashes))  # in key order: neighbouring lookups share pages (2x)
        self._before_bulk_read(len(wanted))
        for clause, params in d.in_batches("content_hash", wanted):
            for h, dim, value in self._read(
                    f"SELECT content_hash, dim, vector FROM embeddings WHERE model_id = "
                    f"{d.param} AND {clause}", [model_id, *params]):
                vec = d.decode_vector(value)
                if vec.shape != (dim,):  # pragma: no cover - corruption guard
                    raise MemmaintError(f"corrupt cached vector for {h} ({model_id})")
                out[h] = vec
        return out

    def put_embeddings(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Cache vectors keyed by content hash, in one transaction.

        Every vector must be 1-D, finite and of the same length as the model's other
        cached vectors (``InputError`` otherwise).
        """
        if not vectors:
            return
        self.dialect.text(model_id, "model id")
        rows = []
        dims = set()
        now = utcnow()
        for h, vec in vectors.items():
            arr = np.asarray(vec, dtype=np.float32)
            if arr.ndim != 1 or arr.size == 0:
                raise InputError(f"embedding for {h} must be a non-empty 1-D vector, "
                                 f"got shape {arr.shape}")
            if not np.isfinite(arr).all():
                raise InputError(f"embedding for {h} ({model_id}) has NaN or infinite values")
            dims.add(arr.shape[0])
            rows.append(self._embedding_row(model_id, h, arr, now))
        with self._write() as conn:
            row = conn.execute(
                f"SELECT dim FROM embeddings WHERE model_id = {self.dialect.param} LIMIT 1",
                (model_id,)).fetchone()
            if row is not None:
                dims.add(int(row[0]))
            if len(dims) > 1:
                raise InputError(f"embeddings for model {model_id!r} have different "
                                 f"dimensions: {sorted(dims)}")
            self._upsert_embeddings(conn, rows)

    # -- provenance -------------------------------------------------------------------------
    def events(self, *, run_id: str | None = None, memory_id: str | None = None,
               namespace: str | None = None) -> list[Event]:
        """Events in write order, filtered by run, by memory id (in ``memory_ids``),
        by namespace, or any combination (filters are ANDed)."""
        d = self.dialect
        where, params = self._where(
            None if run_id is None else (f"run_id = {d.param}", [run_id]),
            None if namespace is None else (f"namespace = {d.param}", [namespace]),
            None if memory_id is None else (d.event_memory_filter, [memory_id]))
        rows = self._read(f"SELECT {EVENT_COLUMNS} FROM events WHERE {where} ORDER BY seq",
                          params)
        return [d.row_event(r) for r in rows]

    # -- runs -------------------------------------------------------------------------------
    def save_run(self, run: RunRecord) -> None:
        """Insert or replace a run record (a replaced run keeps its place in the list)."""
        d = self.dialect
        p, j = d.param, d.json_param
        row = (d.text(run.run_id, "run id"), d.encode_time(run.started_at),
               d.encode_time(run.finished_at), d.text(run.status, "run status"),
               dump_json(list(run.namespaces), "run namespaces"),
               dump_json(dict(run.report), f"report of run {run.run_id!r}"))
        with self._write() as conn:
            conn.execute(
                f"INSERT INTO runs ({RUN_COLUMNS}) VALUES ({p}, {p}, {p}, {p}, {j}, {j}) "
                "ON CONFLICT (run_id) DO UPDATE SET "
                "started_at = excluded.started_at, finished_at = excluded.finished_at, "
                "status = excluded.status, namespaces = excluded.namespaces, "
                "report = excluded.report", row)

    def get_run(self, run_id: str) -> RunRecord:
        """``UnknownIdError`` when there is no such run."""
        rows = self._read(f"SELECT {RUN_COLUMNS} FROM runs WHERE run_id = {self.dialect.param}",
                          [run_id])
        if not rows:
            raise UnknownIdError(f"unknown run id {run_id!r}")
        return self.dialect.row_run(rows[0])

    def list_runs(self, limit: int | None = None) -> list[RunRecord]:
        """Newest first (by ``started_at``, then by insertion)."""
        d = self.dialect
        sql = (f"SELECT {RUN_COLUMNS} FROM runs "
               f"ORDER BY started_at DESC, {d.run_tiebreak} DESC")
        params: list[Any] = []
        if limit is not None:
            sql += f" LIMIT {d.param}"
            params.append(int(limit))
        return [d.row_run(r) for r in self._read(sql, params)]
