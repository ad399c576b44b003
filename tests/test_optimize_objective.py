"""The tuning objective, its caches, the study helpers and the report (precomputed vectors)."""

from __future__ import annotations

import numpy as np
import optuna
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memmaint.maintenance.core.config import Config, ReductionConfig, config_to_toml, load_config
from memmaint.maintenance.core.errors import InputError
from memmaint.optimize.objective import (
    Evaluator,
    LRUCache,
    Objective,
    PoolScore,
    leave_one_out,
    reduction_key,
    summarize,
)
from memmaint.optimize.pools import labelled_pool
from memmaint.optimize.space import default_space
from memmaint.optimize.study import (
    StudyMismatchError,
    StudySettings,
    best_feasible_trial,
    open_study,
    pool_keys,
    report_best,
    run_study,
    trial_config,
)

FAST = {"reduction.method": "pca", "clustering.algorithm": "hdbscan"}


def blobs(name: str, seed: int, n: int = 60, k: int = 5, d: int = 12,
          spread: float = 1.0) -> object:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(k, d)) * 4
    labels = rng.integers(0, k, n)
    x = centres[labels] + spread * rng.normal(size=(n, d))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return labelled_pool(name, x, [f"c{i}" for i in labels], rng.uniform(0.5, 3.0, n))


def score(pool: str, p: float, r: float, wp: float | None = None,
          wr: float | None = None) -> PoolScore:
    return PoolScore(pool, p, r, p if wp is None else wp, r if wr is None else wr, 3, 0)


# -- pure helpers ------------------------------------------------------------------------

def test_leave_one_out_hand_example():
    loo = leave_one_out([0.9, 0.6, 0.3], ["a", "b", "c"])
    assert loo.means == pytest.approx((0.45, 0.6, 0.75))
    assert loo.dropped == ("a", "b", "c")
    assert (loo.low, loo.high, loo.spread) == pytest.approx((0.45, 0.75, 0.30))
    with pytest.raises(InputError, match="at least two pools"):
        leave_one_out([0.5])


@given(st.lists(st.floats(0, 1), min_size=2, max_size=12))
@settings(max_examples=60, deadline=None)
def test_leave_one_out_means_average_to_the_mean(values):
    loo = leave_one_out(values)
    assert np.mean(loo.means) == pytest.approx(np.mean(values), abs=1e-12)
    assert min(values) - 1e-12 <= loo.low <= loo.high <= max(values) + 1e-12
    assert loo.spread == pytest.approx((max(values) - min(values)) / (len(values) - 1),
                                       abs=1e-12)


def test_summarize_floor_on_mean_and_worst():
    scores = [score("a", 0.40, 0.9, wp=0.2, wr=0.95), score("b", 0.20, 0.5, wp=0.5, wr=0.6)]
    mean = summarize(scores, weighted=False, floor=0.25, floor_on="mean")
    assert (mean.precision, mean.recall) == pytest.approx((0.30, 0.70))
    assert mean.constraint == pytest.approx(-0.05) and mean.feasible
    worst = summarize(scores, weighted=False, floor=0.25, floor_on="worst")
    assert worst.worst_precision == pytest.approx(0.20)
    assert worst.constraint == pytest.approx(0.05) and not worst.feasible
    weighted = summarize(scores, weighted=True, floor=0.25)
    assert (weighted.precision, weighted.recall) == pytest.approx((0.35, 0.775))


def test_lru_cache_counts_and_evicts():
    cache = LRUCache(maxsize=2)
    calls = []

    def make(k):
        return lambda: calls.append(k) or k * 10

    assert cache.get_or_compute(1, make(1)) == 10
    assert cache.get_or_compute(1, make(1)) == 10
    cache.get_or_compute(2, make(2))
    cache.get_or_compute(3, make(3))  # evicts 1 (least recently used)
    cache.get_or_compute(1, make(1))
    assert calls == [1, 2, 3, 1]
    assert (cache.hits, cache.misses, len(cache)) == (1, 4, 2)
    assert cache.hit_rate == pytest.approx(0.2)


def test_reduction_key_ignores_parameters_the_method_does_not_use():
    a = ReductionConfig(method="pca", n_components=2, n_neighbors=5, perplexity=10.0)
    b = ReductionConfig(method="pca", n_components=2, n_neighbors=40, perplexity=40.0)
    assert reduction_key(a) == reduction_key(b)
    assert reduction_key(ReductionConfig(method="none", n_components=1)) == \
        reduction_key(ReductionConfig(method="none", n_components=4))
    u1 = ReductionConfig(method="umap", n_neighbors=10)
    u2 = ReductionConfig(method="umap", n_neighbors=20)
    assert reduction_key(u1) != reduction_key(u2)


# -- evaluation and caching -----------------------------------------------------------------

def test_evaluator_reuses_reductions_across_clusterer_settings():
    pools = [blobs("a", 1), blobs("b", 2)]
    ev = Evaluator(pools)
    space = default_space()
    base = {"reduction.method": "pca", "reduction.n_components": 3,
            "clustering.algorithm": "hdbscan"}
    first = ev.evaluate(space.to_config({**base, "clustering.hdbscan.min_cluster_size": 3}))
    second = ev.evaluate(space.to_config({**base, "clustering.hdbscan.min_cluster_size": 8}))
    assert (ev.reductions.misses, ev.reductions.hits) == (2, 2)
    assert [s.pool for s in first] == ["a", "b"]
    # cached coordinates give the same result as a fresh evaluator
    fresh = Evaluator(pools).evaluate(space.to_config(
        {**base, "clustering.hdbscan.min_cluster_size": 8}))
    assert fresh == second
    for s in first + second:
        assert 0 <= s.precision <= 1 and 0 <= s.recall <= 1


def test_evaluator_rejects_duplicate_pool_names_and_bad_policy():
    with pytest.raises(InputError, match="unique"):
        Evaluator([blobs("a", 1), blobs("a", 2)])
    with pytest.raises(Exception, match="noise policy"):
        Evaluator([blobs("a", 1)], noise="drop")


# -- studies ----------------------------------------------------------------------------------

def _study(pools, space, floor=0.25, floor_on="mean", weighted=False, seed=0, trials=12):
    settings_ = StudySettings(space=space, floor=floor, floor_on=floor_on, weighted=weighted,
                              train_pools=pool_keys(pools))
    study = open_study(settings_, seed=seed, n_startup_trials=5)
    objective = Objective(Evaluator(pools), space, floor=floor, floor_on=floor_on,
                          weighted=weighted)
    outcome = run_study(study, objective, n_trials=trials)
    assert outcome.trials_run == trials
    return study, objective


def test_every_trial_records_its_constraint_and_the_best_is_feasible(tmp_path):
    pools = [blobs("a", 1), blobs("b", 2), blobs("c", 3)]
    space = default_space().fix_many(FAST)
    study, _ = _study(pools, space, floor=0.6)
    trials = study.get_trials()
    assert len(trials) == 12
    for t in trials:
        assert t.state == optuna.trial.TrialState.COMPLETE
        con = t.user_attrs["constraint"]
        assert con == [pytest.approx(0.6 - t.user_attrs["precision"])]
        assert list(t.constraints.values()) == con  # what the sampler sees
        assert len(t.user_attrs["pools"]) == 3
        means = np.mean([[p["precision"], p["recall"]] for p in t.user_attrs["pools"]], axis=0)
        assert means == pytest.approx([t.user_attrs["precision"], t.value])
    best = best_feasible_trial(study)
    assert best is not None and best.user_attrs["constraint"][0] <= 0
    feasible = [t for t in trials if t.user_attrs["constraint"][0] <= 0]
    assert best.value == max(t.value for t in feasible)
    assert study.best_trial.value == best.value  # Optuna's constrained choice agrees
    config = trial_config(best)
    assert config.reduction.method == "pca" and config.clustering.algorithm == "hdbscan"
    path = tmp_path / "best.toml"
    path.write_text(config_to_toml(config))
    assert load_config(path) == config


def test_floor_on_worst_requires_every_pool_to_meet_the_floor():
    pools = [blobs("a", 1), blobs("b", 2, spread=2.5)]
    space = default_space().fix_many(FAST)
    study, _ = _study(pools, space, floor=0.5, floor_on="worst")
    for t in study.get_trials():
        worst = min(p["precision"] for p in t.user_attrs["pools"])
        assert (t.user_attrs["constraint"][0] <= 0) == (worst >= 0.5)
    best = best_feasible_trial(study)
    if best is not None:
        assert all(p["precision"] >= 0.5 for p in best.user_attrs["pools"])


def test_rejected_parameters_are_recorded_as_infeasible_not_crashed():
    pools = [blobs("a", 1)]
    space = default_space().fix_many({"reduction.method": "tsne", "reduction.n_components": 4,
                                      "clustering.algorithm": "hdbscan"})
    study, _ = _study(pools, space, trials=2)
    for t in study.get_trials():
        assert t.state == optuna.trial.TrialState.COMPLETE
        assert "n_components=4" in t.user_attrs["error"]
        assert t.user_attrs["constraint"] == [1.0]
    assert best_feasible_trial(study) is None


def test_report_gives_validation_beside_training_and_warns_below_the_floor():
    train = [blobs("a", 1), blobs("b", 2)]
    space = default_space().fix_many(FAST)
    study, _ = _study(train, space, floor=0.3)
    good = Evaluator([blobs("v1", 7), blobs("v2", 8)])
    report = report_best(study, base=Config(), weighted=False, floor=0.3, floor_on="mean",
                         validation=good)
    assert report is not None
    assert [s.pool for s in report.train] == ["a", "b"]
    assert [s.pool for s in report.validation] == ["v1", "v2"]
    assert report.recall_loo.means == pytest.approx(
        (report.train[1].recall, report.train[0].recall))
    assert report.validation_warning is None
    # validation pools whose labels have nothing to do with the geometry: precision ~ 1/8
    rng = np.random.default_rng(0)
    noise_pools = []
    for i in range(2):
        p = blobs(f"n{i}", 20 + i)
        noise_pools.append(labelled_pool(p.name, p.embeddings, rng.integers(0, 8, p.size)))
    bad = report_best(study, base=Config(), weighted=False, floor=0.3, floor_on="mean",
                      validation=Evaluator(noise_pools))
    assert bad.validation_summary.precision < 0.3
    assert "below the floor 0.30" in bad.validation_warning
    assert bad.to_dict()["validation_summary"]["feasible"] is False


def test_resuming_with_other_settings_is_refused(tmp_path):
    pools = [blobs("a", 1)]
    space = default_space().fix_many(FAST)
    url = f"sqlite:///{tmp_path / 't.db'}"
    open_study(StudySettings(space=space, floor=0.25, train_pools=pool_keys(pools)),
               storage=url, study_name="s")
    again = open_study(StudySettings(space=space, floor=0.25, train_pools=pool_keys(pools)),
                       storage=url, study_name="s")
    assert again.study_name == "s"
    with pytest.raises(StudyMismatchError, match="different floor"):
        open_study(StudySettings(space=space, floor=0.4, train_pools=pool_keys(pools)),
                   storage=url, study_name="s")


@pytest.mark.parametrize("where", ["sampling", "objective", "storage_write"])
def test_ctrl_c_anywhere_in_a_trial_leaves_no_trial_running(tmp_path, where):
    import os
    import signal

    pools = [blobs("a", 1), blobs("b", 2)]
    space = default_space().fix_many(FAST)
    settings_ = StudySettings(space=space, floor=0.25, floor_on="mean", weighted=False,
                              train_pools=pool_keys(pools))
    study = open_study(settings_, storage=f"sqlite:///{tmp_path / 's.db'}", seed=0,
                       n_startup_trials=2)
    objective = Objective(Evaluator(pools), space, floor=0.25)
    calls = {"n": 0}

    def interrupt_on_third() -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            os.kill(os.getpid(), signal.SIGINT)

    if where == "sampling":  # the trial row exists; Optuna samples the relative params
        original = study.sampler.sample_relative

        def sample_relative(*args, **kwargs):
            interrupt_on_third()
            return original(*args, **kwargs)
        study.sampler.sample_relative = sample_relative
    elif where == "objective":
        inner = objective.evaluator.evaluate

        def evaluate(*args, **kwargs):
            interrupt_on_third()
            return inner(*args, **kwargs)
        objective.evaluator.evaluate = evaluate
    else:  # while Optuna writes a finished trial's state
        storage = study._storage
        original_write = storage.set_trial_state_values

        def set_trial_state_values(*args, **kwargs):
            interrupt_on_third()
            return original_write(*args, **kwargs)
        storage.set_trial_state_values = set_trial_state_values
    outcome = run_study(study, objective, n_trials=50)
    assert outcome.interrupted
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
    states = [t.state for t in study.get_trials()]
    assert len(states) < 50
    assert optuna.trial.TrialState.RUNNING not in states
    assert states.count(optuna.trial.TrialState.COMPLETE) >= 1


def test_labelled_pool_checks_its_inputs():
    with pytest.raises(InputError, match="do not line up"):
        labelled_pool("x", np.zeros((3, 2)), [0, 1])
    with pytest.raises(InputError, match="NaN"):
        labelled_pool("x", np.array([[np.nan, 0], [1, 0]]), [0, 1])
    with pytest.raises(InputError, match="not all 0"):
        labelled_pool("x", np.eye(2), [0, 1], [0.0, 0.0])


@pytest.mark.parametrize("p", [0.0, -1.0, 0.7])
def test_genkt_histories_recut_at_each_R_give_the_direct_result(p):
    pools = [blobs("a", 1, n=50), blobs("b", 2, n=50)]
    cached = Evaluator(pools, genkt_R_build=5.0)
    direct = Evaluator(pools)
    space = default_space()
    for R in (0.3, 0.8, 1.5, 5.0):
        config = space.to_config({
            "reduction.method": "pca", "reduction.n_components": 3,
            "clustering.algorithm": "genkt", "clustering.genkt.p": p, "clustering.genkt.R": R,
            "clustering.genkt.cos_cut": 0.1, "clustering.genkt.use_weights": True})
        assert cached.evaluate(config) == direct.evaluate(config)
    if p == 0.0:  # one history per pool served all four R values
        assert (cached.sequences.misses, cached.sequences.hits) == (2, 6)
        assert cached.recut_refused == 0
    else:  # re-cuts are not always exact for p != 0: every trial clusters directly
        assert cached.sequences.lookups == 0
    assert direct.sequences.lookups == 0


@pytest.mark.parametrize("params", [
    {"clustering.algorithm": "hdbscan", "clustering.hdbscan.min_cluster_size": 4},
    {"clustering.algorithm": "genkt", "clustering.genkt.p": -1.0, "clustering.genkt.R": 0.9,
     "clustering.genkt.cos_cut": 0.2},
    {"clustering.algorithm": "genkt", "clustering.genkt.p": 0.0, "clustering.genkt.R": 0.7,
     "clustering.genkt.use_weights": False, "clustering.genkt.recombination": "wta"},
])
def test_tuned_labels_are_what_the_production_pipeline_gives(params):
    """A tuned configuration must behave the same in `memmaint run` (cluster_embeddings)."""
    from memmaint.clustering.pipeline import cluster_embeddings

    pool = blobs("a", 4, n=50)
    config = default_space().to_config({"reduction.method": "pca",
                                        "reduction.n_components": 2, **params})
    ev = Evaluator([pool], genkt_R_build=5.0)
    ours = ev.cluster(pool, ev.reduce(pool, config.reduction), config.reduction,
                      config.clustering)
    theirs = cluster_embeddings(pool.embeddings, pool.weights, config.reduction,
                                config.clustering).labels
    np.testing.assert_array_equal(ours, theirs)


def test_sqlite_study_files_are_put_in_wal_mode(tmp_path):
    import sqlite3

    from memmaint.optimize.study import make_storage

    path = tmp_path / "study.db"
    make_storage(f"sqlite:///{path}")
    make_storage(f"sqlite:///{path}")  # a second opener finds it in WAL already
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# -- the tuner runs the job's stage (issue #31 item 2) -----------------------------------

@pytest.mark.parametrize("settings_", [
    {"reduction": {"method": "pca", "n_components": 5}, "clustering": {"algorithm": "hdbscan"}},
    {"reduction": {"method": "none"},
     "clustering": {"algorithm": "genkt", "genkt": {"p": 0.0, "R": 0.6, "cos_cut": 0.3}}},
    {"reduction": {"method": "pca", "n_components": 4},
     "clustering": {"algorithm": "genkt", "genkt": {"p": 0.0, "R": 0.4, "R_mode": "absolute"}}},
    {"reduction": {"method": "pca", "n_components": 5}, "clustering": {"algorithm": "hdbscan"},
     "sharding": {"enabled": True, "max_shard_size": 40}},
])
def test_the_tuner_labels_a_pool_as_the_job_stage_does(settings_):
    """A setting means the same in tuning as in a run: the evaluator's cached path gives the
    labels of ``cluster_pool`` (sharding included), for re-cut GenKT histories too."""
    from memmaint.clustering.stage import cluster_pool
    from memmaint.maintenance.core.config import config_from_dict

    config = config_from_dict(settings_)
    pool = blobs("p", 3, n=90)
    evaluator = Evaluator([pool], genkt_R_build=0.9)
    want = cluster_pool(pool.embeddings, pool.weights, config.reduction, config.clustering,
                        config.sharding).labels
    assert np.array_equal(evaluator.labels(pool, config), want)
    assert np.array_equal(evaluator.labels(pool, config), want)  # from the caches
