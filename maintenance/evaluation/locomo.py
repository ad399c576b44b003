"""LoCoMo evidence recall before and after maintenance (``memmaint eval locomo``).

The data (``../shared/data/locomo/locomo_dev5.json``, CC BY-NC 4.0, read in place, never
copied; or any file in the same format) holds long two-person conversations. For each
session it lists generated *observations*, each tied to the dialogue turns it came from
(``D<session>:<turn>``), and question items whose ``evidence`` lists the turns that answer
them.

The pool is the observations, one namespace per conversation, each memory created at its
session's date with ``metadata = {"dia_ids": [...], "session": n, "speaker": name}``. A merged
memory carries the union of its sources' ``dia_ids`` (the agents' ``merge_metadata``); a
superseded or evicted memory takes its ids out of the pool.

For every question with at least one evidence id (``re.findall(r"D\\d+:\\d+", ...)``, since
some evidence strings are malformed) we retrieve the top k memories of its conversation and
score **evidence recall@k**: the share of its evidence ids covered by the retrieved memories.
Which ids a memory covers is the *credit* rule:

- **honest** (:func:`covered_ids`, the measure every choice is made on): a memory that is not
  a merge covers its own ids; a merged memory covers the ids of each source whose content its
  surviving text covers (:func:`~memmaint.maintenance.agents.coverage.coverage`: every
  content word, number, name, date, negation and qualifier of the source is in the text), so
  a merge that dropped a fact loses that fact's evidence;
- **union** (:func:`memory_dia_ids`, an upper bound, reported and labelled as such): a merged
  memory covers every source's ids, whatever its text says.

Recall@k per memory rewards packing (one long merged text fills one slot), so the headline
measures (:mod:`~memmaint.maintenance.evaluation.budget`, issue #32) read the *text*: recall
within a fixed budget of whitespace tokens of retrieved text (``recall@100tok``,
``recall@200tok``; the memory that does not fit is cut and credited only with what its cut
text covers), the **text shrink** in tokens, and the temporal questions whose evidence an
active memory now carries under another date.

The baseline is a **control** run: the same pipeline (a store, the nightly job, read back,
scored with the honest credit) with maintenance off (a dry run: nothing applied). Retrieval is
:class:`~memmaint.maintenance.retrieve.search.Retriever` with the config's ``[retrieve]``
settings and the freshness gate off (observations have kind ``default``, which never
expires; the gate could only REFUSE, which recall would count as a miss).
"""

from __future__ import annotations

import json
import logging
import random
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.maintenance.agents.coverage import coverage
from memmaint.maintenance.agents.rules import MERGED_FROM_KEY
from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory, Status
from memmaint.maintenance.evaluation.budget import (
    TOKEN_BUDGETS,
    MovedDates,
    budget_recall,
    moved_dates,
    text_shrink,
    text_tokens,
)
from memmaint.maintenance.evaluation.common import EvalCache, format_table, maintain
from memmaint.maintenance.retrieve.search import Retriever

log = logging.getLogger(__name__)

LOCOMO_FILE = "locomo/locomo_dev5.json"
DIA_ID = re.compile(r"D\d+:\d+")
KS = (5, 10)
RECALL_LIMIT = 0.01  # the largest acceptable drop of evidence recall@10 (1 point)
AUDIT_SIZE = 30  # merges drawn at random (seeded) for the audit in the JSON report


@dataclass(frozen=True)
class Question:
    """One LoCoMo question with its evidence ids."""

    conversation: str
    index: int
    text: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    """One conversation's observation pool and questions."""

    sample_id: str
    memories: tuple[Memory, ...]
    questions: tuple[Question, ...]


def _session_time(text: str) -> datetime:
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(
            tzinfo=timezone.utc)
    except ValueError:
        raise InputError(f"unparseable LoCoMo session date {text!r}") from None


def load_locomo(path: str | Path, conversations: Sequence[str] | int | None = None
                ) -> list[Conversation]:
    """Read LoCoMo conversations as observation pools and questions.

    Args:
        path: ``locomo_dev5.json`` (or a data folder holding ``locomo/locomo_dev5.json``).
        conversations: sample ids to keep, or how many of the first ones (default: all).
    """
    p = Path(path)
    if p.is_dir():
        p = p / LOCOMO_FILE
    if not p.is_file():
        raise InputError(f"LoCoMo data not found at {p} (see ../shared/data/README.md)")
    try:
        samples = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{p}: cannot read LoCoMo JSON ({exc})") from None
    if isinstance(conversations, int):
        samples = samples[:conversations]
    elif conversations is not None:
        wanted = set(conversations)
        missing = wanted - {s.get("sample_id") for s in samples}
        if missing:
            raise InputError(f"no LoCoMo conversation(s) {', '.join(sorted(missing))} in {p}")
        samples = [s for s in samples if s.get("sample_id") in wanted]
    return [_conversation(s) for s in samples]


def _conversation(sample: Mapping[str, Any]) -> Conversation:
    sid = str(sample["sample_id"])
    conv = sample["conversation"]
    memories: list[Memory] = []
    for key, per_speaker in sample["observation"].items():
        m = re.fullmatch(r"session_(\d+)_observation", key)
        if not m:
            continue
        session = int(m.group(1))
        when = _session_time(conv[f"session_{session}_date_time"])
        n = 0
        for speaker, items in per_speaker.items():
            for text, ids in items:
                dia_ids = DIA_ID.findall(json.dumps(ids))
                n += 1
                memories.append(Memory(
                    text=str(text), id=f"{sid}-s{session}-{n}", namespace=sid,
                    created_at=when + timedelta(seconds=n), kind="default",
                    source=f"locomo:{sid}:session_{session}",
                    metadata={"dia_ids": dia_ids, "session": session, "speaker": speaker}))
    questions = []
    for i, qa in enumerate(sample["qa"]):
        evidence = tuple(dict.fromkeys(DIA_ID.findall(" ".join(map(str, qa.get("evidence")
                                                                    or [])))))
        questions.append(Question(sid, i, str(qa["question"]), int(qa.get("category", 0)),
                                  evidence))
    return Conversation(sid, tuple(memories), tuple(questions))


def memory_dia_ids(memory: Memory) -> set[str]:
    """The dialogue ids a memory carries (a merged memory: the union of its sources')."""
    raw = memory.metadata.get("dia_ids", [])
    return set(DIA_ID.findall(json.dumps(raw)))


def covered_sources(memory: Memory, sources: Mapping[str, Memory]) -> tuple[list[Memory],
                                                                            list[Memory]]:
    """A merged memory's sources (of ``sources``, the pool before maintenance) split into
    those its text covers and those it does not (``([], [])`` for a memory that is no merge).
    """
    kept: list[Memory] = []
    lost: list[Memory] = []
    for sid in memory.metadata.get(MERGED_FROM_KEY) or []:
        src = sources.get(sid)
        if src is not None:
            (kept if coverage(src.text, memory.text).covered else lost).append(src)
    return kept, lost


def covered_ids(sources: Mapping[str, Memory]) -> Callable[[Memory], set[str]]:
    """The honest credit: a merged memory covers only the ids of the sources it covers.

    ``sources`` maps id -> memory of the pool *before* maintenance. A memory that is not a
    merge covers its own ids; a merged memory (``merged_from`` in its metadata) covers the
    ids of the sources whose content its text covers (:func:`covered_sources`). Results are
    cached per memory id and text.
    """
    memo: dict[tuple[str, str], set[str]] = {}

    def ids_of(memory: Memory) -> set[str]:
        if not memory.metadata.get(MERGED_FROM_KEY):
            return memory_dia_ids(memory)
        key = (memory.id, memory.text)
        if key not in memo:
            kept, _lost = covered_sources(memory, sources)
            memo[key] = set().union(*(memory_dia_ids(m) for m in kept)) if kept else set()
        return memo[key]

    return ids_of


def evidence_recall(retrieved: Sequence[Memory], evidence: Sequence[str],
                    ids_of: Callable[[Memory], set[str]] = memory_dia_ids) -> float:
    """The share of ``evidence`` ids covered by the retrieved memories' ids.

    ``ids_of`` says which ids a memory covers (default: its ``dia_ids``, for a merged memory
    the union of its sources'; :func:`covered_ids` is the honest rule).
    """
    if not evidence:
        raise ValueError("a question without evidence has no recall")
    covered: set[str] = set()
    for m in retrieved:
        covered |= ids_of(m)
    return sum(1 for e in evidence if e in covered) / len(evidence)


def metric(k: int, *, tokens: bool = False) -> str:
    """The name of a recall figure: ``recall@10`` (per memory) or ``recall@100tok`` (the
    first 100 whitespace tokens of retrieved text, :func:`~.budget.budget_recall`)."""
    return f"recall@{k}tok" if tokens else f"recall@{k}"


@dataclass
class RecallTable:
    """Mean evidence recall overall and per category over the scored questions, keyed by
    :func:`metric` name."""

    n_questions: int
    overall: dict[str, float]
    by_category: dict[int, dict[str, float]]
    count_by_category: dict[int, int]
    per_question: list[dict[str, float]] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"n_questions": self.n_questions, "overall": dict(self.overall),
                "by_category": {str(c): {"questions": self.count_by_category[c], **r}
                                for c, r in sorted(self.by_category.items())}}


def _table(rows: list[dict[str, float]], cats: list[int], names: Sequence[str]) -> RecallTable:
    overall = {k: float(np.mean([r[k] for r in rows])) if rows else 0.0 for k in names}
    by_cat: dict[int, dict[str, float]] = {}
    counts: dict[int, int] = {}
    for c in sorted(set(cats)):
        sel = [r for r, cc in zip(rows, cats) if cc == c]
        counts[c] = len(sel)
        by_cat[c] = {k: float(np.mean([r[k] for r in sel])) for k in names}
    return RecallTable(len(rows), overall, by_cat, counts, rows)


def score_pool(conversations: Sequence[Conversation], active: Sequence[Memory],
               vectors: np.ndarray, question_vectors: Mapping[tuple[str, int], np.ndarray],
               config: Config, ks: Sequence[int] = KS,
               credits: Mapping[str, Callable[[Memory], set[str]]] | None = None, *,
               budgets: Sequence[int] = TOKEN_BUDGETS,
               sources: Mapping[str, Memory] | None = None) -> dict[str, RecallTable]:
    """Evidence recall of every question against the active pool of its conversation.

    Retrieves once per question (the whole conversation, in rank order) and scores it under
    each credit rule of ``credits`` (name -> ``ids_of``; default ``{"union":
    memory_dia_ids}``): recall@k for each of ``ks`` (per memory) and recall within each
    token budget of ``budgets`` (:func:`~.budget.budget_recall`: the text read in rank
    order until the budget is spent, the memory that does not fit cut, and a cut memory
    credited only with the ``sources`` its cut text covers; ``sources`` is the pool before
    maintenance, default ``active``).
    """
    credits = dict(credits or {"union": memory_dia_ids})
    src = dict(sources) if sources is not None else {m.id: m for m in active}
    names = [metric(k) for k in ks] + [metric(b, tokens=True) for b in budgets]
    by_ns: dict[str, list[int]] = {}
    for i, m in enumerate(active):
        by_ns.setdefault(m.namespace, []).append(i)
    rows: dict[str, list[dict[str, float]]] = {name: [] for name in credits}
    cats: list[int] = []
    for conv in conversations:
        idx = by_ns.get(conv.sample_id, [])
        rcfg = replace(config.retrieve, gate=False, k=max(1, len(idx), *ks))
        retriever = Retriever([active[i] for i in idx], vectors[idx] if idx else
                              np.zeros((0, vectors.shape[1])), config=rcfg)
        for q in conv.questions:
            if not q.evidence:
                continue
            got = retriever.search(q.text, query_vector=question_vectors[(q.conversation,
                                                                          q.index)])
            served = [r.memory for r in got]
            for name, ids_of in credits.items():
                row = {metric(k): evidence_recall(served[:k], q.evidence, ids_of) for k in ks}
                for b in budgets:
                    row[metric(b, tokens=True)] = budget_recall(served, q.evidence, b, ids_of,
                                                                src)
                rows[name].append(row)
            cats.append(q.category)
    return {name: _table(r, cats, names) for name, r in rows.items()}


@dataclass
class MergeAudit:
    """What the merges of one run did to their sources' content."""

    merges: int
    sources: int
    dropped: int  # sources whose content the merged text does not cover
    sample: list[dict[str, Any]]  # AUDIT_SIZE merges drawn with a fixed seed

    def to_dict(self) -> dict[str, Any]:
        return {"merges": self.merges, "sources": self.sources,
                "sources_not_covered": self.dropped, "sample": self.sample}


def audit_merges(active: Sequence[Memory], sources: Mapping[str, Memory], *,
                 size: int = AUDIT_SIZE, seed: int = 0) -> MergeAudit:
    """Every merged memory of ``active`` checked against its sources; ``size`` drawn at random
    (``random.Random(seed)``) with their texts, for reading by hand. Merges are ordered by
    their sources' ids, not their own (a merged memory's id is new in every run), so the same
    merges give the same sample in every run."""
    merged = sorted((m for m in active if m.metadata.get(MERGED_FROM_KEY)),
                    key=lambda m: (sorted(str(i) for i in m.metadata[MERGED_FROM_KEY]), m.text))
    rows = []
    n_sources = n_dropped = 0
    for m in merged:
        kept, lost = covered_sources(m, sources)
        n_sources += len(kept) + len(lost)
        n_dropped += len(lost)
        rows.append({"id": m.id, "result": m.text,
                     "sources": [{"id": s.id, "text": s.text, "covered": s in kept,
                                  "missing": list(coverage(s.text, m.text).missing)}
                                 for s in (kept + lost)],
                     "fact_dropped": bool(lost)})
    picked = sorted(random.Random(seed).sample(range(len(rows)), min(size, len(rows))))
    return MergeAudit(len(merged), n_sources, n_dropped, [rows[i] for i in picked])


@dataclass
class LocomoResult:
    """One configuration's run: pool sizes, and recall of the control and after maintenance.

    ``before`` is the control (the same pipeline, nothing applied; honest and union credit
    agree there, since nothing is merged); ``after`` credits merged memories honestly
    (:func:`covered_ids`), ``after_union`` with the union of their sources' ids (an upper
    bound). ``chars_*`` and ``tokens_*`` (whitespace tokens) measure the active pool's text;
    ``moved`` the temporal questions whose evidence moved to another date (the control
    moves none); ``budgets`` are the token budgets scored.
    """

    name: str
    config_hash: str
    pool_before: int
    pool_after: int
    before: RecallTable
    after: RecallTable
    after_union: RecallTable
    actions: dict[str, int]
    chars_before: int = 0
    chars_after: int = 0
    audit: MergeAudit | None = None
    tokens_before: int = 0
    tokens_after: int = 0
    moved: MovedDates | None = None
    budgets: tuple[int, ...] = TOKEN_BUDGETS

    @property
    def shrink(self) -> float:
        """The share of memories removed (fewer, longer memories count here)."""
        return 1.0 - self.pool_after / self.pool_before if self.pool_before else 0.0

    @property
    def text_shrink(self) -> float:
        """The share of whitespace tokens removed from the active text (issue #32)."""
        return text_shrink(self.tokens_before, self.tokens_after)

    def drop(self, k: int | str = 10, credit: str = "honest") -> float:
        """Recall of the control minus after (positive: maintenance lost evidence); ``k`` is
        a number of memories or a :func:`metric` name such as ``"recall@100tok"``."""
        after = self.after_union if credit == "union" else self.after
        key = k if isinstance(k, str) else metric(k)
        return self.before.overall[key] - after.overall[key]

    def within_limit(self, limit: float = RECALL_LIMIT) -> bool:
        """Recall@10 (honest credit) and the recall at every token budget down by at most
        ``limit`` (longer memories are no free pass)."""
        drops = [self.drop(10)] + [self.drop(metric(b, tokens=True)) for b in self.budgets]
        return max(drops) <= limit + 1e-12

    def targets(self) -> dict[str, bool]:
        """Issue #32's LoCoMo targets: the text shrinks, recall at each token budget is not
        below the control, and no temporal question's evidence moved to another date."""
        return {"text_shrink>0": self.text_shrink > 0,
                **{f"{metric(b, tokens=True)}>=control":
                   self.drop(metric(b, tokens=True)) <= 1e-12 for b in self.budgets},
                "no_temporal_evidence_moved": self.moved is not None and self.moved.moved == 0}

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "config_hash": self.config_hash,
                "pool_before": self.pool_before, "pool_after": self.pool_after,
                "shrink": self.shrink, "chars_before": self.chars_before,
                "chars_after": self.chars_after, "tokens_before": self.tokens_before,
                "tokens_after": self.tokens_after, "text_shrink": self.text_shrink,
                "token_budgets": list(self.budgets), "targets": self.targets(),
                "actions": self.actions, "recall_drop@10": self.drop(10),
                "within_limit": self.within_limit(),
                **{f"recall_drop@{b}tok": self.drop(metric(b, tokens=True))
                   for b in self.budgets},
                "recall_drop@10_union_upper_bound": self.drop(10, "union"),
                "temporal_moved": None if self.moved is None else self.moved.to_dict(),
                "control": self.before.to_dict(), "after": self.after.to_dict(),
                "after_union_upper_bound": self.after_union.to_dict(),
                "merge_audit": None if self.audit is None else self.audit.to_dict()}


@dataclass
class LocomoReport:
    """Every configuration's result, and the best one under the recall limit (honest)."""

    results: list[LocomoResult]
    conversations: list[str]
    limit: float = RECALL_LIMIT

    @property
    def best(self) -> LocomoResult | None:
        """The largest shrink :meth:`~LocomoResult.within_limit` (honest credit)."""
        ok = [r for r in self.results if r.within_limit(self.limit)]
        return max(ok, key=lambda r: (r.shrink, -r.drop(10))) if ok else None

    def to_dict(self) -> dict[str, Any]:
        best = self.best
        return {"suite": "locomo", "conversations": self.conversations,
                "recall_limit": self.limit, "credit": "honest (coverage of the merged text)",
                "token_unit": "whitespace tokens (str.split); the memory that does not fit "
                              "is cut",
                "best": None if best is None else best.name,
                "results": [r.to_dict() for r in self.results]}

    def format(self) -> str:
        """The headline table (control row first: recall at token budgets, text shrink,
        temporal evidence moved), the per-memory table, the per-category table of the first
        configuration against its control, and the best configuration."""
        budgets = self.results[0].budgets if self.results else TOKEN_BUDGETS
        toks = [metric(budget, tokens=True) for budget in budgets]
        head = ["config", "memories", "tokens", "text shrink"]
        for budget in budgets:
            head += [f"R@{budget} tok", f"dR@{budget} tok pt"]
        head += ["temporal moved", "temporal gone", "#32 targets"]
        rows: list[list[Any]] = []
        mem_rows: list[list[Any]] = []
        seen: set[int] = set()
        for r in self.results:
            b = r.before.overall
            if id(r.before) not in seen:
                seen.add(id(r.before))
                label = "control (maintenance off)" + ("" if len(seen) == 1 else
                                                       f" [{r.name}]")
                row: list[Any] = [label, r.pool_before, r.tokens_before, "0.0%"]
                for t in toks:
                    row += [b[t], _pts(0.0)]
                n = r.moved.questions if r.moved else 0
                rows.append(row + [f"0/{n}", f"0/{n}", "-"])
                mem_rows.append([label, r.pool_before, "0.0%", b["recall@5"], b["recall@10"],
                                 _pts(0.0), b["recall@10"], 0, 0, "-"])
            a = r.after.overall
            row = [r.name, r.pool_after, r.tokens_after, f"{100 * r.text_shrink:.1f}%"]
            for t in toks:
                row += [a[t], _pts(-r.drop(t))]
            mv = r.moved
            met = r.targets()
            rows.append(row + [f"{mv.moved}/{mv.questions}" if mv else "-",
                               f"{mv.gone}/{mv.questions}" if mv else "-",
                               f"{sum(met.values())}/{len(met)} met"])
            au = r.audit
            mem_rows.append([r.name, r.pool_after, f"{100 * r.shrink:.1f}%", a["recall@5"],
                             a["recall@10"], _pts(-r.drop(10)),
                             r.after_union.overall["recall@10"], au.sources if au else 0,
                             au.dropped if au else 0,
                             "yes" if r.within_limit(self.limit) else "no"])
        out = [format_table(head, rows)]
        out.append("\nper memory (recall@k credits a merged memory with every source its text "
                   "covers, whatever its length):")
        out.append(format_table(["config", "memories", "shrink", "R@5", "R@10", "dR@10 pt",
                                 "R@10 union (upper bound)", "merged sources", "not covered",
                                 "within limit"], mem_rows))
        if self.results:
            first = self.results[0]
            bc, ac = first.before.by_category, first.after.by_category
            cat_head = ["category", "questions"]
            for t in [*toks, "recall@10"]:
                short = t.replace("recall@", "R@").replace("tok", " tok")
                cat_head += [f"{short} control", f"{short} after"]
            cat_rows = [[c, first.before.count_by_category[c],
                         *[v for t in [*toks, "recall@10"] for v in (bc[c][t], ac[c][t])]]
                        for c in sorted(bc)]
            out.append(f"\nper question category ({first.name} against its control; 2 is "
                       "temporal):")
            out.append(format_table(cat_head, cat_rows))
        best = self.best
        out.append(f"\nlargest shrink with recall@10 and every token budget (honest credit) "
                   f"down <= {100 * self.limit:g} pt: "
                   + (f"{best.name} ({100 * best.shrink:.1f}% fewer memories, "
                      f"{_pts(-best.drop(10))} pt)" if best else "none"))
        out.append("(R@N tok: evidence in the first N whitespace tokens of retrieved text, the "
                   "memory that does not fit cut; temporal moved: temporal questions whose "
                   "evidence an active memory carries under another date; union: a merge "
                   "credited with all its sources' ids)")
        return "\n".join(out)


def _pts(x: float) -> str:
    return f"{100 * x + 0.0:+.2f}"


def control_pool(pool: Sequence[Memory], config: Config, cache: EvalCache, *,
                 now: datetime) -> list[Memory]:
    """The active pool after the same pipeline with maintenance off: a temporary store, the
    nightly job as a dry run (embed, reduce, cluster, plan; nothing applied), read back."""
    from memmaint.maintenance.job.run import run_job
    from memmaint.maintenance.store.sqlite import SQLiteStore

    with tempfile.TemporaryDirectory(prefix="memmaint-eval-") as tmp:
        store = SQLiteStore(Path(tmp) / "control.db")
        try:
            store.add_memories(list(pool))
            cache.seed_store(store, pool, config.embedding)
            run_job(store, config, force=True, dry_run=True, now=now)
            return list(store.iter_memories(statuses=[Status.ACTIVE]))
        finally:
            store.close()


def run_locomo(conversations: Sequence[Conversation], configs: Sequence[tuple[str, Config]],
               cache: EvalCache, ks: Sequence[int] = KS, limit: float = RECALL_LIMIT,
               audit_size: int = AUDIT_SIZE, audit_seed: int = 0,
               budgets: Sequence[int] = TOKEN_BUDGETS) -> LocomoReport:
    """Evidence recall of the control and after one maintenance run, for each configuration.

    Every configuration embeds with its own ``[embedding]`` section (through ``cache``); the
    control is run once per ``[embedding]`` and ``[retrieve]`` pair. The run's ``now`` is one
    day after the last session, so ages are the data's own. ``budgets``: the token budgets
    of retrieved text scored (whitespace tokens).
    """
    if not conversations:
        raise InputError("no LoCoMo conversations to evaluate")
    if not configs:
        raise InputError("no configuration to evaluate")
    if not budgets or min(budgets) < 1:
        raise InputError("token budgets must be >= 1")
    budgets = tuple(budgets)
    pool = [m for c in conversations for m in c.memories]
    sources = {m.id: m for m in pool}
    credits = {"honest": covered_ids(sources), "union": memory_dia_ids}
    questions = [q for c in conversations for q in c.questions if q.evidence]
    now = max(m.created_at for m in pool) + timedelta(days=1)
    results = []
    controls: dict[Any, tuple[RecallTable, list[Memory]]] = {}
    for name, config in configs:
        emb = config.embedding
        qvecs = cache.embed([q.text for q in questions], emb)
        qmap = {(q.conversation, q.index): v for q, v in zip(questions, qvecs)}
        key = (emb, config.retrieve)
        if key not in controls:
            log.info("locomo control: %d observations, maintenance off", len(pool))
            ctrl = control_pool(pool, config, cache, now=now)
            controls[key] = (score_pool(conversations, ctrl,
                                        cache.embed([m.text for m in ctrl], emb), qmap,
                                        config, ks, {"honest": credits["honest"]},
                                        budgets=budgets, sources=sources)["honest"], ctrl)
        before, ctrl = controls[key]
        log.info("locomo %s: maintaining %d observations", name, len(pool))
        done = maintain(pool, config, cache, now=now)
        after = score_pool(conversations, done.active,
                           cache.embed([m.text for m in done.active], emb), qmap, config, ks,
                           credits, budgets=budgets, sources=sources)
        actions: dict[str, int] = {}
        for action in done.actions.values():
            actions[action] = actions.get(action, 0) + 1
        result = LocomoResult(
            name, config.hash(), len(pool), len(done.active), before, after["honest"],
            after["union"], actions, chars_before=sum(len(m.text) for m in ctrl),
            chars_after=sum(len(m.text) for m in done.active),
            audit=audit_merges(done.active, sources, size=audit_size, seed=audit_seed),
            tokens_before=text_tokens(ctrl), tokens_after=text_tokens(done.active),
            moved=moved_dates(questions, pool, done.active), budgets=budgets)
        results.append(result)
        top = metric(max(budgets), tokens=True)
        log.info("locomo %s: pool %d -> %d, text %d -> %d tokens, %s %.4f -> %.4f, temporal "
                 "moved %d/%d", name, len(pool), len(done.active), result.tokens_before,
                 result.tokens_after, top, before.overall[top], result.after.overall[top],
                 result.moved.moved if result.moved else 0,
                 result.moved.questions if result.moved else 0)
    return LocomoReport(results, [c.sample_id for c in conversations], limit)
