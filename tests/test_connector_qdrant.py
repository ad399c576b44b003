"""The Qdrant connector against the real qdrant-client library in local mode
(``QdrantClient(path=...)``), plus one test against a server when ``MEMMAINT_TEST_QDRANT_URL``
names one (``qdrant+http://127.0.0.1:6333``).

:class:`QdrantKit` is the fixture kit of the connectors' end-to-end suite: it seeds and reads
a collection with qdrant-client's own API, never through memmaint."""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from connector_e2e import ConnectorEndToEnd

qdrant_client = pytest.importorskip("qdrant_client", reason="pip install 'memmaint[qdrant]'")

from qdrant_client import models

from memmaint.maintenance.core.errors import MissingExtraError, StoreError, UserError
from memmaint.maintenance.store.external import ExternalBackend, ExternalRecord
from memmaint.maintenance.store.qdrant import QdrantBackend, _without_api_key, open_url, point_id
from memmaint.maintenance.store.registry import open_store

DIM = 16


def uid(n: int) -> str:
    """A deterministic UUID id (Qdrant point ids are UUIDs or unsigned integers)."""
    return str(uuid.UUID(int=n + 1))


def unit(seed: int, dim: int = DIM) -> np.ndarray:
    vec = np.random.default_rng(seed).normal(size=dim).astype(np.float32)
    return vec / np.linalg.norm(vec)


def rec(rid: str, text: str = "", metadata: dict[str, Any] | None = None,
        seed: int = 0) -> ExternalRecord:
    return ExternalRecord(rid, text or f"memory {rid}", metadata or {}, unit(seed))


def same(a: ExternalRecord, b: ExternalRecord) -> bool:
    """Equal as the protocol requires: id, text, metadata as JSON, vector within float32
    rounding (Qdrant re-normalises vectors in cosine collections)."""
    return (a.id == b.id and a.text == b.text
            and json.dumps(a.metadata, sort_keys=True) == json.dumps(b.metadata, sort_keys=True)
            and a.vector is not None and b.vector is not None
            and np.allclose(a.vector, b.vector, rtol=1e-6, atol=1e-7))


class QdrantKit:
    """Seeds and reads one local-mode Qdrant collection with qdrant-client's own API.

    Ids must be UUIDs or decimal unsigned integers (Qdrant stores no other ids). Local mode
    lets one client open the folder at a time: call ``seed``/``read_back``/``vectors`` only
    while no memmaint store is open on :meth:`url` (each call opens and closes a client)."""

    text_key = "text"

    def __init__(self, tmp_path: Path, namespace: str = "memories") -> None:
        self.path = tmp_path / "qdrant"
        self.sidecar = tmp_path / "sidecar.db"
        self.namespace = namespace

    def url(self) -> str:
        return f"qdrant://{self.path}?collection={self.namespace}&sidecar={self.sidecar}"

    def _client(self) -> Any:
        return qdrant_client.QdrantClient(path=str(self.path))

    def seed(self, rows: list[tuple[str, str, dict, list[float]]]) -> None:
        c = self._client()
        try:
            if not c.collection_exists(self.namespace):
                c.create_collection(self.namespace, vectors_config=models.VectorParams(
                    size=len(rows[0][3]), distance=models.Distance.COSINE))
            c.upsert(self.namespace, wait=True, points=[
                models.PointStruct(id=int(i) if i.isdigit() else i, vector=list(v),
                                   payload={self.text_key: t, **m}) for i, t, m, v in rows])
        finally:
            c.close()

    def _points(self) -> list[Any]:
        c = self._client()
        try:
            if not c.collection_exists(self.namespace):
                return []
            points, offset = c.scroll(self.namespace, limit=1000, with_vectors=True)
            while offset is not None:
                more, offset = c.scroll(self.namespace, limit=1000, offset=offset,
                                        with_vectors=True)
                points += more
            return points
        finally:
            c.close()

    def read_back(self) -> dict[str, tuple[str, dict]]:
        out = {}
        for p in self._points():
            payload = dict(p.payload or {})
            out[str(p.id)] = (payload.pop(self.text_key, ""), payload)
        return out

    def vectors(self) -> dict[str, list[float]]:
        return {str(p.id): [float(x) for x in p.vector] for p in self._points()}


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[QdrantBackend]:
    b = QdrantBackend(f"qdrant://{tmp_path}/db?collection=memories")
    yield b
    b.close()


# -- the protocol ---------------------------------------------------------------------------

def test_is_an_external_backend(backend: QdrantBackend) -> None:
    assert isinstance(backend, ExternalBackend)
    assert (backend.system, backend.embeds_itself, backend.vector_model) == (
        "qdrant", False, None)


def test_empty_namespace(backend: QdrantBackend) -> None:
    assert backend.namespaces() == []
    assert backend.read_all("memories") == []
    assert backend.read("memories", [uid(1)]) == {}
    backend.delete("memories", [uid(1)])
    assert backend.namespaces() == []


def test_upsert_then_read_all_equals(backend: QdrantBackend) -> None:
    records = [rec(uid(i), metadata={"i": i, "topic": "t"}, seed=i) for i in range(5)]
    records.append(rec("42", "an integer id", {"n": 42}, seed=9))
    backend.upsert("memories", records)
    assert backend.namespaces() == ["memories"]
    got = {r.id: r for r in backend.read_all("memories")}
    assert set(got) == {r.id for r in records}  # "42" reads back as the string "42"
    assert all(same(got[r.id], r) for r in records)
    assert all(r.created_at is None and r.vector.dtype == np.float32 for r in got.values())
    picked = backend.read("memories", [uid(1), "42", uid(99), "not-an-id", uid(1)])
    assert set(picked) == {uid(1), "42"} and same(picked["42"], records[-1])


def test_upsert_replaces_exactly(backend: QdrantBackend) -> None:
    backend.upsert("memories", [rec(uid(1), "old", {"keep": 1, "drop": "x"}, 1)])
    new = rec(uid(1), "new text", {"keep": 2, "added": {"n": 1}}, 2)
    backend.upsert("memories", [new])
    assert same(backend.read("memories", [uid(1)])[uid(1)], new)
    emptied = rec(uid(1), "no metadata", {}, 3)
    backend.upsert("memories", [emptied])
    assert same(backend.read("memories", [uid(1)])[uid(1)], emptied)


def test_upsert_is_idempotent_and_last_wins(backend: QdrantBackend) -> None:
    records = [rec(uid(1), metadata={"v": 1}), rec(uid(2), seed=1)]
    backend.upsert("memories", records)
    backend.upsert("memories", records)
    assert len(backend.read_all("memories")) == 2
    backend.upsert("memories", [rec(uid(1), "first"), rec(uid(1), "second")])
    assert backend.read("memories", [uid(1)])[uid(1)].text == "second"


def test_delete_is_idempotent(backend: QdrantBackend) -> None:
    backend.upsert("memories", [rec(uid(1)), rec(uid(2), seed=1)])
    backend.delete("memories", [uid(1), uid(50), "not-an-id"])
    backend.delete("memories", [uid(1)])
    backend.delete("memories", [])
    assert [r.id for r in backend.read_all("memories")] == [uid(2)]


ODD = {
    "nested": {"a": [1, {"b": None}], "c": "d"},
    "empty_list": [], "empty_dict": {}, "none": None, "mixed": [1, "a", True, None],
    "big": 2**62, "float": 0.1, "bool": False, "empty_str": "", "": "empty key",
    "unicode ✓": "déjà vu", "$dollar": 1, "data": "mem0's text key, here plain metadata",
}


def test_odd_metadata_round_trips(backend: QdrantBackend) -> None:
    r = rec(uid(7), "odd metadata", ODD)
    backend.upsert("memories", [r])
    assert same(backend.read("memories", [uid(7)])[uid(7)], r)


@pytest.mark.parametrize("bad", ["abc", "007", "-1", "1.5", str(2**64),
                                 "6F9619FF-8B86-D011-B42D-00C04FC964FF",
                                 "6f9619ff8b86d011b42d00c04fc964ff", ""])
def test_ids_qdrant_cannot_store_are_refused(backend: QdrantBackend, bad: str) -> None:
    with pytest.raises(UserError, match="Qdrant cannot store the id"):
        backend.upsert("memories", [rec(uid(1)), rec(bad)])
    assert backend.read_all("memories") == []  # nothing of the batch was written


def test_point_ids() -> None:
    assert point_id("0") == 0 and point_id(str(2**64 - 1)) == 2**64 - 1
    assert point_id(uid(3)) == uid(3)


def test_vectors_round_trip_and_cosine_normalises(backend: QdrantBackend) -> None:
    vec = unit(5).astype(np.float64)
    backend.upsert("memories", [ExternalRecord(uid(1), "unit", {}, vec)])
    got = backend.read("memories", [uid(1)])[uid(1)].vector
    assert got is not None and got.dtype == np.float32
    assert np.allclose(got, vec.astype(np.float32), rtol=1e-6, atol=1e-7)
    backend.upsert("memories", [ExternalRecord(uid(2), "long", {}, 3 * unit(6))])
    stored = backend.read("memories", [uid(2)])[uid(2)].vector  # as Qdrant stores it
    assert np.allclose(stored, unit(6), atol=1e-6)


def test_two_namespaces_kept_apart(tmp_path: Path) -> None:
    b = QdrantBackend(f"qdrant://{tmp_path}/db")  # no collection: every collection
    try:
        b.upsert("alpha", [rec(uid(1), "in alpha")])
        b.upsert("beta", [rec(uid(1), "in beta", seed=1), rec(uid(2), seed=2)])
        assert b.namespaces() == ["alpha", "beta"]
        assert [r.text for r in b.read_all("alpha")] == ["in alpha"]
        b.delete("beta", [uid(1)])
        assert [r.id for r in b.read_all("beta")] == [uid(2)]
        assert [r.id for r in b.read_all("alpha")] == [uid(1)]
    finally:
        b.close()
    only = QdrantBackend(f"qdrant://{tmp_path}/db?collection=beta")
    try:
        assert only.namespaces() == ["beta"]
        with pytest.raises(UserError, match="addresses collection 'beta' only"):
            only.read_all("alpha")
    finally:
        only.close()


def test_new_collection_is_cosine_with_the_first_dimension(tmp_path: Path) -> None:
    kit = QdrantKit(tmp_path)
    b = QdrantBackend(kit.url())
    b.upsert(kit.namespace, [rec(uid(1))])
    b.close()
    c = kit._client()
    try:
        params = c.get_collection(kit.namespace).config.params.vectors
        assert (params.size, params.distance) == (DIM, models.Distance.COSINE)
    finally:
        c.close()


def test_reads_what_qdrant_itself_wrote_with_text_key(tmp_path: Path) -> None:
    kit = QdrantKit(tmp_path)
    kit.text_key = "data"  # as mem0 writes it
    kit.seed([(uid(1), "seeded", {"user_id": "u1", "tags": ["a"]}, list(unit(1))),
              ("9", "int id", {}, list(unit(2)))])
    b = QdrantBackend(kit.url() + "&text_key=data")
    try:
        got = {r.id: r for r in b.read_all(kit.namespace)}
        assert (got[uid(1)].text, dict(got[uid(1)].metadata)) == (
            "seeded", {"user_id": "u1", "tags": ["a"]})
        assert got["9"].text == "int id" and np.allclose(got["9"].vector, unit(2))
        b.upsert(kit.namespace, [got[uid(1)]])
        with pytest.raises(UserError, match="metadata key 'data'"):
            b.upsert(kit.namespace, [rec(uid(3), metadata={"data": "clash"})])
    finally:
        b.close()
    assert kit.read_back()[uid(1)] == ("seeded", {"user_id": "u1", "tags": ["a"]})
    assert sorted(kit.vectors()) == sorted([uid(1), "9"])


def test_named_vectors(tmp_path: Path) -> None:
    c = qdrant_client.QdrantClient(path=str(tmp_path / "db"))
    c.create_collection("memories", vectors_config={
        "dense": models.VectorParams(size=DIM, distance=models.Distance.COSINE),
        "small": models.VectorParams(size=4, distance=models.Distance.COSINE)})
    c.upsert("memories", wait=True, points=[models.PointStruct(
        id=uid(1), vector={"dense": list(unit(1)), "small": [1.0, 0.0, 0.0, 0.0]},
        payload={"text": "two vectors"})])
    c.close()
    b = QdrantBackend(f"qdrant://{tmp_path}/db?collection=memories")
    try:
        with pytest.raises(UserError, match=r"named vectors dense, small: add \?vector=NAME"):
            b.read_all("memories")
    finally:
        b.close()
    b = QdrantBackend(f"qdrant://{tmp_path}/db?collection=memories&vector=dense")
    try:
        [got] = b.read_all("memories")
        assert got.text == "two vectors" and np.allclose(got.vector, unit(1))
        b.upsert("memories", [rec(uid(1), "rewritten", {}, seed=2)])
    finally:
        b.close()
    c = qdrant_client.QdrantClient(path=str(tmp_path / "db"))
    try:
        [point] = c.retrieve("memories", ids=[uid(1)], with_vectors=True)
        assert point.payload == {"text": "rewritten"}
        assert np.allclose(point.vector["dense"], unit(2), atol=1e-6)
        assert point.vector["small"] == [1.0, 0.0, 0.0, 0.0]  # the other vector is kept
    finally:
        c.close()
    with pytest.raises(UserError, match="has no vector 'nope'"):
        b = QdrantBackend(f"qdrant://{tmp_path}/db?collection=memories&vector=nope")
        try:
            b.read_all("memories")
        finally:
            b.close()


def test_vector_name_creates_and_must_match(tmp_path: Path) -> None:
    b = QdrantBackend(f"qdrant://{tmp_path}/db?vector=emb")
    try:
        b.upsert("named", [rec(uid(1))])
        assert same(b.read_all("named")[0], rec(uid(1)))
    finally:
        b.close()
    b = QdrantBackend(f"qdrant://{tmp_path}/db")  # one named vector: picked by itself
    try:
        assert same(b.read_all("named")[0], rec(uid(1)))
        b.upsert("plain", [rec(uid(2))])
    finally:
        b.close()
    b = QdrantBackend(f"qdrant://{tmp_path}/db?vector=emb")
    try:
        with pytest.raises(UserError, match="one unnamed vector"):
            b.read_all("plain")
    finally:
        b.close()


def test_record_without_vector_is_refused(backend: QdrantBackend) -> None:
    with pytest.raises(StoreError, match="no vector"):
        backend.upsert("memories", [ExternalRecord(uid(1), "text")])


def test_wrong_dimension_is_one_store_error(backend: QdrantBackend) -> None:
    backend.upsert("memories", [rec(uid(1))])
    with pytest.raises(StoreError, match="qdrant .*write 'memories' failed"):
        backend.upsert("memories", [ExternalRecord(uid(2), "t", {}, np.ones(3, np.float32))])


def test_local_folder_is_released_on_close(tmp_path: Path) -> None:
    url = f"qdrant://{tmp_path}/db?collection=memories"
    b = QdrantBackend(url)
    b.upsert("memories", [rec(uid(1))])
    with pytest.raises(StoreError, match="open in another Qdrant client"):
        QdrantBackend(url)
    b.close()
    b.close()
    with pytest.raises(StoreError, match="closed"):
        b.read_all("memories")
    again = QdrantBackend(url, create=False)
    try:
        assert [r.id for r in again.read_all("memories")] == [uid(1)]
    finally:
        again.close()



def test_open_store_by_url_with_default_sidecar(tmp_path: Path) -> None:
    
    url = f"qdrant://{tmp_path}/db?collection=memories"
    store = open_store(url)
    try:
        assert store.sidecar_path == f"{tmp_path}/db.memmaint.db"
    finally:
        store.close()
    assert (tmp_path / "db.memmaint.db").exists()
    QdrantBackend(url).close()  # the store released the client


# -- URLs and errors ------------------------------------------------------------------------

@pytest.mark.parametrize("url, message", [
    ("qdrant:///tmp/x?colection=a", "unknown parameter 'colection'"),
    ("qdrant://?collection=memories", "names no folder"),
    ("qdrant+http://:6333?collection=memories", "names no host"),
    ("qdrant+http://host:port?collection=memories", "bad port"),
    ("chroma:///tmp/x", "not a Qdrant URL"),
])
def test_bad_urls_are_user_errors(url: str, message: str) -> None:
    with pytest.raises(UserError, match=message):
        QdrantBackend(url)


def test_missing_store_with_create_false(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=f"no Qdrant store at {tmp_path}/absent"):
        QdrantBackend(f"qdrant://{tmp_path}/absent?collection=memories", create=False)
    assert not (tmp_path / "absent").exists()
    with pytest.raises(UserError, match=f"no Qdrant store at {tmp_path}/absent"):
        open_url(f"qdrant://{tmp_path}/absent", create=False)
    QdrantBackend(f"qdrant://{tmp_path}/db").close()
    with pytest.raises(UserError, match="no Qdrant collection 'memories'"):
        QdrantBackend(f"qdrant://{tmp_path}/db?collection=memories", create=False)
    QdrantBackend(f"qdrant://{tmp_path}/db?collection=memories", create=True).close()


@pytest.mark.parametrize("url", ["qdrant+http://127.0.0.1:9?collection=m&api_key=s3cret",
                                 "qdrant+https://:s3cret@127.0.0.1:9?collection=m"])
def test_unreachable_server_is_one_line_without_the_key(url: str) -> None:
    with pytest.raises(StoreError) as caught:  # nothing listens on port 9
        QdrantBackend(url)
    message = str(caught.value)
    assert "s3cret" not in message and "***" in message and len(message.splitlines()) == 1


def test_sidecar_name_ignores_the_api_key() -> None:
    assert _without_api_key("qdrant+http://h:1?api_key=k&collection=m") == (
        "qdrant+http://h:1?collection=m")
    assert _without_api_key("qdrant+http://h:1?collection=m&api_key=k") == (
        "qdrant+http://h:1?collection=m")


def test_url_params(tmp_path: Path) -> None:
    b = QdrantBackend(f"qdrant://{tmp_path}/db?collection=memories&model=hashing&text_key=t")
    try:
        assert (b.vector_model, b.text_key, b.local_path) == ("hashing", "t", f"{tmp_path}/db")
    finally:
        b.close()


def test_missing_library_names_the_extra(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "qdrant_client", None)  # makes the import fail
    with pytest.raises(MissingExtraError, match=r"pip install 'memmaint\[qdrant\]'"):
        QdrantBackend(f"qdrant://{tmp_path}/db")


# -- a real server --------------------------------------------------------------------------

def test_server() -> None:
    server = os.environ.get("MEMMAINT_TEST_QDRANT_URL")
    if not server:
        pytest.skip("no Qdrant server: set MEMMAINT_TEST_QDRANT_URL=qdrant+http://HOST:PORT "
                    "(qdrant-client ships no server binary)")
    name = f"memmaint_test_{uuid.uuid4().hex[:8]}"
    sep = "&" if "?" in server else "?"
    b = QdrantBackend(f"{server}{sep}collection={name}")
    try:
        records = [rec(uid(1), metadata=ODD), rec("3", seed=1)]
        b.upsert(name, records)
        got = b.read(name, [uid(1), "3"])
        assert same(got[uid(1)], records[0]) and same(got["3"], records[1])
        b.delete(name, ["3", "4"])
        assert [r.id for r in b.read_all(name)] == [uid(1)]
    finally:
        b._client.delete_collection(name)
        b.close()


# -- the connectors' end-to-end suite -------------------------------------------------------

class TestQdrantEndToEnd(ConnectorEndToEnd):
    time_from_metadata = True
    keeps_time = False

    @pytest.fixture
    def kit(self, tmp_path: Path) -> QdrantKit:
        return QdrantKit(tmp_path)


# The store conformance suite does not run on Qdrant: it writes memories with ids such as
# "a" and "m0001", and Qdrant stores only unsigned integers and UUIDs as point ids (refused
# with a clear error above). Everything the suite checks that is not about the system is the
# sidecar's, which the suite checks through Chroma and the JSON-file backend.


# -- a collection LangChain wrote ------------------------------------------------------------

def langchain_documents(points: list[Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """What ``langchain_qdrant.QdrantVectorStore`` builds from each point (its
    ``_document_from_point``: ``page_content``, and the ``metadata`` object to which it adds
    ``_id`` and ``_collection_name``; a list there raises ``TypeError``)."""
    docs = {}
    for point in points:
        metadata = point.payload.get("metadata") or {}
        metadata["_id"] = point.id
        metadata["_collection_name"] = "memories"
        docs[str(point.id)] = (point.payload.get("page_content", ""), metadata)
    return docs


def test_a_langchain_collection_reads_with_langchains_reader_after_a_run(tmp_path: Path) -> None:
    """Payload ``{page_content, metadata: {...}}`` as LangChain writes it, the user's time in
    ``metadata.created_at``, inserted newest first: after a run every point keeps that
    shape, its id and its typed metadata; May's change supersedes February's; the restated
    memory keeps one of its two points; undo puts everything back."""
    from click.testing import CliRunner

    from memmaint.maintenance.cli.main import main
    from memmaint.maintenance.core.config import EmbeddingConfig
    from memmaint.maintenance.core.registry import EMBEDDERS

    texts = ["The team standup moved to Tuesdays at 9:30.",
             "The team standup is on Mondays at 9:15.",
             "The user prefers dark mode in every editor.",
             "the user prefers dark mode in every editor"]
    times = ["2025-05-06T09:00:00Z", "2025-02-18T10:00:00Z", "2025-03-01T08:00:00Z",
             "2025-03-02T08:00:00Z"]
    vecs = EMBEDDERS.get("minilm")(EmbeddingConfig(model="minilm")).embed(texts)
    kit = QdrantKit(tmp_path)
    kit.text_key = "page_content"
    kit.seed([(uid(i), t, {"metadata": {"created_at": when, "turn": i, "score": 0.5,
                                        "pinned": i % 2 == 0, "tags": ["team"]}},
               [float(x) for x in v]) for i, (t, when, v) in enumerate(zip(texts, times, vecs))])
    before = langchain_documents(kit._points())
    config = tmp_path / "minilm.toml"
    config.write_text('[embedding]\nmodel = "minilm"\n[reduction]\nmethod = "none"\n'
                      '[clustering.hdbscan]\nmin_cluster_size = 2\n[job]\nmin_new_memories = 1\n')
    url = kit.url() + "&text_key=page_content&model=minilm"
    report = tmp_path / "report.json"
    run = CliRunner().invoke(main, ["run", "--db", url, "--config", str(config), "--report",
                                    str(report)], catch_exceptions=False)
    assert run.exit_code == 0, run.output
    points = kit._points()
    assert all(set(p.payload) == {"page_content", "metadata"} for p in points)
    after = langchain_documents(points)
    assert set(after) < set(before)
    assert uid(0) in after and uid(1) not in after  # the newer fact, by the user's time
    assert (uid(2) in after) != (uid(3) in after)
    for pid, (_, metadata) in after.items():
        assert {k: (type(v), v) for k, v in metadata.items()} == \
            {k: (type(v), v) for k, v in before[pid][1].items()}
    undo = CliRunner().invoke(main, ["undo", "--db", url, json.loads(report.read_text())[
        "run_id"]], catch_exceptions=False)
    assert undo.exit_code == 0, undo.output
    assert langchain_documents(kit._points()) == before
