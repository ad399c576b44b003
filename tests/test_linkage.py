"""Issue #35: average linkage cut where the pool says, the oracle and bar per corpus, safe
one-offs, and the warning for a degenerate clustering."""

from __future__ import annotations

import numpy as np
import pytest

import memmaint.clustering.linkage as linkage_mod
from memmaint.clustering.linkage import LinkageClusterer, pair_cosines, pool_cut
from memmaint.clustering.metrics import bcubed
from memmaint.clustering.pipeline import cluster_embeddings, make_clusterer
from memmaint.maintenance.core.config import (
    ClusteringConfig,
    Config,
    ConfigError,
    LinkageConfig,
    config_from_dict,
    config_to_toml,
)
from memmaint.maintenance.job.outcome import Pool, degenerate_warnings, largest_shares
from memmaint.optimize.transfer import (
    Oracle,
    bar_by_corpus,
    format_bar,
    oneoffs_safe,
    oracle_by_corpus,
)


def _topics(seed: int, domains: int, topics: int, per: int, dim: int = 256,
            domain: float = 1.0, noise: float = 0.3):
    """Unit vectors: ``domains`` x ``topics`` topics of ``per`` texts, each text its domain's
    direction (weight ``domain``) + its topic's (1) + noise (orthonormal directions): cosines about 0.96 within a topic,
    0.48 between topics of a domain (``domain=1``), 0 across domains."""
    rng = np.random.default_rng(seed)

    def unit(k):
        v = rng.normal(size=(k, dim))
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    dirs = np.linalg.qr(rng.normal(size=(dim, domains * (topics + 1))))[0].T  # orthonormal
    d_dirs, t_dirs = dirs[:domains], dirs[domains:]
    rows, labels = [], []
    for d in range(domains):
        for t in range(topics):
            k = d * topics + t
            rows.append(domain * d_dirs[d] + t_dirs[k] + noise * unit(per))
            labels += [k] * per
    E = np.vstack(rows)
    return E / np.linalg.norm(E, axis=1, keepdims=True), np.asarray(labels)


def test_pool_cut_is_median_plus_z_robust_sd_of_the_pair_cosines():
    E, _ = _topics(0, 1, 6, 4)
    c = pair_cosines(E)
    assert c.size == 24 * 23 // 2
    med = np.median(c)
    mad = np.median(np.abs(c - med))
    assert pool_cut(E, 1.25) == pytest.approx(med + 1.25 * 1.4826 * mad)
    assert pool_cut(E, 2.0) > pool_cut(E, 1.0)
    assert pool_cut(E[:1]) == 1.0
    big = np.random.default_rng(1).normal(size=(1200, 8))  # sampled pairs, the same each time
    assert pair_cosines(big, sample=1000).size == 1000
    np.testing.assert_array_equal(pair_cosines(big, sample=1000), pair_cosines(big, sample=1000))


def test_linkage_finds_the_topics_and_leaves_lone_memories_as_noise():
    E, truth = _topics(2, 1, 8, 5, domain=0.0)  # unrelated topics
    basis = np.linalg.qr(np.vstack([E, np.random.default_rng(3).normal(size=(3, E.shape[1]))]).T)[0]
    lone = basis[:, -3:].T  # orthogonal to every text and to each other
    E = np.vstack([E, lone])
    model = LinkageClusterer().fit(E)
    labels = model.labels_
    assert (labels[-3:] == -1).all()  # alone: noise
    b = bcubed(truth, labels[:-3])
    assert b.precision == 1.0 and b.recall == 1.0
    assert model.history_.n_merges == E.shape[0] - 1 and model.history_.n_inputs == E.shape[0]
    fixed = LinkageClusterer(cut_mode="fixed", cut=0.999).fit(E)
    assert (fixed.labels_ == -1).all() and fixed.cut_ == 0.999
    assert LinkageClusterer().fit(E[:1]).labels_.tolist() == [-1]
    zero = np.vstack([E, np.zeros((2, E.shape[1]))])  # zero rows: alone, no NaN distance
    assert (LinkageClusterer().fit(zero).labels_[-2:] == -1).all()


def test_large_clusters_are_cut_again_where_their_members_say():
    # three unrelated domains of 10 topics each: most of the pool's pairs are across domains,
    # so its cut falls below the topics of a domain and each domain becomes one cluster
    E, truth = _topics(4, 3, 10, 5)
    once = LinkageClusterer(recut_above=10_000).fit(E)
    again = LinkageClusterer(recut_above=30).fit(E)
    assert np.bincount(once.labels_[once.labels_ >= 0]).max() > 30
    assert again.recuts_ >= 1
    assert np.bincount(again.labels_[again.labels_ >= 0]).max() <= 30
    assert bcubed(truth, again.labels_).precision > bcubed(truth, once.labels_).precision
    fixed = LinkageClusterer(cut_mode="fixed", cut=once.cut_, recut_above=30).fit(E)
    np.testing.assert_array_equal(fixed.labels_, once.labels_)  # fixed cuts are not re-cut


def test_pools_above_the_exact_limit_are_cut_in_shards_with_one_history(monkeypatch):
    E, truth = _topics(5, 1, 10, 6, domain=0.0)
    exact = LinkageClusterer().fit(E)
    monkeypatch.setattr(linkage_mod, "EXACT_MAX", 20)
    sharded = LinkageClusterer().fit(E)
    h = sharded.history_
    assert h.n_inputs == E.shape[0] and h.n_merges == E.shape[0] - 1
    assert np.all(np.diff(h.distance) >= 0) and h.distance[-1] == 2.0
    assert sorted(np.unique(h.pairs).tolist()) == list(range(2 * E.shape[0] - 2))  # a tree
    assert bcubed(truth, sharded.labels_).precision == 1.0
    assert bcubed(truth, sharded.labels_).recall >= 0.6 * bcubed(truth, exact.labels_).recall


def test_pipeline_skips_the_reducer_and_config_round_trips():
    cfg = config_from_dict({"clustering": {"algorithm": "linkage",
                                           "linkage": {"cut_z": 1.5, "recut_above": 40}}})
    assert cfg.clustering.linkage == LinkageConfig(cut_z=1.5, recut_above=40)
    assert config_from_dict(_toml_dict(config_to_toml(cfg))) == cfg
    for bad in ({"cut_mode": "auto"}, {"cut_z": 11.0}, {"recut_above": 1}, {"cut": 1.5}):
        with pytest.raises(ConfigError):
            config_from_dict({"clustering": {"linkage": bad}})
    E, truth = _topics(6, 1, 6, 4)
    res = cluster_embeddings(E, None, cfg.reduction, cfg.clustering)
    assert res.reduced.shape == E.shape and res.reduce_seconds < 0.05
    assert res.history is not None and bcubed(truth, res.labels).f1 == 1.0
    assert make_clusterer(ClusteringConfig(algorithm="linkage")).embedding_space


def _toml_dict(text: str):
    import tomllib

    return tomllib.loads(text)


def test_safe_one_offs_may_share_a_cluster_with_one_offs_only():
    truth = [0, 0, 1, 1, 7, 8, 9]  # 7, 8, 9: one-offs
    assert oneoffs_safe(truth, [0, 0, 1, 1, 2, 2, -1]) == 1.0   # 7 and 8 together: harmless
    assert oneoffs_safe(truth, [0, 0, 1, 1, 0, 2, 3]) == pytest.approx(2 / 3)  # 7 joins class 0
    assert oneoffs_safe(truth, [-1, -1, -1, -1, -1, -1, -1]) == 1.0  # noise is alone
    assert oneoffs_safe([0, 0, 1, 1], [0, 0, 0, 0]) is None


def _fig(name, r, p, safe=None, n=0):
    return {"pool": name, "recall": r, "precision": p, "oneoffs_alone": None,
            "oneoffs_safe": safe, "oneoffs": n}


def test_bar_against_the_oracle_counts_gap_precision_and_safe_one_offs():
    pools = [_fig("a-pc2-oo20-s0", 0.90, 0.60, 1.0, 4), _fig("a-pc4_6-oo10-s0", 0.86, 0.35, 0.5, 2),
             _fig("b-pc2-oo10-s0", 0.80, 0.90, 0.6, 10), _fig("b-pc8_12-oo5-s0", 0.80, 0.70)]
    oracle = {"a": Oracle(0.90, 0.3, 0.5), "b": 0.80, "2-per-class": 0.90}
    rows = {r.group: r for r in bar_by_corpus(pools, oracle=oracle)}
    a, b, pc2 = rows["a"], rows["b"], rows["2-per-class"]
    assert a.gap == pytest.approx(-0.02) and a.safe == pytest.approx(10 / 12) and a.holds
    assert b.gap == pytest.approx(0.0) and b.safe == pytest.approx(0.6) and not b.holds
    assert pc2.gap == pytest.approx(-0.05) and not pc2.holds
    low = [_fig("a-pc2-oo20-s0", 0.95, 0.29, 1.0, 4)]
    assert not bar_by_corpus(low, oracle={"a": 0.9, "2-per-class": 0.9})[0].holds  # P < 0.30
    text = format_bar(list(rows.values()))
    assert "| oracle | gap |" in text and "| a | 2 | 0.88 |" in text and "-0.02" in text


def test_oracle_per_corpus_is_the_best_single_cut_at_the_precision_floor():
    pools = []
    for k, (name, noise) in enumerate([("tight-pc4_6-oo0-s0", 0.3), ("loose-pc4_6-oo0-s0", 1.5)]):
        E, truth = _topics(10 + k, 1, 6, 5, domain=0.5, noise=noise)
        pools.append((name, E, truth))
    oracle = oracle_by_corpus(pools)
    assert set(oracle) == {"tight", "loose"}
    assert oracle["tight"].recall == 1.0 and oracle["tight"].worst_precision >= 0.5
    assert oracle["loose"].cut <= oracle["tight"].cut or oracle["loose"].recall < 1.0
    none = oracle_by_corpus(pools, floor=1.01)
    assert none["tight"].recall == 0.0 and np.isnan(none["tight"].cut)


def test_a_namespace_in_one_cluster_gets_a_report_line_and_a_warning():
    pool = Pool(memories=[], by_namespace={"big": np.arange(0, 30), "fine": np.arange(30, 60),
                                           "small": np.arange(60, 65)})
    labels = np.concatenate([np.r_[np.zeros(25, int), np.ones(5, int)],
                             np.repeat(np.arange(6), 5), np.zeros(5, int)])
    shares = largest_shares(pool, labels)
    assert shares == {"big": pytest.approx(25 / 30), "fine": pytest.approx(5 / 30),
                      "small": 1.0}
    warnings = degenerate_warnings(pool, shares)
    assert len(warnings) == 1 and warnings[0].startswith("namespace big: one cluster holds 83%")
    assert "\n" not in warnings[0]
    assert largest_shares(pool, np.full(65, -1)) == {"big": 0.0, "fine": 0.0, "small": 0.0}
    assert Config().clustering.algorithm in ("hdbscan", "linkage")


def test_tune_prints_each_corpus_gap_to_its_oracle(capsys):
    from types import SimpleNamespace

    from memmaint.optimize.cli import _transfer_views
    from memmaint.optimize.objective import LabelledPool

    pools, figs = [], []
    for k, name in enumerate(["a-pc2-oo0-s0", "b-pc4_6-oo0-s0"]):
        E, truth = _topics(20 + k, 1, 5, 4, domain=0.0)
        pools.append(LabelledPool(name, E, truth, np.ones(len(truth))))
        figs.append({"pool": name, "recall": 0.5, "precision": 0.9, "oneoffs_alone": None})
    trial = SimpleNamespace(number=7, user_attrs={"pools": figs, "params": {}})
    _transfer_views(SimpleNamespace(trials=[trial]), 0.25, False, pools, best=7)
    out = capsys.readouterr().out
    assert "trial #7 per corpus against its oracle" in out
    assert "| a | 1 | 0.50 |" in out and "| 1.00 | -0.50 | **no** |" in out
