"""Merges that consolidate: the merged text states each fact once.

A merge keeps the **most complete** source's text (the one whose clauses cover most of the
other sources') and adds only the clauses another source says that it does not. Whether a
clause is already said is a clause-level test (:func:`clause_covered`):

- *lexically*: :func:`~memmaint.maintenance.agents.coverage.coverage` finds every one of its
  units (content words up to stems and synonyms, names, numbers, dates, negations,
  qualifiers) in the text; or
- *semantically*: a clause of the text whose embedding is at cosine >=
  :data:`PARAPHRASE_COSINE` to it (the memories' own vectors, for sources of one clause)
  carries every name, number, date and qualifier it carries, the same negations, no changed
  value (:func:`~memmaint.maintenance.agents.slots.relation`), and all but a third of its
  content words (a five-letter prefix counts: "allergic" / "allergy"). So "The user has a
  peanut allergy." covers "User is allergic to peanuts.", and a changed value is never
  covered.

A clause is read without the framing, hedge and attribution around its fact ("Note:",
"according to Ravi", "Keep this in answers."; :mod:`~memmaint.maintenance.agents.provenance`),
a note's sentence is cut where it strings facts together (" - ", ", and the ..."), and with
clause vectors (:mod:`~memmaint.maintenance.agents.clause_vectors`) a clause restating a
kept clause's figures with its names and most of its words is covered too
(:func:`_same_figures`).

Which sources may join, and with what:

- a source that is covered whole joins (a duplicate or a less detailed restatement);
- a source that adds a clause joins only when another of its clauses is covered (it refines
  the same fact), it was written on the merge's newest day (its added fact keeps its date) and
  the text stays within ``merge_max_chars``; otherwise it stays apart: different facts and
  different events are not glued into one memory;
- a source reporting a past event on another day than the newest source, with no absolute
  date in its text, stays apart: the merged memory is dated like its newest source, which
  would move the event; so does a report or an attitude of another day ("Jon expressed
  gratitude", "Maria finds volunteering fulfilling"): what was said or felt at one session.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from memmaint.maintenance.agents.clause_vectors import ClauseEmbedder
from memmaint.maintenance.agents.coverage import (
    Unit,
    coverage,
    fuzzy_in,
    lead_name_differs,
    relative_times,
    same_anchor,
    sentences,
    stem,
    units,
)
from memmaint.maintenance.agents.provenance import fact_core, says_only_provenance
from memmaint.maintenance.agents.samefact import (
    MULTI_CLAUSE_COSINE,
    SAME_FACT_COSINE,
    is_opinion,
    is_report,
    same_fact,
    states_same_fact,
    substitution,
)
from memmaint.maintenance.agents.short_forms import covered_in_opening, subsumed
from memmaint.maintenance.agents.slots import Statement, is_past, relation, statement
from memmaint.maintenance.agents.updates import RelationFn
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.records import Memory

#: Cosine between two clauses from which they may say the same thing (with the anchors).
PARAPHRASE_COSINE = 0.85
_ANCHORS = ("name", "number", "date", "qualifier")
_COMMON = frozenset(stem(w) for w in (
    "the", "a", "an", "user", "users", "we", "our", "they", "he", "she", "it", "this", "that",
    "there", "always", "never", "please", "use", "do", "don't", "if", "when", "for", "in",
    "on", "at", "to", "my", "your", "his", "her", "their", "its", "all", "every", "each"))


@dataclass(frozen=True)
class Clause:
    """One clause of a text, with its vector when known (a one-clause memory's own)."""

    text: str
    vector: np.ndarray | None
    near: np.ndarray | None = None  # the whole memory's vector, for a clause of several


#: Where one sentence of a note strings several facts together: " - ", " + ", ", +", and
#: ", and" before a new subject or an instruction ("..., and the same-day cutoff is 11am").
_FRAGMENT = re.compile(r"\s+[-\u2013\u2014+]\s+|,\s*\+\s*|,\s+and\s+(?=(?:the|we|it|they|"
                       r"expect|send|use|issue|route|tell|check|after|before|only)\b|\d)")


#: "Joanna is a writer and has written a screenplay": one subject, two predicates joined by
#: "and", the second opening with an auxiliary or a past verb.
_TWO_PREDICATES = re.compile(
    r"^(?P<subject>(?:[A-Z][a-z]+|The user|User)(?:'s \w+)?)\s+(?P<first>(?:is|was|has|had|"
    r"are|were|\w+s|\w+ed)\b[^,;]*?),?\s+and\s+(?P<second>(?:(?:is|was|has|have|had|are|"
    r"were)\s+\w+|\w+ed\s+(?:a|an|the|his|her|their|my|our|to|for|with|in|on|at|up|out|"
    r"about)\s+\w+)\b.*)$")


_BACK_REFERENCE = re.compile(r"\b(?:it|its|them|this|that|these|those|there|then|so|too|also)\b",
                             re.IGNORECASE)


def _two_predicates(piece: str) -> list[str]:
    """``piece`` as one clause per predicate of its subject (:data:`_TWO_PREDICATES`)."""
    m = _TWO_PREDICATES.match(piece.strip())
    if not m or _BACK_REFERENCE.search(m["second"]):
        return [piece]  # "... and is all about them": the second reads only after the first
    end = "" if m["second"].rstrip().endswith((".", "!", "?")) else "."
    return [f"{m['subject']} {m['first']}.", f"{m['subject']} {m['second']}{end}"]


def _fragments(sentence: str) -> list[str]:
    """``sentence`` cut at :data:`_FRAGMENT`, except a plus after a single word: "Vegan +
    gluten-free orders" joins two words of one noun phrase, not two facts."""
    out, start = [], 0
    for m in _FRAGMENT.finditer(sentence):
        if "+" in m.group(0) and len(sentence[start:m.start()].split()) < 2:
            continue
        out.append(sentence[start:m.start()])
        start = m.end()
    return out + [sentence[start:]]


def clauses_of(text: str, vector: np.ndarray | None) -> list[Clause]:
    """The clauses of ``text``: its sentences, cut again where a note strings facts together
    with a dash or a plus, each without the framing and attribution around its fact
    (:func:`~memmaint.maintenance.agents.provenance.fact_core`; a piece that only says where
    it came from is no clause). A one-clause text gets ``vector``, the clauses of a longer
    one get it as ``near`` (the memory's vector: what a clause says is near it)."""
    pieces = [c for s in (sentences(text) or [text]) for p in _fragments(s)
              for c in _two_predicates(p)]
    parts = [fact_core(p) for p in pieces if not says_only_provenance(p)]  # (cached)
    if not parts:
        return []
    if len(parts) == 1:
        return [Clause(parts[0], vector)]
    return [Clause(p, None, vector) for p in parts]


def _content(us: Sequence[Unit]) -> set[str]:
    return {u.key for u in us if u.kind == "word"} | {u.key for u in us if u.kind == "name"}


def _fuzzy_missing(src: set[str], kept: set[str]) -> set[str]:
    return {w for w in src if w not in kept and not (
        len(w) >= 5 and any(len(k) >= 5 and k[:5] == w[:5] for k in kept))}


def paraphrase(a: Clause, b: Clause, *, threshold: float = PARAPHRASE_COSINE) -> str | None:
    """Why clause ``b`` says what clause ``a`` says (``None``: it does not, or cannot tell)."""
    if a.vector is None or b.vector is None:
        return None
    cos = float(a.vector @ b.vector)
    if cos < threshold:
        return None
    ua, ub = units(a.text), units(b.text)
    anchors_a = {(u.kind, u.key) for u in ua if u.kind in _ANCHORS}
    anchors_b = {(u.kind, u.key) for u in ub if u.kind in _ANCHORS}
    names_b = {u.key for u in ub if u.kind in ("name", "word")}
    if any(kind == "name" and key in names_b for kind, key in anchors_a - anchors_b):
        anchors_a = {x for x in anchors_a if not (x[0] == "name" and x[1] in names_b)}
    if not anchors_a <= anchors_b:
        return None
    capitals = {stem(w) for w in re.findall(r"\b[A-Z][a-z]+", a.text)} - _COMMON
    if not capitals <= {stem(w) for w in re.findall(r"[A-Za-z]+", b.text)} | _COMMON:
        return None  # a sentence-initial name ("Sam is ..." / "Ana is ...")
    if lead_name_differs(a.text, b.text):
        return None  # "John appreciated Maria's offer" / "Maria offered to help John"
    if _polarity(ua) != _polarity(ub):
        return None
    content, other = _content(ua), _content(ub)
    missing = _fuzzy_missing(content, other)
    if len(missing) > 1 or (missing and (len(content) < 3
                                         or not _fuzzy_missing(other, content))):
        return None  # a reworded word may differ, a dropped detail may not
    wa = [u.key for u in ua if u.kind in ("word", "name")][::-1]
    wb = [u.key for u in ub if u.kind in ("word", "name")][::-1]
    if substitution(wa, wb) or substitution(wb, wa):
        return None  # a swapped modifier names another thing ("the bedroom blinds" / "the
        # living room blinds"): read backwards, one frame with two values
    if relation(statement(a.text), statement(b.text), cos) is not None:
        return None
    return f"paraphrase (cosine {cos:.2f}, same names, numbers, dates and negations)"


def _polarity(us: Sequence[Unit]) -> set[str]:
    """The negations of a clause, "has no TV" and "doesn't own a TV" read as one."""
    return {"not" if u.key == "no" else u.key for u in us if u.kind == "negation"}


_EQUATION = re.compile(r"^(.+?)\s+(?:is|are)\s+(.+?)[.!?]?$", re.IGNORECASE)


def equation_reversed(a: str, b: str) -> bool:
    """Whether ``b`` states ``a``'s "X is Y" as "Y is X" ("Oskar's favourite band is
    Radiohead" / "Radiohead is Oskar's favourite band"): the same words on either side of the
    copula, swapped, and the same negations."""
    ma, mb = _EQUATION.match(a.strip()), _EQUATION.match(b.strip())
    if not ma or not mb:
        return False
    sides_a = [units(ma.group(1)), units(ma.group(2))]
    sides_b = [units(mb.group(1)), units(mb.group(2))]
    la, ra = (_content(s) for s in sides_a)
    lb, rb = (_content(s) for s in sides_b)
    return bool(la and ra) and la == rb and ra == lb and (
        _polarity([*sides_a[0], *sides_a[1]]) == _polarity([*sides_b[0], *sides_b[1]]))


def _vector(c: Clause) -> np.ndarray | None:
    return c.vector if c.vector is not None else c.near


def clause_covered(clause: Clause, kept: Sequence[Clause]) -> str | None:
    """How ``kept`` already says ``clause``: ``"words"`` (lexical cover), a paraphrase
    reason, or a :func:`~memmaint.maintenance.agents.samefact.same_fact` reason (memory
    vectors stand in for a clause of several); ``None`` when it does not."""
    joined = coverage(clause.text, " ".join(c.text for c in kept))
    if joined.covered or (all(m.startswith("+") for m in joined.missing) and any(
            covered_in_opening(clause.text, c.text) for c in kept)):
        return "words"
    if any(equation_reversed(clause.text, other.text) for other in kept):
        return "same words, the two sides of 'is' swapped"
    for other in kept:
        why = paraphrase(clause, other)
        if why:
            return why
    va = _vector(clause)
    if va is None:
        return None
    if clause.vector is not None and (why := _same_figures(clause, kept)):
        return why
    for other in kept:
        vb = _vector(other)
        whole = clause.vector is None or other.vector is None  # a memory's vector stands in
        floor = MULTI_CLAUSE_COSINE if whole else SAME_FACT_COSINE
        if vb is not None and (why := same_fact(clause.text, other.text, float(va @ vb),
                                                threshold=floor)):
            return why
    return None


#: Clause cosine from which a clause stating the same figures as a kept clause of a merge
#: group restates it ("growth tier: $49/month" / "The Growth plan costs $49 a month"; chosen
#: on the demo pool and the decision set's dev part).
SAME_FIGURES_COSINE = 0.6


def _same_figures(clause: Clause, kept: Sequence[Clause]) -> str | None:
    """A restatement of a kept clause's figures in other words ("growth tier: $49/month" /
    "The Growth plan costs $49 a month"): its own clause vector at cosine >=
    :data:`SAME_FIGURES_COSINE` to a kept clause's, every number and name it carries and at
    least half of its words in that clause, and no value of that clause changed. Only the
    merge group's clauses are compared, so the figures are about its one topic; a clause with
    no number is left to the other tests."""
    ua = units(clause.text)
    figures = {u.key for u in ua if u.kind == "number"}
    names = {u.key for u in ua if u.kind in ("name", "date")}
    if not figures or clause.vector is None:
        return None
    content = _content(ua)
    for other in kept:
        if other.vector is None:
            continue
        cos = float(clause.vector @ other.vector)
        if cos < SAME_FIGURES_COSINE:
            continue
        ub = units(other.text)
        if not (figures <= {u.key for u in ub if u.kind == "number"}
                and names <= {u.key for u in ub}):
            continue
        other_content = _content(ub)
        if not (2 * len(_fuzzy_missing(content, other_content)) <= len(content)
                or len(content) <= 5 and _measures(clause.text) <= _measures(other.text) != set()):
            continue
        st_clause, st_other = statement(clause.text), statement(other.text)
        if not _owner_modified(st_clause, st_other, set(content), set(other_content)) and \
                relation(st_clause, st_other, cos) is None:
            return f"same figures (cosine {cos:.2f}; the same numbers and names)"
    return None


#: A figure, and a figure with the word or sign after it (its unit).
_FIGURE = re.compile(r"(?<![\w.,-])\d[\d,]*(?:\.\d+)?")
_MEASURE = re.compile(rf"({_FIGURE.pattern})\s*(%|percent\b|[a-z]{{2,}}\b)", re.IGNORECASE)


def _owner_modified(a: Statement, b: Statement, words_a: set[str], words_b: set[str]) -> bool:
    """Whether one names its subject's owner with a word the other lacks ("The *platform*
    team's standup" / "The team holds its standup"): another owner, whatever the figures."""
    return any("/" in x.holder and any(not fuzzy_in(m, other) for m in x.subject_mods)
               for x, other in ((a, words_b), (b, words_a)))


_NOT_UNITS = frozenset(("to", "and", "or", "of", "in", "on", "at", "by", "for", "from", "per",
                        "the", "an", "is", "are", "was", "were", "with", "than", "as"))


def _measures(text: str) -> set[tuple[str, str]]:
    """The quantities of ``text`` with their units ("10% off" -> ``("10", "%")``, "14
    days" -> ``("14", "dai")``); empty unless every figure has one. A short clause (five
    content words or fewer) with every figure and unit in a kept clause of its merge group
    restates it in other words ("Annual billing knocks off 10%." / "Paying annually comes
    out 10% cheaper."); a longer one may say more ("... the rule is prorated, and customers
    get 14 days ...")."""
    out = set()
    for number, unit in _MEASURE.findall(text):
        if unit.lower() in _NOT_UNITS:
            continue  # "4 to 6 days": a range, not four of "to"
        unit = "%" if unit.lower() in ("%", "percent") else stem(unit.lower())
        out.add((number.replace(",", ""), unit))
    return out if len(out) == len(_FIGURE.findall(text)) else set()


def _named(text: str) -> set[str]:
    """The names and identifiers a text mentions (lower-cased)."""
    st = statement(text)
    return set(st.names) | {i.rstrip(".") for _n, i in st.ids}


def _other_subject(merged: str, source: str, added: Sequence[str]) -> str | None:
    """What the clauses a source would add are about when it is not what the merged text is
    about: they name something the merged text never names, while the merged text names
    something the source never names ("Don't send more than 5000 requests per hr to
    /v2/search" onto "The rate limit on Customers API is 20000/hr", joined by the shared
    "clients that exceed it get 429 errors")."""
    new = set().union(*(_named(c) for c in added)) - _named(merged)
    if new and _named(merged) - _named(source):
        return ", ".join(sorted(new))
    return None


def _dated(clause: str) -> bool:
    """Whether the clause's time is its memory's: an event ("went", "was paid") or a
    relative time ("yesterday"); a standing state ("is replicated to a second region") reads
    the same under any date and may join a memory of another day."""
    return is_past(clause) or bool(relative_times(clause))


def _join(text: str, clause: str) -> str:
    """``text`` and then ``clause``, each a sentence (a clause cut from inside another keeps
    reading as one: capital first, full stop last)."""
    text, clause = text.strip(), clause.strip()
    if text and text[-1] not in ".!?;":
        text += "."
    if clause and clause[-1] not in ".!?;":
        clause += "."
    clause = clause[:1].upper() + clause[1:]
    return f"{text} {clause}" if text else clause


@dataclass
class MergeText:
    """The result of :func:`consolidate`: the sources kept (``group``), the merged text, the
    base source, and why each other source joined or stayed apart."""

    group: list[int]
    text: str
    base: int
    joined: dict[int, tuple[str, str]]  # source -> ("duplicate" or "refinement", why)
    apart: dict[int, str]


def consolidate(group: Sequence[int], mems: Sequence[Memory], vecs: np.ndarray,
                cfg: AgentsConfig, embed: ClauseEmbedder | None = None) -> MergeText:
    """The merged text of ``group`` (first: the canonical source) and who stays apart;
    ``embed`` gives the clauses of memories of several clauses vectors of their own."""
    parts = {g: clauses_of(mems[g].text, vecs[g]) for g in group}
    if embed is not None and len(group) > 1:
        todo = [c.text for g in group for c in parts[g] if c.vector is None]
        rows = embed(todo) if todo else None
        if rows is not None:
            vectors = iter(rows)
            parts = {g: [c if c.vector is not None else Clause(c.text, next(vectors), c.near)
                         for c in parts[g]] for g in group}

    def covered_by(base: int, other: int) -> int:
        return sum(1 for c in parts[other] if clause_covered(c, parts[base]))

    # the most complete: covers most of the others, then says most (its facts, not their
    # framing and attribution)
    score = {b: (sum(covered_by(b, o) for o in group if o != b),
                 len(units(" ".join(c.text for c in parts[b]))), -group.index(b)) for b in group}
    base = max(group, key=lambda b: score[b])
    newest_day = max(mems[g].created_at for g in group).date()
    text, kept = mems[base].text.strip(), list(parts[base])
    joined: dict[int, tuple[str, str]] = {}
    apart: dict[int, str] = {}
    out = [base]
    for g in group:
        if g == base:
            continue
        found = [(c, clause_covered(c, kept)) for c in parts[g]]
        new = [c for c, why in found if not why]
        whys = sorted({why for _c, why in found if why})
        if not new:
            joined[g] = ("duplicate", "says nothing the merged text does not: " + (", ".join(
                "same words" if w == "words" else w for w in whys) or "only where it came from"))
            out.append(g)
            continue
        if len(new) == len(found):
            apart[g] = "it states a different fact (no clause of it is in the merged text)"
            continue
        if cfg.merge_uncovered == "apart":
            apart[g] = "it adds a fact and merge_uncovered is 'apart'"
            continue
        if mems[g].created_at.date() != newest_day and any(_dated(c.text) for c in new):
            apart[g] = (f"it adds a fact dated {mems[g].created_at.date()} and the merged "
                        f"memory would be dated {newest_day}")
            continue
        if other := _other_subject(text, mems[g].text, [c.text for c in new]):
            apart[g] = f"it adds facts about {other}, which the merged text does not name"
            continue
        composed = text
        for c in new:
            composed = _join(composed, c.text)
        if len(composed) > max(cfg.merge_max_chars, len(text)):
            apart[g] = f"adding its clauses would exceed merge_max_chars ({cfg.merge_max_chars})"
            continue
        text = composed
        kept.extend(new)
        joined[g] = ("refinement", f"adds {len(new)} clause(s) the merged text did not state")
        out.append(g)
    return MergeText(out, text, base, joined, apart)


def restates(a_text: str, b_text: str, a_vector: np.ndarray, b_vector: np.ndarray,
             cosine: float) -> bool:
    """Whether one memory says what the other says: a clause states the other's fact
    (:func:`states_same_fact`), or the two one-clause memories are paraphrases
    (:func:`paraphrase`)."""
    if states_same_fact(a_text, b_text, cosine):
        return True
    if cosine < PARAPHRASE_COSINE:
        return False
    ca, cb = clauses_of(a_text, a_vector), clauses_of(b_text, b_vector)
    return len(ca) == len(cb) == 1 and (paraphrase(ca[0], cb[0]) is not None
                                        or paraphrase(cb[0], ca[0]) is not None)


def merge_floor(cfg: AgentsConfig) -> float:
    """The cosine to the seed below which :func:`merge_candidates` takes no memory."""
    return min(cfg.dedup_threshold, MULTI_CLAUSE_COSINE, cfg.subsume_threshold)


def merge_candidates(seed: int, live: Sequence[int], taken: set[int], mems: Sequence[Memory],
                     sims: np.ndarray, stmts: Sequence[Statement], rel: RelationFn,
                     cfg: AgentsConfig, apart: dict[int, str]) -> list[int]:
    """The memories that may merge around ``seed``: near-duplicates (cosine >=
    ``merge_threshold``, or >= ``dedup_threshold`` when the seed's text covers them, or >=
    :data:`~memmaint.maintenance.agents.samefact.SAME_FACT_COSINE` when a clause of one
    states the fact of a clause of the other, :func:`states_same_fact`, or >=
    ``subsume_threshold`` when one is the other's short form, :func:`subsumed`) that have no
    update, conflict or identifier difference with any of them, and keep their relative and
    event dates (an event dates itself with a date or a year, :func:`absolute_date`); why the
    others near the seed stay apart."""
    group = [seed]
    newest = mems[seed].created_at
    # a memory joins through any member, not only the seed ("links last 24 hours; once
    # expired, resend" states the base's fact in the base's words, not the seed's), so one
    # that no member reached is read again after each pass that took someone
    pending = [j for j in live if j != seed and j not in taken]
    read = 0  # the members each pending memory has been read against: group[:read]
    while pending:
        fresh = group[read:]
        read = len(group)
        ready = [j for j in pending if any(_may_join(g, j, mems, sims, stmts, cfg)
                                           for g in fresh)]
        if not ready:
            break
        chosen = set(ready)
        pending = [j for j in pending if j not in chosen]
        newest = _take(ready, group, newest, seed, mems, sims, stmts, rel, apart)
    return group


def _take(ready: Sequence[int], group: list[int], newest: datetime, seed: int,
          mems: Sequence[Memory], sims: np.ndarray, stmts: Sequence[Statement],
          rel: RelationFn, apart: dict[int, str]) -> datetime:
    """Add to ``group`` each of ``ready`` (near enough to a member) that has no update,
    conflict or identifier difference with a member and keeps its dates; record why the
    others stay apart. Returns the group's newest time."""
    for j in ready:
        cos = float(sims[seed, j])
        blocked = next(((g, r) for g in group if (r := rel(g, j)) is not None), None)
        if blocked is not None:
            g, r = blocked
            if r.kind == "distinct":
                apart.setdefault(j, f"kept apart because {r.detail}: not a duplicate of "
                                    f"{mems[g].id} (cosine {sims[g, j]:.2f})")
            continue
        when = max(newest, mems[j].created_at)
        if not same_anchor([(mems[g].text, mems[g].created_at) for g in [*group, j]]):
            apart.setdefault(j, f"kept apart because its relative time would move: near-"
                                f"duplicate of {mems[seed].id} (cosine {cos:.2f})")
            continue
        if any(stmts[x].past and mems[x].created_at.date() != when.date()
               and not absolute_date(stmts[x]) for x in (*group, j)):
            apart.setdefault(j, f"kept apart because it reports an event of another day than "
                                f"{mems[seed].id} (cosine {cos:.2f})")
            continue
        members = (*group, j)
        if (len({mems[x].created_at.date() for x in members}) > 1
                and (note := next((x for x in members if _session_note(stmts[x])), None))
                is not None):
            apart.setdefault(j, f"kept apart because {mems[note].id} reports what was said or "
                                f"felt on its own day, which a memory of another day would "
                                f"re-date (cosine {cos:.2f})")
            continue
        group.append(j)
        newest = when
    return newest


def _may_join(g: int, j: int, mems: Sequence[Memory], sims: np.ndarray,
              stmts: Sequence[Statement], cfg: AgentsConfig) -> bool:
    """Whether ``j`` is near enough to ``g`` to be read for one merge: a near-duplicate, or
    below the merge threshold a text ``g`` covers, one fact stated by both, or a short form."""
    cos = float(sims[g, j])
    if cos < merge_floor(cfg):
        return False
    return cos >= cfg.merge_threshold or (
        (cos >= cfg.dedup_threshold and bool(coverage(mems[j].text, mems[g].text)))
        or states_same_fact(mems[j].text, mems[g].text, cos)
        or (cos >= cfg.subsume_threshold and (subsumed(stmts[j], stmts[g])
                                              or subsumed(stmts[g], stmts[j]))))


_YEAR = re.compile(r"\b(?:in|since|from|during|of|until)\s+(?:early\s+|late\s+|mid-?)?"
                   r"(?:19|20)\d\d\b", re.IGNORECASE)


def absolute_date(st: Statement) -> bool:
    """Whether the statement dates itself: a date, or a year ("started in 2021")."""
    return bool(st.facts.values.get("date")) or bool(_YEAR.search(st.text))


def _session_note(st: Statement) -> bool:
    """An observation of one day rather than a standing fact: a report of what someone said
    or did ("Jon expressed gratitude") or of what they felt ("Maria finds volunteering
    fulfilling"). Read under another day's date it says something else, so it joins no
    memory of another day."""
    return is_report(st) or (is_opinion(st) and not _PREFERENCE.search(st.text))


#: A standing like, dislike or wish ("The user hates long meetings", "I want my reminder at
#: 7 in the evening"), which holds beyond its day,
#: unlike a feeling about one ("Maria finds volunteering fulfilling").
_PREFERENCE = re.compile(r"\b(?:loves?|likes?|enjoys?|hates?|dislikes?|prefers?|can't stand|"
                         r"wants?\s+(?:my|his|her|their|our|the|a|an)\b)", re.IGNORECASE)


__all__ = ["PARAPHRASE_COSINE", "Clause", "MergeText", "absolute_date", "clause_covered", "clauses_of",
           "consolidate", "equation_reversed", "merge_candidates", "merge_floor", "paraphrase",
           "restates",
           "states_same_fact", "subsumed"]
