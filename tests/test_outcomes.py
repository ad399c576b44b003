"""The outcome model, its use by the agents and retrieval, feedback in, and the evaluation."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from memmaint.datasets.outcome_scenarios import load_outcome_scenarios
from memmaint.maintenance.agents.outcome_rules import group_outcome_siblings
from memmaint.maintenance.agents.rules import plan
from memmaint.maintenance.cli.main import main
from memmaint.maintenance.core.config import AgentsConfig, Config, RetrieveConfig
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.io import parse_csv, parse_jsonl
from memmaint.maintenance.core.outcomes import (
    Outcome,
    OutcomePrior,
    namespace_prior,
    outcome,
    prob_worse,
)
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.retrieve.search import Retriever
from memmaint.maintenance.store.sqlite import SQLiteStore

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)


def mem(id: str, s: int = 0, f: int = 0, text: str | None = None, **kw) -> Memory:
    return Memory(text=text or f"memory {id}", id=id, created_at=NOW - timedelta(days=5),
                  successes=s, failures=f, retrievals=s + f, **kw)


# -- the model ---------------------------------------------------------------------------

def test_posterior_means_with_a_neutral_prior():
    prior = OutcomePrior(1.0, 1.0)  # strength 2, base rate 0.5

    def m(s, f):
        return outcome(mem("x", s, f), prior, NOW, 180.0).mean

    assert m(0, 0) == pytest.approx(0.5)
    assert m(0, 1) == pytest.approx(1 / 3)  # one failure already counts
    assert m(1, 0) == pytest.approx(2 / 3)
    assert m(5, 0) == pytest.approx(6 / 7)
    assert m(5, 0) > m(1, 0)  # more evidence, more weight


def test_base_rate_is_one_vote_per_memory_plus_a_neutral_one():
    pool = [mem("a", 40, 0), mem("b", 0, 1), mem("c")]
    prior = namespace_prior(pool, NOW, strength=2.0, half_life_days=180.0)
    rate = (0.5 + 41 / 42 + 1 / 3) / 3
    assert prior.mean == pytest.approx(rate)
    assert namespace_prior([mem("z")], NOW, strength=2.0, half_life_days=180.0).mean == 0.5


def test_decay_halves_evidence_per_half_life():
    old = mem("old", 0, 8, last_used_at=NOW - timedelta(days=360))
    o = outcome(old, OutcomePrior(1, 1), NOW, 180.0)
    assert o.failures == pytest.approx(2.0) and o.successes == 0


def test_prob_worse_matches_monte_carlo():
    rng = np.random.default_rng(0)
    a, b = Outcome(0, 1, 1.2, 2.1), Outcome(5, 0, 6.2, 0.8)
    mc = np.mean(rng.beta(a.alpha, a.beta, 200_000) < rng.beta(b.alpha, b.beta, 200_000))
    assert prob_worse(a, b) == pytest.approx(mc, abs=0.005)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.2, 30), st.floats(0.2, 30), st.floats(0.2, 30), st.floats(0.2, 30))
def test_prob_worse_is_a_probability_and_complementary(a1, b1, a2, b2):
    x, y = Outcome(0, 0, a1, b1), Outcome(0, 0, a2, b2)
    p, q = prob_worse(x, y), prob_worse(y, x)
    assert 0.0 <= p <= 1.0 and p + q == pytest.approx(1.0, abs=2e-3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20), st.integers(0, 900)),
                min_size=1, max_size=8))
def test_retrieval_table_agrees_with_the_model(histories):
    pool = [mem(f"m{i}", s, f, last_used_at=NOW - timedelta(days=d))
            for i, (s, f, d) in enumerate(histories)]
    vecs = np.eye(len(pool), 8)[:, :8] if len(pool) <= 8 else None
    r = Retriever(pool, vecs, config=RetrieveConfig(lexical=False))
    expected, rate, evidence = r._outcomes.at(NOW)
    cfg = AgentsConfig()
    prior = namespace_prior(pool, NOW, strength=cfg.outcome_prior_strength,
                            half_life_days=cfg.outcome_half_life_days)
    assert rate == pytest.approx(np.full(len(pool), prior.mean))
    model = [outcome(m, prior, NOW, cfg.outcome_half_life_days) for m in pool]
    assert expected == pytest.approx([o.mean for o in model])
    assert evidence == pytest.approx([o.evidence for o in model])


# -- maintenance ---------------------------------------------------------------------------

def unit(*rows):
    v = np.asarray(rows, dtype=np.float64)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def decisions(the_plan):
    return {mid: a for _c, a in the_plan.actions() for mid in a.subjects}


def test_failed_advice_gives_way_to_a_sibling_that_helped():
    pool = [mem("good", 5, 0), mem("bad", 0, 1)]
    vecs = unit([1, 0.8, 0], [0.8, 1, 0])  # cosine 0.98: the same need
    got = decisions(plan(pool, [0, 0], vecs, AgentsConfig(), now=NOW))
    assert got["good"].type == "keep"
    assert got["bad"].type == "supersede" and got["bad"].new_id == "good"
    assert "0 successes, 1 failure" in got["bad"].reason and "5 successes" in got["bad"].reason


def test_one_failure_never_retires_the_only_memory_on_a_subject():
    pool = [mem("alone", 0, 1), mem("other", 5, 0)]
    vecs = unit([1, 0, 0], [0, 1, 0])  # unrelated: no sibling
    got = decisions(plan(pool, [-1, -1], vecs, AgentsConfig(), now=NOW))
    assert got["alone"].type == "keep"


def test_unrelated_success_is_no_sibling_and_mixed_records_stay():
    pool = [mem("good", 5, 0), mem("mixed", 3, 1), mem("unrelated", 0, 1)]
    vecs = unit([1, 0.2, 0], [0.5, 1, 0], [0, 0, 1])  # good~mixed 0.67: not duplicates
    got = decisions(plan(pool, [0, 0, 0], vecs, AgentsConfig(), now=NOW))
    assert {k: a.type for k, a in got.items()} == {"good": "keep", "mixed": "keep",
                                                    "unrelated": "keep"}


def test_siblings_are_grouped_before_planning():
    pool = [mem("good", 5, 0), mem("bad", 0, 1), mem("x"), mem("y")]
    vecs = unit([1, 0.7, 0, 0], [0.7, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0.9, 0.4])
    labels = np.array([-1, 3, 3, 3])
    out = group_outcome_siblings(pool, labels, vecs, AgentsConfig(), NOW,
                                 [np.arange(4)])
    assert out[0] == out[1] == 4 and list(out[2:]) == [3, 3]
    plain = [mem("a"), mem("b")]  # no history: nothing moves
    assert list(group_outcome_siblings(plain, np.array([-1, -1]), vecs[:2], AgentsConfig(),
                                       NOW, [np.arange(2)])) == [-1, -1]


# -- feedback in ---------------------------------------------------------------------------

@pytest.fixture
def db(tmp_path):
    path = tmp_path / "pool.db"
    with SQLiteStore(path) as store:
        store.add_memories([mem("a"), mem("b")])
    return path


def counts(db, mid):
    with SQLiteStore(db) as store:
        m = store.get_memories("default", [mid])[0]
    return m.retrievals, m.successes, m.failures


def test_feedback_one_and_batch(db, tmp_path):
    runner = CliRunner()
    res = runner.invoke(main, ["feedback", "a", "--success", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert counts(db, "a") == (1, 1, 0)
    batch = tmp_path / "fb.jsonl"
    batch.write_text('{"id": "a", "outcome": "failure"}\n{"id": "b", "outcome": "used"}\n')
    res = runner.invoke(main, ["feedback", "--from", str(batch), "--db", str(db)])
    assert res.exit_code == 0 and "recorded 2 outcomes" in res.output
    assert counts(db, "a") == (2, 1, 1) and counts(db, "b") == (1, 0, 0)


@pytest.mark.parametrize("lines,needle", [
    ('{"id": "a", "outcome": "success"}\n{"id": "nope", "outcome": "failure"}\n',
     "unknown memory ids: default/nope"),
    ('{"id": "a", "outcome": "great"}\n', "fb.jsonl:1: 'outcome' must be one of"),
    ('{"id": "a", "outcome": "success"}\nnot json\n', "fb.jsonl:2: not valid JSON"),
])
def test_bad_batches_change_nothing(db, tmp_path, lines, needle):
    batch = tmp_path / "fb.jsonl"
    batch.write_text(lines)
    res = CliRunner().invoke(main, ["feedback", "--from", str(batch), "--db", str(db)])
    assert res.exit_code == 2 and needle in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert counts(db, "a") == (0, 0, 0)


def test_feedback_needs_an_outcome(db):
    res = CliRunner().invoke(main, ["feedback", "a", "--db", str(db)])
    assert res.exit_code == 2 and "one of --success, --failure, --used" in res.output


def test_csv_and_jsonl_take_outcome_counts():
    rows = parse_csv(b"text,successes,failures,uses,team\nreset it,3,1,6,ops\n", "x.csv")
    m = rows[0].memory
    assert (m.successes, m.failures, m.retrievals) == (3, 1, 6)
    assert dict(m.metadata) == {"team": "ops"}
    (entry,) = parse_jsonl(b'{"text": "t", "successes": 2, "uses": 2}\n', "x.jsonl")
    assert entry.memory.retrievals == 2
    with pytest.raises(InputError, match="x.csv:2: failures 'many' is not a whole number"):
        parse_csv(b"text,failures\nt,many\n", "x.csv")
    with pytest.raises(InputError, match="uses 1 is less than successes"):
        parse_jsonl(b'{"text": "t", "successes": 2, "uses": 1}\n', "x.jsonl")


# -- the evaluation ------------------------------------------------------------------------

def test_scenarios_are_well_formed():
    scenarios = load_outcome_scenarios()
    assert len(scenarios) >= 30 and len({s.domain for s in scenarios}) >= 10
    histories = {(s.good.successes, s.good.failures, s.bad.successes, s.bad.failures)
                 for s in scenarios}
    assert (1, 0, 0, 1) in histories and len(histories) >= 6
    assert all(s.bad.failures > s.bad.successes and s.good.successes > s.good.failures
               for s in scenarios)


@pytest.mark.slow
def test_eval_outcomes_meets_its_claims(tmp_path):
    from memmaint.maintenance.evaluation.common import EvalCache
    from memmaint.maintenance.evaluation.outcomes import run_outcomes

    with EvalCache(tmp_path / "cache.db") as cache:
        report = run_outcomes([("default", Config())], cache)
    t = report.totals("default")
    assert t["bad_closer"] >= 27 and t["cosine_first"] <= 3  # the set is adversarial
    assert t["retrieve_first"] >= 27
    assert t["bad_retired"] >= 27 and t["after_first"] >= 27
    assert t["good_retired"] == 0
    assert json.loads(json.dumps(report.to_dict()))["default"]["totals"] == t


def test_a_sibling_that_supersedes_stays_active_even_when_stale():
    """An expired sibling is not evicted by evict_stale once another memory points to it
    (the plan would point at a memory that does not stay active)."""
    from memmaint.maintenance.plan.model import check_plan

    old = NOW - timedelta(days=30)
    pool = [Memory(text="price is 4 dollars", id="good", kind="price", created_at=old,
                   successes=5, retrievals=5),
            mem("bad", 0, 1)]
    vecs = unit([1, 0.8, 0], [0.8, 1, 0])
    the_plan = plan(pool, [0, 0], vecs, AgentsConfig(evict_stale=True), now=NOW)
    check_plan(the_plan)
    got = decisions(the_plan)
    assert got["bad"].type == "supersede" and got["good"].type == "keep"
