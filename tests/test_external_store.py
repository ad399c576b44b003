"""ExternalStore over a JSON-file backend (a fake of our own ExternalBackend interface, not of
any connector): the store conformance suite, the end-to-end run and undo, the write-ahead
journal under injected failures and crashes, concurrent writers and sync.

The real connectors run the same suites against their libraries (test_connector_*.py)."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from connector_e2e import ConnectorEndToEnd, seed_rows
from store_conformance import StoreConformance, mem

from memmaint.maintenance.core.errors import StoreError, UserError
from memmaint.maintenance.core.records import Memory, Status
from memmaint.maintenance.store.external import (
    ConnectorURL,
    ExternalRecord,
    default_sidecar,
    redact,
)
from memmaint.maintenance.store.mirror import ExternalStore
from memmaint.maintenance.store.registry import open_store, register_store, unregister_store


class JsonFileBackend:
    """Namespaces -> records in one JSON file, re-read on every call like a live system."""

    system = "jsonfile"
    embeds_itself = False

    def __init__(self, path: str, vector_model: str | None = None, url: str = "") -> None:
        self.path = Path(path)
        self.url = url or f"jsonfile://{path}"
        self.vector_model = vector_model
        self.fail_after: int | None = None  # fail one write call, once, after this many
        self.calls = 0

    def _load(self) -> dict[str, dict[str, Any]]:
        return json.loads(self.path.read_text()) if self.path.exists() else {}

    def _save(self, data: dict[str, dict[str, Any]]) -> None:
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            self.fail_after = None
            raise OSError("injected failure")
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, self.path)

    def namespaces(self) -> list[str]:
        return sorted(ns for ns, rows in self._load().items() if rows)

    def read_all(self, namespace: str) -> list[ExternalRecord]:
        return [ExternalRecord.from_json(r) for r in self._load().get(namespace, {}).values()]

    def read(self, namespace: str, ids: Sequence[str]) -> dict[str, ExternalRecord]:
        rows = self._load().get(namespace, {})
        return {i: ExternalRecord.from_json(rows[i]) for i in ids if i in rows}

    def upsert(self, namespace: str, records: Sequence[ExternalRecord]) -> None:
        data = self._load()
        for r in records:
            data.setdefault(namespace, {})[r.id] = r.to_json()
        self._save(data)

    def delete(self, namespace: str, ids: Sequence[str]) -> None:
        data = self._load()
        for i in ids:
            data.get(namespace, {}).pop(i, None)
        self._save(data)

    def close(self) -> None:
        pass


def open_jsonfile(url: str, *, create: bool) -> ExternalStore:
    parsed = ConnectorURL.parse(url, known=())
    if not create and not Path(parsed.path).exists() \
            and not Path(default_sidecar(parsed, parsed.path)).exists():
        raise UserError(f"no such file: {parsed.path}")
    backend = JsonFileBackend(parsed.path, parsed.params.get("model"), redact(url))
    return ExternalStore(backend, default_sidecar(parsed, parsed.path), create=create)


@pytest.fixture(autouse=True)
def jsonfile_scheme():
    register_store("jsonfile", open_jsonfile, replace=True)
    yield
    unregister_store("jsonfile")


class TestExternalStoreConformance(StoreConformance):
    @pytest.fixture
    def make_store(self, tmp_path):
        opened: list[ExternalStore] = []

        def make() -> ExternalStore:
            path = tmp_path / f"system{len(opened)}.json"
            opened.append(open_jsonfile(f"jsonfile://{path}?model=hashing&dim=16",
                                        create=True))
            return opened[-1]

        yield make
        for s in opened:
            s.close()

    def test_lock_across_processes(self, store):
        """The lock is the sidecar's: another process opening the sidecar sees it taken."""
        import subprocess
        import sys

        code = ("import sys\nfrom memmaint.maintenance.store.sqlite import SQLiteStore\n"
                "from memmaint.maintenance.core.errors import LockHeldError\n"
                "s = SQLiteStore(sys.argv[1])\ntry:\n    with s.lock():\n        pass\n"
                "except LockHeldError:\n    sys.exit(3)\n")
        with store.lock():
            done = subprocess.run([sys.executable, "-c", code, store.sidecar_path], check=False)
        assert done.returncode == 3


class JsonKit:
    namespace = "default"

    def __init__(self, tmp_path: Path) -> None:
        self.path = tmp_path / "system.json"

    def url(self) -> str:
        return f"jsonfile://{self.path}"

    def seed(self, rows: list[tuple[str, str, dict, list[float]]]) -> None:
        data = json.loads(self.path.read_text()) if self.path.exists() else {}
        data.setdefault(self.namespace, {}).update(
            {i: ExternalRecord(i, t, m, np.asarray(v, np.float32)).to_json()
             for i, t, m, v in rows})
        self.path.write_text(json.dumps(data))

    def read_back(self) -> dict[str, tuple[str, dict]]:
        data = json.loads(self.path.read_text())
        return {i: (r["text"], r["metadata"]) for i, r in data[self.namespace].items()}

    def vectors(self) -> dict[str, list[float]]:
        data = json.loads(self.path.read_text())
        return {i: r["vector"] for i, r in data[self.namespace].items()}


class TestJsonFileEndToEnd(ConnectorEndToEnd):
    keeps_time = False  # the kit writes records without times
    time_from_metadata = True

    @pytest.fixture
    def kit(self, tmp_path):
        return JsonKit(tmp_path)


# -- the journal, concurrency and sync -------------------------------------------------------

def _store(tmp_path: Path, **kw: Any) -> tuple[ExternalStore, JsonFileBackend]:
    path = tmp_path / "system.json"
    backend = JsonFileBackend(str(path), "hashing", f"jsonfile://{path}?model=hashing&dim=16")
    return ExternalStore(backend, str(tmp_path / "sidecar.db"), **kw), backend


def _merge(store: ExternalStore, ns: str, keep: str, gone: str) -> None:
    """What the applier does for a merge: insert the merged memory, retire the sources."""
    a, b = store.get_memories(ns, [keep, gone])
    merged = Memory(text=a.text + " (merged)", namespace=ns, id="m-" + keep)
    with store.transaction() as tx:
        tx.insert(merged)
        tx.update(dataclasses.replace(a, status=Status.MERGED, replaced_by=merged.id),
                  a.version)
        tx.update(dataclasses.replace(b, status=Status.MERGED, replaced_by=merged.id),
                  b.version)


def _system(backend: JsonFileBackend) -> dict[str, Any]:
    return backend._load()


def test_records_seen_first_become_memories_and_vectors_seed_the_cache(tmp_path):
    kit = JsonKit(tmp_path)
    kit.seed(seed_rows()[:3])
    store, _ = _store(tmp_path)
    mems = list(store.iter_memories("default"))
    assert [m.text for m in mems] == [r[1] for r in seed_rows()[:3]]
    assert mems[0].metadata == seed_rows()[0][2]
    model_id = store.embedder().model_id
    cached = store.get_embeddings(model_id, [m.content_hash for m in mems])
    assert len(cached) == 3
    store.close()


def test_a_failed_external_write_rolls_back_both_sides(tmp_path):
    JsonKit(tmp_path).seed(seed_rows()[:4])
    store, backend = _store(tmp_path)
    before_system = _system(backend)
    before_mirror = [m.to_dict() for m in store.iter_memories()]
    backend.fail_after = backend.calls + 1  # the upsert lands, the delete fails
    with pytest.raises(StoreError, match="rolled back"):
        _merge(store, "default", seed_rows()[0][0], seed_rows()[1][0])
    assert _system(backend) == before_system
    assert [m.to_dict() for m in store.iter_memories()] == before_mirror
    store.close()


@pytest.mark.parametrize("committed", [False, True])
def test_a_crash_is_reconciled_at_the_next_open(tmp_path, committed, monkeypatch):
    """A crash after the external writes: before the sidecar commit the writes are rolled
    back at the next open; after it they are kept (replayed)."""
    JsonKit(tmp_path).seed(seed_rows()[:4])
    store, backend = _store(tmp_path)
    before_system = _system(backend)
    keep, gone = seed_rows()[0][0], seed_rows()[1][0]

    class Crash(BaseException):
        pass

    if not committed:
        real = ExternalStore._flush

        def flush_then_crash(self: ExternalStore, conn: Any, ops: Any) -> None:
            real(self, conn, ops)
            raise Crash  # dies before the sidecar commits
        monkeypatch.setattr(ExternalStore, "_flush", flush_then_crash)
        with pytest.raises(Crash):
            _merge(store, "default", keep, gone)
        monkeypatch.undo()
    else:
        _merge(store, "default", keep, gone)
        states = [r[0] for r in store._journal.execute("SELECT state FROM journal")]
        assert states == ["done"]
        # as if the process died before marking the journal entry done
        store._journal.execute("UPDATE journal SET state = 'pending'")
    after_crash = _system(backend)
    # stable ids: the merged memory rewrote its survivor (``keep``) in place
    assert set(after_crash["default"]) == set(before_system["default"]) - {gone}
    assert after_crash["default"][keep]["text"].endswith("(merged)")
    assert after_crash["default"][keep]["metadata"] == before_system["default"][keep]["metadata"]
    store._journal.close()
    store._side.close()

    reopened, backend2 = _store(tmp_path)
    if committed:
        assert set(_system(backend2)["default"]) == set(after_crash["default"])
        assert reopened.get_memories("default", [keep])[0].status is Status.MERGED
        assert reopened.get_memories("default", ["m-" + keep])[0].is_active
        assert reopened.sync() == {"added": 0, "changed": 0, "removed": 0}
    else:
        assert _system(backend2) == before_system
        assert reopened.get_memories("default", [keep])[0].status is Status.ACTIVE
        assert not reopened.existing_ids("default", ["m-" + keep])
        assert reopened.sync() == {"added": 0, "changed": 0, "removed": 0}
    states = [r[0] for r in reopened._journal.execute("SELECT state FROM journal")]
    assert states == ["done" if committed else "rolled-back"]
    reopened.close()


def test_a_record_changed_by_another_writer_is_a_conflict(tmp_path):
    JsonKit(tmp_path).seed(seed_rows()[:4])
    store, backend = _store(tmp_path)
    keep, gone = seed_rows()[0][0], seed_rows()[1][0]
    data = _system(backend)
    data["default"][gone]["text"] = "someone else edited this"
    backend._save(data)
    from memmaint.maintenance.core.errors import VersionConflict
    with pytest.raises(VersionConflict):
        _merge(store, "default", keep, gone)
    assert _system(backend)["default"][gone]["text"] == "someone else edited this"
    store.close()


def test_sync_records_outside_changes_as_events(tmp_path):
    JsonKit(tmp_path).seed(seed_rows()[:3])
    store, backend = _store(tmp_path)
    store.close()
    data = _system(backend)
    first, second = seed_rows()[0][0], seed_rows()[1][0]
    data["default"][first]["text"] = "edited by the agent"
    del data["default"][second]
    backend._save(data)
    store, _ = _store(tmp_path)
    a, b = store.get_memories("default", [first, second])
    assert a.text == "edited by the agent" and a.version == 2 and a.is_active
    assert b.status is Status.ARCHIVED
    reasons = [e.reason for e in store.events(memory_id=first)]
    assert reasons == ["added outside memmaint", "changed outside memmaint"]
    store.close()


def test_a_new_memory_without_a_model_gets_its_sources_mean_vector(tmp_path):
    JsonKit(tmp_path).seed(seed_rows()[:2])
    backend = JsonFileBackend(str(tmp_path / "system.json"), None)
    store = ExternalStore(backend, str(tmp_path / "sidecar.db"))
    keep, gone = seed_rows()[0][0], seed_rows()[1][0]
    _merge(store, "default", keep, gone)
    assert set(_system(backend)["default"]) == {keep}  # the survivor's id, rewritten
    vec = np.asarray(_system(backend)["default"][keep]["vector"])
    expected = np.mean([seed_rows()[0][3], seed_rows()[1][3]], axis=0)
    np.testing.assert_allclose(vec, expected / np.linalg.norm(expected), rtol=1e-5)
    with pytest.raises(StoreError, match="model="):
        store.add_memories([mem("new", "a brand new memory")])
    store.close()


def test_urls(tmp_path, monkeypatch):
    parsed = ConnectorURL.parse("chroma:///d/c?collection=x&sidecar=/s.db", known=["collection"])
    assert parsed.path == "/d/c" and parsed.params == {"collection": "x", "sidecar": "/s.db"}
    with pytest.raises(UserError, match="unknown parameter 'colection'"):
        ConnectorURL.parse("chroma:///d?colection=x", known=["collection"])
    assert redact("pgvector://me:secret@host/db?table=t") == "pgvector://me:***@host/db?table=t"
    assert default_sidecar(parsed) == "/s.db"
    local = ConnectorURL.parse("qdrant:///data/q", known=())
    assert default_sidecar(local, "/data/q") == "/data/q.memmaint.db"
    monkeypatch.setenv("MEMMAINT_DATA_DIR", str(tmp_path))
    remote = ConnectorURL.parse("qdrant+http://h:1?collection=c", known=["collection"])
    assert default_sidecar(remote).startswith(str(tmp_path / "sidecars" / "qdrant-http-"))
    with pytest.raises(UserError, match="no such file"):
        open_store(f"jsonfile://{tmp_path}/missing.json", create=False)


def test_a_record_an_agent_changes_during_the_run_skips_its_cluster(tmp_path, monkeypatch):
    """The concurrent-writer guarantee end to end: an agent rewrites a record while the run
    applies; that cluster is skipped (the agent's text stays), the other merges land."""
    from click.testing import CliRunner
    from connector_e2e import CONFIG, TEXTS

    from memmaint.maintenance.apply import applier
    from memmaint.maintenance.cli.main import main

    kit = JsonKit(tmp_path)
    kit.seed(seed_rows())
    victim = seed_rows()[1][0]  # a restatement of row 0: the run merges it
    edited = "the user prefers light mode now"
    real_pause = applier._pause

    def agent_writes_first(point: str) -> None:
        data = json.loads(kit.path.read_text())
        if data["default"].get(victim, {}).get("text") not in (None, edited):
            data["default"][victim]["text"] = edited
            kit.path.write_text(json.dumps(data))
        real_pause(point)

    monkeypatch.setattr(applier, "_pause", agent_writes_first)
    config = tmp_path / "fast.toml"
    config.write_text(CONFIG)
    report = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["run", "--db", kit.url() + "?model=hashing&dim=16",
                                       "--config", str(config), "--report", str(report)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    after = kit.read_back()
    assert after[victim][0] == edited
    assert seed_rows()[0][0] in after  # its cluster was skipped: row 0 was not merged away
    skipped = json.loads(report.read_text())["apply"]["skipped"]
    assert [victim in s["memory_ids"] for s in skipped] == [True]
    assert len(after) < len(TEXTS)  # the other restatements were merged


def test_metadata_times_iso_epoch_seconds_and_ms_and_nested():
    from datetime import datetime, timezone

    from memmaint.maintenance.store.external import metadata_time, record_times

    feb = datetime(2025, 2, 18, 10, tzinfo=timezone.utc)
    keys = ("created_at", "timestamp", "date")
    assert metadata_time({"created_at": "2025-02-18T10:00:00Z"}, keys) == feb
    assert metadata_time({"timestamp": feb.timestamp()}, keys) == feb
    assert metadata_time({"timestamp": int(feb.timestamp() * 1000)}, keys) == feb
    assert metadata_time({"date": "2025-02-18"}, keys) == feb.replace(hour=0)
    assert metadata_time({"metadata": {"created_at": "2025-02-18T11:00:00+01:00"}}, keys) == feb
    assert metadata_time({"created_at": True, "date": "next Tuesday"}, keys) is None
    rec = ExternalRecord("a", "t", {"when": "2025-02-18T10:00:00Z", "created_at": 0})
    assert record_times(rec, {"created_at": "when"})[0] == feb  # the URL's key wins
    seen = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert record_times(ExternalRecord("b", "t", {}), {}, seen) == (seen, seen)


def test_the_users_time_wins_over_a_time_the_system_keeps_on_its_own():
    """LangGraph's item times (reset by every put) and mem0's lose to the user's metadata;
    pgvector's times come from columns the URL names, and win; a named key wins over all."""
    from datetime import datetime, timezone

    from memmaint.maintenance.store.external import record_times

    feb, may = (datetime(2025, m, 18, 10, tzinfo=timezone.utc) for m in (2, 5))
    put = datetime(2026, 1, 1, tzinfo=timezone.utc)  # when the system wrote the record
    rec = ExternalRecord("a", "t", {"created_at": "2025-02-18T10:00:00Z",
                                    "updated_at": "2025-05-18T10:00:00Z", "when": 1747562400},
                         created_at=put, updated_at=put)
    assert record_times(rec, {}) == (feb, may)
    assert record_times(rec, {}, own_times_named=True) == (put, put)
    assert record_times(rec, {"created_at": "when"}, own_times_named=True)[0] == may
    bare = ExternalRecord("b", "t", {}, created_at=put)
    assert record_times(bare, {}, datetime(2027, 1, 1, tzinfo=timezone.utc)) == (put, put)


def test_a_dry_run_over_a_pending_journal_entry_is_one_line_and_writes_nothing(tmp_path):
    """A write a crash left pending can only be finished by writing: a dry run refuses it
    (exit 2, one line), the system, the sidecar and the journal untouched; an ordinary open
    then reconciles it."""
    from click.testing import CliRunner
    from connector_e2e import CONFIG

    from memmaint.maintenance.cli.main import main

    JsonKit(tmp_path).seed(seed_rows()[:4])
    store, backend = _store(tmp_path)
    _merge(store, "default", seed_rows()[0][0], seed_rows()[1][0])
    store._journal.execute("UPDATE journal SET state = 'pending'")  # died before 'done'
    store.close()
    url = backend.url
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    config = tmp_path / "fast.toml"
    config.write_text(CONFIG)
    result = CliRunner().invoke(main, ["run", "--db", f"{url}&sidecar={tmp_path / 'sidecar.db'}",
                                       "--config", str(config), "--dry-run"])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and "pending" in result.output
    assert "Traceback" not in result.output
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()
            if p.name != "fast.toml"} == files
    reopened, _ = _store(tmp_path)  # an ordinary open finishes it
    assert [r[0] for r in reopened._journal.execute("SELECT state FROM journal")] == ["done"]
    reopened.close()


def test_a_store_open_for_a_dry_run_refuses_to_write(tmp_path):
    JsonKit(tmp_path).seed(seed_rows()[:4])
    store, backend = _store(tmp_path, dry_run=True)
    before = _system(backend)
    with pytest.raises(StoreError, match="dry run"):
        _merge(store, "default", seed_rows()[0][0], seed_rows()[1][0])
    store.close()
    assert _system(backend) == before
    assert not (tmp_path / "sidecar.db").exists()
