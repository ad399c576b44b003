"""Maintenance scenarios end to end (``memmaint eval scenarios``).

The labelled scenario pools of :func:`memmaint.datasets.scenarios.make_scenario` (duplicates,
changed facts such as the Pro plan going from $29 to $39, stale volatile facts, one-off noise,
contradictions, a prompt injection, controls) go through the real nightly job (embedding,
reduction, clustering, rule agents, apply). Two questions per configuration:

1. **Decisions**: per scenario type, the share of memories that got the expected action.
   Scenario expectations follow the config's ``evict_stale`` and ``evict_noise``. Two
   normalisations map what the store records onto the scenario's vocabulary: a conflict
   ``resolve`` counts as ``supersede`` (both retire the loser with a pointer to the winner),
   and in a merge the canonical source (the newest one, whose text and time the merged
   memory takes over) counts as ``keep``, the other sources as ``merge``.
2. **Retrieval of the current fact**: for every changed fact, contradiction and stale fact
   with a fresher replacement, the query is the *subject* (the words the old and the new
   statement share, e.g. "The Pro plan costs"), neutral between both values. We check
   whether the top-1 result is the current statement, and whether the outdated statement is
   still served in the top 5, before and after maintenance, with and without the read-time
   freshness gate.

Nothing here uses the scenario's topic labels: clustering is the configured one.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

import numpy as np

from memmaint.maintenance.agents.coverage import coverage
from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.evaluation.common import EvalCache, Maintained, format_table, maintain
from memmaint.maintenance.retrieve.search import Retriever

log = logging.getLogger(__name__)

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)
KINDS = ("support", "mtg")
SEEDS = (0, 1, 2)
RETRIEVAL_TYPES = ("changed_fact", "contradiction", "stale")
STAGES = ("before", "before_gate", "after", "after_gate")
PRO_PLAN_NEW = "The Pro plan costs $39/mo."


def subject_query(old: str, new: str) -> str:
    """The words of ``old`` that ``new`` also uses, in ``old``'s order (the shared subject)."""
    def norm(w: str) -> str:
        return re.sub(r"\W+", "", w.lower())

    shared = {norm(w) for w in new.split()}
    words = [w for w in old.split() if norm(w) and norm(w) in shared]
    return " ".join(words) if words else old


def effective_actions(done: Maintained) -> dict[str, str]:
    """memory id -> keep / merge / supersede / evict, normalised as the module doc says."""
    by_id = {m.id: m for m in done.memories}
    out: dict[str, str] = {}
    for (_ns, mid), action in done.actions.items():
        if action == "resolve":
            action = "supersede"
        if action == "merge":
            mem = by_id.get(mid)
            new = by_id.get(mem.replaced_by) if mem is not None and mem.replaced_by else None
            if (new is not None and mem is not None and coverage(mem.text, new.text).covered
                    and new.created_at == mem.created_at):
                action = "keep"
        out[mid] = action
    return out


@dataclass
class RetrievalCheck:
    """One changed / contradicted / stale item: does the current statement come first?"""

    kind: str
    seed: int
    item: str
    scenario_type: str
    query: str
    current: str  # text of the current statement
    wins: dict[str, bool] = field(default_factory=dict)  # stage -> top-1 is current
    outdated_served: dict[str, bool] = field(default_factory=dict)  # stage -> old in top 5
    top1: dict[str, str] = field(default_factory=dict)  # stage -> top-1 text (or REFUSE)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "seed": self.seed, "item": self.item,
                "scenario_type": self.scenario_type, "query": self.query,
                "current": self.current, "wins": self.wins,
                "outdated_in_top5": self.outdated_served, "top1": self.top1}


@dataclass
class ScenarioResult:
    """One configuration over every kind and seed."""

    name: str
    config_hash: str
    hits: dict[str, list[int]]  # scenario type -> [memories with the expected action, total]
    checks: list[RetrievalCheck]
    misses: list[dict[str, str]]

    def share(self, stype: str) -> float:
        ok, total = self.hits[stype]
        return ok / total if total else float("nan")

    def win_rate(self, stype: str | None, stage: str) -> float:
        sel = [c for c in self.checks if stype is None or c.scenario_type == stype]
        return sum(c.wins[stage] for c in sel) / len(sel) if sel else float("nan")

    def outdated_rate(self, stype: str | None, stage: str) -> float:
        sel = [c for c in self.checks if stype is None or c.scenario_type == stype]
        return sum(c.outdated_served[stage] for c in sel) / len(sel) if sel else float("nan")

    def pro_plan(self) -> dict[str, bool]:
        """Stage -> did "$39/mo" win in every support scenario (the headline check)."""
        sel = [c for c in self.checks if c.current == PRO_PLAN_NEW]
        return {s: bool(sel) and all(c.wins[s] for c in sel) for s in STAGES}

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "config_hash": self.config_hash,
                "expected_action_share": {t: {"share": self.share(t), "ok": ok, "total": n}
                                          for t, (ok, n) in self.hits.items()},
                "current_fact_top1": {t: {s: self.win_rate(t, s) for s in STAGES}
                                      for t in RETRIEVAL_TYPES},
                "outdated_in_top5": {t: {s: self.outdated_rate(t, s) for s in STAGES}
                                     for t in RETRIEVAL_TYPES},
                "pro_plan_39_wins": self.pro_plan(),
                "checks": [c.to_dict() for c in self.checks], "misses": self.misses}


@dataclass
class ScenarioReport:
    results: list[ScenarioResult]
    kinds: list[str]
    seeds: list[int]

    def to_dict(self) -> dict[str, Any]:
        return {"suite": "scenarios", "kinds": self.kinds, "seeds": self.seeds,
                "results": [r.to_dict() for r in self.results]}

    def format(self) -> str:
        out: list[str] = []
        for r in self.results:
            out.append(f"config: {r.name} (kinds {', '.join(self.kinds)}; seeds "
                       f"{', '.join(map(str, self.seeds))})")
            rows = [[t, n, ok, f"{100 * r.share(t):.0f}%"] for t, (ok, n) in r.hits.items() if n]
            out.append(format_table(["scenario type", "memories", "expected action",
                                     "share"], rows))
            rows = []
            for t in RETRIEVAL_TYPES:
                n = sum(1 for c in r.checks if c.scenario_type == t)
                if n:
                    rows.append([t, n, *(f"{100 * r.win_rate(t, s):.0f}%" for s in STAGES)])
            pro = r.pro_plan()
            rows.append(["$39 Pro plan", sum(1 for c in r.checks if c.current == PRO_PLAN_NEW),
                         *("yes" if pro[s] else "no" for s in STAGES)])
            out.append("\ncurrent fact ranked first for a subject query:")
            out.append(format_table(["item type", "items", "before", "before + gate",
                                     "after maint.", "after + gate"], rows))
            rows = []
            for t in RETRIEVAL_TYPES:
                n = sum(1 for c in r.checks if c.scenario_type == t)
                if n:
                    rows.append([t, n, *(f"{100 * r.outdated_rate(t, s):.0f}%"
                                         for s in STAGES)])
            out.append("\noutdated statement still served in the top 5:")
            out.append(format_table(["item type", "items", "before", "before + gate",
                                     "after maint.", "after + gate"], rows))
            out.append("")
        return "\n".join(out).rstrip()


def _top5(pool: Sequence[Memory], vectors: np.ndarray, query: str, qvec: np.ndarray,
          config: Config, gate: bool, now: datetime) -> list[Memory]:
    retriever = Retriever(pool, vectors, config=replace(config.retrieve, gate=gate, k=5),
                          ttl_days=config.agents.ttl_days)
    return [r.memory for r in retriever.search(query, query_vector=qvec, now=now)]


def _carries(memory: Memory, current: Memory) -> bool:
    """Whether ``memory`` is ``current`` or a merge that kept its text."""
    if memory.id == current.id:
        return True
    return current.id in (memory.metadata.get("merged_from") or []) and \
        memory.text == current.text


def run_scenarios(configs: Sequence[tuple[str, Config]], cache: EvalCache,
                  kinds: Sequence[str] = KINDS, seeds: Sequence[int] = SEEDS,
                  now: datetime = NOW) -> ScenarioReport:
    """Maintain every scenario pool with each configuration and score it (module doc)."""
    from memmaint.datasets.scenarios import SCENARIO_TYPES, make_scenario

    if not configs:
        raise InputError("no configuration to evaluate")
    results = []
    for name, config in configs:
        hits: dict[str, list[int]] = {t: [0, 0] for t in SCENARIO_TYPES}
        checks: list[RetrievalCheck] = []
        misses: list[dict[str, str]] = []
        for kind in kinds:
            for seed in seeds:
                scenario = make_scenario(kind=kind, seed=seed, now=now,
                                         evict_stale=config.agents.evict_stale,
                                         evict_noise=config.agents.evict_noise)
                done = maintain(scenario.memories, config, cache, now=scenario.now)
                got = effective_actions(done)
                for mid, exp in scenario.expected.items():
                    action = got.get(mid, "keep")
                    hits[exp.scenario_type][1] += 1
                    if action == exp.action:
                        hits[exp.scenario_type][0] += 1
                    else:
                        text = next(m.text for m in scenario.memories if m.id == mid)
                        misses.append({"kind": kind, "seed": str(seed), "id": mid,
                                       "scenario_type": exp.scenario_type,
                                       "expected": exp.action, "got": action,
                                       "text": text[:120]})
                checks += _retrieval_checks(scenario, done, config, cache, kind, seed)
        results.append(ScenarioResult(name, config.hash(), hits, checks, misses))
        log.info("scenarios %s: %s", name,
                 {t: f"{ok}/{n}" for t, (ok, n) in hits.items() if n})
    return ScenarioReport(results, list(kinds), list(seeds))


def _retrieval_checks(scenario: Any, done: Maintained, config: Config, cache: EvalCache,
                      kind: str, seed: int) -> list[RetrievalCheck]:
    by_id = {m.id: m for m in scenario.memories}
    pairs = []
    for item, ids in scenario.items.items():
        exps = {i: scenario.expected[i] for i in ids}
        stype = next(iter(exps.values())).scenario_type
        if stype not in RETRIEVAL_TYPES or len(ids) != 2:
            continue
        old = [i for i, e in exps.items() if e.action == "supersede"]
        new = [i for i, e in exps.items() if e.action == "keep"]
        if len(old) == 1 and len(new) == 1:
            pairs.append((item, stype, by_id[old[0]], by_id[new[0]]))
    if not pairs:
        return []
    emb = config.embedding
    queries = [subject_query(o.text, n.text) for _i, _t, o, n in pairs]
    qvecs = cache.embed(queries, emb)
    before = list(scenario.memories)
    before_vecs = cache.embed([m.text for m in before], emb)
    after_vecs = cache.embed([m.text for m in done.active], emb)
    out = []
    for (item, stype, old, new), query, qvec in zip(pairs, queries, qvecs):
        check = RetrievalCheck(kind, seed, item, stype, query, new.text)
        for stage, pool, vecs, gate in (("before", before, before_vecs, False),
                                        ("before_gate", before, before_vecs, True),
                                        ("after", done.active, after_vecs, False),
                                        ("after_gate", done.active, after_vecs, True)):
            top = _top5(pool, vecs, query, qvec, config, gate, scenario.now)
            check.wins[stage] = bool(top) and _carries(top[0], new)
            check.outdated_served[stage] = any(_carries(m, old) for m in top)
            check.top1[stage] = top[0].text if top else "REFUSE"
        out.append(check)
    return out

