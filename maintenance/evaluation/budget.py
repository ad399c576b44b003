"""End-to-end measures that packing cannot meet (issue #32, ``memmaint eval locomo``).

Recall@k per memory credits a merged memory with every fact it carries, so gluing ten
observations into one text "recalls" ten facts in one slot. The measures here look at the
*text* an agent would read instead:

- **recall at a token budget** (:func:`budget_recall`): memories are read in rank order and
  their text is counted in **whitespace tokens** (``str.split()``: model-free, the same for
  every embedder, and what the word-level ``coverage`` test reads) until ``budget`` tokens are
  spent. The first memory that does not fit whole is **cut** to the tokens left (as a
  context window would truncate it) and nothing after it is read. A memory read whole is
  credited with the ids the caller's credit rule gives it (``ids_of``: for a merged memory,
  the sources its text covers); a cut memory only with the ids of the sources its cut text
  still covers (for a memory that is no merge: itself), by the same
  :func:`~memmaint.maintenance.agents.coverage.coverage` test. So a packed memory earns no
  more than the part of it that fits.
- **text size** (:func:`text_tokens`): the whitespace tokens of the active memories; the
  *text shrink* is ``1 - after / before``. Fewer, longer memories do not shrink it.
- **dated evidence moved** (:func:`moved_dates`): a temporal question (LoCoMo category 2, or
  a question that starts with "When") whose evidence is carried by an active memory dated on
  another day than every observation that held that evidence before maintenance (a merged
  memory takes its newest source's date, so an older fact glued into it is now dated wrong).
  Evidence ids are per conversation (``D1:3`` exists in every one): they are keyed by
  namespace. The date compared is the memory's ``created_at`` (UTC day), the date retrieval,
  freshness and every reader of the store use; a merged text that also names the old date
  inline still counts as moved, and is reported apart (``dated_in_text``).

Pure functions over :class:`~memmaint.maintenance.core.records.Memory`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from memmaint.maintenance.agents.coverage import coverage
from memmaint.maintenance.agents.rules import MERGED_FROM_KEY
from memmaint.maintenance.core.records import Memory

TOKEN_BUDGETS = (100, 200)
TEMPORAL_CATEGORY = 2  # LoCoMo's temporal questions ("When did ...")
_DIA_ID = re.compile(r"D\d+:\d+")
_WHEN = re.compile(r"\s*when\b", re.IGNORECASE)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


def count_tokens(text: str) -> int:
    """Whitespace tokens of ``text`` (the unit of every budget here)."""
    return len(text.split())


def text_tokens(memories: Iterable[Memory]) -> int:
    """The whitespace tokens of all ``memories``' texts together."""
    return sum(count_tokens(m.text) for m in memories)


def text_shrink(before: int, after: int) -> float:
    """``1 - after / before`` (0 for an empty pool): > 0 when the text got shorter."""
    return 1.0 - after / before if before else 0.0


@dataclass(frozen=True)
class Read:
    """One memory as read within a budget: the text read, and whether that is all of it."""

    memory: Memory
    text: str
    whole: bool


def budget_window(retrieved: Sequence[Memory], budget: int) -> list[Read]:
    """The memories of ``retrieved`` (in rank order) read within ``budget`` whitespace tokens.

    Each is read whole while it fits; the first that does not is cut to the tokens left
    (joined by single spaces) and reading stops there. A budget spent exactly stops before
    the next memory; a memory with no tokens costs nothing.
    """
    if budget < 0:
        raise ValueError(f"a token budget must be >= 0, got {budget}")
    out: list[Read] = []
    left = budget
    for m in retrieved:
        toks = m.text.split()
        if len(toks) <= left:
            out.append(Read(m, m.text, True))
            left -= len(toks)
            continue
        if left > 0:
            out.append(Read(m, " ".join(toks[:left]), False))
        break
    return out


def _dia_ids(memory: Memory) -> set[str]:
    return set(_DIA_ID.findall(json.dumps(memory.metadata.get("dia_ids", []))))


def cut_ids(read: Read, sources: Mapping[str, Memory]) -> set[str]:
    """The ids a cut memory still carries: those of each source (``sources``: the pool before
    maintenance; a memory that is no merge is its own source) that the cut text covers."""
    merged = read.memory.metadata.get(MERGED_FROM_KEY) or []
    own = [sources[s] for s in merged if s in sources] if merged else [read.memory]
    ids: set[str] = set()
    for src in own:
        if coverage(src.text, read.text).covered:
            ids |= _dia_ids(src)
    return ids


def budget_ids(retrieved: Sequence[Memory], budget: int, ids_of: Callable[[Memory], set[str]],
               sources: Mapping[str, Memory]) -> set[str]:
    """The evidence ids the text read within ``budget`` tokens carries (see the module doc:
    whole memories by ``ids_of``, the cut one by :func:`cut_ids`)."""
    ids: set[str] = set()
    for read in budget_window(retrieved, budget):
        ids |= ids_of(read.memory) if read.whole else cut_ids(read, sources)
    return ids


def budget_recall(retrieved: Sequence[Memory], evidence: Sequence[str], budget: int,
                  ids_of: Callable[[Memory], set[str]],
                  sources: Mapping[str, Memory]) -> float:
    """The share of ``evidence`` carried by the first ``budget`` tokens of retrieved text."""
    if not evidence:
        raise ValueError("a question without evidence has no recall")
    got = budget_ids(retrieved, budget, ids_of, sources)
    return sum(1 for e in evidence if e in got) / len(evidence)


class QuestionLike(Protocol):
    """What :func:`moved_dates` reads of a question."""

    @property
    def conversation(self) -> str: ...

    @property
    def index(self) -> int: ...

    @property
    def text(self) -> str: ...

    @property
    def category(self) -> int: ...

    @property
    def evidence(self) -> tuple[str, ...]: ...


def is_temporal(question: QuestionLike) -> bool:
    """LoCoMo's temporal category, or a question that asks "When ..."."""
    return question.category == TEMPORAL_CATEGORY or bool(_WHEN.match(question.text))


def states_date(text: str, day: date) -> bool:
    """Whether ``text`` names ``day`` ("8 May", "May 8", "8th of May"; the year is not
    required)."""
    month = _MONTHS[day.month - 1]
    return bool(re.search(rf"\b{day.day}(st|nd|rd|th)?( of)? {month}\b|\b{month} {day.day}\b",
                          text, re.IGNORECASE))


@dataclass
class MovedDates:
    """Temporal questions whose evidence an active memory now carries under another date."""

    questions: int  # temporal questions with evidence some observation held
    moved: int  # ... with an evidence id carried by a memory dated on another day
    gone: int  # ... with an evidence id no active memory carries any more
    dated_in_text: int  # moved questions whose every moved carrier names the old date
    shifts: list[int] = field(default_factory=list)  # per moved question, largest |days|
    examples: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @property
    def share(self) -> float:
        """``moved / questions`` (0 with no temporal question)."""
        return self.moved / self.questions if self.questions else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"temporal_questions": self.questions, "moved": self.moved,
                "moved_share": self.share, "evidence_gone": self.gone,
                "moved_but_dated_in_text": self.dated_in_text,
                "shift_days": sorted(self.shifts), "examples": self.examples}


def moved_dates(questions: Iterable[QuestionLike], before: Iterable[Memory],
                after: Iterable[Memory], *, examples: int = 10) -> MovedDates:
    """Count the temporal questions whose evidence moved to another date (module doc).

    ``before`` is the pool before maintenance (each evidence id's own dates are the days of
    the memories that held it), ``after`` the active memories after. Evidence no memory of
    ``before`` held is ignored (it cannot move); evidence no memory of ``after`` carries is
    counted as ``gone``, not moved. The first ``examples`` moved questions are kept with
    their carriers' texts.
    """
    own: dict[tuple[str, str], set[date]] = {}
    for m in before:
        for e in _dia_ids(m):
            own.setdefault((m.namespace, e), set()).add(m.created_at.date())
    carriers: dict[tuple[str, str], list[Memory]] = {}
    for m in after:
        for e in _dia_ids(m):
            carriers.setdefault((m.namespace, e), []).append(m)
    n = moved = gone = in_text = 0
    shifts: list[int] = []
    rows: list[dict[str, Any]] = []
    for q in questions:
        keys = [(q.conversation, e) for e in q.evidence if (q.conversation, e) in own]
        if not keys or not is_temporal(q):
            continue
        n += 1
        if any(k not in carriers for k in keys):
            gone += 1
        wrong = [(k, m) for k in keys for m in carriers.get(k, [])
                 if m.created_at.date() not in own[k]]
        if not wrong:
            continue
        moved += 1
        shifts.append(max(min(abs((m.created_at.date() - d).days) for d in own[k])
                          for k, m in wrong))
        if all(any(states_date(m.text, d) for d in own[k]) for k, m in wrong):
            in_text += 1
        if len(rows) < examples:
            rows.append({"conversation": q.conversation, "question": q.text,
                         "moved": [{"evidence": k[1],
                                    "own_dates": sorted(d.isoformat() for d in own[k]),
                                    "memory_date": m.created_at.date().isoformat(),
                                    "memory": m.text} for k, m in wrong]})
    return MovedDates(n, moved, gone, in_text, shifts, rows)
