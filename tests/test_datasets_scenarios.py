"""Maintenance scenarios: every type with its expected action, consistent with the agents'
config (TTLs, noise rule, canonical policy), and near each other in embedding space."""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timezone

import numpy as np
import pytest

from memmaint.datasets.scenarios import ACTIONS, SCENARIO_TYPES, make_scenario
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.freshness import freshness, verdict
from memmaint.maintenance.core.records import Memory

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
TTL = AgentsConfig().ttl_days
EXPECTED_ACTIONS = {
    "duplicate": {"keep", "merge"}, "changed_fact": {"keep", "supersede"},
    "stale": {"evict", "keep", "supersede"}, "noise": {"evict"},
    "contradiction": {"keep", "supersede"}, "injection": {"keep"}, "control": {"keep"},
}


def _age(memory: Memory, now: datetime) -> float:
    return (now - memory.created_at).total_seconds() / 86400


@pytest.mark.parametrize("kind", ["support", "mtg"])
@pytest.mark.parametrize("seed", [0, 1, 2, 7])
def test_every_type_with_its_expected_actions(kind, seed):
    scen = make_scenario(kind, seed=seed, now=NOW)
    by_type = scen.by_type()
    assert set(by_type) == set(SCENARIO_TYPES) and all(by_type.values())
    assert set(scen.expected) == {m.id for m in scen.memories}
    for stype, ids in by_type.items():
        actions = {scen.expected[i].action for i in ids}
        assert actions == EXPECTED_ACTIONS[stype], (stype, actions)
        assert actions <= set(ACTIONS)
    # each item is named by its ids' prefix and its memories share the item's topic
    for item, ids in scen.items.items():
        assert all(i.startswith(item) for i in ids)
        assert len({scen.labels[[m.id for m in scen.memories].index(i)] for i in ids}) == 1


@pytest.mark.parametrize("kind", ["support", "mtg"])
def test_expectations_agree_with_the_agents_rules(kind):
    scen = make_scenario(kind, seed=3, now=NOW)
    config = scen.agents_config()
    assert config == AgentsConfig(evict_stale=True, evict_noise=True)
    mem = {m.id: m for m in scen.memories}
    for mid, exp in scen.expected.items():
        m = mem[mid]
        state = verdict(freshness(m, NOW, config.ttl_days))
        if exp.target is not None:
            assert exp.target in mem and exp.target != mid
            assert scen.expected[exp.target].action == "keep"
            assert mem[exp.target].created_at > m.created_at  # newer replaces older
        if exp.action == "merge":
            assert exp.scenario_type == "duplicate"
        if exp.scenario_type == "stale":
            if exp.action in ("evict", "supersede"):
                assert state == "STALE_BLOCK", (mid, state)
            else:
                assert state == "FRESH"
        elif exp.scenario_type == "noise":
            assert m.importance <= config.noise_max_importance
            assert _age(m, NOW) >= config.noise_min_age_days and m.retrievals == 0
            assert scen.labels[list(mem).index(mid)] == -1
        elif exp.action == "keep":
            assert state == "FRESH", (mid, m.kind, state)
            assert m.importance < config.protect_importance
        if exp.scenario_type == "duplicate" and exp.action == "keep":
            group = scen.items[exp.item]
            assert m.created_at == max(mem[i].created_at for i in group)  # canonical newest
    # exact and near duplicates both occur
    dup_texts = [[mem[i].text for i in ids] for item, ids in scen.items.items()
                 if scen.expected[ids[0]].scenario_type == "duplicate"]
    assert any(len(set(t)) < len(t) for t in dup_texts)
    assert any(len(set(t)) > 1 for t in dup_texts)


def test_price_change_and_injection_are_always_there():
    for seed in range(5):
        scen = make_scenario("support", seed=seed, now=NOW)
        by_text = {m.text: m for m in scen.memories}
        old, new = by_text["The Pro plan costs $29/mo."], by_text["The Pro plan costs $39/mo."]
        assert (old.id, new.id) == ("chg-1-old", "chg-1-new")
        assert 36 <= _age(old, NOW) <= 44 and _age(new, NOW) <= 1.1
        assert scen.expected[old.id].action == "supersede"
        assert scen.expected[old.id].target == new.id
        assert scen.expected[new.id].action == "keep"
        (inj,) = scen.by_type()["injection"]
        assert "ignore your instructions" in next(m.text for m in scen.memories if m.id == inj)
        assert scen.expected[inj].action == "keep"


def test_config_flags_change_only_their_expectations():
    on = make_scenario("support", seed=0, now=NOW)
    off = make_scenario("support", seed=0, now=NOW, evict_stale=False, evict_noise=False)
    assert [m.to_dict() for m in on.memories] == [m.to_dict() for m in off.memories]
    changed = {i for i in on.expected if on.expected[i].action != off.expected[i].action}
    assert changed == set(on.by_type()["noise"]) | {
        i for i in on.by_type()["stale"] if on.expected[i].action == "evict"}
    assert all(off.expected[i].action == "keep" for i in changed)
    assert off.agents_config() == AgentsConfig()  # both flags off: the shipped defaults
    assert all(off.expected[i].assumes["evict_noise"] is False for i in off.by_type()["noise"])


def test_deterministic_seeds_differ_and_opaque_ids():
    a = make_scenario("mtg", seed=5, now=NOW)
    b = make_scenario("mtg", seed=5, now=NOW)
    c = make_scenario("mtg", seed=6, now=NOW)
    assert [m.to_dict() for m in a.memories] == [m.to_dict() for m in b.memories]
    assert a.expected == b.expected
    assert [m.to_dict() for m in a.memories] != [m.to_dict() for m in c.memories]
    opaque = make_scenario("mtg", seed=5, now=NOW, opaque_ids=True)
    assert all(m.id.startswith("m-") for m in opaque.memories)
    assert sorted(e.action for e in opaque.expected.values()) == \
        sorted(e.action for e in a.expected.values())
    for m in opaque.memories:
        exp = opaque.expected[m.id]
        assert exp.target is None or exp.target in opaque.expected
    for line in (m.to_json() for m in a.memories):
        assert Memory.from_dict(json.loads(line)).text


def test_counts_and_score():
    scen = make_scenario("support", seed=1, now=NOW,
                         counts={"duplicate": 2, "noise": 0, "control": 1, "stale": 1})
    types = scen.by_type()
    assert len({scen.expected[i].item for i in types["duplicate"]}) == 2
    assert types["noise"] == [] and len(types["control"]) == 1
    perfect = {mid: e.action for mid, e in scen.expected.items()}
    assert all(v == 1.0 for v in scen.score(perfect).values())
    everything_kept = scen.score({})
    assert everything_kept["control"] == 1.0 and everything_kept["duplicate"] < 1.0
    assert "noise" not in everything_kept
    with pytest.raises(InputError, match="unknown scenario type"):
        make_scenario("support", counts={"dupes": 1})
    with pytest.raises(InputError, match="library has"):
        make_scenario("support", counts={"contradiction": 50})
    with pytest.raises(InputError, match="unknown scenario kind"):
        make_scenario("chess")


def test_items_are_close_in_embedding_space():
    """Near-duplicates sit above the default merge threshold with the default MiniLM
    embedder; memories of different items stay below it or state different values (which
    block a merge), so a merge can only join a group."""
    from memmaint.maintenance.agents.conflicts import extract, value_differences
    from memmaint.maintenance.core.config import EmbeddingConfig
    from memmaint.maintenance.embed import base as embeddings

    embedder = embeddings.get_embedder(EmbeddingConfig())
    threshold = AgentsConfig().merge_threshold
    for kind in ("support", "mtg"):
        scen = make_scenario(kind, seed=0, now=NOW, counts={"duplicate": 6 if kind == "support"
                                                            else 4, "control": 7})
        ids = [m.id for m in scen.memories]
        vecs = embedder.embed([m.text for m in scen.memories])
        sim = vecs @ vecs.T
        item = np.array([scen.expected[i].item for i in ids])
        for a, b in itertools.combinations(range(len(ids)), 2):
            if item[a] == item[b] and scen.expected[ids[a]].scenario_type == "duplicate":
                assert sim[a, b] >= threshold, (ids[a], ids[b], sim[a, b])
            elif item[a] != item[b] and sim[a, b] >= threshold:
                texts = [scen.memories[a].text, scen.memories[b].text]
                assert value_differences(extract(texts[0]), extract(texts[1])), (
                    ids[a], ids[b], sim[a, b])
        # memories of one item are each other's nearest neighbours more often than not
        same_item = [item[np.argsort(-sim[i])[1]] == item[i] for i in range(len(ids))
                     if (item == item[i]).sum() > 1]
        assert np.mean(same_item) > 0.8
