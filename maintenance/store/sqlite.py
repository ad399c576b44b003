"""The embedded default store: one SQLite file (stdlib :mod:`sqlite3`) in WAL mode.

Layout (schema version 1):

- ``schema_version(version)``: one row; :data:`MIGRATIONS` brings older files forward.
- ``memories``: one row per ``(namespace, id)`` with every :class:`Memory` field
  (``metadata`` as JSON text, timestamps as fixed-width ISO-8601 UTC text so that text order
  is time order) plus ``content_hash`` (the embedding cache key).
- ``embeddings``: float32 little-endian vectors keyed by ``(model_id, content_hash)``.
- ``events`` (append-only, ``seq`` autoincrement) and ``event_memories`` (which memory ids an
  event touches, for the ``memory_id`` filter).
- ``runs``: one row per run.

Every write runs inside ``BEGIN IMMEDIATE`` ... ``COMMIT`` (or a savepoint when a
transaction is already open), so a failing batch leaves the file unchanged. The run lock is
``fcntl.flock`` on the sidecar file ``<db>.lock`` (``<db>.<name>.lock`` for other names): it is
exclusive, never blocks, and the kernel releases it when the holding process dies.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import sqlite3
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memmaint.maintenance.core.errors import (
    DuplicateIdError,
    InputError,
    LockHeldError,
    MemmaintError,
    UnknownIdError,
    UserError,
    VersionConflict,
)
from memmaint.maintenance.core.records import Memory, Status, content_hash, parse_time, to_utc, utcnow
from memmaint.maintenance.store.base import Event, RunRecord

if TYPE_CHECKING:
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: Forward migrations: ``MIGRATIONS[k]`` takes a file from schema version ``k`` to ``k + 1``.
#: Append new steps; never edit a released one.
MIGRATIONS: list[tuple[str, ...]] = [
    (
        """CREATE TABLE memories (
            namespace TEXT NOT NULL,
            id TEXT NOT NULL,
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            importance REAL NOT NULL,
            kind TEXT NOT NULL,
            source TEXT NOT NULL,
            metadata TEXT NOT NULL,
            retrievals INTEGER NOT NULL,
            successes INTEGER NOT NULL,
            failures INTEGER NOT NULL,
            last_used_at TEXT,
            status TEXT NOT NULL,
            version INTEGER NOT NULL,
            replaced_by TEXT,
            valid_until TEXT,
            PRIMARY KEY (namespace, id)
        )""",
        "CREATE INDEX memories_order ON memories (namespace, created_at, id)",
        "CREATE INDEX memories_status ON memories (status)",
        "CREATE INDEX memories_hash ON memories (content_hash)",
        """CREATE TABLE embeddings (
            model_id TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (model_id, content_hash)
        ) WITHOUT ROWID""",
        """CREATE TABLE events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id TEXT NOT NULL,
            time TEXT NOT NULL,
            action TEXT NOT NULL,
            namespace TEXT NOT NULL,
            memory_ids TEXT NOT NULL,
            before TEXT NOT NULL,
            after TEXT NOT NULL,
            reason TEXT NOT NULL,
            agent TEXT NOT NULL
        )""",
        "CREATE INDEX events_run ON events (run_id, seq)",
        """CREATE TABLE event_memories (
            seq INTEGER NOT NULL REFERENCES events (seq),
            memory_id TEXT NOT NULL,
            PRIMARY KEY (memory_id, seq)
        ) WITHOUT ROWID""",
        """CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            status TEXT NOT NULL,
            namespaces TEXT NOT NULL,
            report TEXT NOT NULL
        )""",
        "CREATE INDEX runs_started ON runs (started_at)",
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)

_MEMORY_COLUMNS = (
    "namespace", "id", "text", "content_hash", "created_at", "updated_at", "importance", "kind",
    "source", "metadata", "retrievals", "successes", "failures", "last_used_at", "status",
    "version", "replaced_by", "valid_until",
)
_SELECT_MEMORY = f"SELECT {', '.join(_MEMORY_COLUMNS)} FROM memories"
_INSERT_MEMORY = (
    f"INSERT INTO memories ({', '.join(_MEMORY_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(_MEMORY_COLUMNS))})"
)
_WRITE_MEMORY = (
    "UPDATE memories SET "
    + ", ".join(f"{c} = ?" for c in _MEMORY_COLUMNS[2:])
    + " WHERE namespace = ? AND id = ? AND version = ?"
)
_CHUNK = 500  # ids per IN (...) query, well under SQLite's variable limit
_PAGE = 1000  # rows per page of iter_memories
_LOCK_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def _ts(value: datetime | None) -> str | None:
    """Fixed-width ISO-8601 UTC text: lexical order equals time order."""
    return None if value is None else to_utc(value).isoformat(timespec="microseconds")


def _dump_json(value: Any, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} is not JSON-serialisable: {exc}") from None


def _memory_row(m: Memory) -> tuple[Any, ...]:
    return (
        m.namespace, m.id, m.text, content_hash(m.text), _ts(m.created_at), _ts(m.updated_at),
        float(m.importance), m.kind, m.source,
        _dump_json(dict(m.metadata), f"metadata of memory {m.id!r}"),
        m.retrievals, m.successes, m.failures, _ts(m.last_used_at), Status(m.status).value,
        m.version, m.replaced_by, _ts(m.valid_until),
    )


def _row_memory(row: Sequence[Any]) -> Memory:
    r = dict(zip(_MEMORY_COLUMNS, row))
    return Memory(
        id=r["id"], namespace=r["namespace"], text=r["text"],
        created_at=parse_time(r["created_at"]), updated_at=parse_time(r["updated_at"]),
        importance=r["importance"], kind=r["kind"], source=r["source"],
        metadata=json.loads(r["metadata"]), retrievals=r["retrievals"],
        successes=r["successes"], failures=r["failures"],
        last_used_at=None if r["last_used_at"] is None else parse_time(r["last_used_at"]),
        status=Status(r["status"]), version=r["version"], replaced_by=r["replaced_by"],
        valid_until=None if r["valid_until"] is None else parse_time(r["valid_until"]),
    )


def _chunks(items: Sequence[Any], size: int = _CHUNK) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _status_clause(statuses: Collection[Status] | None) -> tuple[str, list[str]]:
    if statuses is None:
        return "", []
    values = sorted({Status(s).value for s in statuses})
    if not values:
        return " AND 0", []
    return f" AND status IN ({', '.join('?' * len(values))})", values


class SQLiteStore:
    """A :class:`~memmaint.maintenance.store.base.MemoryStore` in one SQLite file.

    Args:
        path: the database file, or ``":memory:"`` for a private in-memory store (tests).
        create: create (and initialise) the file when it does not exist; with ``False`` a
            missing file is a :class:`UserError` naming the path.
        timeout: seconds a writer waits for another process's write transaction.

    A store object may be shared between threads (calls are serialised); each process
    should open its own.
    """

    def __init__(self, path: str | os.PathLike[str], create: bool = True, *,
                 timeout: float = 30.0) -> None:
        self._mutex = threading.RLock()
        self._savepoints = 0
        self._held_locks: set[str] = set()
        self._closed = False
        if str(path) == ":memory:":
            self.path: Path | None = None
            self.url = ":memory:"
            target = ":memory:"
        else:
            p = Path(path).expanduser()
            if p.is_dir():
                raise UserError(f"{p} is a directory, not a memmaint store")
            if not p.exists():
                if not create:
                    raise UserError(f"no memmaint store at {p} (create one with: "
                                    f"memmaint init --db {p})")
                if not p.parent.is_dir():
                    raise UserError(f"cannot create a store at {p}: "
                                    f"folder {p.parent} does not exist")
            self.path = p.resolve()
            self.url = str(self.path)
            target = str(self.path)
        try:
            self._conn = sqlite3.connect(target, timeout=timeout, isolation_level=None,
                                         check_same_thread=False)
        except sqlite3.Error as exc:
            raise UserError(f"cannot open store {self.url}: {exc}") from None
        try:
            self._open()
        except BaseException:
            self._conn.close()
            raise

    # -- opening and migrations -------------------------------------------------------------
    def _open(self) -> None:
        conn = self._conn
        try:
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise UserError(f"{self.url} is not a SQLite database ({exc})") from None
        if tables and "schema_version" not in tables:
            raise UserError(f"{self.url} is a SQLite database but not a memmaint store "
                            f"(it has tables {', '.join(sorted(tables)[:5])})")
        conn.execute("PRAGMA busy_timeout = 30000")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if self.path is not None and str(mode).lower() != "wal":  # pragma: no cover
            logger.warning("could not switch %s to WAL mode (journal_mode=%s)", self.url, mode)
        conn.execute("PRAGMA synchronous = FULL")
        self._migrate()

    def _schema_version(self) -> int:
        try:
            row = self._conn.execute("SELECT version FROM schema_version").fetchone()
        except sqlite3.OperationalError:
            return 0
        return 0 if row is None else int(row[0])

    def _migrate(self) -> None:
        if self._schema_version() == SCHEMA_VERSION:
            return
        with self._write():
            # Re-read inside the write lock: another process may have migrated meanwhile.
            self._conn.execute("CREATE TABLE IF NOT EXISTS schema_version "
                               "(version INTEGER NOT NULL)")
            current = self._schema_version()
            if current > SCHEMA_VERSION:
                raise UserError(f"{self.url} has schema version {current}, newer than this "
                                f"memmaint understands ({SCHEMA_VERSION}): upgrade memmaint")
            for step in MIGRATIONS[current:]:
                for statement in step:
                    self._conn.execute(statement)
            self._conn.execute("DELETE FROM schema_version")
            self._conn.execute("INSERT INTO schema_version (version) VALUES (?)",
                               (SCHEMA_VERSION,))
            if current:
                logger.info("migrated %s from schema %d to %d", self.url, current,
                            SCHEMA_VERSION)

    @property
    def schema_version(self) -> int:
        """The schema version of the open file."""
        with self._mutex:
            return self._schema_version()

    def close(self) -> None:
        """Close the connection (the last one to close checkpoints and removes the WAL)."""
        with self._mutex:
            if not self._closed:
                self._closed = True
                self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.url!r})"

    # -- low-level helpers ------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise MemmaintError(f"store {self.url} is closed")

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._mutex:
            self._check_open()
            return self._conn.execute(sql, params).fetchall()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: a transaction, or a savepoint inside an open one."""
        with self._mutex:
            self._check_open()
            conn = self._conn
            if conn.in_transaction:
                self._savepoints += 1
                name = f"sp{self._savepoints}"
                conn.execute(f"SAVEPOINT {name}")
                try:
                    yield conn
                except BaseException:
                    conn.execute(f"ROLLBACK TO {name}")
                    conn.execute(f"RELEASE {name}")
                    raise
                else:
                    conn.execute(f"RELEASE {name}")
                finally:
                    self._savepoints -= 1
                return
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise MemmaintError(f"store {self.url} is busy: {exc}") from None
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            else:
                conn.execute("COMMIT")

    # -- memories ---------------------------------------------------------------------------
    def namespaces(self) -> list[str]:
        """Namespaces holding at least one memory, sorted."""
        return [r[0] for r in self._read(
            "SELECT DISTINCT namespace FROM memories ORDER BY namespace")]

    def existing_ids(self, namespace: str, ids: Collection[str]) -> set[str]:
        """The subset of ``ids`` that exist in ``namespace``."""
        found: set[str] = set()
        for chunk in _chunks(list(dict.fromkeys(ids))):
            found.update(r[0] for r in self._read(
                f"SELECT id FROM memories WHERE namespace = ? AND id IN "
                f"({', '.join('?' * len(chunk))})", [namespace, *chunk]))
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
            raise DuplicateIdError(_dupe_message(dupes, "appears twice in the batch"))
        with self._write() as tx:
            _insert(tx, memories)

    def get_memories(self, namespace: str, ids: Sequence[str]) -> list[Memory]:
        """The memories with these ids, in the order given; ``UnknownIdError`` lists missing."""
        found: dict[str, Memory] = {}
        for chunk in _chunks(list(dict.fromkeys(ids))):
            rows = self._read(f"{_SELECT_MEMORY} WHERE namespace = ? AND id IN "
                              f"({', '.join('?' * len(chunk))})", [namespace, *chunk])
            found.update((m.id, m) for m in map(_row_memory, rows))
        missing = [i for i in dict.fromkeys(ids) if i not in found]
        if missing:
            shown = ", ".join(repr(i) for i in missing[:10])
            more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
            raise UnknownIdError(f"unknown memory id(s) in namespace {namespace!r}: "
                                 f"{shown}{more}")
        return [found[i] for i in ids]

    def iter_memories(self, namespace: str | None = None,
                      statuses: Collection[Status] | None = None) -> Iterator[Memory]:
        """Memories ordered by (namespace, created_at, id); all namespaces when None.

        Reads in pages, so writing to the store while iterating is safe (rows written
        behind the cursor are not revisited).
        """
        status_sql, status_params = _status_clause(statuses)
        ns_sql = " AND namespace = ?" if namespace is not None else ""
        ns_params = [namespace] if namespace is not None else []
        after: list[Any] | None = None
        while True:
            key_sql = " AND (namespace, created_at, id) > (?, ?, ?)" if after else ""
            rows = self._read(
                f"{_SELECT_MEMORY} WHERE 1{ns_sql}{status_sql}{key_sql} "
                f"ORDER BY namespace, created_at, id LIMIT {_PAGE}",
                [*ns_params, *status_params, *(after or [])])
            for row in rows:
                yield _row_memory(row)
            if len(rows) < _PAGE:
                return
            last = dict(zip(_MEMORY_COLUMNS, rows[-1]))
            after = [last["namespace"], last["created_at"], last["id"]]

    def count_memories(self, namespace: str | None = None,
                       statuses: Collection[Status] | None = None) -> int:
        status_sql, status_params = _status_clause(statuses)
        ns_sql = " AND namespace = ?" if namespace is not None else ""
        ns_params = [namespace] if namespace is not None else []
        return int(self._read(f"SELECT COUNT(*) FROM memories WHERE 1{ns_sql}{status_sql}",
                              [*ns_params, *status_params])[0][0])

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
        for model_id, n in self._read(
                "SELECT model_id, COUNT(*) FROM embeddings GROUP BY model_id ORDER BY model_id"):
            covered = self._read(
                "SELECT COUNT(*) FROM memories AS m WHERE m.status = 'active' AND EXISTS "
                "(SELECT 1 FROM embeddings AS e WHERE e.model_id = ? "
                "AND e.content_hash = m.content_hash)", [model_id])[0][0]
            out["embeddings"][model_id] = {"vectors": int(n), "covered_active": int(covered),
                                           "active": active}
        return out

    def record_usage(self, namespace: str, memory_id: str, success: bool | None) -> Memory:
        """Count one retrieval (and its outcome if known) on a memory's usage counters.

        Sets ``last_used_at`` to now and bumps ``version`` (a concurrent maintenance run
        then sees a conflict rather than overwriting the new counts); ``updated_at`` is
        left alone since the content did not change.
        """
        with self._write() as tx:
            now = utcnow()
            cur = tx.execute(
                "UPDATE memories SET retrievals = retrievals + 1, "
                "successes = successes + ?, failures = failures + ?, last_used_at = ?, "
                "version = version + 1 WHERE namespace = ? AND id = ?",
                (int(success is True), int(success is False), _ts(now), namespace, memory_id))
            if cur.rowcount == 0:
                raise UnknownIdError(f"unknown memory id in namespace {namespace!r}: "
                                     f"{memory_id!r}")
            row = tx.execute(f"{_SELECT_MEMORY} WHERE namespace = ? AND id = ?",
                             (namespace, memory_id)).fetchone()
        return _row_memory(row)

    @contextmanager
    def transaction(self) -> Iterator[SQLiteTransaction]:
        """One atomic write transaction: committed on normal exit, rolled back on error."""
        with self._write() as conn:
            tx = SQLiteTransaction(conn)
            try:
                yield tx
            finally:
                tx._conn = None

    # -- embedding cache --------------------------------------------------------------------
    def get_embeddings(self, model_id: str, hashes: Collection[str]) -> dict[str, np.ndarray]:
        """Cached float32 vectors for these content hashes (missing ones are absent)."""
        out: dict[str, np.ndarray] = {}
        for chunk in _chunks(list(dict.fromkeys(hashes))):
            for h, dim, blob in self._read(
                    f"SELECT content_hash, dim, vector FROM embeddings WHERE model_id = ? "
                    f"AND content_hash IN ({', '.join('?' * len(chunk))})", [model_id, *chunk]):
                vec = np.frombuffer(blob, dtype="<f4").astype(np.float32)
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
        rows = []
        dims = set()
        for h, vec in vectors.items():
            arr = np.asarray(vec, dtype=np.float32)
            if arr.ndim != 1 or arr.size == 0:
                raise InputError(f"embedding for {h} must be a non-empty 1-D vector, "
                                 f"got shape {arr.shape}")
            if not np.isfinite(arr).all():
                raise InputError(f"embedding for {h} ({model_id}) has NaN or infinite values")
            dims.add(arr.shape[0])
            rows.append((model_id, h, arr.shape[0], arr.astype("<f4").tobytes(), _ts(utcnow())))
        with self._write() as tx:
            row = tx.execute("SELECT dim FROM embeddings WHERE model_id = ? LIMIT 1",
                             (model_id,)).fetchone()
            if row is not None:
                dims.add(int(row[0]))
            if len(dims) > 1:
                raise InputError(f"embeddings for model {model_id!r} have different "
                                 f"dimensions: {sorted(dims)}")
            tx.executemany("INSERT OR REPLACE INTO embeddings "
                           "(model_id, content_hash, dim, vector, created_at) "
                           "VALUES (?, ?, ?, ?, ?)", rows)

    # -- provenance -------------------------------------------------------------------------
    def events(self, *, run_id: str | None = None, memory_id: str | None = None,
               namespace: str | None = None) -> list[Event]:
        """Events in write order, filtered by run, by memory id (in ``memory_ids``),
        by namespace, or any combination (filters are ANDed)."""
        where, params = ["1"], []
        if run_id is not None:
            where.append("run_id = ?")
            params.append(run_id)
        if namespace is not None:
            where.append("namespace = ?")
            params.append(namespace)
        if memory_id is not None:
            where.append("seq IN (SELECT seq FROM event_memories WHERE memory_id = ?)")
            params.append(memory_id)
        rows = self._read(
            "SELECT seq, run_id, time, action, namespace, memory_ids, before, after, reason, "
            f"agent FROM events WHERE {' AND '.join(where)} ORDER BY seq", params)
        return [
            Event(run_id=r[1], time=parse_time(r[2]), action=r[3], namespace=r[4],
                  memory_ids=tuple(json.loads(r[5])), before=tuple(json.loads(r[6])),
                  after=tuple(json.loads(r[7])), reason=r[8], agent=r[9], seq=r[0])
            for r in rows
        ]

    # -- runs -------------------------------------------------------------------------------
    def save_run(self, run: RunRecord) -> None:
        """Insert or replace a run record."""
        row = (run.run_id, _ts(run.started_at), _ts(run.finished_at), run.status,
               _dump_json(list(run.namespaces), "run namespaces"),
               _dump_json(dict(run.report), f"report of run {run.run_id!r}"))
        with self._write() as tx:
            tx.execute(
                "INSERT INTO runs (run_id, started_at, finished_at, status, namespaces, report) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET "
                "started_at = excluded.started_at, finished_at = excluded.finished_at, "
                "status = excluded.status, namespaces = excluded.namespaces, "
                "report = excluded.report", row)

    def get_run(self, run_id: str) -> RunRecord:
        """``UnknownIdError`` when there is no such run."""
        rows = self._read("SELECT run_id, started_at, finished_at, status, namespaces, report "
                          "FROM runs WHERE run_id = ?", [run_id])
        if not rows:
            raise UnknownIdError(f"unknown run id {run_id!r}")
        return _row_run(rows[0])

    def list_runs(self, limit: int | None = None) -> list[RunRecord]:
        """Newest first (by ``started_at``, then by insertion)."""
        sql = ("SELECT run_id, started_at, finished_at, status, namespaces, report FROM runs "
               "ORDER BY started_at DESC, rowid DESC")
        params: list[Any] = []
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        return [_row_run(r) for r in self._read(sql, params)]

    # -- lock -------------------------------------------------------------------------------
    @contextmanager
    def lock(self, name: str = "run") -> Iterator[None]:
        """An exclusive, non-blocking, process-safe lock; ``LockHeldError`` if taken.

        ``flock`` on ``<db>.lock`` (``<db>.<name>.lock`` for other names): held per open
        file, so a second handle in the same process is refused too, and released by the
        kernel if the holder dies. In-memory stores lock within the store object only.
        """
        if not _LOCK_NAME.match(name):
            raise ValueError(f"invalid lock name {name!r}")
        if self.path is None:
            with self._mutex:
                if name in self._held_locks:
                    raise LockHeldError(f"the {name!r} lock on {self.url} is held")
                self._held_locks.add(name)
            try:
                yield
            finally:
                with self._mutex:
                    self._held_locks.discard(name)
            return
        import fcntl

        suffix = ".lock" if name == "run" else f".{name}.lock"
        lock_path = self.path.with_name(self.path.name + suffix)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
            os.close(fd)
            raise LockHeldError(f"another memmaint run holds the {name!r} lock on "
                                f"{self.url}" + (f" ({holder})" if holder else "")) from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} since {_ts(utcnow())}".encode(), 0)
            yield
        finally:
            try:
                os.ftruncate(fd, 0)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)


class SQLiteTransaction:
    """Writes inside one open :meth:`SQLiteStore.transaction` (a ``StoreTransaction``)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn: sqlite3.Connection | None = conn

    def _c(self) -> sqlite3.Connection:
        if self._conn is None:
            raise MemmaintError("transaction is closed")
        return self._conn

    def insert(self, memory: Memory) -> None:
        """Add a new memory; raises ``DuplicateIdError`` if its (namespace, id) exists."""
        _insert(self._c(), [memory])

    def _stored_version(self, memory: Memory) -> int | None:
        row = self._c().execute("SELECT version FROM memories WHERE namespace = ? AND id = ?",
                                (memory.namespace, memory.id)).fetchone()
        return None if row is None else int(row[0])

    def _overwrite(self, memory: Memory, expected_version: int) -> None:
        row = _memory_row(memory)
        cur = self._c().execute(_WRITE_MEMORY,
                                (*row[2:], memory.namespace, memory.id, expected_version))
        if cur.rowcount == 0:
            actual = self._stored_version(memory)
            if actual is None:
                raise UnknownIdError(f"unknown memory id in namespace {memory.namespace!r}: "
                                     f"{memory.id!r}")
            raise VersionConflict(memory.id, expected_version, actual)

    def update(self, memory: Memory, expected_version: int) -> Memory:
        """Overwrite a memory if its stored version is ``expected_version``.

        Returns the stored value (``version = expected_version + 1``, ``updated_at`` now).
        """
        stored = dataclasses.replace(memory, version=int(expected_version) + 1,
                                     updated_at=utcnow())
        self._overwrite(stored, int(expected_version))
        return stored

    def restore(self, memory: Memory, expected_version: int) -> None:
        """Write ``memory`` exactly as given (version included) if the stored version is
        ``expected_version``. ``VersionConflict`` otherwise, ``UnknownIdError`` if absent."""
        self._overwrite(memory, int(expected_version))

    def append_event(self, event: Event) -> None:
        """Append a provenance event (its ``seq`` is assigned by the store)."""
        conn = self._c()
        cur = conn.execute(
            "INSERT INTO events (run_id, time, action, namespace, memory_ids, before, after, "
            "reason, agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (event.run_id, _ts(event.time), event.action, event.namespace,
             _dump_json(list(event.memory_ids), "event memory_ids"),
             _dump_json([None if b is None else dict(b) for b in event.before], "event before"),
             _dump_json([None if a is None else dict(a) for a in event.after], "event after"),
             event.reason, event.agent))
        seq = cur.lastrowid
        conn.executemany("INSERT OR IGNORE INTO event_memories (seq, memory_id) VALUES (?, ?)",
                         [(seq, mid) for mid in dict.fromkeys(event.memory_ids)])


def _insert(conn: sqlite3.Connection, memories: Sequence[Memory]) -> None:
    rows = [_memory_row(m) for m in memories]
    try:
        conn.executemany(_INSERT_MEMORY, rows)
    except sqlite3.IntegrityError:
        keys = [(m.namespace, m.id) for m in memories]
        existing = []
        for ns in {k[0] for k in keys}:
            ids = [k[1] for k in keys if k[0] == ns]
            for chunk in _chunks(ids):
                existing += [(ns, r[0]) for r in conn.execute(
                    f"SELECT id FROM memories WHERE namespace = ? AND id IN "
                    f"({', '.join('?' * len(chunk))})", [ns, *chunk])]
        raise DuplicateIdError(_dupe_message(sorted(existing), "already exists")) from None


def _dupe_message(keys: Sequence[tuple[str, str]], problem: str) -> str:
    shown = ", ".join(f"{i!r} (namespace {ns!r})" for ns, i in keys[:5])
    more = f" and {len(keys) - 5} more" if len(keys) > 5 else ""
    return f"memory id {problem}: {shown}{more}"


def _row_run(r: Sequence[Any]) -> RunRecord:
    return RunRecord(run_id=r[0], started_at=parse_time(r[1]),
                     finished_at=None if r[2] is None else parse_time(r[2]), status=r[3],
                     namespaces=tuple(json.loads(r[4])), report=json.loads(r[5]))


__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SQLiteStore", "SQLiteTransaction"]
