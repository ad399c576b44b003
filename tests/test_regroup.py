"""Noise regrouping: the pure function against a dense reference, and what it does end to end
(the job groups near-duplicate noise before planning; scenario shares with default clustering)."""

from __future__ import annotations

from collections import deque
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from memmaint.clustering.regroup import (
    SPLIT_STEP,
    regroup_for_agents,
    regroup_noise,
    regroup_threshold,
    similarity_components,
    split_components,
)
from memmaint.maintenance.core.config import AgentsConfig, Config, config_from_dict, with_overrides
from memmaint.maintenance.core.errors import ConfigError, InputError

# -- a slow obvious reference -------------------------------------------------------------


def dense_components(x: np.ndarray, threshold: float) -> list[set[int]]:
    """Components of "cosine >= threshold" by breadth-first search over the full matrix."""
    v = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(v, axis=1)
    unit = np.divide(v, norms[:, None], out=np.zeros_like(v), where=norms[:, None] > 0)
    sims = unit @ unit.T
    n = len(v)
    adj = (sims >= threshold) & (norms[:, None] > 0) & (norms[None, :] > 0)
    seen: set[int] = set()
    out = []
    for s in range(n):
        if s in seen:
            continue
        comp, queue = {s}, deque([s])
        seen.add(s)
        while queue:
            i = queue.popleft()
            for j in np.flatnonzero(adj[i]):
                if int(j) not in seen:
                    seen.add(int(j))
                    comp.add(int(j))
                    queue.append(int(j))
        out.append(comp)
    return out


def partition(ids: np.ndarray) -> set[frozenset[int]]:
    groups: dict[int, set[int]] = {}
    for i, g in enumerate(ids):
        groups.setdefault(int(g), set()).add(i)
    return {frozenset(g) for g in groups.values()}


def planted(n: int, dim: int, seed: int, copies: float = 0.4, spread: float = 0.15):
    """Gaussian rows; a share of them are noisy copies of an earlier row (near-duplicates)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, dim))
    for i in range(1, n):
        if rng.random() < copies:
            x[i] = x[rng.integers(0, i)] + spread * rng.normal(size=dim)
    return x


# -- the pure function --------------------------------------------------------------------

def test_pairs_and_triples_of_noise_become_new_clusters():
    e = np.eye(8)
    x = np.stack([e[0], e[0] + 0.05 * e[1], e[2], e[2], e[2] + 0.1 * e[3],  # a pair, a triple
                  e[4], e[5], e[4] + 0.02 * e[6], e[7]])
    labels = np.array([-1, -1, -1, -1, -1, 3, 3, 3, -1])  # rows 5-7: a real cluster
    out = regroup_noise(labels, x, 0.9)
    assert out.dtype == np.int64 and out is not labels
    assert out[0] == out[1] == 4 and out[2] == out[3] == out[4] == 5  # above max label 3
    assert list(out[5:8]) == [3, 3, 3]  # a real cluster is never touched, even when similar
    assert out[8] == -1  # alone: stays noise
    np.testing.assert_array_equal(labels, [-1, -1, -1, -1, -1, 3, 3, 3, -1])  # input intact


def test_chains_are_connected_components():
    # cos(a, b) and cos(b, c) above 0.9, cos(a, c) below: single linkage joins all three
    t = np.deg2rad([0.0, 20.0, 40.0])
    x = np.stack([np.cos(t), np.sin(t)], axis=1)
    assert float(x[0] @ x[2]) < 0.9 < float(x[0] @ x[1])
    out = regroup_noise([-1, -1, -1], x, 0.9)
    assert len(set(out.tolist())) == 1 and out[0] == 0  # all noise before: labels from 0


def test_singletons_of_genkt_are_regrouped_unless_turned_off():
    x = np.array([[1.0, 0.0], [1.0, 0.01], [0.0, 1.0], [0.01, 1.0], [0.7, 0.7]])
    labels = np.array([0, 1, 2, 2, 3])  # 0, 1 and 3 are one-member clusters
    out = regroup_noise(labels, x, 0.99)
    assert out[0] == out[1] == 4 and list(out[2:]) == [2, 2, 3]
    np.testing.assert_array_equal(regroup_noise(labels, x, 0.99, singletons=False), labels)


def test_partitions_never_cross_and_number_their_own_labels():
    x = np.array([[1.0, 0.0]] * 4 + [[0.0, 1.0]] * 3)
    labels = np.array([-1, -1, -1, -1, 0, 0, -1])
    parts = [np.array([0, 1]), np.array([2, 3, 4, 5, 6])]  # e.g. two namespaces
    out = regroup_noise(labels, x, 0.9, partitions=parts)
    assert out[0] == out[1] == 0  # first partition: no labels, new ones start at 0
    assert out[2] == out[3] == 1  # second: above its own max label 0
    assert list(out[4:]) == [0, 0, -1]
    # rows in no partition keep their labels
    np.testing.assert_array_equal(regroup_noise(labels, x, 0.9, partitions=[]), labels)


def test_zero_rows_link_to_nothing_and_edge_cases():
    x = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(regroup_noise([-1, -1, -1], x, -1.0), [-1, -1, -1])
    assert regroup_noise([], np.zeros((0, 4)), 0.8).shape == (0,)
    np.testing.assert_array_equal(regroup_noise([-1], [[1.0, 2.0]], 0.8), [-1])
    assert similarity_components(np.zeros((0, 3)), 0.5).shape == (0,)


@pytest.mark.parametrize("labels, x, thr, match", [
    ([-1, -1], np.ones((3, 2)), 0.8, "2 labels but 3"),
    ([-1, -1], np.array([[1.0, np.nan], [1.0, 0.0]]), 0.8, "row 0"),
    ([-1, -1], np.ones((2, 2)), 1.5, "in \\[-1, 1\\]"),
    ([-1, -1], np.ones(2), 0.8, "2-D"),
])
def test_bad_input_is_an_input_error(labels, x, thr, match):
    with pytest.raises(InputError, match=match):
        regroup_noise(labels, x, thr)


@pytest.mark.parametrize("block", [1, 7, 64, 10**9])
def test_blocked_products_match_the_dense_reference(block):
    x = planted(150, 16, seed=3)
    want = {frozenset(c) for c in dense_components(x, 0.8)}
    assert len([c for c in want if len(c) > 1]) > 10  # the data has something to find
    got = similarity_components(x, 0.8, block_entries=block)
    assert partition(got) == want
    # numbering: components in order of their first row
    firsts = [int(np.flatnonzero(got == k)[0]) for k in range(got.max() + 1)]
    assert firsts == sorted(firsts)


def test_dense_graphs_stay_bounded_and_correct():
    # threshold -1: every pair is an edge; the edge list is compressed as it grows
    x = planted(80, 4, seed=1)
    got = similarity_components(x, -1.0, block_entries=80 * 3)
    assert set(got.tolist()) == {0}


def test_attach_joins_the_cluster_of_the_best_link_and_never_joins_clusters():
    e = np.eye(6)

    def at(deg):  # a unit vector in the plane of e0 and e1
        return np.cos(np.deg2rad(deg)) * e[0] + np.sin(np.deg2rad(deg)) * e[1]

    x = np.stack([at(0), at(-2),      # cluster 0
                  at(36.87), at(38),  # cluster 1 (cosine 0.8 to cluster 0)
                  at(10),             # noise: 0.985 to cluster 0, below 0.9 to cluster 1
                  at(30),             # noise: 0.993 to cluster 1, 0.94 to the row above
                  e[2], e[2] + 0.05 * e[3],  # a noise pair near nothing clustered
                  e[4]])                     # alone
    labels = np.array([0, 0, 1, 1, -1, -1, -1, -1, -1])
    out = regroup_noise(labels, x, 0.9, attach=True)
    # rows 4 and 5 are one component; it joins cluster 1, its single best link (0.993), and
    # the clusters stay apart although row 4 alone is closer to cluster 0
    np.testing.assert_array_equal(out, [0, 0, 1, 1, 1, 1, 2, 2, -1])
    np.testing.assert_array_equal(regroup_noise(labels, x, 0.9),  # without: a new cluster
                                  [0, 0, 1, 1, 2, 2, 3, 3, -1])
    # a lone noise memory attaches too
    np.testing.assert_array_equal(regroup_noise([0, 0, -1], x[[0, 1, 4]], 0.9, attach=True),
                                  [0, 0, 0])


def test_large_chains_are_recut_at_higher_cosines():
    # two tight groups of 4 bridged by a middle point: one component at 0.6
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=16), rng.normal(size=16)
    bridge = (a + b) / 2
    x = np.stack([a + 0.05 * rng.normal(size=16) for _ in range(4)]
                 + [b + 0.05 * rng.normal(size=16) for _ in range(4)] + [bridge])
    comp = similarity_components(x, 0.6)
    assert comp.max() == 0  # the bridge chains both groups
    split = split_components(x, comp, 0.6, max_size=4)
    assert partition(split[:8]) == {frozenset(range(4)), frozenset(range(4, 8))}
    assert np.sum(split == split[8]) == 1  # the bridge is left alone
    np.testing.assert_array_equal(split_components(x, comp, 0.6, max_size=9), comp)
    out = regroup_noise(np.full(9, -1), x, 0.6, max_size=4)
    np.testing.assert_array_equal(out, [0, 0, 0, 0, 1, 1, 1, 1, -1])
    # exact copies are never split, however many
    np.testing.assert_array_equal(regroup_noise([-1] * 6, np.ones((6, 3)), 0.9, max_size=2),
                                  [0] * 6)
    with pytest.raises(InputError, match="max_size"):
        split_components(x, comp, 0.6, max_size=0)


def test_threshold_from_the_agents_config():
    assert regroup_threshold(AgentsConfig()) == 0.75  # min(merge 0.85, cover 0.75)
    assert regroup_threshold(AgentsConfig(merge_threshold=0.7)) == 0.7
    assert regroup_threshold(AgentsConfig(regroup_threshold=0.9)) == 0.9
    cfg = config_from_dict({"agents": {"regroup_threshold": 0.8, "regroup_noise": False}})
    assert not cfg.agents.regroup_noise and regroup_threshold(cfg.agents) == 0.8
    assert "regroup_threshold" not in Config().to_toml()  # unset optional: not written
    with pytest.raises(ConfigError, match="regroup_max_size"):
        config_from_dict({"agents": {"regroup_max_size": 1}})
    # regroup_for_agents: the config's settings, or the labels unchanged when off
    x = np.array([[1.0, 0.0], [1.0, 0.01], [0.0, 1.0], [0.01, 1.0], [0.0, 1.0]])
    labels = np.array([-1, -1, 0, -1, 0])
    np.testing.assert_array_equal(regroup_for_agents(labels, x, AgentsConfig()),
                                  [1, 1, 0, 0, 0])
    np.testing.assert_array_equal(
        regroup_for_agents(labels, x, AgentsConfig(regroup_attach=False)), [1, 1, 0, -1, 0])
    np.testing.assert_array_equal(
        regroup_for_agents(labels, x, AgentsConfig(regroup_noise=False)), labels)


def reference_regroup(labels, x, threshold, singletons, attach, max_size):
    """regroup_noise written the obvious way, on the full float64 cosine matrix."""
    labels = np.asarray(labels, dtype=np.int64)
    v = np.asarray(x, dtype=np.float64)
    unit = v / np.linalg.norm(v, axis=1, keepdims=True)
    sims = unit @ unit.T
    counts = {int(k): int(c) for k, c in zip(*np.unique(labels, return_counts=True))}
    cand = [i for i in range(len(labels))
            if labels[i] < 0 or (singletons and counts[int(labels[i])] == 1)]
    others = [j for j in range(len(labels)) if j not in set(cand)]

    def components(rows, t):
        return [sorted(rows[k] for k in c) for c in dense_components(v[rows], t)]

    def split(comp, t):
        if max_size is None or len(comp) <= max_size or t >= 1.0:
            return [comp]
        t = min(1.0, t + SPLIT_STEP)
        return [p for piece in components(comp, t) for p in split(piece, t)]

    comps = sorted((p for c in components(cand, threshold) for p in split(c, threshold)),
                   key=min)
    out = labels.copy()
    new = int(labels.max()) + 1 if len(labels) and labels.max() >= 0 else 0
    for comp in comps:
        if attach and others:
            best = max((sims[i, j], -i, -j) for i in comp for j in others)
            if best[0] >= threshold:
                out[comp] = labels[-best[2]]
                continue
        if len(comp) >= 2:
            out[comp] = new
            new += 1
    return out


def far_from_cuts(x, threshold):
    """No cosine within 1e-5 of a threshold the splitting may use (float32 vs float64)."""
    v = np.asarray(x, dtype=np.float64)
    unit = v / np.linalg.norm(v, axis=1, keepdims=True)
    sims = (unit @ unit.T)[np.triu_indices(len(v), 1)]
    cuts, t = [threshold], threshold
    while t < 1.0:
        t = min(1.0, t + SPLIT_STEP)
        cuts.append(t)
    return all(np.all(np.abs(sims - c) > 1e-5) for c in cuts)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(0, 36), dim=st.integers(2, 6), seed=st.integers(0, 10**6),
       threshold=st.sampled_from([-0.3, 0.2, 0.55, 0.8, 0.93]),
       n_real=st.integers(0, 4), block=st.integers(1, 200), singletons=st.booleans(),
       attach=st.booleans(), max_size=st.sampled_from([None, None, 2, 3, 6]))
def test_regrouping_properties(n, dim, seed, threshold, n_real, block, singletons, attach,
                               max_size):
    rng = np.random.default_rng(seed)
    x = planted(n, dim, seed, copies=0.3, spread=0.3)
    assume(far_from_cuts(x, threshold))
    labels = rng.integers(-1, n_real, size=n) if n_real else np.full(n, -1)
    out = regroup_noise(labels, x, threshold, singletons=singletons, attach=attach,
                        max_size=max_size, block_entries=block)
    # the same as the obvious version, whatever the block size
    np.testing.assert_array_equal(out, reference_regroup(labels, x, threshold, singletons,
                                                         attach, max_size))
    sizes = {int(v): int(c) for v, c in zip(*np.unique(labels, return_counts=True))}
    candidate = np.array([lab < 0 or (singletons and sizes[int(lab)] == 1) for lab in labels],
                         dtype=bool)
    # members of real clusters never move; candidates join real clusters or new ones
    np.testing.assert_array_equal(out[~candidate], labels[~candidate])
    top = int(labels.max()) if n and labels.max() >= 0 else -1
    moved = out != labels
    real = set(labels[~candidate].tolist())
    assert all(lab > top or (attach and lab in real) for lab in out[moved].tolist())
    for lab in set(out[moved].tolist()) - real:  # a new cluster has two or more members
        assert int((out == lab).sum()) >= 2
    if max_size is None:
        # idempotent: what it grouped is clustered now, and the rest has no link left
        np.testing.assert_array_equal(
            regroup_noise(out, x, threshold, singletons=singletons, attach=attach,
                          block_entries=block), out)


# -- end to end: the job regroups before planning -------------------------------------------

TOPICS = [
    "The Pro plan costs 29 dollars per month for every seat",
    "Refunds are processed within five business days after approval",
    "The API rate limit is 100 requests per minute per key",
    "Shipping to Canada takes seven to ten days by ground mail",
]


def _pairs_store(path):
    """Each topic twice, in two namespaces: HDBSCAN with min_cluster_size 20 sees only noise."""
    from memmaint.maintenance.core.records import Memory, utcnow
    from memmaint.maintenance.store.sqlite import SQLiteStore

    t = utcnow() - timedelta(days=2)
    store = SQLiteStore(path)
    store.add_memories([Memory(text, id=f"{ns}-{k}-{c}", namespace=ns,
                               created_at=t + timedelta(minutes=c))
                        for ns in ("a", "b") for k, text in enumerate(TOPICS)
                        for c in range(2)])
    return store


ALL_NOISE = {"embedding.model": "hashing", "embedding.dim": 64, "reduction.method": "pca",
             "clustering.algorithm": "hdbscan", "clustering.hdbscan.min_cluster_size": 20}


@pytest.mark.parametrize("executor", [None, "threads"])
def test_the_job_merges_noise_pairs_only_when_regrouping(tmp_path, executor):
    from memmaint.maintenance.job.executors import make_executor
    from memmaint.maintenance.job.run import run_job

    ex = make_executor(executor, workers=2) if executor else None
    with _pairs_store(tmp_path / "on.db") as store:
        report = run_job(store, with_overrides(Config(), ALL_NOISE), force=True, executor=ex)
        p = report.primary
        # 4 pairs per namespace, never across namespaces: 8 merges of 2
        assert p.actions_by_type["merge"] == 16 and p.actions_by_type["created"] == 8
        assert p.noise == 0 and p.n_clusters == 8 and p.cluster_sizes == {2: 8}
        groups: dict[int, set[str]] = {}
        for d in p.decisions:
            groups.setdefault(d.group, set()).add(d.memory_id)
        assert {frozenset(g) for g in groups.values()} == {
            frozenset({f"{ns}-{k}-0", f"{ns}-{k}-1"}) for ns in "ab" for k in range(4)}
        assert report.stage("cluster").detail["regrouped"] == 16
    if ex is not None:
        ex.close()
    off = with_overrides(Config(), {**ALL_NOISE, "agents.regroup_noise": False})
    with _pairs_store(tmp_path / "off.db") as store:
        report = run_job(store, off, force=True, dry_run=True)
        assert report.primary.actions_by_type["merge"] == 0 and report.primary.noise == 16
        assert "regrouped" not in report.stage("cluster").detail


def test_compare_configs_regroups_each_side_with_its_own_agents(tmp_path):
    from memmaint.maintenance.job.run import compare_configs

    on = with_overrides(Config(), ALL_NOISE)
    off = with_overrides(on, {"agents.regroup_noise": False})
    with _pairs_store(tmp_path / "c.db") as store:
        cmp = compare_configs(store, on, off)
    assert cmp.a.actions_by_type["merge"] == 16 and cmp.b.actions_by_type["merge"] == 0


@pytest.mark.slow
def test_scenario_shares_with_default_clustering(tmp_path):
    """MiniLM, 2-D UMAP, HDBSCAN min_cluster_size 5 (the defaults): pairs and triples of
    duplicates, changed facts and contradictions reach the agents together."""
    pytest.importorskip("umap")
    from memmaint.datasets.scenarios import make_scenario
    from memmaint.maintenance.evaluation.common import EvalCache, maintain
    from memmaint.maintenance.evaluation.scenarios import NOW, effective_actions

    types = ("duplicate", "changed_fact", "contradiction")
    hits = {t: [0, 0] for t in types}
    with EvalCache(tmp_path / "cache.sqlite") as cache:
        for kind in ("support", "mtg"):
            for seed in (0, 1, 2):
                scenario = make_scenario(kind=kind, seed=seed, now=NOW)
                got = effective_actions(maintain(scenario.memories, Config(), cache,
                                                 now=scenario.now))
                for mid, exp in scenario.expected.items():
                    if exp.scenario_type in hits:
                        hits[exp.scenario_type][1] += 1
                        hits[exp.scenario_type][0] += got.get(mid, "keep") == exp.action
    shares = {t: ok / n for t, (ok, n) in hits.items()}
    assert all(n >= 30 for _ok, n in hits.values())
    assert min(shares.values()) >= 0.9, shares
