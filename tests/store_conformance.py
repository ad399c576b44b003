"""The behaviour every :class:`~memmaint.maintenance.store.base.MemoryStore` must have.

Use it by subclassing :class:`StoreConformance` in a ``test_*.py`` module and providing a
``make_store`` fixture: a callable that returns a new, *empty* store each time it is called
(the fixture closes what it opened). When ``open_store(store.url, create=False)`` opens a
second handle on the same data (files, servers), the cross-handle and cross-process tests run
too; set ``supports_reopen = False`` for private stores such as SQLite ``:memory:``::

    class TestMyStore(StoreConformance):
        @pytest.fixture
        def make_store(self, tmp_path):
            ...
"""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memmaint.maintenance.core.errors import (
    DuplicateIdError,
    InputError,
    LockHeldError,
    UnknownIdError,
    VersionConflict,
)
from memmaint.maintenance.core.records import Memory, Status, content_hash
from memmaint.maintenance.store.base import Event, MemoryStore, RunRecord
from memmaint.maintenance.store.registry import open_store

T0 = datetime(2024, 3, 1, 12, 0, 0, tzinfo=timezone.utc)


def mem(id: str, text: str | None = None, namespace: str = "default", minutes: float = 0,
        **fields) -> Memory:
    """A memory created ``minutes`` after T0."""
    return Memory(id=id, text=text or f"memory {id}", namespace=namespace,
                  created_at=T0 + timedelta(minutes=minutes), **fields)


def snapshot(store: MemoryStore) -> tuple:
    """Everything observable about a store (for "unchanged" checks)."""
    return (list(store.iter_memories()), store.events(), store.stats(), store.list_runs())


def rich_memory() -> Memory:
    return Memory(
        id="rich-1", namespace="agent/7", text="Ünïcødé ✓ 日本語 \U0001f600 line\nbreak\u2028sep",
        created_at=datetime(2023, 5, 6, 7, 8, 9, 123456, tzinfo=timezone(timedelta(hours=5))),
        updated_at=datetime(2023, 6, 1, 0, 0, 0, 1, tzinfo=timezone.utc),
        importance=2.75, kind="price", source="chat:42",
        metadata={"nested": {"list": [1, 2.5, "x", None, True]}, "k": "v", "big": 2**70},
        retrievals=9, successes=5, failures=3,
        last_used_at=datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc),
        status=Status.SUPERSEDED, version=4, replaced_by="rich-2",
        valid_until=datetime(2024, 2, 1, tzinfo=timezone.utc),
    )


_HOLD_LOCK = """
import sys
from memmaint.maintenance.store.registry import open_store
store = open_store(sys.argv[1], create=False)
with store.lock():
    print("locked", flush=True)
    sys.stdin.readline()
"""

@contextmanager
def _locked_eventually(store: MemoryStore, timeout: float = 10.0) -> Iterator[None]:
    """``store.lock()``, retried for a while: a killed holder's lock goes when the store
    notices (at once for a file lock; for a database session lock, when the server has
    ended the dead client's session, which can take a moment)."""
    deadline = time.monotonic() + timeout
    with ExitStack() as stack:
        while True:
            try:
                stack.enter_context(store.lock())
                break
            except LockHeldError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield


_TRY_LOCK = """
import sys
from memmaint.maintenance.core.errors import LockHeldError
from memmaint.maintenance.store.registry import open_store
store = open_store(sys.argv[1], create=False)
try:
    with store.lock():
        print("acquired")
except LockHeldError as exc:
    print("held:", exc)
"""


class StoreConformance:
    """Subclass with a ``make_store`` fixture (see the module docstring)."""

    supports_reopen = True

    @pytest.fixture
    def store(self, make_store) -> MemoryStore:
        return make_store()

    @pytest.fixture
    def other(self, store):
        """A second handle on the same store."""
        if not self.supports_reopen:
            pytest.skip("this store cannot be opened twice")
        handle = open_store(store.url, create=False)
        yield handle
        handle.close()

    # -- protocol and records ---------------------------------------------------------------
    def test_implements_protocol(self, store):
        assert isinstance(store, MemoryStore)
        assert isinstance(store.url, str) and store.url

    def test_every_field_round_trips(self, store):
        m = rich_memory()
        store.add_memories([m])
        (got,) = store.get_memories("agent/7", ["rich-1"])
        assert got == m
        assert got.created_at.tzinfo is not None and got.created_at.utcoffset() == timedelta(0)
        assert list(store.iter_memories()) == [m]

    def test_odd_ids_are_data_not_sql(self, store):
        ids = ["x'); DROP TABLE memories;--", 'q"uote', "sp ace", "%", "_", "ünï"]
        store.add_memories([mem(i, minutes=n) for n, i in enumerate(ids)])
        assert [m.id for m in store.get_memories("default", ids)] == ids
        assert store.count_memories() == len(ids)

    def test_empty_store(self, store):
        assert store.namespaces() == []
        assert list(store.iter_memories()) == []
        assert store.count_memories() == 0
        assert store.stats() == {"namespaces": {}, "embeddings": {}}
        assert store.events() == [] and store.list_runs() == []
        store.add_memories([])
        assert store.count_memories() == 0

    # -- namespacing ------------------------------------------------------------------------
    def test_same_id_in_two_namespaces(self, store):
        store.add_memories([mem("a", "in one", "one"), mem("a", "in two", "two")])
        assert store.get_memories("one", ["a"])[0].text == "in one"
        assert store.get_memories("two", ["a"])[0].text == "in two"
        assert store.namespaces() == ["one", "two"]
        assert [m.namespace for m in store.iter_memories("two")] == ["two"]
        assert store.count_memories("one") == 1 and store.count_memories() == 2
        with pytest.raises(UnknownIdError):
            store.get_memories("three", ["a"])

    def test_writes_are_scoped_to_the_namespace(self, store):
        store.add_memories([mem("a", "one", "one"), mem("a", "two", "two")])
        with store.transaction() as tx:
            tx.update(dataclasses.replace(mem("a", "changed", "one")), expected_version=1)
        assert store.get_memories("one", ["a"])[0].text == "changed"
        assert store.get_memories("two", ["a"])[0] == mem("a", "two", "two")
        store.record_usage("two", "a", True)
        assert store.get_memories("one", ["a"])[0].retrievals == 0
        assert store.existing_ids("two", ["a", "b"]) == {"a"}
        assert store.existing_ids("three", ["a"]) == set()

    # -- atomic batches and duplicates ------------------------------------------------------
    def test_duplicate_within_batch_fails_whole_batch(self, store):
        store.add_memories([mem("keep")])
        before = snapshot(store)
        with pytest.raises(DuplicateIdError, match="'b'"):
            store.add_memories([mem("a"), mem("b"), mem("c"), mem("b", "again")])
        assert snapshot(store) == before

    def test_duplicate_against_store_fails_whole_batch(self, store):
        store.add_memories([mem("a")])
        before = snapshot(store)
        with pytest.raises(DuplicateIdError, match="'a'"):
            store.add_memories([mem("new-1"), mem("a", "clash"), mem("new-2")])
        assert snapshot(store) == before
        with pytest.raises(DuplicateIdError), store.transaction() as tx:
            tx.insert(mem("a", "clash"))

    def test_failed_transaction_leaves_store_unchanged(self, store):
        store.add_memories([mem("a"), mem("b")])
        store.put_embeddings("m", {content_hash("memory a"): np.ones(3, np.float32)})
        before = snapshot(store)
        with pytest.raises(RuntimeError), store.transaction() as tx:
            tx.insert(mem("c"))
            tx.update(dataclasses.replace(mem("a"), text="changed"), expected_version=1)
            tx.append_event(Event(run_id="r1", action="merge", namespace="default",
                                  memory_ids=("a", "c")))
            raise RuntimeError("boom")
        assert snapshot(store) == before

    def test_conflict_mid_transaction_rolls_back_earlier_writes(self, store):
        store.add_memories([mem("a"), mem("b")])
        before = snapshot(store)
        with pytest.raises(VersionConflict), store.transaction() as tx:
            tx.insert(mem("c"))
            tx.update(dataclasses.replace(mem("a"), text="changed"), expected_version=1)
            tx.update(dataclasses.replace(mem("b"), text="stale"), expected_version=7)
        assert snapshot(store) == before

    def test_transaction_commits_on_normal_exit(self, store):
        store.add_memories([mem("a")])
        with store.transaction() as tx:
            tx.insert(mem("b"))
            tx.append_event(Event(run_id="r1", action="insert", namespace="default",
                                  memory_ids=("b",)))
        assert [m.id for m in store.iter_memories()] == ["a", "b"]
        assert [e.memory_ids for e in store.events()] == [("b",)]

    # -- unknown ids ------------------------------------------------------------------------
    def test_get_lists_every_missing_id(self, store):
        store.add_memories([mem("a")])
        with pytest.raises(UnknownIdError) as err:
            store.get_memories("default", ["a", "ghost-1", "ghost-2"])
        assert "ghost-1" in str(err.value) and "ghost-2" in str(err.value)

    def test_get_keeps_the_order_given(self, store):
        store.add_memories([mem(i, minutes=n) for n, i in enumerate("abcde")])
        assert [m.id for m in store.get_memories("default", list("ecadb"))] == list("ecadb")
        many = [mem(f"m{i:04d}", minutes=i) for i in range(1200)]
        store.add_memories(many)
        ids = [m.id for m in reversed(many)]
        assert [m.id for m in store.get_memories("default", ids)] == ids

    def test_writes_to_unknown_ids(self, store):
        with pytest.raises(UnknownIdError), store.transaction() as tx:
            tx.update(mem("ghost"), expected_version=1)
        with pytest.raises(UnknownIdError), store.transaction() as tx:
            tx.restore(mem("ghost"), expected_version=1)
        with pytest.raises(UnknownIdError):
            store.record_usage("default", "ghost", True)
        assert store.count_memories() == 0

    # -- optimistic concurrency and restore -------------------------------------------------
    def test_update_bumps_version_and_updated_at(self, store):
        store.add_memories([mem("a")])
        original = store.get_memories("default", ["a"])[0]
        with store.transaction() as tx:
            stored = tx.update(dataclasses.replace(original, text="new text", importance=3.0),
                               expected_version=1)
        assert stored.version == 2 and stored.text == "new text"
        assert stored.updated_at > original.updated_at
        assert store.get_memories("default", ["a"])[0] == stored

    def test_stale_update_raises_version_conflict(self, store):
        store.add_memories([mem("a")])
        with store.transaction() as tx:
            tx.update(mem("a", "v2"), expected_version=1)
        with pytest.raises(VersionConflict) as err, store.transaction() as tx:
            tx.update(mem("a", "stale"), expected_version=1)
        assert (err.value.expected, err.value.actual) == (1, 2)
        assert store.get_memories("default", ["a"])[0].text == "v2"

    def test_concurrent_writer_on_another_handle_conflicts(self, store, other):
        store.add_memories([mem("a")])
        mine = store.get_memories("default", ["a"])[0]
        theirs = other.get_memories("default", ["a"])[0]
        with other.transaction() as tx:
            tx.update(dataclasses.replace(theirs, text="theirs"), theirs.version)
        with pytest.raises(VersionConflict), store.transaction() as tx:
            tx.update(dataclasses.replace(mine, text="mine"), mine.version)
        assert store.get_memories("default", ["a"])[0].text == "theirs"
        other.add_memories([mem("b")])
        assert store.existing_ids("default", ["b"]) == {"b"}

    def test_restore_writes_exactly_what_it_is_given(self, store):
        store.add_memories([rich_memory()])
        original = store.get_memories("agent/7", ["rich-1"])[0]
        with store.transaction() as tx:
            tx.update(dataclasses.replace(original, text="changed", status=Status.ACTIVE),
                      expected_version=original.version)
        with pytest.raises(VersionConflict), store.transaction() as tx:
            tx.restore(original, expected_version=original.version)
        with store.transaction() as tx:
            tx.restore(original, expected_version=original.version + 1)
        assert store.get_memories("agent/7", ["rich-1"]) == [original]

    def test_record_usage(self, store):
        store.add_memories([mem("a")])
        before = store.get_memories("default", ["a"])[0]
        store.record_usage("default", "a", True)
        store.record_usage("default", "a", False)
        got = store.record_usage("default", "a", None)
        assert (got.retrievals, got.successes, got.failures) == (3, 1, 1)
        assert got.version == before.version  # outcomes are not content: no new version
        assert got.last_used_at is not None and got.last_used_at > before.created_at
        assert got.updated_at == before.updated_at and got.text == before.text
        assert store.get_memories("default", ["a"]) == [got]

    def test_serve_history_keeps_the_query_of_each_use_recorded_with_one(self, store):
        store.add_memories([mem("a"), mem("b"), mem("c", namespace="other")])
        store.record_usage("default", "a", True, query="How do I roll back?")
        store.record_usage("default", "a", None)  # no query: counted, not in the history
        store.record_usage("default", "b", False, query="How do I roll back?")
        store.record_usage("default", "a", None, query="Undo a release")
        store.record_usage("other", "c", True, query="elsewhere")
        got = store.serve_history("default")
        assert [(s.memory_id, s.query, s.success) for s in got] == [
            ("a", "How do I roll back?", True), ("b", "How do I roll back?", False),
            ("a", "Undo a release", None)]
        assert all(s.namespace == "default" and s.time.tzinfo is not None for s in got)
        assert store.get_memories("default", ["a"])[0].retrievals == 3
        assert [s.memory_id for s in store.serve_history("other")] == ["c"]
        assert store.serve_history("nobody") == []
        with pytest.raises(UnknownIdError):  # an unknown id records nothing
            store.record_usage("default", "ghost", True, query="q")
        assert len(store.serve_history("default")) == 3

    def test_content_writes_leave_the_outcome_counters_alone(self, store):
        store.add_memories([mem("a")])
        read = store.get_memories("default", ["a"])[0]
        store.record_usage("default", "a", True)  # between a read and a write
        with store.transaction() as tx:
            tx.update(dataclasses.replace(read, text="edited"), read.version)
        got = store.get_memories("default", ["a"])[0]
        assert got.text == "edited" and (got.retrievals, got.successes) == (1, 1)
        with store.transaction() as tx:
            tx.restore(read, got.version)
        got = store.get_memories("default", ["a"])[0]
        assert got.text == read.text and got.version == read.version
        assert (got.retrievals, got.successes) == (1, 1)  # the feedback stays

    # -- the change sequence ----------------------------------------------------------------
    def test_change_sequence_counts_inserts_and_content_writes_not_feedback(self, store):
        start = store.change_seq()
        # a memory's own dates do not matter: these are a year older than any other
        store.add_memories([mem(f"old{i}", minutes=-365 * 24 * 60) for i in range(3)]
                           + [mem("x", namespace="other")])
        after_add = store.change_seq()
        assert after_add > start
        assert store.count_changed("default", [(start, None)]) == 3
        assert store.count_changed("other", [(start, None)]) == 1
        assert store.count_changed("default", [(after_add, None)]) == 0
        store.record_usage("default", "old0", True)  # feedback is not a change
        store.record_usage("default", "old1", None)
        assert store.change_seq() == after_add
        assert store.count_changed("default", [(after_add, None)]) == 0
        read = store.get_memories("default", ["old2"])[0]
        with store.transaction() as tx:
            tx.update(dataclasses.replace(read, text="edited"), read.version)
        after_edit = store.change_seq()
        assert after_edit > after_add
        assert store.count_changed("default", [(after_add, None)]) == 1
        assert store.count_changed("default", [(after_add, None)],
                                   statuses=[Status.ARCHIVED]) == 0
        # ranges: (after, upto]; an empty range counts nothing
        assert store.count_changed("default", [(start, after_add)]) == 2
        assert store.count_changed("default", [(start, after_add), (after_edit, None)]) == 2
        assert store.count_changed("default", [(after_add, after_add)]) == 0
        with store.transaction() as tx:  # a restore (undo) is a content write too
            tx.restore(read, read.version + 1)
        assert store.count_changed("default", [(after_edit, None)]) == 1

    def test_failed_write_takes_no_sequence_visible_to_counts(self, store):
        store.add_memories([mem("a")])
        mark = store.change_seq()
        with pytest.raises(DuplicateIdError):
            store.add_memories([mem("b"), mem("a")])
        assert store.count_changed("default", [(mark, None)]) == 0
        assert store.change_seq() == mark  # rolled back with the batch

    # -- iteration order --------------------------------------------------------------------
    def test_iteration_order(self, store):
        rng = random.Random(7)
        memories = [mem(f"id{rng.randrange(10**6):06d}-{i}", namespace=rng.choice("bca"),
                        minutes=rng.choice([0, 0, 1.5, 30, -60]) + rng.choice([0, 1e-4]))
                    for i in range(60)]
        # equal instants written in different offsets must still sort as equal instants
        memories.append(Memory(id="tz", text="tz", namespace="a",
                               created_at=T0.astimezone(timezone(timedelta(hours=-8)))))
        rng.shuffle(memories)
        store.add_memories(memories)
        expected = sorted(memories, key=lambda m: (m.namespace, m.created_at, m.id))
        assert list(store.iter_memories()) == expected
        assert list(store.iter_memories("b")) == [m for m in expected if m.namespace == "b"]

    def test_iteration_pages_through_large_pools(self, store):
        memories = [mem(f"m{i:05d}", minutes=i // 3) for i in range(2500)]
        store.add_memories(memories[::-1])
        assert [m.id for m in store.iter_memories()] == [m.id for m in memories]

    def test_writing_while_iterating_visits_each_once(self, store):
        store.add_memories([mem(f"m{i:04d}", minutes=i) for i in range(1500)])
        seen = []
        for m in store.iter_memories(statuses=[Status.ACTIVE]):
            seen.append(m.id)
            with store.transaction() as tx:
                tx.update(dataclasses.replace(m, importance=2.0), m.version)
        assert seen == sorted(seen) and len(set(seen)) == 1500

    def test_status_filters(self, store):
        store.add_memories([mem("a"), mem("b", status=Status.MERGED, replaced_by="a"),
                            mem("c", status=Status.EVICTED, namespace="x")])
        assert [m.id for m in store.iter_memories(statuses=[Status.ACTIVE])] == ["a"]
        assert [m.id for m in store.iter_memories(
            statuses={Status.MERGED, Status.EVICTED})] == ["b", "c"]
        assert store.count_memories(statuses=[Status.ACTIVE]) == 1
        assert store.count_memories("x", statuses=[Status.EVICTED]) == 1
        assert store.count_memories(statuses=[]) == 0

    # -- events -----------------------------------------------------------------------------
    def test_events_in_write_order_with_filters(self, store):
        snap = mem("a").to_dict()
        written = [
            Event(run_id="r1", action="merge", namespace="n1", memory_ids=("a", "b", "m"),
                  before=(snap, snap, None), after=(None, None, snap), reason="dupes",
                  agent="rules", time=T0),
            Event(run_id="r2", action="evict", namespace="n1", memory_ids=("c",), time=T0),
            Event(run_id="r1", action="supersede", namespace="n2", memory_ids=("a",),
                  time=T0 - timedelta(days=1)),
        ]
        for e in written:
            with store.transaction() as tx:
                tx.append_event(e)
        got = store.events()
        assert [dataclasses.replace(e, seq=None) for e in got] == written
        assert all(isinstance(e.seq, int) for e in got)
        assert [e.seq for e in got] == sorted({e.seq for e in got})
        assert [e.action for e in store.events(run_id="r1")] == ["merge", "supersede"]
        assert [e.action for e in store.events(memory_id="a")] == ["merge", "supersede"]
        assert [e.action for e in store.events(memory_id="a", namespace="n2")] == ["supersede"]
        assert [e.action for e in store.events(run_id="r2", memory_id="a")] == []
        assert [e.action for e in store.events(namespace="n1")] == ["merge", "evict"]
        assert store.events(run_id="nope") == []

    # -- runs -------------------------------------------------------------------------------
    def test_runs(self, store):
        r1 = RunRecord(run_id="r1", started_at=T0, finished_at=None, status="running",
                       namespaces=("a", "b"), report={})
        r2 = RunRecord(run_id="r2", started_at=T0 + timedelta(hours=1),
                       finished_at=T0 + timedelta(hours=2), status="succeeded",
                       namespaces=("a",), report={"merged": 3, "notes": ["ü"]})
        store.save_run(r1)
        store.save_run(r2)
        assert store.get_run("r2") == r2
        done = dataclasses.replace(r1, finished_at=T0 + timedelta(minutes=5), status="failed",
                                   report={"error": "x"})
        store.save_run(done)
        assert store.get_run("r1") == done
        assert [r.run_id for r in store.list_runs()] == ["r2", "r1"]
        assert [r.run_id for r in store.list_runs(limit=1)] == ["r2"]
        with pytest.raises(UnknownIdError):
            store.get_run("ghost")

    # -- embedding cache --------------------------------------------------------------------
    def test_embedding_cache(self, store):
        rng = np.random.default_rng(0)
        vecs = {content_hash(t): rng.standard_normal(5).astype(np.float32) for t in "abc"}
        store.put_embeddings("model-1", vecs)
        store.put_embeddings("model-2", {content_hash("a"): np.zeros(2, np.float32)})
        got = store.get_embeddings("model-1", [content_hash("a"), content_hash("c"), "missing"])
        assert set(got) == {content_hash("a"), content_hash("c")}
        for h, v in got.items():
            assert v.dtype == np.float32 and v.shape == (5,)
            np.testing.assert_array_equal(v, vecs[h])
        assert store.get_embeddings("model-2", [content_hash("a")])[content_hash("a")].shape == (2,)
        assert store.get_embeddings("model-3", [content_hash("a")]) == {}
        assert store.get_embeddings("model-1", []) == {}
        store.put_embeddings("model-1", {content_hash("a"): np.ones(5, np.float32)})
        np.testing.assert_array_equal(
            store.get_embeddings("model-1", [content_hash("a")])[content_hash("a")], np.ones(5))

    def test_bad_vectors_are_refused_whole(self, store):
        store.put_embeddings("m", {"h1": np.ones(4, np.float32)})
        bad = np.ones(4, np.float32)
        bad[2] = np.nan
        with pytest.raises(InputError):
            store.put_embeddings("m", {"h2": np.ones(4, np.float32), "h3": bad})
        with pytest.raises(InputError):
            store.put_embeddings("m", {"h4": np.ones(3, np.float32)})
        assert store.get_embeddings("m", ["h1", "h2", "h3", "h4"]).keys() == {"h1"}

    # -- stats ------------------------------------------------------------------------------
    def test_stats(self, store):
        store.add_memories([
            mem("a", "alpha", "n1", kind="price"), mem("b", "beta", "n1"),
            mem("c", "gamma", "n1", status=Status.EVICTED),
            mem("d", "alpha", "n2", kind="price"),
        ])
        store.put_embeddings("m", {content_hash(t): np.ones(3, np.float32)
                                   for t in ("alpha", "gamma", "unused")})
        stats = store.stats()
        assert stats["namespaces"] == {
            "n1": {"total": 3, "status": {"active": 2, "evicted": 1},
                   "kind": {"default": 2, "price": 1}},
            "n2": {"total": 1, "status": {"active": 1}, "kind": {"price": 1}},
        }
        # alpha is active in n1 and n2; gamma is only on an evicted memory; beta has none
        assert stats["embeddings"] == {"m": {"vectors": 3, "covered_active": 2, "active": 3}}

    # -- lock -------------------------------------------------------------------------------
    def test_lock_is_exclusive_and_released(self, store):
        with store.lock():
            with pytest.raises(LockHeldError), store.lock():
                pass
            with store.lock("other-name"):
                pass
        with pytest.raises(ValueError), store.lock():
            raise ValueError("released on error too")
        with store.lock():
            pass

    def test_lock_across_handles(self, store, other):
        with store.lock(), pytest.raises(LockHeldError), other.lock():
            pass
        with other.lock():
            pass

    def test_lock_across_processes(self, store):
        if not self.supports_reopen:
            pytest.skip("this store cannot be opened by another process")
        holder = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, store.url],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout.readline().strip() == "locked"
            with pytest.raises(LockHeldError), store.lock():
                pass
        finally:
            os.kill(holder.pid, signal.SIGKILL)  # no cleanup: the lock must still go
            holder.wait(timeout=30)
        with _locked_eventually(store):
            out = subprocess.run([sys.executable, "-c", _TRY_LOCK, store.url],
                                 capture_output=True, text=True, timeout=60, check=False)
            assert out.stdout.startswith("held:"), out.stdout + out.stderr
