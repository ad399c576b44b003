"""The mem0 connector: the memories of a mem0 ``Memory`` (open-source SDK), in place.

URL ``mem0:///path/to/config.json?user_id=alice`` (the file: a config dict for
``Memory.from_config``). ``user_id=``, ``agent_id=`` or ``run_id=`` (one at most) fixes the
one namespace addressed; else ``scope=user_id|agent_id|run_id`` (default ``user_id``) makes
each value of that payload key a namespace. Common: ``model=``, ``sidecar=`` (default
``<config>.memmaint.db``).

Writes go through mem0 so its history table records them: ``Memory.delete`` (DELETE); a
changed record: ``Memory.update`` (UPDATE), then its payload is made exact through the vector
store; a new id (``Memory.add`` assigns ids): what ``Memory._create_memory`` does, with mem0's
embedder (``embeds_itself``), ``vector_store.insert`` of mem0's payload and
``db.add_history`` (ADD). Reads: ``Memory.get_all``/``get``; vectors from the vector store's
client (qdrant, chroma; else ``None``). Metadata: the payload less mem0's fields and the
namespace key (mem0's ``metadata`` plus promoted keys such as ``role``), so a restored record
has the same payload; a key colliding with mem0's fields or starting with ``_mm_`` is stored
as ``_mm_<key>``; with chroma, non-scalar values are stored as ``memmaint-json:<json>``.
Telemetry: ``MEM0_TELEMETRY`` is forced off before (and after) mem0 is imported.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import uuid
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.maintenance.core.errors import StoreError, UserError, require
from memmaint.maintenance.core.records import format_time, parse_time
from memmaint.maintenance.store.base import MemoryStore
from memmaint.maintenance.store.external import (
    ConnectorURL,
    ExternalRecord,
    default_sidecar,
    library_errors,
    redact,
)

log = logging.getLogger(__name__)

SCOPES = ("user_id", "agent_id", "run_id")
_CORE = frozenset({"data", "hash", "created_at", "updated_at", "text_lemmatized", "id"})
_ESCAPE = "_mm_"
_JSON = "memmaint-json:"
_FLAT_PROVIDERS = frozenset({"chroma"})  # metadata values must be scalars there
_PAGE = 1000


def import_mem0() -> Any:
    """mem0's ``Memory`` class, with telemetry off (``require``: a one-line missing-extra
    error). Sets ``MEM0_TELEMETRY=False`` before the first import of mem0."""
    os.environ["MEM0_TELEMETRY"] = "False"
    require("mem0", "mem0")
    for name in ("mem0.memory.telemetry", "mem0.memory.main"):
        module = importlib.import_module(name)
        setattr(module, "MEM0_TELEMETRY", False)  # noqa: B010 - mem0 imported before
    return importlib.import_module("mem0.memory.main").Memory


def _one_line(exc: BaseException) -> str:
    if type(exc).__name__ == "ValidationError" and callable(getattr(exc, "errors", None)):
        first = exc.errors()[0]  # type: ignore[attr-defined]  # pydantic: the first field
        return f"{'.'.join(map(str, first.get('loc', ())))}: {first.get('msg', '')}"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


class Mem0Backend:
    """An :class:`~memmaint.maintenance.store.external.ExternalBackend` over a mem0
    ``Memory`` built from a config file (see the module docstring for the mapping)."""

    system = "mem0"
    embeds_itself = True

    def __init__(self, config_path: str, *, url: str = "", scope: str = "user_id",
                 namespace: str | None = None, vector_model: str | None = None,
                 create: bool = True) -> None:
        """Open ``Memory.from_config`` on the JSON file ``config_path``; ``namespace`` fixes
        the one value of ``scope`` addressed. With ``create=False`` a local vector store
        ``path`` named in the config must exist."""
        if scope not in SCOPES:
            raise UserError(f"mem0 scope must be one of {', '.join(SCOPES)}, not {scope!r}")
        self.url = redact(url or f"mem0://{config_path}")
        self.vector_model, self.scope, self.fixed = vector_model, scope, namespace
        path = Path(config_path).expanduser()
        if not path.is_file():
            raise UserError(f"mem0 config file {path} does not exist")
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UserError(f"cannot read mem0 config {path}: {_one_line(exc)}") from None
        store = config.get("vector_store") if isinstance(config, dict) else None
        if not isinstance(config, dict) or not isinstance(store or {}, dict):
            raise UserError(f"mem0 config {path} is not a JSON object with a vector_store")
        store = store or {}
        self.provider = str(store.get("provider") or "qdrant")
        local = (store.get("config") or {}).get("path")
        if not create and local and not Path(str(local)).expanduser().exists():
            raise UserError(f"mem0 vector store {local} (from {path}) does not exist")
        memory_cls = import_mem0()
        quiet = logging.getLogger("mem0")
        level, quiet.level = quiet.level, logging.CRITICAL  # mem0 logs the error it raises
        try:
            self.memory: Any = memory_cls.from_config(config)
        except Exception as exc:  # noqa: BLE001 - any failure here is the config's
            raise UserError(f"cannot open mem0 with config {path}: {_one_line(exc)}") from None
        finally:
            quiet.setLevel(level)
        self._lemmatize: Any = importlib.import_module("mem0.utils.lemmatization"
                                                       ).lemmatize_for_bm25

    # -- protocol ---------------------------------------------------------------------------

    def namespaces(self) -> list[str]:
        """The scope values that have records now (only the fixed one, if the URL names it)."""
        with self._errors("listing namespaces"):
            if self.fixed is not None:
                return [self.fixed] if self._list({self.scope: self.fixed}, 1) else []
            rows = self._list(None, None)
        return sorted({str(r.payload[self.scope]) for r in rows if r.payload
                       and r.payload.get(self.scope) not in (None, "") and "data" in r.payload})

    def read_all(self, namespace: str) -> list[ExternalRecord]:
        """Every record of the namespace through ``Memory.get_all`` (expired ones too)."""
        self._check(namespace)
        limit = _PAGE
        with self._errors(f"reading {self.scope} {namespace!r}"):
            while True:
                items = self.memory.get_all(filters={self.scope: namespace}, top_k=limit,
                                            show_expired=True)["results"]
                if len(items) < limit:
                    break
                limit *= 4
            vectors = self._vectors([str(i["id"]) for i in items])
        return [self._record(i, vectors.get(str(i["id"]))) for i in items]

    def read(self, namespace: str, ids: Sequence[str]) -> dict[str, ExternalRecord]:
        """The records with these ids that exist in the namespace (``Memory.get``)."""
        self._check(namespace)
        with self._errors(f"reading {self.scope} {namespace!r}"):
            items = [self.memory.get(i) for i in dict.fromkeys(ids)
                     if self._point(i, namespace) is not None]
            found = [dict(i) for i in items if i]
            vectors = self._vectors([str(i["id"]) for i in found])
        return {str(i["id"]): self._record(i, vectors.get(str(i["id"]))) for i in found}

    def upsert(self, namespace: str, records: Sequence[ExternalRecord]) -> None:
        """Write each record exactly: a new id as ``_create_memory`` does (ADD in history),
        a changed one through ``Memory.update`` (UPDATE); an equal one is left alone."""
        self._check(namespace)
        for record in records:
            with self._errors(f"writing memory {record.id!r}"):
                self._upsert_one(namespace, record)

    def delete(self, namespace: str, ids: Sequence[str]) -> None:
        """``Memory.delete`` each id that exists in the namespace (DELETE in history)."""
        self._check(namespace)
        for memory_id in dict.fromkeys(ids):
            with self._errors(f"deleting memory {memory_id!r}"):
                if self._point(memory_id, namespace) is None:
                    continue
                try:
                    self.memory.delete(memory_id)
                except ValueError:  # deleted meanwhile: "Memory with id ... not found"
                    log.debug("mem0 memory %s already gone", memory_id)

    def close(self) -> None:
        """Close mem0's history database and the vector store's client."""
        memory, self.memory = getattr(self, "memory", None), None
        if memory is None:
            return
        client = getattr(memory.vector_store, "client", None)
        try:
            memory.close()
            if client is not None and hasattr(client, "close"):
                client.close()
        except Exception as exc:  # noqa: BLE001 - closing must not mask the caller's error
            log.warning("closing mem0 store %s: %s", self.url, _one_line(exc))

    # -- helpers ----------------------------------------------------------------------------

    def _errors(self, what: str) -> AbstractContextManager[None]:
        return library_errors(f"mem0 store {self.url}", what, _one_line)

    def _check(self, namespace: str) -> None:
        if not namespace:
            raise UserError(f"mem0 store {self.url}: empty {self.scope}")
        if self.fixed is not None and namespace != self.fixed:
            raise UserError(f"mem0 store {self.url} addresses {self.scope} {self.fixed!r} "
                            f"only, not {namespace!r}")

    def _list(self, filters: dict[str, str] | None, limit: int | None) -> list[Any]:
        top_k = limit or _PAGE
        while True:
            listed = self.memory.vector_store.list(filters=filters, top_k=top_k)
            if isinstance(listed, (list, tuple)) and listed and isinstance(listed[0], list):
                listed = listed[0]
            rows = list(listed or [])
            if limit is not None or len(rows) < top_k:
                return rows
            top_k *= 4

    def _point(self, memory_id: str, namespace: str | None = None) -> Any:
        """The vector store's point (payload, no vector), if it exists [in the namespace]."""
        try:
            point = self.memory.vector_store.get(vector_id=memory_id)
        except Exception as exc:  # a qdrant server refuses ids that are not UUIDs: absent
            if "uuid" in str(exc).lower() or "unable to parse" in str(exc).lower():
                return None
            raise
        if point is None or (namespace is not None
                             and (point.payload or {}).get(self.scope) != namespace):
            return None
        return point

    def _vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored vectors by id, through the vector store's own client; {} if unknown."""
        store, out = self.memory.vector_store, {}
        for start in range(0, len(ids), 256):
            chunk = ids[start:start + 256]
            if self.provider == "qdrant" and hasattr(store, "client"):
                for point in store.client.retrieve(collection_name=store.collection_name,
                                                   ids=chunk, with_vectors=True,
                                                   with_payload=False):
                    vec = point.vector.get("") if isinstance(point.vector, dict) \
                        else point.vector
                    if vec is not None:
                        out[str(point.id)] = np.asarray(vec, dtype=np.float32)
            elif self.provider == "chroma" and hasattr(store, "collection"):
                got = store.collection.get(ids=chunk, include=["embeddings"])
                for memory_id, vec in zip(got["ids"], got["embeddings"], strict=False):
                    out[str(memory_id)] = np.asarray(vec, dtype=np.float32)
            else:
                return {}
        return out

    def _record(self, item: Mapping[str, Any], vector: np.ndarray | None) -> ExternalRecord:
        """A mem0 item (``get``/``get_all`` shape: promoted keys beside ``metadata``)."""
        payload = {k: v for k, v in item.items()
                   if k not in ("id", "memory", "hash", "metadata", "score")}
        payload.update(item.get("metadata") or {})
        metadata = {k.removeprefix(_ESCAPE): self._decode_value(v) for k, v in payload.items()
                    if k not in _CORE and k != self.scope}
        return ExternalRecord(id=str(item["id"]), text=str(item.get("memory") or ""),
                              metadata=metadata, vector=vector,
                              created_at=_time(item.get("created_at")),
                              updated_at=_time(item.get("updated_at")))

    def _payload(self, namespace: str, record: ExternalRecord, created_at: str,
                 updated_at: str) -> dict[str, Any]:
        """The payload mem0's ``_create_memory`` would store for this record."""
        payload: dict[str, Any] = {self._encode_key(str(k)): self._encode_value(v)
                                   for k, v in record.metadata.items()}
        payload[self.scope] = namespace
        payload.update(data=record.text, hash=hashlib.md5(record.text.encode()).hexdigest(),
                       created_at=created_at, updated_at=updated_at,
                       text_lemmatized=self._lemmatize(record.text))
        return payload

    def _upsert_one(self, namespace: str, record: ExternalRecord) -> None:
        now = datetime.now(timezone.utc).isoformat()
        point = self._point(record.id)
        if point is None:
            created = format_time(record.created_at) or now
            self._insert(record.id, self._payload(namespace, record, created,
                                                  format_time(record.updated_at) or created))
            return
        old = dict(point.payload or {})
        if old.get(self.scope) != namespace:
            raise StoreError(f"mem0 store {self.url}: memory {record.id!r} belongs to "
                             f"{self.scope} {old.get(self.scope)!r}, not {namespace!r}")
        current = self._record(self.memory.get(record.id), None)
        if (current.text == record.text and _json(current.metadata) == _json(record.metadata)
                and record.created_at in (None, current.created_at)
                and record.updated_at in (None, current.updated_at)):
            return  # already exactly this record: idempotent, no history entry
        created = format_time(record.created_at) or str(old.get("created_at") or now)
        wanted = self._payload(namespace, record, created, format_time(record.updated_at) or now)
        extra = {k: v for k, v in wanted.items()
                 if k not in _CORE and k not in SCOPES and k != "actor_id"}
        # mem0's own update path: re-embeds, records UPDATE in history, relinks entities
        self.memory.update(record.id, text=record.text, metadata=extra)
        store = self.memory.vector_store
        after = dict(store.get(vector_id=record.id).payload or {})
        if record.updated_at is None:
            wanted["updated_at"] = after.get("updated_at", wanted["updated_at"])
        if after != wanted:  # removed keys, scope keys or timestamps: make it exact
            vector = self.memory.embedding_model.embed(record.text, "update")
            if self.provider in _FLAT_PROVIDERS:  # chroma's update merges metadata
                store.delete(vector_id=record.id)
                store.insert(vectors=[vector], ids=[record.id], payloads=[wanted])
            else:
                store.update(vector_id=record.id, vector=vector, payload=wanted)

    def _insert(self, memory_id: str, payload: dict[str, Any]) -> None:
        """What ``Memory._create_memory`` does, with the id given."""
        if self.provider == "qdrant" and not _canonical_uuid(memory_id):
            raise StoreError(f"mem0 store {self.url}: its qdrant store needs ids that are "
                             f"UUIDs in canonical form, not {memory_id!r}")
        vector = self.memory.embedding_model.embed(payload["data"], memory_action="add")
        self.memory.vector_store.insert(vectors=[vector], ids=[memory_id], payloads=[payload])
        self.memory.db.add_history(memory_id, None, payload["data"], "ADD",
                                   created_at=payload["created_at"],
                                   updated_at=payload["updated_at"],
                                   actor_id=payload.get("actor_id"), role=payload.get("role"))

    def _encode_key(self, key: str) -> str:
        clash = key in _CORE or key == self.scope or key.startswith(_ESCAPE)
        return _ESCAPE + key if clash else key

    def _encode_value(self, value: Any) -> Any:
        if self.provider not in _FLAT_PROVIDERS or isinstance(value, (bool, int, float)) or (
                isinstance(value, str) and not value.startswith(_JSON)):
            return value
        return _JSON + json.dumps(value, ensure_ascii=False, sort_keys=True)

    def _decode_value(self, value: Any) -> Any:
        if self.provider in _FLAT_PROVIDERS and isinstance(value, str) \
                and value.startswith(_JSON):
            return json.loads(value.removeprefix(_JSON))
        return value


def _canonical_uuid(value: str) -> bool:
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False


def _time(value: Any) -> datetime | None:
    try:
        return parse_time(value) if value else None
    except ValueError:
        log.debug("mem0 timestamp %r is not ISO-8601; left out", value)
        return None


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


KNOWN = ("user_id", "agent_id", "run_id", "scope")


def backend_from_url(url: str, *, create: bool = True) -> tuple[Mem0Backend, ConnectorURL]:
    """Parse a ``mem0://`` URL and open its backend (see the module docstring)."""
    parsed = ConnectorURL.parse(url, known=KNOWN)
    shown = redact(url)
    if parsed.scheme != "mem0":
        raise UserError(f"not a mem0 store URL: {shown}")
    if parsed.netloc:
        raise UserError(f"bad store URL {shown}: write mem0:///path/to/config.json "
                        "(three slashes, then the config file)")
    if parsed.path in ("", "/"):
        raise UserError(f"store URL {shown} names no mem0 config file "
                        "(mem0:///path/to/config.json)")
    fixed = [k for k in SCOPES if parsed.params.get(k)]
    if len(fixed) > 1:
        raise UserError(f"bad store URL {shown}: give one of {', '.join(fixed)}")
    scope = parsed.params.get("scope") or (fixed[0] if fixed else "user_id")
    if fixed and scope != fixed[0]:
        raise UserError(f"bad store URL {shown}: scope={scope} but {fixed[0]}= given")
    backend = Mem0Backend(parsed.path, url=url, scope=scope,
                          namespace=parsed.params[fixed[0]] if fixed else None,
                          vector_model=parsed.params.get("model") or None, create=create)
    return backend, parsed


def open_url(url: str, *, create: bool) -> MemoryStore:
    """Open ``mem0:///path/config.json?...`` as a MemoryStore (a sidecar beside the
    config file unless ``sidecar=`` says otherwise)."""
    from memmaint.maintenance.store.mirror import ExternalStore

    backend, parsed = backend_from_url(url, create=create)
    try:
        return ExternalStore(backend, default_sidecar(parsed, parsed.path), create=create)
    except BaseException:
        backend.close()
        raise


__all__ = ["KNOWN", "SCOPES", "Mem0Backend", "backend_from_url", "import_mem0", "open_url"]
