"""Reviewed merges become training labels: ``memmaint tune --labels-from STORE``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_review import planned  # noqa: F401 - the fixture

from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.review.planfile import Decisions, PlanFile, changing_actions
from memmaint.optimize.review_labels import labels_pool


def decide(cli, planned, tmp_path):  # noqa: F811 - pytest fixture passed in
    db, _cfg, plan = planned
    pf = PlanFile.load(plan)
    acts = changing_actions(pf.plan)
    decisions = tmp_path / "decisions.json"
    Decisions.of(pf, [k for k, _c, _a in acts[1:]], [acts[0][0]]).write(decisions)
    assert cli("apply", plan, "--decisions", decisions, "--db", db).exit_code == 0
    return db, acts


def test_labels_pool_keeps_approved_together_and_rejected_apart(cli, planned, tmp_path):  # noqa: F811
    db, acts = decide(cli, planned, tmp_path)
    (pool,) = labels_pool(str(db))
    label = dict(zip((m.id for m in pool.memories), pool.labels))
    rejected = acts[0][2].subjects
    assert len({label[m] for m in rejected}) == len(rejected)  # a rejected merge: apart
    for _k, _c, action in acts[1:]:
        if action.type == "merge":
            assert len({label[m] for m in action.subjects}) == 1  # approved: one class
    assert all(m.text for m in pool.memories)  # texts from the store (merged sources too)


def test_tune_takes_the_review_labels_as_a_training_pool(cli, planned, tmp_path):  # noqa: F811
    db, _acts = decide(cli, planned, tmp_path)
    train = tmp_path / "train.jsonl"
    res = cli("datasets", "make", "--kind", "support", "--classes", "6", "--per-class", "4",
              "--seed", "2", "-o", train)
    assert res.exit_code == 0, res.output
    res = cli("tune", "--train", train, "--labels-from", db, "--trials", "2", "--no-plots",
              "--embedder", "hashing", "--min-precision", "0.0", "--fix", "reduction.method=pca",
              "-o", tmp_path / "best.toml")
    assert res.exit_code == 0, res.output + res.stderr
    assert "training pools: 2" in res.stderr


def test_missing_labels_are_one_line(tmp_path):
    with pytest.raises(InputError, match="no review labels at"):
        labels_pool(str(tmp_path / "none.db"))
