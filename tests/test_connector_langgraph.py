"""The LangGraph store connector against the real library: ``SqliteStore`` (a file under
tmp_path) and ``PostgresStore`` (a fresh database on the session's ``pg_server``; those tests
skip when no PostgreSQL can be started).

:class:`LangGraphKit` is the kit of the connectors' end-to-end suite: it seeds and reads the
store with LangGraph's own API (``put``/``search``), never through memmaint."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("langgraph.store.sqlite", reason="pip install 'memmaint[langgraph]'")

from langgraph.store.sqlite import SqliteStore
from store_conformance import StoreConformance

from memmaint.maintenance.core.errors import MissingExtraError, UserError
from memmaint.maintenance.core.records import to_utc
from memmaint.maintenance.store.external import ExternalBackend, ExternalRecord
from memmaint.maintenance.store.langgraph import (
    TAG,
    LangGraphBackend,
    backend_from_url,
    decode_value,
    encode_value,
    open_url,
)
from memmaint.maintenance.store.registry import open_store

DIM = 16
NS = "memories.alice"
ODD_METADATA: dict[str, Any] = {
    "nested": {"a": [1, 2.5, None, True, {"b": "c"}], "empty": {}, "list": []},
    "unicode": "héllo wörld ✓ 日本 🎉", "bool": False, "none": None, "zero": 0,
    "neg_zero": -0.0, "float": 0.1 + 0.2, "tiny": 5e-324, "huge": 1.7976931348623157e308,
    "e16": 1e16, "nan": float("nan"), "inf": float("inf"), "-inf": float("-inf"),
    "big": 2**70, "-big": -(2**70), "u64": 2**64 - 1, "nul": "a\x00b", "surrogate": "x\ud800y",
    "": "empty key", "dotted.key": 1, "k\x00ey": "nul in a key", TAG: "looks like a tag",
    "tagged": {TAG: "[1, 2]"}, "content_like": {"content": "not the text"},
}


def unit(seed: int) -> list[float]:
    vec = np.random.default_rng(seed).normal(size=DIM)
    return [float(x) for x in vec / np.linalg.norm(vec)]


def rec(rid: str, text: str = "", metadata: dict[str, Any] | None = None) -> ExternalRecord:
    return ExternalRecord(rid, text or f"memory {rid}", metadata or {},
                          np.asarray(unit(len(rid)), np.float32))


def canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def same(a: ExternalRecord, b: ExternalRecord) -> bool:
    """Equal as the protocol requires (LangGraph keeps no vectors: both sides compare None)."""
    return a.id == b.id and a.text == b.text and canon(a.metadata) == canon(b.metadata)


def embed(texts: list[str]) -> list[list[float]]:
    """A deterministic embedding function for a LangGraph index (unit vectors)."""
    return [unit(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)) for t in texts]


class Env:
    """One LangGraph store (SQLite file or PostgreSQL database) and its memmaint URL."""

    def __init__(self, kind: str, tmp_path: Path, pg_url: str | None = None) -> None:
        self.kind = kind
        self.tmp_path = tmp_path
        self.opened: list[LangGraphBackend] = []
        if kind == "sqlite":
            self.file = tmp_path / "langgraph.db"
            self.base = f"langgraph+sqlite://{self.file}"
        else:
            assert pg_url is not None
            self.conninfo = pg_url
            self.base = "langgraph+postgres://" + pg_url.split("://", 1)[1]

    def url(self, **params: str) -> str:
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return self.base + ("?" + query if query else "")

    def backend(self, *, create: bool = True, index: dict[str, Any] | None = None,
                **params: str) -> LangGraphBackend:
        if index is None:
            backend, _ = backend_from_url(self.url(**params), create=create)
        else:
            target = str(self.file) if self.kind == "sqlite" else self.conninfo
            backend = LangGraphBackend(self.kind, target, url=self.url(**params), index=index,
                                       prefix=params.get("namespace"), create=create)
        self.opened.append(backend)
        return backend

    @contextmanager
    def lib(self, index: dict[str, Any] | None = None) -> Iterator[Any]:
        """The library's own store on the same data."""
        if self.kind == "sqlite":
            with SqliteStore.from_conn_string(str(self.file), index=index) as store:
                store.setup()
                yield store
        else:
            from langgraph.store.postgres import PostgresStore

            with PostgresStore.from_conn_string(self.conninfo, index=index) as store:
                store.setup()
                yield store


@pytest.fixture(params=["sqlite", "postgres"])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    pg_url = None
    if request.param == "postgres":
        pytest.importorskip("langgraph.store.postgres", reason="pip install 'memmaint[langgraph]'")
        pg_url = request.getfixturevalue("pg_url")
    e = Env(request.param, tmp_path, pg_url)
    yield e
    for backend in e.opened:
        backend.close()


# -- the protocol ---------------------------------------------------------------------------

def test_it_is_an_external_backend(env: Env) -> None:
    b = env.backend(model="hashing")
    assert isinstance(b, ExternalBackend)
    assert b.system == "langgraph" and b.vector_model == "hashing" and b.embeds_itself
    assert env.backend().vector_model is None


def test_an_empty_store(env: Env) -> None:
    b = env.backend()
    assert b.namespaces() == []
    assert b.read_all(NS) == []
    assert b.read(NS, ["nope"]) == {}
    b.delete(NS, ["nope"])


def test_upsert_then_read_all_gives_the_records_back(env: Env) -> None:
    b = env.backend()
    records = [rec(f"id-{i}", f"text {i}", {"turn": i, "tags": ["x", "y"]}) for i in range(5)]
    b.upsert(NS, records)
    got = b.read_all(NS)
    assert [r.id for r in got] == [r.id for r in records]
    for old, new in zip(records, got):
        assert same(old, new) and new.vector is None
        assert new.created_at is not None and new.created_at.tzinfo == timezone.utc
        assert new.updated_at is not None and new.updated_at.tzinfo == timezone.utc
    assert b.namespaces() == [NS]
    assert set(b.read(NS, ["id-1", "id-3", "missing"])) == {"id-1", "id-3"}
    assert same(b.read(NS, ["id-2"])["id-2"], records[2])
    with env.lib() as store:  # LangGraph sees a plain value: the text under "content"
        assert store.get(("memories", "alice"), "id-1").value == {
            "content": "text 1", "turn": 1, "tags": ["x", "y"]}


def test_upsert_replaces_and_is_idempotent(env: Env) -> None:
    b = env.backend()
    b.upsert(NS, [rec("a", "old", {"v": 1, "gone": True}), rec("b")])
    new = rec("a", "new", {"v": 2})
    b.upsert(NS, [new])
    b.upsert(NS, [new])
    got = {r.id: r for r in b.read_all(NS)}
    assert set(got) == {"a", "b"} and same(got["a"], new)


def test_a_rewrite_and_a_re_insert_keep_the_items_created_at(env: Env) -> None:
    """``put`` resets ``created_at`` (SQLite's store on every write, Postgres' on a
    re-insert); the backend writes the record's back, as the library then reads it."""
    labels = tuple(NS.split("."))
    with env.lib() as store:
        store.put(labels, "a", {"content": "first", "turn": 1})
    b = env.backend()
    seen = b.read(NS, ["a"])["a"]
    old = dataclasses.replace(seen, created_at=datetime(2025, 2, 18, 10, tzinfo=timezone.utc))
    b.upsert(NS, [dataclasses.replace(old, text="rewritten")])
    b.delete(NS, ["b"])
    with env.lib() as store:
        item = store.get(labels, "a")
    assert item.value["content"] == "rewritten"
    assert to_utc(item.created_at) == old.created_at
    b.delete(NS, ["a"])
    b.upsert(NS, [old])  # undo's re-insert of a deleted item
    with env.lib() as store:
        assert to_utc(store.get(labels, "a").created_at) == old.created_at


def test_delete_is_idempotent(env: Env) -> None:
    b = env.backend()
    b.upsert(NS, [rec("a"), rec("b"), rec("c")])
    b.delete(NS, ["a", "c", "zzz"])
    b.delete(NS, ["a", "c"])
    assert [r.id for r in b.read_all(NS)] == ["b"]
    b.delete(NS, ["b"])
    assert b.read_all(NS) == [] and b.namespaces() == []


def test_odd_metadata_and_text_round_trip(env: Env) -> None:
    b = env.backend()
    text = "text with NUL \x00, a lone surrogate \udc80 and emoji 🎉"
    b.upsert(NS, [ExternalRecord("odd", text, ODD_METADATA), rec("plain", "p", {"n": 1.5})])
    got = b.read(NS, ["odd", "plain"])
    assert got["odd"].text == text
    assert canon(got["odd"].metadata) == canon(ODD_METADATA)
    # (a fingerprint cannot hash lone surrogates: compare one without them)
    no_surrogate = {k: v for k, v in ODD_METADATA.items() if k != "surrogate"}
    b.upsert(NS, [ExternalRecord("fp", "t \x00", no_surrogate)])
    assert b.read(NS, ["fp"])["fp"].fingerprint() == \
        ExternalRecord("fp", "t \x00", no_surrogate).fingerprint()
    b.upsert(NS, [got["odd"]])  # read, written back: the same again
    assert canon(b.read(NS, ["odd"])["odd"].metadata) == canon(ODD_METADATA)
    with env.lib() as store:
        assert store.get(("memories", "alice"), "plain").value == {"content": "p", "n": 1.5}


def test_namespaces_are_kept_apart_and_the_url_namespace_is_a_prefix(env: Env) -> None:
    b = env.backend()
    b.upsert("memories", [rec("top")])
    b.upsert("memories.alice", [rec("a1"), rec("a2")])
    b.upsert("memories.bob", [rec("b1")])
    b.upsert("memoriesx", [rec("x1")])
    b.upsert("other.alice", [rec("o1")])
    assert b.namespaces() == ["memories", "memories.alice", "memories.bob", "memoriesx",
                              "other.alice"]
    assert [r.id for r in b.read_all("memories")] == ["top"]
    assert [r.id for r in b.read_all("memories.alice")] == ["a1", "a2"]
    assert b.read("memories.bob", ["a1", "b1"]).keys() == {"b1"}
    b.delete("memories.bob", ["a1"])
    assert len(b.read_all("memories.alice")) == 2

    scoped = env.backend(namespace="memories")
    assert scoped.namespaces() == ["memories", "memories.alice", "memories.bob"]
    for call in (lambda: scoped.read_all("other.alice"), lambda: scoped.read_all("memoriesx"),
                 lambda: scoped.upsert("other", [rec("z")]), lambda: scoped.delete("x", ["z"])):
        with pytest.raises(UserError, match="outside 'memories'"):
            call()
    assert env.backend(namespace="memories.bob").namespaces() == ["memories.bob"]
    assert env.backend(namespace="nothing.here").namespaces() == []


def test_langmem_layouts_are_read_and_written_back_in_place(env: Env) -> None:
    ns = ("memories", "alice")
    with env.lib() as store:  # the memory tool's and the memory manager's values
        store.put(ns, "tool", {"content": "prefers dark mode"})
        store.put(ns, "manager", {"kind": "Memory", "content": {"content": "uses pnpm"}})
    b = env.backend()
    got = b.read(NS, ["tool", "manager"])
    assert (got["tool"].text, dict(got["tool"].metadata)) == ("prefers dark mode", {})
    assert got["manager"].text == "uses pnpm"
    assert got["manager"].metadata == {"kind": "Memory", "content": {}}
    b.upsert(NS, [ExternalRecord("manager", "uses pnpm, not npm", got["manager"].metadata),
                  ExternalRecord("tool", "prefers light mode", got["tool"].metadata)])
    with env.lib() as store:
        assert store.get(ns, "manager").value == {"kind": "Memory",
                                                  "content": {"content": "uses pnpm, not npm"}}
        assert store.get(ns, "tool").value == {"content": "prefers light mode"}


def test_values_without_a_text_string_are_refused_or_read_with_text_key(env: Env) -> None:
    ns = ("memories", "alice")
    with env.lib() as store:
        store.put(ns, "triple", {"kind": "Triple", "content": {"subject": "a", "object": "b"}})
        store.put(ns, "other", {"food_preference": "pizza"})
    with pytest.raises(UserError, match=r"2 item\(s\).*'other'.*text_key="):
        env.backend().read_all(NS)
    b = env.backend(text_key="content.subject")
    with pytest.raises(UserError, match="'other'"):
        b.read_all(NS)
    triple = b.read(NS, ["triple"])["triple"]
    assert triple.text == "a"
    assert triple.metadata == {"kind": "Triple", "content": {"object": "b"}}
    b.upsert(NS, [ExternalRecord("triple", "A", triple.metadata), rec("new", "n", {"x": 1})])
    with env.lib() as store:
        assert store.get(ns, "triple").value["content"] == {"subject": "A", "object": "b"}
        assert store.get(ns, "new").value == {"content": {"subject": "n"}, "x": 1}
    with pytest.raises(UserError, match="'content'"):  # metadata where the text goes
        env.backend().upsert(NS, [rec("bad", "t", {"content": "clash"})])
    with pytest.raises(UserError, match="holds a str"):
        b.upsert(NS, [rec("bad", "t", {"content": "a string"})])


def test_many_records_go_in_batches(env: Env) -> None:
    b = env.backend()
    records = [rec(f"m{i:05d}", f"memory number {i}", {"i": i}) for i in range(1234)]
    b.upsert(NS, records)
    assert len(b.read_all(NS)) == 1234
    assert len(b.read(NS, [r.id for r in records])) == 1234
    b.delete(NS, [r.id for r in records[:1200]])
    assert [r.id for r in b.read_all(NS)] == [r.id for r in records[1200:]]


def test_a_missing_store_with_create_false_is_a_user_error(env: Env) -> None:
    if env.kind == "sqlite":
        with pytest.raises(UserError, match=str(env.file)):
            env.backend(create=False)
        with pytest.raises(UserError, match=str(env.file)):
            open_url(env.url(sidecar=str(env.tmp_path / "side.db")), create=False)
        assert not env.file.exists()
        sqlite3.connect(env.file).execute("CREATE TABLE unrelated (x)").connection.close()
        with pytest.raises(UserError, match="no 'store' table"):
            env.backend(create=False)
        not_a_db = env.tmp_path / "junk.db"
        not_a_db.write_text("this is not SQLite " * 100)
        with pytest.raises(UserError, match="cannot open"):
            backend_from_url(f"langgraph+sqlite://{not_a_db}", create=False)
    else:
        with pytest.raises(UserError, match="no 'store' table"):
            env.backend(create=False)
        host = env.base.split("@", 1)[1].split("/", 1)[0].rsplit(":", 1)[0]
        with pytest.raises(UserError, match="cannot connect to") as err:
            backend_from_url(f"langgraph+postgres://u:secret@{host}:1/db", create=True)
        assert "secret" not in str(err.value) and "\n" not in str(err.value)
    env.backend(create=True).upsert(NS, [rec("a")])  # created, then found
    assert [r.id for r in env.backend(create=False).read_all(NS)] == ["a"]


def test_the_password_is_redacted(pg_url: str) -> None:
    pytest.importorskip("langgraph.store.postgres", reason="pip install 'memmaint[langgraph]'")
    user, rest = pg_url.split("://", 1)[1].split("@", 1)
    b, local = backend_from_url(f"langgraph+postgresql://{user}:hunter2@{rest}", create=True)
    b.close()
    assert local is None and "hunter2" not in b.url and "***" in b.url


_CAST_CRASH: dict[str, str | None] = {}


def cast_crash(server: Any) -> str | None:
    """:func:`pg_server.vector_cast_crash`, probed once per server (a crash restarts it)."""
    from pg_server import vector_cast_crash

    if server.url not in _CAST_CRASH:
        _CAST_CRASH[server.url] = vector_cast_crash(server)
    return _CAST_CRASH[server.url]


@pytest.fixture(params=["sqlite", "postgres"])
def index_env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    if request.param == "sqlite":
        if not hasattr(sqlite3.Connection, "enable_load_extension"):
            pytest.skip("this Python's sqlite3 cannot load extensions (sqlite-vec)")
        e = Env("sqlite", tmp_path)
    else:
        server = request.getfixturevalue("vector_server")
        if why := cast_crash(server):
            pytest.skip(f"LangGraph's indexed PostgresStore: {why}")
        e = Env("postgres", tmp_path, server.new_database("lgi"))
    yield e
    for backend in e.opened:
        backend.close()
    if e.kind == "postgres":
        server.drop_database(e.conninfo)


def test_an_index_re_embeds_on_write(index_env: Env) -> None:
    index = {"dims": DIM, "embed": embed, "fields": ["content"]}
    b = index_env.backend(index=index)
    assert b.embeds_itself
    b.upsert(NS, [rec("a", "the cat sat"), rec("b", "a dog barked")])
    b.upsert(NS, [rec("a", "prices rose in May")])
    assert {r.id: r.text for r in b.read_all(NS)} == {"a": "prices rose in May",
                                                      "b": "a dog barked"}
    with index_env.lib(index) as store:
        hits = store.search(("memories", "alice"), query="prices rose in May", limit=1)
        assert hits[0].key == "a" and hits[0].score == pytest.approx(1.0, abs=1e-4)
        assert store.search(("memories", "alice"), query="a dog barked", limit=1)[0].key == "b"
    b.delete(NS, ["a"])
    with index_env.lib(index) as store:
        assert [h.key for h in store.search(("memories", "alice"), query="x", limit=5)] == ["b"]


def test_an_index_the_sqlite_module_cannot_load_is_a_user_error(tmp_path: Path) -> None:
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        pytest.skip("this Python's sqlite3 loads extensions")
    with pytest.raises(UserError, match="cannot load extensions"):
        LangGraphBackend("sqlite", str(tmp_path / "x.db"), index={"dims": DIM, "embed": embed})


def test_a_store_with_vectors_opened_without_embed_warns(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    env = Env("sqlite", tmp_path)
    with env.lib() as store:  # the vector table LangGraph makes for an index
        store.put(("memories", "alice"), "a", {"content": "x"})
        for statement in SqliteStore.VECTOR_MIGRATIONS:
            store.conn.executescript(statement)
    with caplog.at_level(logging.WARNING, logger="memmaint.maintenance.store.langgraph"):
        b, _ = backend_from_url(env.url(), create=False)
    b.close()
    assert "vector index but no embed=" in caplog.text


# -- URLs and the library -------------------------------------------------------------------

@pytest.mark.parametrize(("url", "match"), [
    ("langgraph+sqlite:///tmp/x.db?collection=a", "unknown parameter 'collection'"),
    ("langgraph+mysql://h/db", "scheme must be one of"),
    ("langgraph+sqlite://", "name the SQLite file"),
    ("langgraph+sqlite:///tmp/dir/", "name the SQLite file"),
    ("langgraph+sqlite:///tmp/x.db?embed=openai:text-embedding-3-small", "embed_dims"),
    ("langgraph+sqlite:///tmp/x.db?embed=openai:x&embed_dims=zero", "embed_dims"),
    ("langgraph+sqlite:///tmp/x.db?embed_dims=3", "need embed="),
    ("langgraph+sqlite:///tmp/x.db?sslmode=require", "for PostgreSQL"),
    ("langgraph+sqlite:///tmp/x.db?namespace=a..b", "bad LangGraph namespace"),
    ("langgraph+sqlite:///tmp/x.db?text_key=content.", "bad text_key"),
])
def test_bad_urls_are_user_errors(url: str, match: str) -> None:
    with pytest.raises(UserError, match=match) as err:
        backend_from_url(url, create=False)
    assert "\n" not in str(err.value)


def test_an_embed_the_library_cannot_load_is_a_user_error(tmp_path: Path) -> None:
    url = f"langgraph+sqlite://{tmp_path}/x.db?embed=nosuchprovider:model&embed_dims=8"
    with pytest.raises(UserError, match="bad LangGraph index"):
        backend_from_url(url, create=True)


def test_a_relative_sqlite_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    b, local = backend_from_url("langgraph+sqlite://data/lg.db?namespace=m", create=True)
    b.upsert("m", [rec("a")])
    b.close()
    assert local == "data/lg.db" and (tmp_path / "data" / "lg.db").exists()


def test_an_invalid_namespace_label_is_a_user_error(tmp_path: Path) -> None:
    b, _ = backend_from_url(f"langgraph+sqlite://{tmp_path}/x.db", create=True)
    with pytest.raises(UserError, match="NUL"):
        b.upsert("memories.a\x00b", [rec("a")])
    b.close()


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "langgraph.store.sqlite", None)
    with pytest.raises(MissingExtraError, match=r"memmaint\[langgraph\]"):
        backend_from_url(f"langgraph+sqlite://{tmp_path}/x.db", create=True)


def test_encode_and_decode_values() -> None:
    for pg in (False, True):
        encoded = encode_value(ODD_METADATA, pg=pg)
        assert canon(decode_value(encoded)) == canon(ODD_METADATA)
        json.dumps(encoded, allow_nan=False)  # plain JSON
    plain = {"a": [1, "x", {"b": 2.5}], "c": None}
    assert encode_value(plain, pg=True) == plain
    foreign = {TAG: "{not json"}
    assert decode_value(foreign) == foreign


# -- the kit for the end-to-end suite -------------------------------------------------------

class LangGraphKit:
    """Seeds and reads one LangGraph namespace with the library's own API. Values are
    ``{"content": text, **metadata}`` (LangMem's memory-tool layout); LangGraph keeps no
    vectors without an index, and hides them with one, so :meth:`vectors` is ``{}``."""

    namespace = NS

    def __init__(self, env: Env) -> None:
        self.env = env
        self.labels = tuple(self.namespace.split("."))

    def url(self) -> str:
        return self.env.url(namespace=self.namespace,
                            sidecar=str(self.env.tmp_path / "sidecar.db"))

    def seed(self, rows: list[tuple[str, str, dict[str, Any], list[float]]]) -> None:
        with self.env.lib() as store:
            for rid, text, metadata, _vector in rows:
                store.put(self.labels, rid, {"content": text, **metadata})

    def read_back(self) -> dict[str, tuple[str, dict[str, Any]]]:
        with self.env.lib() as store:
            items = store.search(self.labels, limit=1_000_000)
        out = {}
        for item in items:
            if tuple(item.namespace) == self.labels:
                value = dict(item.value)
                out[item.key] = (value.pop("content"), value)
        return out

    def vectors(self) -> dict[str, list[float]]:
        return {}


def test_the_kit_round_trips_through_the_backend(env: Env) -> None:
    kit = LangGraphKit(env)
    kit.seed([("r1", "hello", {"turn": 1, "ok": True}, unit(1))])
    assert kit.read_back() == {"r1": ("hello", {"turn": 1, "ok": True})}
    b, _ = backend_from_url(kit.url(), create=False)
    env.opened.append(b)
    assert [(r.id, r.text, dict(r.metadata)) for r in b.read_all(kit.namespace)] == [
        ("r1", "hello", {"turn": 1, "ok": True})]


try:
    from connector_e2e import ConnectorEndToEnd
except ImportError:  # pragma: no cover - the suite is not there
    ConnectorEndToEnd = None  # type: ignore[assignment,misc]

if ConnectorEndToEnd is not None:

    class TestLangGraphEndToEnd(ConnectorEndToEnd):  # type: ignore[misc,valid-type]
        """Both LangGraph stores: the URL declares the hashing model (for new records)."""

        time_from_metadata = True  # the value's created_at wins over the item's own time

        @pytest.fixture
        def kit(self, env: Env) -> LangGraphKit:
            return LangGraphKit(env)



class TestLangGraphConformance(StoreConformance):
    """The store conformance suite through a LangGraph SQLite store."""

    @pytest.fixture
    def make_store(self, tmp_path):
        opened: list[Any] = []

        def make() -> Any:
            url = f"langgraph+sqlite://{tmp_path}/lg{len(opened)}.db?model=hashing&dim=16"
            opened.append(open_store(url))
            return opened[-1]

        yield make
        for s in opened:
            s.close()
