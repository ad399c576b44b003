"""B-cubed metrics: hand-computed worked examples (Amigo et al. 2009 constraints), properties
against a slow obvious implementation, noise policies, validation, and the cluster report."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memmaint.clustering.metrics import BCubed, bcubed, cluster_report
from memmaint.maintenance.core.errors import InputError, UserError


def slow_bcubed(labels_true, labels_pred, weights=None, noise="one_cluster"):
    """The definition, item by item, O(n^2): no contingency tables."""
    t = list(labels_true)
    p = list(labels_pred)
    n = len(t)
    if noise == "singletons":
        p = [("noise", i) if p[i] == -1 else p[i] for i in range(n)]
    w = [1.0] * n if weights is None else [float(x) for x in weights]
    total = sum(w)
    prec = rec = 0.0
    for i in range(n):
        in_cluster = [j for j in range(n) if p[j] == p[i]]
        in_class = [j for j in range(n) if t[j] == t[i]]
        both_c = sum(w[j] for j in in_cluster if t[j] == t[i])
        both_l = sum(w[j] for j in in_class if p[j] == p[i])
        wc = sum(w[j] for j in in_cluster)
        wl = sum(w[j] for j in in_class)
        prec += w[i] * (both_c / wc if wc > 0 else 0.0)
        rec += w[i] * (both_l / wl if wl > 0 else 0.0)
    return prec / total, rec / total


def assert_bc(result: BCubed, precision: float, recall: float) -> None:
    assert result.precision == pytest.approx(precision, abs=1e-12)
    assert result.recall == pytest.approx(recall, abs=1e-12)
    f1 = 2 * precision * recall / (precision + recall)
    assert result.f1 == pytest.approx(f1, abs=1e-12)


# -- Amigo et al. 2009 formal constraints as worked examples ------------------------------

def test_cluster_homogeneity_splitting_a_mixed_cluster_raises_precision():
    true = list("aaaabbcc")
    mixed = [1, 1, 2, 2, 2, 2, 3, 3]  # cluster 2 = {a, a, b, b}
    split = [1, 1, 2, 2, 4, 4, 3, 3]  # cluster 2 split into {a, a} and {b, b}
    # mixed: precision: {a,a} 2 x 1 = 2; {a,a,b,b} 4 x 2/4 = 2; {c,c} 2 -> 6/8 = 0.75
    #        recall:    class a: 4 items x 2/4 = 2; b 2 x 2/2 = 2; c 2 -> 6/8 = 0.75
    assert_bc(bcubed(true, mixed), 0.75, 0.75)
    # split: every cluster pure -> precision 1; recall unchanged 6/8 = 0.75
    #        F1 = 2 * 1 * 0.75 / 1.75 = 6/7
    assert_bc(bcubed(true, split), 1.0, 0.75)
    assert bcubed(true, split).f1 == pytest.approx(6 / 7)
    assert bcubed(true, split).f1 > bcubed(true, mixed).f1


def test_cluster_completeness_merging_same_class_clusters_raises_recall():
    true = list("aaaabbc")
    apart = [1, 1, 2, 2, 3, 3, 3]     # class a in two clusters; {b, b, c} a mixed cluster
    together = [1, 1, 1, 1, 3, 3, 3]
    # apart: precision: {a,a} 2; {a,a} 2; {b,b,c}: 2 x 2/3 + 1 x 1/3 = 5/3 -> (17/3)/7 = 17/21
    #        recall:    a: 4 x 2/4 = 2; b: 2 x 2/2 = 2; c: 1 -> 5/7
    #        F1 = 2 (17/21)(5/7) / (17/21 + 15/21) = (170/147) (21/32) = 85/112
    assert_bc(bcubed(true, apart), 17 / 21, 5 / 7)
    assert bcubed(true, apart).f1 == pytest.approx(85 / 112)
    # together: precision: {a,a,a,a} 4 + 5/3 -> 17/21 (same); recall: 4 + 2 + 1 = 7/7 = 1
    #           F1 = 2 (17/21) / (38/21) = 17/19
    assert_bc(bcubed(true, together), 17 / 21, 1.0)
    assert bcubed(true, together).f1 == pytest.approx(17 / 19)


def test_rag_bag_disorder_in_a_disordered_cluster_hurts_less():
    true = list("aaaabcde")  # the last item, e, is the one to place
    into_clean = [1, 1, 1, 1, 2, 2, 2, 1]
    into_ragbag = [1, 1, 1, 1, 2, 2, 2, 2]
    # into_clean: precision: {a,a,a,a,e}: 4 x 4/5 + 1 x 1/5 = 17/5 = 3.4; {b,c,d}: 3 x 1/3 = 1
    #             -> 4.4/8 = 0.55; recall: every class is whole in one cluster -> 1
    assert_bc(bcubed(true, into_clean), 0.55, 1.0)
    # into_ragbag: precision: {a,a,a,a} 4; {b,c,d,e}: 4 x 1/4 = 1 -> 5/8 = 0.625; recall 1
    assert_bc(bcubed(true, into_ragbag), 0.625, 1.0)
    assert bcubed(true, into_ragbag).f1 > bcubed(true, into_clean).f1


def test_cluster_size_vs_quantity_one_error_in_a_big_cluster_beats_many_small_ones():
    true = list("aaaaa") + list("bbccddee")
    big_error = [1, 1, 1, 1, 9] + [2, 2, 3, 3, 4, 4, 5, 5]   # one a split off
    small_errors = [1, 1, 1, 1, 1] + [2, 6, 3, 7, 4, 8, 5, 9]  # every pair split
    # both: all clusters pure -> precision 1
    # big_error:    recall: a: 4 x 4/5 + 1 x 1/5 = 17/5 = 3.4; pairs 8 x 1 = 8 -> 11.4/13
    assert_bc(bcubed(true, big_error), 1.0, 11.4 / 13)
    # small_errors: recall: a: 5 x 1 = 5; pairs 8 x 1/2 = 4 -> 9/13
    assert_bc(bcubed(true, small_errors), 1.0, 9 / 13)
    assert bcubed(true, big_error).f1 > bcubed(true, small_errors).f1


def test_weighted_worked_example():
    true = ["a", "a", "b", "b"]
    pred = [1, 1, 1, 2]
    w = [1, 2, 3, 4]
    # cluster 1 = items 0, 1, 2 (weight 6); cluster 2 = item 3 (weight 4)
    # P_0 = (1+2)/6 = 1/2, P_1 = 1/2, P_2 = 3/6 = 1/2, P_3 = 4/4 = 1
    # P = (1 * 1/2 + 2 * 1/2 + 3 * 1/2 + 4 * 1) / 10 = 7/10
    # class a = items 0, 1 (weight 3), class b = items 2, 3 (weight 7)
    # R_0 = R_1 = 3/3 = 1, R_2 = 3/7, R_3 = 4/7
    # R = (1 + 2 + 3 * 3/7 + 4 * 4/7) / 10 = (3 + 25/7) / 10 = 23/35
    assert_bc(bcubed(true, pred, weights=w), 0.7, 23 / 35)
    # unweighted: P = (2 x 2/3 + 1/3 + 1) / 4 = 2/3; R = (1 + 1 + 1/2 + 1/2) / 4 = 3/4
    assert_bc(bcubed(true, pred), 2 / 3, 0.75)


def test_noise_policies_worked_example():
    true = list("aabbc")
    pred = [0, 0, -1, -1, -1]
    # one_cluster: clusters {a,a}, {b,b,c}: P = (2 + 2 x 2/3 + 1/3) / 5 = (11/3)/5 = 11/15
    #              recall: every class whole in one cluster -> 1
    assert_bc(bcubed(true, pred, noise="one_cluster"), 11 / 15, 1.0)
    # singletons: {a,a}, {b}, {b}, {c}: P = 1; R = (2 + 2 x 1/2 + 1) / 5 = 4/5
    assert_bc(bcubed(true, pred, noise="singletons"), 1.0, 0.8)


def test_zero_weight_items_count_for_nothing():
    # item 2 weighs 0: it is as if absent -> clusters {a,a} and {b} are pure and whole
    assert_bc(bcubed(list("aab"), [1, 1, 1], weights=[1, 1, 0]), 1.0, 1.0)
    # a whole cluster of zero weight is skipped rather than dividing by zero
    assert_bc(bcubed(list("aab"), [1, 1, 2], weights=[1, 1, 0]), 1.0, 1.0)


def test_string_and_integer_labels_and_single_item():
    assert_bc(bcubed([7], [-1]), 1.0, 1.0)
    assert_bc(bcubed(["x", "y"], ["c", "c"]), 0.5, 1.0)


# -- properties ---------------------------------------------------------------------------

labels_st = st.integers(min_value=1, max_value=30).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 4), min_size=n, max_size=n),
        st.lists(st.integers(-1, 5), min_size=n, max_size=n),
        st.lists(st.floats(0.01, 100.0), min_size=n, max_size=n),
    )
)
noise_st = st.sampled_from(["one_cluster", "singletons"])


@settings(max_examples=150, deadline=None)
@given(labels_st, noise_st, st.booleans())
def test_matches_slow_definition_and_bounds(data, noise, weighted):
    true, pred, w = data
    weights = w if weighted else None
    got = bcubed(true, pred, weights=weights, noise=noise)
    p, r = slow_bcubed(true, pred, weights, noise)
    assert got.precision == pytest.approx(p, abs=1e-9)
    assert got.recall == pytest.approx(r, abs=1e-9)
    for value in (got.precision, got.recall, got.f1):
        assert 0.0 <= value <= 1.0


@settings(max_examples=100, deadline=None)
@given(labels_st, noise_st)
def test_perfect_clustering_scores_one(data, noise):
    true, _, w = data
    # relabel the classes as clusters with different ids (no -1: noise is not a cluster)
    pred = [10 + 3 * t for t in true]
    for weights in (None, w):
        got = bcubed(true, pred, weights=weights, noise=noise)
        assert got.precision == pytest.approx(1.0)
        assert got.recall == pytest.approx(1.0)
        assert got.f1 == pytest.approx(1.0)


@settings(max_examples=100, deadline=None)
@given(labels_st, noise_st, st.randoms(use_true_random=False))
def test_item_order_does_not_matter(data, noise, rnd):
    true, pred, w = data
    order = list(range(len(true)))
    rnd.shuffle(order)
    a = bcubed(true, pred, weights=w, noise=noise)
    b = bcubed([true[i] for i in order], [pred[i] for i in order],
               weights=[w[i] for i in order], noise=noise)
    assert a.precision == pytest.approx(b.precision)
    assert a.recall == pytest.approx(b.recall)


@settings(max_examples=100, deadline=None)
@given(labels_st, noise_st, st.permutations(list(range(6))), st.permutations(list(range(5))))
def test_renaming_labels_does_not_matter(data, noise, perm_pred, perm_true):
    true, pred, w = data
    # rename clusters 0..5 (noise -1 stays noise) and classes 0..4 to strings
    new_pred = [p if p == -1 else 100 + perm_pred[p] for p in pred]
    new_true = [f"class-{perm_true[t]}" for t in true]
    a = bcubed(true, pred, weights=w, noise=noise)
    b = bcubed(new_true, new_pred, weights=w, noise=noise)
    assert a.precision == pytest.approx(b.precision)
    assert a.recall == pytest.approx(b.recall)


@settings(max_examples=100, deadline=None)
@given(labels_st, noise_st, st.floats(1e-3, 1e3))
def test_scaling_all_weights_changes_nothing(data, noise, c):
    true, pred, w = data
    a = bcubed(true, pred, weights=w, noise=noise)
    b = bcubed(true, pred, weights=[c * x for x in w], noise=noise)
    assert a.precision == pytest.approx(b.precision)
    assert a.recall == pytest.approx(b.recall)


@settings(max_examples=100, deadline=None)
@given(labels_st, noise_st, st.floats(0.01, 50.0))
def test_equal_weights_equal_unweighted(data, noise, c):
    true, pred, _ = data
    a = bcubed(true, pred, noise=noise)
    b = bcubed(true, pred, weights=[c] * len(true), noise=noise)
    assert a.precision == pytest.approx(b.precision)
    assert a.recall == pytest.approx(b.recall)


def dense_bcubed(true, pred, w):
    """Another route for large n: a dense clusters x classes contingency matrix."""
    _, t = np.unique(true, return_inverse=True)
    _, p = np.unique(pred, return_inverse=True)
    m = np.zeros((p.max() + 1, t.max() + 1))
    np.add.at(m, (p, t), w)
    sq = m**2
    return (sq.sum(axis=1) / m.sum(axis=1)).sum() / w.sum(), \
        (sq.sum(axis=0) / m.sum(axis=0)).sum() / w.sum()


def test_hundred_thousand_items_matches_dense_contingency():
    rng = np.random.default_rng(0)
    n = 100_000
    true = rng.integers(0, 300, n)
    pred = np.where(rng.random(n) < 0.7, true, rng.integers(0, 500, n))
    w = rng.gamma(1.0, 2.0, n)
    got = bcubed(true, pred, weights=w)
    p, r = dense_bcubed(true, pred, w)
    assert got.precision == pytest.approx(p, rel=1e-9)
    assert got.recall == pytest.approx(r, rel=1e-9)


# -- validation ---------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (([1, 2], [1]), "2 items but labels_pred has 1"),
    (([], []), "empty"),
    (([1, 2], [1, 1], [1.0, -1.0]), "weight of item 1 is negative"),
    (([1, 2], [1, 1], [1.0, float("nan")]), "weight of item 1 is nan"),
    (([1, 2], [1, 1], [1.0, float("inf")]), "weight of item 1 is inf"),
    (([1, 2], [1, 1], [1.0]), "weights has shape"),
    (([1, 2], [1, 1], [0.0, 0.0]), "weights sum to zero"),
    (([[1, 2]], [[1, 1]]), "one-dimensional"),
])
def test_bad_input_is_a_user_error(args, message):
    with pytest.raises(InputError, match=message) as info:
        bcubed(*args)
    assert isinstance(info.value, UserError)


def test_unknown_noise_policy():
    with pytest.raises(InputError, match="noise policy 'drop'"):
        bcubed([1], [1], noise="drop")


# -- cluster report -----------------------------------------------------------------------

def test_cluster_report_counts_and_sklearn_scores():
    from sklearn.metrics import adjusted_rand_score, v_measure_score

    true = list("aabbbc")
    pred = [0, 0, 1, 1, -1, -1]
    w = [5, 1, 1, 1, 1, 1]
    rep = cluster_report(true, pred, weights=w)
    assert (rep.n_items, rep.n_classes, rep.n_clusters, rep.n_noise) == (6, 3, 2, 2)
    assert rep.bcubed == bcubed(true, pred)
    assert rep.bcubed_weighted == bcubed(true, pred, weights=w)
    assert rep.bcubed_weighted != rep.bcubed
    assert rep.ari == pytest.approx(adjusted_rand_score(true, pred))
    assert rep.v_measure == pytest.approx(v_measure_score(true, pred))

    single = cluster_report(true, pred, noise="singletons")
    # noise as singletons: {b} and {c} become two clusters: a different partition for ARI
    assert single.ari == pytest.approx(adjusted_rand_score(true, [0, 0, 1, 1, 2, 3]))
    assert single.n_clusters == 2 and single.n_noise == 2
    assert single.bcubed_weighted == single.bcubed


def test_cluster_report_perfect():
    rep = cluster_report([3, 3, 1, 1, 2], ["x", "x", "y", "y", "z"])
    assert rep.ari == pytest.approx(1.0)
    assert rep.ami == pytest.approx(1.0)
    assert rep.v_measure == pytest.approx(1.0)
    assert rep.bcubed == BCubed(1.0, 1.0, 1.0)
    assert rep.n_clusters == 3 and rep.n_noise == 0
