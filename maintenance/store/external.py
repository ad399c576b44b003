"""The connector protocol: how memmaint reads and writes a memory system it does not own.

A *connector* (Chroma, Qdrant, a LangGraph store, mem0, a pgvector table...) implements
:class:`ExternalBackend`: a handful of whole-record operations in the system's own API.
:class:`~memmaint.maintenance.store.mirror.ExternalStore` turns any backend into a full
:class:`~memmaint.maintenance.store.base.MemoryStore` by keeping a *sidecar* SQLite store
next to it (a mirror of the memories, provenance events, run records, the embedding cache and
a write-ahead journal of external writes), so the job, ``history``, ``runs`` and ``undo`` work
unchanged.

Mapping between the two worlds:

- a memmaint *namespace* is the system's natural partition (a Chroma or Qdrant collection,
  a LangGraph namespace joined with ``.``, a mem0 ``user_id``, a pgvector table or the value
  of its namespace column);
- an :class:`ExternalRecord` is what the system stores: id, text, metadata, vector and the
  timestamps it keeps. A memory is *active* exactly while its record exists in the system;
  merging, superseding, evicting or archiving it deletes the record (the sidecar keeps the
  record as it was, so ``undo`` writes it back exactly: same id, text, metadata and vector);
- memmaint's own fields (importance, kind, usage counters, status history) live in the
  sidecar; ``importance`` and ``kind`` are read from metadata keys of those names when a
  record is first seen.

Backends are written against the real client library, imported lazily with
:func:`~memmaint.maintenance.core.errors.require` so a missing library is a one-line error
naming the pip extra.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import parse_qsl, unquote, urlsplit

import numpy as np

from memmaint.maintenance.core.errors import MemmaintError, StoreError, UserError
from memmaint.maintenance.core.records import format_time, parse_time, utcnow
from memmaint.maintenance.core.urls import redact_url


@dataclass(frozen=True)
class ExternalRecord:
    """One record of an external memory system, as that system stores it.

    ``metadata`` is a JSON object (the backend encodes and decodes whatever its system cannot
    store natively, so ``upsert`` of a record read back gives the same record). ``vector`` is
    the stored embedding (float32, 1-D) or ``None`` where the system stores none or the
    backend did not ask for it. ``created_at``/``updated_at`` are ``None`` where the system
    keeps no timestamps.
    """

    id: str
    text: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    vector: np.ndarray | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    def fingerprint(self) -> str:
        """sha256 over id, text and metadata: what tells that someone else changed a record.

        Vectors and timestamps are left out: a system may re-embed or touch a record without
        changing what it says.
        """
        payload = json.dumps([self.id, self.text, _jsonable(self.metadata)], sort_keys=True,
                             ensure_ascii=True, separators=(",", ":"))  # lone surrogates too
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready snapshot (what the sidecar keeps, and what ``undo`` writes back)."""
        return {"id": self.id, "text": self.text, "metadata": _jsonable(self.metadata),
                "vector": None if self.vector is None
                else [float(x) for x in np.asarray(self.vector, dtype=np.float32)],
                "created_at": format_time(self.created_at),
                "updated_at": format_time(self.updated_at)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExternalRecord:
        vector = data.get("vector")
        return cls(id=str(data["id"]), text=str(data["text"]),
                   metadata=dict(data.get("metadata") or {}),
                   vector=None if vector is None else np.asarray(vector, dtype=np.float32),
                   created_at=None if data.get("created_at") is None
                   else parse_time(data["created_at"]),
                   updated_at=None if data.get("updated_at") is None
                   else parse_time(data["updated_at"]))


@runtime_checkable
class ExternalBackend(Protocol):
    """What a connector implements. Every method acts on the live system, at once.

    Attributes:
        system: a short name for messages and run reports (``"chroma"``, ``"mem0"``...).
        url: the store URL it was opened from, with any password removed.
        vector_model: the memmaint embedder name (``[embedding] model``) whose vectors the
            system stores, when the URL declared one (``model=...``, with ``dim=...`` for the
            hashing embedder): stored vectors then seed the embedding cache instead of being
            recomputed, and new records are embedded with it. ``None``: stored vectors are
            never reused.
        embeds_itself: True when the system computes vectors on write from the text (mem0,
            a LangGraph store with an index), so :meth:`upsert` ignores ``vector``.
    """

    system: str
    url: str
    vector_model: str | None
    embeds_itself: bool

    def namespaces(self) -> list[str]:
        """The namespaces this URL addresses that exist now (may be empty), sorted."""

    def read_all(self, namespace: str) -> list[ExternalRecord]:
        """Every record of ``namespace`` (empty when it does not exist), with vectors.

        A backend whose class sets ``lists_without_vectors = True`` also takes
        ``vectors=False``: the records without their vectors, so a sync reads the vectors of
        the new and changed records only (:meth:`read`)."""

    def read(self, namespace: str, ids: Sequence[str]) -> dict[str, ExternalRecord]:
        """The records with these ids that exist (missing ids are absent), with vectors."""

    def upsert(self, namespace: str, records: Sequence[ExternalRecord]) -> None:
        """Write these records exactly (insert, or replace one with the same id), creating
        the namespace if needed. Must be idempotent: the journal may replay it."""

    def delete(self, namespace: str, ids: Sequence[str]) -> None:
        """Remove these records; ids that do not exist are ignored (idempotent)."""

    def close(self) -> None:
        """Release the client."""


# -- URLs -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ConnectorURL:
    """A connector URL split into its parts: ``scheme://netloc/path?key=value&...``.

    ``path`` is the decoded path (for ``chroma:///data/chroma`` it is ``/data/chroma``).
    ``params`` holds the query parameters; each key may appear once.
    """

    raw: str
    scheme: str
    netloc: str
    path: str
    params: Mapping[str, str]

    @classmethod
    def parse(cls, url: str, *, known: Sequence[str]) -> ConnectorURL:
        """Parse ``url``, refusing (one ``UserError`` naming all of them) parameters that
        are not in ``known`` or the common ones (``sidecar``, ``model``, ``dim``,
        ``created_at``, ``updated_at``)."""
        parts = urlsplit(url)
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        params: dict[str, str] = {}
        problems: list[str] = []
        allowed = {"sidecar", "model", "dim", "created_at", "updated_at", *known}
        for key, value in pairs:
            if key not in allowed:
                problems.append(f"unknown parameter {key!r}")
            elif key in params:
                problems.append(f"parameter {key!r} given twice")
            params[key] = value
        if problems:
            raise UserError(f"bad store URL {redact(url)}: {'; '.join(problems)} (known: "
                            f"{', '.join(sorted(allowed))})")
        return cls(url, parts.scheme.lower(), parts.netloc, unquote(parts.path), params)

    def require(self, key: str, what: str) -> str:
        """The value of parameter ``key``; a ``UserError`` saying what it is when absent."""
        value = self.params.get(key, "")
        if not value:
            raise UserError(f"store URL {redact(self.raw)} needs ?{key}=... ({what})")
        return value


def chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    """``items`` in consecutive slices of at most ``size`` (a connector's page of writes)."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


def error_line(exc: BaseException) -> str:
    """``Type: first line`` of a library's exception, for a one-line error message."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


@contextmanager
def library_errors(prefix: str, what: str,
                   line: Callable[[BaseException], str] = error_line) -> Iterator[None]:
    """Turn a connector library's failure into one ``StoreError`` line (``prefix: what
    failed: ...``); memmaint's own errors pass through unchanged."""
    try:
        yield
    except MemmaintError:
        raise
    except Exception as exc:
        raise StoreError(f"{prefix}: {what} failed: {line(exc)}") from exc


def close_quietly(what: str, *clients: Any) -> None:
    """Close each client that has ``close``; a failure is logged, never raised (closing must
    not mask the error that got us here)."""
    for client in clients:
        if client is None or not hasattr(client, "close"):
            continue
        try:
            client.close()
        except Exception as exc:  # noqa: BLE001
            logging.getLogger(__name__).warning("closing %s: %s", what, exc)


def redact(url: str) -> str:
    """``url`` with any password replaced by ``***`` (:func:`~memmaint.maintenance.core.urls.
    redact_url`, the one redaction)."""
    return redact_url(url)


def default_sidecar(url: ConnectorURL, local_path: str | None = None) -> str:
    """Where the sidecar lives when the URL names none.

    Beside a local file or folder: ``<path>.memmaint.db``. For a server: a file named by a
    hash of the redacted URL (without ``sidecar``) under ``$MEMMAINT_DATA_DIR`` or
    ``~/.local/share/memmaint/sidecars``.
    """
    if url.params.get("sidecar"):
        return url.params["sidecar"]
    if local_path:
        return str(Path(local_path).expanduser()).rstrip("/") + ".memmaint.db"
    base = os.environ.get("MEMMAINT_DATA_DIR") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "memmaint")
    key = redact(re.sub(r"([?&])sidecar=[^&]*&?", r"\1", url.raw)).rstrip("?&")
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    return os.path.join(base, "sidecars", f"{url.scheme.replace('+', '-')}-{digest}.db")


#: metadata keys read as a record's creation time when the system keeps none (in order;
#: also under a nested ``metadata`` object, LangChain's layout)
CREATED_KEYS = ("created_at", "createdAt", "created", "timestamp", "date", "time")
#: metadata keys read as a record's last update time
UPDATED_KEYS = ("updated_at", "updatedAt", "modified_at", "last_modified")


_DRY_RUN: ContextVar[bool] = ContextVar("memmaint_dry_run_open", default=False)


@contextmanager
def opening_for_dry_run() -> Iterator[None]:
    """Connectors opened inside this block are opened for a dry run
    (:func:`~memmaint.maintenance.store.registry.open_store` with ``dry_run=True``): the
    mirror syncs into a scratch copy of its sidecar, so neither the sidecar nor the system
    is written."""
    token = _DRY_RUN.set(True)
    try:
        yield
    finally:
        _DRY_RUN.reset(token)


def dry_run_open() -> bool:
    """Whether a connector is being opened for a dry run (:func:`opening_for_dry_run`)."""
    return _DRY_RUN.get()


def metadata_time(metadata: Mapping[str, Any], keys: Sequence[str]) -> datetime | None:
    """The first of ``keys`` (a dotted path reads nested objects) found in ``metadata``, or
    under its nested ``metadata`` object, whose value is a time: an ISO 8601 string (a
    date alone is midnight UTC; no offset is UTC), or epoch seconds or milliseconds (a
    number above 10^11 is milliseconds). ``None`` when none is."""
    nested = metadata.get("metadata")
    for source in (metadata, nested if isinstance(nested, Mapping) else {}):
        for key in keys:
            value: Any = source
            for part in key.split("."):
                value = value.get(part) if isinstance(value, Mapping) else None
            when = _as_time(value)
            if when is not None:
                return when
    return None


def record_times(rec: ExternalRecord, time_keys: Mapping[str, str],
                 default: datetime | None = None, *,
                 own_times_named: bool = False) -> tuple[datetime, datetime]:
    """(created, updated) of a record, the user's time first: the metadata key the URL names
    (``created_at=KEY``, ``updated_at=KEY``; with ``own_times_named`` the record's own times,
    which then come from columns the URL names: pgvector), else the first conventional
    metadata key (:data:`CREATED_KEYS`, :data:`UPDATED_KEYS`), else the time the system
    keeps on its own (LangGraph's item times, which every ``put`` resets; mem0's), else
    ``default`` (one time for every timeless record of a sync, so never memmaint's read
    order), else now."""
    meta = rec.metadata
    named_created = time_keys.get("created_at")
    named_updated = time_keys.get("updated_at")
    own_created, own_updated = rec.created_at, rec.updated_at
    created = (metadata_time(meta, [named_created]) if named_created else None) \
        or (own_created if own_times_named else None) \
        or metadata_time(meta, CREATED_KEYS) or own_created or default or utcnow()
    updated = (metadata_time(meta, [named_updated]) if named_updated else None) \
        or (own_updated if own_times_named else None) \
        or metadata_time(meta, UPDATED_KEYS) or own_updated or created
    return created, max(created, updated)


def check_dimension(url: str, model: str | None, dim: int,
                    records: Mapping[str, Mapping[str, ExternalRecord]]) -> None:
    """A ``UserError`` (one line, exit 2) when a stored vector's length is not ``dim``, the
    dimension of the URL's ``model=``: checked when the store is opened, so a dry run fails
    as the real run would, before anything is written."""
    for ns, by_id in records.items():
        for rec in by_id.values():
            if rec.vector is not None and rec.vector.shape != (dim,):
                raise UserError(
                    f"store URL {redact(url)}: model={model} makes {dim}-dimensional vectors "
                    f"but namespace {ns!r} holds {rec.vector.size}-dimensional ones (record "
                    f"{rec.id!r}): name the model that made them (model=..., dim=...)")


def _as_time(value: Any) -> datetime | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000.0 if abs(value) > 1e11 else float(value)
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value.strip():
        try:
            return parse_time(value)
        except ValueError:
            return None
    return None


def _jsonable(value: Any) -> Any:
    """``value`` as plain JSON types (tuples become lists, datetimes ISO strings)."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


__all__ = ["CREATED_KEYS", "UPDATED_KEYS", "ConnectorURL", "ExternalBackend", "ExternalRecord",
           "check_dimension", "default_sidecar", "metadata_time", "record_times", "redact"]
