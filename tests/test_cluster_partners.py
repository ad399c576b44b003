"""A large cluster's planning reads candidate pairs, not every pair (issue #38).

Above ``updates.ALL_PAIRS_MAX`` memories, ``rules.plan_cluster`` reads only the pairs of
``updates.cluster_partners`` in ``resolve_changes`` (and the stale-cover and merge searches
only the memories that can pass their first cut). On a cluster whose updates sit among those
pairs, that plan must be the all-pairs plan, and the comparison must see it when it is not.
"""

from __future__ import annotations

import itertools
import random
from datetime import timedelta

import numpy as np
import pytest
from maint_fixtures import NOW, embed

from memmaint.maintenance.agents import rules, updates
from memmaint.maintenance.agents.neighbours import jaccard_pairs
from memmaint.maintenance.agents.slots import statement
from memmaint.maintenance.agents.updates import Partners
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.plan.model import Resolve

_SYLLABLES = ("ka", "lo", "mi", "ne", "su", "ta", "ri", "vo", "pe", "da", "zu", "ha")
_FILLER = ("the", "for", "with", "always", "never", "keep", "use", "check", "note", "prefer",
           "avoid", "customer", "team", "user", "reply", "order")
_UPDATES = (("The user works at Acme as a data engineer.", "The user now works at Globex."),
            ("Lena lives in Lyon.", "Lena moved to Graz."),
            ("The standup is at 9:30.", "The standup moved to 10:00."),
            ("The Pro plan costs $20 a month.", "The Pro plan now costs $25 a month."))


def _cluster(n: int, seed: int = 3) -> list[Memory]:
    """``n`` memories of many small topics (benchmarks/nightly.py's kind of text: numbers,
    duplicates, stale kinds) plus a few spelt-out updates: one big cluster's worth."""
    rng = random.Random(seed)
    vocab = sorted({"".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3)))
                    for _ in range(900)})
    topics = [rng.sample(vocab, 5) for _ in range(max(4, n // 12))]
    texts: list[str] = [t for pair in _UPDATES for t in pair]
    while len(texts) < n:
        if rng.random() < 0.08:
            base = rng.choice(texts)
            texts.append(base if rng.random() < 0.5 else f"{base} {rng.randint(0, 8)}")
            continue
        a, b, c, d, e = rng.sample(rng.choice(topics), 5)
        f = rng.choice(_FILLER)
        texts.append(rng.choice((f"{a} {b} {f} {c} {d} {rng.randint(1, 499)}",
                                 f"remember {a} {b} {f} {d} {c}",
                                 f"note: {a} {e} {f} {b} {c}")))
    kinds = ("default", "reference", "schedule", "price")
    return [Memory(text=t, id=f"m{i}", namespace="ns",
                   created_at=NOW - timedelta(days=rng.uniform(1, 180) if i >= 8 else 10 - i % 2),
                   importance=round(rng.uniform(0.3, 2.0), 3), kind=rng.choice(kinds))
            for i, t in enumerate(texts)]


def _plan(mems: list[Memory], vectors: np.ndarray, all_pairs_max: int,
          monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as m:
        m.setattr(rules, "ALL_PAIRS_MAX", all_pairs_max)
        plan = rules.plan_cluster(mems, vectors, 0, AgentsConfig(), NOW, id_seed="t")
    return sorted(repr(a) for a in plan.actions)


@pytest.fixture(scope="module")
def big() -> tuple[list[Memory], np.ndarray]:
    mems = _cluster(700)
    return mems, embed([m.text for m in mems])


def test_jaccard_pairs_are_exactly_the_pairs_at_the_threshold() -> None:
    rng = random.Random(5)
    words = [f"w{i}" for i in range(30)]
    sets = [frozenset(rng.sample(words, rng.randint(0, 6))) for _ in range(300)]
    for threshold in (0.2, 0.5, 0.75, 1.0):
        brute = [(i, j) for i, j in itertools.combinations(range(len(sets)), 2)
                 if (sets[i] | sets[j]) and len(sets[i] & sets[j])
                 / len(sets[i] | sets[j]) >= threshold]
        assert jaccard_pairs(sets, threshold) == brute


def test_a_large_cluster_decides_as_with_every_pair(big, monkeypatch) -> None:
    mems, vectors = big
    assert len(mems) > updates.ALL_PAIRS_MAX
    every = _plan(mems, vectors, 10**9, monkeypatch)
    partners = _plan(mems, vectors, updates.ALL_PAIRS_MAX, monkeypatch)
    assert partners == every
    resolved = [a for a in every if a.startswith("Resolve(")]
    assert len(resolved) >= 4  # the spelt-out updates and the pool's own changes are there
    n = len(mems)
    found = updates.cluster_partners([statement(m.text) for m in mems],
                                     vectors @ vectors.T, AgentsConfig())
    assert found.pairs() < n * (n - 1) // 2 // 4  # far fewer pairs than all of them


def test_the_comparison_sees_a_missed_pair(big, monkeypatch) -> None:
    """With no candidate pairs the updates are not found: the plans differ."""
    mems, vectors = big
    every = _plan(mems, vectors, 10**9, monkeypatch)
    monkeypatch.setattr(rules, "cluster_partners",
                        lambda stmts, sims, cfg: Partners([frozenset()] * len(stmts), sims))
    blind = _plan(mems, vectors, updates.ALL_PAIRS_MAX, monkeypatch)
    assert blind != every
    assert sum(a.startswith("Resolve(") for a in blind) < sum(a.startswith("Resolve(")
                                                              for a in every)


def test_a_small_cluster_reads_every_pair(monkeypatch) -> None:
    mems = _cluster(60)
    called: list[int] = []
    monkeypatch.setattr(rules, "cluster_partners",
                        lambda *a: called.append(1))  # type: ignore[func-returns-value]
    plan = rules.plan_cluster(mems, embed([m.text for m in mems]), 0, AgentsConfig(), NOW)
    assert not called
    assert any(isinstance(a, Resolve) for a in plan.actions)
