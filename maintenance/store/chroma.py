"""The Chroma connector (extra ``chroma``): memmaint maintains memories kept in Chroma.

URLs:

- ``chroma:///abs/path/to/dir?collection=NAME`` (or ``chroma://relative/dir``): an embedded
  ``chromadb.PersistentClient`` on that folder; the sidecar defaults to
  ``<dir>.memmaint.db`` beside it.
- ``chroma+http://host:port?collection=NAME`` (``chroma+https://`` for TLS): a Chroma server
  through ``chromadb.HttpClient``; ``chroma+http://:TOKEN@host:port`` sends
  ``Authorization: Bearer TOKEN``.

Parameters: ``collection`` (without it the URL addresses every collection of the client,
each one a namespace; with it only that one), ``tenant`` and ``database`` (server tenancy),
plus the common ``sidecar`` and ``model`` (see :mod:`~memmaint.maintenance.store.external`).

A namespace is a collection. New collections are created with cosine distance and no
embedding function: memmaint always passes vectors, so Chroma never embeds (its default
embedding function would download a model). Chroma keeps no timestamps.

Metadata encoding: Chroma stores scalar values (str, bool, int64, finite float) and
non-empty lists of one scalar type; keys may not be empty, start with ``#`` or ``$``, or be
``chroma:...``. Any other pair is stored under the key :data:`JSON_PREFIX` + key with the
value as a JSON string (``{"tags": []}`` is stored as ``{"memmaint:json:tags": "[]"}``);
reading strips the prefix and parses the JSON, so every JSON object round-trips. A key that
itself starts with the prefix is always encoded, so decoding is unambiguous. Chroma merges
metadata on upsert, so :meth:`ChromaBackend.upsert` sets the keys a record no longer has to
``None`` (Chroma's way of deleting a key): the stored metadata is exactly the new one.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memmaint.maintenance.core.errors import StoreError, UserError, require
from memmaint.maintenance.store.external import (
    ConnectorURL,
    ExternalRecord,
    chunks,
    close_quietly,
    default_sidecar,
    library_errors,
    redact,
)

if TYPE_CHECKING:
    from memmaint.maintenance.store.base import MemoryStore

log = logging.getLogger(__name__)

JSON_PREFIX = "memmaint:json:"
"""Key prefix of metadata values stored as JSON strings (see the module docstring)."""

URL_PARAMS = ("collection", "tenant", "database")
_SCHEMES = ("chroma", "chroma+http", "chroma+https")
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{1,510})[A-Za-z0-9]$")
_PAGE = 1000
_INT64 = 2**63


def _native_scalar(value: Any) -> bool:
    if isinstance(value, bool) or type(value) is str:
        return True
    if type(value) is int:
        return -_INT64 <= value < _INT64
    if type(value) is float:
        return math.isfinite(value)
    return False


def _native(key: str, value: Any) -> bool:
    """Whether Chroma stores ``key: value`` as it is and gives it back unchanged."""
    if not key or key[0] in "#$" or key.startswith(("chroma:", JSON_PREFIX)):
        return False
    if isinstance(value, list):
        return (bool(value) and len({type(v) for v in value}) == 1
                and all(_native_scalar(v) for v in value))
    return _native_scalar(value)


def encode_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """``metadata`` as Chroma can store it (pairs it cannot are JSON under a prefixed key)."""
    out: dict[str, Any] = {}
    for key, value in metadata.items():
        key = str(key)
        if _native(key, value):
            out[key] = value
        else:
            out[JSON_PREFIX + key] = json.dumps(value, ensure_ascii=False)
    return out


def decode_metadata(stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """The metadata :func:`encode_metadata` was given, from what Chroma returned."""
    out: dict[str, Any] = {}
    for key, value in (stored or {}).items():
        if key.startswith(JSON_PREFIX) and isinstance(value, str):
            try:
                out[key[len(JSON_PREFIX):]] = json.loads(value)
                continue
            except ValueError:
                pass  # not ours: keep the pair as Chroma holds it
        out[key] = value
    return out


def _local_path(url: ConnectorURL) -> str:
    path = url.netloc + url.path if url.netloc else url.path
    if not path:
        raise UserError(f"store URL {redact(url.raw)} names no folder (chroma:///path/to/dir)")
    return str(Path(path).expanduser())


def _unique(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(str(i) for i in ids))


class ChromaBackend:
    """An :class:`~memmaint.maintenance.store.external.ExternalBackend` over Chroma.

    ``ChromaBackend("chroma:///data/chroma?collection=memories")``; with ``create=False`` a
    missing folder, or a missing collection named by ``collection``, is a ``UserError``.
    """

    system = "chroma"
    embeds_itself = False

    def __init__(self, url: str | ConnectorURL, *, create: bool = True) -> None:
        parsed = url if isinstance(url, ConnectorURL) else ConnectorURL.parse(
            url, known=URL_PARAMS)
        if parsed.scheme not in _SCHEMES:
            raise UserError(f"not a Chroma URL: {redact(parsed.raw)} (chroma:///path, "
                            "chroma+http://host:port)")
        self.url = redact(parsed.raw)
        self.vector_model: str | None = parsed.params.get("model") or None
        self.collection: str | None = parsed.params.get("collection") or None
        if self.collection is not None:
            self._check_name(self.collection)
        self.local_path: str | None = None
        self._collections: dict[str, Any] = {}
        chromadb = require("chromadb", "chroma")
        settings = require("chromadb.config", "chroma").Settings(anonymized_telemetry=False)
        tenancy = {key: parsed.params[key] for key in ("tenant", "database")
                   if parsed.params.get(key)}
        if parsed.scheme == "chroma":
            self.local_path = _local_path(parsed)
            if not create and not Path(self.local_path).exists():
                raise UserError(f"no Chroma store at {self.local_path}")
            with self._guard(f"open {self.local_path}"):
                self._client = chromadb.PersistentClient(path=self.local_path,
                                                         settings=settings, **tenancy)
        else:
            parts = _split_host(parsed)
            headers = {"Authorization": f"Bearer {parts[2]}"} if parts[2] else None
            with self._guard("connect"):
                self._client = chromadb.HttpClient(
                    host=parts[0], port=parts[1], ssl=parsed.scheme == "chroma+https",
                    headers=headers, settings=settings, **tenancy)
        if self.collection is not None and self._get(self.collection, create=create) is None:
            self.close()  # `memmaint init` creates the named collection; other commands need it
            raise UserError(f"no Chroma collection {self.collection!r} at {self.url}")

    # -- the protocol ---------------------------------------------------------------------

    def namespaces(self) -> list[str]:
        """The collections this URL addresses that exist now, sorted."""
        if self.collection is not None:
            return [self.collection] if self._get(self.collection) is not None else []
        with self._guard("list collections"):
            found = self._client.list_collections()
        return sorted(str(getattr(c, "name", c)) for c in found)

    lists_without_vectors = True  # read_all(vectors=False): see ExternalBackend.read_all

    def read_all(self, namespace: str, vectors: bool = True) -> list[ExternalRecord]:
        """Every record of the collection, with vectors unless ``vectors`` is False (empty
        when it does not exist)."""
        col = self._get(namespace)
        if col is None:
            return []
        records: list[ExternalRecord] = []
        offset = 0
        include: Any = ["documents", "metadatas", "embeddings"] if vectors \
            else ["documents", "metadatas"]
        while True:
            with self._guard(f"read {namespace!r}"):
                got = col.get(include=include, limit=_PAGE, offset=offset)
            page = _records(got)
            records.extend(page)
            if len(page) < _PAGE:
                return records
            offset += len(page)

    def read(self, namespace: str, ids: Sequence[str]) -> dict[str, ExternalRecord]:
        """The records with these ids that exist, with vectors."""
        col = self._get(namespace)
        out: dict[str, ExternalRecord] = {}
        if col is None:
            return out
        for batch in chunks(_unique(ids), _PAGE):
            with self._guard(f"read {namespace!r}"):
                got = col.get(ids=list(batch),
                              include=["documents", "metadatas", "embeddings"])
            out.update((r.id, r) for r in _records(got))
        return out

    def upsert(self, namespace: str, records: Sequence[ExternalRecord]) -> None:
        """Write the records exactly (creating the collection with cosine distance)."""
        last = {r.id: r for r in records}  # one write per id: the last one wins
        if not last:
            return
        for r in last.values():
            if r.vector is None:
                raise StoreError(f"chroma {self.url}: record {r.id!r} has no vector "
                                 "(memmaint never lets Chroma embed)")
        col = self._get(namespace, create=True)
        with self._guard("read the batch size"):
            size = max(1, min(_PAGE, int(self._client.get_max_batch_size())))
        for batch in chunks(list(last.values()), size):
            ids = [r.id for r in batch]
            with self._guard(f"read {namespace!r}"):
                old = col.get(ids=ids, include=["metadatas"])
            old_keys = {i: set(m or {}) for i, m in zip(old["ids"], old["metadatas"] or [])}
            metadatas: list[dict[str, Any] | None] = []
            for r in batch:
                meta = encode_metadata(r.metadata)
                meta.update((k, None) for k in old_keys.get(r.id, ()) if k not in meta)
                metadatas.append(meta or None)
            with self._guard(f"write {namespace!r}"):
                col.upsert(ids=ids, documents=[r.text for r in batch], metadatas=metadatas,
                           embeddings=[np.asarray(r.vector, dtype=np.float32)
                                       for r in batch])

    def delete(self, namespace: str, ids: Sequence[str]) -> None:
        """Remove these records; missing ids (or a missing collection) are ignored."""
        col = self._get(namespace)
        if col is None:
            return
        for batch in chunks(_unique(ids), _PAGE):
            if batch:  # never call delete(ids=[]): it is not a no-op in every version
                with self._guard(f"delete from {namespace!r}"):
                    col.delete(ids=list(batch))

    def close(self) -> None:
        """Release the client (the embedded store's files once no other client uses them)."""
        client = self.__dict__.pop("_client", None)
        self._collections.clear()
        close_quietly(f"chroma {self.url}", client)

    # -- helpers --------------------------------------------------------------------------

    def _guard(self, what: str) -> AbstractContextManager[None]:
        """Turn a library failure into one clear ``StoreError`` line."""
        return library_errors(f"chroma {self.url}", what)

    def _check_name(self, namespace: str) -> None:
        if not _NAME.match(namespace) or ".." in namespace:
            raise UserError(f"bad Chroma collection name {namespace!r}: 3-512 characters from "
                            "[a-zA-Z0-9._-], starting and ending with a letter or digit")

    def _get(self, namespace: str, *, create: bool = False) -> Any:
        """The collection (cached), ``None`` when it does not exist and not ``create``."""
        if self.collection is not None and namespace != self.collection:
            raise UserError(f"{self.url} addresses collection {self.collection!r} only, "
                            f"not {namespace!r}")
        if namespace in self._collections:
            return self._collections[namespace]
        if "_client" not in self.__dict__:
            raise StoreError(f"chroma {self.url}: the backend is closed")
        self._check_name(namespace)
        try:
            col = self._client.get_collection(namespace, embedding_function=None)
        except Exception as exc:
            if not _is_missing(exc):
                with self._guard(f"open collection {namespace!r}"):
                    raise
            if not create:
                return None
            with self._guard(f"create collection {namespace!r}"):
                col = _create(self._client, namespace)
            log.info("chroma %s: created collection %r", self.url, namespace)
        self._collections[namespace] = col
        return col


def _is_missing(exc: Exception) -> bool:
    return type(exc).__name__ in {"NotFoundError", "InvalidCollectionException"} or (
        "does not exist" in str(exc))


def _create(client: Any, name: str) -> Any:
    """Create a cosine collection without an embedding function, whatever the version."""
    try:
        return client.get_or_create_collection(
            name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}})
    except TypeError:  # chromadb < 1.0 has no ``configuration``
        return client.get_or_create_collection(
            name, embedding_function=None, metadata={"hnsw:space": "cosine"})


def _records(got: Mapping[str, Any]) -> list[ExternalRecord]:
    """ExternalRecords from the columns of a ``Collection.get`` result."""
    ids = list(got.get("ids") or [])
    docs = got.get("documents")
    metas = got.get("metadatas")
    vectors = got.get("embeddings")
    out = []
    for n, rid in enumerate(ids):
        vector = None if vectors is None or vectors[n] is None else np.asarray(
            vectors[n], dtype=np.float32)
        out.append(ExternalRecord(
            id=str(rid), text=(docs[n] if docs is not None else None) or "",
            metadata=decode_metadata(metas[n] if metas is not None else None),
            vector=vector))
    return out


def _split_host(url: ConnectorURL) -> tuple[str, int, str | None]:
    """Host, port (8000 by default) and the password used as a bearer token."""
    from urllib.parse import urlsplit

    parts = urlsplit(url.raw)
    try:
        port = parts.port or 8000
    except ValueError:
        raise UserError(f"bad port in store URL {redact(url.raw)}") from None
    if not parts.hostname:
        raise UserError(f"store URL {redact(url.raw)} names no host (chroma+http://host:port)")
    return parts.hostname, port, parts.password or None


def open_url(url: str, *, create: bool) -> MemoryStore:
    """Open a Chroma URL as a memmaint store (a mirror with a sidecar SQLite file)."""
    parsed = ConnectorURL.parse(url, known=URL_PARAMS)
    backend = ChromaBackend(parsed, create=create)
    try:
        from memmaint.maintenance.store.mirror import ExternalStore

        return ExternalStore(backend, default_sidecar(parsed, backend.local_path),
                             create=create)
    except BaseException:
        backend.close()
        raise


__all__ = ["JSON_PREFIX", "ChromaBackend", "decode_metadata", "encode_metadata", "open_url"]
