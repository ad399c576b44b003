"""What binds a reviewed plan to what was reviewed and to the store it was made for.

A plan file records, for every action that changes something, a **digest** of its content
(:func:`action_digest`): the namespace, the action itself (its kind, the ids it changes and
points to, the new memory with its text, agent and reason) and, for every stored memory it
touches, the id, the version planned and the version, kind and text snapshotted from the
store. It also records the **store fingerprint**
(:func:`~memmaint.maintenance.core.urls.store_fingerprint`). A decisions file carries the
digest of every action it decides.

``apply`` checks, before writing anything (:func:`check_binding`):

- the store is the one the plan was made for (same fingerprint);
- every action of the plan file still has the digest recorded when the plan was made (no
  text edited, no kind swapped, no version raised);
- every approved action's digest in the decisions file is the plan file's (the decisions
  were made on this plan, as it is now).

Any mismatch is a :class:`BindingError` (one line, exit 2, nothing applied). Then
:func:`stale_actions` compares each approved action, on its own, with the store's own rows:
an action whose memories are gone, changed (text, kind, version) or no longer active is
stale and left out; the others are applied (:func:`bound_plan` builds the plan of exactly
those actions, its versions taken from the digest-checked snapshot).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from memmaint.maintenance.core.errors import UnknownIdError, UserError
from memmaint.maintenance.core.urls import redact_url, store_fingerprint
from memmaint.maintenance.plan.model import (
    Action,
    ClusterPlan,
    Keep,
    Merge,
    Plan,
    _action_to_dict,
)
from memmaint.maintenance.store.base import MemoryStore

DIGEST_LEN = 32  # hex digits of sha256 kept


def action_key(cluster: ClusterPlan, index: int) -> str:
    """The key a review uses for the ``index``-th action of ``cluster``."""
    return f"{cluster.key}#{index}"


def changing_actions(plan: Plan) -> list[tuple[str, ClusterPlan, Action]]:
    """(key, cluster, action) for every action that changes something (not Keep)."""
    return [(action_key(c, i), c, a) for c in plan.clusters
            for i, a in enumerate(c.actions) if not isinstance(a, Keep)]


class BindingError(UserError):
    """The plan file, the decisions or the store are not the ones reviewed (nothing applied)."""


def _stored(cluster: ClusterPlan, action: Action) -> list[str]:
    """Ids of the stored memories ``action`` changes or points to (not those it creates)."""
    created = {m.id for m in cluster.created}
    ids = list(action.subjects) + [t for t in action.targets if t not in created]
    return sorted(dict.fromkeys(ids))


def action_digest(cluster: ClusterPlan, action: Action,
                  snapshot: Mapping[str, Mapping[str, Any]]) -> str:
    """The digest of one action's content (see the module docstring); ``snapshot`` maps the
    ids of the namespace's touched memories to their snapshot (``text``, ``kind``,
    ``version``)."""
    created = {m.id: m for m in cluster.created}
    memories = []
    for mid in _stored(cluster, action):
        snap = snapshot.get(mid)
        memories.append([mid, cluster.versions.get(mid),
                         None if snap is None else [snap.get("version"), snap.get("kind"),
                                                    snap.get("text")]])
    pointed = [[t, created[t].text] for t in action.targets if t in created]
    body = {"namespace": cluster.namespace, "action": _action_to_dict(action),
            "memories": memories, "created_targets": pointed}
    text = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_LEN]


def plan_digests(plan: Plan, memories: Mapping[str, Mapping[str, Mapping[str, Any]]]
                 ) -> dict[str, str]:
    """Action key -> digest for every changing action of ``plan``."""
    return {key: action_digest(cluster, action, memories.get(cluster.namespace, {}))
            for key, cluster, action in changing_actions(plan)}


def check_binding(pf: Any, store_url: str, decisions: Any) -> None:
    """Refuse (:class:`BindingError`) a plan for another store, a plan file whose actions
    no longer match their digests, and decisions that approved other content."""
    here = store_fingerprint(store_url)
    if pf.store_fingerprint != here:
        raise BindingError(f"plan {pf.plan_id} was made for another store "
                           f"({pf.store_url or 'unnamed'}, fingerprint "
                           f"{pf.store_fingerprint or 'none'}), not {redact_url(store_url)} "
                           f"(fingerprint {here}): nothing applied")
    for key, cluster, action in changing_actions(pf.plan):
        recorded = pf.digests.get(key)
        snapshot = pf.memories.get(cluster.namespace, {})
        if recorded is None or action_digest(cluster, action, snapshot) != recorded:
            raise BindingError(f"plan {pf.plan_id}: action {key} does not match the digest "
                               "recorded when the plan was made (the plan file was edited): "
                               "nothing applied")
        for mid in _stored(cluster, action):
            snap = snapshot.get(mid)
            if snap is not None and snap.get("version") != cluster.versions.get(mid):
                raise BindingError(f"plan {pf.plan_id}: action {key}: {mid} is planned at "
                                   f"version {cluster.versions.get(mid)} but was read at "
                                   f"{snap.get('version')} (the plan file was edited): "
                                   "nothing applied")
    if decisions is None:
        return
    if decisions.plan_id != pf.plan_id:
        raise BindingError(f"the decisions are for plan {decisions.plan_id}, not "
                           f"{pf.plan_id}: nothing applied")
    for key in decisions.approved:
        got = decisions.digests.get(key)
        if got is None:
            raise BindingError(f"the decisions approve {key} without its digest (made by an "
                               "older memmaint? review the plan again): nothing applied")
        if got != pf.digests.get(key):
            raise BindingError(f"action {key} was approved with digest {got}, the plan file "
                               f"now has {pf.digests.get(key)} (the plan changed after "
                               "review): nothing applied")


def stale_actions(pf: Any, store: MemoryStore, keys: Collection[str]) -> dict[str, str]:
    """Approved key -> why it is stale, judged per action against the store's own rows
    (existence, status, version, kind and text against the plan's snapshot)."""
    wanted = [(k, c, a) for k, c, a in changing_actions(pf.plan) if k in set(keys)]
    ids: dict[str, set[str]] = {}
    created: dict[str, set[str]] = {}
    for _k, cluster, action in wanted:
        ids.setdefault(cluster.namespace, set()).update(_stored(cluster, action))
        if isinstance(action, Merge):
            created.setdefault(cluster.namespace, set()).add(action.new_memory.id)
    rows: dict[tuple[str, str], Any] = {}
    taken: set[tuple[str, str]] = set()
    for ns, group in ids.items():
        present = store.existing_ids(ns, sorted(group))
        try:
            for mem in store.get_memories(ns, sorted(present)):
                rows[(ns, mem.id)] = mem
        except UnknownIdError:  # vanished between the two reads: judged missing below
            pass
    for ns, group in created.items():
        taken |= {(ns, m) for m in store.existing_ids(ns, sorted(group))}
    out: dict[str, str] = {}
    for key, cluster, action in wanted:
        snapshot = pf.memories.get(cluster.namespace, {})
        problems = []
        for mid in _stored(cluster, action):
            row, snap = rows.get((cluster.namespace, mid)), snapshot.get(mid) or {}
            if row is None:
                problems.append(f"{mid} no longer exists")
            elif row.version != snap.get("version"):
                problems.append(f"{mid} is at version {row.version}, planned at "
                                f"{snap.get('version')}")
            elif row.text != snap.get("text") or row.kind != snap.get("kind"):
                problems.append(f"{mid} changed since planning")
            elif not row.is_active:
                problems.append(f"{mid} is {row.status.value}")
        if isinstance(action, Merge) and (cluster.namespace, action.new_memory.id) in taken:
            problems.append(f"merge target id {action.new_memory.id} already exists")
        if problems:
            out[key] = "changed since planning: " + "; ".join(problems)
    return out


def bound_plan(pf: Any, filtered: Plan, keys: Collection[str]) -> Plan:
    """The plan of exactly the actions ``keys`` (keys of ``pf.plan``), with the memories
    they point to kept, each cluster's versions those of the digest-checked snapshot."""
    chosen: dict[str, list[Action]] = {}
    for key, cluster, action in changing_actions(pf.plan):
        if key in set(keys):
            chosen.setdefault(cluster.key, []).append(action)
    clusters = []
    for cluster in filtered.clusters:
        actions = chosen.get(cluster.key)
        if not actions:
            continue
        subjects = {m for a in actions for m in a.subjects}
        for target in {t for a in actions for t in a.targets} - subjects:
            holder = next((a for a in cluster.actions if target in a.subjects), None)
            if holder is not None and holder not in actions:
                actions.append(holder)
                subjects.update(holder.subjects)
        snapshot = pf.memories.get(cluster.namespace, {})
        members = tuple(m for m in cluster.memory_ids if m in subjects)
        versions = {m: int(snapshot.get(m, {}).get("version", cluster.versions[m]))
                    for m in members}
        order = [a for a in cluster.actions if a in actions]
        clusters.append(replace(cluster, memory_ids=members, versions=versions,
                                actions=tuple(order)))
    return replace(filtered, clusters=tuple(clusters))
