"""The mem0 connector against the real mem0 SDK: qdrant in local mode under tmp_path, the
history SQLite file under tmp_path, and mem0's ``openai`` embedder pointed at the stub
server on 127.0.0.1 (``tests/openai_stub_server.py``), which answers ``/embeddings`` with
deterministic 16-d unit vectors. No LLM is called (``infer=False``); telemetry is off."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

# mem0 writes ~/.mem0/config.json when imported: keep it out of the home directory, and
# never let it phone home (the connector also forces this; the kit imports mem0 itself)
os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="mem0-dir-"))
os.environ["MEM0_TELEMETRY"] = "False"
pytest.importorskip("mem0", reason="pip install 'memmaint[mem0]'")
pytest.importorskip("qdrant_client", reason="pip install 'memmaint[mem0]'")

from connector_e2e import ConnectorEndToEnd
from openai_stub_server import Reply, StubServer

from memmaint.maintenance.core.errors import MissingExtraError, StoreError, UserError
from memmaint.maintenance.store.external import ExternalRecord
from memmaint.maintenance.store.mem0 import Mem0Backend, backend_from_url, open_url

DIM = 16


def hash_vector(text: str) -> list[float]:
    """A deterministic unit vector of DIM floats from the text."""
    raw = np.frombuffer(hashlib.sha256(text.encode("utf-8")).digest()[:DIM], dtype=np.uint8)
    vec = raw.astype(np.float64) - 127.5
    return [float(x) for x in vec / np.linalg.norm(vec)]


class Embeddings:
    """The stub's responder: the vector registered for a text, else :func:`hash_vector`."""

    def __init__(self) -> None:
        self.known: dict[str, list[float]] = {}
        self.lock = threading.Lock()

    def vector(self, text: str) -> list[float]:
        with self.lock:
            return self.known.get(text) or hash_vector(text)

    def __call__(self, body: dict[str, Any]) -> Reply:
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
        data = [{"object": "embedding", "index": i, "embedding": self.vector(t)}
                for i, t in enumerate(texts)]
        return Reply(raw=json.dumps({"object": "list", "model": body.get("model", "stub"),
                                     "data": data,
                                     "usage": {"prompt_tokens": 1, "total_tokens": 1}}
                                    ).encode())


def write_config(tmp_path: Path, base_url: str, provider: str = "qdrant") -> Path:
    """A mem0 config: local vector store and history db under tmp_path, stub embedder."""
    store: dict[str, Any] = {"collection_name": "memories", "path": str(tmp_path / provider)}
    if provider == "qdrant":
        store.update(embedding_model_dims=DIM, on_disk=True)
    openai = {"model": "stub", "api_key": "sk-test", "openai_base_url": base_url}
    config = {"vector_store": {"provider": provider, "config": store},
              "embedder": {"provider": "openai", "config": {**openai, "embedding_dims": DIM}},
              "llm": {"provider": "openai", "config": openai},
              "history_db_path": str(tmp_path / "history.db")}
    path = tmp_path / f"mem0-{provider}.json"
    path.write_text(json.dumps(config))
    return path


class Mem0Kit:
    """For ``tests/connector_e2e.py``. mem0 assigns ids itself (``Memory.add``), so
    :meth:`seed` ignores the given ids: it records ``ids_by_text`` (text -> mem0 id) and
    ``id_map`` (given id -> mem0 id) and returns ``id_map``; ``read_back``/``vectors`` are
    keyed by mem0's ids. The given vectors are what the stub embedder answers for those
    texts, so mem0 stores exactly them. ``read_back``'s metadata is mem0's ``metadata``
    field (without ``role``/``user_id``, which mem0 keeps beside it). Each call opens and
    closes its own ``Memory``: qdrant's local mode lets one client hold the folder, so a
    memmaint store on it must be closed meanwhile."""

    namespace = "alice"

    def __init__(self, tmp_path: Path, embeddings: Embeddings, base_url: str,
                 provider: str = "qdrant") -> None:
        self.tmp_path = tmp_path
        self.embeddings = embeddings
        self.config_path = write_config(tmp_path, base_url, provider)
        self.ids_by_text: dict[str, str] = {}
        self.id_map: dict[str, str] = {}

    def url(self) -> str:
        return (f"mem0://{self.config_path}?user_id={self.namespace}"
                f"&sidecar={self.tmp_path / 'sidecar.db'}")

    def _memory(self) -> Any:
        from mem0 import Memory

        return Memory.from_config(json.loads(self.config_path.read_text()))

    @staticmethod
    def _close(memory: Any) -> None:
        memory.close()
        memory.vector_store.client.close()

    def seed(self, rows: list[tuple[str, str, dict[str, Any], list[float]]]) -> dict[str, str]:
        with self.embeddings.lock:
            self.embeddings.known.update({text: list(vec) for _, text, _, vec in rows})
        memory = self._memory()
        try:
            for given, text, metadata, _ in rows:
                out = memory.add(text, user_id=self.namespace, metadata=metadata, infer=False)
                mem_id = out["results"][0]["id"]
                self.ids_by_text[text] = mem_id
                self.id_map[given] = mem_id
        finally:
            self._close(memory)
        return dict(self.id_map)

    def read_back(self) -> dict[str, tuple[str, dict[str, Any]]]:
        memory = self._memory()
        try:
            items = memory.get_all(filters={"user_id": self.namespace}, top_k=10_000,
                                   show_expired=True)["results"]
        finally:
            self._close(memory)
        return {i["id"]: (i["memory"], i.get("metadata") or {}) for i in items}

    def vectors(self) -> dict[str, list[float]]:
        memory = self._memory()
        try:
            store = memory.vector_store
            points = store.list(filters={"user_id": self.namespace}, top_k=10_000)[0]
            ids = [p.id for p in points]
            got = store.client.retrieve(collection_name=store.collection_name, ids=ids,
                                        with_vectors=True) if ids else []
        finally:
            self._close(memory)
        return {str(p.id): [float(x) for x in (p.vector.get("") if isinstance(p.vector, dict)
                                               else p.vector)] for p in got}

    def raw(self) -> tuple[dict[str, dict[str, Any]], list[tuple[Any, ...]]]:
        """Every payload by id, and mem0's history rows (memory_id, event, old, new)."""
        memory = self._memory()
        try:
            points = memory.vector_store.list(top_k=10_000)[0]
            payloads = {str(p.id): dict(p.payload) for p in points}
        finally:
            self._close(memory)
        with sqlite3.connect(self.tmp_path / "history.db") as conn:
            rows = conn.execute("SELECT memory_id, event, old_memory, new_memory FROM history"
                                " ORDER BY rowid").fetchall()
        return payloads, rows


@pytest.fixture(scope="module")
def stub() -> Iterator[tuple[StubServer, Embeddings]]:
    embeddings = Embeddings()
    with StubServer(embeddings) as server:
        yield server, embeddings


@pytest.fixture
def kit(tmp_path: Path, stub: tuple[StubServer, Embeddings]) -> Mem0Kit:
    server, embeddings = stub
    return Mem0Kit(tmp_path, embeddings, server.url)


@pytest.fixture
def open_backend(kit: Mem0Kit) -> Iterator[Any]:
    """``open_backend("?query")``: a backend on the kit's config, closed at the end."""
    opened: list[Mem0Backend] = []

    def make(query: str = "") -> Mem0Backend:
        backend, _ = backend_from_url(f"mem0://{kit.config_path}{query}")
        opened.append(backend)
        return backend

    yield make
    for backend in opened:
        backend.close()


def rec(mid: str, text: str, metadata: dict[str, Any] | None = None, **kw: Any) -> ExternalRecord:
    return ExternalRecord(id=mid, text=text, metadata=metadata or {}, **kw)


ID1 = "00000000-0000-4000-8000-000000000001"
ID2 = "00000000-0000-4000-8000-000000000002"
ODD_META: dict[str, Any] = {
    "nested": {"a": [1, 2.5, None, {"b": True}], "empty": {}}, "list": [], "none": None,
    "big": 2**53 + 1, "neg": -3, "float": 1e-300, "bool": False, "unicode": "naïve ✓ 日本",
    "key with spaces": "x", "dotted.key": 1, "data": "not the text", "hash": "h",
    "created_at": "meta", "updated_at": [1], "text_lemmatized": 0, "id": "meta-id",
    "user_id": "someone-else", "_mm_data": "escaped twice", "role": "assistant",
    "importance": 0.25, "kind": "fact", "metadata": {"m": 1}, "memory": "m", "score": 0.1,
}


def test_empty_store_has_no_namespaces_and_no_records(open_backend) -> None:
    backend = open_backend()
    assert backend.system == "mem0" and backend.embeds_itself is True
    assert backend.vector_model is None
    assert backend.namespaces() == []
    assert backend.read_all("alice") == []
    assert backend.read("alice", [ID1, "not-a-uuid"]) == {}


def test_upsert_then_read_all_is_the_same_record(open_backend, kit: Mem0Kit) -> None:
    backend = open_backend()
    record = ExternalRecord.from_json({
        "id": ID1, "text": "The user likes tea.", "metadata": {"importance": 0.5},
        "vector": None, "created_at": "2024-01-02T03:04:05.123456+00:00",
        "updated_at": "2024-02-03T04:05:06+00:00"})
    backend.upsert("alice", [record])
    backend.upsert("alice", [record])  # idempotent: no second write, no history entry
    [got] = backend.read_all("alice")
    assert (got.id, got.text, dict(got.metadata)) == (ID1, record.text, {"importance": 0.5})
    assert got.created_at == record.created_at and got.updated_at == record.updated_at
    assert got.fingerprint() == record.fingerprint()
    assert got.vector is not None and got.vector.dtype == np.float32
    np.testing.assert_allclose(got.vector, hash_vector(record.text), rtol=1e-6, atol=1e-6)
    assert backend.read("alice", [ID1, ID2])[ID1].fingerprint() == record.fingerprint()
    assert backend.namespaces() == ["alice"]
    backend.close()
    payloads, history = kit.raw()
    payload = payloads[ID1]  # mem0's own payload format
    assert payload["data"] == record.text and payload["user_id"] == "alice"
    assert payload["hash"] == hashlib.md5(record.text.encode()).hexdigest()
    assert payload["created_at"] == "2024-01-02T03:04:05.123456+00:00"
    assert history == [(ID1, "ADD", None, record.text)]
    assert kit.read_back() == {ID1: (record.text, {"importance": 0.5})}


def test_vector_is_mem0s_embedding_of_the_text(open_backend, stub) -> None:
    _, embeddings = stub
    wanted = hash_vector("some other text")
    with embeddings.lock:
        embeddings.known["A memory with a known vector."] = wanted
    backend = open_backend()
    backend.upsert("alice", [rec(ID1, "A memory with a known vector.",
                                 vector=np.asarray(wanted, dtype=np.float32))])
    got = backend.read("alice", [ID1])[ID1]
    assert got.vector is not None
    np.testing.assert_allclose(got.vector, wanted, rtol=1e-6, atol=1e-6)


def test_odd_metadata_round_trips(open_backend, kit: Mem0Kit) -> None:
    backend = open_backend()
    record = rec(ID1, "odd metadata", ODD_META)
    backend.upsert("alice", [record])
    got = backend.read("alice", [ID1])[ID1]
    assert json.dumps(dict(got.metadata), sort_keys=True) == json.dumps(ODD_META, sort_keys=True)
    assert got.text == "odd metadata"
    backend.close()
    payload = kit.raw()[0][ID1]
    assert payload["data"] == "odd metadata" and payload["user_id"] == "alice"
    assert payload["_mm_data"] == "not the text" and payload["_mm_user_id"] == "someone-else"
    assert payload["_mm__mm_data"] == "escaped twice" and payload["role"] == "assistant"


def test_upsert_replaces_through_mem0s_update(open_backend, kit: Mem0Kit) -> None:
    backend = open_backend()
    first = rec(ID1, "old text", {"keep": 1, "drop": "me", "agent_id": "bot"})
    backend.upsert("alice", [first])
    old = backend.read("alice", [ID1])[ID1]
    # text and metadata change; a key is removed; timestamps are given
    second = rec(ID1, "new text", {"keep": 2, "new": [1]}, created_at=old.created_at,
                 updated_at=ExternalRecord.from_json(
                     {"id": "x", "text": "", "updated_at": "2030-01-01T00:00:00+00:00"}
                 ).updated_at)
    backend.upsert("alice", [second])
    got = backend.read("alice", [ID1])[ID1]
    assert (got.text, dict(got.metadata)) == ("new text", {"keep": 2, "new": [1]})
    assert got.created_at == old.created_at and got.updated_at == second.updated_at
    np.testing.assert_allclose(got.vector, hash_vector("new text"), rtol=1e-6, atol=1e-6)
    # metadata only; the timestamp left to mem0
    third = rec(ID1, "new text", {"keep": 3, "new": [1]})
    backend.upsert("alice", [third])
    got = backend.read("alice", [ID1])[ID1]
    assert dict(got.metadata) == {"keep": 3, "new": [1]}
    backend.upsert("alice", [old])  # the snapshot back, exactly
    back = backend.read("alice", [ID1])[ID1]
    assert back.fingerprint() == old.fingerprint()
    assert (back.created_at, back.updated_at) == (old.created_at, old.updated_at)
    backend.close()
    _, history = kit.raw()
    assert [h[1] for h in history] == ["ADD", "UPDATE", "UPDATE", "UPDATE"]
    assert history[1][2:] == ("old text", "new text")


def test_delete_is_mem0s_delete_and_idempotent(open_backend, kit: Mem0Kit) -> None:
    backend = open_backend()
    backend.upsert("alice", [rec(ID1, "one"), rec(ID2, "two")])
    backend.delete("alice", [ID1, ID1, "not-a-uuid", "00000000-0000-4000-8000-0000000000ff"])
    backend.delete("alice", [ID1])
    assert [r.id for r in backend.read_all("alice")] == [ID2]
    backend.close()
    _, history = kit.raw()
    assert [h[:2] for h in history] == [(ID1, "ADD"), (ID2, "ADD"), (ID1, "DELETE")]


def test_delete_then_restore_gives_mem0_the_same_payload(open_backend, kit: Mem0Kit) -> None:
    kit.seed([("given-1", "Seeded by mem0 itself.", {"source": "agent", "n": 1.5},
               hash_vector("another text"))])
    mem_id = kit.ids_by_text["Seeded by mem0 itself."]
    payload_before = kit.raw()[0][mem_id]
    vectors_before = kit.vectors()
    backend = open_backend("?user_id=alice")
    [snapshot] = backend.read_all("alice")
    assert snapshot.id == mem_id
    assert dict(snapshot.metadata) == {"source": "agent", "n": 1.5, "role": "user"}
    backend.delete("alice", [mem_id])
    assert backend.read_all("alice") == []
    backend.upsert("alice", [ExternalRecord.from_json(snapshot.to_json())])
    backend.close()
    payloads, history = kit.raw()
    assert payloads[mem_id] == payload_before
    assert [h[1] for h in history] == ["ADD", "DELETE", "ADD"]
    np.testing.assert_allclose(vectors_before[mem_id], hash_vector("another text"), atol=1e-6)
    np.testing.assert_allclose(kit.vectors()[mem_id], vectors_before[mem_id], atol=1e-6)


def test_two_namespaces_are_kept_apart(open_backend) -> None:
    backend = open_backend()
    backend.upsert("alice", [rec(ID1, "alice's")])
    backend.upsert("bob", [rec(ID2, "bob's")])
    assert backend.namespaces() == ["alice", "bob"]
    assert [r.id for r in backend.read_all("alice")] == [ID1]
    assert backend.read("bob", [ID1, ID2]).keys() == {ID2}
    backend.delete("bob", [ID1])  # not bob's: ignored
    assert [r.id for r in backend.read_all("alice")] == [ID1]
    with pytest.raises(StoreError, match="belongs to user_id 'alice'"):
        backend.upsert("bob", [rec(ID1, "stolen")])
    backend.close()
    fixed = open_backend("?user_id=bob")
    assert fixed.namespaces() == ["bob"]
    assert [r.text for r in fixed.read_all("bob")] == ["bob's"]
    with pytest.raises(UserError, match="addresses user_id 'bob' only"):
        fixed.read_all("alice")


def test_agent_scope(open_backend) -> None:
    backend = open_backend("?scope=agent_id")
    backend.upsert("planner", [rec(ID1, "an agent memory", {"user_id": "alice"})])
    assert backend.namespaces() == ["planner"]
    assert dict(backend.read_all("planner")[0].metadata) == {"user_id": "alice"}
    backend.close()
    by_user = open_backend()
    assert by_user.namespaces() == ["alice"]  # the same record, seen by its user_id


def test_ids_qdrant_cannot_keep_are_refused(open_backend) -> None:
    backend = open_backend()
    with pytest.raises(StoreError, match="UUIDs"):
        backend.upsert("alice", [rec("memory-1", "text")])
    with pytest.raises(StoreError, match="UUIDs"):  # qdrant would store it lower-cased
        backend.upsert("alice", [rec("00000000-0000-4000-8000-00000000000A", "text")])
    assert backend.read_all("alice") == []


def test_bad_urls_are_one_line_user_errors(kit: Mem0Kit, tmp_path: Path) -> None:
    cases = {
        f"mem0://{kit.config_path}?colour=red": "unknown parameter 'colour'",
        f"mem0://{kit.config_path}?user_id=a&agent_id=b": "give one of",
        f"mem0://{kit.config_path}?user_id=a&scope=run_id": "scope=run_id",
        f"mem0://{kit.config_path}?scope=team": "scope must be one of",
        "mem0://relative/config.json": "three slashes",
        "mem0:///": "names no mem0 config file",
        f"mem0://{tmp_path}/missing.json": "does not exist",
        "chroma:///x": "not a mem0 store URL",
    }
    for url, message in cases.items():
        with pytest.raises(UserError, match=message) as info:
            backend_from_url(url)
        assert "\n" not in str(info.value)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(UserError, match="cannot read mem0 config"):
        backend_from_url(f"mem0://{bad}")
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"vector_store": {"provider": "no-such-store"}}))
    with pytest.raises(UserError, match="cannot open mem0") as info:
        backend_from_url(f"mem0://{wrong}")
    assert "\n" not in str(info.value)
    # create=False: the local vector store must exist already
    with pytest.raises(UserError, match="does not exist"):
        backend_from_url(f"mem0://{kit.config_path}", create=False)
    assert not (tmp_path / "qdrant").exists()
    with pytest.raises(UserError, match=f"{tmp_path}/missing.json does not exist"):
        open_url(f"mem0://{tmp_path}/missing.json", create=False)


def test_open_url_gives_a_store_with_a_sidecar_beside_the_config(kit: Mem0Kit) -> None:
    kit.seed([("g", "A seeded memory.", {"importance": 0.3}, hash_vector("g"))])
    store = open_url(f"mem0://{kit.config_path}?user_id=alice", create=False)
    try:
        assert store.namespaces() == ["alice"]
        [memory] = store.get_memories("alice", [kit.ids_by_text["A seeded memory."]])
        assert memory.text == "A seeded memory." and memory.importance == 0.3
    finally:
        store.close()
    assert Path(f"{kit.config_path}.memmaint.db").exists()


def test_locked_store_and_dead_embedder_are_clear_errors(kit: Mem0Kit, tmp_path: Path,
                                                         open_backend) -> None:
    holder = open_backend()
    with pytest.raises(UserError, match="already accessed") as info:
        backend_from_url(f"mem0://{kit.config_path}")
    assert "\n" not in str(info.value)
    holder.close()
    with StubServer(Embeddings()) as server:
        dead_url = server.url
    (tmp_path / "dead").mkdir()
    config = write_config(tmp_path / "dead", dead_url)
    backend, _ = backend_from_url(f"mem0://{config}")
    try:
        with pytest.raises(StoreError, match="writing memory") as info:
            backend.upsert("alice", [rec(ID1, "cannot be embedded")])
        assert "\n" not in str(info.value)
    finally:
        backend.close()


def test_telemetry_is_off_and_no_llm_is_called(open_backend, stub) -> None:
    server, _ = stub
    backend = open_backend("?model=hashing")
    backend.upsert("alice", [rec(ID1, "text")])
    assert backend.vector_model == "hashing"
    import mem0.memory.main as mem0_main
    import mem0.memory.telemetry as mem0_telemetry

    assert mem0_telemetry.MEM0_TELEMETRY is False and mem0_main.MEM0_TELEMETRY is False
    assert all(path.rstrip("/").endswith("/embeddings") for path in server.paths)


def test_missing_library_names_the_extra(kit: Mem0Kit, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "mem0", None)
    with pytest.raises(MissingExtraError, match=r"memmaint\[mem0\]"):
        Mem0Backend(str(kit.config_path))


def test_chroma_provider_encodes_what_it_cannot_store(tmp_path: Path, stub) -> None:
    pytest.importorskip("chromadb", reason="pip install chromadb")
    server, _ = stub
    config = write_config(tmp_path, server.url, provider="chroma")
    backend, _ = backend_from_url(f"mem0://{config}?user_id=alice")
    try:
        meta = {"nested": {"a": [1, None]}, "list": [1, 2], "none": None, "s": "plain",
                "tricky": "memmaint-json:[1]", "n": 2, "f": 0.5, "b": True}
        backend.upsert("alice", [rec(ID1, "chroma text", meta)])
        got = backend.read("alice", [ID1])[ID1]
        assert json.dumps(dict(got.metadata), sort_keys=True) == json.dumps(meta, sort_keys=True)
        assert got.vector is not None
        np.testing.assert_allclose(got.vector, hash_vector("chroma text"), atol=1e-6)
        backend.upsert("alice", [rec(ID1, "chroma text 2", {"s": "only"})])
        assert dict(backend.read_all("alice")[0].metadata) == {"s": "only"}
        backend.delete("alice", [ID1])
        assert backend.read_all("alice") == []
    finally:
        backend.close()


class TestMem0EndToEnd(ConnectorEndToEnd):
    """mem0 embeds itself: the URL declares no memmaint model. mem0 writes its own
    ``created_at`` into every payload, so the user's time is under another key."""

    declare_model = False
    time_from_metadata = True
    user_time_key = "date"

    @pytest.fixture
    def kit(self, tmp_path: Path, stub: tuple[StubServer, Embeddings]) -> Mem0Kit:
        server, embeddings = stub
        return Mem0Kit(tmp_path, embeddings, server.url)
