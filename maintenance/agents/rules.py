"""Rule-based maintenance agents: deterministic, no API key, one cluster at a time.

For every cluster the agents run in a fixed order; each memory is decided by the first agent
that acts on it, and every action names its agent and a reason:

1. **outcome** evicts a memory used at least ``outcome_min_uses`` times whose Wilson upper
   bound (z = 1.96) on successes / uses is below ``outcome_evict_below``. A memory is
   *protected* from every eviction when its importance is >= ``protect_importance`` or its
   Wilson lower bound is above ``outcome_protect_above``.
2. **freshness** handles ``STALE_BLOCK`` memories (freshness 0 under their kind's TTL): one is
   superseded by a newer, not-blocked memory of the cluster that *covers* it (same subject:
   cosine >= ``cover_threshold`` or subject-word overlap >= ``conflict_subject_threshold``);
   otherwise it is evicted when ``evict_stale`` is on (and it is unprotected) or kept. Either
   way it is flagged, as are ``STALE_WARN`` memories.
3. **conflict** finds memories about the same subject (subject-word overlap >=
   ``conflict_subject_threshold`` or cosine >= ``conflict_cosine``) stating different values
   (prices, percentages, dates, times, weekdays, antonyms; bare numbers and negation only
   between near-identical statements, overlap >= ``conflict_strict_threshold``; see
   :mod:`memmaint.maintenance.agents.conflicts`). The winner
   follows ``conflict_policy`` (newer / importance / outcome, the others as tie-breaks); losers
   are superseded (a ``Resolve``) with ``valid_until`` = the winner's ``created_at`` when the
   winner is newer than every loser, else the newest loser's ``created_at`` (a newer loser was
   never valid). Nothing is deleted.
4. **merge** collapses near-duplicates (cosine >= ``merge_threshold`` to the canonical memory,
   or >= ``dedup_threshold`` when the merged text already covers it; no conflicting values;
   a relative time ("last week") only among sources of the newest one's day) into a new
   memory; the canonical one (policy ``canonical``: newest, importance or outcome) gives the
   kind and the text, which must *cover* every source it retires
   (:mod:`~memmaint.maintenance.agents.coverage`): a source it does not cover has its missing
   sentences appended (``merge_uncovered = "compose"``, up to ``merge_max_chars``) or stays
   apart, kept in the cluster. See :func:`merged_memory` for the rest.
5. everything else is kept (agent ``rules``).

Noise (label ``-1``) and singleton clusters go to the **noise** agent instead of 2-4: kept,
unless outcome evicts them, or they are ``STALE_BLOCK`` and ``evict_stale`` is on, or
``evict_noise`` is on and they are old (>= ``noise_min_age_days``), unused (no retrievals) and
unimportant (importance <= ``noise_max_importance``).

Pointers finally follow chains, so a memory superseded by one that was then merged points to the
merged memory.
"""

from __future__ import annotations

import functools
import json
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from memmaint.maintenance.agents.clause_vectors import ClauseEmbedder, clause_embedder
from memmaint.maintenance.agents.conflicts import Facts, subject_similarity
from memmaint.maintenance.agents.consolidate import (
    consolidate,
    merge_candidates,
    merge_floor,
    restates,
)
from memmaint.maintenance.agents.outcome_rules import (
    better_sibling,
    failure_eviction,
    namespace_priors,
    outcomes_of,
    prior_for,
    sibling_reason,
)
from memmaint.maintenance.agents.slots import Statement
from memmaint.maintenance.agents.updates import (
    ALL_PAIRS_MAX,
    CONFLICT,
    cluster_partners,
    relations,
    resolve_changes,
    statement_of,
)
from memmaint.maintenance.core.config import AgentsConfig, config_to_dict
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.freshness import (
    STALE_BLOCK,
    STALE_WARN,
    age_days,
    freshness,
    outcome_interval,
    ttl_for,
    verdict,
)
from memmaint.maintenance.core.linalg import gram
from memmaint.maintenance.core.outcomes import OutcomePrior
from memmaint.maintenance.core.records import Memory, new_id, to_utc, utcnow
from memmaint.maintenance.plan.model import (
    NOISE,
    Action,
    ClusterPlan,
    Evict,
    Keep,
    Merge,
    Plan,
    Resolve,
    Supersede,
)

log = logging.getLogger(__name__)

MERGED_FROM_KEY = "merged_from"
_DISTINCT = "distinct memory: no duplicate, conflict, staleness or outcome signal"
_ID_NAMESPACE = uuid.UUID("6f0c3c52-5d7e-4f39-9a43-3d8b0e0f6b1e")


def agents_config_hash(config: AgentsConfig) -> str:
    """A short stable hash of the agent settings (recorded in every plan)."""
    import hashlib

    blob = json.dumps(config_to_dict(config), sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def _agents_config(config: Any) -> AgentsConfig:
    if isinstance(config, AgentsConfig):
        return config
    if config is None:
        return AgentsConfig()
    agents = getattr(config, "agents", None)
    if isinstance(agents, AgentsConfig):
        return agents
    raise TypeError(f"expected AgentsConfig or Config, got {type(config).__name__}")


def _unit_rows(embeddings: Any, n: int) -> np.ndarray:
    vecs = np.asarray(embeddings, dtype=np.float64)
    if vecs.ndim != 2 or vecs.shape[0] != n:
        raise InputError(f"embeddings must have shape ({n}, dim), got {vecs.shape}")
    if not np.all(np.isfinite(vecs)):
        raise InputError("embeddings contain NaN or infinite values")
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vecs / norms


def plan(pool: Sequence[Memory], labels: Sequence[int] | np.ndarray, embeddings: Any,
         config: AgentsConfig | Any = None, now: datetime | None = None,
         namespace: str | None = None, plan_id: str | None = None,
         priors: Mapping[str, OutcomePrior] | None = None,
         siblings: Mapping[tuple[str, str], Sequence[str]] | None = None,
         embed: ClauseEmbedder | None = None) -> Plan:
    """Plan maintenance for a pool with the rule-based agents (whatever ``agents.backend``
    says: :func:`memmaint.maintenance.agents.dispatch.plan` chooses the backend).

    Args:
        pool: active memories (any namespaces unless ``namespace`` is given).
        labels: one cluster label per memory (``-1`` = noise).
        embeddings: ``(len(pool), dim)`` vectors aligned with ``pool``.
        config: ``AgentsConfig`` or a whole ``Config``.
        now: the reference time for freshness and ages (default: now, UTC).
        namespace: when given, every memory must belong to it.
        plan_id: fixes the plan id (and so the ids of merged memories), for reproducibility.
        priors: each namespace's outcome prior (default: from the base rate of ``pool``;
            a caller planning part of a pool passes the whole pool's).
        siblings: per ``(namespace, id)``, the memories the serve history says helped for
            the questions it failed for (``outcome_rules.served_siblings``), taken first when
            it is superseded for failing.

    Raises:
        InputError: misaligned labels/embeddings, inactive memories, duplicate ids, wrong
            namespace.
    """
    cfg = _agents_config(config)
    now = to_utc(now) if now is not None else utcnow()
    labels_arr = np.asarray(labels, dtype=np.int64).reshape(-1)
    if len(labels_arr) != len(pool):
        raise InputError(f"{len(pool)} memories but {len(labels_arr)} labels")
    vecs = _unit_rows(embeddings, len(pool)) if len(pool) else np.zeros((0, 1))
    _check_pool(pool, namespace)
    pid = plan_id or new_id()
    embed = embed if embed is not None else clause_embedder(config)
    if priors is None:
        priors = namespace_priors(pool, cfg, now)
    clusters = [
        plan_cluster([pool[i] for i in idx], vecs[idx], label, cfg, now, id_seed=pid,
                     outcome_prior=prior_for(priors, ns), siblings=siblings, embed=embed)
        for (ns, label), idx in _groups(pool, labels_arr)
    ]
    result = Plan(clusters=tuple(clusters), config_hash=agents_config_hash(cfg), plan_id=pid,
                  created_at=now, backend="rules")
    summary = result.summary()
    report = {"clusters": sum(1 for c in clusters if c.label != NOISE and len(c.memory_ids) > 1),
              "singletons": sum(1 for c in clusters if c.label == NOISE
                                or len(c.memory_ids) == 1),
              "memories": len(pool), "actions": summary,
              "flagged": {k: sum(1 for c in clusters for f in c.flags.values() if k in f)
                          for k in (STALE_BLOCK, STALE_WARN, CONFLICT)}}
    log.info("planned %d memories in %d clusters: %s", len(pool), len(clusters), summary)
    return Plan(clusters=result.clusters, config_hash=result.config_hash, plan_id=pid,
                created_at=now, backend="rules", report=report)


def _check_pool(pool: Sequence[Memory], namespace: str | None) -> None:
    seen: set[tuple[str, str]] = set()
    for mem in pool:
        if namespace is not None and mem.namespace != namespace:
            raise InputError(f"memory {mem.id} is in namespace {mem.namespace!r}, "
                             f"not {namespace!r}")
        if not mem.is_active:
            raise InputError(f"memory {mem.id} is {mem.status.value}; only active memories "
                             "can be planned")
        key = (mem.namespace, mem.id)
        if key in seen:
            raise InputError(f"memory {mem.id} appears twice in namespace {mem.namespace!r}")
        seen.add(key)


def _groups(pool: Sequence[Memory], labels: np.ndarray) -> list[tuple[tuple[str, int],
                                                                       np.ndarray]]:
    """Indices per (namespace, label); each noise memory is a group of its own."""
    groups: dict[tuple[str, int | str], list[int]] = {}
    for i, (mem, label) in enumerate(zip(pool, labels)):
        key: tuple[str, int | str] = (mem.namespace, f"n{i}" if label < 0 else int(label))
        groups.setdefault(key, []).append(i)
    out = []
    for (ns, label), idx in groups.items():
        out.append(((ns, NOISE if isinstance(label, str) else label), np.array(idx)))
    return out


# -- one cluster -------------------------------------------------------------------------

def _priority(mem: Memory, policy: str) -> tuple:
    lo, _hi = outcome_interval(mem)
    newest = mem.created_at.timestamp()
    if policy == "importance":
        return (mem.importance, newest, lo, mem.id)
    if policy == "outcome":
        return (lo, newest, mem.importance, mem.id)
    return (newest, mem.importance, lo, mem.id)


def _order_key(mem: Memory, st: Statement, policy: str) -> tuple:
    """The conflict policy's priority; between equal times, an update's wording wins."""
    key = _priority(mem, policy)
    return (key[0], st.update_word, *key[1:]) if policy == "newer" else key


def protection(mem: Memory, cfg: AgentsConfig) -> str | None:
    """Why the agents protect ``mem`` from every eviction (``None``: they do not)."""
    if mem.importance >= cfg.protect_importance:
        return f"importance {mem.importance:g} >= {cfg.protect_importance:g}"
    lo, _hi = outcome_interval(mem)
    if mem.successes + mem.failures > 0 and lo > cfg.outcome_protect_above:
        return f"outcome lower bound {lo:.2f} > {cfg.outcome_protect_above:g}"
    return None


def _outcome_eviction(mem: Memory, cfg: AgentsConfig) -> str | None:
    uses = mem.successes + mem.failures
    if uses < cfg.outcome_min_uses:
        return None
    lo, hi = outcome_interval(mem)
    if hi < cfg.outcome_evict_below:
        return (f"consistently unhelpful: {mem.successes}/{uses} successes, Wilson interval "
                f"[{lo:.2f}, {hi:.2f}] upper bound below {cfg.outcome_evict_below:g}")
    return None


def _stale_text(mem: Memory, f: float, cfg: AgentsConfig, now: datetime) -> str:
    ttl = ttl_for(mem.kind, cfg.ttl_days)
    return (f"{verdict(f)}: kind {mem.kind!r} with TTL {ttl:g} days, "
            f"{age_days(mem, now):.1f} days old (freshness {f:.2f})")


def plan_cluster(memories: Sequence[Memory], vectors: np.ndarray, label: int,
                 config: AgentsConfig, now: datetime, *, id_seed: str = "",
                 outcome_prior: OutcomePrior | None = None,
                 siblings: Mapping[tuple[str, str], Sequence[str]] | None = None,
                 embed: ClauseEmbedder | None = None) -> ClusterPlan:
    """The rule-based plan for one cluster (see the module docstring for the order).

    ``vectors`` are unit rows aligned with ``memories``; ``id_seed`` makes merged memory ids
    reproducible (they are uuid5 of the seed and the source ids); ``outcome_prior`` is the
    namespace's (default: uniform); ``embed`` gives a merge's clauses vectors of their own
    (:mod:`~memmaint.maintenance.agents.clause_vectors`).
    """
    cfg = config
    mems = list(memories)
    n = len(mems)
    ns = mems[0].namespace
    sims = gram(vectors) if n else np.zeros((0, 0))
    fresh = [freshness(m, now, cfg.ttl_days) for m in mems]
    flags: dict[str, tuple[str, ...]] = {
        m.id: (verdict(f),) for m, f in zip(mems, fresh) if verdict(f) != "FRESH"
    }
    protected = [protection(m, cfg) for m in mems]
    decided: dict[int, Action] = {}
    replaced_by: dict[str, str] = {}
    keep_reason: dict[int, tuple[str, str]] = {}

    for i, mem in enumerate(mems):
        why = _outcome_eviction(mem, cfg) or failure_eviction(mem, cfg)
        if why and not protected[i]:
            decided[i] = Evict(mem.id, "outcome", why)
        elif why:
            keep_reason[i] = ("outcome", f"{why}, but protected: {protected[i]}")
    _supersede_by_outcome(mems, sims, outcome_prior or OutcomePrior(), protected, decided,
                          replaced_by, cfg, now, siblings)

    if label == NOISE or n == 1:
        return _noise_plan(mems, fresh, protected, decided, keep_reason, flags, label, cfg,
                           now)

    stmts = [statement_of(m.text) for m in mems]
    facts = [st.facts for st in stmts]
    order = sorted(range(n), key=lambda i: _order_key(mems[i], stmts[i], cfg.conflict_policy),
                   reverse=True)
    # a large cluster reads candidate pairs, not every pair (updates.ALL_PAIRS_MAX)
    partners = cluster_partners(stmts, sims, cfg) if n > ALL_PAIRS_MAX else None

    # freshness: supersede or evict STALE_BLOCK memories
    for i in range(n):
        if i in decided or verdict(fresh[i]) != STALE_BLOCK:
            continue
        stale = _stale_text(mems[i], fresh[i], cfg, now)
        cover = _best_cover(i, mems, fresh, sims, facts, decided, cfg,
                            None if partners is None else sorted(
                                partners.near[i].union(np.flatnonzero(
                                    sims[i] >= cfg.cover_threshold).tolist())))
        if cover is not None:
            j = cover
            decided[i] = Supersede(mems[i].id, mems[j].id, "freshness",
                                   f"{stale}; covered by newer {mems[j].id} "
                                   f"(cosine {sims[i, j]:.2f})", mems[j].created_at)
            replaced_by[mems[i].id] = mems[j].id
        elif cfg.evict_stale and not protected[i] and mems[i].id not in replaced_by.values():
            # (a memory another one was just superseded by must stay active)
            decided[i] = Evict(mems[i].id, "freshness",
                               f"{stale}; nothing fresher covers it and evict_stale is on")
        else:
            extra = f"; protected: {protected[i]}" if protected[i] else ""
            keep_reason[i] = ("freshness",
                              f"{stale}; nothing fresher covers it, kept and flagged{extra}")

    # updates and conflicts first: a same-subject pair with different values never merges
    rel = relations(stmts, sims, cfg)
    resolve_changes(mems, stmts, order, decided, replaced_by, keep_reason, flags, rel, cfg,
                    same=lambda x, y: restates(mems[x].text, mems[y].text, vectors[x],
                                               vectors[y], float(sims[x, y])),
                    partners=partners)

    # merge duplicates and refinements around the canonical memory, each fact stated once
    live = sorted((i for i in range(n) if i not in decided),
                  key=lambda i: _priority(mems[i], cfg.canonical), reverse=True)
    taken: set[int] = set()
    apart: dict[int, str] = {}
    live_arr = np.array(live, dtype=np.int64)
    rank = {i: k for k, i in enumerate(live)}
    floor = merge_floor(cfg)
    for seed in live:
        if seed in taken:
            continue
        near = live if partners is None else live_arr[sims[seed, live_arr] >= floor].tolist()
        found = consolidate(merge_candidates(seed, near, taken, mems, sims, stmts, rel, cfg,
                                             apart), mems, vectors, cfg, embed)
        for j, why in found.apart.items():  # beside the merged text's base (the seed may be
            near_id = found.base if found.base != j else seed  # the one left apart)
            apart.setdefault(j, f"kept apart because {why}: near {mems[near_id].id} (cosine "
                                f"{sims[near_id, j]:.2f})")
        group = sorted(found.group, key=rank.__getitem__)  # the canonical source first
        if len(group) < 2:
            continue
        taken.update(group)
        base, seed = found.base, group[0]
        new = merged_memory([mems[g] for g in group], id_seed=id_seed, now=now,
                            text=found.text)
        parts = "; ".join(f"{mems[g].id} {found.joined[g][0]} of {mems[base].id} (cosine "
                          f"{sims[base, g]:.2f}): {found.joined[g][1]}" for g in group if g != base)
        action = Merge(tuple(mems[g].id for g in group), new, "merge",
                       f"{len(group)} memories state one fact: {parts}; kept the most complete "
                       f"text ({mems[base].id}); canonical {mems[seed].id} by policy "
                       f"{cfg.canonical!r}")
        for g in group:
            decided[g] = action
            replaced_by[mems[g].id] = new.id
    keep_reason.update({j: ("merge", why) for j, why in apart.items()
                        if j not in decided and j not in keep_reason})

    for i in range(n):
        if i not in decided:
            agent, reason = keep_reason.get(i) or (
                ("outcome", f"protected: {protected[i]}") if protected[i] else
                ("rules", _DISTINCT))
            decided[i] = Keep(mems[i].id, agent, reason)
    actions = _emit(decided, n, replaced_by)
    return ClusterPlan(ns, int(label), tuple(m.id for m in mems),
                       {m.id: m.version for m in mems}, actions, flags, "rules")


def _supersede_by_outcome(mems: list[Memory], sims: np.ndarray, prior: OutcomePrior,
                          protected: list[str | None], decided: dict[int, Action],
                          replaced_by: dict[str, str], cfg: AgentsConfig, now: datetime,
                          siblings: Mapping[tuple[str, str], Sequence[str]] | None) -> None:
    """Supersede memories a sibling of the cluster answers better (``outcome_rules``; the
    serve history's siblings first)."""
    if len(mems) < 2 or not any(m.failures for m in mems) or not any(m.successes
                                                                    for m in mems):
        return
    outs = outcomes_of(mems, prior, cfg, now)
    at = {m.id: k for k, m in enumerate(mems)}
    for i in range(len(mems)):
        if i in decided or protected[i]:
            continue
        live = [j for j in range(len(mems)) if j not in decided]
        named = (siblings or {}).get((mems[i].namespace, mems[i].id), ())
        found = better_sibling(i, mems, sims, outs, live, cfg,
                               served=[at[x] for x in named if x in at])
        if found is None:
            continue
        j, p = found
        decided[i] = Supersede(mems[i].id, mems[j].id, "outcome",
                               sibling_reason(i, j, mems, sims, outs, p), now)
        replaced_by[mems[i].id] = mems[j].id


def _best_cover(i: int, mems: list[Memory], fresh: list[float], sims: np.ndarray,
                facts: list[Facts], decided: Mapping[int, Action],
                cfg: AgentsConfig, others: list[int] | None = None) -> int | None:
    """The newer memory that covers ``i`` best; ``others``: the only ones that can (in
    index order; ``None``: every memory)."""
    best: tuple[float, float, str] | None = None
    pick = None
    for j in (range(len(mems)) if others is None else others):
        other = mems[j]
        if j == i or j in decided or verdict(fresh[j]) == STALE_BLOCK:
            continue
        if other.created_at < mems[i].created_at:
            continue
        covers = (sims[i, j] >= cfg.cover_threshold
                  or subject_similarity(facts[i], facts[j]) >= cfg.conflict_subject_threshold)
        if not covers:
            continue
        key = (float(sims[i, j]), other.created_at.timestamp(), other.id)
        if best is None or key > best:
            best, pick = key, j
    return pick


def _noise_plan(mems: list[Memory], fresh: list[float], protected: list[str | None],
                decided: dict[int, Action], keep_reason: dict[int, tuple[str, str]],
                flags: dict[str, tuple[str, ...]], label: int, cfg: AgentsConfig,
                now: datetime) -> ClusterPlan:
    mem = mems[0]
    what = "noise" if label == NOISE else "singleton"
    if 0 not in decided:
        stale = verdict(fresh[0]) == STALE_BLOCK
        old = age_days(mem, now) >= cfg.noise_min_age_days
        unused = mem.retrievals == 0 and mem.successes + mem.failures == 0
        minor = mem.importance <= cfg.noise_max_importance
        if stale and cfg.evict_stale and not protected[0]:
            decided[0] = Evict(mem.id, "freshness", _stale_text(mem, fresh[0], cfg, now)
                               + f"; {what} with nothing fresher and evict_stale is on")
        elif cfg.evict_noise and old and unused and minor and not protected[0]:
            decided[0] = Evict(mem.id, "noise",
                               f"{what}: {age_days(mem, now):.0f} days old, never used, "
                               f"importance {mem.importance:g} <= {cfg.noise_max_importance:g}")
        else:
            agent, reason = keep_reason.get(0) or ("noise", f"{what} kept" + (
                f" ({_stale_text(mem, fresh[0], cfg, now)}, flagged)" if stale else
                "" if cfg.evict_noise else " (evict_noise is off)"))
            decided[0] = Keep(mem.id, agent, reason)
    actions = (decided[0],)
    return ClusterPlan(mem.namespace, int(label), (mem.id,), {mem.id: mem.version}, actions,
                       flags, "rules")


def _emit(decided: Mapping[int, Action], n: int,
          replaced_by: Mapping[str, str]) -> tuple[Action, ...]:
    """Unique actions in memory order, with pointers followed to the final survivor."""

    def final(mid: str) -> str:
        seen = set()
        while mid in replaced_by and mid not in seen:
            seen.add(mid)
            mid = replaced_by[mid]
        return mid

    out: list[Action] = []
    emitted: set[int] = set()
    for i in range(n):
        action = decided[i]
        if id(action) in emitted:
            continue
        emitted.add(id(action))
        if isinstance(action, Supersede):
            action = Supersede(action.old_id, final(action.new_id), action.agent,
                               action.reason, action.valid_until)
        elif isinstance(action, Resolve):
            kept = tuple(dict.fromkeys(final(k) for k in action.kept_ids))
            action = Resolve(kept, action.superseded_ids, action.agent, action.reason,
                             action.valid_until)
        out.append(action)
    return tuple(out)


# -- merged memories ---------------------------------------------------------------------

def merge_metadata(metadatas: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The union of several metadata objects, losing nothing.

    A key whose values are all equal keeps that value; otherwise the values become one list:
    lists are concatenated, scalars appended, duplicates dropped, first-seen order kept (so
    dialogue ids such as ``{"dia_ids": [...]}`` or ``{"dia_id": "D1:3"}`` are unioned).
    """
    out: dict[str, Any] = {}
    keys: list[str] = []
    for md in metadatas:
        for key in md:
            if key not in keys:
                keys.append(key)
    for key in keys:
        values = [md[key] for md in metadatas if key in md]
        if all(_canon(v) == _canon(values[0]) for v in values):
            out[key] = values[0]
            continue
        merged: list[Any] = []
        seen: set[str] = set()
        for value in values:
            for item in (value if isinstance(value, list) else [value]):
                c = _canon(item)
                if c not in seen:
                    seen.add(c)
                    merged.append(item)
        out[key] = merged
    return out


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def merged_memory(sources: Sequence[Memory], *, id_seed: str = "",
                  now: datetime | None = None, text: str | None = None) -> Memory:
    """The new memory a merge creates; ``sources[0]`` is the canonical one.

    text: ``text`` when given (the rule agents pass one that covers every source, see
    :mod:`memmaint.maintenance.agents.coverage`), else the canonical source's; kind: the
    canonical source's; importance: the max of the sources' (a merge must
    not lose protection, and repeating a fact does not make it more important); created_at: the
    newest source's (the fact was last confirmed then, which is what freshness should see);
    usage counters: summed, last_used_at the latest; source: the union of the sources' lineage
    strings (``"; "``-joined); metadata: :func:`merge_metadata` of the sources plus
    ``merged_from`` (the source ids, followed through earlier merges).
    """
    canonical = sources[0]
    lineage: list[str] = []
    for mem in sources:
        for part in mem.source.split("; "):
            if part and part not in lineage:
                lineage.append(part)
    metadata = merge_metadata([m.metadata for m in sources])
    merged_from: list[str] = []
    for mem in sources:
        for prior in mem.metadata.get(MERGED_FROM_KEY, []) or []:
            if prior not in merged_from:
                merged_from.append(prior)
        if mem.id not in merged_from:
            merged_from.append(mem.id)
    metadata[MERGED_FROM_KEY] = merged_from
    ids = ",".join(sorted(m.id for m in sources))
    used = [m.last_used_at for m in sources if m.last_used_at is not None]
    created = max(m.created_at for m in sources)
    return Memory(
        text=canonical.text if text is None else text,
        id=str(uuid.uuid5(_ID_NAMESPACE, f"{id_seed}|{canonical.namespace}|{ids}")),
        namespace=canonical.namespace,
        created_at=created,
        updated_at=max(created, to_utc(now)) if now is not None else None,
        importance=max(m.importance for m in sources),
        kind=canonical.kind,
        source="; ".join(lineage),
        metadata=metadata,
        retrievals=sum(m.retrievals for m in sources),
        successes=sum(m.successes for m in sources),
        failures=sum(m.failures for m in sources),
        last_used_at=max(used) if used else None,
    )


def rules_agent(config: AgentsConfig | Any) -> Callable[..., Plan]:
    """The ``rules`` entry of the agent registry: a planner bound to ``config`` (a whole
    config also gives the merges clause vectors from its ``[embedding]`` section)."""
    _agents_config(config)  # fails early on anything else
    return functools.partial(plan, config=config)


rules_agent.plans_in_chunks = True  # type: ignore[attr-defined]  # see agents.dispatch
#: The largest cluster the job hands the rules whole; larger ones are cut along the merge
#: history first (a cluster's cosine matrix is 8 n**2 bytes: a full rebuild of a 1M pool ran
#: out of 23 GB on one; the rules read only candidate pairs in a cluster that large anyway).
RULES_MAX_CLUSTER = 8192
rules_agent.cluster_size_limit = lambda _config: RULES_MAX_CLUSTER  # type: ignore[attr-defined]
rules_agent.reads_siblings = True  # type: ignore[attr-defined]  # see agents.dispatch
