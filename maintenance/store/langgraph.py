"""Connector for a LangGraph ``BaseStore`` (the store LangMem writes to): SQLite or PostgreSQL.

``langgraph+sqlite:///abs/store.db`` (``//rel/store.db`` and ``//~/store.db`` too) or
``langgraph+postgres://user:pw@host:5432/db`` (or ``langgraph+postgresql://``), with
``namespace`` (a prefix: that namespace and those under it; default all), ``text_key`` (below),
``embed``/``embed_dims``/``embed_fields`` (the store's index: a LangChain provider string such
as ``openai:text-embedding-3-small``, its size, the comma-separated fields it embeds),
``sslmode``/``connect_timeout`` (PostgreSQL) and the common ``model``, ``dim``, ``sidecar``.

Mapping: the LangGraph namespace ``("memories", "alice")`` is memmaint's ``"memories.alice"``;
an item's key is the record id; its value (a JSON object) holds the text at ``text_key`` (a
dotted path) and the rest of it is the metadata, written back exactly with the text in place.
Without ``text_key`` the text is ``value["content"]`` when a string (LangMem's memory tool),
else ``value["content"]["content"]`` (LangMem's manager: ``{"kind": "Memory", "content":
{"content": ...}}``, metadata ``{"kind": "Memory", "content": {}}``); an upsert puts it at
``content.content`` when the metadata's ``content`` is an object, else at ``content``. An item
with no text string there (a LangMem triple...) is refused: a ``UserError`` naming it.

What LangGraph cannot store exactly (NaN and infinite floats; integers beyond 64 bits in
SQLite; NUL or lone surrogates in strings or keys, ``-0.0`` and floats >= 1e16 in PostgreSQL's
jsonb; objects holding the key ``__memmaint_json__``) is written as ``{"__memmaint_json__":
"<JSON text>"}`` and decoded on read, so every metadata round-trips.

Vectors: LangGraph's API never returns stored embeddings, so records carry ``vector=None`` and
``upsert`` stores none: with an index (``embed=``, or ``index=`` in Python) ``put`` re-embeds
the item; without, the store keeps no vectors. So ``embeds_itself`` is True either way. The
timestamps are the store's; ``upsert`` puts each item's ``created_at`` back after ``put``
(which resets it); a rewrite drops TTLs.
"""

from __future__ import annotations

import copy
import json
import logging
import math
import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit, urlunsplit

from memmaint.maintenance.core.errors import MemmaintError, StoreError, UserError, require
from memmaint.maintenance.core.records import to_utc
from memmaint.maintenance.store.base import MemoryStore
from memmaint.maintenance.store.external import (
    ConnectorURL,
    ExternalRecord,
    default_sidecar,
    error_line,
    redact,
)

log = logging.getLogger(__name__)

SCHEMES = ("langgraph+sqlite", "langgraph+postgres", "langgraph+postgresql")
KNOWN_PARAMS = ("namespace", "text_key", "embed", "embed_dims", "embed_fields", "sslmode",
                "connect_timeout")
EXTRA = "langgraph"
TAG = "__memmaint_json__"
_CHUNK = 500  # items per batch: stays under SQLite's bound-parameter limit
_ALL = 2**62  # "no limit" for search()
# characters a store cannot keep in a string: (SQLite, PostgreSQL)
_ODD_CHARS = (re.compile("[\ud800-\udfff]"), re.compile("[\x00\ud800-\udfff]"))


# -- values ---------------------------------------------------------------------------------

def _odd_str(text: str, pg: bool) -> bool:
    return _ODD_CHARS[pg].search(text) is not None


def _odd_scalar(value: Any, pg: bool) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int):
        return not pg and not -(2**63) <= value < 2**64
    if isinstance(value, float):
        if not math.isfinite(value):
            return True
        return pg and (abs(value) >= 1e16 or (value == 0 and math.copysign(1, value) < 0))
    if isinstance(value, str):
        return _odd_str(value, pg)
    return False


def encode_value(value: Any, *, pg: bool) -> Any:
    """``value`` with every part the store cannot keep exactly replaced by ``{TAG: json}``."""
    if isinstance(value, Mapping):
        if TAG in value or any(_odd_str(str(k), pg) for k in value):
            return {TAG: json.dumps(value, ensure_ascii=True)}
        return {str(k): encode_value(v, pg=pg) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode_value(v, pg=pg) for v in value]
    if _odd_scalar(value, pg):
        return {TAG: json.dumps(value, ensure_ascii=True)}
    return value


def decode_value(value: Any) -> Any:
    """Undo :func:`encode_value`."""
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get(TAG), str):
            try:
                return json.loads(value[TAG])
            except ValueError:
                return value
        return {k: decode_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    return value


def _dotted(value: str, what: str) -> tuple[str, ...]:
    parts = tuple(value.split("."))
    if not all(parts):
        raise UserError(f"bad {what} {value!r}: names joined by '.', none empty")
    return parts


def split_text(value: Mapping[str, Any], path: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
    """(what is at ``path`` or None, a copy of ``value`` without it)."""
    rest = copy.deepcopy(dict(value))
    node: Any = rest
    for part in path[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict) or path[-1] not in node:
        return None, rest
    return node.pop(path[-1]), rest


def join_text(text: str, metadata: Mapping[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """``metadata`` with ``text`` put at ``path`` (missing objects on the way are created)."""
    value = copy.deepcopy(dict(metadata))
    node = value
    for part in path[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise UserError(f"cannot put the text at {'.'.join(path)!r}: metadata key "
                            f"{part!r} holds a {type(node).__name__}, not an object")
    if path[-1] in node:
        raise UserError(f"metadata already has {'.'.join(path)!r}, where the text goes")
    node[path[-1]] = text
    return value


# -- the backend ----------------------------------------------------------------------------

class LangGraphBackend:
    """An ``ExternalBackend`` over a LangGraph ``SqliteStore`` or ``PostgresStore``.

    Args: ``kind`` (``"sqlite"``/``"postgres"``); ``target`` (the SQLite file or a
    ``postgresql://`` URL); ``url`` (the memmaint URL, kept redacted); ``prefix`` (the
    namespace addressed, with those under it; None: all); ``text_key`` (dotted path of the
    text; None: LangMem's layouts); ``vector_model`` (``model=``); ``index`` (a LangGraph
    index config: ``dims``, ``embed``, ``fields``); ``create`` (make the tables if missing,
    else a missing store is a ``UserError``).
    """

    system = "langgraph"

    def __init__(self, kind: str, target: str, *, url: str = "", prefix: str | None = None,
                 text_key: str | None = None, vector_model: str | None = None,
                 index: Mapping[str, Any] | None = None, create: bool = True) -> None:
        self.kind = kind
        self.url = redact(url or target)
        self.vector_model = vector_model
        self.embeds_itself = True  # put() re-embeds (index) or keeps no vector (no index)
        self._pg = kind == "postgres"
        self._prefix = _dotted(prefix, "LangGraph namespace") if prefix else None
        self._text_path = _dotted(text_key, "text_key") if text_key else None
        self._stack = ExitStack()
        self._conn: Any = None  # the SQLite connection (SQLite's store)
        base = require("langgraph.store.base", EXTRA)
        self._ops: Any = base
        self._bad_ns: type[Exception] = base.InvalidNamespaceError
        index_config: dict[str, Any] | None = None
        if index is not None:
            fields = index.get("fields") or ["$"]
            index_config = {**index, "fields": fields, "text_fields": fields}
        try:
            self._store, tables = (self._open_postgres(target, index_config) if self._pg
                                   else self._open_sqlite(target, index_config, create))
            if "store" not in tables and not create:
                raise UserError(f"no LangGraph store in {self.url} (it has no 'store' table)")
            self._call("setting up the store", self._store.setup)
        except BaseException:
            self.close()
            raise
        if "store_vectors" in tables and index is None:
            log.warning("%s has a vector index but no embed= was given: items memmaint "
                        "rewrites keep stale or no vectors for semantic search", self.url)

    def _open_sqlite(self, target: str, index: dict[str, Any] | None,
                     create: bool) -> tuple[Any, set[str]]:
        import sqlite3

        module = require("langgraph.store.sqlite", EXTRA)
        path = Path(target).expanduser()
        if not path.exists():
            if not create:
                raise UserError(f"no LangGraph store at {path} (the file does not exist)")
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._stack.callback(conn.close)
            self._conn = conn
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        except sqlite3.Error as exc:
            raise UserError(f"cannot open {path} as SQLite: {exc}") from None
        store = self._build(lambda: module.SqliteStore(conn, index=index))
        if index is not None and not hasattr(conn, "enable_load_extension"):
            raise UserError("this Python's sqlite3 cannot load extensions: a LangGraph SQLite "
                            "index (embed=) needs sqlite-vec")
        return store, {r[0] for r in rows}

    def _open_postgres(self, target: str,
                       index: dict[str, Any] | None) -> tuple[Any, set[str]]:
        module = require("langgraph.store.postgres", EXTRA)
        psycopg = require("psycopg", EXTRA)
        try:
            store = self._build(lambda: self._stack.enter_context(
                module.PostgresStore.from_conn_string(target, index=index)))
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise UserError(f"cannot connect to {redact(target)}: {first}") from None
        row = store.conn.execute("SELECT to_regclass('store') IS NOT NULL AS s, "
                                 "to_regclass('store_vectors') IS NOT NULL AS v").fetchone()
        tables = {name for name, ok in (("store", row["s"]), ("store_vectors", row["v"])) if ok}
        return store, tables

    @staticmethod
    def _build(make: Callable[[], Any]) -> Any:
        try:
            return make()
        except (ValueError, ImportError) as exc:  # the index's embed could not be loaded
            raise UserError(f"bad LangGraph index (embed=): {str(exc).split('. ')[0]}") from None

    # -- helpers ----------------------------------------------------------------------------
    def _call(self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MemmaintError:
            raise
        except self._bad_ns as exc:
            raise UserError(f"{self.url}: {exc}") from None
        except Exception as exc:
            raise StoreError(f"{self.url}: {what} failed: {error_line(exc)}") from exc

    def _ns(self, namespace: str) -> tuple[str, ...]:
        labels = _dotted(namespace, "LangGraph namespace")
        if self._prefix and labels[:len(self._prefix)] != self._prefix:
            raise UserError(f"namespace {namespace!r} is outside {'.'.join(self._prefix)!r}, "
                            f"the namespace this URL addresses ({self.url})")
        return labels

    def _records(self, namespace: str, items: Sequence[Any]) -> list[ExternalRecord]:
        out: list[ExternalRecord] = []
        bad: list[str] = []
        for item in items:
            value = decode_value(item.value)
            path = self._text_path or (("content", "content") if isinstance(
                value.get("content"), dict) and isinstance(value["content"].get("content"), str)
                else ("content",))
            text, metadata = split_text(value, path)
            if not isinstance(text, str):
                bad.append(f"{item.key!r} ({'.'.join(path)}: "
                           f"{'missing' if text is None else type(text).__name__})")
                continue
            out.append(ExternalRecord(
                id=item.key, text=text, metadata=metadata, vector=None,
                created_at=to_utc(item.created_at) if item.created_at else None,
                updated_at=to_utc(item.updated_at) if item.updated_at else None))
        if bad:
            raise UserError(f"{self.url}: {len(bad)} item(s) of namespace {namespace!r} hold "
                            f"no text string: {', '.join(bad[:3])}{' ...' if len(bad) > 3 else ''}"
                            "; pass text_key=PATH (e.g. content.text) or a narrower namespace=")
        return out

    def _value(self, record: ExternalRecord) -> dict[str, Any]:
        metadata = record.to_json()["metadata"]
        path = self._text_path or (("content", "content") if isinstance(
            metadata.get("content"), dict) else ("content",))
        try:
            value = join_text(record.text, metadata, path)
        except UserError as exc:
            raise UserError(f"record {record.id!r}: {exc}") from None
        return dict(encode_value(value, pg=self._pg))

    # -- the protocol -----------------------------------------------------------------------
    def namespaces(self) -> list[str]:
        """The namespaces under the URL's ``namespace`` (all when none) holding items."""
        found: set[str] = set()
        offset = 0
        while True:
            page = self._call("listing namespaces", self._store.list_namespaces,
                              prefix=self._prefix, limit=1000, offset=offset)
            found.update(".".join(ns) for ns in page)
            if len(page) < 1000:
                return sorted(found)
            offset += 1000

    def read_all(self, namespace: str) -> list[ExternalRecord]:
        """Every item of exactly this namespace (none from those under it), by key."""
        labels = self._ns(namespace)
        items = self._call(f"reading {namespace!r}", self._store.search, labels,
                           limit=_ALL, refresh_ttl=False)
        mine = sorted((i for i in items if tuple(i.namespace) == labels), key=lambda i: i.key)
        return self._records(namespace, mine)

    def read(self, namespace: str, ids: Sequence[str]) -> dict[str, ExternalRecord]:
        """The items with these keys that exist."""
        labels = self._ns(namespace)
        keys = list(dict.fromkeys(str(i) for i in ids))
        items: list[Any] = []
        for start in range(0, len(keys), _CHUNK):
            ops = [self._ops.GetOp(labels, k, refresh_ttl=False)
                   for k in keys[start:start + _CHUNK]]
            items.extend(i for i in self._call(f"reading {namespace!r}", self._store.batch, ops)
                         if i is not None)
        return {r.id: r for r in self._records(namespace, items)}

    def upsert(self, namespace: str, records: Sequence[ExternalRecord]) -> None:
        """``put`` each record's value (its metadata with the text in place); the store
        re-embeds it when it has an index. The record's vector is not stored."""
        labels = self._ns(namespace)
        ops = [self._ops.PutOp(labels, r.id, self._value(r)) for r in records]
        for start in range(0, len(ops), _CHUNK):
            self._call(f"writing {namespace!r}", self._store.batch, ops[start:start + _CHUNK])
        self._keep_created(labels, records)

    def _keep_created(self, labels: tuple[str, ...], records: Sequence[ExternalRecord]) -> None:
        """Put back each item's ``created_at`` (``put`` resets it: SQLite's store on every
        write, Postgres' when it re-inserts a deleted item), in the store's own column."""
        prefix = ".".join(labels)
        dated = [(r.created_at, prefix, r.id) for r in records if r.created_at is not None]
        if not dated:
            return
        if self._pg:
            sql = "UPDATE store SET created_at = %s WHERE prefix = %s AND key = %s"
            rows: list[tuple[Any, str, str]] = [(to_utc(t), p, k) for t, p, k in dated]
            self._call("keeping created_at", lambda: [self._store.conn.execute(sql, row)
                                                      for row in rows])
        elif self._conn is not None:
            rows = [(_sqlite_time(t), p, k) for t, p, k in dated]
            self._call("keeping created_at", self._conn.executemany,
                       "UPDATE store SET created_at = ? WHERE prefix = ? AND key = ?", rows)

    def delete(self, namespace: str, ids: Sequence[str]) -> None:
        """Delete these keys (missing keys are ignored)."""
        labels = self._ns(namespace)
        ops = [self._ops.PutOp(labels, str(i), None) for i in dict.fromkeys(ids)]
        for start in range(0, len(ops), _CHUNK):
            self._call(f"deleting from {namespace!r}", self._store.batch,
                       ops[start:start + _CHUNK])

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._stack.close()


# -- URLs -----------------------------------------------------------------------------------

def _sqlite_time(value: datetime) -> str:
    """``value`` as SQLite's store writes ``CURRENT_TIMESTAMP`` (UTC, fraction if any)."""
    utc = to_utc(value)
    return utc.strftime("%Y-%m-%d %H:%M:%S.%f" if utc.microsecond else "%Y-%m-%d %H:%M:%S")


def backend_from_url(url: str, *, create: bool) -> tuple[LangGraphBackend, str | None]:
    """The backend a ``langgraph+sqlite://`` or ``langgraph+postgres://`` URL names, and the
    SQLite file (None for PostgreSQL)."""
    parsed = ConnectorURL.parse(url, known=KNOWN_PARAMS)
    params = parsed.params
    where = redact(url)
    if parsed.scheme not in SCHEMES:
        raise UserError(f"bad store URL {where}: the scheme must be one of "
                        f"{', '.join(s + '://' for s in SCHEMES)}")
    index: dict[str, Any] | None = None
    if params.get("embed"):
        dims = params.get("embed_dims", "")
        if not dims.isdigit() or int(dims) < 1:
            raise UserError(f"bad store URL {where}: embed= needs embed_dims=N (its size)")
        fields = [f for f in params.get("embed_fields", "").split(",") if f] or ["$"]
        index = {"dims": int(dims), "embed": params["embed"], "fields": fields}
    elif params.get("embed_dims") or params.get("embed_fields"):
        raise UserError(f"bad store URL {where}: embed_dims= and embed_fields= need embed=")
    local: str | None = None
    if parsed.scheme == "langgraph+sqlite":
        if params.get("sslmode") or params.get("connect_timeout"):
            raise UserError(f"bad store URL {where}: sslmode/connect_timeout are for PostgreSQL")
        local = unquote(parsed.netloc) + parsed.path if parsed.netloc else parsed.path
        if not local or local.endswith("/"):
            raise UserError(f"bad store URL {where}: name the SQLite file, e.g. "
                            "langgraph+sqlite:///data/store.db")
        target = local
    else:
        parts = urlsplit(url)
        query = {k: params[k] for k in ("sslmode", "connect_timeout") if params.get(k)}
        query.setdefault("connect_timeout", "10")
        target = urlunsplit(("postgresql", parts.netloc, parts.path, urlencode(query), ""))
    backend = LangGraphBackend(
        "sqlite" if local is not None else "postgres", target, url=url,
        prefix=params.get("namespace") or None, text_key=params.get("text_key") or None,
        vector_model=params.get("model") or None, index=index, create=create)
    return backend, local


def open_url(url: str, *, create: bool) -> MemoryStore:
    """Open a LangGraph store as a memmaint store (a sidecar SQLite file keeps memmaint's
    own state: beside the SQLite file, or under the data folder for PostgreSQL)."""
    parsed = ConnectorURL.parse(url, known=KNOWN_PARAMS)
    backend, local = backend_from_url(url, create=create)
    try:
        from memmaint.maintenance.store.mirror import ExternalStore

        return ExternalStore(backend, default_sidecar(parsed, local), create=create)
    except BaseException:
        backend.close()
        raise


__all__ = ["KNOWN_PARAMS", "SCHEMES", "TAG", "LangGraphBackend", "backend_from_url",
           "decode_value", "encode_value", "join_text", "open_url", "split_text"]
