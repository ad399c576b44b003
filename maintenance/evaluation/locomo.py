"""LoCoMo evidence recall before and after maintenance (``memmaint eval locomo``).

The data (``../shared/data/locomo/locomo_dev5.json``, CC BY-NC 4.0, read in place, never
copied) holds long two-person conversations. For each session it lists generated
*observations*, each tied to the dialogue turns it came from (``D<session>:<turn>``), and
question items whose ``evidence`` lists the turns that answer them.

The pool is the observations, one namespace per conversation, each memory created at its
session's date with ``metadata = {"dia_ids": [...], "session": n, "speaker": name}``. A merged
memory carries the union of its sources' ``dia_ids`` (the agents' ``merge_metadata``), so
merging loses no evidence; a superseded or evicted memory takes its ids out of the pool.

For every question with at least one evidence id (``re.findall(r"D\\d+:\\d+", ...)``, since
some evidence strings are malformed) we retrieve the top k memories of its conversation and
score **evidence recall@k**: the share of its evidence ids covered by the retrieved memories'
``dia_ids``. Retrieval is :class:`~memmaint.maintenance.retrieve.search.Retriever` with the config's
``[retrieve]`` settings and the freshness gate off (observations have kind ``default``, which
never expires; the gate could only REFUSE, which recall would count as a miss).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.maintenance.agents.rules import MERGED_FROM_KEY
from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.evaluation.common import EvalCache, format_table, maintain
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.retrieve.search import Retriever

log = logging.getLogger(__name__)

LOCOMO_FILE = "locomo/locomo_dev5.json"
DIA_ID = re.compile(r"D\d+:\d+")
KS = (5, 10)
RECALL_LIMIT = 0.01  # the largest acceptable drop of evidence recall@10 (1 point)


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


def kept_text_ids(sources: Mapping[str, Memory]) -> Callable[[Memory], set[str]]:
    """The strict credit: a merged memory covers only the ids of sources whose text it kept.

    ``sources`` maps id -> memory of the pool *before* maintenance. A memory that is not a
    merge covers its own ids; a merged memory covers the ids of the sources (in its
    ``merged_from``) whose whitespace- and case-normalised text equals its own (the canonical
    source and exact repeats). This is a lower bound: it treats every reworded source as lost.
    """

    def norm(text: str) -> str:
        return " ".join(text.lower().split())

    def ids_of(memory: Memory) -> set[str]:
        merged_from = memory.metadata.get(MERGED_FROM_KEY)
        if not merged_from:
            return memory_dia_ids(memory)
        kept = norm(memory.text)
        out: set[str] = set()
        for sid in merged_from:
            src = sources.get(sid)
            if src is not None and norm(src.text) == kept:
                out |= memory_dia_ids(src)
        return out

    return ids_of


def evidence_recall(retrieved: Sequence[Memory], evidence: Sequence[str],
                    ids_of: Callable[[Memory], set[str]] = memory_dia_ids) -> float:
    """The share of ``evidence`` ids covered by the retrieved memories' ids.

    ``ids_of`` says which ids a memory covers (default: its ``dia_ids``, for a merged memory
    the union of its sources'; :func:`kept_text_ids` is the strict alternative).
    """
    if not evidence:
        raise ValueError("a question without evidence has no recall")
    covered: set[str] = set()
    for m in retrieved:
        covered |= ids_of(m)
    return sum(1 for e in evidence if e in covered) / len(evidence)


@dataclass
class RecallTable:
    """Mean evidence recall@k overall and per category, over the scored questions."""

    n_questions: int
    overall: dict[int, float]
    by_category: dict[int, dict[int, float]]
    count_by_category: dict[int, int]
    per_question: list[dict[int, float]] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"n_questions": self.n_questions,
                "overall": {f"recall@{k}": v for k, v in self.overall.items()},
                "by_category": {str(c): {"questions": self.count_by_category[c],
                                         **{f"recall@{k}": v for k, v in r.items()}}
                                for c, r in sorted(self.by_category.items())}}


def _table(rows: list[dict[int, float]], cats: list[int], ks: Sequence[int]) -> RecallTable:
    overall = {k: float(np.mean([r[k] for r in rows])) if rows else 0.0 for k in ks}
    by_cat: dict[int, dict[int, float]] = {}
    counts: dict[int, int] = {}
    for c in sorted(set(cats)):
        sel = [r for r, cc in zip(rows, cats) if cc == c]
        counts[c] = len(sel)
        by_cat[c] = {k: float(np.mean([r[k] for r in sel])) for k in ks}
    return RecallTable(len(rows), overall, by_cat, counts, rows)


def score_pool(conversations: Sequence[Conversation], active: Sequence[Memory],
               vectors: np.ndarray, question_vectors: Mapping[tuple[str, int], np.ndarray],
               config: Config, ks: Sequence[int] = KS,
               credits: Mapping[str, Callable[[Memory], set[str]]] | None = None
               ) -> dict[str, RecallTable]:
    """Evidence recall@k of every question against the active pool of its conversation.

    Retrieves once per question and scores it under each credit rule of ``credits``
    (name -> ``ids_of``; default ``{"union": memory_dia_ids}``).
    """
    credits = dict(credits or {"union": memory_dia_ids})
    kmax = max(ks)
    rcfg = replace(config.retrieve, gate=False, k=kmax)
    by_ns: dict[str, list[int]] = {}
    for i, m in enumerate(active):
        by_ns.setdefault(m.namespace, []).append(i)
    rows: dict[str, list[dict[int, float]]] = {name: [] for name in credits}
    cats: list[int] = []
    for conv in conversations:
        idx = by_ns.get(conv.sample_id, [])
        retriever = Retriever([active[i] for i in idx], vectors[idx] if idx else
                              np.zeros((0, vectors.shape[1])), config=rcfg)
        for q in conv.questions:
            if not q.evidence:
                continue
            got = retriever.search(q.text, query_vector=question_vectors[(q.conversation,
                                                                          q.index)])
            served = [r.memory for r in got]
            for name, ids_of in credits.items():
                rows[name].append({k: evidence_recall(served[:k], q.evidence, ids_of)
                                   for k in ks})
            cats.append(q.category)
    return {name: _table(r, cats, ks) for name, r in rows.items()}


@dataclass
class LocomoResult:
    """One configuration's run: pool sizes, and recall before and after under both credits.

    ``after`` credits a merged memory with the union of its sources' ids (the rule the data
    README prescribes); ``after_kept`` only with the ids of the sources whose text it kept
    (:func:`kept_text_ids`). Before maintenance there are no merges, so both agree.
    """

    name: str
    config_hash: str
    pool_before: int
    pool_after: int
    before: RecallTable
    after: RecallTable
    after_kept: RecallTable
    actions: dict[str, int]

    @property
    def shrink(self) -> float:
        return 1.0 - self.pool_after / self.pool_before if self.pool_before else 0.0

    def drop(self, k: int = 10, credit: str = "union") -> float:
        """Recall@k before minus after (positive: maintenance lost evidence)."""
        after = self.after if credit == "union" else self.after_kept
        return self.before.overall[k] - after.overall[k]

    def within_limit(self, limit: float = RECALL_LIMIT, credit: str = "union") -> bool:
        return self.drop(10, credit) <= limit + 1e-12

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "config_hash": self.config_hash,
                "pool_before": self.pool_before, "pool_after": self.pool_after,
                "shrink": self.shrink, "actions": self.actions,
                "recall_drop@10": self.drop(10), "within_limit": self.within_limit(),
                "recall_drop@10_kept_text": self.drop(10, "kept"),
                "within_limit_kept_text": self.within_limit(credit="kept"),
                "before": self.before.to_dict(), "after": self.after.to_dict(),
                "after_kept_text": self.after_kept.to_dict()}


@dataclass
class LocomoReport:
    """Every configuration's result, and the best ones under the recall limit."""

    results: list[LocomoResult]
    conversations: list[str]
    limit: float = RECALL_LIMIT

    def best_by(self, credit: str = "union") -> LocomoResult | None:
        """The largest shrink with recall@10 (under ``credit``) down by at most ``limit``."""
        ok = [r for r in self.results if r.within_limit(self.limit, credit)]
        return max(ok, key=lambda r: (r.shrink, -r.drop(10, credit))) if ok else None

    @property
    def best(self) -> LocomoResult | None:
        return self.best_by("union")

    def to_dict(self) -> dict[str, Any]:
        best, strict = self.best_by("union"), self.best_by("kept")
        return {"suite": "locomo", "conversations": self.conversations,
                "recall_limit": self.limit, "best": None if best is None else best.name,
                "best_kept_text": None if strict is None else strict.name,
                "results": [r.to_dict() for r in self.results]}

    def format(self) -> str:
        """The summary table, the per-category table of the first configuration, the best."""
        rows = []
        for r in self.results:
            rows.append([r.name, r.pool_before, r.pool_after, f"{100 * r.shrink:.1f}%",
                         r.before.overall[5], r.after.overall[5], r.before.overall[10],
                         r.after.overall[10], _pts(-r.drop(10)), r.after_kept.overall[10],
                         _pts(-r.drop(10, "kept"))])
        out = [format_table(["config", "pool before", "pool after", "shrink", "R@5 before",
                             "R@5 after", "R@10 before", "R@10 after", "dR@10 pt",
                             "R@10 after (kept text)", "dR@10 pt (kept text)"], rows)]
        if self.results:
            first = self.results[0]
            cat_rows = [[c, first.before.count_by_category[c],
                         first.before.by_category[c][5], first.after.by_category[c][5],
                         first.before.by_category[c][10], first.after.by_category[c][10],
                         first.after_kept.by_category[c][10]]
                        for c in sorted(first.before.by_category)]
            out.append(f"\nper question category ({first.name}):")
            out.append(format_table(["category", "questions", "R@5 before", "R@5 after",
                                     "R@10 before", "R@10 after", "R@10 after (kept text)"],
                                    cat_rows))
        for credit, label in (("union", "union of ids"), ("kept", "kept text")):
            best = self.best_by(credit)
            out.append(f"\nlargest shrink with recall@10 ({label}) down <= "
                       f"{100 * self.limit:g} pt: "
                       + (f"{best.name} ({100 * best.shrink:.1f}% smaller, "
                          f"{_pts(-best.drop(10, credit))} pt)" if best else "none"))
        return "\n".join(out)


def _pts(x: float) -> str:
    return f"{100 * x + 0.0:+.2f}"


def run_locomo(conversations: Sequence[Conversation], configs: Sequence[tuple[str, Config]],
               cache: EvalCache, ks: Sequence[int] = KS,
               limit: float = RECALL_LIMIT) -> LocomoReport:
    """Evidence recall before and after one maintenance run, for each configuration.

    Every configuration embeds with its own ``[embedding]`` section (through ``cache``);
    the run's ``now`` is one day after the last session, so ages are the data's own.
    """
    if not conversations:
        raise InputError("no LoCoMo conversations to evaluate")
    if not configs:
        raise InputError("no configuration to evaluate")
    pool = [m for c in conversations for m in c.memories]
    sources = {m.id: m for m in pool}
    credits = {"union": memory_dia_ids, "kept": kept_text_ids(sources)}
    questions = [q for c in conversations for q in c.questions if q.evidence]
    now = max(m.created_at for m in pool) + timedelta(days=1)
    results = []
    before_cache: dict[Any, RecallTable] = {}
    for name, config in configs:
        emb = config.embedding
        qvecs = cache.embed([q.text for q in questions], emb)
        qmap = {(q.conversation, q.index): v for q, v in zip(questions, qvecs)}
        key = (emb, config.retrieve)
        if key not in before_cache:
            before_cache[key] = score_pool(conversations, pool,
                                           cache.embed([m.text for m in pool], emb), qmap,
                                           config, ks)["union"]
        before = before_cache[key]
        log.info("locomo %s: maintaining %d observations", name, len(pool))
        done = maintain(pool, config, cache, now=now)
        after = score_pool(conversations, done.active,
                           cache.embed([m.text for m in done.active], emb), qmap, config, ks,
                           credits)
        actions: dict[str, int] = {}
        for action in done.actions.values():
            actions[action] = actions.get(action, 0) + 1
        results.append(LocomoResult(name, config.hash(), len(pool), len(done.active), before,
                                    after["union"], after["kept"], actions))
        log.info("locomo %s: pool %d -> %d, recall@10 %.4f -> %.4f (kept text %.4f)", name,
                 len(pool), len(done.active), before.overall[max(ks)],
                 after["union"].overall[max(ks)], after["kept"].overall[max(ks)])
    return LocomoReport(results, [c.sample_id for c in conversations], limit)
