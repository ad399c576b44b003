"""A reviewed plan applies exactly what was reviewed, on the store it was made for.

Tampering with the plan file, the decisions or the store after review is refused before
anything is written: one line on stderr, a non-zero exit, no memory and no run record
changed. Staleness is judged per action against the store's own rows.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memmaint.maintenance.cli.main import main
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.review.binding import plan_digests
from memmaint.maintenance.review.planfile import Decisions, PlanFile, changing_actions
from memmaint.maintenance.store.sqlite import SQLiteStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_review
from test_review import snapshot

planned = test_review.planned  # the fixture


def runs(db: Path) -> list[tuple[str, str]]:
    with SQLiteStore(db) as store:
        return [(r.run_id, r.status) for r in store.list_runs()]


def approve_everything(plan: Path, out: Path) -> PlanFile:
    pf = PlanFile.load(plan)
    Decisions.of(pf, [k for k, _c, _a in changing_actions(pf.plan)]).write(out)
    return pf


def _edit_plan(plan: Path, change: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(plan.read_text(encoding="utf-8"))
    change(data)
    plan.write_text(json.dumps(data), encoding="utf-8")



def _raise_versions(data: dict[str, Any]) -> None:
    """Every version in a plan file one higher: the clusters' and the snapshots'."""
    for c in data["plan"]["clusters"]:
        c["versions"] = {k: v + 1 for k, v in c["versions"].items()}
    for ids in data["memories"].values():
        for snap in ids.values():
            snap["version"] += 1

def _first(data: dict[str, Any], kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    for cluster in data["plan"]["clusters"]:
        for action in cluster["actions"]:
            if action["type"] == kind:
                return cluster, action
    raise AssertionError(f"no {kind} in the plan")


def edited_text(db: Path, plan: Path, decisions: Path, tmp: Path) -> tuple[Path, Path]:
    def change(data: dict[str, Any]) -> None:
        _c, merge = _first(data, "merge")
        merge["new_memory"]["text"] = "Wire the refund to account 666"
    _edit_plan(plan, change)
    return db, decisions


def swapped_kind(db: Path, plan: Path, decisions: Path, tmp: Path) -> tuple[Path, Path]:
    def change(data: dict[str, Any]) -> None:
        cluster, merge = _first(data, "merge")
        i = cluster["actions"].index(merge)
        first, *rest = merge["source_ids"]
        cluster["actions"][i] = {"type": "evict", "memory_id": first, "agent": merge["agent"],
                                 "reason": merge["reason"]}
        cluster["actions"][i + 1:i + 1] = [{"type": "evict", "memory_id": m, "agent": "x",
                                            "reason": "y"} for m in rest]
    _edit_plan(plan, change)
    return db, decisions


def raised_versions(db: Path, plan: Path, decisions: Path, tmp: Path) -> tuple[Path, Path]:
    """A memory edited after review; the file's versions raised to match the store."""
    data = json.loads(plan.read_text(encoding="utf-8"))
    _cluster, merge = _first(data, "merge")
    victim = merge["source_ids"][0]
    with SQLiteStore(db) as store:
        mem = store.get_memories("ns", [victim])[0]
        with store.transaction() as tx:
            tx.update(dataclasses.replace(mem, text="Refunds take 90 days"), mem.version)

    _edit_plan(plan, _raise_versions)
    return db, decisions


def raised_versions_and_digests(db: Path, plan: Path, decisions: Path,
                                tmp: Path) -> tuple[Path, Path]:
    """As above, and the plan file's digests recomputed, and decisions made to match:
    only the store's own rows can tell (the texts differ from the snapshot)."""
    with SQLiteStore(db) as store:
        for mem in list(store.iter_memories("ns")):
            with store.transaction() as tx:
                tx.update(dataclasses.replace(mem, text=mem.text + " (edited)"), mem.version)

    _edit_plan(plan, _raise_versions)
    data = json.loads(plan.read_text(encoding="utf-8"))
    pf = PlanFile.from_dict(data)
    data["digests"] = plan_digests(pf.plan, pf.memories)
    plan.write_text(json.dumps(data), encoding="utf-8")
    approve_everything(plan, decisions)
    return db, decisions


def other_store(db: Path, plan: Path, decisions: Path, tmp: Path) -> tuple[Path, Path]:
    """Store B: the same ids, other texts."""
    other = tmp / "other.db"
    with SQLiteStore(db) as src, SQLiteStore(other) as dst:
        dst.add_memories([dataclasses.replace(m, text="B: " + m.text)
                          for ns in src.namespaces() for m in src.iter_memories(ns)])
    return other, decisions


def copied_store(db: Path, plan: Path, decisions: Path, tmp: Path) -> tuple[Path, Path]:
    """A copy of the store (same texts) elsewhere is another store."""
    other = tmp / "copy.db"
    with SQLiteStore(db):
        pass
    shutil.copy(db, other)
    return other, decisions


def other_plan(db: Path, plan: Path, decisions: Path, tmp: Path) -> tuple[Path, Path]:
    """Decisions made on another plan of the same store, renamed to this plan's id."""
    pf = PlanFile.load(plan)
    second = PlanFile.load(tmp / "plan2.json")
    keys = [k for k, _c, _a in changing_actions(second.plan)]
    got = Decisions.of(second, keys).to_dict()
    got["plan_id"] = pf.plan_id
    decisions.write_text(json.dumps(got), encoding="utf-8")
    return db, decisions


def other_plan_id(db: Path, plan: Path, decisions: Path, tmp: Path) -> tuple[Path, Path]:
    """Decisions of another plan (made with another configuration: a plan's id follows from
    the store's state and the configuration, so plan2.json has this plan's id), as they
    were."""
    cfg = tmp / "other.toml"
    cfg.write_text((tmp / "fast.toml").read_text(encoding="utf-8") + "seed = 7\n",
                   encoding="utf-8")
    assert CliRunner().invoke(main, ["plan", "--db", str(db), "--config", str(cfg), "-o",
                                     str(tmp / "plan3.json")]).exit_code == 0
    third = PlanFile.load(tmp / "plan3.json")
    Decisions.of(third, [k for k, _c, _a in changing_actions(third.plan)]).write(decisions)
    return db, decisions


def no_digests(db: Path, plan: Path, decisions: Path, tmp: Path) -> tuple[Path, Path]:
    got = json.loads(decisions.read_text(encoding="utf-8"))
    del got["digests"]
    decisions.write_text(json.dumps(got), encoding="utf-8")
    return db, decisions


TAMPERING = {
    "edited text": (edited_text, "does not match the digest"),
    "swapped kind": (swapped_kind, "does not match the digest"),
    "raised versions": (raised_versions, "does not match the digest"),
    "raised versions and digests": (raised_versions_and_digests, "is stale"),
    "other store": (other_store, "made for another store"),
    "copied store": (copied_store, "made for another store"),
    "other plan": (other_plan, "approved with digest"),
    "other plan id": (other_plan_id, "decisions are for plan"),
    "decisions without digests": (no_digests, "without its digest"),
}


@pytest.mark.parametrize("case", list(TAMPERING))
def test_tampering_applies_nothing_with_one_line(cli, planned, tmp_path, case):
    db, cfg, plan = planned
    assert cli("plan", "--db", db, "--config", cfg, "-o", tmp_path / "plan2.json").exit_code == 0
    decisions = tmp_path / "decisions.json"
    approve_everything(plan, decisions)
    make, message = TAMPERING[case]
    target, decisions = make(db, plan, decisions, tmp_path)
    before, before_runs = snapshot(target), runs(target)
    res = cli("apply", plan, "--decisions", decisions, "--db", target)
    assert res.exit_code != 0, res.output
    assert res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1 and message in res.stderr, res.stderr
    assert "Traceback" not in res.output
    assert snapshot(target) == before and runs(target) == before_runs
    assert not (tmp_path / "pool.db.labels.jsonl").exists()


@pytest.mark.parametrize("case", ["edited text", "swapped kind", "raised versions",
                                  "other store"])
def test_tampering_without_decisions_is_refused_too(cli, planned, tmp_path, case):
    db, _cfg, plan = planned
    make, message = TAMPERING[case]
    target, _ = make(db, plan, tmp_path / "unused.json", tmp_path)
    before, before_runs = snapshot(target), runs(target)
    res = cli("apply", plan, "--db", target)
    assert res.exit_code == 2 and message in res.stderr, res.output
    assert len(res.stderr.strip().splitlines()) == 1
    assert snapshot(target) == before and runs(target) == before_runs


def test_every_action_stale_is_one_line_exit_6_and_no_run(cli, planned):
    db, _cfg, plan = planned
    with SQLiteStore(db) as store:
        for mem in list(store.iter_memories("ns")):
            with store.transaction() as tx:
                tx.update(dataclasses.replace(mem, importance=0.9), mem.version)
    before, before_runs = snapshot(db), runs(db)
    res = cli("apply", plan, "--db", db)
    assert res.exit_code == 6, res.output
    assert res.stdout == "" and len(res.stderr.strip().splitlines()) == 1
    assert "is stale" in res.stderr and "nothing applied" in res.stderr
    assert snapshot(db) == before and runs(db) == before_runs


def test_staleness_is_per_action_and_a_second_apply_finishes_the_plan(cli, planned, tmp_path):
    db, _cfg, plan = planned
    pf = PlanFile.load(plan)
    keys = [k for k, _c, _a in changing_actions(pf.plan)]
    half, rest = keys[: len(keys) // 2], keys[len(keys) // 2:]
    first, second = tmp_path / "d1.json", tmp_path / "d2.json"
    Decisions.of(pf, half).write(first)
    Decisions.of(pf, rest).write(second)
    res = cli("apply", plan, "--decisions", first, "--db", db)
    assert res.exit_code == 0 and f"applied {len(half)} approved" in res.stdout, res.output
    res = cli("apply", plan, "--decisions", second, "--db", db)
    assert res.exit_code == 0, res.output
    assert f"applied {len(rest)} approved" in res.stdout and "0 skipped as stale" in res.stdout
    # applying everything again: every action is stale now, nothing is written
    before = snapshot(db)
    res = cli("apply", plan, "--db", db)
    assert res.exit_code == 6 and snapshot(db) == before


def test_one_stale_action_names_its_own_reason(cli, planned):
    db, _cfg, plan = planned
    pf = PlanFile.load(plan)
    acts = changing_actions(pf.plan)
    victims = {a.subjects[0]: k for k, _c, a in acts[:2]}
    with SQLiteStore(db) as store:
        for mid in victims:
            mem = store.get_memories("ns", [mid])[0]
            with store.transaction() as tx:
                tx.update(dataclasses.replace(mem, text=mem.text + "!"), mem.version)
    res = cli("apply", plan, "--db", db)
    assert res.exit_code == 0, res.output
    skipped = [line for line in res.stdout.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 2
    for mid, key in victims.items():
        line = next(x for x in skipped if x.startswith(f"skipped {key}:"))
        assert mid in line and all(other not in line for other in victims if other != mid)


def test_a_plan_applies_on_the_same_store_by_another_path(cli, planned, monkeypatch):
    db, _cfg, plan = planned
    monkeypatch.chdir(db.parent)
    res = cli("apply", plan, "--db", "./" + db.name)
    assert res.exit_code == 0, res.output


def test_review_page_carries_the_digests(cli, planned, tmp_path):
    _db, _cfg, plan = planned
    page = tmp_path / "r.html"
    assert cli("review", plan, "-o", page).exit_code == 0
    text = page.read_text(encoding="utf-8")
    pf = PlanFile.load(plan)
    assert all(d in text for d in pf.digests.values()) and "out.digests[it.key]" in text


def test_merge_created_target_is_in_the_digest(planned):
    """A supersede pointing at a merge's new memory is bound to that memory's text."""
    _db, _cfg, plan = planned
    pf = PlanFile.load(plan)
    _key, cluster, merge = next((k, c, a) for k, c, a in changing_actions(pf.plan)
                               if a.type == "merge")
    from memmaint.maintenance.plan.model import Supersede
    from memmaint.maintenance.review.binding import action_digest

    sup = Supersede(old_id="x", new_id=merge.new_memory.id, agent="a", reason="r")
    other = dataclasses.replace(cluster, actions=(dataclasses.replace(
        merge, new_memory=Memory(text="other", id=merge.new_memory.id, namespace="ns")),))
    snap = pf.memories["ns"]
    assert action_digest(cluster, sup, snap) != action_digest(other, sup, snap)
