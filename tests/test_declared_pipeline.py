"""The pipeline is declared once (``job.pipeline.PIPELINE``): the job with every executor, a dry
run, ``compare_configs``, the shadow and the tuner run the stages it names in its order, and
editing it is the only way to change what runs when."""

from __future__ import annotations

import ast
import dataclasses
import logging
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from memmaint.datasets.pools import make_memory_pool
from memmaint.maintenance.core.config import config_from_dict
from memmaint.maintenance.core.records import Status
from memmaint.maintenance.job import pipeline
from memmaint.maintenance.job.executors import LocalExecutor, ThreadExecutor
from memmaint.maintenance.job.pipeline import PIPELINE, Stage, pipeline_table, stage_names
from memmaint.maintenance.job.run import compare_configs, run_job
from memmaint.maintenance.store.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)
CONFIG = {
    "embedding": {"model": "hashing", "dim": 64, "batch_size": 16},
    "reduction": {"method": "pca", "n_components": 3},
    "clustering": {"algorithm": "hdbscan", "hdbscan": {"min_cluster_size": 3}},
    "agents": {"merge_threshold": 0.8},
    "job": {"min_new_memories": 0},
}
ALL = [s.name for s in PIPELINE]
DRY = [f"{s.name} (preview)" if s.writes else s.name for s in PIPELINE if
       not s.writes or s.preview is not None]


@pytest.fixture(scope="module")
def memories():
    out = []
    for k, ns in enumerate(("alpha", "beta")):
        p = make_memory_pool("support", n_classes=6, per_class=(3, 6), seed=k, namespace=ns,
                             now=NOW)
        out += p.memories + [dataclasses.replace(m, id=f"{m.id}-again", created_at=NOW)
                             for m in p.memories[::3]]
    return out


@pytest.fixture
def store(tmp_path, memories):
    s = SQLiteStore(tmp_path / "pool.db")
    s.add_memories(memories)
    yield s
    s.close()


@pytest.fixture
def ran(caplog):
    """The stages each pass ran, read from the runner's log: pass name -> labels."""
    caplog.set_level(logging.DEBUG, logger=pipeline.__name__)

    def read() -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for rec in caplog.records:
            if rec.name == pipeline.__name__ and "stage" in rec.msg:
                prefix, name, label = rec.args
                out.setdefault(f"{prefix}{name}", []).append(label)
        return out

    return read


def test_the_declaration_is_one_tuple_of_frozen_stages_with_unique_names():
    assert isinstance(PIPELINE, tuple) and all(isinstance(s, Stage) for s in PIPELINE)
    assert len(set(ALL)) == len(ALL)
    assert ALL[:2] == ["load", "embed"] and ALL[-2:] == ["apply", "report"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        PIPELINE[0].name = "other"  # type: ignore[misc]
    assert stage_names("reduce and cluster", "cap and route") == ALL[
        ALL.index("reduce and cluster"):ALL.index("cap and route") + 1]
    with pytest.raises(ValueError, match="no stage"):
        stage_names("cluster")


@pytest.mark.parametrize("kind", ["default", "local", "threads"])
def test_the_job_runs_the_declared_sequence_with_every_executor(store, ran, kind):
    executor = {"default": None, "local": LocalExecutor(), "threads": ThreadExecutor(2)}[kind]
    try:
        report = run_job(store, config_from_dict(CONFIG), now=NOW, executor=executor)
    finally:
        if executor is not None:
            executor.close()
    assert report.status == "succeeded" and report.primary.applied
    assert ran() == {"primary": ALL}


def test_a_dry_run_previews_the_writing_stages_and_writes_nothing(store, ran):
    before = store.count_memories("alpha", statuses=[Status.ACTIVE])
    report = run_job(store, config_from_dict(CONFIG), now=NOW, dry_run=True)
    assert report.status == "dry-run" and report.primary.memories_affected > 0
    assert ran() == {"primary": DRY}
    assert DRY[-2:] == ["apply (preview)", "report (preview)"]
    assert store.list_runs() == []
    assert store.count_memories("alpha", statuses=[Status.ACTIVE]) == before


def test_a_skipped_run_stops_after_load(store, ran):
    cfg = config_from_dict({**CONFIG, "job": {"min_new_memories": 10_000}})
    report = run_job(store, cfg, now=NOW)
    assert report.status == "skipped" and ran() == {"primary": ["load"]}


def test_shadow_and_compare_run_slices_of_the_declaration(store, ran):
    cfg = config_from_dict(CONFIG)
    other = config_from_dict({**CONFIG, "reduction": {"method": "pca", "n_components": 2}})
    run_job(store, cfg, now=NOW, dry_run=True, shadow=other)
    per_config = stage_names("reduce and cluster", "cap and route")
    assert ran() == {"primary": DRY, "shadow shadow": per_config}
    compare_configs(store, cfg, other, now=NOW)
    got = ran()
    assert got["A A"] == stage_names("embed", "cap and route")
    assert got["B B"] == per_config  # the same [embedding]: A's vectors


def test_the_tuner_runs_the_declared_slice_and_gets_the_jobs_labels(ran):
    from memmaint.clustering.stage import cluster_pool
    from memmaint.optimize.objective import TUNED_FROM, TUNED_THROUGH, Evaluator, LabelledPool

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(5, 16))
    emb = np.repeat(centres, 8, axis=0) + 0.05 * rng.normal(size=(40, 16))
    pool = LabelledPool("p", emb, np.repeat(np.arange(5), 8), np.ones(40))
    cfg = config_from_dict(CONFIG)
    labels = Evaluator([pool]).labels(pool, cfg)
    assert ran() == {"primary": stage_names(TUNED_FROM, TUNED_THROUGH)}
    assert TUNED_FROM in ALL and ALL.index(TUNED_FROM) <= ALL.index(TUNED_THROUGH)
    want = cluster_pool(emb, np.ones(40), cfg.reduction, cfg.clustering).labels
    assert np.array_equal(labels, want)
    # [sharding] decided by the stage, as in a run: the pool is cut into shards
    sharded = config_from_dict({**CONFIG, "sharding": {"enabled": True, "max_shard_size": 15}})
    got = Evaluator([pool]).labels(pool, sharded)
    want = cluster_pool(emb, np.ones(40), sharded.reduction, sharded.clustering,
                        sharded.sharding).labels
    assert np.array_equal(got, want)


def test_editing_the_declaration_changes_what_the_job_runs(store, ran, monkeypatch):
    """A stage added to PIPELINE runs where it is declared; a stage taken out does not run
    (the shadow): the job has no order of its own."""
    seen: list[tuple[bool, bool]] = []

    def probe(state):
        seen.append((state.clustered is not None, state.plan is not None))

    at = ALL.index("plan")
    edited = PIPELINE[:at] + (Stage("probe", probe, "a test's probe"),) + PIPELINE[at:]
    edited = tuple(s for s in edited if s.name != "shadow")
    monkeypatch.setattr(pipeline, "PIPELINE", edited)
    cfg = config_from_dict(CONFIG)
    report = run_job(store, cfg, now=NOW, dry_run=True, shadow=cfg)
    assert seen == [(True, False)]  # after clustering, before planning
    assert ran()["primary"] == [f"{s.name} (preview)" if s.writes else s.name
                                for s in edited]
    assert report.shadow is None and report.primary is not None


def test_no_module_calls_the_stage_functions_but_the_runner():
    """The stage functions are referenced by the declaration only: no module imports one or
    calls ``steps.<stage>(...)``."""
    stage_fns = {s.run.__name__ for s in PIPELINE} | {
        s.preview.__name__ for s in PIPELINE if s.preview is not None}
    offenders = []
    for folder in ("maintenance", "optimize", "clustering"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "pipeline.py" and path.parent.name == "job":
                continue
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module in (
                        "memmaint.maintenance.job.steps", "memmaint.maintenance.job.pipeline"):
                    offenders += [f"{path}: imports {a.name}" for a in node.names
                                  if a.name in stage_fns]
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and isinstance(node.func.value, ast.Name)
                        and node.func.value.id in ("steps", "pipeline")
                        and node.func.attr in stage_fns):
                    offenders.append(f"{path}: calls {node.func.value.id}.{node.func.attr}")
    assert offenders == []


def test_architecture_md_shows_the_declared_pipeline():
    text = (ROOT / "docs" / "architecture.md").read_text()
    begin = "<!-- pipeline table: generated from job.pipeline.PIPELINE -->\n"
    end = "<!-- end of pipeline table -->"
    assert begin in text and end in text
    shown = text.split(begin, 1)[1].split(end, 1)[0]
    assert shown == pipeline_table(), (
        "docs/architecture.md's pipeline table is out of date: paste "
        "memmaint.maintenance.job.pipeline.pipeline_table()")


def test_the_merge_history_reaches_the_plan(store):
    """``plan.report["joined"]``: for every decided memory of a namespace with a merge
    history, the step and distance of the clusterer's merge that first joined it: the
    report's ``joined``, carried to the plan (and so to a plan file)."""
    from memmaint.maintenance.plan.model import Merge

    plans = []
    report = run_job(store, config_from_dict(CONFIG), now=NOW, dry_run=True,
                     plan_sink=plans.append)
    (the_plan,) = plans
    joined = the_plan.report["joined"]
    assert joined and joined == report.primary.joined
    merged = {f"{c.namespace}\x1f{mid}" for c, a in the_plan.actions()
              if isinstance(a, Merge) for mid in a.source_ids}
    assert merged and merged <= set(joined)
    assert all(step >= 0 and dist >= 0 for step, dist in joined.values())
