"""SQLiteStore: the conformance suite (file and ``:memory:``) plus SQLite-specific behaviour."""

from __future__ import annotations

import sqlite3

import pytest
from store_conformance import StoreConformance, mem, snapshot

from memmaint.maintenance.core.errors import DuplicateIdError, LockHeldError, UserError
from memmaint.maintenance.store import sqlite as sqlite_store
from memmaint.maintenance.store.registry import open_store
from memmaint.maintenance.store.sqlite import SCHEMA_VERSION, SQLiteStore


class TestSQLiteFileStore(StoreConformance):
    @pytest.fixture
    def make_store(self, tmp_path):
        opened: list[SQLiteStore] = []

        def make() -> SQLiteStore:
            store = SQLiteStore(tmp_path / f"store{len(opened)}.db")
            opened.append(store)
            return store

        yield make
        for store in opened:
            store.close()


class TestSQLiteMemoryStore(StoreConformance):
    supports_reopen = False

    @pytest.fixture
    def make_store(self):
        opened: list[SQLiteStore] = []

        def make() -> SQLiteStore:
            opened.append(SQLiteStore(":memory:"))
            return opened[-1]

        yield make
        for store in opened:
            store.close()


def _tables(path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()


def test_file_is_wal_with_current_schema(tmp_path):
    path = tmp_path / "s.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    conn.close()
    assert {"memories", "embeddings", "events", "runs", "schema_version"} <= _tables(path)


def test_open_store_urls(tmp_path):
    path = tmp_path / "s.db"
    with open_store(str(path)) as a:
        a.add_memories([mem("a")])
    with open_store(f"sqlite:///{path}", create=False) as b:
        assert b.count_memories() == 1
        assert b.url == str(path.resolve())
    assert open_store(":memory:").count_memories() == 0
    with pytest.raises(UserError, match="--db"):
        open_store("")


def test_missing_file_without_create_names_the_path(tmp_path):
    path = tmp_path / "nowhere.db"
    with pytest.raises(UserError, match="nowhere.db"):
        SQLiteStore(path, create=False)
    assert not path.exists()
    with pytest.raises(UserError, match="does not exist"):
        SQLiteStore(tmp_path / "no-such-folder" / "s.db")
    with pytest.raises(UserError, match="directory"):
        SQLiteStore(tmp_path)


@pytest.mark.parametrize("content", [b"hello, not a database\n" * 200, b"SQLite format 3\x00" +
                                     b"\xff" * 2000])
def test_non_sqlite_file_is_a_user_error_and_untouched(tmp_path, content):
    path = tmp_path / "notes.db"
    path.write_bytes(content)
    with pytest.raises(UserError, match="not a SQLite database"):
        SQLiteStore(path)
    assert path.read_bytes() == content


def test_foreign_sqlite_database_is_refused_untouched(tmp_path, file_state):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.commit()
    conn.close()
    before = file_state(path)
    with pytest.raises(UserError, match="not a memmaint store"):
        SQLiteStore(path)
    assert file_state(path) == before


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "s.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 5,))
    conn.commit()
    conn.close()
    with pytest.raises(UserError, match="newer"):
        SQLiteStore(path)


def test_forward_migration_keeps_data(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.add_memories([mem("a")])
    step = ("ALTER TABLE memories ADD COLUMN extra TEXT",
            "CREATE TABLE notes (body TEXT)")
    monkeypatch.setattr(sqlite_store, "MIGRATIONS", [*sqlite_store.MIGRATIONS, step])
    monkeypatch.setattr(sqlite_store, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with SQLiteStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION + 1
        assert store.get_memories("default", ["a"]) == [mem("a")]
    assert "notes" in _tables(path)
    with SQLiteStore(path) as store:  # already migrated: nothing runs twice
        assert store.schema_version == SCHEMA_VERSION + 1


def test_failed_batch_leaves_file_bytes_unchanged(tmp_path, file_state):
    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.add_memories([mem("a"), mem("b")])
    before = file_state(path)
    assert before[1] is None  # the last close checkpointed and removed the WAL
    with SQLiteStore(path, create=False) as store:
        with pytest.raises(DuplicateIdError):
            store.add_memories([mem("c"), mem("a")])
        with pytest.raises(RuntimeError), store.transaction() as tx:
            tx.insert(mem("d"))
            raise RuntimeError
    assert file_state(path) == before


def test_nested_writes_join_the_open_transaction(sqlite_store):
    sqlite_store.add_memories([mem("a")])
    before = snapshot(sqlite_store)
    with pytest.raises(RuntimeError), sqlite_store.transaction() as tx:
        tx.insert(mem("b"))
        sqlite_store.add_memories([mem("c")])
        with pytest.raises(DuplicateIdError):  # a failed inner batch rolls back alone
            sqlite_store.add_memories([mem("d"), mem("a")])
        assert sqlite_store.existing_ids("default", "bcd") == {"b", "c"}
        raise RuntimeError
    assert snapshot(sqlite_store) == before


def test_transaction_object_is_dead_after_exit(sqlite_store):
    with sqlite_store.transaction() as tx:
        tx.insert(mem("a"))
    with pytest.raises(Exception, match="closed"):
        tx.insert(mem("b"))
    assert sqlite_store.count_memories() == 1


def test_lock_file_names_the_holder(tmp_path):
    path = tmp_path / "s.db"
    with SQLiteStore(path) as a, SQLiteStore(path) as b:
        with a.lock():
            lock_file = tmp_path / "s.db.lock"
            assert "pid" in lock_file.read_text()
            with pytest.raises(LockHeldError, match="pid"), b.lock():
                pass
        with a.lock("embed"):
            assert (tmp_path / "s.db.embed.lock").exists()
            with b.lock():
                pass
        with pytest.raises(ValueError), a.lock("../escape"):
            pass


def test_closed_store_refuses_calls(tmp_path):
    store = SQLiteStore(tmp_path / "s.db")
    store.close()
    store.close()  # idempotent
    with pytest.raises(Exception, match="closed"):
        store.count_memories()


def test_a_bulk_vector_lookup_reads_the_file_ahead(tmp_path, caplog, monkeypatch):
    """Looking up many cached vectors first reads the file in order (the rows lie in hash
    order, i.e. at random, so a cold lookup would seek per page); the answers are the same
    as without it, and small lookups or oversized files are left alone."""
    import logging

    import numpy as np

    monkeypatch.setattr(sqlite_store, "PREFETCH_MIN_ROWS", 50)
    path = tmp_path / "s.db"
    vectors = {f"{i:064x}": np.full(8, i, dtype=np.float32) for i in range(60)}
    with SQLiteStore(path) as store:
        store.put_embeddings("m", vectors)
        with caplog.at_level(logging.DEBUG, logger="memmaint.maintenance.store.sqlite"):
            got = store.get_embeddings("m", list(vectors) + ["missing"])
            assert "read " in caplog.text and "ahead" in caplog.text
            caplog.clear()
            small = store.get_embeddings("m", list(vectors)[:10])
            assert "ahead" not in caplog.text
    assert sorted(got) == sorted(vectors)
    for h, v in vectors.items():
        np.testing.assert_array_equal(got[h], v)
    assert all(np.array_equal(small[h], vectors[h]) for h in small) and len(small) == 10
    size = path.stat().st_size
    assert sqlite_store.prefetch_file(path, size) == size
    assert sqlite_store.prefetch_file(path, size - 1) == 0  # larger than allowed: not read
    assert sqlite_store.prefetch_file(tmp_path / "gone.db", 10**9) == 0  # never raises



def test_migration_from_schema_1_numbers_existing_rows(tmp_path, monkeypatch):
    """A version-1 file (no change sequence) gains ``seq`` on every row, in write order,
    and the counter continues above them."""
    path = tmp_path / "s.db"
    with monkeypatch.context() as m:  # the previous release's schema
        m.setattr(sqlite_store, "MIGRATIONS", sqlite_store.MIGRATIONS[:1])
        m.setattr(sqlite_store, "SCHEMA_VERSION", 1)
        with SQLiteStore(path) as store:
            assert store.schema_version == 1
    assert "change_seq" not in _tables(path)
    from memmaint.maintenance.store._dialect import MEMORY_COLUMNS
    from memmaint.maintenance.store.sqlite import SQLITE

    conn = sqlite3.connect(path)  # rows as the previous release wrote them
    conn.executemany(f"INSERT INTO memories ({', '.join(MEMORY_COLUMNS)}) VALUES "
                     f"({', '.join('?' * len(MEMORY_COLUMNS))})",
                     [SQLITE.memory_row(m) for m in (mem("a"), mem("b"),
                                                     mem("c", namespace="other"))])
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 3
        assert store.get_memories("default", ["a", "b"]) == [mem("a"), mem("b")]
        assert store.change_seq() == 3
        assert store.count_changed("default", [(0, None)]) == 2
        assert store.count_changed("other", [(2, None)]) == 1  # numbered in write order
        store.add_memories([mem("d")])
        assert store.change_seq() == 4
        assert store.count_changed("default", [(3, None)]) == 1
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT id, seq FROM memories ORDER BY seq").fetchall() == [
        ("a", 1), ("b", 2), ("c", 3), ("d", 4)]
    conn.close()


@pytest.mark.parametrize("namespace", ["b", None])
def test_the_paged_scan_seeks_to_each_page(tmp_path, monkeypatch, namespace):
    """Each page of ``iter_memories`` starts where the last one ended by seeking the order
    index, not by walking the namespace from its first row (nor by sorting every active row
    through the status index), which made reading 900k memories quadratic (150 s); the
    rows come back complete and in order."""
    from memmaint.maintenance.core.records import Status
    from memmaint.maintenance.store import _sql

    monkeypatch.setattr(_sql, "PAGE", 7)
    memories = [mem(f"{ns}{i:03d}", namespace=ns, minutes=(i * 37) % 50)
                for ns in "abc" for i in range(30)]
    with SQLiteStore(tmp_path / "s.db") as store:
        store.add_memories(memories)
        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)
        got = list(store.iter_memories(namespace, statuses=[Status.ACTIVE]))
        store._conn.set_trace_callback(None)
        paged = [s for s in statements if "LIMIT 7" in s and ") > (" in s]
        assert len(paged) >= 4
        for sql in paged:
            plan = " ".join(str(row[3]) for row in store._conn.execute(
                f"EXPLAIN QUERY PLAN {sql}"))
            assert "memories_order" in plan and ")>(" in plan.replace(" ", ""), plan
            assert "TEMP B-TREE" not in plan, plan
    wanted = sorted((m for m in memories if namespace in (None, m.namespace)),
                    key=lambda m: (m.namespace, m.created_at, m.id))
    assert [m.id for m in got] == [m.id for m in wanted]
