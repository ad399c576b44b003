"""Golden test: the nightly job's decisions on a fixed pool do not change under refactoring.

The fixture ``fixtures/golden_plans.json`` was written by the code *before* the package
layout was reorganised (issue 15); this test runs the same job now and compares every
decision (memory, action, group, target, agent, reason), the run report's counts and the
store's state after apply. Ids of memories created by a merge are random, so they are
replaced by their position in creation order before comparing.

Regenerate only on purpose (a deliberate behaviour change), and say so in the commit:
``python tests/test_golden_plans.py --write``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from memmaint.maintenance.cli.run import DEMO_NOW, demo_memories
from memmaint.maintenance.core.config import config_from_dict
from memmaint.maintenance.job.run import run_job
from memmaint.maintenance.store.sqlite import SQLiteStore

FIXTURE = Path(__file__).parent / "fixtures" / "golden_plans.json"

CONFIGS: dict[str, dict[str, Any]] = {
    "hdbscan-pca": {
        "embedding": {"model": "hashing", "dim": 128},
        "reduction": {"method": "pca", "n_components": 5},
        "clustering": {"algorithm": "hdbscan", "hdbscan": {"min_cluster_size": 2}},
        "agents": {"evict_stale": True, "evict_noise": True, "max_active": 150},
    },
    "genkt-none": {
        "embedding": {"model": "hashing", "dim": 128},
        "reduction": {"method": "none"},
        "clustering": {"algorithm": "genkt",
                       "genkt": {"p": -1.0, "R": 0.9, "cos_cut": 0.5}},
        "agents": {"canonical": "importance", "conflict_policy": "importance"},
    },
    "default-minilm-umap": {},
}


def snapshot(name: str, tmp: Path) -> dict[str, Any]:
    """Run the job once with ``CONFIGS[name]`` on the demo pool (200 memories)."""
    config = config_from_dict(CONFIGS[name])
    path = tmp / f"{name}.db"
    with SQLiteStore(path) as store:
        store.add_memories(demo_memories(200, seed=3))
        before = {m.id for m in store.iter_memories()}
        report = run_job(store, config, force=True, now=DEMO_NOW)
        after = list(store.iter_memories())
    created = sorted((m for m in after if m.id not in before),
                     key=lambda m: (m.text, sorted(m.metadata.get("merged_from", []))))
    rename = {m.id: f"new-{i}" for i, m in enumerate(created)}
    primary = report.primary
    assert primary is not None
    return {
        "status": report.status,
        "counts": {
            "n_memories": primary.n_memories, "n_clusters": primary.n_clusters,
            "noise": primary.noise, "pool_before": primary.pool_before,
            "pool_after": primary.pool_after, "actions_by_type": primary.actions_by_type,
            "memories_affected": primary.memories_affected, "flagged": primary.flagged,
            "cluster_sizes": {str(k): v for k, v in sorted(primary.cluster_sizes.items())},
        },
        "decisions": sorted(
            [d.namespace, d.memory_id, d.type, rename.get(d.target or "", d.target),
             d.agent, d.reason] for d in primary.decisions),
        "groups": sorted(sorted(g) for g in _groups(primary.decisions)),
        "store": sorted([rename.get(m.id, m.id), m.status.value, m.text] for m in after),
    }


def _groups(decisions: Any) -> list[list[str]]:
    by_group: dict[int, list[str]] = {}
    for d in decisions:
        by_group.setdefault(d.group, []).append(d.memory_id)
    return list(by_group.values())


@pytest.mark.parametrize("name", list(CONFIGS))
def test_plans_match_the_golden_fixture(name: str, tmp_path: Path) -> None:
    expected = json.loads(FIXTURE.read_text())[name]
    got = json.loads(json.dumps(snapshot(name, tmp_path)))
    assert got["status"] == expected["status"]
    assert got["counts"] == expected["counts"]
    assert got["groups"] == expected["groups"]
    assert got["decisions"] == expected["decisions"]
    assert got["store"] == expected["store"]


if __name__ == "__main__":  # pragma: no cover - regenerating the fixture on purpose
    import tempfile

    if "--write" not in sys.argv:
        sys.exit("usage: python tests/test_golden_plans.py --write")
    with tempfile.TemporaryDirectory() as tmpdir:
        data = {name: snapshot(name, Path(tmpdir)) for name in CONFIGS}
    FIXTURE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE}")
