"""Plan files and review decisions: ``memmaint plan``, ``review`` and ``apply``.

A **plan file** is a :class:`~memmaint.maintenance.plan.model.Plan` (its JSON as ``plan``)
wrapped with a header and the texts of every memory the plan's actions touch, so a review
needs no store::

    {"format": "memmaint-plan-file", "version": 2, "store": REDACTED URL,
     "store_fingerprint": HEX, "config_hash": HASH, "created_at": ISO, "namespaces": [...],
     "memories": {NAMESPACE: {ID: {"text", "kind", "version", "importance", "created_at"}}},
     "digests": {KEY: HEX}, "plan": {...Plan.to_dict()...}}

The store is named by its URL without password
(:func:`~memmaint.maintenance.core.urls.redact_url`) and identified by its fingerprint.
Every action that changes something is reviewed under an **action key**
``"<cluster key>#<index of the action in its cluster>"`` (:func:`action_key`) and bound to
its content by a digest (:mod:`memmaint.maintenance.review.binding`). A decisions file is
``{"plan_id": ID, "approved": [KEY, ...], "rejected": [KEY, ...], "digests": {KEY: HEX}}``
(the digest of every decided action, as reviewed).

:func:`filter_plan` keeps exactly the approved actions: every other action's memories become
:class:`Keep` (reason ``rejected in review`` or ``not approved in review``). An approved
action that points to a memory a rejected action no longer creates or keeps active (a
supersede pointing to the new memory of a rejected merge) is dropped as well, and reported.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.errors import InputError, UserError
from memmaint.maintenance.core.records import format_time, utcnow
from memmaint.maintenance.core.text import MAX_DEPTH, for_terminal, json_problem, parse_json
from memmaint.maintenance.core.urls import redact_url, store_fingerprint
from memmaint.maintenance.plan.model import (
    Action,
    Archive,
    Keep,
    Merge,
    Plan,
    PlanError,
    Resolve,
    Supersede,
    check_plan,
    cluster_problems,
)
from memmaint.maintenance.review.binding import action_key, changing_actions, plan_digests
from memmaint.maintenance.store.base import MemoryStore

FILE_FORMAT = "memmaint-plan-file"
FILE_VERSION = 2
DECISIONS_FORMAT_KEYS = ("plan_id", "approved", "rejected")
REJECTED = "rejected in review"
NOT_APPROVED = "not approved in review"
REVIEW_AGENT = "review"
#: Deepest nesting read in a plan file: a memory's metadata (``MAX_DEPTH``) inside the plan.
MAX_FILE_DEPTH = MAX_DEPTH + 16


@dataclass
class PlanFile:
    """A plan with everything a review needs (see the module docstring)."""

    plan: Plan
    store_url: str = ""
    config_hash: str = ""
    created_at: datetime = field(default_factory=utcnow)
    memories: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    store_fingerprint: str = ""
    digests: dict[str, str] = field(default_factory=dict)
    #: the store's change sequence when the plan was made (``memmaint.maintenance.job.changes``;
    #: None for a store without one): what the next night counts as new starts there
    store_seq: int | None = None

    def __post_init__(self) -> None:
        self.store_url = redact_url(self.store_url)  # no password ever leaves the URL

    @property
    def plan_id(self) -> str:
        return self.plan.plan_id

    def text(self, namespace: str, memory_id: str) -> str:
        return str(self.memories.get(namespace, {}).get(memory_id, {}).get("text", ""))

    def to_dict(self) -> dict[str, Any]:
        return {"format": FILE_FORMAT, "version": FILE_VERSION,
                "store": redact_url(self.store_url), "store_fingerprint": self.store_fingerprint,
                "config_hash": self.config_hash, "created_at": format_time(self.created_at),
                "namespaces": self.plan.namespaces(), "memories": self.memories,
                "digests": self.digests, "store_seq": self.store_seq,
                "plan": self.plan.to_dict()}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1)

    def write(self, path: str | Path) -> None:
        try:
            Path(path).write_text(self.to_json(), encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write the plan file {path}: {exc.strerror}") from None

    @classmethod
    def from_dict(cls, data: Any, where: str = "plan file") -> PlanFile:
        problem = json_problem(data, where, max_depth=MAX_FILE_DEPTH)
        if problem:
            raise InputError(problem)
        if not isinstance(data, Mapping) or data.get("format") != FILE_FORMAT:
            raise InputError(f"{where}: not a {FILE_FORMAT} document (make one with "
                             "`memmaint plan`)")
        if data.get("version") != FILE_VERSION:
            raise InputError(f"{where}: unsupported plan file version {data.get('version')!r}"
                             f" (this memmaint reads {FILE_VERSION})")
        try:
            plan = Plan.from_dict(data["plan"])
            check_plan(plan)
            mems = data.get("memories") or {}
            if not isinstance(mems, Mapping):
                raise TypeError("memories must be an object")
            digests = data.get("digests")
            if not isinstance(digests, Mapping) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in digests.items()):
                raise TypeError("digests must map action keys to digests")
            from memmaint.maintenance.core.records import parse_time

            seq = data.get("store_seq")
            if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int)
                                    or seq < 0):
                raise TypeError("store_seq must be a sequence number or null")
            return cls(plan=plan, store_url=str(data.get("store", "")),
                       config_hash=str(data.get("config_hash", "")),
                       created_at=parse_time(data["created_at"]),
                       memories={str(ns): {str(k): dict(v) for k, v in ids.items()}
                                 for ns, ids in mems.items()},
                       store_fingerprint=str(data.get("store_fingerprint", "")),
                       digests=dict(digests), store_seq=seq)
        except PlanError as exc:
            raise InputError(f"{where}: {exc}") from None
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError,
                UnicodeError) as exc:
            detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise InputError(f"{where}: malformed plan file: {for_terminal(detail)}") from None

    @classmethod
    def load(cls, path: str | Path) -> PlanFile:
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read the plan file {path}: {exc.strerror}") from None
        return cls.from_dict(parse_json(raw, str(path), max_depth=MAX_FILE_DEPTH), str(path))


def touched_ids(plan: Plan) -> dict[str, set[str]]:
    """namespace -> ids of the memories the plan's changing actions name."""
    out: dict[str, set[str]] = {}
    for _key, cluster, action in changing_actions(plan):
        out.setdefault(cluster.namespace, set()).update(action.subjects, action.targets)
    return out


def snapshot_texts(store: MemoryStore, plan: Plan) -> dict[str, dict[str, dict[str, Any]]]:
    """The stored texts (and versions) of every memory an action of ``plan`` touches."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for ns, ids in touched_ids(plan).items():
        created = {m.id for c in plan.clusters if c.namespace == ns for m in c.created}
        wanted = sorted(ids - created)
        present = store.existing_ids(ns, wanted)
        for mem in store.get_memories(ns, [i for i in wanted if i in present]):
            out.setdefault(ns, {})[mem.id] = {
                "text": mem.text, "kind": mem.kind, "version": mem.version,
                "importance": mem.importance, "created_at": format_time(mem.created_at)}
    return out


def make_plan_file(store: MemoryStore, config: Config, *,
                   namespaces: Sequence[str] | None = None, now: datetime | None = None,
                   force: bool = True, progress: Any = None) -> tuple[PlanFile | None, Any]:
    """Plan like the nightly job (its dry run, the same code path) and wrap the plan.

    Returns ``(plan file, run report)``; the plan file is ``None`` when the run was skipped.
    """
    from memmaint.maintenance.job.run import run_job

    got: list[Plan] = []
    report = run_job(store, config, namespaces=namespaces, dry_run=True, force=force,
                     now=now, progress=progress, plan_sink=got.append)
    if not got:
        return None, report
    pf = bind(got[0], store, config.hash())
    seen = {int(m["seen"]) for m in (report.changes or {}).values()
            if isinstance(m, dict) and "seen" in m}
    return (replace(pf, store_seq=seen.pop()) if len(seen) == 1 else pf), report


def bind(plan: Plan, store: MemoryStore, config_hash: str = "") -> PlanFile:
    """Wrap ``plan`` for review: the store's texts of the memories it touches, the store's
    redacted URL and fingerprint, and each action's digest."""
    memories = snapshot_texts(store, plan)
    return PlanFile(plan=plan, store_url=redact_url(str(store.url)), config_hash=config_hash,
                    memories=memories, store_fingerprint=store_fingerprint(str(store.url)),
                    digests=plan_digests(plan, memories))


# -- decisions ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Decisions:
    """What a review decided: approved and rejected action keys, and the digest of every
    decided action as it was reviewed (``apply`` refuses an approved action whose digest
    the plan file no longer has)."""

    plan_id: str
    approved: tuple[str, ...]
    rejected: tuple[str, ...]
    digests: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, pf: PlanFile, approved: Iterable[str], rejected: Iterable[str] = ()
           ) -> Decisions:
        """Decisions on ``pf`` carrying its digests of the decided keys."""
        a, r = tuple(approved), tuple(rejected)
        return cls(pf.plan_id, a, r, {k: pf.digests[k] for k in (*a, *r) if k in pf.digests})

    def to_dict(self) -> dict[str, Any]:
        return {"plan_id": self.plan_id, "approved": list(self.approved),
                "rejected": list(self.rejected), "digests": dict(self.digests)}

    def write(self, path: str | Path) -> None:
        try:
            Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n",
                                  encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write decisions to {path}: {exc.strerror}") from None

    @classmethod
    def load(cls, path: str | Path, plan_file: PlanFile) -> Decisions:
        """Read and check a decisions file against ``plan_file`` (``InputError``)."""
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read decisions {path}: {exc.strerror}") from None
        data = parse_json(raw, str(path))
        if not isinstance(data, Mapping) or any(k not in data for k in DECISIONS_FORMAT_KEYS):
            raise InputError(f"{path}: a decisions file needs plan_id, approved and rejected")
        if data["plan_id"] != plan_file.plan_id:
            raise InputError(f"{path}: decisions are for plan {data['plan_id']!r}, the plan "
                             f"file is plan {plan_file.plan_id!r}")
        lists = []
        for name in ("approved", "rejected"):
            value = data[name]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InputError(f"{path}: {name} must be a list of action keys")
            lists.append(tuple(value))
        digests = data.get("digests", {})
        if not isinstance(digests, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in digests.items()):
            raise InputError(f"{path}: digests must map action keys to digests")
        known = {k for k, _c, _a in changing_actions(plan_file.plan)}
        unknown = sorted((set(lists[0]) | set(lists[1])) - known)
        if unknown:
            raise InputError(f"{path}: unknown action keys: {', '.join(unknown[:5])}")
        both = sorted(set(lists[0]) & set(lists[1]))
        if both:
            raise InputError(f"{path}: approved and rejected: {', '.join(both[:5])}")
        return cls(str(data["plan_id"]), lists[0], lists[1], dict(digests))


def approve_all(pf: PlanFile) -> Decisions:
    """Approve every changing action of ``pf`` (``apply`` without ``--decisions``)."""
    return Decisions.of(pf, (k for k, _c, _a in changing_actions(pf.plan)))


def approve_types(pf: PlanFile, types: Iterable[str]) -> Decisions:
    """Approve the actions of the given types (``run --approve merge,evict``)."""
    wanted = set(types)
    return Decisions.of(pf, (k for k, _c, a in changing_actions(pf.plan) if a.type in wanted))


@dataclass(frozen=True)
class Filtered:
    """A plan cut down to the approved actions, and what was left out."""

    plan: Plan
    approved: tuple[str, ...]
    rejected: tuple[str, ...]
    undecided: tuple[str, ...]
    dropped: Mapping[str, str]  # approved key -> why it could not stay


def _as_keeps(action: Action, reason: str) -> list[Action]:
    return [Keep(mid, REVIEW_AGENT, reason) for mid in action.subjects]


def filter_plan(plan: Plan, decisions: Decisions) -> Filtered:
    """Keep exactly the approved actions (see the module docstring); the result passes
    :func:`check_plan`."""
    approved, rejected = set(decisions.approved), set(decisions.rejected)
    dropped: dict[str, str] = {}
    clusters = []
    for cluster in plan.clusters:
        keep = {action_key(cluster, i) for i, a in enumerate(cluster.actions)
                if isinstance(a, Keep) or action_key(cluster, i) in approved}
        while True:
            actions: list[Action] = []
            for i, action in enumerate(cluster.actions):
                key = action_key(cluster, i)
                if key in keep:
                    actions.append(action)
                else:
                    why = dropped.get(key) or (REJECTED if key in rejected else NOT_APPROVED)
                    actions.extend(_as_keeps(action, why))
            candidate = replace(cluster, actions=tuple(actions))
            survivors = candidate.survivors() | {a.memory_id for a in actions
                                                 if isinstance(a, Archive)}
            broken = [action_key(cluster, i) for i, a in enumerate(cluster.actions)
                      if action_key(cluster, i) in keep
                      and any(t not in survivors for t in a.targets)]
            if not broken:
                break
            for key in broken:
                keep.discard(key)
                dropped[key] = "points to a memory a rejected action no longer keeps active"
        problems = cluster_problems(candidate)
        if problems:
            raise PlanError(problems)
        clusters.append(candidate)
    filtered = replace(plan, clusters=tuple(clusters))
    check_plan(filtered)
    keys = [k for k, _c, _a in changing_actions(plan)]
    return Filtered(filtered, tuple(k for k in keys if k in approved and k not in dropped),
                    tuple(k for k in keys if k in rejected),
                    tuple(k for k in keys if k not in approved and k not in rejected),
                    dropped)


# -- review items (the HTML page and the terminal) ---------------------------------------

def describe(action: Action) -> str:
    """What an action does, in one line (ids only)."""
    if isinstance(action, Merge):
        return f"merge {', '.join(action.source_ids)} into new memory {action.new_memory.id}"
    if isinstance(action, Supersede):
        return f"{action.old_id} is superseded by {action.new_id}"
    if isinstance(action, Resolve):
        return (f"conflict: {', '.join(action.superseded_ids)} superseded, "
                f"{', '.join(action.kept_ids)} kept")
    return f"{action.type} {action.subjects[0]}"


def review_items(pf: PlanFile) -> list[dict[str, Any]]:
    """One JSON-ready item per changing action: key, cluster, type, agent, reason, the
    texts before (the memories it changes and points to) and after."""
    items = []
    for key, cluster, action in changing_actions(pf.plan):
        ns = cluster.namespace
        before = [{"id": m, "text": pf.text(ns, m), "role": "changed"} for m in action.subjects]
        before += [{"id": m, "text": pf.text(ns, m), "role": "target"} for m in action.targets
                   if m in pf.memories.get(ns, {})]
        if isinstance(action, Merge):
            after = [{"id": action.new_memory.id, "text": action.new_memory.text,
                      "role": "new"}]
        elif isinstance(action, (Supersede, Resolve)):
            after = [{"id": m, "text": pf.text(ns, m) or "(created by a merge of this "
                      "cluster)", "role": "active"} for m in action.targets]
        else:
            after = []
        items.append({"key": key, "digest": pf.digests.get(key, ""),
                      "cluster": cluster.key, "namespace": ns,
                      "type": action.type, "agent": action.agent, "reason": action.reason,
                      "summary": describe(action), "before": before, "after": after})
    return items

