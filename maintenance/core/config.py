"""Configuration: frozen dataclasses read from and written to TOML.

Every section is a frozen dataclass; :func:`config_from_dict` walks the type hints, so a new
field needs no loader code. Validation collects every problem (unknown keys with the valid
choices, wrong types, values outside their choices or bounds) and raises one
:class:`~memmaint.maintenance.core.errors.ConfigError` listing them all.

Field metadata understood by the loader (:mod:`~memmaint.maintenance.core.config_schema`):
- ``choices``: allowed values (strings);
- ``registry``: the value names a registered component (the registry for that config key in
  :mod:`memmaint.maintenance.core.registry` lists the valid names);
- ``min`` / ``max``: numeric bounds (inclusive);
- ``constraint``: an :class:`Interval` the value must lie in (for a table, every value of
  it); the estimators of :mod:`memmaint.clustering` build their scikit-learn
  ``_parameter_constraints`` from the same metadata, so a value the loader refuses is one
  ``fit`` refuses too;
- ``doc``: one line for ``memmaint config show``.
Optional fields (``X | None``) are written to TOML only when set (TOML has no null).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path
from typing import Any, TypeVar

from memmaint.maintenance.core.config_schema import (
    Interval,
    _meta,
    build_config,
    config_to_dict,
    config_to_toml,
    field_choices,
)
from memmaint.maintenance.core.config_schema import option as _opt
from memmaint.maintenance.core.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

T = TypeVar("T")

__all__ = [
    "Config",
    "Interval",
    "config_from_dict",
    "config_to_dict",
    "config_to_toml",
    "field_choices",
    "load_config",
    "with_overrides",
]


#: the pool's scale for relative radii (issue #20): a quantile of 1-NN distances
_QUANTILE = Interval(Real, 0, 1, closed="right")
_QUANTILE_DOC = ("the pool's scale for the relative mode: this quantile of the positive "
                 "distances from each memory to its nearest neighbour in the reduced space "
                 "(0.5: the median 1-NN distance)")
#: the numbers > 0 and finite, >= 0 and finite, and the integers from 1 and from 2
_POSITIVE = Interval(Real, 0, None, closed="neither")
_NON_NEGATIVE = Interval(Real, 0, None, closed="left")
_COUNT_1 = Interval(Integral, 1, None, closed="left")
_COUNT_2 = Interval(Integral, 2, None, closed="left")


@dataclass(frozen=True)
class EmbeddingConfig:
    """Which embedding model turns memory text into vectors."""

    model: str = _opt("minilm", registry="embedding.model", doc="embedding backend")
    batch_size: int = _opt(64, min=1, doc="texts per model call")
    path: str | None = _opt(None, doc="model folder for sentence-transformers")
    dim: int = _opt(384, min=1, doc="vector size of the hashing embedder")
    base_url: str | None = _opt(None, doc="OpenAI-compatible endpoint for model=openai")
    model_name: str | None = _opt(None, doc="model name sent to the endpoint")
    api_key_env: str = _opt("OPENAI_API_KEY", doc="environment variable holding the key")
    threads: int = _opt(0, min=0, doc="onnxruntime threads for model=minilm (0 = all CPUs)")
    precision: str = _opt("int8", choices=("int8", "float32"), doc=(
        "model=minilm: the int8 file's own weights (the light default: no PyTorch; cosine "
        "0.996 to sentence-transformers on the shortest texts) or float32 weights (exact; "
        "the fp32 extra, which pulls PyTorch; the same speed)"))
    timeout_s: float = _opt(60.0, min=0.1, doc="HTTP timeout per request for model=openai")


@dataclass(frozen=True)
class ReductionConfig:
    """Dimensionality reduction before clustering (then z-scored per axis)."""

    method: str = _opt("umap", registry="reduction.method")
    n_components: int = _opt(2, constraint=_COUNT_1)
    seed: int = _opt(0)
    n_neighbors: int = _opt(15, constraint=_COUNT_2, doc="UMAP")
    min_dist: float = _opt(0.1, constraint=Interval(Real, 0, 1, closed="both"), doc="UMAP")
    metric: str = _opt("cosine", choices=("cosine", "euclidean", "manhattan", "correlation"),
                       doc="UMAP")
    perplexity: float = _opt(30.0, constraint=Interval(Real, 1, None, closed="left"),
                             doc="t-SNE")
    tsne_gradient: str = _opt("fft", choices=("fft", "bh", "auto"),
                              doc="t-SNE negative gradient: FFT interpolation or Barnes-Hut")


@dataclass(frozen=True)
class HDBSCANConfig:
    """HDBSCAN density clustering (``algorithm = "hdbscan"``).

    ``memmaint.clustering.density.hdbscan_adapter.HDBSCANClusterer`` takes its defaults and
    parameter constraints from these fields."""

    min_cluster_size: int = _opt(5, constraint=_COUNT_2)
    min_samples: int | None = _opt(None, constraint=_COUNT_1,
                                   doc="unset: min_cluster_size")
    cluster_selection_epsilon: float = _opt(0.0, constraint=_NON_NEGATIVE,
                                            doc="epsilon_mode=absolute: in reduced units")
    cluster_selection_method: str = _opt("eom", choices=("eom", "leaf"))
    epsilon_mode: str = _opt("absolute", choices=("absolute", "relative"), doc=(
        "relative: epsilon = epsilon_rel x the pool's scale (scale_quantile of "
        "its nearest-neighbour distances), the same meaning on every pool"))
    epsilon_rel: float = _opt(0.0, constraint=_NON_NEGATIVE,
                              doc="epsilon_mode=relative: epsilon in units of the pool's scale")
    scale_quantile: float = _opt(0.5, constraint=_QUANTILE, doc=_QUANTILE_DOC)


@dataclass(frozen=True)
class GenKTConfig:
    """Generalised-kt sequential recombination (``algorithm = "genkt"``).

    ``GenKT``, ``GenKTDefinition`` (``memmaint.clustering.genkt``) and ``GenKTClusterer``
    (``memmaint.clustering.pipeline``) take their defaults and parameter constraints from
    these fields."""

    p: float = _opt(-1.0, constraint=Interval(Real, -50, 50, closed="both"),
                    doc="0 = Cambridge/Aachen, 1 = kt, -1 = anti-kt")
    R: float = _opt(1.2, constraint=_POSITIVE, doc="radius: only pairs closer than R merge")
    cos_cut: float = _opt(0.26, constraint=Interval(Real, -1, 1, closed="both"),
                          doc="least embedding cosine of a merging pair (-1: no cut)")
    recombination: str = _opt("weighted", choices=("weighted", "wta", "sphere"))
    use_weights: bool = _opt(True, doc="use memory importance as the weight")
    R_mode: str = _opt("absolute", choices=("absolute", "relative"), doc=(
        "relative: R = R_rel x the pool's scale (scale_quantile of its "
        "nearest-neighbour distances), the same meaning on every pool"))
    R_rel: float = _opt(2.0, constraint=_POSITIVE,
                        doc="R_mode=relative: R in units of the pool's scale")
    scale_quantile: float = _opt(0.5, constraint=_QUANTILE, doc=_QUANTILE_DOC)


@dataclass(frozen=True)
class LinkageConfig:
    """Average linkage on cosine distance, cut where the pool says (``algorithm = "linkage"``)."""

    cut_mode: str = _opt("pool", choices=("pool", "fixed"), doc=(
        "pool: merge down to the pool's median pair cosine + cut_z robust sd; fixed: to cut"))
    cut_z: float = _opt(1.25, constraint=Interval(Real, -10, 10, closed="both"))
    cut: float = _opt(0.3, constraint=Interval(Real, -1, 1, closed="both"))
    recut_above: int = _opt(60, constraint=_COUNT_2, doc="pool: a bigger cluster is re-cut on its own")


@dataclass(frozen=True)
class ClusteringConfig:
    algorithm: str = _opt("linkage", registry="clustering.algorithm")
    singleton_cos: float = _opt(-1.0, constraint=Interval(Real, -1, 1, closed="both"), doc=(
        "one-off guard: a memory whose best cosine to any other memory of its namespace, "
        "in the original embedding space, is below this is noise (-1) whatever the "
        "clusterer says (-1: off)"))
    hdbscan: HDBSCANConfig = field(default_factory=HDBSCANConfig)
    genkt: GenKTConfig = field(default_factory=GenKTConfig)
    linkage: LinkageConfig = field(default_factory=LinkageConfig)


@dataclass(frozen=True)
class AgentsConfig:
    """Rule-based maintenance agents (and which backend decides)."""

    backend: str = _opt("rules", registry="agents.backend")
    merge_threshold: float = _opt(0.78, min=-1.0, max=1.0, doc="cosine for near-duplicates")
    canonical: str = _opt("newest", choices=("newest", "importance", "outcome"))
    ttl_days: dict[str, float] = field(
        default_factory=lambda: {"price": 3.0, "availability": 7.0, "schedule": 30.0,
                                 "reference": 3650.0},
        metadata=_meta(constraint=_NON_NEGATIVE,
                       doc="TTL per kind in days; kinds not listed never expire"))
    evict_stale: bool = _opt(False, doc="evict STALE_BLOCK memories nothing fresher covers")
    outcome_min_uses: int = _opt(5, min=1)
    outcome_evict_below: float = _opt(0.2, min=0.0, max=1.0,
                                      doc="evict when Wilson upper bound is below this")
    outcome_prior_strength: float = _opt(2.0, min=0.01, doc=(
        "outcome model: weight of the namespace's base rate, in outcomes "
        "(memmaint.maintenance.core.outcomes)"))
    outcome_half_life_days: float = _opt(180.0, min=1.0, doc=(
        "outcome model: evidence halves for every this many days since a memory was last used"))
    outcome_evict_failures: int = _opt(2, min=2, doc="evict an unprotected memory with this "
                                       "many failures and no success (one never evicts)")
    outcome_supersede_confidence: float = _opt(0.8, min=0.5, max=1.0, doc=(
        "supersede a memory by a sibling when P(it helps less often) reaches this"))
    outcome_sibling_cosine: float = _opt(0.45, min=-1.0, max=1.0, doc=(
        "cosine from which a memory with outcomes is a sibling of another (the same need)"))
    outcome_cluster_sibling_cosine: float = _opt(0.2, min=-1.0, max=2.0, doc=(
        "a cluster-mate that helped more than it failed is a sibling from this cosine (2: "
        "only the nearest neighbour at outcome_sibling_cosine)"))
    outcome_query_match: float = _opt(0.7, min=-1.0, max=1.0, doc=(
        "serve history: a past query at this cosine or more is the same question"))
    outcome_protect_above: float = _opt(0.6, min=0.0, max=1.0,
                                        doc="protect when Wilson lower bound is above this")
    protect_importance: float = _opt(5.0, min=0.0, doc="importance at or above this protects")
    conflict_policy: str = _opt("newer", choices=("newer", "importance", "outcome"))
    evict_noise: bool = _opt(False, doc="evict old, unused, low-importance singletons")
    noise_max_importance: float = _opt(0.5, min=0.0)
    noise_min_age_days: float = _opt(90.0, min=0.0)
    cover_threshold: float = _opt(0.75, min=-1.0, max=1.0,
                                  doc="cosine at which a newer memory covers a stale one")
    conflict_subject_threshold: float = _opt(
        0.5, min=0.0, max=1.0, doc="subject-word overlap (Jaccard) meaning 'same subject'")
    conflict_strict_threshold: float = _opt(
        0.75, min=0.0, max=1.0,
        doc="subject-word overlap before bare numbers or negation count as a conflict")
    conflict_cosine: float = _opt(0.85, min=-1.0, max=1.0, doc=(
        "cosine from which two memories are about the same subject (and near-identical) for "
        "conflict detection, whatever merge_threshold is"))
    max_active: int | None = _opt(None, min=1,
                                  doc="per-namespace cap on active memories: the lowest-value "
                                      "ones are archived (unset: no cap)")
    cap_redundancy: float = _opt(0.5, min=0.0,
                                 doc="cap: value lost per cosine to a kept memory of the same "
                                     "cluster (0: no redundancy discount)")
    cap_redundancy_floor: float = _opt(0.6, min=0.0, max=0.99, doc=(
        "cap: cosine to a kept memory below which a memory is not redundant at all; above "
        "it the discount grows linearly to cosine 1"))
    regroup_noise: bool = _opt(True, doc="before planning, group noise and singleton memories "
                                         "whose cosines chain at regroup_threshold")
    regroup_threshold: float | None = _opt(
        None, min=-1.0, max=1.0,
        doc="cosine for noise regrouping (unset: min of merge_threshold and cover_threshold)")
    regroup_attach: bool = _opt(True, doc="regrouping: noise whose best cosine to a clustered "
                                          "memory reaches the threshold joins that cluster")
    regroup_max_size: int = _opt(50, min=2, doc="regrouping: larger chains are re-cut at higher "
                                                "cosines")
    merge_uncovered: str = _opt("compose", choices=("compose", "apart"), doc=(
        "a near-duplicate whose content the merged text does not cover "
        "(memmaint.maintenance.agents.coverage): compose (append its missing sentences) or "
        "apart (keep it, in the same cluster)"))
    merge_max_chars: int = _opt(400, min=1, doc=(
        "merge: composing may not make the text longer than this many characters (a longer "
        "source text is still kept whole); a source that would is kept apart"))
    dedup_threshold: float = _opt(0.75, min=-1.0, max=1.0, doc=(
        "merge, below merge_threshold: a memory of the cluster whose content the merged "
        "text already covers (a restatement) is merged from this cosine"))
    subsume_threshold: float = _opt(0.5, min=-1.0, max=1.0, doc=(
        "merge, below dedup_threshold: a memory whose every word a longer memory of the "
        "same holder repeats (its short form: 'Esther is writing a thesis' / 'Esther is "
        "writing a thesis on coral reefs, due in June') is merged from this cosine; 1 "
        "turns it off"))


@dataclass(frozen=True)
class LLMConfig:
    """OpenAI-compatible chat-completions endpoint for the LLM agent (extra ``llm``)."""

    base_url: str = _opt("http://127.0.0.1:8000/v1")
    model: str = _opt("gpt-4o-mini")
    api_key_env: str = _opt("OPENAI_API_KEY")
    max_concurrency: int = _opt(4, min=1)
    max_retries: int = _opt(2, min=0)
    timeout_s: float = _opt(60.0, min=0.1)
    max_evict_share: float = _opt(0.5, min=0.0, max=1.0)
    max_text_chars: int = _opt(2000, min=1)
    http_retries: int = _opt(3, min=0, doc="retries on 429, 5xx and timeouts (with backoff)")
    backoff_s: float = _opt(1.0, min=0.0, doc="first backoff delay; doubles per retry")
    temperature: float = _opt(0.0, min=0.0, max=2.0)
    response_format: str = _opt("auto", choices=("auto", "json_schema", "json_object", "none"),
                                doc=("how the reply's JSON shape is requested: auto tries "
                                     "json_schema, then json_object with the schema, then "
                                     "the schema in the prompt, and keeps the first the "
                                     "server accepts for the run"))
    max_tokens: int = _opt(4096, min=16, doc=(
        "cap on the reply tokens asked for; each call asks for 256 + tokens_per_memory per "
        "memory of its cluster, at most this"))
    tokens_per_memory: int = _opt(160, min=1, doc="reply tokens asked for per memory")
    max_tokens_param: str = _opt("max_tokens", choices=("max_tokens", "max_completion_tokens"),
                                 doc="the request field carrying the limit (OpenAI's newer "
                                     "models want max_completion_tokens)")
    max_cluster_size: int = _opt(60, min=2, doc="the largest cluster sent to the model")
    split_clusters: bool = _opt(True, doc="cut larger clusters into pieces of max_cluster_size "
                                "along the clustering's merge history (false: the rules plan "
                                "them, counted in the report)")
    call_deadline_s: float = _opt(120.0, min=0.1, doc=(
        "wall-clock limit on one LLM call, every retry and every slow read included"))
    run_deadline_s: float = _opt(1800.0, min=0.1, doc=(
        "wall-clock limit on all LLM calls of a run; clusters not planned by then fall back "
        "to the rules"))
    max_reply_bytes: int = _opt(1_000_000, min=1024, doc="the largest reply body accepted")
    max_merge_share: float = _opt(0.8, min=0.0, max=1.0, doc=(
        "a cluster's LLM plan may retire at most this share of its memories by merging "
        "(n sources merged into one retire n - 1)"))
    run_max_merge_share: float = _opt(0.5, min=0.0, max=1.0, doc=(
        "LLM merges may retire at most this share of the run's pool; past it the clusters "
        "merging most fall back to the rules"))


@dataclass(frozen=True)
class JobConfig:
    """The nightly run."""

    min_new_memories: int = _opt(10, min=0)
    seed: int = _opt(0)
    llm_fallback: str = _opt("rules", choices=("rules", "fail"), doc=(
        "rules: a cluster the LLM could not plan keeps the rules' plan, but a run whose LLM "
        "endpoint answered no call fails; fail: any such cluster fails the run (nothing "
        "applied)"))
    incremental: bool = _opt(False, doc=(
        "keep each namespace's clusters after a run and, next time, place only what changed "
        "against them, planning only the clusters it touches (docs/nightly.md)"))
    incremental_cos: float = _opt(0.6, min=-1.0, max=1.0, doc=(
        "incremental: a new or changed memory joins its nearest memory's cluster at this cosine"))
    incremental_max_drift: float = _opt(0.1, min=0.0, doc=(
        "incremental: rebuild in full once memories changed or removed since the last full "
        "rebuild exceed this share of the pool it saw"))


@dataclass(frozen=True)
class RetrieveConfig:
    """Read-time retrieval."""

    k: int = _opt(5, min=1)
    similarity_floor: float = _opt(0.3, min=-1.0, max=1.0,
                                   doc="cosine below which a memory is not relevant")
    relevance_margin: float = _opt(0.25, min=0.0, max=2.0, doc=(
        "gate: a memory is on topic only within this cosine of the query's best candidate "
        "(expired ones included), so a loosely related fresh note does not unlock a topic "
        "whose answers are all stale"))
    relevance_z: float = _opt(1.0, min=-5.0, max=5.0, doc=(
        "gate: a memory is on topic only at least this many standard deviations above the "
        "mean cosine of the scored pool (pools of 5 or more)"))
    lexical: bool = _opt(True, doc="add a BM25 bonus (normalised, capped) to the cosine")
    lexical_cap: float = _opt(0.02, min=0.0, doc="largest lexical bonus")
    gate: bool = _opt(True, doc="freshness gate: drop STALE_BLOCK, down-rank STALE_WARN, "
                                "REFUSE when nothing relevant is FRESH")
    outcome: bool = _opt(True, doc="add the outcome bonus: 2 * outcome_band * (expected "
                                   "success - namespace base rate); model in [agents]")
    outcome_band: float = _opt(0.35, min=0.0, max=1.0, doc=(
        "how far outcome lifts a memory, in similarity units: at most 2 * band * (1 - base "
        "rate), only on topic; 2 * band * (expected - base rate) down at least"))
    outcome_weight_evidence: float = _opt(0.5, min=0.01, doc=(
        "serve history: score = (1 - w) * similarity + w * expected success, w = n / (n + "
        "this), n the outcomes of uses for the same question (core.served)"))
    stand_in_margin: float = _opt(0.1, min=0.0, max=2.0, doc=(
        "gate: where the best candidate is stale or expired, a fresh memory more than this "
        "cosine below it is on topic only when it speaks of that answer (stand_in_cosine)"))
    stand_in_cosine: float = _opt(0.68, min=-1.0, max=2.0, doc=(
        "gate: the cosine with a stale best answer from which a fresh memory stands in for "
        "it ('moved to Thursday' for 'is on Tuesday'); 2: only within stand_in_margin"))
    history_margin: float = _opt(0.03, min=0.0, max=2.0, doc=(
        "serve history: a memory's uses count for the query only when one of its past queries "
        "comes within this cosine of the closest past query of all the candidates (a memory "
        "that only served farther questions served a neighbouring one); 2: off"))
    outcome_counts_evidence: float = _opt(0.1, min=0.01, doc=(
        "counters alone: a memory below the namespace's base rate scores at most (1 - w) * "
        "similarity + w * expected success, w = n / (n + this)"))
    replacement_cosine: float = _opt(0.2, min=-1.0, max=2.0, doc="counters alone: a failed "
                                     "memory's proven pair takes its place from this cosine; 2: off")
    lift_on_topic_only: bool = _opt(True, doc=(
        "counters alone: a good record lifts only memories on the query's topic by the gate's "
        "test (within relevance_margin of the best candidate, a failed one included); across "
        "that gap only a failed memory's pair is lifted, in its place"))
    sink_on_topic_only: bool = _opt(True, doc=(
        "a memory on the query's topic that its record sinks (it helps less often than its "
        "namespace) sinks below the other on-topic candidates only, never below a memory off "
        "the query's topic (the gate's test): outcome reorders a topic, it does not hand the "
        "query to another topic's memory"))
    route: bool = _opt(False, doc="score only the clusters nearest the query (last routing table)")
    route_clusters: int = _opt(2, min=1, doc="routing: nearest cluster centroids searched")
    route_margin: float = _opt(0.05, min=0.0, max=2.0, doc="routing: also search centroids "
                               "this close (cosine) to the last one picked")
    route_min_candidates: int = _opt(10, min=1, doc="routing: score the whole pool when the "
                                                    "picked clusters hold fewer memories")
    route_attach_floor: float = _opt(0.5, min=-1.0, max=1.0,
                                     doc="routing: cosine from which a noise memory joins its "
                                         "nearest cluster (others are always scored)")


@dataclass(frozen=True)
class ShardingConfig:
    """Clustering one namespace in shards when it is too large to do at once
    (``memmaint.clustering.sharding``; guide: docs/scale-out.md)."""

    enabled: bool = _opt(False, doc="shard namespaces larger than max_shard_size")
    max_shard_size: int = _opt(50_000, min=2, doc="most memories reduced and clustered at once")
    reconcile_cos: float = _opt(0.9, min=-1.0, max=1.0,
                                doc="centroid cosine at which clusters of two shards merge")
    neighbours: int = _opt(3, min=1, doc="nearest shards each shard is reconciled with")


@dataclass(frozen=True)
class Config:
    """The whole memmaint configuration (every section optional in TOML)."""

    embedding: EmbeddingConfig = field(default_factory=EmbeddingConfig)
    reduction: ReductionConfig = field(default_factory=ReductionConfig)
    clustering: ClusteringConfig = field(default_factory=ClusteringConfig)
    agents: AgentsConfig = field(default_factory=AgentsConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    job: JobConfig = field(default_factory=JobConfig)
    retrieve: RetrieveConfig = field(default_factory=RetrieveConfig)
    sharding: ShardingConfig = field(default_factory=ShardingConfig)

    def to_dict(self) -> dict[str, Any]:
        return config_to_dict(self)

    def to_toml(self) -> str:
        return config_to_toml(self)

    def hash(self) -> str:
        """A short stable hash of the effective config (recorded with every run and plan)."""
        blob = json.dumps(self.to_dict(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def config_from_dict(data: Mapping[str, Any], cls: type[T] = Config) -> T:  # type: ignore[assignment]
    """Build a config dataclass from a dict, reporting every problem at once."""
    return build_config(data, cls)


def load_config(path: str | Path | None) -> Config:
    """Read a TOML file into a :class:`Config` (defaults when ``path`` is None)."""
    if path is None:
        return Config()
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {p}: {exc.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: not valid TOML ({exc})") from None
    try:
        return config_from_dict(data)
    except ConfigError as exc:
        raise ConfigError([f"{p}: {msg}" for msg in exc.problems]) from None


def with_overrides(config: Config, overrides: Mapping[str, Any]) -> Config:
    """A copy of ``config`` with dotted-key overrides (``{"clustering.genkt.p": -1.7}``)."""
    data = config_to_dict(config)
    for dotted, value in overrides.items():
        node = data
        parts = dotted.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return config_from_dict(data)
