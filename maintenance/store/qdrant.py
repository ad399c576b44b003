"""The Qdrant connector (extra ``qdrant``): memmaint maintains memories kept in Qdrant.

URLs:

- ``qdrant:///abs/path/to/dir?collection=NAME`` (or ``qdrant://relative/dir``): qdrant-client's
  local mode (``QdrantClient(path=...)``); the sidecar defaults to ``<dir>.memmaint.db``.
  Local mode lets one client at a time open a folder: close other clients first.
- ``qdrant+http://host:port?collection=NAME`` (``qdrant+https://`` for TLS; port 6333 by
  default): a Qdrant server. The API key is ``?api_key=KEY`` or the URL's password
  (``qdrant+https://:KEY@host``); it never appears in messages, reports or the sidecar's name.

Parameters: ``collection`` (without it the URL addresses every collection, each one a
namespace; with it only that one), ``text_key`` (the payload key holding the memory's text,
``text`` by default: mem0 uses ``data``, LangChain ``page_content``), ``vector`` (the named
vector to use in a collection with named vectors; not needed when it has exactly one),
``api_key``, plus the common ``sidecar`` and ``model``.

Mapping: a record is a point. Its id is the point id as a string (an unsigned integer in
decimal, or a UUID in Qdrant's canonical lower-case hyphenated form); an id that is neither is
refused on upsert, since Qdrant cannot store it. The text is ``payload[text_key]`` and every
other payload key is metadata: payloads are JSON, so metadata round-trips without encoding
(a metadata key equal to ``text_key`` is refused). New collections use cosine distance and
the dimension of the first vector written. Qdrant normalises vectors in cosine collections,
so a vector reads back scaled to unit length (memmaint's embedders already write unit
vectors). Upserting a point keeps its other named (or sparse) vectors. Qdrant keeps no
timestamps.
"""

from __future__ import annotations

import json
import logging
import uuid
import warnings
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

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

URL_PARAMS = ("collection", "text_key", "vector", "api_key")
_SCHEMES = ("qdrant", "qdrant+http", "qdrant+https")
_PAGE = 256


def point_id(record_id: str) -> int | str:
    """The Qdrant point id for a memmaint id; ``UserError`` when Qdrant cannot store it."""
    if record_id.isascii() and record_id.isdigit() and str(int(record_id)) == record_id:
        if int(record_id) < 2**64:
            return int(record_id)
    else:
        try:
            if str(uuid.UUID(record_id)) == record_id:
                return record_id
        except ValueError:
            pass
    raise UserError(f"Qdrant cannot store the id {record_id!r}: point ids are unsigned "
                    "64-bit integers (in decimal) or UUIDs (lower case, with hyphens)")


def _valid_ids(ids: Sequence[str]) -> list[int | str]:
    """The point ids of those ids Qdrant could hold (others cannot exist), deduplicated."""
    out: dict[int | str, None] = {}
    for rid in ids:
        try:
            out[point_id(str(rid))] = None
        except UserError:
            pass
    return list(out)


class QdrantBackend:
    """An :class:`~memmaint.maintenance.store.external.ExternalBackend` over Qdrant.

    ``QdrantBackend("qdrant:///data/qdrant?collection=memories")``; with ``create=False`` a
    missing folder, or a missing collection named by ``collection``, is a ``UserError``.
    """

    system = "qdrant"
    embeds_itself = False

    def __init__(self, url: str | ConnectorURL, *, create: bool = True) -> None:
        parsed = url if isinstance(url, ConnectorURL) else ConnectorURL.parse(
            url, known=URL_PARAMS)
        if parsed.scheme not in _SCHEMES:
            raise UserError(f"not a Qdrant URL: {redact(parsed.raw)} (qdrant:///path, "
                            "qdrant+http://host:port)")
        self.url = redact(parsed.raw)
        self.vector_model: str | None = parsed.params.get("model") or None
        self.collection: str | None = parsed.params.get("collection") or None
        self.text_key = parsed.params.get("text_key") or "text"
        self.vector_name: str | None = parsed.params.get("vector") or None
        self.local_path: str | None = None
        self._layouts: dict[str, tuple[str | None, bool]] = {}
        qdrant_client = require("qdrant_client", "qdrant")
        self._models = require("qdrant_client.models", "qdrant")
        if parsed.scheme == "qdrant":
            path = parsed.netloc + parsed.path if parsed.netloc else parsed.path
            if not path:
                raise UserError(f"store URL {self.url} names no folder (qdrant:///path/to/dir)")
            self.local_path = str(Path(path).expanduser())
            if not create and not Path(self.local_path).exists():
                raise UserError(f"no Qdrant store at {self.local_path}")
            try:
                self._client = qdrant_client.QdrantClient(path=self.local_path)
            except RuntimeError as exc:
                if "already accessed" not in str(exc):
                    raise StoreError(f"qdrant {self.url}: open failed: {exc}") from exc
                raise StoreError(f"qdrant {self.url}: the folder {self.local_path} is open "
                                 "in another Qdrant client (local mode allows one at a "
                                 "time; use a Qdrant server to share it)") from None
        else:
            parts = urlsplit(parsed.raw)
            try:
                port = parts.port or 6333
            except ValueError:
                raise UserError(f"bad port in store URL {self.url}") from None
            if not parts.hostname:
                raise UserError(f"store URL {self.url} names no host (qdrant+http://host:port)")
            key = parsed.params.get("api_key") or parts.password or None
            if key and parsed.scheme == "qdrant+http":
                log.warning("qdrant %s: sending the API key over plain http", self.url)
            with self._guard("connect"), warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # the warning above, once
                self._client = qdrant_client.QdrantClient(
                    host=parts.hostname, port=port, https=parsed.scheme == "qdrant+https",
                    api_key=key, check_compatibility=False)
                self._client.get_collections()  # fail now, with one line, if unreachable
        if not create and self.collection is not None and not self._exists(self.collection):
            self.close()
            raise UserError(f"no Qdrant collection {self.collection!r} at {self.url}")

    # -- the protocol ---------------------------------------------------------------------

    def namespaces(self) -> list[str]:
        """The collections this URL addresses that exist now, sorted."""
        if self.collection is not None:
            return [self.collection] if self._exists(self.collection) else []
        with self._guard("list collections"):
            found = self._client.get_collections().collections
        return sorted(c.name for c in found)

    lists_without_vectors = True  # read_all(vectors=False): see ExternalBackend.read_all

    def read_all(self, namespace: str, vectors: bool = True) -> list[ExternalRecord]:
        """Every point of the collection, with vectors unless ``vectors`` is False (empty
        when it does not exist)."""
        if not self._exists(namespace):
            return []
        name, _ = self._layout(namespace)
        records: list[ExternalRecord] = []
        offset: Any = None
        want: Any = ([name] if name else True) if vectors else False
        while True:
            with self._guard(f"read {namespace!r}"):
                points, offset = self._client.scroll(
                    namespace, limit=_PAGE, offset=offset, with_payload=True,
                    with_vectors=want)
            records.extend(self._record(p, name) for p in points)
            if offset is None:
                return records

    def read(self, namespace: str, ids: Sequence[str]) -> dict[str, ExternalRecord]:
        """The points with these ids that exist, with vectors."""
        out: dict[str, ExternalRecord] = {}
        if not self._exists(namespace):
            return out
        name, _ = self._layout(namespace)
        for batch in chunks(_valid_ids(ids), _PAGE):
            with self._guard(f"read {namespace!r}"):
                points = self._client.retrieve(namespace, ids=list(batch), with_payload=True,
                                               with_vectors=[name] if name else True)
            out.update((r.id, r) for r in (self._record(p, name) for p in points))
        return out

    def upsert(self, namespace: str, records: Sequence[ExternalRecord]) -> None:
        """Write the records exactly (creating a cosine collection if needed)."""
        last = {r.id: r for r in records}  # one write per id: the last one wins
        if not last:
            return
        for r in last.values():
            point_id(r.id)
            if r.vector is None:
                raise StoreError(f"qdrant {self.url}: record {r.id!r} has no vector")
            if self.text_key in r.metadata:
                raise UserError(f"record {r.id!r} has a metadata key {self.text_key!r}, the "
                                "payload key of the text: pick another ?text_key=")
        if not self._exists(namespace):
            first_vector = next(iter(last.values())).vector
            assert first_vector is not None  # every record's vector was checked above
            self._create(namespace, len(np.ravel(first_vector)))
        name, others = self._layout(namespace)
        for batch in chunks(list(last.values()), _PAGE):
            ids = [point_id(r.id) for r in batch]
            kept: dict[str, dict[str, Any]] = {}
            if others:  # an upsert replaces the whole point: carry its other vectors over
                with self._guard(f"read {namespace!r}"):
                    old = self._client.retrieve(namespace, ids=ids, with_payload=False,
                                                with_vectors=True)
                kept = {str(p.id): dict(p.vector or {}) for p in old}
            points = []
            for pid, r in zip(ids, batch):
                vec = [float(x) for x in np.asarray(r.vector, dtype=np.float32).ravel()]
                vector: Any = vec if name is None else {**kept.get(r.id, {}), name: vec}
                points.append(self._models.PointStruct(
                    id=pid, vector=vector, payload={self.text_key: r.text, **r.metadata}))
            with self._guard(f"write {namespace!r}"):
                self._client.upsert(namespace, points=points, wait=True)

    def delete(self, namespace: str, ids: Sequence[str]) -> None:
        """Remove these points; missing ids (or a missing collection) are ignored."""
        if not self._exists(namespace):
            return
        for batch in chunks(_valid_ids(ids), _PAGE):
            with self._guard(f"delete from {namespace!r}"):
                self._client.delete(namespace, wait=True,
                                    points_selector=self._models.PointIdsList(
                                        points=list(batch)))

    def close(self) -> None:
        """Release the client (in local mode, the folder's lock)."""
        client = self.__dict__.pop("_client", None)
        self._layouts.clear()
        close_quietly(f"qdrant {self.url}", client)

    # -- helpers --------------------------------------------------------------------------

    def _guard(self, what: str) -> AbstractContextManager[None]:
        """Turn a library failure into one clear ``StoreError`` line."""
        return library_errors(f"qdrant {self.url}", what)

    def _exists(self, namespace: str) -> bool:
        if self.collection is not None and namespace != self.collection:
            raise UserError(f"{self.url} addresses collection {self.collection!r} only, "
                            f"not {namespace!r}")
        if "_client" not in self.__dict__:
            raise StoreError(f"qdrant {self.url}: the backend is closed")
        with self._guard(f"look up collection {namespace!r}"):
            return bool(self._client.collection_exists(namespace))

    def _create(self, namespace: str, size: int) -> None:
        params = self._models.VectorParams(size=size, distance=self._models.Distance.COSINE)
        with self._guard(f"create collection {namespace!r}"):
            self._client.create_collection(
                namespace,
                vectors_config=params if self.vector_name is None
                else {self.vector_name: params})
        log.info("qdrant %s: created collection %r (cosine, %d dimensions)", self.url,
                 namespace, size)

    def _layout(self, namespace: str) -> tuple[str | None, bool]:
        """(the vector name to use, None for the unnamed vector; whether points may hold
        other vectors that an upsert must carry over), read from the collection's config."""
        if namespace in self._layouts:
            return self._layouts[namespace]
        with self._guard(f"read collection {namespace!r}"):
            params = self._client.get_collection(namespace).config.params
        vectors, sparse = params.vectors, params.sparse_vectors or {}
        if isinstance(vectors, dict):
            if self.vector_name is not None and self.vector_name not in vectors:
                raise UserError(f"Qdrant collection {namespace!r} has no vector "
                                f"{self.vector_name!r} (it has: {', '.join(sorted(vectors))})")
            if self.vector_name is None and len(vectors) != 1:
                raise UserError(f"Qdrant collection {namespace!r} has named vectors "
                                f"{', '.join(sorted(vectors)) or '(none)'}: add ?vector=NAME "
                                "to the store URL")
            name: str | None = self.vector_name or next(iter(vectors))
            config = vectors[name]
            layout = (name, len(vectors) > 1 or bool(sparse))
        else:
            if self.vector_name is not None:
                raise UserError(f"Qdrant collection {namespace!r} has one unnamed vector: "
                                f"drop ?vector={self.vector_name} from the store URL")
            config, layout = vectors, (None, False)
        if getattr(config, "multivector_config", None) is not None:
            raise UserError(f"Qdrant collection {namespace!r} stores multivectors, which "
                            "memmaint does not maintain")
        self._layouts[namespace] = layout
        return layout

    def _record(self, point: Any, name: str | None) -> ExternalRecord:
        payload = dict(point.payload or {})
        text = payload.pop(self.text_key, "")
        if not isinstance(text, str):
            text = "" if text is None else json.dumps(text, ensure_ascii=False)
        raw = point.vector.get(name) if isinstance(point.vector, dict) else point.vector
        vector = None if raw is None else np.asarray(raw, dtype=np.float32)
        return ExternalRecord(id=str(point.id), text=text, metadata=payload, vector=vector)


def _without_api_key(url: str) -> str:
    parts = urlsplit(url)
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if k != "api_key"])
    return urlunsplit(parts._replace(query=query))


def open_url(url: str, *, create: bool) -> MemoryStore:
    """Open a Qdrant URL as a memmaint store (a mirror with a sidecar SQLite file)."""
    parsed = ConnectorURL.parse(url, known=URL_PARAMS)
    backend = QdrantBackend(parsed, create=create)
    try:
        from memmaint.maintenance.store.mirror import ExternalStore

        # the sidecar's default name must not change with the API key
        keyless = ConnectorURL.parse(_without_api_key(url), known=URL_PARAMS)
        return ExternalStore(backend, default_sidecar(keyless, backend.local_path),
                             create=create)
    except BaseException:
        backend.close()
        raise


__all__ = ["QdrantBackend", "open_url", "point_id"]
