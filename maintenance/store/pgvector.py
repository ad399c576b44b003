"""The pgvector connector: memories kept in an existing PostgreSQL table with a ``vector`` column.

URL (extra ``pgvector``: psycopg 3 and the ``pgvector`` package; the database needs the
pgvector extension)::

    pgvector://user:pass@host:5432/db?table=memories&id=id&text=content&embedding=embedding
        [&metadata=COL][&namespace=COL][&created_at=COL][&updated_at=COL][&schema=NAME]
        [&sslmode=...&sslrootcert=...&sslcert=...&sslkey=...&connect_timeout=...]
        [&model=EMBEDDER&dim=N][&sidecar=PATH]

``table`` is required; the columns default to ``id``, ``content`` and ``embedding``; the
schema to the ``search_path``. memmaint never creates, alters or drops the table: opening
checks it has the named columns with usable types (one :class:`UserError` listing all).

Mapping:

- namespace: the values of the ``namespace`` column (rows where it is NULL are not seen);
  without one the whole table is a single namespace named after the table, and writing to
  any other namespace is a :class:`StoreError`;
- ids: ``text``/``varchar`` ids are used as they are; ``uuid`` ids read in canonical lower
  case; integer ids read as decimal strings and are written back as integers (a record
  whose id is not a canonical integer cannot be stored there: :class:`StoreError`);
- metadata: the ``json``/``jsonb`` column (NULL reads as ``{}``; a value that is not an
  object reads as ``{"_pgvector_metadata": value}`` and is written back as that value).
  Without a metadata column only the reserved key below is kept; other keys are dropped
  with a warning;
- other columns of the table (not named in the URL, not generated) are never touched by an
  update, and are read into ``metadata["_pgvector_columns"]`` (their text form, or the JSON
  value for ``json``/``jsonb`` columns) so that a record written back after a delete (undo)
  gets them back exactly; a new record without that key gets the columns' defaults (with a
  list of such objects, as merging makes, the values they all agree on);
- ``created_at``/``updated_at`` (``timestamp``/``timestamptz``, read as UTC): written when
  the record carries them, else ``now()`` on insert and ``updated_at = now()`` on update.

Upsert, in one transaction: existing ``(namespace, id)`` rows are UPDATEd (named columns
only), new ones INSERTed (``OVERRIDING SYSTEM VALUE``: identity columns restore too).
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any
from urllib.parse import quote

import numpy as np

from memmaint.maintenance.core.errors import StoreError, UserError, require
from memmaint.maintenance.core.records import to_utc
from memmaint.maintenance.store.base import MemoryStore
from memmaint.maintenance.store.external import (
    ConnectorURL,
    ExternalRecord,
    default_sidecar,
    redact,
)

logger = logging.getLogger(__name__)

COLUMNS_KEY = "_pgvector_columns"
VALUE_KEY = "_pgvector_metadata"
_ROLES = ("id", "text", "embedding", "metadata", "namespace", "created_at", "updated_at")
_DEFAULTS = {"id": "id", "text": "content", "embedding": "embedding"}
_LIBPQ = ("sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout")
KNOWN_PARAMS = ("table", "schema", "dim", *_ROLES, *_LIBPQ)  # dim: the mirror's embedder
_INT_TYPES = {"int2", "int4", "int8"}
_KEY_TYPES = {"text", "varchar", "uuid"} | _INT_TYPES
_ALLOWED = {"id": _KEY_TYPES, "namespace": _KEY_TYPES,
            "text": {"text", "varchar", "citext"}, "embedding": {"vector"},
            "metadata": {"json", "jsonb"}, "created_at": {"timestamp", "timestamptz"},
            "updated_at": {"timestamp", "timestamptz"}}
_CANONICAL_INT = re.compile(r"^-?(0|[1-9][0-9]*)$")


def _dumps(value: Any) -> str:
    """JSON text where integral floats with an exponent (``1e+20``) are written in plain
    decimals (``100000000000000000000.0``): jsonb would read them back as integers."""
    floats: list[str] = []
    nonce = uuid.uuid4().hex  # so that no string of the metadata can look like a marker

    def walk(v: Any) -> Any:
        if isinstance(v, float) and math.isfinite(v) and "e" in repr(v) and v == int(v):
            floats.append(f"{int(v)}.0")
            return f"{nonce}:{len(floats) - 1}"
        if isinstance(v, Mapping):
            return {k: walk(x) for k, x in v.items()}
        return [walk(x) for x in v] if isinstance(v, (list, tuple)) else v

    text = json.dumps(walk(value), ensure_ascii=False, allow_nan=False)
    return re.sub(f'"{nonce}:([0-9]+)"', lambda m: floats[int(m[1])], text) if floats else text


def _columns(value: Any) -> dict[str, Any]:
    """A record's ``_pgvector_columns`` object; for a list of them (what merging makes of
    differing values), the values they all agree on."""
    if isinstance(value, Mapping):
        return dict(value)
    found = [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else [{}]
    return {k: v for k, v in found[0].items() if all(k in d and d[k] == v for d in found)}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class PgvectorBackend:
    """An :class:`~memmaint.maintenance.store.external.ExternalBackend` over one existing
    table with a pgvector column (see the module docstring for the URL and the mapping)."""

    system = "pgvector"
    embeds_itself = False

    def __init__(self, url: str, *, parsed: ConnectorURL | None = None,
                 connect_timeout: int = 10) -> None:
        self._psycopg = require("psycopg", "pgvector")
        self._sql = require("psycopg.sql", "pgvector")
        self._json = require("psycopg.types.json", "pgvector")
        register_vector = require("pgvector.psycopg", "pgvector").register_vector
        p = parsed or ConnectorURL.parse(url, known=KNOWN_PARAMS)
        self.url = redact(url)
        self.vector_model: str | None = p.params.get("model") or None
        self.table = p.require("table", "the table holding the memories")
        self.schema = p.params.get("schema") or None
        self.cols: dict[str, str] = {r: c for r in _ROLES
                                     if (c := p.params.get(r) or _DEFAULTS.get(r, ""))}
        libpq = {k: p.params[k] for k in _LIBPQ if p.params.get(k)}
        libpq.setdefault("connect_timeout", str(connect_timeout))
        conninfo = f"postgresql://{p.netloc}{quote(p.path)}"
        self._mutex = threading.RLock()
        try:  # connect, then check the table: one clear line for every failure
            self._conn = self._psycopg.connect(conninfo, autocommit=True,
                                               application_name="memmaint", **libpq)
        except self._psycopg.Error as exc:
            raise UserError(f"cannot connect to {self.url}: {_first_line(exc)}") from None
        step = "reading the table's layout"
        try:
            self._conn.execute("SET TIME ZONE 'UTC'")
            self._inspect()
            step = "loading the pgvector extension's types"
            register_vector(self._conn)
        except self._psycopg.Error as exc:
            self._conn.close()
            raise UserError(f"{self.url}: {step} failed: {_first_line(exc)}") from None
        except BaseException:
            self._conn.close()
            raise

    def _inspect(self) -> None:
        """Resolve the table and check the named columns, raising one UserError."""
        found = self._conn.execute(
            "SELECT c.oid, n.nspname, c.relkind FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE c.oid = to_regclass(CASE WHEN %s::text IS NULL "
            "THEN quote_ident(%s) ELSE quote_ident(%s) || '.' || quote_ident(%s) END)",
            (self.schema, self.table, self.schema, self.table)).fetchone()
        where = f"{self.schema}.{self.table}" if self.schema else self.table
        if found is None or found[2] not in ("r", "p"):
            what = "not found" if found is None else "not a table"
            raise UserError(f"{self.url}: table {where!r} {what} (memmaint never creates the "
                            "table; check ?table= and ?schema=)")
        oid, self.schema = found[0], found[1]
        rows = self._conn.execute(
            "SELECT a.attname, t.typname, a.attgenerated FROM pg_attribute a JOIN pg_type t "
            "ON t.oid = a.atttypid WHERE a.attrelid = %s AND a.attnum > 0 AND NOT "
            "a.attisdropped ORDER BY a.attnum", (oid,)).fetchall()
        types = {name: typ for name, typ, _ in rows}
        problems = [f"no column {col!r} (?{role}=)" if col not in types else
                    f"column {col!r} (?{role}=) is {types[col]}, not one of "
                    f"{', '.join(sorted(_ALLOWED[role]))}" for role, col in self.cols.items()
                    if types.get(col) not in _ALLOWED[role]]
        twice = {c for c in self.cols.values() if list(self.cols.values()).count(c) > 1}
        problems += [f"column {c!r} is named for two roles" for c in sorted(twice)]
        if problems:
            raise UserError(f"{self.url}: table {self.schema}.{self.table}: "
                            f"{'; '.join(problems)} (its columns: {', '.join(types)})")
        self._types = {role: types[col] for role, col in self.cols.items()}
        named = set(self.cols.values())
        self.extra = [(n, t in ("json", "jsonb")) for n, t, gen in rows
                      if n not in named and not gen]
        self.ident = self._sql.Identifier(self.schema, self.table)

    def _id(self, role: str, value: str) -> Any:
        """``value`` as the Python value for the ``role`` column, or None if it cannot be."""
        typ = self._types[role]
        if typ in _INT_TYPES:
            return int(value) if _CANONICAL_INT.match(value) else None
        if typ != "uuid":
            return value
        try:
            return uuid.UUID(value) if str(uuid.UUID(value)) == value else None
        except ValueError:
            return None

    def _where(self, namespace: str) -> tuple[Any, list[Any]] | None:
        """SQL selecting ``namespace``, and its arguments; None if the table cannot hold it."""
        sql = self._sql
        if "namespace" not in self.cols:
            return (sql.SQL("TRUE"), []) if namespace == self.table else None
        value = self._id("namespace", namespace)
        return None if value is None else (
            sql.SQL("{} = %s").format(sql.Identifier(self.cols["namespace"])), [value])

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        with self._mutex:
            try:
                yield
            except (self._psycopg.Error, ValueError, TypeError) as exc:  # bad JSON too
                raise StoreError(f"{self.url}: {what} failed: {_first_line(exc)}") from None

    def _select(self, namespace: str, ids: Sequence[Any] | None,
                vectors: bool = True) -> list[ExternalRecord]:
        sql, found = self._sql, self._where(namespace)
        if found is None or ids == []:
            return []
        cols = [sql.SQL("NULL") if r == "embedding" and not vectors
                else sql.Identifier(self.cols[r]) for r in _ROLES
                if r in self.cols and r != "namespace"]
        cols += [sql.Identifier(n) if is_json else sql.SQL("{}::text").format(sql.Identifier(n))
                 for n, is_json in self.extra]
        where, args = found
        if ids is not None:
            where = sql.SQL("{} AND {} = ANY(%s)").format(where, sql.Identifier(self.cols["id"]))
            args.append(list(ids))
        query = sql.SQL("SELECT {} FROM {} WHERE {} ORDER BY {}").format(
            sql.SQL(", ").join(cols), self.ident, where, sql.Identifier(self.cols["id"]))
        with self._errors(f"reading {namespace!r}"):
            rows = self._conn.execute(query, args).fetchall()
        return [self._record(row) for row in rows]

    def _record(self, row: Sequence[Any]) -> ExternalRecord:
        values = dict(zip([r for r in _ROLES if r in self.cols and r != "namespace"], row))
        meta: dict[str, Any] = {}
        if "metadata" in self.cols:
            raw = values["metadata"]
            meta = dict(raw) if isinstance(raw, dict) else {} if raw is None else {VALUE_KEY: raw}
        if self.extra:
            extras = row[len(values):]
            meta[COLUMNS_KEY] = {n: v for (n, _), v in zip(self.extra, extras)}
        vector = values["embedding"]  # a pgvector ``Vector`` (or None)
        if vector is not None and hasattr(vector, "to_numpy"):
            vector = vector.to_numpy()
        stamps = {k: to_utc(values[k]) if isinstance(values.get(k), datetime) else None
                  for k in ("created_at", "updated_at")}
        return ExternalRecord(
            id=str(values["id"]), text=values["text"] or "", metadata=meta,
            vector=None if vector is None else np.asarray(vector, dtype=np.float32),
            **stamps)

    def _metadata(self, record: ExternalRecord) -> Any:
        meta = {k: v for k, v in record.metadata.items() if k != COLUMNS_KEY}
        if "metadata" not in self.cols:
            if meta:
                logger.warning("%s: table %s.%s has no metadata column; dropped metadata keys"
                               " %s of %r", self.url, self.schema, self.table, sorted(meta),
                               record.id)
            return None
        value: Any = meta[VALUE_KEY] if set(meta) == {VALUE_KEY} else meta
        wrap = self._json.Jsonb if self._types["metadata"] == "jsonb" else self._json.Json
        return wrap(value, dumps=_dumps)

    def namespaces(self) -> list[str]:
        """The namespace column's distinct values, or ``[table]`` without one."""
        if "namespace" not in self.cols:
            return [self.table]
        sql = self._sql
        col = sql.Identifier(self.cols["namespace"])
        query = sql.SQL("SELECT DISTINCT {} FROM {} WHERE {} IS NOT NULL").format(
            col, self.ident, col)
        with self._errors("listing namespaces"):
            rows = self._conn.execute(query).fetchall()
        return sorted(str(r[0]) for r in rows)

    lists_without_vectors = True  # read_all(vectors=False): see ExternalBackend.read_all

    def read_all(self, namespace: str, vectors: bool = True) -> list[ExternalRecord]:
        """Every row of ``namespace``, ordered by id, with vectors unless ``vectors`` is
        False."""
        return self._select(namespace, None, vectors)

    def read(self, namespace: str, ids: Sequence[str]) -> dict[str, ExternalRecord]:
        """The rows of ``namespace`` with these ids (ids that cannot exist are absent)."""
        keys = [k for k in (self._id("id", i) for i in ids) if k is not None]
        return {r.id: r for r in self._select(namespace, keys)}

    def upsert(self, namespace: str, records: Sequence[ExternalRecord]) -> None:
        """UPDATE the rows that exist (named columns only), INSERT the others; one
        transaction. Raises :class:`StoreError` for an id or namespace the table's column
        types cannot hold, a namespace the table does not have, or a database error."""
        found = self._where(namespace)
        if found is None and "namespace" not in self.cols:
            raise StoreError(f"{self.url}: table {self.schema}.{self.table} has no namespace "
                             f"column, so its one namespace is {self.table!r}, not "
                             f"{namespace!r}")
        if found is None:
            raise StoreError(f"{self.url}: namespace {namespace!r} cannot be stored in column "
                             f"{self.cols['namespace']!r} ({self._types['namespace']})")
        if not records:
            return
        latest: dict[Any, ExternalRecord] = {}
        for record in records:
            key = self._id("id", record.id)
            if key is None:
                raise StoreError(
                    f"{self.url}: record id {record.id!r} cannot be stored in column "
                    f"{self.cols['id']!r} of {self.schema}.{self.table} "
                    f"({self._types['id']}): the pgvector connector writes new records "
                    "there only with ids of that type")
            latest[key] = record
        sql = self._sql
        c = {r: sql.Identifier(n) for r, n in self.cols.items()}
        where, ns_args = found
        find = sql.SQL("SELECT {} FROM {} WHERE {} AND {} = ANY(%s)").format(
            c["id"], self.ident, where, c["id"])
        with self._errors(f"writing {len(latest)} record(s) to {namespace!r}"), \
                self._conn.transaction():
            existing = {row[0] for row in
                        self._conn.execute(find, [*ns_args, list(latest)]).fetchall()}
            updates = [self._args(r) + [*ns_args, k]
                       for k, r in latest.items() if k in existing]
            if updates:
                with self._conn.cursor() as cur:
                    cur.executemany(self._update_sql(c, where), updates)
            groups: dict[tuple[str, ...], list[list[Any]]] = {}
            for key, record in latest.items():
                if key not in existing:
                    extras = _columns(record.metadata.get(COLUMNS_KEY))
                    names = tuple(n for n, _ in self.extra if n in extras)
                    groups.setdefault(names, []).append(
                        [key, *ns_args, *self._args(record),
                         _dumps({n: extras[n] for n in names})])
            for names, rows in groups.items():
                with self._conn.cursor() as cur:
                    cur.executemany(self._insert_sql(c, names), rows)

    def _update_sql(self, c: Mapping[str, Any], where: Any) -> Any:
        sql = self._sql
        sets = [sql.SQL("{} = %s").format(c["text"]), sql.SQL("{} = %s").format(c["embedding"])]
        sets += [sql.SQL("{} = %s").format(c["metadata"])] if "metadata" in c else []
        sets += [sql.SQL("{} = COALESCE(%s, {})").format(c[k], c[k] if k == "created_at" else
                                                        sql.SQL("now()"))
                 for k in ("created_at", "updated_at") if k in c]
        return sql.SQL("UPDATE {} SET {} WHERE {} AND {} = %s").format(
            self.ident, sql.SQL(", ").join(sets), where, c["id"])

    def _args(self, record: ExternalRecord) -> list[Any]:
        """Values of the named columns after id and namespace, in ``_ROLES`` order."""
        meta = self._metadata(record)
        vector = None if record.vector is None else np.asarray(record.vector, np.float32)
        args: list[Any] = [record.text, vector] + ([meta] if "metadata" in self.cols else [])
        return args + [getattr(record, k) for k in ("created_at", "updated_at")
                       if k in self.cols]

    def _insert_sql(self, c: Mapping[str, Any], names: tuple[str, ...]) -> Any:
        sql = self._sql
        roles = ["id", "namespace", "text", "embedding", "metadata", "created_at", "updated_at"]
        targets = [c[r] for r in roles if r in c] + [sql.Identifier(n) for n in names]
        values = [sql.SQL("%s") for r in roles[:5] if r in c]
        values += [sql.SQL("COALESCE(%s, now())") for r in roles[5:] if r in c]
        values += [sql.SQL("r.{}").format(sql.Identifier(n)) for n in names]
        return sql.SQL("INSERT INTO {} ({}) OVERRIDING SYSTEM VALUE SELECT {} FROM "
                       "json_populate_record(NULL::{}, %s::json) AS r").format(
            self.ident, sql.SQL(", ").join(targets), sql.SQL(", ").join(values), self.ident)

    def delete(self, namespace: str, ids: Sequence[str]) -> None:
        """DELETE these rows of ``namespace``; ids that do not exist are ignored."""
        keys = [k for k in (self._id("id", i) for i in ids) if k is not None]
        sql, found = self._sql, self._where(namespace)
        if not keys or found is None:
            return
        where, args = found
        query = sql.SQL("DELETE FROM {} WHERE {} AND {} = ANY(%s)").format(
            self.ident, where, sql.Identifier(self.cols["id"]))
        with self._errors(f"deleting {len(keys)} record(s) from {namespace!r}"):
            self._conn.execute(query, [*args, keys])

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._conn.close()


def open_url(url: str, *, create: bool) -> MemoryStore:
    """Open ``pgvector://...`` as a memmaint store (the table must exist, whatever
    ``create`` says; ``create`` is about the sidecar)."""
    parsed = ConnectorURL.parse(url, known=KNOWN_PARAMS)
    backend = PgvectorBackend(url, parsed=parsed)
    try:
        from memmaint.maintenance.store.mirror import ExternalStore

        return ExternalStore(backend, default_sidecar(parsed, None), create=create)
    except BaseException:
        backend.close()
        raise


__all__ = ["COLUMNS_KEY", "KNOWN_PARAMS", "VALUE_KEY", "PgvectorBackend", "open_url"]
