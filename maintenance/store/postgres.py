"""A :class:`~memmaint.maintenance.store.base.MemoryStore` in PostgreSQL (extra ``postgres``,
psycopg 3).

``PostgresStore("postgresql://user:pass@host:5432/dbname")`` keeps its tables in their own
PostgreSQL schema, ``memmaint`` unless the URL says otherwise with a ``schema`` query
parameter (``postgresql://host/db?schema=tenant_a``; the parameter is memmaint's, it is not
passed to libpq). Layout (schema version 2), the same tables as the SQLite store:

- ``schema_version(version)``: one row; :data:`MIGRATIONS` brings older schemas forward, under
  a transaction-level advisory lock so concurrent openers do not race.
- ``memories``: one row per ``(namespace, id)``; ``namespace`` and ``id`` use ``COLLATE "C"``
  so that ids compare by code point as in SQLite; timestamps are ``timestamptz``; metadata is
  ``json`` holding exactly the text the SQLite store writes (sorted keys); ``seq`` is the
  change sequence number of the row's last insert or content write, handed out by the
  one-row ``change_seq`` table (its row lock is held to commit, so writers of memories take
  numbers in commit order and a run never misses a change committed behind its back).
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

import logging
import os
import re
import threading
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np

from memmaint.maintenance.core.errors import (
    DuplicateIdError,
    InputError,
    LockHeldError,
    MemmaintError,
    UserError,
    require,
)
from memmaint.maintenance.core.records import Memory, to_utc
from memmaint.maintenance.core.urls import redact_url
from memmaint.maintenance.store._dialect import (
    BUMP_SEQ,
    MEMORY_COLUMNS,
    Dialect,
    check_lock_name,
    dupe_message,
    existing_keys,
)
from memmaint.maintenance.store._sql import SQLStore, SQLTransaction
from memmaint.maintenance.store.base import Event

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
    (  # 2: the change sequence (existing rows numbered by last write time)
        "ALTER TABLE memories ADD COLUMN seq BIGINT NOT NULL DEFAULT 0",
        ("UPDATE memories AS m SET seq = s.n FROM (SELECT namespace, id, row_number() OVER "
         "(ORDER BY updated_at, namespace, id) AS n FROM memories) AS s "
         "WHERE m.namespace = s.namespace AND m.id = s.id"),
        "CREATE INDEX memories_seq ON memories (namespace, seq)",
        "CREATE TABLE change_seq (value BIGINT NOT NULL)",
        "INSERT INTO change_seq (value) SELECT COALESCE(MAX(seq), 0) FROM memories",
    ),
    (  # 3: the serve history (issue #37): which query each use recorded with one was for
        """CREATE TABLE serves (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            namespace TEXT COLLATE "C" NOT NULL,
            memory_id TEXT COLLATE "C" NOT NULL,
            query TEXT NOT NULL,
            success SMALLINT,
            time TIMESTAMPTZ NOT NULL
        )""",
        "CREATE INDEX serves_memory ON serves (namespace, memory_id)",
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)
DEFAULT_SCHEMA = "memmaint"

_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def _int4(text: str) -> int:
    """A stable signed 32-bit key for an advisory lock."""
    value = zlib.crc32(text.encode("utf-8"))
    return value - (1 << 32) if value >= 1 << 31 else value


def _redact(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for messages and reprs)."""
    return redact_url(url)


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


def _text(value: str | None, what: str) -> str | None:
    if value is not None and "\x00" in value:
        raise InputError(f"{what} contains a NUL character, which PostgreSQL cannot store")
    return value


class PostgresDialect(Dialect):
    """``%s`` parameters, ``json`` and ``timestamptz`` columns, ``text[]`` memory ids, ``real[]``
    vectors, id lists as one ``= ANY(%s)`` array; text holding NUL is refused."""

    param = "%s"
    json_param = "%s::json"
    true = "TRUE"
    event_memory_filter = "memory_ids @> ARRAY[%s]::text[]"
    run_tiebreak = "seq"
    lock_row = " FOR UPDATE"

    def encode_time(self, value: datetime | None) -> datetime | None:
        return None if value is None else to_utc(value)

    def decode_json(self, value: Any) -> Any:
        return value  # psycopg decodes json columns (and text[] arrays)

    def encode_memory_ids(self, ids: Sequence[str]) -> list[str]:
        return list(ids)

    def decode_vector(self, value: Any) -> np.ndarray:
        return np.asarray(value, dtype=np.float32)

    def in_batches(self, column: str, values: Sequence[Any]) -> Iterator[tuple[str, list[Any]]]:
        if values:
            yield f"{column} = ANY(%s)", [list(values)]

    def status_filter(self, values: list[str]) -> tuple[str, list[Any]]:
        return "status = ANY(%s)", [values]

    def text(self, value: str | None, what: str) -> str | None:
        return _text(value, what)

    def check_memory(self, m: Memory) -> None:
        where = f"memory {m.id!r}"
        for name in ("id", "namespace", "text", "kind", "source", "replaced_by"):
            _text(getattr(m, name), f"{name} of {where}" if name != "id" else f"id {m.id!r}")

    def check_event(self, event: Event) -> None:
        for name in ("run_id", "action", "namespace", "reason", "agent"):
            _text(getattr(event, name), f"event {name}")
        for mid in event.memory_ids:
            _text(mid, "event memory id")


POSTGRES = PostgresDialect()


class PostgresStore(SQLStore["PostgresTransaction"]):
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

    dialect = POSTGRES

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

    def _label(self) -> str:
        return _redact(self.url)

    # -- low-level helpers ------------------------------------------------------------------
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

    # -- hooks of the shared SQL store -------------------------------------------------------
    def _transaction(self, conn: Any) -> PostgresTransaction:
        return PostgresTransaction(conn, self._psycopg)

    def _add(self, memories: Sequence[Memory]) -> None:
        if not memories:
            return
        rows = [POSTGRES.memory_row(m) for m in memories]
        with self._write() as conn:
            _insert(conn, memories, rows, self._psycopg)

    def _update_memory(self, conn: Any, sql: str, params: Sequence[Any], namespace: str,
                       memory_id: str) -> Sequence[Any] | None:
        row: Sequence[Any] | None = conn.execute(
            f"{sql} RETURNING {', '.join(MEMORY_COLUMNS)}", params).fetchone()
        return row

    def _embedding_counts(self) -> list[tuple[str, int, int]]:
        return [(model_id, n, covered) for model_id, n, covered in self._read(
            "SELECT e.model_id, COUNT(*), (SELECT COUNT(*) FROM memories AS m "
            "WHERE m.status = 'active' AND EXISTS (SELECT 1 FROM embeddings AS x "
            "WHERE x.model_id = e.model_id AND x.content_hash = m.content_hash)) "
            "FROM embeddings AS e GROUP BY e.model_id ORDER BY e.model_id")]

    def _embedding_row(self, model_id: str, h: str, arr: np.ndarray,
                       now: datetime) -> tuple[Any, ...]:
        return (model_id, _text(h, "content hash"), arr.shape[0],
                arr.astype(np.float64).tolist(), now)

    def _upsert_embeddings(self, conn: Any, rows: list[tuple[Any, ...]]) -> None:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO embeddings (model_id, content_hash, dim, vector, created_at) "
                "VALUES (%s, %s, %s, %s::real[], %s) ON CONFLICT (model_id, content_hash) "
                "DO UPDATE SET dim = excluded.dim, vector = excluded.vector, "
                "created_at = excluded.created_at", rows)

    # -- lock -------------------------------------------------------------------------------
    @contextmanager
    def lock(self, name: str = "run") -> Iterator[None]:
        """An exclusive, non-blocking, process-safe lock; ``LockHeldError`` if taken.

        A session-level ``pg_try_advisory_lock(schema key, name key)`` on a connection opened
        for the purpose (its ``application_name`` names the holder): another handle, process
        or machine is refused, and the server releases the lock when that connection ends,
        however the holder died. A second ``lock(name)`` on the same handle is refused too.
        """
        check_lock_name(name)
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


class PostgresTransaction(SQLTransaction):
    """Writes inside one open :meth:`PostgresStore.transaction` (a ``StoreTransaction``)."""

    dialect = POSTGRES

    def __init__(self, conn: Any, psycopg: Any) -> None:
        super().__init__(conn)
        self._psycopg = psycopg

    def insert(self, memory: Memory) -> None:
        """Add a new memory; raises ``DuplicateIdError`` if its (namespace, id) exists."""
        _insert(self._c(), [memory], [POSTGRES.memory_row(memory)], self._psycopg)


def _insert(conn: Any, memories: Sequence[Memory], rows: Sequence[tuple[Any, ...]],
            psycopg: Any) -> None:
    """Insert rows inside the open transaction, naming every id that already exists."""
    existing = existing_keys(conn, POSTGRES, memories)
    if existing:
        raise DuplicateIdError(dupe_message(sorted(existing), "already exists"))
    try:
        with conn.transaction(), conn.cursor() as cur:  # a savepoint: a racing writer
            cur.execute(BUMP_SEQ)  # one sequence number for the batch
            cur.executemany(POSTGRES.insert_memory_sql, rows)
    except psycopg.errors.UniqueViolation:
        raise DuplicateIdError("memory id already exists (written concurrently by another "
                               "client): " + ", ".join(f"{m.id!r}" for m in memories[:5])
                               ) from None


__all__ = ["DEFAULT_SCHEMA", "MIGRATIONS", "SCHEMA_VERSION", "PostgresDialect", "PostgresStore",
           "PostgresTransaction", "split_url"]
