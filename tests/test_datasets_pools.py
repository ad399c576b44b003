"""Synthetic memory pools: determinism, sizes, labels, weights, phrasing diversity, errors."""

from __future__ import annotations

import itertools
import json
import re
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memmaint.datasets.grammar import Entity, render
from memmaint.datasets.pools import draw_weights, get_vocabulary, make_memory_pool
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
KINDS = ("mtg", "support")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9$%/]+", text.lower()))


@pytest.mark.parametrize("kind", KINDS)
def test_same_seed_same_pool_and_different_seed_different_pool(kind):
    a = make_memory_pool(kind, seed=3, now=NOW)
    b = make_memory_pool(kind, seed=3, now=NOW)
    c = make_memory_pool(kind, seed=4, now=NOW)
    assert [m.to_dict() for m in a.memories] == [m.to_dict() for m in b.memories]
    assert a.classes == b.classes and np.array_equal(a.labels, b.labels)
    assert set(a.texts).isdisjoint(c.texts) or len(set(a.texts) & set(c.texts)) < 3
    assert a.classes != c.classes


@pytest.mark.parametrize("kind", KINDS)
def test_memories_carry_their_ground_truth(kind):
    pool = make_memory_pool(kind, n_classes=12, seed=1, now=NOW, namespace="ns1")
    assert len(pool.memories) == len(pool.labels)
    ids = [m.id for m in pool.memories]
    assert len(set(ids)) == len(ids)
    for memory, label in zip(pool.memories, pool.labels):
        assert memory.metadata["label"] == label
        assert memory.namespace == "ns1"
        if label >= 0:
            assert memory.metadata["latent"] == pool.classes[label]
            assert memory.metadata["family"] == pool.families[label]
        else:
            assert memory.metadata["latent"] is None and memory.metadata["family"] == "noise"
        assert memory.kind in ("price", "availability", "schedule", "reference", "default")
        assert NOW - timedelta(days=180) <= memory.created_at <= NOW
        # importable: the JSONL line round-trips through Memory.from_dict
        assert Memory.from_dict(json.loads(memory.to_json())) == memory
    lines = pool.to_jsonl().splitlines()
    assert [Memory.from_dict(json.loads(line)).id for line in lines] == ids


@pytest.mark.parametrize("kind", KINDS)
def test_classes_spread_over_families_and_order_hides_labels(kind):
    pool = make_memory_pool(kind, n_classes=len(get_vocabulary(kind).families), seed=0, now=NOW)
    assert len(set(pool.families)) == len(get_vocabulary(kind).families)
    first = pool.labels[: len(pool.labels) // 2]
    assert len(set(first.tolist())) > pool.n_classes // 2  # shuffled, not grouped by class


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), n_classes=st.integers(1, 40), lo=st.integers(1, 6),
       extra=st.integers(0, 4), seed=st.integers(0, 2**32 - 1),
       noise=st.sampled_from([0.0, 0.05, 0.2, 0.5]),
       weights=st.sampled_from(["powerlaw", "uniform", "bimodal", "none"]))
def test_pool_sizes_labels_and_weights(kind, n_classes, lo, extra, seed, noise, weights):
    hi = lo + extra
    pool = make_memory_pool(kind, n_classes=n_classes, per_class=(lo, hi), seed=seed,
                            noise_frac=noise, weights=weights, now=NOW)
    labels = pool.labels
    counts = np.bincount(labels[labels >= 0], minlength=n_classes)
    assert pool.n_classes == n_classes == len(pool.families)
    assert counts.min() >= lo and counts.max() <= hi  # every class present, sizes in range
    n_noise = int((labels < 0).sum())
    assert n_noise == round(noise * counts.sum() / (1 - noise))
    assert len(set(pool.texts)) == len(pool)  # no accidental exact duplicates
    w = pool.weights
    assert np.all(w > 0) and np.all(np.isfinite(w))
    if weights == "none":
        assert np.all(w == 1.0)
    elif weights == "uniform":
        assert np.all((w >= 0.1) & (w <= 2.0))
    elif weights == "powerlaw":
        assert np.all((w >= 0.3) & (w <= 30.0))
    else:
        assert np.all(((w >= 0.1) & (w <= 1.0)) | ((w >= 5.0) & (w <= 10.0)))
        assert 1 <= (w >= 5.0).sum() <= max(1, round(0.08 * len(w)))


def test_weight_distribution_shapes():
    rng = np.random.default_rng(0)
    n = 20_000
    uniform = draw_weights(n, "uniform", rng)
    powerlaw = draw_weights(n, "powerlaw", rng)
    bimodal = draw_weights(n, "bimodal", rng)
    assert abs(np.median(uniform) - 1.05) < 0.05
    # heavy tail: mean well above median, a visible share above 5x the median
    assert np.mean(powerlaw) > 1.5 * np.median(powerlaw)
    assert 0.02 < np.mean(powerlaw > 5 * np.median(powerlaw)) < 0.15
    # bimodal: few large (critical) weights, many small ones, nothing in between
    large = bimodal >= 5.0
    assert 0.07 < large.mean() < 0.09
    assert not np.any((bimodal > 1.0) & (bimodal < 5.0))
    with pytest.raises(InputError, match="unknown weight distribution"):
        draw_weights(3, "zipf", rng)


@pytest.mark.parametrize("kind", KINDS)
def test_phrasing_diversity(kind):
    vocab = get_vocabulary(kind)
    pool = make_memory_pool(kind, n_classes=min(60, vocab.capacity()), per_class=8, seed=0,
                            now=NOW)
    texts = pool.texts
    openings = {" ".join(t.lower().split()[:3]) for t in texts}
    assert len(set(texts)) == len(texts) >= 300
    assert len(openings) >= 200, len(openings)
    # members of a class are not one template with a word swapped: the mean pairwise word
    # overlap inside a class stays well below 1, yet above the overlap between classes
    within, between = [], []
    for label in range(pool.n_classes):
        members = [_words(t) for t, lab in zip(texts, pool.labels) if lab == label]
        within += [len(a & b) / len(a | b) for a, b in itertools.combinations(members, 2)]
    rng = np.random.default_rng(0)
    for _ in range(2000):
        i, j = rng.integers(len(texts), size=2)
        if pool.labels[i] != pool.labels[j]:
            a, b = _words(texts[i]), _words(texts[j])
            between.append(len(a & b) / len(a | b))
    assert 0.1 < np.mean(within) < 0.45, np.mean(within)
    assert np.mean(between) < np.mean(within) / 2
    # several observation shapes occur: split/partial statements (short), full ones (long),
    # terse notes (no final period)
    lengths = np.array([len(t.split()) for t in texts])
    assert lengths.min() <= 6 and lengths.max() >= 35
    assert sum(not t.endswith(".") for t in texts) > len(texts) * 0.03


@pytest.mark.parametrize("kind", KINDS)
def test_capacity_is_several_hundred_or_a_clear_error(kind):
    vocab = get_vocabulary(kind)
    assert vocab.capacity() >= 150
    pool = make_memory_pool(kind, n_classes=vocab.capacity(), per_class=1, seed=0, now=NOW,
                            noise_frac=0.0)
    assert len(set(pool.classes)) == vocab.capacity()
    with pytest.raises(InputError, match="exceeds the .* distinct subjects"):
        make_memory_pool(kind, n_classes=vocab.capacity() + 1, seed=0)


@pytest.mark.parametrize("kwargs, message", [
    ({"kind": "chess"}, "unknown pool kind"),
    ({"n_classes": 0}, "n_classes must be a positive integer"),
    ({"per_class": (5, 2)}, "1 <= LO <= HI"),
    ({"per_class": "many"}, "per_class must be N or"),
    ({"noise_frac": 1.0}, "noise_frac must be in"),
    ({"weights": "gaussian"}, "unknown weight distribution"),
    ({"time_window_days": -1}, "time_window_days"),
])
def test_bad_arguments_raise_input_error(kwargs, message):
    with pytest.raises(InputError, match=message):
        make_memory_pool(**kwargs)


def test_render_is_canonical_without_rng_and_varies_with_one():
    slots = {"card": Entity("Lightning Bolt", ("Bolt",)), "mood": ("great", "fine")}
    assert render("[play|run] {card}, it is {mood}", slots) == "play Lightning Bolt, it is great"
    rng = np.random.default_rng(0)
    seen = {render("[play|run] {card}, it is {mood}", slots, rng) for _ in range(50)}
    assert len(seen) == 8
    with pytest.raises(KeyError, match="needs slot 'other'"):
        render("{other}", slots)
