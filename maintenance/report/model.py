"""Run reports and comparisons: what a nightly run (or a dry run of a configuration) did.

A :class:`RunReport` is a JSON-ready record of one run: identity (run id, config hash,
package versions, seed), per-stage timings and counts, and one :class:`ConfigOutcome` per
configuration that clustered the pool (the primary and, optionally, a shadow). A
:class:`Comparison` sets two outcomes side by side: cluster counts and size distribution,
noise, actions by type, memories affected, pool size before and after, LLM calls and tokens,
the overlap of their decisions (memories both would merge, only one would, and conflicting
decisions) with examples, and B-cubed precision and recall when the memories carry
ground-truth labels in ``metadata["label"]``.

Everything here is pure: values in, values out. The text renderings
(:func:`~memmaint.maintenance.report.text.format_report`, ``format_comparison``, ``table``)
are in :mod:`memmaint.maintenance.report.text`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memmaint.maintenance.core.errors import InputError

REPORT_VERSION = 1
#: Decision types, in display order. ``keep`` is the absence of any other decision.
DECISION_TYPES = ("merge", "supersede", "evict", "resolve", "archive")
#: At most this many points of the reduced space are kept for the 2-D map (all namespaces).
MAX_MAP_POINTS = 4000
#: Text snippets are kept for at most this many affected memories (for examples).
MAX_TEXTS = 5000
SNIPPET_CHARS = 160
N_EXAMPLES = 5
Key = tuple[str, str]  # (namespace, memory id)


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


@dataclass
class StageTiming:
    """One stage of a run: wall seconds, CPU seconds of the whole process (all threads)
    and how many items it handled."""

    name: str
    seconds: float
    count: int = 0
    detail: dict[str, Any] = field(default_factory=dict)
    cpu_seconds: float = 0.0


@dataclass
class Decision:
    """What one configuration would do to one memory (``keep`` decisions are not stored).

    ``group`` numbers the action inside its outcome, so two memories with the same ``group``
    were decided together (for a merge: merged into the same memory). ``target`` is the
    memory that replaces this one, when there is one.
    """

    namespace: str
    memory_id: str
    type: str
    group: int
    target: str | None = None
    agent: str = ""
    reason: str = ""

    @property
    def key(self) -> Key:
        return (self.namespace, self.memory_id)


@dataclass
class BCubedScores:
    """B-cubed precision/recall/F1 against ``metadata["label"]`` (noise is one cluster per
    namespace), unweighted and weighted by importance, over ``n_labelled`` memories."""

    precision: float
    recall: float
    f1: float
    weighted_precision: float
    weighted_recall: float
    weighted_f1: float
    n_labelled: int


@dataclass
class ConfigOutcome:
    """What one configuration did (or would do) to the pool.

    ``cluster_sizes`` maps a cluster size to how many clusters have it (noise excluded);
    ``map_points`` maps a namespace to ``[x, y, label]`` rows of a sample of the reduced
    space (first two axes, or a PCA of it when it has more than two); ``texts`` holds
    snippets of affected memories for examples, keyed ``"namespace\\x1fid"``.
    """

    name: str
    config_hash: str
    algorithm: str
    description: str
    reduction: str
    n_memories: int
    n_clusters: int
    noise: int
    cluster_sizes: dict[int, int]
    pool_before: int
    pool_after: int
    actions_by_type: dict[str, int]
    memories_affected: int
    decisions: list[Decision] = field(default_factory=list)
    applied: bool = False
    llm_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    fallbacks: int = 0
    llm: dict[str, Any] = field(default_factory=dict)  # agents.llm_report.summary()
    flagged: dict[str, int] = field(default_factory=dict)
    bcubed: BCubedScores | None = None
    map_points: dict[str, list[list[float]]] = field(default_factory=dict)
    map_axes: str = ""
    texts: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    #: the routing tables built from this outcome (``memmaint.maintenance.retrieve.routing``)
    routing: dict[str, Any] = field(default_factory=dict)
    #: what the ``max_active`` cap archived, per namespace (``CapResult.to_dict()``)
    cap: list[dict[str, Any]] = field(default_factory=list)
    #: decided memory (keyed as ``texts``) -> [step, distance] of the merge that first took it
    joined: dict[str, list[float]] = field(default_factory=dict)
    #: namespace -> share of its memories in its largest cluster (issue #35: a precision proxy;
    #: near 1 the clustering is degenerate, see ``job.outcome.degenerate_warnings``)
    largest_share: dict[str, float] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    def decision_map(self) -> dict[Key, Decision]:
        return {d.key: d for d in self.decisions}

    def text_of(self, key: Key) -> str | None:
        return self.texts.get(_text_key(key))

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["cluster_sizes"] = {str(k): v for k, v in sorted(self.cluster_sizes.items())}
        out["decisions"] = [[d.namespace, d.memory_id, d.type, d.group, d.target, d.agent,
                             d.reason] for d in self.decisions]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConfigOutcome:
        kwargs = dict(data)
        kwargs["cluster_sizes"] = {int(k): int(v) for k, v in data.get("cluster_sizes", {}).items()}
        kwargs["decisions"] = [Decision(*row) for row in data.get("decisions", [])]
        if data.get("bcubed") is not None:
            kwargs["bcubed"] = BCubedScores(**data["bcubed"])
        return cls(**kwargs)


def _text_key(key: Key) -> str:
    return f"{key[0]}\x1f{key[1]}"


@dataclass
class RunReport:
    """The report of one ``memmaint run`` (stored with the run and written as JSON).

    ``status`` is one of ``succeeded``, ``dry-run``, ``skipped``, ``failed``.
    """

    run_id: str
    started_at: str
    finished_at: str | None = None
    status: str = "running"
    dry_run: bool = False
    forced: bool = False
    namespaces: list[str] = field(default_factory=list)
    skip_reason: str | None = None
    error: str | None = None
    config_hash: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    shadow_config_hash: str | None = None
    shadow_config: dict[str, Any] | None = None
    versions: dict[str, str] = field(default_factory=dict)
    seed: int = 0
    new_memories: int = 0
    min_new_memories: int = 0
    pool_before: int = 0
    pool_after: int = 0
    embedding: dict[str, Any] = field(default_factory=dict)
    stages: list[StageTiming] = field(default_factory=list)
    primary: ConfigOutcome | None = None
    shadow: ConfigOutcome | None = None
    apply: dict[str, Any] = field(default_factory=dict)
    changes: dict[str, Any] = field(default_factory=dict)  # sequences seen/taken: job.changes
    version: int = REPORT_VERSION

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.stages)

    @property
    def tokens(self) -> int:
        return sum(o.tokens for o in (self.primary, self.shadow) if o is not None)

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k not in ("primary", "shadow")}
        out["primary"] = None if self.primary is None else self.primary.to_dict()
        out["shadow"] = None if self.shadow is None else self.shadow.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunReport:
        if not isinstance(data, Mapping) or "run_id" not in data:
            raise InputError("not a memmaint run report (no run_id)")
        if data.get("version", REPORT_VERSION) > REPORT_VERSION:
            raise InputError(
                f"run report version {data.get('version')} is newer than this memmaint "
                f"understands ({REPORT_VERSION})"
            )
        kwargs = dict(data)
        kwargs["stages"] = [StageTiming(**s) for s in data.get("stages", [])]
        for name in ("primary", "shadow"):
            if data.get(name) is not None:
                kwargs[name] = ConfigOutcome.from_dict(data[name])
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in kwargs.items() if k in known})

    def to_json(self, indent: int | None = 1) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, default=str)

    @classmethod
    def from_json(cls, text: str) -> RunReport:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"run report is not valid JSON ({exc})") from None
        try:
            return cls.from_dict(data)
        except (TypeError, KeyError, ValueError) as exc:
            raise InputError(f"malformed run report: {exc}") from None

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> RunReport:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read run report {p}: {exc}") from None
        try:
            return cls.from_json(text)
        except InputError as exc:
            raise InputError(f"{p}: {exc}") from None

    def stage(self, name: str) -> StageTiming | None:
        return next((s for s in self.stages if s.name == name), None)


# -- building outcomes ---------------------------------------------------------------------

def size_distribution(labels: Iterable[int]) -> tuple[int, int, dict[int, int]]:
    """``(n_clusters, noise, {size: count})`` of integer labels (noise is ``-1``)."""
    counts = Counter(int(x) for x in labels)
    noise = counts.pop(-1, 0)
    sizes = Counter(counts.values())
    return len(counts), noise, dict(sorted(sizes.items()))


def sample_indices(n: int, limit: int, seed: int = 0) -> list[int]:
    """A deterministic sorted sample of ``min(n, limit)`` indices out of ``n``."""
    if n <= limit:
        return list(range(n))
    import numpy as np

    rng = np.random.default_rng(seed)
    return sorted(int(i) for i in rng.choice(n, size=limit, replace=False))


def map_coordinates(reduced: Any) -> tuple[Any, str]:
    """Two display axes for a reduced space and their description."""
    import numpy as np

    x = np.asarray(reduced, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] == 0:
        return np.zeros((0, 2)), ""
    k = x.shape[1]
    if k == 2:
        return x, "reduced axes 1 and 2"
    if k == 1:
        jitter = np.random.default_rng(0).uniform(-0.5, 0.5, size=(x.shape[0], 1))
        return np.hstack([x, jitter]), "reduced axis (1-D, vertical jitter)"
    if x.shape[0] < 3:
        return x[:, :2], "reduced axes 1 and 2"
    centred = x - x.mean(axis=0)
    _u, _s, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:2].T, f"first two principal axes of the {k}-D reduced space"


def bcubed_scores(
    true_labels: Sequence[Any], pred_labels: Sequence[int], namespaces: Sequence[str],
    weights: Sequence[float],
) -> BCubedScores | None:
    """B-cubed of predicted labels against ground truth, where ``true_labels[i]`` is
    ``None`` for unlabelled memories (left out). Labels are namespace-scoped; a negative
    true label marks a one-off memory (a class of its own); each namespace's predicted noise
    (``-1``) counts as one cluster, as the method we follow scores HDBSCAN.
    """
    import numpy as np

    from memmaint.clustering.metrics import bcubed

    keep = [i for i, t in enumerate(true_labels) if t is not None]
    if not keep:
        return None
    true_ids: dict[tuple[str, str], int] = {}
    pred_ids: dict[tuple[str, int], int] = {}
    t = np.empty(len(keep), dtype=np.int64)
    p = np.empty(len(keep), dtype=np.int64)
    for j, i in enumerate(keep):
        truth = true_labels[i]
        if isinstance(truth, (int, float)) and not isinstance(truth, bool) and truth < 0:
            truth = f"\x00one-off {i}"
        t[j] = true_ids.setdefault((namespaces[i], str(truth)), len(true_ids))
        p[j] = pred_ids.setdefault((namespaces[i], int(pred_labels[i])), len(pred_ids))
    w = np.asarray([weights[i] for i in keep], dtype=np.float64)
    plain = bcubed(t, p)
    if np.all(w > 0):
        weighted = bcubed(t, p, weights=w)
    else:  # zero importance would drop items from the weighted average entirely
        weighted = bcubed(t, p, weights=np.maximum(w, 1e-9))
    return BCubedScores(
        precision=float(plain.precision), recall=float(plain.recall), f1=float(plain.f1),
        weighted_precision=float(weighted.precision), weighted_recall=float(weighted.recall),
        weighted_f1=float(weighted.f1), n_labelled=len(keep),
    )


# -- comparison -----------------------------------------------------------------------------

@dataclass
class Example:
    namespace: str
    memory_id: str
    text: str | None
    a: str
    b: str


@dataclass
class Overlap:
    """How two outcomes' decisions line up, memory by memory."""

    both_merge: int
    both_merge_same_group: int
    only_a_merge: int
    only_b_merge: int
    conflicts: int
    same_decision: int
    affected_both: int
    affected_only_a: int
    affected_only_b: int
    examples: dict[str, list[Example]] = field(default_factory=dict)


@dataclass
class Comparison:
    """Two outcomes side by side (see :func:`compare_outcomes`)."""

    a: ConfigOutcome
    b: ConfigOutcome
    overlap: Overlap
    label_a: str = "A"
    label_b: str = "B"

    def to_dict(self) -> dict[str, Any]:
        return {
            "label_a": self.label_a, "label_b": self.label_b,
            "a": self.a.to_dict(), "b": self.b.to_dict(), "overlap": asdict(self.overlap),
        }


def _merge_partners(outcome: ConfigOutcome) -> dict[Key, frozenset[Key]]:
    groups: dict[int, set[Key]] = {}
    for d in outcome.decisions:
        if d.type == "merge":  # the target is a new memory: its id differs between outcomes
            groups.setdefault(d.group, set()).add(d.key)
    out: dict[Key, frozenset[Key]] = {}
    for members in groups.values():
        frozen = frozenset(members)
        for key in members:
            out[key] = frozen
    return out


def compare_outcomes(a: ConfigOutcome, b: ConfigOutcome, *, label_a: str = "A",
                     label_b: str = "B", n_examples: int = N_EXAMPLES) -> Comparison:
    """Compare two outcomes over the same pool.

    A memory "would merge" under an outcome when a merge action takes it (as a source
    replaced by another memory). Two non-keep decisions of different types on the same
    memory (say, A merges it and B evicts it) are a conflict. ``both_merge_same_group``
    counts the memories both would merge with exactly the same partners.
    """
    da, db = a.decision_map(), b.decision_map()
    merged_a = {k for k, d in da.items() if d.type == "merge"}
    merged_b = {k for k, d in db.items() if d.type == "merge"}
    both = merged_a & merged_b
    partners_a, partners_b = _merge_partners(a), _merge_partners(b)
    same_group = sum(1 for k in both if partners_a.get(k) == partners_b.get(k))
    shared = set(da) & set(db)
    conflicts = sorted(k for k in shared if da[k].type != db[k].type)
    only_a = sorted(merged_a - merged_b)
    only_b = sorted(merged_b - merged_a)

    def text(key: Key) -> str | None:
        return a.text_of(key) or b.text_of(key)

    def describe(d: Decision | None, partners: Mapping[Key, frozenset[Key]]) -> str:
        if d is None:
            return "keep"
        if d.type == "merge":
            others = len(partners.get(d.key, ())) - 1
            return f"merge with {others} other{'s' if others != 1 else ''}"
        return d.type if d.target is None else f"{d.type} -> {d.target}"

    def examples(keys: Iterable[Key]) -> list[Example]:
        ordered = sorted(keys, key=lambda k: (text(k) is None, k))
        return [Example(k[0], k[1], text(k), describe(da.get(k), partners_a),
                        describe(db.get(k), partners_b))
                for k in ordered[:n_examples]]

    overlap = Overlap(
        both_merge=len(both), both_merge_same_group=same_group,
        only_a_merge=len(only_a), only_b_merge=len(only_b), conflicts=len(conflicts),
        same_decision=sum(1 for k in shared if da[k].type == db[k].type),
        affected_both=len(shared), affected_only_a=len(set(da) - set(db)),
        affected_only_b=len(set(db) - set(da)),
        examples={
            "both_merge": examples(both), "only_a_merge": examples(only_a),
            "only_b_merge": examples(only_b), "conflicts": examples(conflicts),
        },
    )
    return Comparison(a, b, overlap, label_a, label_b)


# -- text rendering -------------------------------------------------------------------------
