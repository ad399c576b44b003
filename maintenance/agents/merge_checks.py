"""What a merge text written by someone else (the LLM agent) must pass: the tests the rule
agents' own merges are built on (:mod:`memmaint.maintenance.agents.consolidate`).

- **No fact dropped**: every clause of every source is said by the text, word for word
  (:func:`~memmaint.maintenance.agents.coverage.coverage`) or as the same fact in other words
  (:func:`~memmaint.maintenance.agents.consolidate.clause_covered`: a paraphrase, the same fact
  with the same names, numbers, dates, negations and qualifiers, or the same figures);
- **each fact once**: no clause of the text says what another of its clauses says;
- **one value per subject**: no two clauses of the text give one subject two values
  (:func:`~memmaint.maintenance.agents.slots.relation`), which is an update or a conflict,
  never a merge;
- **dates kept**: merging must not move a source's relative time
  (:func:`~memmaint.maintenance.agents.coverage.same_anchor`).

Clauses get vectors of their own from ``embed`` when the run gives one
(:mod:`~memmaint.maintenance.agents.clause_vectors`); without, the semantic tests that need
them are skipped and the word tests decide.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from memmaint.maintenance.agents.clause_vectors import ClauseEmbedder
from memmaint.maintenance.agents.consolidate import Clause, clause_covered, clauses_of
from memmaint.maintenance.agents.coverage import coverage, relative_times, same_anchor
from memmaint.maintenance.agents.slots import relation, statement
from memmaint.maintenance.core.records import Memory


def _clauses(text: str, embed: ClauseEmbedder | None) -> list[Clause]:
    parts = clauses_of(text, None)
    found = embed([c.text for c in parts]) if embed is not None and parts else None
    if found is None:
        return parts
    return [Clause(c.text, v) for c, v in zip(parts, found)]


def merge_text_problems(where: str, text: str, sources: Sequence[Memory],
                        embed: ClauseEmbedder | None = None) -> list[str]:
    """Every way ``text`` fails as the merge of ``sources`` (module docstring), each a line
    the writer can act on; ``[]`` when it passes."""
    out: list[str] = []
    kept = _clauses(text, embed)
    for src in sources:
        cov = coverage(src.text, text)
        if cov.covered:
            continue
        if any(not clause_covered(c, kept) for c in _clauses(src.text, embed)):
            out.append(f"{where}: merge text drops content of {src.id} (missing: "
                       f"{', '.join(cov.missing[:8])}); keep every fact of every source")
    for a, b in itertools.combinations(kept, 2):
        if clause_covered(a, [b]) or clause_covered(b, [a]):
            out.append(f"{where}: merge text states one fact twice ({a.text!r} / {b.text!r});"
                       " state each fact once")
            continue
        cos = float(a.vector @ b.vector) if a.vector is not None and b.vector is not None \
            else 0.0
        found = relation(statement(a.text), statement(b.text), cos)
        if found is not None and found.kind == "change":
            out.append(f"{where}: merge text states two values for one subject "
                       f"({found.detail}); that is an update or a conflict, not a merge: "
                       "supersede the older value or keep both apart")
    if not same_anchor([(m.text, m.created_at) for m in sources]):
        dated = [m.id for m in sources if relative_times(m.text)]
        out.append(f"{where}: merging would move the relative time of {', '.join(dated)} "
                   "(written on an earlier day than the newest source); keep them apart")
    return out


__all__ = ["merge_text_problems"]
