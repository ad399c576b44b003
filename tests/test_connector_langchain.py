"""Collections LangChain wrote, read back through LangChain's own vector stores after a run
(issue #34: users' data keeps the shape their applications read).

Seeded with LangChain's ``add_texts`` (``langchain_chroma.Chroma``,
``langchain_qdrant.QdrantVectorStore``; MiniLM vectors through a LangChain ``Embeddings``
over memmaint's own embedder), the user's time in each document's ``created_at`` metadata,
newest first; ``memmaint run`` then ``memmaint undo`` through the ``chroma://`` and
``qdrant://`` connectors; read back with the vector store's ``get``/``get_by_ids`` and
``similarity_search``.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("langchain_core", reason="pip install langchain-core")

from langchain_core.embeddings import Embeddings

from memmaint.maintenance.cli.main import main
from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.core.registry import EMBEDDERS

COLLECTION = "memories"
CONFIG = ('[embedding]\nmodel = "minilm"\n[reduction]\nmethod = "none"\n'
          '[clustering.hdbscan]\nmin_cluster_size = 2\n[job]\nmin_new_memories = 1\n')
#: (id, text, the user's created_at), in insertion order: the newer standup fact first
DOCS = [
    ("m18", "The team standup moved to Tuesdays at 9:30.", "2025-05-06T09:00:00Z"),
    ("m17", "The team standup is on Mondays at 9:15.", "2025-02-18T10:00:00Z"),
    ("m20", "The user prefers dark mode in every editor.", "2025-03-01T08:00:00Z"),
    ("m21", "the user prefers dark mode in every editor", "2025-03-02T08:00:00Z"),
    ("m30", "Release notes go in CHANGELOG.md under Unreleased.", "2025-01-10T12:00:00Z"),
]


class MemmaintMiniLM(Embeddings):
    """A LangChain ``Embeddings`` over memmaint's MiniLM embedder (the model the URL's
    ``model=minilm`` names, so memmaint reuses the vectors LangChain stored)."""

    def __init__(self) -> None:
        self.embedder = EMBEDDERS.get("minilm")(EmbeddingConfig(model="minilm"))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self.embedder.embed(list(texts))]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def vector_store(path: Path, embeddings: Embeddings) -> Any:
    """LangChain's Chroma vector store over the collection (a new client each time)."""
    pytest.importorskip("chromadb", reason="pip install 'memmaint[chroma]'")
    langchain_chroma = pytest.importorskip("langchain_chroma", reason="pip install langchain-chroma")
    from chromadb.config import Settings

    return langchain_chroma.Chroma(
        collection_name=COLLECTION, embedding_function=embeddings, persist_directory=str(path),
        client_settings=Settings(anonymized_telemetry=False, is_persistent=True,
                                 persist_directory=str(path)),
        collection_metadata={"hnsw:space": "cosine"})


def documents(path: Path, embeddings: Embeddings) -> dict[str, tuple[str, dict[str, Any]]]:
    """``{id: (page_content, metadata)}`` as LangChain reads the collection: ``get`` for
    every document, and ``similarity_search`` must return the same documents."""
    store = vector_store(path, embeddings)
    got = store.get(include=["documents", "metadatas"])
    out = {i: (text, dict(meta or {})) for i, text, meta
           in zip(got["ids"], got["documents"], got["metadatas"])}
    found = store.similarity_search("When is the team standup?", k=len(out) or 1)
    assert {d.id: (d.page_content, d.metadata) for d in found} == {
        d.id: out[d.id] for d in found}
    return out


def run_memmaint(tmp_path: Path, url: str) -> str:
    """``memmaint run`` on ``url`` with the MiniLM config; the run's id."""
    config = tmp_path / "minilm.toml"
    config.write_text(CONFIG)
    report = tmp_path / "report.json"
    run = CliRunner().invoke(main, ["run", "--db", url, "--config", str(config), "--report",
                                    str(report)], catch_exceptions=False)
    assert run.exit_code == 0, run.output
    return str(json.loads(report.read_text())["run_id"])


def test_a_langchain_chroma_collection_reads_with_langchain_after_a_run(tmp_path: Path) -> None:
    """After a run every surviving document keeps its id, its text or the merged text, and
    its metadata keys and types (what LangChain's reader returns); the newer fact by the
    user's time wins although it was inserted first; undo gives LangChain back every
    document as it was."""
    path = tmp_path / "chroma"
    embeddings = MemmaintMiniLM()
    vector_store(path, embeddings).add_texts(
        [text for _, text, _ in DOCS],
        metadatas=[{"created_at": when, "turn": n, "score": 0.5 + n / 10, "pinned": n % 2 == 0,
                    "source": "agent"} for n, (_, _, when) in enumerate(DOCS)],
        ids=[mid for mid, _, _ in DOCS])
    before = documents(path, embeddings)
    assert set(before) == {mid for mid, _, _ in DOCS}
    url = (f"chroma://{path}?collection={COLLECTION}&model=minilm"
           f"&sidecar={tmp_path / 'sidecar.db'}")
    run_id = run_memmaint(tmp_path, url)

    after = documents(path, embeddings)
    assert set(after) < set(before)
    assert "m18" in after and "m17" not in after  # May's change, by the user's time
    assert ("m20" in after) != ("m21" in after)  # the restatement: one document left
    assert after["m30"] == before["m30"]
    for mid, (_text, metadata) in after.items():
        assert {k: (type(v), v) for k, v in metadata.items()} == \
            {k: (type(v), v) for k, v in before[mid][1].items()}

    undo = CliRunner().invoke(main, ["undo", "--db", url, run_id], catch_exceptions=False)
    assert undo.exit_code == 0, undo.output
    assert documents(path, embeddings) == before


def qdrant_documents(path: Path, embeddings: Embeddings,
                     ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
    """``{id: (page_content, metadata)}`` as ``langchain_qdrant.QdrantVectorStore`` reads
    the points ``ids`` that exist (less the ``_id`` and ``_collection_name`` it adds), and
    ``similarity_search`` must return the same documents; a payload in another shape makes
    it fail (a list as ``metadata`` raises ``TypeError``)."""
    langchain_qdrant = pytest.importorskip("langchain_qdrant", reason="pip install langchain-qdrant")
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(path))  # local mode: one client at a time, closed below
    try:
        store = langchain_qdrant.QdrantVectorStore(client=client, collection_name=COLLECTION,
                                                   embedding=embeddings)

        def plain(doc: Any) -> tuple[str, tuple[str, dict[str, Any]]]:
            meta = dict(doc.metadata)
            assert meta.pop("_collection_name") == COLLECTION
            return str(meta.pop("_id")), (doc.page_content, meta)

        out = dict(plain(d) for d in store.get_by_ids(ids))
        found = store.similarity_search("When is the team standup?", k=len(out) or 1)
        assert dict(plain(d) for d in found) == {plain(d)[0]: out[plain(d)[0]] for d in found}
        return out
    finally:
        client.close()


def test_a_langchain_qdrant_collection_reads_with_langchain_after_a_run(tmp_path: Path) -> None:
    """The same through Qdrant: LangChain's payload (``page_content`` and a ``metadata``
    object), the user's time at ``metadata.created_at``."""
    langchain_qdrant = pytest.importorskip("langchain_qdrant", reason="pip install langchain-qdrant")
    qdrant_client = pytest.importorskip("qdrant_client", reason="pip install 'memmaint[qdrant]'")
    from qdrant_client import models

    path = tmp_path / "qdrant"
    embeddings = MemmaintMiniLM()
    ids = {mid: str(uuid.UUID(int=int(mid[1:]))) for mid, _, _ in DOCS}
    client = qdrant_client.QdrantClient(path=str(path))
    try:
        client.create_collection(COLLECTION, vectors_config=models.VectorParams(
            size=embeddings.embedder.dim, distance=models.Distance.COSINE))
        langchain_qdrant.QdrantVectorStore(
            client=client, collection_name=COLLECTION, embedding=embeddings).add_texts(
            [text for _, text, _ in DOCS], ids=[ids[mid] for mid, _, _ in DOCS],
            metadatas=[{"created_at": when, "turn": n, "score": 0.5 + n / 10,
                        "pinned": n % 2 == 0, "tags": ["team"]}
                       for n, (_, _, when) in enumerate(DOCS)])
    finally:
        client.close()
    every = list(ids.values())
    before = qdrant_documents(path, embeddings, every)
    assert set(before) == set(every)
    url = (f"qdrant://{path}?collection={COLLECTION}&text_key=page_content&model=minilm"
           f"&sidecar={tmp_path / 'sidecar.db'}")
    run_id = run_memmaint(tmp_path, url)

    after = qdrant_documents(path, embeddings, every)
    assert set(after) < set(before)
    assert ids["m18"] in after and ids["m17"] not in after  # May's change, by the user's time
    assert (ids["m20"] in after) != (ids["m21"] in after)
    assert after[ids["m30"]] == before[ids["m30"]]
    for pid, (_text, metadata) in after.items():
        assert {k: (type(v), v) for k, v in metadata.items()} == \
            {k: (type(v), v) for k, v in before[pid][1].items()}

    undo = CliRunner().invoke(main, ["undo", "--db", url, run_id], catch_exceptions=False)
    assert undo.exit_code == 0, undo.output
    assert qdrant_documents(path, embeddings, every) == before
