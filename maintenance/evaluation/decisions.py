"""The decision set scored from what a user reads after a run (``memmaint eval decisions``).

:func:`run_decisions` puts a part of :mod:`memmaint.datasets.decisions` through the real
nightly job (a temporary SQLite store, the configured embedder, clustering and agents,
apply) and :func:`score_state` reads the store afterwards. The plan's labels are never
consulted: every active memory's text is cut into sentences, each sentence is looked up in
the set's labelled sentences (a sentence the set never wrote is counted as *unrecognised*
and states nothing), and the measures are facts about those texts:

- a fact is **stated** by an active memory when one of its sentences carries it; a memory
  states it **once** when exactly one of its sentences does. So concatenating two
  paraphrases keeps every fact (nothing lost) but states one twice (*repeated content*) and
  the group is not collapsed;
- **not collapsed**: a duplicate or refinement group whose facts are stated by more than one
  active memory (or by none);
- **false merge**: an active memory whose facts come from two units that must stay apart
  (two groups, or two memories of a ``distinct_related`` or ``unrelated`` group);
- **contradictions glued**: an active memory stating two facts no text may hold together
  (an update's old and new value, a contradiction's two values);
- **update missed**: an update group whose older value is still stated by an active memory;
- **fact lost**: a fact that must stay (all but an update's older value) that no active
  memory states;
- **dated fact moved**: an event without an absolute date in its sentence stated by an active
  memory dated another day than the event (the merged memory takes its newest source's date).

A group is **correct** when its type's outcome holds (see :func:`score_state`); the
contradictions' review flags are read from the run report (the store keeps no per-memory
flag), as a count against two per contradiction group.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memmaint.datasets.decisions import (
    GROUP_TYPES,
    DecisionGroup,
    DecisionSet,
    make_decision_set,
    norm,
    split_sentences,
)
from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.evaluation.common import EvalCache, format_table, maintain

log = logging.getLogger(__name__)

BUDGET_ROWS = (
    ("false_merges", "false merges (groups joined to another unit)"),
    ("contradictions_glued", "contradictions glued (two values in one text)"),
    ("not_collapsed", "paraphrase groups not collapsed"),
    ("repeated_content", "repeated content inside a memory"),
    ("updates_missed", "updates missed (older value still active)"),
    ("facts_lost", "facts lost"),
    ("wrong_retirements", "retired for another unit's memory"),
    ("dated_moved", "dated facts moved to another day"),
    ("unrecognised", "unrecognised sentences"),
)


@dataclass
class GroupResult:
    """One group's outcome: ``ok`` and, when not, what went wrong."""

    id: str
    type: str
    ok: bool
    problems: list[str] = field(default_factory=list)
    before: list[str] = field(default_factory=list)  # the group's texts
    after: list[str] = field(default_factory=list)  # active texts stating its facts

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "ok": self.ok, "problems": self.problems,
                "before": self.before, "after": self.after}


@dataclass
class Budget:
    """The error budget: each count with what it is counted out of."""

    counts: dict[str, int] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n


@dataclass
class DecisionScore:
    """One configuration on one part."""

    name: str
    part: str
    groups: list[GroupResult]
    budget: Budget
    flagged: int = 0
    expected_flags: int = 0
    memories: int = 0
    active_after: int = 0

    def per_type(self) -> dict[str, tuple[int, int]]:
        """type -> (correct groups, groups)."""
        out: dict[str, tuple[int, int]] = {}
        for t in GROUP_TYPES:
            sel = [g for g in self.groups if g.type == t]
            out[t] = (sum(g.ok for g in sel), len(sel))
        return out

    def share(self, types: Sequence[str]) -> float:
        sel = [g for g in self.groups if g.type in types]
        return sum(g.ok for g in sel) / len(sel) if sel else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "part": self.part, "memories": self.memories,
                "active_after": self.active_after,
                "per_type": {t: {"ok": ok, "groups": n} for t, (ok, n) in
                             self.per_type().items()},
                "duplicate_and_refinement_collapsed": self.share(("duplicate", "refinement")),
                "budget": {k: {"count": self.budget.counts.get(k, 0),
                               "of": self.budget.totals.get(k, 0)} for k, _ in BUDGET_ROWS},
                "conflict_flags": {"raised": self.flagged, "expected": self.expected_flags},
                "failures": [g.to_dict() for g in self.groups if not g.ok]}

    def format(self, failures: int = 0) -> str:
        out = [(f"config: {self.name} (part {self.part}: {len(self.groups)} groups, "
               f"{self.memories} memories, {self.active_after} active after the run)")]
        rows: list[list[Any]] = [[t, n, ok, f"{100 * ok / n:.0f}%" if n else "-"]
                                 for t, (ok, n) in self.per_type().items()]
        total = len(self.groups)
        good = sum(g.ok for g in self.groups)
        rows.append(["all", total, good, f"{100 * good / total:.0f}%" if total else "-"])
        out.append(format_table(["group type", "groups", "correct", "accuracy"], rows))
        out.append("")
        rows = []
        for key, label in BUDGET_ROWS:
            n, of = self.budget.counts.get(key, 0), self.budget.totals.get(key, 0)
            rows.append([label, n, of, f"{100 * n / of:.1f}%" if of else "-"])
        out.append(format_table(["error budget", "count", "out of", "share"], rows))
        out.append(f"false merges among groups that must stay apart (distinct_related, "
                   f"unrelated): {self.budget.counts.get('apart_hit', 0)} of "
                   f"{self.budget.totals.get('apart_hit', 0)}")
        out.append(f"CONFLICT flags raised: {self.flagged} (2 per contradiction group: "
                   f"{self.expected_flags})")
        shown = [g for g in self.groups if not g.ok][:failures]
        if shown:
            out.append("")
            out.append(f"first {len(shown)} failures:")
            for g in shown:
                out.append(f"- {g.id} ({g.type}): {'; '.join(g.problems)}")
                out += [f"    before: {t}" for t in g.before]
                out += [f"    after:  {t}" for t in g.after]
        return "\n".join(out)


@dataclass
class _Read:
    """What the active memories of the store state, sentence by sentence."""

    stated_by: dict[str, list[str]]  # fact -> ids of active memories stating it
    times: dict[str, dict[str, int]]  # memory id -> fact -> sentences stating it
    texts: dict[str, str]
    days: dict[str, Any]
    unrecognised: int


def _read(dset: DecisionSet, active: Sequence[Memory]) -> _Read:
    stated: dict[str, list[str]] = {}
    times: dict[str, dict[str, int]] = {}
    unknown = 0
    for m in active:
        key = f"{m.namespace}\x1f{m.id}"
        counts: dict[str, int] = {}
        for s in split_sentences(m.text):
            gold = dset.sentences.get((m.namespace, norm(s)))
            if gold is None:
                unknown += 1
                continue
            for f in gold.facts:
                counts[f] = counts.get(f, 0) + 1
        times[key] = counts
        for f in counts:
            stated.setdefault(f, []).append(key)
    return _Read(stated, times, {f"{m.namespace}\x1f{m.id}": m.text for m in active},
                 {f"{m.namespace}\x1f{m.id}": m.created_at.date() for m in active}, unknown)


def score_state(dset: DecisionSet, after: Sequence[Memory], *, name: str = "",
                flagged: int = 0) -> DecisionScore:
    """Score the store's memories after a run (``after``: every memory, any status).

    A group is correct when, in the active memories:

    - ``duplicate``: exactly one memory states the fact, once, and no other unit's fact;
    - ``refinement``: exactly one memory states any of its facts, and it states all of
      them, each once, and no other unit's fact;
    - ``update``: no memory states the older value; exactly one states the newer, once,
      without another unit's fact;
    - ``contradiction``: each value is stated by exactly one memory and no memory states both;
    - ``distinct_related`` and ``unrelated``: each memory's facts are stated by exactly one
      memory, once, with nothing from another unit;
    - ``temporal``: each event is stated by exactly one memory, once, none moved to another
      day, and with nothing from another group.
    """
    active = [m for m in after if m.is_active]
    read = _read(dset, active)
    units = dset.unit_of()
    fact_group = {f: g.id for g in dset.groups for f in g.facts}
    gold_day = {f: s for s in dset.sentences.values() for f in s.facts}
    budget = Budget()
    # texts joining two units; texts with two exclusive facts; repeated content
    exclusive = [ex for g in dset.groups for ex in g.exclusive]
    joined_groups: set[str] = set()
    for counts in read.times.values():
        us = {units[f] for f in counts if f in units}
        if len(us) > 1:
            joined_groups.update(fact_group[f] for f in counts)
        if any(len(ex & set(counts)) > 1 for ex in exclusive):
            budget.add("contradictions_glued")
        if any(n > 1 for n in counts.values()):
            budget.add("repeated_content")
    budget.totals["contradictions_glued"] = len(exclusive)
    budget.totals["repeated_content"] = len(active)
    budget.counts["unrecognised"] = read.unrecognised
    budget.totals["unrecognised"] = sum(len(split_sentences(m.text)) for m in active)
    budget.counts["false_merges"] = len(joined_groups)
    budget.totals["false_merges"] = len(dset.groups)
    apart = [g for g in dset.groups if g.apart]
    budget.counts["apart_hit"] = sum(g.id in joined_groups for g in apart)
    budget.totals["apart_hit"] = len(apart)
    by_id = {m.id: m for m in dset.memories}
    wrong = _wrong_retirements(dset, after)
    budget.counts["wrong_retirements"] = sum(len(v) for v in wrong.values())
    budget.totals["wrong_retirements"] = len(dset.memories)
    results: list[GroupResult] = []
    for g in dset.groups:
        problems = _group_problems(g, read, units, budget, gold_day, g.id in joined_groups)
        problems += [f"retired for another unit's memory: {mid} -> {to}"
                     for mid, to in wrong.get(g.id, [])]
        after_keys = sorted({k for f in g.facts for k in read.stated_by.get(f, [])})
        results.append(GroupResult(g.id, g.type, not problems, problems,
                                   [by_id[m].text for m in g.memory_ids],
                                   [read.texts[k] for k in after_keys]))
    budget.totals["not_collapsed"] = sum(g.type in ("duplicate", "refinement")
                                         for g in dset.groups)
    budget.totals["updates_missed"] = sum(g.type == "update" for g in dset.groups)
    budget.totals["facts_lost"] = sum(len(set(g.facts) - g.retired) for g in dset.groups)
    budget.totals["dated_moved"] = sum(1 for s in dset.sentences.values()
                                       if s.event and not s.self_dated)
    contradictions = sum(g.type == "contradiction" for g in dset.groups)
    return DecisionScore(name, dset.part, results, budget, flagged, 2 * contradictions,
                         len(dset.memories), len(active))


def _wrong_retirements(dset: DecisionSet, after: Sequence[Memory]) -> dict[str, list[tuple[str,
                                                                                     str]]]:
    """Per group, its memories retired in favour of a memory of the set from another unit
    (another group, or another memory of an ``apart`` group): ``[(id, replaced_by)]``. The
    facts may still be stated by a paraphrase that stayed, so *facts lost* would not see it;
    the user reads one memory retired for an unrelated one (a merged memory's sources are
    read by their text, as false merges)."""
    unit: dict[str, str] = {}
    for g in dset.groups:
        for mid in g.memory_ids:
            unit[mid] = f"{g.id}/{mid}" if g.apart else g.id
    group = {mid: g.id for g in dset.groups for mid in g.memory_ids}
    out: dict[str, list[tuple[str, str]]] = {}
    for m in after:
        to = m.replaced_by
        if not m.is_active and m.id in unit and to in unit and unit[to] != unit[m.id]:
            out.setdefault(group[m.id], []).append((m.id, to))
    return out


def _group_problems(g: DecisionGroup, read: _Read, units: Mapping[str, str], budget: Budget,
                    gold: Mapping[str, Any], joined: bool) -> list[str]:
    problems: list[str] = []
    needed = [f for f in g.facts if f not in g.retired]
    holders = {f: read.stated_by.get(f, []) for f in g.facts}
    for f in needed:
        if not holders[f]:
            problems.append(f"fact lost: {f}")
            budget.add("facts_lost")
    for f in g.facts:
        s = gold[f]
        if s.event and not s.self_dated and any(read.days[k] != s.day for k in holders[f]):
            problems.append(f"moved: {f} (event of {s.day})")
            budget.add("dated_moved")
    if joined:
        problems.append("joined to another unit")
    keys = sorted({k for f in g.facts for k in holders[f]})
    if any(len(set(read.times[k]) & ex) > 1 for k in keys for ex in g.exclusive):
        problems.append("two values in one text")
    if g.type in ("duplicate", "refinement"):
        if len(keys) != 1:
            problems.append(f"not collapsed: {len(keys)} active memories state it")
            budget.add("not_collapsed")
        elif any(read.times[keys[0]].get(f, 0) != 1 for f in g.facts):
            problems.append("repeated content" if any(read.times[keys[0]].get(f, 0) > 1
                                                      for f in g.facts) else
                            "a detail is missing")
    elif g.type == "update":
        if any(holders[f] for f in g.retired):
            problems.append("update missed: the older value is still active")
            budget.add("updates_missed")
        for f in needed:
            if len(holders[f]) > 1 or any(read.times[k][f] > 1 for k in holders[f]):
                problems.append(f"newer value stated more than once: {f}")
    else:
        for f in needed:
            if len(holders[f]) > 1 or any(read.times[k][f] > 1 for k in holders[f]):
                problems.append(f"stated more than once: {f}")
    return problems


@dataclass
class DecisionReport:
    """Every configuration's score on one part."""

    part: str
    scores: list[DecisionScore]

    def to_dict(self) -> dict[str, Any]:
        return {"suite": "decisions", "part": self.part,
                "results": [s.to_dict() for s in self.scores]}

    def format(self, failures: int = 0) -> str:
        return "\n\n".join(s.format(failures) for s in self.scores)


def run_decisions(configs: Sequence[tuple[str, Config]], cache: EvalCache, *,
                  part: str = "dev", pools: int | None = None) -> DecisionReport:
    """Maintain ``part`` of the decision set with each configuration and score the store
    (``pools``: only that many generated pools, for quick checks)."""
    if not configs:
        raise InputError("no configuration to evaluate")
    dset = make_decision_set(part) if pools is None else make_decision_set(part, pools=pools)
    scores = []
    for name, config in configs:
        done = maintain(dset.memories, config, cache, now=dset.now)
        primary = done.report.get("primary") or {}
        flagged = int((primary.get("flagged") or {}).get("CONFLICT", 0))
        scores.append(score_state(dset, done.memories, name=name, flagged=flagged))
        log.info("decisions %s: %s", name, scores[-1].per_type())
    return DecisionReport(part, scores)


__all__ = ["BUDGET_ROWS", "Budget", "DecisionReport", "DecisionScore", "GroupResult",
           "run_decisions", "score_state"]
