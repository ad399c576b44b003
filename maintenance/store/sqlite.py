"""The embedded default store: one SQLite file (stdlib :mod:`sqlite3`) in WAL mode.

Layout (schema version 2):

- ``schema_version(version)``: one row; :data:`MIGRATIONS` brings older files forward.
- ``memories``: one row per ``(namespace, id)`` with every :class:`Memory` field
  (``metadata`` as JSON text, timestamps as fixed-width ISO-8601 UTC text so that text order
  is time order) plus ``content_hash`` (the embedding cache key) and ``seq``, the store's
  change sequence number of the row's last insert or content write.
- ``change_seq(value)``: one row, the last change sequence number handed out.
- ``embeddings``: float32 little-endian vectors keyed by ``(model_id, content_hash)``.
- ``events`` (append-only, ``seq`` autoincrement) and ``event_memories`` (which memory ids an
  event touches, for the ``memory_id`` filter).
- ``runs``: one row per run.

Every write runs inside ``BEGIN IMMEDIATE`` ... ``COMMIT`` (or a savepoint when a
transaction is already open), so a failing batch leaves the file unchanged. The run lock is
``fcntl.flock`` on the sidecar file ``<db>.lock`` (``<db>.<name>.lock`` for other names): it is
exclusive, never blocks, and the kernel releases it when the holding process dies.

SQLite's run-time failures (the disk is full, an I/O error, a damaged file) reach callers as
one :class:`~memmaint.maintenance.core.errors.StoreError` naming the store and SQLite's own
cause (``database or disk is full``); the write is rolled back first, and a rollback that
cannot run (SQLite may already have ended the transaction) never hides that cause.
``max_pages`` (or the environment variable ``MEMMAINT_SQLITE_MAX_PAGES``) caps the file at
that many pages with ``PRAGMA max_page_count``: the store is then full at a chosen size,
which is how the tests make a disk full.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.maintenance.core.errors import (
    DuplicateIdError,
    LockHeldError,
    MemmaintError,
    StoreError,
    UserError,
)
from memmaint.maintenance.core.records import Memory, to_utc, utcnow
from memmaint.maintenance.store._dialect import (
    BUMP_SEQ,
    SELECT_MEMORY,
    Dialect,
    check_lock_name,
    chunks,
    dump_json,
    dupe_message,
    existing_keys,
)
from memmaint.maintenance.store._sql import SQLStore, SQLTransaction
from memmaint.maintenance.store.base import Event

logger = logging.getLogger(__name__)

#: a lookup of at least this many cached vectors first reads the file front to back ...
PREFETCH_MIN_ROWS = 2048
#: ... when the file holds at most this many bytes per row asked for: beyond, reading what
#: else it holds (old run reports, events) in order would cost more than the seeks it saves
#: (a 90,000-row nightly lookup waited 27 s on seeks on the development VM, where 27 s read
#: 6.3 GB in order: break-even near 70 kB a row; the cap keeps under half of that)
PREFETCH_MAX_BYTES_PER_ROW = 32 * 1024


def prefetch_file(path: str | os.PathLike[str], max_bytes: int) -> int:
    """Read a file front to back (into the OS page cache) if it is at most ``max_bytes``
    long; returns the bytes read (0: too large or unreadable; never raises).

    The embedding cache is keyed by content hash, so its rows lie in the file in hash
    order, which is random: looking up most of them visits the pages in random order, and
    after the file has left the page cache (a nightly job, a day idle) each page is a disk
    seek. On the development VM that was 27 s of a 140 s nightly run at 100k memories
    against 2.5-6 s to read the whole 585 MB file in order (234 MB/s sequential, 2,400
    random 4 kB reads a second); when the file is cached, the read costs a memory copy.
    (Listing memories reads rows in about the order they were written: no read-ahead
    there, it would cost more than it saves.)
    """
    try:
        with open(path, "rb", buffering=0) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > max_bytes:
                return 0
            if hasattr(os, "posix_fadvise"):
                os.posix_fadvise(fh.fileno(), 0, 0, os.POSIX_FADV_SEQUENTIAL)
            buf = bytearray(8 << 20)
            done = 0
            while True:
                got = fh.readinto(buf)
                if not got:
                    return done
                done += got
    except OSError as exc:
        logger.debug("could not read %s ahead: %s", path, exc)
        return 0

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
    (  # 2: the change sequence (existing rows numbered in the order they were written)
        "ALTER TABLE memories ADD COLUMN seq INTEGER NOT NULL DEFAULT 0",
        "UPDATE memories SET seq = rowid",
        "CREATE INDEX memories_seq ON memories (namespace, seq)",
        "CREATE TABLE change_seq (value INTEGER NOT NULL)",
        "INSERT INTO change_seq (value) SELECT COALESCE(MAX(seq), 0) FROM memories",
    ),
    (  # 3: the serve history (issue #37): which query each use recorded with one was for
        """CREATE TABLE serves (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            memory_id TEXT NOT NULL,
            query TEXT NOT NULL,
            success INTEGER,
            time TEXT NOT NULL
        )""",
        "CREATE INDEX serves_memory ON serves (namespace, memory_id)",
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)

_CHUNK = 500  # ids per IN (...) query, well under SQLite's variable limit
MAX_PAGES_ENV = "MEMMAINT_SQLITE_MAX_PAGES"


def _is_runtime_failure(exc: BaseException) -> bool:
    """SQLite errors that are the environment's fault (full, I/O, damaged), not the code's."""
    return isinstance(exc, sqlite3.OperationalError) or type(exc) is sqlite3.DatabaseError


def store_error(exc: sqlite3.Error, url: str, action: str = "write to") -> StoreError:
    """A one-line :class:`StoreError` naming the store and SQLite's cause."""
    cause = str(exc) or type(exc).__name__
    if getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL" or "is full" in cause:
        return StoreError(f"cannot {action} store {url}: {cause} (the failed write was "
                          "rolled back)")
    return StoreError(f"cannot {action} store {url}: {cause}")


def _ts(value: datetime | None) -> str | None:
    """Fixed-width ISO-8601 UTC text: lexical order equals time order."""
    return None if value is None else to_utc(value).isoformat(timespec="microseconds")


class SQLiteDialect(Dialect):
    """``?`` parameters, timestamps and JSON as text, vectors as float32 blobs."""

    param = "?"
    json_param = "?"
    true = "1"
    event_memory_filter = "seq IN (SELECT seq FROM event_memories WHERE memory_id = ?)"
    run_tiebreak = "rowid"
    ordered_scan_hint = " INDEXED BY memories_order"

    def encode_time(self, value: datetime | None) -> str | None:
        return _ts(value)

    def decode_json(self, value: Any) -> Any:
        return json.loads(value)

    def encode_memory_ids(self, ids: Sequence[str]) -> str:
        return dump_json(list(ids), "event memory_ids")

    def decode_vector(self, value: Any) -> np.ndarray:
        return np.frombuffer(value, dtype="<f4").astype(np.float32)

    def in_batches(self, column: str, values: Sequence[Any]) -> Iterator[tuple[str, list[Any]]]:
        for chunk in chunks(values, _CHUNK):
            yield f"{column} IN ({self.placeholders(len(chunk))})", list(chunk)

    def status_filter(self, values: list[str]) -> tuple[str, list[Any]]:
        if not values:
            return "0", []
        return f"status IN ({self.placeholders(len(values))})", values


SQLITE = SQLiteDialect()


class SQLiteStore(SQLStore["SQLiteTransaction"]):
    """A :class:`~memmaint.maintenance.store.base.MemoryStore` in one SQLite file.

    Args:
        path: the database file, or ``":memory:"`` for a private in-memory store (tests).
        create: create (and initialise) the file when it does not exist; with ``False`` a
            missing file is a :class:`UserError` naming the path.
        timeout: seconds a writer waits for another process's write transaction.
        max_pages: cap the file at this many pages (``PRAGMA max_page_count``; default
            from ``MEMMAINT_SQLITE_MAX_PAGES``, else no cap): writes past it fail as if the
            disk were full.

    A store object may be shared between threads (calls are serialised); each process
    should open its own.
    """

    dialect = SQLITE

    def __init__(self, path: str | os.PathLike[str], create: bool = True, *,
                 timeout: float = 30.0, max_pages: int | None = None) -> None:
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
        if max_pages is None and os.environ.get(MAX_PAGES_ENV, "").strip():
            try:
                max_pages = int(os.environ[MAX_PAGES_ENV])
            except ValueError:
                self._conn.close()
                raise UserError(f"{MAX_PAGES_ENV} must be a whole number of pages") from None
        self._max_pages = max_pages
        try:
            self._open()
        except sqlite3.Error as exc:
            self._conn.close()
            if _is_runtime_failure(exc):
                raise store_error(exc, self.url, "open") from None
            raise
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
        if self._max_pages is not None:
            conn.execute(f"PRAGMA max_page_count = {int(self._max_pages)}")
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

    # -- low-level helpers ------------------------------------------------------------------
    def _before_bulk_read(self, rows: int) -> None:
        """Read the file ahead of a lookup of many cached vectors (see ``prefetch_file``)."""
        if self.path is None or rows < PREFETCH_MIN_ROWS:
            return
        done = prefetch_file(self.path, rows * PREFETCH_MAX_BYTES_PER_ROW)
        if done:
            logger.debug("read %s ahead (%.0f MB) for %d rows", self.url, done / 1e6, rows)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._mutex:
            self._check_open()
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                if _is_runtime_failure(exc):
                    raise store_error(exc, self.url, "read") from None
                raise

    def _undo(self, *statements: str) -> None:
        """Run rollback statements if a transaction is still open. SQLite may have ended it
        already (a full disk rolls back on its own); a rollback that fails is logged, never
        raised, so the error that caused it is the one the caller sees."""
        for sql in statements:
            if not self._conn.in_transaction:
                return
            try:
                self._conn.execute(sql)
            except sqlite3.Error as exc:
                logger.warning("%s on %s failed: %s", sql.split()[0], self.url, exc)
                return

    def _failed(self, exc: BaseException) -> BaseException | None:
        """The error to raise instead of ``exc`` (None: raise ``exc`` itself)."""
        if isinstance(exc, sqlite3.Error) and _is_runtime_failure(exc):
            return store_error(exc, self.url)
        return None

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of one read-only SQL statement on the store's file, for a component keeping
        its own tables there (the connectors' sidecar, ``store.mirror``)."""
        return self._read(sql, params)

    def write_connection(self) -> AbstractContextManager[sqlite3.Connection]:
        """One atomic write on the store's connection (a transaction, or a savepoint inside
        an open one, such as :meth:`transaction`'s), for a component keeping its own tables
        in the store's file."""
        return self._write()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: a transaction, or a savepoint inside an open one."""
        with self._mutex:
            self._check_open()
            conn = self._conn
            if conn.in_transaction:
                self._savepoints += 1
                name = f"sp{self._savepoints}"
                try:
                    conn.execute(f"SAVEPOINT {name}")
                    try:
                        yield conn
                    except BaseException as exc:
                        self._undo(f"ROLLBACK TO {name}", f"RELEASE {name}")
                        translated = self._failed(exc)
                        if translated is not None:
                            raise translated from None
                        raise
                    try:
                        conn.execute(f"RELEASE {name}")
                    except sqlite3.Error as exc:
                        self._undo(f"ROLLBACK TO {name}", f"RELEASE {name}")
                        raise self._failed(exc) or exc from None
                finally:
                    self._savepoints -= 1
                return
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    raise MemmaintError(f"store {self.url} is busy: {exc}") from None
                raise store_error(exc, self.url) from None
            try:
                yield conn
            except BaseException as exc:
                self._undo("ROLLBACK")
                translated = self._failed(exc)
                if translated is not None:
                    raise translated from None
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:  # e.g. the disk filled up while writing the WAL
                self._undo("ROLLBACK")
                raise self._failed(exc) or exc from None

    # -- hooks of the shared SQL store -------------------------------------------------------
    def _transaction(self, conn: sqlite3.Connection) -> SQLiteTransaction:
        return SQLiteTransaction(conn)

    def _add(self, memories: Sequence[Memory]) -> None:
        with self._write() as tx:
            _insert(tx, memories)

    def _update_memory(self, conn: sqlite3.Connection, sql: str, params: Sequence[Any],
                       namespace: str, memory_id: str) -> Sequence[Any] | None:
        if conn.execute(sql, params).rowcount == 0:
            return None
        return conn.execute(f"{SELECT_MEMORY} WHERE namespace = ? AND id = ?",
                            (namespace, memory_id)).fetchone()

    def _embedding_counts(self) -> list[tuple[str, int, int]]:
        counts = []
        for model_id, n in self._read(
                "SELECT model_id, COUNT(*) FROM embeddings GROUP BY model_id ORDER BY model_id"):
            covered = self._read(
                "SELECT COUNT(*) FROM memories AS m WHERE m.status = 'active' AND EXISTS "
                "(SELECT 1 FROM embeddings AS e WHERE e.model_id = ? "
                "AND e.content_hash = m.content_hash)", [model_id])[0][0]
            counts.append((model_id, n, covered))
        return counts

    def _embedding_row(self, model_id: str, h: str, arr: np.ndarray,
                       now: datetime) -> tuple[Any, ...]:
        # each row is stamped as it is encoded (``now`` is the batch's start)
        return (model_id, h, arr.shape[0], arr.astype("<f4").tobytes(), _ts(utcnow()))

    def _upsert_embeddings(self, conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
        conn.executemany("INSERT OR REPLACE INTO embeddings "
                         "(model_id, content_hash, dim, vector, created_at) "
                         "VALUES (?, ?, ?, ?, ?)", rows)

    # -- lock -------------------------------------------------------------------------------
    @contextmanager
    def lock(self, name: str = "run") -> Iterator[None]:
        """An exclusive, non-blocking, process-safe lock; ``LockHeldError`` if taken.

        ``flock`` on ``<db>.lock`` (``<db>.<name>.lock`` for other names): held per open
        file, so a second handle in the same process is refused too, and released by the
        kernel if the holder dies. In-memory stores lock within the store object only.
        """
        check_lock_name(name)
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
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(f"cannot open the lock file {lock_path}: "
                             f"{exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
            os.close(fd)
            raise LockHeldError(f"another memmaint run holds the {name!r} lock on "
                                f"{self.url}" + (f" ({holder})" if holder else "")) from None
        try:
            try:  # who holds it, for the message of a refused second run (best effort:
                os.ftruncate(fd, 0)  # a full disk must not stop the run over a note)
                os.pwrite(fd, f"pid {os.getpid()} since {_ts(utcnow())}".encode(), 0)
            except OSError as exc:
                logger.debug("could not note the lock holder in %s: %s", lock_path, exc)
            yield
        finally:
            try:
                os.ftruncate(fd, 0)
            except OSError:
                pass
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)


class SQLiteTransaction(SQLTransaction):
    """Writes inside one open :meth:`SQLiteStore.transaction` (a ``StoreTransaction``)."""

    dialect = SQLITE

    def insert(self, memory: Memory) -> None:
        """Add a new memory; raises ``DuplicateIdError`` if its (namespace, id) exists."""
        _insert(self._c(), [memory])

    def _after_event(self, conn: sqlite3.Connection, cur: sqlite3.Cursor, event: Event) -> None:
        seq = cur.lastrowid
        conn.executemany("INSERT OR IGNORE INTO event_memories (seq, memory_id) VALUES (?, ?)",
                         [(seq, mid) for mid in dict.fromkeys(event.memory_ids)])


def _insert(conn: sqlite3.Connection, memories: Sequence[Memory]) -> None:
    rows = [SQLITE.memory_row(m) for m in memories]
    if not rows:
        return
    conn.execute(BUMP_SEQ)  # one sequence number for the batch
    try:
        conn.executemany(SQLITE.insert_memory_sql, rows)
    except sqlite3.IntegrityError:
        existing = existing_keys(conn, SQLITE, memories)
        raise DuplicateIdError(dupe_message(sorted(existing), "already exists")) from None


__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SQLiteDialect", "SQLiteStore", "SQLiteTransaction"]
