"""``memmaint tune`` end to end: tiny synthetic pools, the hashing embedder, few trials."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import optuna
import pytest
from click.testing import CliRunner

from memmaint.datasets.pools import make_memory_pool
from memmaint.maintenance.cli.main import main
from memmaint.maintenance.core.config import load_config
from memmaint.optimize.pools import (
    DictEmbeddingCache,
    SQLiteEmbeddingCache,
    load_pools,
    read_pools,
)
from memmaint.optimize.study import make_storage

REPO_ROOT = Path(__file__).resolve().parents[1]
FAST = ["--fix", "reduction.method=pca", "--fix", "clustering.algorithm=hdbscan",
        "--embedder", "hashing", "--seed", "1"]


def write_pool(path: Path, seed: int, n_classes: int = 5) -> Path:
    pool = make_memory_pool("mtg", n_classes=n_classes, per_class=(4, 6), seed=seed,
                            noise_frac=0.1)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(pool.to_jsonl())
    return path


@pytest.fixture
def pools(tmp_path):
    train = tmp_path / "train"
    for i in range(3):
        write_pool(train / f"pool{i}.jsonl", seed=i)
    val = tmp_path / "val"
    for i in range(2):
        write_pool(val / f"v{i}.jsonl", seed=100 + i)
    return train, val


def run(*args, catch=True):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=not catch)


def test_tune_writes_a_loadable_best_toml_report_and_plots(tmp_path, pools):
    train, val = pools
    out = tmp_path / "best.toml"
    res = run("tune", "--train", train, "--validate", val, "--trials", 8, "--min-precision",
              0.2, *FAST, "-o", out, "--report-json", tmp_path / "r.json")
    assert res.exit_code == 0, res.output
    config = load_config(out)  # what `memmaint run --config` reads
    assert config.reduction.method == "pca" and config.clustering.algorithm == "hdbscan"
    assert config.embedding.model == "hashing"
    report = json.loads((tmp_path / "r.json").read_text())
    assert [p["pool"] for p in report["train"]] == ["pool0", "pool1", "pool2"]
    assert [p["pool"] for p in report["validation"]] == ["v0", "v1"]
    assert report["train_summary"]["precision"] >= 0.2  # the best trial is feasible
    assert report["n_trials"] == 8
    assert report["recall_leave_one_out"]["spread"] >= 0
    assert "validate  MEAN" in res.stdout and "leave-one-pool-out" in res.stdout
    plots = tmp_path / "best_plots"
    for name in ("history", "precision_recall", "importances"):
        assert (plots / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
        assert "<svg" in (plots / f"{name}.html").read_text() or \
            "plotly" in (plots / f"{name}.html").read_text()


def test_tune_resumes_a_study_and_reports_without_new_trials(tmp_path, pools):
    train, _ = pools
    db = f"sqlite:///{tmp_path / 'tune.db'}"
    common = ["--train", train, "--storage", db, "--study-name", "s", "--min-precision", 0.2,
              "--no-plots", "-o", tmp_path / "best.toml", *FAST]
    assert run("tune", "--trials", 3, *common).exit_code == 0
    assert run("tune", "--trials", 2, *common).exit_code == 0
    study = optuna.load_study(study_name="s", storage=db)
    assert len(study.trials) == 5
    res = run("tune", "--trials", 0, *common)
    assert res.exit_code == 0, res.output
    assert "of 5 completed" in res.stdout
    # a different floor would change what the stored constraints mean: refused
    res = run("tune", "--trials", 1, *common, "--min-precision", 0.5)
    assert res.exit_code == 2
    assert "different floor" in res.output
    assert len(optuna.load_study(study_name="s", storage=db).trials) == 5


def test_no_feasible_trial_is_a_clear_failure_and_writes_nothing(tmp_path, pools):
    train, _ = pools
    out = tmp_path / "best.toml"
    # t-SNE in 4-D is refused by the reducer: every trial is infeasible
    res = run("tune", "--train", train, "--trials", 2, "--embedder", "hashing",
              "--fix", "reduction.method=tsne", "--fix", "reduction.n_components=4",
              "--no-plots", "-o", out)
    assert res.exit_code == 1
    assert "no feasible trial" in res.output
    assert not out.exists()


@pytest.mark.parametrize("args, message", [
    (["--fix", "clustering.genkt.q=1"], "unknown tunable parameter"),
    (["--fix", "reduction.method=lda"], "cannot fix reduction.method"),
    (["--embedder", "nope"], "embedding.model: 'nope' is not one of"),
    (["--space", "missing.toml"], "cannot read search space"),
])
def test_user_mistakes_are_one_line_and_exit_2(tmp_path, pools, args, message):
    train, _ = pools
    res = run("tune", "--train", train, "--trials", 1, "-o", tmp_path / "b.toml", *args)
    assert res.exit_code == 2
    assert message in res.output
    assert "Traceback" not in res.output


def test_pool_files_need_labels(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "a", "metadata": {"label": 1}}\n{"text": "b"}\n')
    res = run("tune", "--train", bad, "--trials", 1, "--embedder", "hashing")
    assert res.exit_code == 2
    assert "bad.jsonl:2" in res.output and "metadata.label" in res.output
    res = run("tune", "--train", tmp_path / "nothing", "--trials", 1)
    assert res.exit_code == 2 and "no such pool file" in res.output
    res = run("tune", "--trials", 1)
    assert res.exit_code == 2 and "Missing option '--train'" in res.output


def test_show_space_prints_the_effective_space(tmp_path):
    space = tmp_path / "space.toml"
    space.write_text('[params."clustering.genkt.p"]\nlow = -2.0\n')
    res = run("tune", "--space", space, "--fix", "clustering.genkt.R=1.2", "--show-space")
    assert res.exit_code == 0, res.output
    assert "low = -2.0" in res.stdout
    assert 'type = "fixed"\nvalue = 1.2' in res.stdout


def test_pools_are_embedded_through_the_cache(tmp_path, pools):
    from memmaint.maintenance.embed.hashing import HashingEmbedder

    train, _ = pools
    raw = read_pools([train])
    assert [p.name for p in raw] == ["pool0", "pool1", "pool2"]
    cache = SQLiteEmbeddingCache(tmp_path / "emb.sqlite")
    first = load_pools([train], HashingEmbedder(), cache)
    again = load_pools([train], HashingEmbedder(), SQLiteEmbeddingCache(tmp_path / "emb.sqlite"))
    plain = load_pools([train], HashingEmbedder(), DictEmbeddingCache())
    for a, b, c in zip(first, again, plain):
        np.testing.assert_array_equal(a.embeddings, b.embeddings)
        np.testing.assert_array_equal(a.embeddings, c.embeddings)
        assert a.fingerprint == b.fingerprint
    # true one-off memories (label -1) are classes of their own
    for pool, rp in zip(first, raw):
        noise = [i for i, lab in enumerate(rp.labels) if lab == "-1"]
        assert len({int(pool.labels[i]) for i in noise}) == len(noise)


@pytest.mark.slow  # two interpreter start-ups (imports dominate)
def test_two_processes_share_one_study_without_losing_trials(tmp_path, pools):
    train, _ = pools
    db = f"sqlite:///{tmp_path / 'shared.db'}"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    procs = [subprocess.Popen(
        [sys.executable, "-m", "memmaint.maintenance.cli.main", "-q", "tune", "--train", str(train),
         "--trials", str(n), "--storage", db, "--study-name", "shared", "--min-precision",
         "0.2", "--no-plots", "-o", str(tmp_path / f"best{k}.toml"), *FAST],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
        for k, n in enumerate((4, 5))]
    outputs = [p.communicate(timeout=240) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, err
    study = optuna.load_study(study_name="shared", storage=db)
    numbers = [t.number for t in study.trials]
    assert len(numbers) == 9  # 4 + 5: nothing lost
    assert sorted(numbers) == list(range(9))  # nothing duplicated
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    assert len({t._trial_id for t in study.trials}) == 9
    per_worker = sorted(
        sum(t.user_attrs["worker"] == w for t in study.trials)
        for w in {t.user_attrs["worker"] for t in study.trials})
    assert per_worker == [4, 5]  # each process ran its own --trials


@pytest.mark.slow  # a real interpreter and a real SIGINT
def test_ctrl_c_keeps_finished_trials_and_still_reports(tmp_path, pools):
    train, _ = pools
    db = f"sqlite:///{tmp_path / 'int.db'}"
    out = tmp_path / "best.toml"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memmaint.maintenance.cli.main", "tune", "--train", str(train),
         "--trials", "100000", "--storage", db, "--study-name", "int", "--min-precision",
         "0.2", "--no-plots", "-o", str(out), *FAST],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 180
        done = 0
        while done < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.5)
            try:  # make_storage retries while the worker is still creating the tables
                study = optuna.load_study(study_name="int", storage=make_storage(db))
            except KeyError:  # not created yet
                continue
            done = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
        assert done >= 3, "the study never got going"
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert "interrupted" in stderr
    study = optuna.load_study(study_name="int", storage=db)
    states = [t.state for t in study.trials]
    assert states.count(optuna.trial.TrialState.COMPLETE) >= done
    assert optuna.trial.TrialState.RUNNING not in states  # the cut-off trial is closed
    assert load_config(out).clustering.algorithm == "hdbscan"
    assert f"of {states.count(optuna.trial.TrialState.COMPLETE)} completed" in stdout
