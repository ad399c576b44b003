"""A :class:`~memmaint.maintenance.store.base.MemoryStore` in PostgreSQL (extra ``postgres``,
psycopg 3).

``PostgresStore("postgresql://user:pass@host:5432/dbname")`` keeps its tables in their own
PostgreSQL schema, ``memmaint`` unless the URL says otherwise with a ``schema`` query
parameter (``postgresql://host/db?schema=tenant_a``; the parameter is memmaint's, it is not
passed to libpq). Layout (schema version 1), the same tables as the SQLite store:

- ``schema_version(version)``: one row; :data:`MIGRATIONS` brings older schemas forward, under
  a transaction-level advisory lock so concurrent openers do not race.
- ``memories``: one row per ``(namespace, id)``; ``namespace`` and ``id`` use ``COLLATE "C"``
  so that ids compare by code point as in SQLite; timestamps are ``timestamptz``; metadata is
  ``json`` holding exactly the text the SQLite store writes (sorted keys).
- ``embeddings``: ``real[]`` (float4) vectors keyed by ``(model_id, content_hash)``.
- ``events`` (append-only, ``seq`` identity; ``memory_ids text[]`` with a GIN index) and
  ``runs``.

Writes run in a transaction (a savepoint when one is already open on this handle), so a
failing batch changes nothing; :meth:`StoreTransaction.update` only writes a row whose stored
version is the expected one (``UPDATE ... WHERE version = %s``; under READ COMMITTED a
concurrent committed update makes it match no row, which is reported as a
:class:`~memmaint.maintenance.core.errors.VersionConflict`). The run lock is a session-level
``pg_try_advisory_lock`` taken on a connection of its own: exclusive, never blocking, and
released by the server when the holder's connection ends, even if the process is killed.

PostgreSQL text cannot hold the NUL character; a memory containing one is refused with an
:class:`~memmaint.maintenance.core.errors.InputError`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import threading
import zlib
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np

from memmaint.maintenance.core.errors import (
    DuplicateIdError,
    InputError,
    LockHeldError,
    MemmaintError,
    UnknownIdError,
    UserError,
    VersionConflict,
    require,
)
from memmaint.maintenance.core.records import Memory, Status, content_hash, to_utc, utcnow
from memmaint.maintenance.store.base import Event, RunRecord

if TYPE_CHECKING:
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: Forward migrations: ``MIGRATIONS[k]`` takes a schema from version ``k`` to ``k + 1``.
#: Append new steps; never edit a released one. Statements run with ``search_path`` set to
#: the store's schema.
MIGRATIONS: list[tuple[str, ...]] = [
    (
        """CREATE TABLE memories (
            namespace TEXT COLLATE "C" NOT NULL,
            id TEXT COLLATE "C" NOT NULL,
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL,
            updated_at TIMESTAMPTZ NOT NULL,
            importance DOUBLE PRECISION NOT NULL,
            kind TEXT NOT NULL,
            source TEXT NOT NULL,
            metadata JSON NOT NULL,
            retrievals BIGINT NOT NULL,
            successes BIGINT NOT NULL,
            failures BIGINT NOT NULL,
            last_used_at TIMESTAMPTZ,
            status TEXT NOT NULL,
            version BIGINT NOT NULL,
            replaced_by TEXT,
            valid_until TIMESTAMPTZ,
            PRIMARY KEY (namespace, id)
        )""",
        "CREATE INDEX memories_order ON memories (namespace, created_at, id)",
        "CREATE INDEX memories_status ON memories (status)",
        "CREATE INDEX memories_hash ON memories (content_hash)",
        """CREATE TABLE embeddings (
            model_id TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector REAL[] NOT NULL,
            created_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (model_id, content_hash)
        )""",
        """CREATE TABLE events (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            run_id TEXT NOT NULL,
            time TIMESTAMPTZ NOT NULL,
            action TEXT NOT NULL,
            namespace TEXT NOT NULL,
            memory_ids TEXT[] NOT NULL,
            before JSON NOT NULL,
            after JSON NOT NULL,
            reason TEXT NOT NULL,
            agent TEXT NOT NULL
        )""",
        "CREATE INDEX events_run ON events (run_id, seq)",
        "CREATE INDEX events_memory_ids ON events USING GIN (memory_ids)",
        """CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            seq BIGINT GENERATED ALWAYS AS IDENTITY,
            started_at TIMESTAMPTZ NOT NULL,
            finished_at TIMESTAMPTZ,
            status TEXT NOT NULL,
            namespaces JSON NOT NULL,
            report JSON NOT NULL
        )""",
        "CREATE INDEX runs_started ON runs (started_at, seq)",
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)
DEFAULT_SCHEMA = "memmaint"

_MEMORY_COLUMNS = (
    "namespace", "id", "text", "content_hash", "created_at", "updated_at", "importance", "kind",
    "source", "metadata", "retrievals", "successes", "failures", "last_used_at", "status",
    "version", "replaced_by", "valid_until",
)
_SELECT_MEMORY = f"SELECT {', '.join(_MEMORY_COLUMNS)} FROM memories"
_PLACEHOLDERS = ", ".join("%s::json" if c == "metadata" else "%s" for c in _MEMORY_COLUMNS)
_INSERT_MEMORY = f"INSERT INTO memories ({', '.join(_MEMORY_COLUMNS)}) VALUES ({_PLACEHOLDERS})"
_WRITE_MEMORY = (
    "UPDATE memories SET "
    + ", ".join(f"{c} = %s::json" if c == "metadata" else f"{c} = %s"
                for c in _MEMORY_COLUMNS[2:])
    + " WHERE namespace = %s AND id = %s AND version = %s"
)
_PAGE = 1000  # rows per page of iter_memories
_LOCK_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def _int4(text: str) -> int:
    """A stable signed 32-bit key for an advisory lock."""
    value = zlib.crc32(text.encode("utf-8"))
    return value - (1 << 32) if value >= 1 << 31 else value


def _redact(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for messages and reprs)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


def split_url(url: str) -> tuple[str, str]:
    """``(libpq URL, schema)``: memmaint's ``schema`` query parameter taken out of ``url``."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schemas = [v for k, v in query if k == "schema"]
    rest = [(k, v) for k, v in query if k != "schema"]
    schema = schemas[-1] if schemas else DEFAULT_SCHEMA
    if not _SCHEMA_NAME.match(schema):
        raise UserError(f"invalid schema name {schema!r} in the store URL (letters, digits and "
                        "underscores, not starting with a digit)")
    scheme = "postgresql" if parts.scheme == "postgres" else parts.scheme
    return urlunsplit(parts._replace(scheme=scheme, query=urlencode(rest))), schema


def _dump_json(value: Any, what: str) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} is not JSON-serialisable: {exc}") from None
    return text


def _text(value: str | None, what: str) -> str | None:
    if value is not None and "\x00" in value:
        raise InputError(f"{what} contains a NUL character, which PostgreSQL cannot store")
    return value


def _memory_row(m: Memory) -> tuple[Any, ...]:
    where = f"memory {m.id!r}"
    for name in ("id", "namespace", "text", "kind", "source", "replaced_by"):
        _text(getattr(m, name), f"{name} of {where}" if name != "id" else f"id {m.id!r}")
    return (
        m.namespace, m.id, m.text, content_hash(m.text), to_utc(m.created_at),
        to_utc(m.updated_at), float(m.importance), m.kind, m.source,
        _dump_json(dict(m.metadata), f"metadata of {where}"),
        m.retrievals, m.successes, m.failures,
        None if m.last_used_at is None else to_utc(m.last_used_at), Status(m.status).value,
        m.version, m.replaced_by, None if m.valid_until is None else to_utc(m.valid_until),
    )


def _row_memory(row: Sequence[Any]) -> Memory:
    r = dict(zip(_MEMORY_COLUMNS, row))
    return Memory(
        id=r["id"], namespace=r["namespace"], text=r["text"],
        created_at=to_utc(r["created_at"]), updated_at=to_utc(r["updated_at"]),
        importance=r["importance"], kind=r["kind"], source=r["source"],
        metadata=r["metadata"], retrievals=r["retrievals"],
        successes=r["successes"], failures=r["failures"],
        last_used_at=None if r["last_used_at"] is None else to_utc(r["last_used_at"]),
        status=Status(r["status"]), version=r["version"], replaced_by=r["replaced_by"],
        valid_until=None if r["valid_until"] is None else to_utc(r["valid_until"]),
    )


def _dupe_message(keys: Sequence[tuple[str, str]], problem: str) -> str:
    shown = ", ".join(f"{i!r} (namespace {ns!r})" for ns, i in keys[:5])
    more = f" and {len(keys) - 5} more" if len(keys) > 5 else ""
    return f"memory id {problem}: {shown}{more}"


def _status_values(statuses: Collection[Status] | None) -> list[str] | None:
    return None if statuses is None else sorted({Status(s).value for s in statuses})


class PostgresStore:
    """A :class:`~memmaint.maintenance.store.base.MemoryStore` in a PostgreSQL database.

    Args:
        url: ``postgresql://[user[:password]@][host][:port]/dbname[?schema=NAME&...]``; other
            query parameters go to libpq (``sslmode``, ``connect_timeout``...).
        create: create the schema and tables when the database has none; with ``False`` a
            database without a memmaint store is a :class:`UserError`.
        connect_timeout: seconds to wait for the server.

    A store object may be shared between threads (calls are serialised on its one
    connection); each process should open its own.
    """

    def __init__(self, url: str, create: bool = True, *, connect_timeout: float = 10.0) -> None:
        self._psycopg = require("psycopg", "postgres")
        self.url = url
        self._conninfo, self.schema = split_url(url)
        self._connect_timeout = connect_timeout
        self._mutex = threading.RLock()
        self._held_locks: set[str] = set()
        self._closed = False
        self._lock_class = _int4(f"memmaint:{self.schema}")
        self._conn = self._connect("memmaint")
        try:
            self._open(create)
        except BaseException:
            self._conn.close()
            raise

    # -- connecting and migrations ----------------------------------------------------------
    def _connect(self, application_name: str) -> Any:
        psycopg = self._psycopg
        try:
            conn = psycopg.connect(self._conninfo, autocommit=True,
                                   connect_timeout=max(1, int(self._connect_timeout)),
                                   application_name=application_name[:63])
        except psycopg.Error as exc:
            msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise UserError(f"cannot connect to {_redact(self.url)}: {msg}") from None
        conn.execute("SET TIME ZONE 'UTC'")
        conn.execute(f'SET search_path TO "{self.schema}"')
        return conn

    def _open(self, create: bool) -> None:
        if self._schema_version() == SCHEMA_VERSION:
            return
        with self._write() as conn:
            # Serialise concurrent openers; re-read under the lock.
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)",
                         (self._lock_class, _int4("migrate")))
            current = self._schema_version()
            if current == SCHEMA_VERSION:
                return
            if current == 0:
                tables = [r[0] for r in conn.execute(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = %s ORDER BY table_name", (self.schema,))]
                if tables:
                    raise UserError(
                        f"schema {self.schema!r} of {_redact(self.url)} holds tables that are "
                        f"not a memmaint store ({', '.join(tables[:5])}); pick another with "
                        "?schema=NAME in the URL")
                if not create:
                    raise UserError(f"no memmaint store in {_redact(self.url)} (create one "
                                    f"with: memmaint init --db URL)")
                conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
            if current > SCHEMA_VERSION:
                raise UserError(f"{_redact(self.url)} has schema version {current}, newer than "
                                f"this memmaint understands ({SCHEMA_VERSION}): upgrade memmaint")
            for step in MIGRATIONS[current:]:
                for statement in step:
                    conn.execute(statement)
            conn.execute("DELETE FROM schema_version")
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (SCHEMA_VERSION,))
            if current:
                logger.info("migrated %s from schema %d to %d", _redact(self.url), current,
                            SCHEMA_VERSION)

    def _schema_version(self) -> int:
        row = self._conn.execute("SELECT to_regclass(%s)",
                                 (f'"{self.schema}".schema_version',)).fetchone()
        if row is None or row[0] is None:
            return 0
        row = self._conn.execute("SELECT max(version) FROM schema_version").fetchone()
        return 0 if row is None or row[0] is None else int(row[0])

    @property
    def schema_version(self) -> int:
        """The schema version of the open store."""
        with self._mutex:
            self._check_open()
            return self._schema_version()

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
        return f"PostgresStore({_redact(self.url)!r})"

    # -- low-level helpers ------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise MemmaintError(f"store {_redact(self.url)} is closed")

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._mutex:
            self._check_open()
            try:
                return self._conn.execute(sql, params).fetchall()
            except self._psycopg.OperationalError as exc:
                raise MemmaintError(f"store {_redact(self.url)}: {exc}") from None

    @contextmanager
    def _write(self) -> Iterator[Any]:
        """One atomic write: a transaction, or a savepoint inside an open one."""
        with self._mutex:
            self._check_open()
            try:
                with self._conn.transaction():
                    yield self._conn
            except self._psycopg.OperationalError as exc:
                raise MemmaintError(f"store {_redact(self.url)}: {exc}") from None
            except self._psycopg.DataError as exc:  # e.g. a counter beyond BIGINT
                raise InputError(f"store {_redact(self.url)} refused a value: "
                                 f"{str(exc).strip().splitlines()[0]}") from None

    # -- memories ---------------------------------------------------------------------------
    def namespaces(self) -> list[str]:
        """Namespaces holding at least one memory, sorted by code point."""
        return [r[0] for r in self._read(
            "SELECT DISTINCT namespace FROM memories ORDER BY namespace")]

    def existing_ids(self, namespace: str, ids: Collection[str]) -> set[str]:
        """The subset of ``ids`` that exist in ``namespace``."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return set()
        return {r[0] for r in self._read(
            "SELECT id FROM memories WHERE namespace = %s AND id = ANY(%s)",
            [namespace, wanted])}

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
        if not memories:
            return
        rows = [_memory_row(m) for m in memories]
        with self._write() as conn:
            _insert(conn, memories, rows, self._psycopg)

    def get_memories(self, namespace: str, ids: Sequence[str]) -> list[Memory]:
        """The memories with these ids, in the order given; ``UnknownIdError`` lists missing."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Memory] = {}
        if wanted:
            rows = self._read(f"{_SELECT_MEMORY} WHERE namespace = %s AND id = ANY(%s)",
                              [namespace, wanted])
            found.update((m.id, m) for m in map(_row_memory, rows))
        missing = [i for i in wanted if i not in found]
        if missing:
            shown = ", ".join(repr(i) for i in missing[:10])
            more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
            raise UnknownIdError(f"unknown memory id(s) in namespace {namespace!r}: "
                                 f"{shown}{more}")
        return [found[i] for i in ids]

    def iter_memories(self, namespace: str | None = None,
                      statuses: Collection[Status] | None = None) -> Iterator[Memory]:
        """Memories ordered by (namespace, created_at, id); all namespaces when None.

        Reads in pages (keyset pagination), so writing while iterating is safe.
        """
        where, params = self._filters(namespace, statuses)
        after: list[Any] | None = None
        while True:
            key_sql = " AND (namespace, created_at, id) > (%s, %s, %s)" if after else ""
            rows = self._read(
                f"{_SELECT_MEMORY} WHERE {where}{key_sql} "
                f"ORDER BY namespace, created_at, id LIMIT {_PAGE}", [*params, *(after or [])])
            for row in rows:
                yield _row_memory(row)
            if len(rows) < _PAGE:
                return
            after = [rows[-1][0], rows[-1][4], rows[-1][1]]

    @staticmethod
    def _filters(namespace: str | None,
                 statuses: Collection[Status] | None) -> tuple[str, list[Any]]:
        where, params = ["TRUE"], []
        if namespace is not None:
            where.append("namespace = %s")
            params.append(namespace)
        values = _status_values(statuses)
        if values is not None:
            where.append("status = ANY(%s)")
            params.append(values)
        return " AND ".join(where), params

    def count_memories(self, namespace: str | None = None,
                       statuses: Collection[Status] | None = None) -> int:
        where, params = self._filters(namespace, statuses)
        return int(self._read(f"SELECT COUNT(*) FROM memories WHERE {where}", params)[0][0])

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
        for model_id, n, covered in self._read(
                "SELECT e.model_id, COUNT(*), (SELECT COUNT(*) FROM memories AS m "
                "WHERE m.status = 'active' AND EXISTS (SELECT 1 FROM embeddings AS x "
                "WHERE x.model_id = e.model_id AND x.content_hash = m.content_hash)) "
                "FROM embeddings AS e GROUP BY e.model_id ORDER BY e.model_id"):
            out["embeddings"][model_id] = {"vectors": int(n), "covered_active": int(covered),
                                           "active": active}
        return out

    def record_usage(self, namespace: str, memory_id: str, success: bool | None) -> Memory:
        """Count one retrieval (and its outcome if known) on a memory's usage counters;
        bumps ``version``, leaves ``updated_at`` alone."""
        with self._write() as conn:
            row = conn.execute(
                "UPDATE memories SET retrievals = retrievals + 1, "
                "successes = successes + %s, failures = failures + %s, last_used_at = %s, "
                "version = version + 1 WHERE namespace = %s AND id = %s "
                f"RETURNING {', '.join(_MEMORY_COLUMNS)}",
                (int(success is True), int(success is False), utcnow(), namespace,
                 memory_id)).fetchone()
            if row is None:
                raise UnknownIdError(f"unknown memory id in namespace {namespace!r}: "
                                     f"{memory_id!r}")
        return _row_memory(row)

    @contextmanager
    def transaction(self) -> Iterator[PostgresTransaction]:
        """One atomic write transaction: committed on normal exit, rolled back on error."""
        with self._write() as conn:
            tx = PostgresTransaction(conn, self._psycopg)
            try:
                yield tx
            finally:
                tx._conn = None

    # -- embedding cache --------------------------------------------------------------------
    def get_embeddings(self, model_id: str, hashes: Collection[str]) -> dict[str, np.ndarray]:
        """Cached float32 vectors for these content hashes (missing ones are absent)."""
        wanted = list(dict.fromkeys(hashes))
        out: dict[str, np.ndarray] = {}
        if not wanted:
            return out
        for h, dim, vec in self._read(
                "SELECT content_hash, dim, vector FROM embeddings WHERE model_id = %s "
                "AND content_hash = ANY(%s)", [model_id, wanted]):
            arr = np.asarray(vec, dtype=np.float32)
            if arr.shape != (dim,):  # pragma: no cover - corruption guard
                raise MemmaintError(f"corrupt cached vector for {h} ({model_id})")
            out[h] = arr
        return out

    def put_embeddings(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Cache vectors keyed by content hash, in one transaction (same checks as SQLite:
        1-D, finite, one dimension per model)."""
        if not vectors:
            return
        _text(model_id, "model id")
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
            rows.append((model_id, _text(h, "content hash"), arr.shape[0],
                         arr.astype(np.float64).tolist(), now))
        with self._write() as conn:
            row = conn.execute("SELECT dim FROM embeddings WHERE model_id = %s LIMIT 1",
                               (model_id,)).fetchone()
            if row is not None:
                dims.add(int(row[0]))
            if len(dims) > 1:
                raise InputError(f"embeddings for model {model_id!r} have different "
                                 f"dimensions: {sorted(dims)}")
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO embeddings (model_id, content_hash, dim, vector, created_at) "
                    "VALUES (%s, %s, %s, %s::real[], %s) ON CONFLICT (model_id, content_hash) "
                    "DO UPDATE SET dim = excluded.dim, vector = excluded.vector, "
                    "created_at = excluded.created_at", rows)

    # -- provenance -------------------------------------------------------------------------
    def events(self, *, run_id: str | None = None, memory_id: str | None = None,
               namespace: str | None = None) -> list[Event]:
        """Events in write order, filtered by run, by memory id (in ``memory_ids``),
        by namespace, or any combination (filters are ANDed)."""
        where, params = ["TRUE"], []
        if run_id is not None:
            where.append("run_id = %s")
            params.append(run_id)
        if namespace is not None:
            where.append("namespace = %s")
            params.append(namespace)
        if memory_id is not None:
            where.append("memory_ids @> ARRAY[%s]::text[]")
            params.append(memory_id)
        rows = self._read(
            "SELECT seq, run_id, time, action, namespace, memory_ids, before, after, reason, "
            f"agent FROM events WHERE {' AND '.join(where)} ORDER BY seq", params)
        return [
            Event(run_id=r[1], time=to_utc(r[2]), action=r[3], namespace=r[4],
                  memory_ids=tuple(r[5]), before=tuple(r[6]), after=tuple(r[7]),
                  reason=r[8], agent=r[9], seq=int(r[0]))
            for r in rows
        ]

    # -- runs -------------------------------------------------------------------------------
    def save_run(self, run: RunRecord) -> None:
        """Insert or replace a run record (a replaced run keeps its place in the list)."""
        row = (_text(run.run_id, "run id"), to_utc(run.started_at),
               None if run.finished_at is None else to_utc(run.finished_at),
               _text(run.status, "run status"),
               _dump_json(list(run.namespaces), "run namespaces"),
               _dump_json(dict(run.report), f"report of run {run.run_id!r}"))
        with self._write() as conn:
            conn.execute(
                "INSERT INTO runs (run_id, started_at, finished_at, status, namespaces, report) "
                "VALUES (%s, %s, %s, %s, %s::json, %s::json) ON CONFLICT (run_id) DO UPDATE "
                "SET started_at = excluded.started_at, finished_at = excluded.finished_at, "
                "status = excluded.status, namespaces = excluded.namespaces, "
                "report = excluded.report", row)

    def get_run(self, run_id: str) -> RunRecord:
        """``UnknownIdError`` when there is no such run."""
        rows = self._read("SELECT run_id, started_at, finished_at, status, namespaces, report "
                          "FROM runs WHERE run_id = %s", [run_id])
        if not rows:
            raise UnknownIdError(f"unknown run id {run_id!r}")
        return _row_run(rows[0])

    def list_runs(self, limit: int | None = None) -> list[RunRecord]:
        """Newest first (by ``started_at``, then by insertion)."""
        sql = ("SELECT run_id, started_at, finished_at, status, namespaces, report FROM runs "
               "ORDER BY started_at DESC, seq DESC")
        params: list[Any] = []
        if limit is not None:
            sql += " LIMIT %s"
            params.append(int(limit))
        return [_row_run(r) for r in self._read(sql, params)]

    # -- lock -------------------------------------------------------------------------------
    @contextmanager
    def lock(self, name: str = "run") -> Iterator[None]:
        """An exclusive, non-blocking, process-safe lock; ``LockHeldError`` if taken.

        A session-level ``pg_try_advisory_lock(schema key, name key)`` on a connection opened
        for the purpose (its ``application_name`` names the holder): another handle, process
        or machine is refused, and the server releases the lock when that connection ends,
        however the holder died. A second ``lock(name)`` on the same handle is refused too.
        """
        if not _LOCK_NAME.match(name):
            raise ValueError(f"invalid lock name {name!r}")
        with self._mutex:
            self._check_open()
            if name in self._held_locks:
                raise LockHeldError(f"the {name!r} lock on {_redact(self.url)} is held "
                                    "by this process")
            self._held_locks.add(name)
        try:
            conn = self._connect(f"memmaint lock {name} pid {os.getpid()}")
            try:
                key = (self._lock_class, _int4(name))
                got = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", key).fetchone()[0]
                if not got:
                    holder = self._lock_holder(conn, key)
                    raise LockHeldError(f"another memmaint run holds the {name!r} lock on "
                                        f"{_redact(self.url)}" + (f" ({holder})" if holder
                                                                  else ""))
                try:
                    yield
                finally:
                    # release it before closing: a closed connection's session locks go only
                    # when the server gets round to ending the backend, and a lock taken
                    # right after this block could still find them held
                    try:
                        conn.execute("SELECT pg_advisory_unlock(%s, %s)", key)
                    except self._psycopg.Error:  # the connection died: the server frees it
                        pass
            finally:
                conn.close()
        finally:
            with self._mutex:
                self._held_locks.discard(name)

    def _lock_holder(self, conn: Any, key: tuple[int, int]) -> str:
        """Who holds an advisory lock, best effort: ``memmaint lock run pid 123 on host``."""
        try:
            row = conn.execute(
                "SELECT a.application_name, host(a.client_addr), a.backend_start "
                "FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
                "AND l.classid = %s::bigint::oid AND l.objid = %s::bigint::oid "
                "AND l.database = (SELECT oid FROM pg_database "
                "WHERE datname = current_database())",
                (key[0] & 0xFFFFFFFF, key[1] & 0xFFFFFFFF)).fetchone()
        except self._psycopg.Error:  # pragma: no cover - permissions on pg_stat_activity
            return ""
        if row is None:
            return ""
        app, addr, since = row
        where = f" from {addr}" if addr else ""
        return f"{app or 'unknown client'}{where} since {to_utc(since).isoformat()}"


class PostgresTransaction:
    """Writes inside one open :meth:`PostgresStore.transaction` (a ``StoreTransaction``)."""

    def __init__(self, conn: Any, psycopg: Any) -> None:
        self._conn: Any = conn
        self._psycopg = psycopg

    def _c(self) -> Any:
        if self._conn is None:
            raise MemmaintError("transaction is closed")
        return self._conn

    def insert(self, memory: Memory) -> None:
        """Add a new memory; raises ``DuplicateIdError`` if its (namespace, id) exists."""
        _insert(self._c(), [memory], [_memory_row(memory)], self._psycopg)

    def _overwrite(self, memory: Memory, expected_version: int) -> None:
        row = _memory_row(memory)
        conn = self._c()
        cur = conn.execute(_WRITE_MEMORY, (*row[2:], memory.namespace, memory.id,
                                           expected_version))
        if cur.rowcount == 0:
            found = conn.execute("SELECT version FROM memories WHERE namespace = %s AND id = %s",
                                 (memory.namespace, memory.id)).fetchone()
            if found is None:
                raise UnknownIdError(f"unknown memory id in namespace {memory.namespace!r}: "
                                     f"{memory.id!r}")
            raise VersionConflict(memory.id, expected_version, int(found[0]))

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
        for name in ("run_id", "action", "namespace", "reason", "agent"):
            _text(getattr(event, name), f"event {name}")
        for mid in event.memory_ids:
            _text(mid, "event memory id")
        self._c().execute(
            "INSERT INTO events (run_id, time, action, namespace, memory_ids, before, after, "
            "reason, agent) VALUES (%s, %s, %s, %s, %s, %s::json, %s::json, %s, %s)",
            (event.run_id, to_utc(event.time), event.action, event.namespace,
             list(event.memory_ids),
             _dump_json([None if b is None else dict(b) for b in event.before], "event before"),
             _dump_json([None if a is None else dict(a) for a in event.after], "event after"),
             event.reason, event.agent))


def _insert(conn: Any, memories: Sequence[Memory], rows: Sequence[tuple[Any, ...]],
            psycopg: Any) -> None:
    """Insert rows inside the open transaction, naming every id that already exists."""
    by_ns: dict[str, list[str]] = {}
    for m in memories:
        by_ns.setdefault(m.namespace, []).append(m.id)
    existing: list[tuple[str, str]] = []
    for ns, ids in by_ns.items():
        existing += [(ns, r[0]) for r in conn.execute(
            "SELECT id FROM memories WHERE namespace = %s AND id = ANY(%s)", (ns, ids))]
    if existing:
        raise DuplicateIdError(_dupe_message(sorted(existing), "already exists"))
    try:
        with conn.transaction(), conn.cursor() as cur:  # a savepoint: a racing writer
            cur.executemany(_INSERT_MEMORY, rows)
    except psycopg.errors.UniqueViolation:
        raise DuplicateIdError("memory id already exists (written concurrently by another "
                               "client): " + ", ".join(f"{m.id!r}" for m in memories[:5])
                               ) from None


def _row_run(r: Sequence[Any]) -> RunRecord:
    return RunRecord(run_id=r[0], started_at=to_utc(r[1]),
                     finished_at=None if r[2] is None else to_utc(r[2]), status=r[3],
                     namespaces=tuple(r[4]), report=r[5])


__all__ = ["DEFAULT_SCHEMA", "MIGRATIONS", "SCHEMA_VERSION", "PostgresStore",
           "PostgresTransaction", "split_url"]
