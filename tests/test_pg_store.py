"""PostgresStore: the store conformance suite, unchanged, against a throwaway PostgreSQL server
(``pg_server`` in conftest.py: initdb into a temp folder, or ``MEMMAINT_TEST_PG_URL``), plus
PostgreSQL-specific behaviour and the CLI with ``--db postgresql://...``.

Skips with a message saying how to enable it when no PostgreSQL can be started."""

from __future__ import annotations

import dataclasses
import json
import socket

import numpy as np
import pytest
from store_conformance import StoreConformance, mem, snapshot

from memmaint.maintenance.core.errors import DuplicateIdError, InputError, LockHeldError, UserError
from memmaint.maintenance.core.records import Memory, Status, content_hash
from memmaint.maintenance.store.base import Event
from memmaint.maintenance.store.registry import open_store

pytestmark = pytest.mark.postgres

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed: "
                                                "pip install 'memmaint[postgres]'")

from memmaint.maintenance.store import postgres as pg_store
from memmaint.maintenance.store.postgres import SCHEMA_VERSION, PostgresStore, split_url


class TestPostgresStore(StoreConformance):
    @pytest.fixture
    def make_store(self, pg_server):
        opened: list[tuple[PostgresStore, str]] = []

        def make() -> PostgresStore:
            url = pg_server.new_database()
            opened.append((PostgresStore(url), url))
            return opened[-1][0]

        yield make
        for store, url in opened:
            store.close()
            pg_server.drop_database(url)


def _sql(url: str, sql: str, params=()) -> list:
    conninfo, _schema = split_url(url)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        cur = conn.execute(sql, params)
        return cur.fetchall() if cur.description else []


# -- opening, schemas and migrations ------------------------------------------------------

def test_open_store_dispatches_and_creates_the_schema(pg_url):
    with open_store(pg_url) as store:
        assert isinstance(store, PostgresStore)
        assert store.schema == "memmaint" and store.schema_version == SCHEMA_VERSION
        store.add_memories([mem("a")])
    tables = {r[0] for r in _sql(pg_url, "SELECT table_name FROM information_schema.tables "
                                         "WHERE table_schema = 'memmaint'")}
    assert {"memories", "embeddings", "events", "runs", "schema_version"} <= tables
    assert _sql(pg_url, "SELECT version FROM memmaint.schema_version") == [(SCHEMA_VERSION,)]
    postgres_url = "postgres://" + pg_url.split("://", 1)[1]
    with open_store(postgres_url, create=False) as again:
        assert again.count_memories() == 1


def test_without_create_an_empty_database_is_a_user_error(pg_url):
    with pytest.raises(UserError, match="no memmaint store.*memmaint init"):
        open_store(pg_url, create=False)
    assert _sql(pg_url, "SELECT 1 FROM pg_namespace WHERE nspname = 'memmaint'") == []


def test_schema_parameter_keeps_stores_apart(pg_url):
    sep = "&" if "?" in pg_url else "?"
    with PostgresStore(pg_url) as a, PostgresStore(f"{pg_url}{sep}schema=tenant_b") as b:
        a.add_memories([mem("x", "in the default schema")])
        b.add_memories([mem("x", "in tenant_b")])
        assert b.get_memories("default", ["x"])[0].text == "in tenant_b"
        assert a.get_memories("default", ["x"])[0].text == "in the default schema"
        with a.lock(), b.lock():  # locks are per schema
            pass
    with pytest.raises(UserError, match="invalid schema name"):
        PostgresStore(f"{pg_url}{sep}schema=bad-name;drop")


def test_foreign_tables_in_the_schema_are_refused_untouched(pg_url):
    _sql(pg_url, "CREATE SCHEMA memmaint")
    _sql(pg_url, "CREATE TABLE memmaint.customers (id INTEGER)")
    with pytest.raises(UserError, match="not a memmaint store.*customers"):
        PostgresStore(pg_url)
    assert _sql(pg_url, "SELECT table_name FROM information_schema.tables "
                        "WHERE table_schema = 'memmaint'") == [("customers",)]


def test_newer_schema_is_refused(pg_url):
    PostgresStore(pg_url).close()
    _sql(pg_url, "UPDATE memmaint.schema_version SET version = %s", (SCHEMA_VERSION + 5,))
    with pytest.raises(UserError, match="newer"):
        PostgresStore(pg_url)


def test_forward_migration_keeps_data(pg_url, monkeypatch):
    with PostgresStore(pg_url) as store:
        store.add_memories([mem("a")])
    step = ("ALTER TABLE memories ADD COLUMN extra TEXT", "CREATE TABLE notes (body TEXT)")
    monkeypatch.setattr(pg_store, "MIGRATIONS", [*pg_store.MIGRATIONS, step])
    monkeypatch.setattr(pg_store, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with PostgresStore(pg_url) as store:
        assert store.schema_version == SCHEMA_VERSION + 1
        assert store.get_memories("default", ["a"]) == [mem("a")]
    assert _sql(pg_url, "SELECT to_regclass('memmaint.notes') IS NOT NULL") == [(True,)]
    with PostgresStore(pg_url) as store:  # already migrated: nothing runs twice
        assert store.schema_version == SCHEMA_VERSION + 1


def test_unreachable_server_is_one_line_user_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens once the socket closes
    url = f"postgresql://someone:s3cret@127.0.0.1:{port}/nowhere"
    with pytest.raises(UserError, match="cannot connect") as err:
        PostgresStore(url, connect_timeout=2)
    assert "s3cret" not in str(err.value) and "***" in str(err.value)
    assert "\n" not in str(err.value)


# -- PostgreSQL specifics -------------------------------------------------------------------

def test_ids_sort_by_code_point_under_a_linguistic_collation(pg_server):
    """Columns use COLLATE "C": a database whose default collation sorts 'B' before 'a'
    (or ignores punctuation) must still give SQLite's order."""
    locales = [r[0] for r in _sql(pg_server.url, "SELECT collname FROM pg_collation "
                                                 "WHERE collprovider = 'c' AND collname "
                                                 "LIKE 'en_US.utf8'")]
    url = pg_server.new_database()
    try:
        if locales:
            pg_server.drop_database(url)
            name = url.rsplit("/", 1)[1]
            _sql(pg_server.url, f"CREATE DATABASE {name} TEMPLATE template0 "
                                "LC_COLLATE 'en_US.utf8' LC_CTYPE 'en_US.utf8'")
        ids = ["b", "B", "a", "A", "_z", "a-b", "ab", "é", "Z", "~", "aB"]
        with PostgresStore(url) as store:
            store.add_memories([mem(i) for i in ids])  # all created at the same instant
            store.add_memories([mem(i, namespace=ns) for ns, i in
                                (("Beta", "1"), ("alpha", "1"), ("_x", "1"))])
            assert [m.id for m in store.iter_memories("default")] == sorted(ids)
            assert store.namespaces() == sorted(["default", "Beta", "alpha", "_x"])
    finally:
        pg_server.drop_database(url)


def test_nul_characters_are_refused_before_anything_is_written(pg_url):
    with PostgresStore(pg_url) as store:
        store.add_memories([mem("a")])
        before = snapshot(store)
        with pytest.raises(InputError, match="NUL"):
            store.add_memories([mem("b"), mem("c", "nul \x00 inside")])
        with pytest.raises(InputError, match="NUL"), store.transaction() as tx:
            tx.insert(mem("d"))
            tx.append_event(Event(run_id="r\x00", action="x", namespace="default",
                                  memory_ids=("d",)))
        assert snapshot(store) == before


def test_nested_writes_join_the_open_transaction(pg_url):
    with PostgresStore(pg_url) as store:
        store.add_memories([mem("a")])
        before = snapshot(store)
        with pytest.raises(RuntimeError), store.transaction() as tx:
            tx.insert(mem("b"))
            store.add_memories([mem("c")])
            with pytest.raises(DuplicateIdError):  # a failed inner batch rolls back alone
                store.add_memories([mem("d"), mem("a")])
            assert store.existing_ids("default", "bcd") == {"b", "c"}
            raise RuntimeError
        assert snapshot(store) == before


def test_uncommitted_writes_are_invisible_to_other_handles(pg_url):
    with PostgresStore(pg_url) as a, PostgresStore(pg_url) as b:
        with a.transaction() as tx:
            tx.insert(mem("x"))
            assert b.count_memories() == 0
        assert b.count_memories() == 1


def test_metadata_is_stored_as_the_same_json_text_as_sqlite(pg_url):
    meta = {"z": 1, "a": {"y": [1.5, None, 2**70]}, "nul": "\x00 escaped is fine"}
    with PostgresStore(pg_url) as store:
        store.add_memories([Memory(id="m", text="t", metadata=meta)])
        assert store.get_memories("default", ["m"])[0].metadata == meta
    (text,) = _sql(pg_url, "SELECT metadata::text FROM memmaint.memories")[0]
    assert text == json.dumps(meta, ensure_ascii=False, sort_keys=True)


def test_vectors_are_float4_arrays_bit_exact(pg_url):
    rng = np.random.default_rng(3)
    vec = rng.standard_normal(384).astype(np.float32)
    vec[:3] = [np.float32(1e-38), np.float32(3.4e38), np.float32(-0.0)]
    with PostgresStore(pg_url) as store:
        store.put_embeddings("m", {"h": vec})
        got = store.get_embeddings("m", ["h"])["h"]
    assert got.tobytes() == vec.tobytes()
    assert _sql(pg_url, "SELECT pg_typeof(vector)::text, dim FROM memmaint.embeddings") == [
        ("real[]", 384)]


def test_lock_error_names_the_holder(pg_url):
    with PostgresStore(pg_url) as a, PostgresStore(pg_url) as b:
        with a.lock():
            with pytest.raises(LockHeldError, match=r"memmaint lock run pid \d+"), b.lock():
                pass
            with b.lock("embed"):
                pass
        with pytest.raises(ValueError), a.lock("../escape"):
            pass


def test_password_is_kept_in_url_but_not_in_repr(pg_server):
    url = pg_server.url.replace("postgres@", "postgres:hunter2@")
    with PostgresStore(url) as store:  # trust auth ignores the password
        assert store.url == url
        assert "hunter2" not in repr(store)


def test_closed_store_refuses_calls(pg_url):
    store = PostgresStore(pg_url)
    store.close()
    store.close()
    with pytest.raises(Exception, match="closed"):
        store.count_memories()


# -- the CLI with --db postgresql://... -----------------------------------------------------

def test_cli_store_commands_on_postgres(pg_url, cli, tmp_path):
    pool = tmp_path / "pool.jsonl"
    pool.write_text("".join(json.dumps({"id": f"m{i}", "text": f"memory number {i}",
                                        "namespace": "team" if i % 2 else "ops"}) + "\n"
                            for i in range(6)), encoding="utf-8")
    assert cli("init", "--db", pg_url).exit_code == 0
    res = cli("import", str(pool), "--db", pg_url)
    assert res.exit_code == 0, res.output
    res = cli("stats", "--db", pg_url, "--json")
    assert res.exit_code == 0, res.output
    stats = json.loads(res.stdout)
    assert {ns: v["total"] for ns, v in stats["namespaces"].items()} == {"ops": 3, "team": 3}
    out = tmp_path / "out.jsonl"
    assert cli("export", "--db", pg_url, "-o", str(out)).exit_code == 0
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(m["id"] for m in exported) == [f"m{i}" for i in range(6)]
    res = cli("import", str(pool), "--db", pg_url)  # every id exists: refused whole
    assert res.exit_code == 2 and "already exists" in res.stderr
    with open_store(pg_url, create=False) as store:
        assert store.count_memories() == 6


def test_cli_embed_and_run_on_postgres(pg_url, cli, tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[embedding]\nmodel = "hashing"\ndim = 64\n[reduction]\nmethod = "pca"\n'
                   '[clustering.hdbscan]\nmin_cluster_size = 2\n[job]\nmin_new_memories = 0\n',
                   encoding="utf-8")
    texts = ["The pro plan costs $10 a month.", "The pro plan costs $10 a month.",
             "Standup is at 9 every weekday.", "Deploys happen on Thursdays."] * 3
    with PostgresStore(pg_url) as store:
        store.add_memories([mem(f"m{i}", t, minutes=i) for i, t in enumerate(texts)])
    res = cli("run", "--db", pg_url, "--config", str(cfg), "--now", "2024-03-02T00:00:00Z")
    assert res.exit_code == 0, res.output
    with PostgresStore(pg_url, create=False) as store:
        (run,) = store.list_runs()
        assert run.status == "succeeded"
        (model,) = store.stats()["embeddings"]
        assert model.startswith("hashing") and store.stats()["embeddings"][model]["vectors"] == 3
        assert run.report["primary"]["actions_by_type"]["created"] == 3  # 3 distinct texts
        assert store.count_memories(statuses=[Status.ACTIVE]) == 3
        assert {e.action for e in store.events(run_id=run.run_id)} == {"merge"}
    res = cli("runs", "--db", pg_url)
    assert res.exit_code == 0 and run.run_id in res.output


def test_cli_postgres_errors_are_one_line(cli, pg_url):
    res = cli("stats", "--db", pg_url)  # no store created yet
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "memmaint init" in res.stderr
    res = cli("stats", "--db", pg_url + "?schema=no-good")
    assert res.exit_code == 2 and "invalid schema name" in res.stderr


def test_record_round_trip_with_replace(pg_url):
    with PostgresStore(pg_url) as store:
        store.add_memories([mem("a")])
        m = store.get_memories("default", ["a"])[0]
        with store.transaction() as tx:
            tx.update(dataclasses.replace(m, text="changed"), m.version)
        store.put_embeddings("x", {content_hash("changed"): np.ones(2, np.float32)})
        assert store.stats()["embeddings"]["x"]["covered_active"] == 1


def test_out_of_range_values_are_input_errors(pg_url):
    with PostgresStore(pg_url) as store:
        with pytest.raises(InputError, match="refused a value"):
            store.add_memories([mem("a"), mem("b", retrievals=2**70)])
        assert store.count_memories() == 0


def test_migration_from_schema_1_numbers_existing_rows(pg_url, monkeypatch):
    """A version-1 schema (no change sequence) gains ``seq`` on every row and the counter
    continues above them."""
    with monkeypatch.context() as m:  # the previous release's schema
        m.setattr(pg_store, "MIGRATIONS", pg_store.MIGRATIONS[:1])
        m.setattr(pg_store, "SCHEMA_VERSION", 1)
        with PostgresStore(pg_url) as store:
            assert store.schema_version == 1
    from memmaint.maintenance.store._dialect import MEMORY_COLUMNS

    for m in (mem("a"), mem("b", minutes=1), mem("c", namespace="other", minutes=2)):
        _sql(pg_url, f"INSERT INTO memmaint.memories ({', '.join(MEMORY_COLUMNS)}) VALUES "
             f"({', '.join(['%s'] * len(MEMORY_COLUMNS))})", pg_store.POSTGRES.memory_row(m))
    assert _sql(pg_url, "SELECT to_regclass('memmaint.change_seq') IS NULL") == [(True,)]
    with PostgresStore(pg_url) as store:
        assert store.schema_version == SCHEMA_VERSION == 3
        assert store.get_memories("default", ["a", "b"]) == [mem("a"), mem("b", minutes=1)]
        assert store.change_seq() == 3
        assert store.count_changed("default", [(0, None)]) == 2
        store.add_memories([mem("d")])
        assert store.change_seq() == 4
        assert store.count_changed("default", [(3, None)]) == 1
    assert sorted(_sql(pg_url, "SELECT id, seq FROM memmaint.memories")) == [
        ("a", 1), ("b", 2), ("c", 3), ("d", 4)]
