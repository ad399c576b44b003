"""Stale growth: does a support agent still answer right as its memory fills with chatter?

A controlled experiment in the style of the published one (see ``docs/evaluation.md``): a
customer-support agent stores **ten answers** early (ten support facts from the
``memmaint.datasets`` support vocabulary, in their canonical wording), then keeps writing
**organisational noise** for a year, and we ask **ten questions** whose answers are known.

The noise stream (``noise_stream``), about 1.25 notes a day, is made of three parts:

- one-off office notes (the support vocabulary's noise grammar: printers, birthdays, parking),
  kind ``default``, never expiring;
- repeated organisational facts (the vocabulary's ``meeting``, ``it`` and ``catering``
  families, reworded observations of the same few subjects: standups, VPN certificate
  renewal, team lunch), their own kinds (``schedule``, ``reference``);
- volatile notices (:data:`NOTICES`) that are true for a few days and reposted while they
  last: "Heads up: your VPN certificate expires in 30 days", "refunds from the billing
  dashboard are paused until Friday", "sandbox API keys are being rotated today"... kind
  ``schedule`` (30-day TTL) or ``availability`` (7 days). They share words with the
  questions, which is what makes them dangerous.

The ten answers get importance 1.0 (the store default: a deliberately saved KB answer); the
chatter gets importances from the datasets' ``powerlaw`` distribution (median about 0.5).
No memory carries a topic label: the maintained path sees only text, time, kind and
importance. Ground truth (which memory answers which question) is used only to score.

At each pool size (10, 25, 50, 100, 200, 500 entries written) we measure, for the ten
questions: top-1 accuracy, top-5 relevance (share of the top five that are one of the ten
answers), hit@5, and mean top-5 similarity (the "confidence" that rises as accuracy falls), for

- **unbounded**: every entry ever written, plain retrieval (no gate);
- **gate only**: every entry, with the read-time freshness gate;
- **maintained**: the pool after nightly maintenance (one run per size, on the same store, so
  later runs see what earlier runs did), plain retrieval;
- **maintained + gate**: the maintained pool with the freshness gate.
- **maintained + routing** (and **+ gate**): the maintained pool searched with topic routing
  (:mod:`memmaint.maintenance.retrieve.routing`): only the clusters of the last run nearest each
  question, plus memories no cluster holds, are scored (``[retrieve] route_*`` settings).

A question refused by the gate counts as wrong (and adds nothing to relevance). With
``agents.max_active`` set, the maintenance runs also archive down to that cap
(:mod:`memmaint.maintenance.agents.cap`) and the results count how many answers stay active.

With ``feedback`` the agent's use of its memory is recorded as a deployment records it
(:func:`~memmaint.maintenance.retrieve.search.record_feedback`): after the questions at each size,
the memory the maintained pool served first for each question counts one retrieval, a
success when it answers the question (the customer's problem was solved) and a failure when
it does not. Later maintenance runs see those outcome counts (outcome scores, the cap's
``outcome`` part, protection by a proven outcome), as a nightly job sees the day's usage.
The questions repeat at every size, as a support desk's do; without ``feedback`` (the
default, the published experiment) every memory's outcome is unknown.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np

from memmaint.maintenance.agents.coverage import coverage
from memmaint.maintenance.core.config import Config, with_overrides
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.evaluation.common import EvalCache, format_table, maintain
from memmaint.maintenance.retrieve.routing import Routing, routing_from_report
from memmaint.maintenance.retrieve.search import Retriever, record_feedback

log = logging.getLogger(__name__)

SIZES = (10, 25, 50, 100, 200, 500)
START = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)
NOTES_PER_DAY = 1.25
NAMESPACE = "support-agent"
VARIANTS = ("unbounded", "gate_only", "maintained", "maintained_gate", "maintained_routed",
            "maintained_gate_routed")

#: (family, subject key slot -> value, question). The answer is the family's canonical text.
RELEVANT: tuple[tuple[str, dict[str, str], str], ...] = (
    ("token_ttl", {"token": "password reset links"},
     ("A customer says the link in their password reset email doesn't work any more. How "
     "long is it valid and what should they do?")),
    ("token_ttl", {"token": "one-time 2FA codes"},
     ("The SMS login code a user received stopped working after a few minutes. Is that "
     "expected?")),
    ("refund", {"product": "annual plans"},
     "Can a customer get their money back for a yearly subscription, and until when?"),
    ("payment_retry", {"method": "card payments"},
     "A customer's card was declined at renewal. Will we try to charge it again?"),
    ("settlement", {"method": "SEPA Direct Debit"},
     "How long until money from SEPA debits reaches the merchant's account?"),
    ("webhook", {"event": "invoice.paid"},
     "Our server was down for a day. Will the invoice.paid notifications be delivered again?"),
    ("rate_limit", {"endpoint": "/v1/charges", "unit": "second"},
     "Why does the charges API answer 429 Too Many Requests, and how fast may we call it?"),
    ("account_op", {"op": "account deletion"},
     "How long does it take to close a customer's account for good?"),
    ("account_op", {"op": "2FA resets"},
     "A user lost their phone and can't get past two-factor login. How do we restore access?"),
    ("escalation", {"issue": "double charges", "team": "Tier 2"},
     "A customer was billed twice for the same invoice. Who do I hand this to?"),
)

#: Volatile notices: (kind, template). Rendered with the support vocabulary's fillers.
NOTICES: tuple[tuple[str, str], ...] = (
    ("schedule", ("[Heads up|Reminder|FYI]: your VPN certificate expires in [30|14|7] days"
                 "[, renew it from the IT portal|; renew it before it lapses|]")),
    ("availability", ("The password manager is down for maintenance [tonight|until {day}]; "
                     "shared logins won't work [until then|meanwhile]")),
    ("availability", ("Refunds from the billing dashboard are paused until {day} while "
                     "Finance closes the [month|quarter]")),
    ("availability", "Sandbox API keys are being rotated today; expect 401 errors in test mode"),
    ("availability", ("The SMS provider is [slow|having delays] today, so login codes may "
                     "arrive late")),
    ("schedule", "Security training on phishing and password hygiene is due by {day}"),
    ("availability", "The webhook settings page is read-only during the migration on {day}"),
    ("schedule", "{colleague} covers the billing inbox until {day}"),
    ("availability", "Zendesk is slow today; save long replies as drafts first"),
    ("schedule", "Expense claims for {month} must be submitted by {day}"),
    ("availability", "The card terminal in the canteen is out of order [today|until {day}]"),
    ("schedule", "The {meeting} moves to {day} at {time} this week"),
)
ORG_FAMILIES = ("meeting", "it", "catering")
MIX = (0.4, 0.25, 0.35)  # one-off notes, organisational facts, volatile notices


def maintenance_config() -> Config:
    """The suite's reference maintenance config: the defaults plus stale and noise eviction.

    The project defaults are conservative (``evict_stale`` and ``evict_noise`` off: only
    merges and supersedes); a pool that grows with chatter needs both on.
    """
    return with_overrides(Config(), {"agents.evict_stale": True, "agents.evict_noise": True})


@dataclass(frozen=True)
class Stream:
    """The time-ordered memories (answers first) and the ground truth for scoring."""

    memories: tuple[Memory, ...]
    questions: tuple[str, ...]
    answers: tuple[str, ...]  # answer memory id per question


def _find_subject(family: Any, wanted: dict[str, str]) -> dict[str, Any]:
    from memmaint.datasets.grammar import surface

    for subject in family.subjects():
        if all(surface(subject[k], None) == v for k, v in wanted.items()):
            return subject
    raise InputError(f"no {family.name} subject {wanted} in the support vocabulary")


def build_stream(size: int, seed: int = 0, start: datetime = START) -> Stream:
    """The first ``size`` memories of the support agent's pool (see the module docstring).

    For one seed a smaller pool is a prefix of a larger one.
    """
    from memmaint.datasets.grammar import latent_text, observe, render, sentence
    from memmaint.datasets.pools import draw_weights, get_vocabulary

    if size < len(RELEVANT):
        raise InputError(f"the pool needs at least {len(RELEVANT)} entries (the answers)")
    vocab = get_vocabulary("support")
    families = {f.name: f for f in vocab.families}
    rng = np.random.default_rng(seed)
    memories: list[Memory] = []
    questions: list[str] = []
    answers: list[str] = []
    for i, (fname, wanted, question) in enumerate(RELEVANT):
        family = families[fname]
        text = latent_text(family, _find_subject(family, wanted))
        mid = f"answer-{i:02d}"
        memories.append(Memory(text=text, id=mid, namespace=NAMESPACE,
                               created_at=start + timedelta(hours=6 * i), kind=family.kind,
                               importance=1.0, source="stale-growth"))
        questions.append(question)
        answers.append(mid)

    n_noise = size - len(RELEVANT)
    fillers: dict[str, Any] = dict(vocab.noise_fillers)
    from memmaint.datasets.vocab_support import MEETINGS

    fillers["meeting"] = MEETINGS
    org = [(families[f], s) for f in ORG_FAMILIES for s in families[f].subjects()]
    when = start + timedelta(days=3)
    for j in range(n_noise):
        when += timedelta(days=float(rng.exponential(1.0 / NOTES_PER_DAY)))
        part = int(rng.choice(3, p=MIX))
        if part == 0:
            template = str(vocab.noise[int(rng.integers(len(vocab.noise)))])
            text, kind = sentence(render(template, fillers, rng)), vocab.noise_kind
        elif part == 1:
            family, subject = org[int(rng.integers(len(org)))]
            text, kind = observe(family, subject, 1, vocab.style, rng)[0], family.kind
        else:
            kind, template = NOTICES[int(rng.integers(len(NOTICES)))]
            text = sentence(render(template, fillers, rng))
        weight = draw_weights(1, "powerlaw", rng)[0]  # per note: a pool is a prefix of a larger
        memories.append(Memory(text=text, id=f"note-{j:04d}", namespace=NAMESPACE,
                               created_at=when, kind=kind,
                               importance=round(float(weight), 3), source="stale-growth"))
    return Stream(tuple(memories), tuple(questions), tuple(answers))


@dataclass
class VariantScore:
    """The ten questions against one pool variant."""

    pool: int
    top1: float
    relevance5: float
    hit5: float
    mean_sim5: float
    refused: int
    top1_ids: list[str] = field(default_factory=list)
    #: with routing: per question, what was routed (``RouteDecision.to_dict()``)
    routes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def mean_scored(self) -> float | None:
        """Mean number of memories scored per question (routing only)."""
        return float(np.mean([r["candidates"] for r in self.routes])) if self.routes else None

    def to_dict(self) -> dict[str, Any]:
        out = {"pool": self.pool, "top1_accuracy": self.top1, "top5_relevance": self.relevance5,
               "hit@5": self.hit5, "mean_top5_similarity": self.mean_sim5,
               "refused": self.refused, "top1_ids": self.top1_ids}
        if self.routes:
            out["mean_scored"] = self.mean_scored
            out["routes"] = self.routes
        return out


def _carries(memory: Memory, answer: Memory) -> bool:
    """Whether ``memory`` is the answer, or a merge of it whose text covers the answer's
    content (:func:`~memmaint.maintenance.agents.coverage.coverage`, the LoCoMo suite's
    honest credit): a composed merge that appended another note still answers."""
    if memory.id == answer.id:
        return True
    if answer.id not in (memory.metadata.get("merged_from") or []):
        return False
    return memory.text == answer.text or coverage(answer.text, memory.text).covered


def score_variant(pool: Sequence[Memory], vectors: np.ndarray, stream: Stream,
                  qvecs: np.ndarray, config: Config, gate: bool, now: datetime,
                  routing: Any = None) -> VariantScore:
    """Top-1 accuracy, top-5 relevance, hit@5 and mean top-5 similarity of the questions
    (searched with topic routing when ``routing``, the last run's tables, is given)."""
    rcfg = replace(config.retrieve, gate=gate, k=5)
    retriever = Retriever(pool, vectors, config=rcfg, ttl_days=config.agents.ttl_days,
                          routing=routing)
    routes: list[dict[str, Any]] = []
    by_id = {m.id: m for m in stream.memories}
    answers = [by_id[a] for a in stream.answers]
    top1 = rel = hit = 0
    sims: list[float] = []
    refused = 0
    ids: list[str] = []
    for q, qv, answer in zip(stream.questions, qvecs, answers):
        got = retriever.search(q, query_vector=qv, now=now, route=routing is not None)
        if got.route is not None:
            routes.append(got.route.to_dict())
        if got.refused:
            refused += 1
            ids.append("REFUSE")
            continue
        served = [r.memory for r in got]
        ids.append(served[0].id)
        top1 += _carries(served[0], answer)
        hit += any(_carries(m, answer) for m in served)
        rel += sum(1 for m in served if any(_carries(m, a) for a in answers))
        sims.append(float(np.mean([r.similarity for r in got])))
    n = len(stream.questions)
    return VariantScore(retriever.pool_size, top1 / n, rel / (5 * n), hit / n,
                        float(np.mean(sims)) if sims else float("nan"), refused, ids, routes)


@dataclass
class SizeResult:
    size: int
    now: datetime
    scores: dict[str, VariantScore]
    actions: dict[str, int]
    answers_active: int = -1  # answers still active (kept or carried by a merge)
    cap: list[dict[str, Any]] = field(default_factory=list)  # what the cap archived
    #: with feedback: (memory id, success) recorded after this size's questions
    usage: list[tuple[str, bool]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"size": self.size, "now": self.now.isoformat(), "actions": self.actions,
                "answers_active": self.answers_active, "cap": self.cap,
                "usage": [{"memory_id": m, "success": ok} for m, ok in self.usage],
                **{v: s.to_dict() for v, s in self.scores.items()}}


@dataclass
class StaleGrowthResult:
    name: str
    config_hash: str
    sizes: list[SizeResult]
    max_active: int | None = None
    feedback: bool = False

    def holds(self) -> dict[str, bool]:
        """The claims: maintained top-1 >= unbounded at every size >= 100; >= 60% at 500."""
        big = [s for s in self.sizes if s.size >= 100]
        at500 = [s for s in self.sizes if s.size == 500]
        return {
            "maintained_ge_unbounded_from_100": all(
                s.scores["maintained"].top1 >= s.scores["unbounded"].top1 for s in big),
            "maintained_gate_ge_unbounded_from_100": all(
                s.scores["maintained_gate"].top1 >= s.scores["unbounded"].top1 for s in big),
            "maintained_ge_60pct_at_500": bool(at500) and
            at500[0].scores["maintained"].top1 >= 0.6,
            "maintained_gate_ge_60pct_at_500": bool(at500) and
            at500[0].scores["maintained_gate"].top1 >= 0.6,
        }

    def mechanism_claims(self) -> dict[str, bool]:
        """Routing beats maintenance alone at 200 and 500 entries (top-1 and top-5 relevance,
        strictly); with ``agents.max_active``, all ten answers are still active at 500."""
        at500 = [s for s in self.sizes if s.size == 500]
        mid = [s for s in self.sizes if s.size in (200, 500)]
        out = {
            "routed_top1_beats_maintained_at_200_500": bool(mid) and all(
                s.scores["maintained_routed"].top1 > s.scores["maintained"].top1 for s in mid),
            "routed_rel5_beats_maintained_at_200_500": bool(mid) and all(
                s.scores["maintained_routed"].relevance5 > s.scores["maintained"].relevance5
                for s in mid),
        }
        if self.max_active is not None:
            out["cap_keeps_all_answers_at_500"] = bool(at500) and (
                at500[0].answers_active == len(RELEVANT))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "config_hash": self.config_hash, "claims": self.holds(),
                "mechanism_claims": self.mechanism_claims(), "max_active": self.max_active,
                "feedback": self.feedback, "sizes": [s.to_dict() for s in self.sizes]}


@dataclass
class StaleGrowthReport:
    results: list[StaleGrowthResult]
    seed: int

    def to_dict(self) -> dict[str, Any]:
        return {"suite": "stale-growth", "seed": self.seed,
                "results": [r.to_dict() for r in self.results]}

    def format(self) -> str:
        out: list[str] = []
        for r in self.results:
            rows = []
            for s in r.sizes:
                sc = s.scores
                rows.append([s.size, sc["maintained"].pool,
                             *(f"{100 * sc[v].top1:.0f}%" for v in VARIANTS),
                             *(sc[v].relevance5 for v in ("unbounded", "maintained",
                                                          "maintained_gate",
                                                          "maintained_routed")),
                             sc["maintained_routed"].mean_scored or 0.0, s.answers_active,
                             *(sc[v].mean_sim5 for v in ("unbounded", "maintained",
                                                         "maintained_gate")),
                             sc["maintained_gate"].refused])
            out.append(f"config: {r.name}" + (" (usage fed back after each size's questions)"
                                              if r.feedback else ""))
            out.append(format_table(
                ["entries", "active after maint.", "top-1 unbounded", "top-1 gate only",
                 "top-1 maintained", "top-1 maint.+gate", "top-1 maint.+routing",
                 "top-1 maint.+gate+routing", "rel@5 unbounded",
                 "rel@5 maintained", "rel@5 maint.+gate", "rel@5 maint.+routing",
                 "scored (routing)", "answers active", "sim@5 unbounded",
                 "sim@5 maintained", "sim@5 maint.+gate", "refused (m.+g.)"], rows))
            claims = r.holds()
            out.append("claims: " + ", ".join(f"{k} {'yes' if v else 'NO'}"
                                              for k, v in claims.items()))
            out.append("routing and cap: " + ", ".join(
                f"{k} {'yes' if v else 'NO'}" for k, v in r.mechanism_claims().items()) + "\n")
        return "\n".join(out).rstrip()


def run_stale_growth(configs: Sequence[tuple[str, Config]], cache: EvalCache,
                     sizes: Sequence[int] = SIZES, seed: int = 0,
                     feedback: bool = False) -> StaleGrowthReport:
    """Grow the pool through ``sizes``; at each, maintain (same store) and score the variants.

    With ``feedback``, the outcome of each question's first served memory (maintained pool,
    plain retrieval) is recorded on the store after each size (module docstring).
    """
    from memmaint.maintenance.store.sqlite import SQLiteStore

    sizes = sorted({int(s) for s in sizes})
    if not sizes or sizes[0] < len(RELEVANT):
        raise InputError(f"pool sizes must be >= {len(RELEVANT)} (the ten answers), got "
                         f"{list(sizes)}")
    if not configs:
        raise InputError("no configuration to evaluate")
    stream = build_stream(sizes[-1], seed)
    results = []
    import tempfile
    from pathlib import Path

    for name, config in configs:
        emb = config.embedding
        qvecs = cache.embed(list(stream.questions), emb)
        per_size: list[SizeResult] = []
        with tempfile.TemporaryDirectory(prefix="memmaint-stale-") as tmp:
            store = SQLiteStore(Path(tmp) / "pool.db")
            try:
                written = 0
                for size in sizes:
                    batch = list(stream.memories[written:size])
                    written = size
                    everything = list(stream.memories[:size])
                    now = everything[-1].created_at + timedelta(hours=1)
                    done = maintain(batch, config, cache, now=now, store=store)
                    actions: dict[str, int] = {}
                    for a in done.actions.values():
                        actions[a] = actions.get(a, 0) + 1
                    all_vecs = cache.embed([m.text for m in everything], emb)
                    act_vecs = cache.embed([m.text for m in done.active], emb)
                    routing = routing_from_report(done.report) or Routing()
                    scores = {
                        "unbounded": score_variant(everything, all_vecs, stream, qvecs, config,
                                                   False, now),
                        "gate_only": score_variant(everything, all_vecs, stream, qvecs, config,
                                                   True, now),
                        "maintained": score_variant(done.active, act_vecs, stream, qvecs,
                                                    config, False, now),
                        "maintained_gate": score_variant(done.active, act_vecs, stream, qvecs,
                                                         config, True, now),
                        "maintained_routed": score_variant(done.active, act_vecs, stream,
                                                           qvecs, config, False, now, routing),
                        "maintained_gate_routed": score_variant(
                            done.active, act_vecs, stream, qvecs, config, True, now, routing),
                    }
                    by_id = {m.id: m for m in stream.memories}
                    alive = sum(1 for a in stream.answers
                                if any(_carries(m, by_id[a]) for m in done.active))
                    primary = done.report.get("primary") or {}
                    usage = (record_outcomes(store, done.active, stream,
                                             scores["maintained"].top1_ids)
                             if feedback else [])
                    per_size.append(SizeResult(size, now, scores, actions, alive,
                                               list(primary.get("cap") or []), usage))
                    log.info("stale-growth %s: %d entries, %d active; top-1 %s", name, size,
                             len(done.active), {k: round(v.top1, 2) for k, v in scores.items()})
            finally:
                store.close()
        results.append(StaleGrowthResult(name, config.hash(), per_size,
                                         config.agents.max_active, feedback))
    return StaleGrowthReport(results, seed)


def record_outcomes(store: Any, active: Sequence[Memory], stream: Stream,
                    served_first: Sequence[str]) -> list[tuple[str, bool]]:
    """Record on ``store`` the outcome of the memory served first for each question
    (``served_first``, aligned with ``stream.questions``; ``"REFUSE"`` records nothing):
    one retrieval, a success when it answers the question. Returns what was recorded."""
    by_id = {m.id: m for m in active}
    stream_by_id = {m.id: m for m in stream.memories}
    recorded = []
    for memory_id, answer_id in zip(served_first, stream.answers):
        memory = by_id.get(memory_id)
        if memory is None:
            continue
        success = _carries(memory, stream_by_id[answer_id])
        record_feedback(store, memory, success)  # what a deployed agent calls
        recorded.append((memory.id, success))
    return recorded
