"""Updates and conflicts: a same-subject pair with different values is never merged.

The rule agents call :func:`resolve_changes` for every cluster before they merge anything.
Each pair whose :func:`~memmaint.maintenance.agents.slots.relation` is ``"change"`` (same
subject, different values: a timezone, an employer, a price, a day, a time, a version, a
decision reversed) is decided here:

- with ``conflict_policy = "newer"`` (the default) the memories' own time orders it: the older
  one is superseded by the newer one (a ``Resolve`` whose reason starts ``update:``). When the
  two were created at the same instant only their wording can order them (one says "now",
  "moved to", "switched"; the other does not); otherwise the pair is **flagged for review**
  (``CONFLICT``) and both stay active: a policy cannot know which is true;
- ``importance`` and ``outcome`` let that signal pick the winner, the others as tie-breaks.

Not every "change" the readers find is an update (:func:`change_between` filters them): two
reports of past events are two events unless one says it changed or reversed something; an
additive statement ("another cat") replaces nothing; two scopes ("for Monday" / "for
Tuesday") are two subjects; an activity, an attitude, a report or a long observation takes
no new value unless it says so ("now", "switched", "instead").

Updates often sit at a low cosine to what they replace ("The user now works at Globex." is at
0.41 to "The user works at Acme as a data engineer."), below any clustering or regrouping
threshold, so the job calls :func:`group_updates` before planning: memories that fill the same
name slot for the same holder, or that a "switched from X" retires, are planned together.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from memmaint.maintenance.agents.conflicts import extract
from memmaint.maintenance.agents.samefact import (
    MULTI_CLAUSE_COSINE,
    SAME_FACT_COSINE,
    UPDATE_VERB_COSINE,
    is_activity,
    is_long,
    is_opinion,
    value_change,
)
from memmaint.maintenance.agents.slots import (
    UPDATE_WORDS,
    Relation,
    Statement,
    relation,
    same_holder,
    statement,
)
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.plan.model import Action, Resolve

#: The flag a same-subject pair with different values and no usable order gets.
CONFLICT = "CONFLICT"
#: Buckets of :func:`group_updates` larger than this are not paired (a generic slot).
MAX_BUCKET = 64

RelationFn = Callable[[int, int], Relation | None]
SameFn = Callable[[int, int], bool]


def relations(stmts: Sequence[Statement], sims: np.ndarray,
              cfg: AgentsConfig) -> RelationFn:
    """A cached ``rel(i, j)`` over a cluster's statements and cosines."""
    cache: dict[tuple[int, int], Relation | None] = {}

    def rel(i: int, j: int) -> Relation | None:
        key = (i, j) if i < j else (j, i)
        if key not in cache:
            cache[key] = change_between(stmts[key[0]], stmts[key[1]], float(sims[key]), cfg)
        return cache[key]
    return rel


def change_between(a: Statement, b: Statement, cosine: float,
                   cfg: AgentsConfig) -> Relation | None:
    """:func:`~memmaint.maintenance.agents.slots.relation`, and where it finds nothing, a
    :func:`~memmaint.maintenance.agents.samefact.value_change` (a lower-case value, names
    under different attribute words)."""
    found = relation(a, b, cosine, subject_threshold=cfg.conflict_subject_threshold,
                     strict_threshold=cfg.conflict_strict_threshold,
                     same_cosine=cfg.conflict_cosine)
    if found is None:
        why = value_change(a.text, b.text, cosine, statements=(a, b))
        found = Relation("change", why) if why else None
    if found is None or found.kind != "change":
        return found
    polarity = "negated" in found.detail or "opposite" in found.detail or found.explicit
    if a.past and b.past and not (_changes(a) or _changes(b) or polarity):
        # "Caroline attended an LGBTQ support group" / "Caroline shared her story at the
        # LGBTQ+ youth center": two reports of what happened are two events, not one value
        # replacing another, unless one says it changed something ("moved", "instead") or
        # reverses the other ("decided to use" / "decided not to use")
        return Relation("distinct", f"different events ({found.detail})")
    if _ADDITIVE.search(a.text) or _ADDITIVE.search(b.text):
        return None  # "has pets including another cat named Bailey" adds, replaces nothing
    sa, sb = _scopes(a.text), _scopes(b.text)
    if sa and sb and not sa & sb:
        return None  # "Desk bookings for Monday ..." / "... for Tuesday ...": two scopes
    explicit = a.update_word or b.update_word or bool(a.switched_from or b.switched_from)
    names_differ = "different names" in found.detail or (
        ":" in found.detail and " vs " in found.detail.split(":", 1)[1])  # "works: a vs b"
    if not polarity and not explicit and names_differ and a.verb in _MANY_VALUED \
            and b.verb in _MANY_VALUED:
        # "The mobile library visits Oakhurst on Mondays" / "... visits Fenby Green on
        # Mondays": a relation that holds for many names at once is no attribute taking a new
        # value; a change still says so ("now visits", "no longer visits")
        return None
    if not polarity and not explicit and (
            is_activity(a) or is_activity(b) or is_long(a) or is_long(b)
            or is_opinion(a) or is_opinion(b)):
        # an activity, a report or a long observation with another name is not an attribute
        # taking a new value ("Tim is currently reading a book by Patrick Rothfuss" / "Tim's
        # favorite book is Harry Potter"); an explicit change still is
        return None
    return found


#: Verbs of relations that hold for many names at once (a place visited, a language spoken).
_MANY_VALUED = frozenset((
    "visit", "visits", "meet", "meets", "like", "likes", "love", "loves", "enjoy", "enjoys",
    "read", "reads", "play", "plays", "sell", "sells", "stock", "stocks", "serve", "serves",
    "offer", "offers", "teach", "teaches", "support", "supports", "speak", "speaks",
    "collect", "collects", "attend", "attends"))
#: Update words that still say a change inside a report of a past event ("moved the standup
#: to", "instead"); "new", "now" and "became" do not ("connected with new teammates").
_EVENT_CHANGE_WORDS = UPDATE_WORDS - {"newly", "now", "became", "becomes", "starting"}
_ADDITIVE = re.compile(r"\b(?:another|also|too|as well|additional|including|both)\b",
                       re.IGNORECASE)


_SCOPE = re.compile(r"\bfor\s+(?:the\s+)?([A-Z][\w/+.-]*(?:\s+[A-Z][\w/+.-]*)*)")


def _scopes(text: str) -> set[str]:
    """What "for X" restricts a statement to, when X is a name ("for Japan", "for Monday",
    "for the Adeyemi group"); not "for the user"."""
    return {m.group(1).lower().rstrip(".") for m in _SCOPE.finditer(text)}


def _changes(st: Statement) -> bool:
    words = set(re.findall(r"[a-z]+", st.text.lower()))
    return bool(words & _EVENT_CHANGE_WORDS) or bool(st.switched_from)


#: Clusters up to this many memories have every live pair read (:func:`resolve_changes`,
#: and the stale-cover and merge searches of ``rules.plan_cluster``): exactly as always. A
#: larger cluster reads only the candidate pairs of :func:`cluster_partners` (about linear
#: in its size where the pair loop is quadratic: 1,500 memories were 580,000 pair reads).
ALL_PAIRS_MAX = 256
#: Nearest others (by cosine, inside the cluster) every memory of a large cluster is read
#: against, whatever else :func:`cluster_partners` adds.
PARTNER_K = 16
#: Same holder at this cosine is a same subject for ``slots.relation``.
HOLDER_COSINE = 0.6
#: A key (holder and slot, or a name switched from) shared by more memories of a cluster
#: than this is too generic to pair them all.
KEY_BUCKET = 256


@dataclass(frozen=True)
class Partners:
    """The candidate pairs of a large cluster: ``near[i]``, the memories ``i`` is read
    against (symmetric), and ``sims``, the cluster's cosines."""

    near: list[frozenset[int]]
    sims: np.ndarray

    def ordered(self, i: int, pos: dict[int, int]) -> list[int]:
        """``i``'s partners among the live memories ``pos`` indexes, in its order."""
        return sorted((j for j in self.near[i] if j in pos), key=pos.__getitem__)

    def same_fact(self, pos: dict[int, int]) -> Callable[[int], list[int]]:
        """``near(j)``: the live memories at a cosine to ``j`` at which
        ``samefact.states_same_fact`` can hold (its floor), in ``pos``'s order."""
        floor = min(SAME_FACT_COSINE, MULTI_CLAUSE_COSINE)

        def near(j: int) -> list[int]:
            close = np.flatnonzero(self.sims[j] >= floor).tolist()
            return sorted((x for x in close if x in pos), key=pos.__getitem__)
        return near

    def pairs(self) -> int:
        return sum(len(x) for x in self.near) // 2


def cluster_partners(stmts: Sequence[Statement], sims: np.ndarray,
                     cfg: AgentsConfig) -> Partners:
    """Candidate pairs of one large cluster, the pairs ``slots.relation`` can call a
    ``"change"`` (approximately: a pair outside them is not read; see ``ALL_PAIRS_MAX``):
    each memory's :data:`PARTNER_K` nearest; pairs at cosine >= ``conflict_cosine``, or >=
    :data:`HOLDER_COSINE` with one holder; pairs whose subject words reach
    ``conflict_subject_threshold`` (Jaccard, found exactly, :func:`~memmaint.maintenance.
    agents.neighbours.jaccard_pairs`); pairs sharing a name slot of one holder or a name one
    of them switched from (as :func:`group_updates` pairs them)."""
    from memmaint.maintenance.agents.neighbours import jaccard_pairs

    n = len(stmts)
    near: list[set[int]] = [set() for _ in range(n)]

    def add(a: int, b: int) -> None:
        if a != b:
            near[a].add(b)
            near[b].add(a)

    k = min(PARTNER_K, n - 1)
    floor = min(cfg.conflict_cosine, HOLDER_COSINE)
    for start in range(0, n, 1024):  # row blocks: no second n x n matrix
        block = sims[start:start + 1024]
        local = np.arange(len(block))
        if k > 0:
            far = -block.astype(np.float32)
            far[local, start + local] = np.inf
            for i, row in enumerate(np.argpartition(far, k - 1, axis=1)[:, :k].tolist()):
                for j in row:
                    add(start + i, j)
            del far
        rows, cols = np.nonzero(block >= floor)
        for r, j in zip((rows + start).tolist(), cols.tolist()):
            if j > r and (sims[r, j] >= cfg.conflict_cosine or (
                    sims[r, j] >= HOLDER_COSINE
                    and same_holder(stmts[r].holder, stmts[j].holder))):
                add(r, j)
    if cfg.conflict_subject_threshold > 0:
        for a, b in jaccard_pairs([st.facts.subject for st in stmts],
                                  cfg.conflict_subject_threshold):
            add(a, b)
    else:  # every pair is a same subject
        for i in range(n):
            near[i].update(range(n))
            near[i].discard(i)
    buckets: dict[tuple[str, ...], list[int]] = {}
    for i, st in enumerate(stmts):
        for key in _keys(st) | _retire_keys(st):
            buckets.setdefault(key, []).append(i)
    for members in buckets.values():
        if 2 <= len(members) <= KEY_BUCKET:
            for x in range(len(members)):
                for y in range(x + 1, len(members)):
                    add(members[x], members[y])
    return Partners([frozenset(x) for x in near], sims)


@functools.lru_cache(maxsize=1 << 18)
def statement_of(text: str) -> Statement:
    """:func:`~memmaint.maintenance.agents.slots.statement`, kept for the 262,144 texts read
    last: the update grouping and the planning of one run read the same memories (a night
    of 16,000 planned memories parsed each twice: 4 of its 27 s of CPU; the 1M night's
    190,000 and 160,000, 0.3 ms each, missed a cache of 32,768 every time). About 3 KB a
    text: under 1 GB full."""
    return statement(text)


def _day(mem: Memory) -> str:
    return mem.created_at.strftime("%Y-%m-%d %H:%M")


def resolve_changes(mems: Sequence[Memory], stmts: Sequence[Statement], order: Sequence[int],
                    decided: dict[int, Action], replaced_by: dict[str, str],
                    keep_reason: dict[int, tuple[str, str]],
                    flags: dict[str, tuple[str, ...]], rel: RelationFn,
                    cfg: AgentsConfig, same: SameFn | None = None,
                    partners: Partners | None = None) -> None:
    """Decide the cluster's updates and conflicts in place (see the module docstring).

    ``order`` lists the memories by the conflict policy's priority, first the one that wins;
    ``same(i, j)``: whether the two state one fact (a restatement of a superseded value is
    superseded with it, see :func:`_restatements`). ``partners`` (a large cluster's,
    :func:`cluster_partners`): only those pairs are read, in the same order; ``None``: every
    live pair.
    """
    live = [i for i in order if i not in decided]
    pos = {i: k for k, i in enumerate(live)}
    lost: dict[int, tuple[int, str]] = {}
    winners: dict[int, None] = {}  # ordered set
    by_time = cfg.conflict_policy == "newer"
    for i in live:
        if i in lost:
            continue
        others = live if partners is None else partners.ordered(i, pos)
        for j in others:
            if j == i or j in lost or j in winners:
                continue
            found = rel(i, j)
            if found is None or found.kind != "change":
                continue
            if by_time and mems[i].created_at == mems[j].created_at \
                    and stmts[i].update_word == stmts[j].update_word:
                for a, b in ((i, j), (j, i)):
                    flags[mems[a].id] = tuple(dict.fromkeys((*flags.get(mems[a].id, ()),
                                                             CONFLICT)))
                    why = (f"conflict flagged: same subject as {mems[b].id}, different values "
                           f"({found.detail}), created at the same time: left for review, not "
                           "resolved by a guess")
                    keep_reason.setdefault(a, ("conflict", why))
                continue
            lost[j] = (i, found.detail)
        winners[i] = None
    if same is not None:
        _restatements(mems, live, lost, winners, rel, same,
                      None if partners is None else partners.same_fact(pos))
    for w in winners:
        losers = sorted(j for j, (win, _d) in lost.items() if win == w)
        if not losers:
            continue
        diffs = "; ".join(f"{mems[j].id}: {lost[j][1]}" for j in losers)
        newer = all(mems[w].created_at >= mems[j].created_at for j in losers)
        valid_until = mems[w].created_at if newer else max(mems[j].created_at for j in losers)
        if by_time:
            tie = [mems[j].id for j in losers if mems[j].created_at == mems[w].created_at]
            order_by = f"{mems[w].id} is newer by created_at ({_day(mems[w])})" + (
                f"; same time as {', '.join(tie)}, ordered by its wording (an update word)"
                if tie else "")
            reason = (f"update: {mems[w].id} supersedes "
                      f"{', '.join(mems[j].id for j in losers)} (same subject, changed value: "
                      f"{diffs}); {order_by}")
        else:
            reason = (f"conflict: same subject, different values ({diffs}); {mems[w].id} "
                      f"wins by policy {cfg.conflict_policy!r}")
        action = Resolve((mems[w].id,), tuple(mems[j].id for j in losers), "conflict",
                         reason, valid_until)
        keep_reason.setdefault(w, ("conflict", (
            f"update of {', '.join(mems[j].id for j in losers)} (same subject, changed value: "
            f"{diffs}): the current value" if by_time else
            f"conflict won by policy {cfg.conflict_policy!r} over "
            f"{', '.join(mems[j].id for j in losers)} ({diffs})")))
        for j in losers:
            decided[j] = action  # one action object; emitted once
            replaced_by[mems[j].id] = mems[w].id


def _restatements(mems: Sequence[Memory], live: Sequence[int],
                  lost: dict[int, tuple[int, str]], winners: dict[int, None],
                  rel: RelationFn, same: SameFn,
                  near: Callable[[int], Iterable[int]] | None = None) -> None:
    """A memory that restates a superseded value ("Tom's home is in Lyon" beside "Tom is
    based in Lyon", superseded by "Tom is based in Graz") is superseded by the same winner,
    when it is not newer than the winner and nothing sets the two apart. ``near(j)``: the
    live memories, in ``live``'s order, that can state ``j``'s fact (``None``: all)."""
    beat = {win for win, _d in lost.values()}
    values: dict[int, dict[str, frozenset[str]]] = {}

    def values_of(i: int) -> dict[str, frozenset[str]]:
        if i not in values:
            values[i] = extract(mems[i].text).values
        return values[i]

    for j, (w, detail) in list(lost.items()):
        for x in (live if near is None else near(j)):
            if x in lost or x in beat or x == w or x == j:
                continue
            found = rel(x, w)
            if (found is not None and found.kind == "distinct") or \
                    mems[x].created_at > mems[w].created_at or not same(x, j):
                continue
            vx, vj = values_of(x), values_of(j)
            if any(vx[k] - vj[k] for k in set(vx) & set(vj)):
                continue  # it states values of its own ("Customers API is 20000/hr" beside
                # "the search endpoint is 5000/hour"): another fact sharing a clause
            lost[x] = (w, f"restates {mems[j].id} ({detail})")


def _keys(st: Statement) -> set[tuple[str, ...]]:
    keys: set[tuple[str, ...]] = set()
    if st.holder:
        keys.update(("slot", st.holder, key) for key, _raw, _name in st.slots)
    keys.update(("name", n) for n in st.switched_from)
    return keys


def _retire_keys(st: Statement) -> set[tuple[str, ...]]:
    """Keys under which an older memory can be found by a newer "switched from" one."""
    return {("name", n) for n in st.names}


#: Nearest neighbours per memory that :func:`group_updates` reads for changes and restatements.
NEIGHBOURS = 8


def _neighbour_pairs(unit: np.ndarray, rows: np.ndarray, *,
                     floor: float = UPDATE_VERB_COSINE) -> set[tuple[int, int]]:
    """Each memory with its :data:`NEIGHBOURS` nearest others of the namespace at cosine
    >= ``floor`` (row pairs, lower first), computed in blocks."""
    out: set[tuple[int, int]] = set()
    n = len(rows)
    k = min(NEIGHBOURS, n - 1)
    for start in range(0, n, 1024):
        block = unit[start:start + 1024] @ unit.T  # float32 rows: half the memory traffic
        block[np.arange(len(block)), np.arange(start, start + len(block))] = -np.inf
        above = block >= floor
        counts = above.sum(axis=1)
        # only the others above the floor can be among a row's k nearest that count; ties at
        # the k-th go to the lower index
        for off in np.flatnonzero(counts).tolist():
            sims = block[off]
            cand = np.flatnonzero(above[off])
            if len(cand) > k:  # the k nearest of those above the floor
                cand = cand[np.argsort(-sims[cand], kind="stable")[:k]]
            top = cand
            a = int(rows[start + off])
            for j in top.tolist():
                if sims[j] >= floor:
                    b = int(rows[j])
                    out.add((a, b) if a < b else (b, a))
    return out


#: Namespaces up to this many memories get their neighbours exactly (:func:`_neighbour_pairs`,
#: a full matrix product: about 1.5 s at 20,000 on 2 cores); larger ones from the cells of
#: :func:`~memmaint.maintenance.agents.neighbours.approximate_pairs` (sub-quadratic).
EXACT_MAX = 20_000


def _unit_rows(vectors: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows' norms (float64, floored at 1e-12) and their unit vectors in float32, in
    blocks (no float64 copy of a large namespace)."""
    norms = np.empty(len(rows), dtype=np.float64)
    unit = np.empty((len(rows), vectors.shape[1]), dtype=np.float32)
    for start in range(0, len(rows), 8192):
        block = np.asarray(vectors[rows[start:start + 8192]], dtype=np.float64)
        norm = np.maximum(np.linalg.norm(block, axis=1, keepdims=True), 1e-12)
        norms[start:start + len(block)] = norm[:, 0]
        unit[start:start + len(block)] = (block / norm).astype(np.float32)
    return norms, unit


def _pair_keys(pairs: Iterable[tuple[int, int]], n: int) -> np.ndarray:
    keys = np.fromiter((a * n + b for a, b in pairs), dtype=np.int64)
    return np.unique(keys)


def group_updates(memories: Sequence[Memory], labels: np.ndarray, vectors: np.ndarray,
                  cfg: AgentsConfig, partitions: Iterable[np.ndarray]) -> np.ndarray:
    """Labels with memories that :func:`~memmaint.maintenance.agents.slots.relation` calls a
    ``"change"`` planned together (``partitions``: each namespace's row indices; labels are
    namespace-local).

    Candidates share a name slot and holder, or a name that one of them says was switched
    from; nearest neighbours that state the same fact (restatements) are also grouped, but
    only with ``regroup_noise`` on (the user's switch for grouping what clustering left apart);
    a noise memory joins its partner's cluster (two noise memories form a new one), two
    clusters whose sizes add up to at most ``regroup_max_size`` become one, otherwise the older
    memory alone moves to the newer one's cluster. A pool without such pairs is unchanged.
    Each memory's :data:`NEIGHBOURS` nearest are exact up to :data:`EXACT_MAX` memories in
    the namespace and approximate above (:mod:`~memmaint.maintenance.agents.neighbours`); the
    rest is linear in the namespace (pairs are read in row order, clusters kept as sets).
    """
    from memmaint.maintenance.agents.neighbours import approximate_pairs
    from memmaint.maintenance.agents.samefact import states_same_fact

    out = np.asarray(labels, dtype=np.int64).copy()
    width = len(memories)
    for rows in partitions:
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) < 2:
            continue
        st_of = {r: statement_of(memories[r].text) for r in rows.tolist()}
        stmts: dict[int, Statement] = {}
        buckets: dict[tuple[str, ...], list[int]] = {}
        for r in rows.tolist():
            st = st_of[r]
            if not (st.slots or st.switched_from or st.names):
                continue
            stmts[r] = st
            for key in _keys(st) | _retire_keys(st):
                buckets.setdefault(key, []).append(r)
        pairs: set[tuple[int, int]] = set()
        for key, members in buckets.items():
            if len(members) < 2 or len(members) > MAX_BUCKET:
                continue
            for x in range(len(members)):
                for y in range(x + 1, len(members)):
                    a, b = members[x], members[y]
                    if key[0] == "name" and not (key[1] in stmts[a].switched_from
                                                 or key[1] in stmts[b].switched_from):
                        continue
                    pairs.add((a, b) if a < b else (b, a))
        norms, unit = _unit_rows(vectors, rows)
        pos = {int(r): k for k, r in enumerate(rows.tolist())}
        if len(rows) <= EXACT_MAX:
            same_keys = _pair_keys(_neighbour_pairs(unit, rows), width)
        else:
            found_pairs = approximate_pairs(unit, rows, NEIGHBOURS, UPDATE_VERB_COSINE)
            same_keys = found_pairs[:, 0] * width + found_pairs[:, 1]  # sorted, unique
        del unit
        keys = np.union1d(_pair_keys(pairs, width), same_keys)  # row order, as sorted pairs
        is_same = np.isin(keys, same_keys, assume_unique=True)
        clusters: dict[int, set[int]] = {}
        for r, lab in zip(rows.tolist(), out[rows].tolist()):
            if lab >= 0:
                clusters.setdefault(lab, set()).add(r)
        next_label = max(clusters, default=-1) + 1
        for key, near in zip(keys.tolist(), is_same.tolist()):
            a, b = divmod(key, width)
            if out[a] >= 0 and out[a] == out[b]:
                continue
            cos = float((np.asarray(vectors[a], dtype=np.float64) / norms[pos[a]])
                        @ (np.asarray(vectors[b], dtype=np.float64) / norms[pos[b]]))
            found = change_between(st_of[a], st_of[b], cos, cfg)
            if found is not None and found.kind == "distinct":
                continue
            # a restatement joins only where the user lets noise be regrouped; an update always
            if (found is None or found.kind != "change") and not (
                    cfg.regroup_noise and near
                    and states_same_fact(memories[a].text, memories[b].text, cos)):
                continue
            old, new = (a, b) if memories[a].created_at <= memories[b].created_at else (b, a)
            lo, ln = int(out[old]), int(out[new])
            if lo < 0 and ln < 0:
                out[old] = out[new] = next_label
                clusters[next_label] = {old, new}
                next_label += 1
            elif lo < 0:
                out[old] = ln
                clusters[ln].add(old)
            elif ln < 0:
                out[new] = lo
                clusters[lo].add(new)
            elif len(clusters[lo]) + len(clusters[ln]) <= cfg.regroup_max_size:
                moved = clusters.pop(lo)
                out[np.fromiter(moved, dtype=np.int64, count=len(moved))] = ln
                clusters[ln] |= moved
            else:
                out[old] = ln
                clusters[lo].discard(old)
                clusters[ln].add(old)
    return out


__all__ = ["ALL_PAIRS_MAX", "CONFLICT", "Partners", "cluster_partners", "group_updates",
           "relations", "resolve_changes", "statement_of"]
