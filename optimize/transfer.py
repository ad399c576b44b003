"""Tuning that transfers (issue #20): pools spanning granularity and one-off shares across
corpora, one-offs left alone, leave-one-corpus-out validation and a Pareto view.

- :func:`transfer_pools` samples the training set: for every corpus (``banking77``, ``hwu64``
  from ``$MEMMAINT_SHARED_DATA``; the synthetic ``mtg`` and ``support`` kinds), one pool per
  granularity (2, 4-6 and 8-12 memories per class by default), with a share of one-offs
  (0-20%) drawn from another corpus (:data:`DONORS`), so they have no paraphrase in the pool.
  Pool names start with the corpus (``banking77-pc2-oo20``): :func:`corpus_of`.
- :func:`oneoffs_alone`: the share of one-off memories (true classes of one) that the
  clustering leaves alone (noise, or a cluster of their own); :func:`oneoffs_safe` (issue #35):
  the share whose cluster holds no member of a real class (a cluster of one-offs is harmless).
- :func:`oracle_by_corpus` (issue #35): the ceiling of the embedding per corpus, average linkage
  on cosine distance with the single cut best for that corpus with its labels (mean recall at
  worst precision >= 0.50); :func:`bar_by_corpus` with ``oracle=`` judges each corpus by its gap
  to it (:data:`BAR35`).
- :func:`loco` re-selects, for each corpus in turn, the best trial on the other corpora's
  pools only and reports it on the left-out corpus (from the per-pool figures every trial
  stores; nothing is re-run).
- :func:`pareto_front`: Optuna's Pareto front over (recall, worst precision, one-offs alone).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.linalg import gram

__all__ = ["BAR", "BAR35", "DONORS", "GRANULARITIES", "Bar", "CorpusBar", "LocoRow", "Oracle",
           "ParetoPoint", "bar_by_corpus", "corpus_of", "format_bar", "format_loco",
           "format_pareto", "loco", "oneoffs_alone", "oneoffs_safe", "oracle_by_corpus",
           "pareto_front", "transfer_pools", "write_transfer_pools"]

#: the corpora each corpus's one-offs come from (issue #35: several donors, one text per
#: donor class at most, so no two one-offs paraphrase each other)
DONORS = {"banking77": ("hwu64", "mtg", "support"), "hwu64": ("banking77", "mtg", "support"),
          "mtg": ("banking77", "hwu64", "support"), "support": ("banking77", "hwu64", "mtg")}
#: memories per class of the pools of each corpus, and the one-off share of each
GRANULARITIES: tuple[tuple[tuple[int, int], float], ...] = (((2, 2), 0.20), ((4, 6), 0.10),
                                                            ((8, 12), 0.05))
SYNTHETIC = ("mtg", "support")


def corpus_of(pool_name: str) -> str:
    """The corpus a pool belongs to: its name (file stem) up to the first ``-``."""
    return Path(pool_name).name.split("-", 1)[0]


def _corpus_texts(name: str, root: Any = None) -> tuple[list[str], list[str]]:
    from memmaint.datasets.labelled import CORPORA
    from memmaint.datasets.pools import make_memory_pool

    if name in CORPORA:
        corpus = CORPORA[name](root)
        return list(corpus.texts), [str(x) for x in corpus.labels]
    if name in SYNTHETIC:
        pool = make_memory_pool(name, n_classes=40, per_class=(12, 12), seed=9_999,
                                weights="none", noise_frac=0.0)
        return pool.texts, [str(x) for x in pool.labels]
    raise InputError(f"unknown corpus {name!r}; known: banking77, hwu64, mtg, support")


def transfer_pools(corpora: Sequence[str] = ("banking77", "hwu64", "mtg", "support"),
                   classes: int = 15, seed: int = 0, root: Any = None,
                   granularities: Sequence[tuple[tuple[int, int], float]] = GRANULARITIES
                   ) -> list[tuple[str, Any]]:
    """``(name, MemoryPool)`` per corpus and granularity, one-offs (label -1) from the
    corpus's donors (:data:`DONORS`, at most one per donor class) added at the granularity's
    share (rotated by corpus, so every share meets every granularity across corpora)."""
    from memmaint.datasets.labelled import add_one_offs, sample_pools
    from memmaint.datasets.pools import make_memory_pool

    out: list[tuple[str, Any]] = []
    donors: dict[str, tuple[list[str], list[str]]] = {}
    shares = [share for _, share in granularities]
    for k, corpus in enumerate(corpora):
        names = DONORS.get(corpus, ("banking77",))
        for donor in names:
            if donor not in donors:
                donors[donor] = _corpus_texts(donor, root)
        donor_texts = [t for d in names for t in donors[d][0]]
        donor_labels = [f"{d}:{x}" for d in names for x in donors[d][1]]
        texts, labels = (None, None) if corpus in SYNTHETIC else _corpus_texts(corpus, root)
        for g, ((lo, hi), _) in enumerate(granularities):
            share = shares[(g + k) % len(shares)]
            s = seed * 1000 + 10 * k + g
            if texts is None:
                pool = make_memory_pool(corpus, n_classes=classes, per_class=(lo, hi), seed=s,
                                        weights="none", noise_frac=0.0)
            else:
                pool = sample_pools(texts, labels or [], 1, classes, (lo, hi), seed=s,
                                    kind=corpus)[0]
            pool = add_one_offs(pool, donor_texts, share, seed=s, donor="+".join(names),
                                donor_labels=donor_labels)
            tag = f"pc{lo}" if lo == hi else f"pc{lo}_{hi}"
            out.append((f"{corpus}-{tag}-oo{round(100 * share)}-s{seed}", pool))
    return out


def write_transfer_pools(folder: str | Path, **kwargs: Any) -> list[Path]:
    """Write :func:`transfer_pools` as JSONL files (one pool per file) under ``folder``."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, pool in transfer_pools(**kwargs):
        path = root / f"{name}.jsonl"
        path.write_text(pool.to_jsonl(), encoding="utf-8")
        paths.append(path)
    return paths


def oneoffs_alone(labels_true: Any, labels_pred: Any) -> float | None:
    """Share of one-off memories (true classes of one member) whose predicted label is noise
    (-1) or a cluster of their own; ``None`` when the pool has no one-off."""
    t = np.asarray(labels_true)
    p = np.asarray(labels_pred)
    _, t_inv, t_counts = np.unique(t, return_inverse=True, return_counts=True)
    one = t_counts[t_inv] == 1
    if not one.any():
        return None
    _, p_inv, p_counts = np.unique(p, return_inverse=True, return_counts=True)
    alone = (p < 0) | (p_counts[p_inv] == 1)
    return float(alone[one].mean())


def _one_offs(labels_true: Any) -> np.ndarray:
    _, inv, counts = np.unique(np.asarray(labels_true), return_inverse=True, return_counts=True)
    return np.asarray(counts[inv] == 1)


def oneoffs_safe(labels_true: Any, labels_pred: Any) -> float | None:
    """Share of one-off memories (true classes of one member) whose predicted cluster holds no
    member of a real class (noise, alone, or only with other one-offs: the agents keep
    unrelated texts apart); ``None`` when the pool has no one-off (issue #35)."""
    one = _one_offs(labels_true)
    if not one.any():
        return None
    p = np.asarray(labels_pred)
    _, p_inv = np.unique(p, return_inverse=True)
    real = np.zeros(p_inv.max() + 1, dtype=bool)
    real[p_inv[~one]] = True
    safe = (p < 0) | ~real[p_inv]
    return float(safe[one].mean())


# -- the bar per corpus ------------------------------------------------------------

#: issue #20's bar: mean recall, worst precision, mean share of one-offs left alone
BAR = (0.90, 0.50, 0.80)


@dataclass(frozen=True)
class Bar:
    """Issue #35's bar: mean recall within ``gap`` of the corpus's oracle (the best single
    average-linkage cut at worst precision >= ``oracle_floor``), worst precision >=
    ``worst_precision`` on every pool, >= ``safe`` of the one-offs safe (:func:`oneoffs_safe`,
    counted over the corpus's pools)."""

    gap: float = 0.03
    oracle_floor: float = 0.50
    worst_precision: float = 0.30
    safe: float = 0.80


BAR35 = Bar()


@dataclass(frozen=True)
class CorpusBar:
    """One corpus's pools (or the 2-per-class pools of every corpus) against the bar:
    :data:`BAR` without an oracle, :data:`BAR35` (the gap to ``oracle``) with one."""

    group: str
    pools: int
    recall: float
    min_recall: float
    worst_precision: float
    alone: float | None
    holds: bool
    safe: float | None = None
    oracle: float | None = None

    @property
    def gap(self) -> float | None:
        """Recall minus the oracle's (negative: below the ceiling)."""
        return None if self.oracle is None else self.recall - self.oracle


def _safe_share(pools: Sequence[Mapping[str, Any]]) -> float | None:
    counted = [(float(p["oneoffs_safe"]), int(p.get("oneoffs") or 1)) for p in pools
               if p.get("oneoffs_safe") is not None]
    total = sum(n for _, n in counted)
    return sum(s * n for s, n in counted) / total if total else None


def bar_by_corpus(pools: Sequence[Mapping[str, Any]],
                  bar: tuple[float, float, float] = BAR,
                  oracle: Mapping[str, Any] | None = None,
                  bar35: Bar = BAR35) -> list[CorpusBar]:
    """Per corpus (and a ``2-per-class`` group of every ``-pc2-`` pool), from per-pool
    figures (``pool``, ``recall``, ``precision``, ``oneoffs_alone``, optionally
    ``oneoffs_safe`` and ``oneoffs``, the count): mean and least recall, worst precision, mean
    one-offs alone, safe one-offs, and whether the group meets the bar. Without ``oracle``
    the bar is ``bar`` (issue #20's: recall, precision, one-offs alone); with ``oracle``
    (group -> :class:`Oracle` or recall) it is ``bar35``. The 2-per-class group is held to
    recall and precision only (its one-offs are counted in their corpus)."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for p in pools:
        groups.setdefault(corpus_of(p["pool"]), []).append(p)
        if "-pc2-" in Path(p["pool"]).name:
            groups.setdefault("2-per-class", []).append(p)
    out = []
    for group in sorted(groups, key=lambda g: (g == "2-per-class", g)):
        rec, prec, rmin, alone = _figures(groups[group])
        safe = _safe_share(groups[group])
        ceiling = None
        if oracle is not None and group in oracle:
            o = oracle[group]
            ceiling = float(o.recall if isinstance(o, Oracle) else o)
        if oracle is None:
            holds = rec >= bar[0] and prec >= bar[1]
            if group != "2-per-class":
                holds = holds and (alone is None or alone >= bar[2])
        else:
            holds = (ceiling is not None and rec >= ceiling - bar35.gap - 1e-9
                     and prec >= bar35.worst_precision)
            if group != "2-per-class":
                holds = holds and (safe is None or safe >= bar35.safe)
        out.append(CorpusBar(group, len(groups[group]), rec, rmin, prec, alone, holds, safe,
                             ceiling))
    return out


def format_bar(rows: Sequence[CorpusBar]) -> str:
    """The per-corpus bar table (markdown); with oracles, the oracle and the gap to it."""
    with_oracle = any(r.oracle is not None for r in rows)
    head = "| pools | n | recall | min recall | worst precision | one-offs alone | safe one-offs |"
    if with_oracle:
        head += " oracle | gap |"
    out = [head + " holds |", "|---|---:|---:|---:|---:|---:|---:|" +
           ("---:|---:|" if with_oracle else "") + "---|"]
    for r in rows:
        alone = "-" if r.alone is None else f"{r.alone:.2f}"
        safe = "-" if r.safe is None else f"{r.safe:.2f}"
        line = (f"| {r.group} | {r.pools} | {r.recall:.2f} | {r.min_recall:.2f} | "
                f"{r.worst_precision:.2f} | {alone} | {safe} |")
        if with_oracle:
            line += ("  - | - |" if r.oracle is None else
                     f" {r.oracle:.2f} | {r.recall - r.oracle:+.2f} |")
        out.append(line + f" {'yes' if r.holds else '**no**'} |")
    return "\n".join(out)


# -- the oracle: the ceiling of the embedding, per corpus ------------------------------------

#: the cosine cuts the oracle tries (0.05, 0.06, ..., 0.70)
ORACLE_CUTS = tuple(round(0.05 + 0.01 * k, 2) for k in range(66))


@dataclass(frozen=True)
class Oracle:
    """A group's best single average-linkage cut with its labels: mean recall, the cut
    (cosine) and the worst precision there; recall 0 and cut ``nan`` when no cut reaches the
    floor."""

    recall: float
    cut: float
    worst_precision: float


def oracle_by_corpus(pools: Sequence[tuple[str, Any, Any]], floor: float = BAR35.oracle_floor,
                     cuts: Sequence[float] = ORACLE_CUTS) -> dict[str, Oracle]:
    """The oracle per corpus (and for the ``2-per-class`` pools), from ``(name, embeddings,
    labels_true)`` per pool: average linkage on cosine distance in the embedding space, cut
    at each cosine of ``cuts``; the group's oracle is the cut with the best mean recall among
    those whose worst precision over the group's pools is >= ``floor`` (B-cubed, noise as
    singletons)."""
    from scipy.cluster.hierarchy import fcluster, linkage

    from memmaint.clustering.metrics import bcubed

    figs: dict[float, list[dict[str, Any]]] = {c: [] for c in cuts}
    for name, embeddings, truth in pools:
        E = np.asarray(embeddings, dtype=np.float64)
        E = E / np.maximum(np.linalg.norm(E, axis=1, keepdims=True), 1e-12)
        n = E.shape[0]
        Z = linkage(np.clip(1.0 - gram(E), 0.0, 2.0)[np.triu_indices(n, 1)], "average") \
            if n > 1 else None
        for c in cuts:
            labels = np.arange(n) if Z is None else fcluster(Z, 1.0 - c + 1e-12, "distance")
            b = bcubed(truth, labels, noise="singletons")
            figs[c].append({"pool": name, "recall": b.recall, "precision": b.precision,
                            "oneoffs_alone": None})
    best: dict[str, Oracle] = {}
    for c in cuts:
        for row in bar_by_corpus(figs[c]):
            old = best.get(row.group)
            if row.worst_precision >= floor and (old is None or row.recall > old.recall):
                best[row.group] = Oracle(row.recall, c, row.worst_precision)
    groups = {r.group for r in bar_by_corpus(figs[cuts[0]])} if cuts else set()
    for g in groups - set(best):
        best[g] = Oracle(0.0, float("nan"), 0.0)
    return best


# -- leave-one-corpus-out, Pareto -----------------------------------------------------------

@dataclass(frozen=True)
class LocoRow:
    """The best trial on every corpus but ``corpus``, scored on ``corpus``'s pools."""

    corpus: str
    trial: int | None
    train_recall: float
    recall: float
    worst_precision: float
    min_recall: float
    alone: float | None
    feasible: bool


def _figures(pools: Sequence[Mapping[str, Any]]) -> tuple[float, float, float, float | None]:
    rec = [float(p["recall"]) for p in pools]
    prec = [float(p["precision"]) for p in pools]
    alone = [float(p["oneoffs_alone"]) for p in pools if p.get("oneoffs_alone") is not None]
    return (float(np.mean(rec)), float(np.min(prec)), float(np.min(rec)),
            float(np.mean(alone)) if alone else None)


def _ok(fig: tuple[float, float, float, float | None], floor: float, min_alone: float) -> bool:
    return fig[1] >= floor and (fig[3] is None or fig[3] >= min_alone)


def loco(trials: Sequence[Any], floor: float, min_alone: float = 0.0) -> list[LocoRow]:
    """Leave-one-corpus-out over completed trials (their ``pools`` user attribute): for each
    corpus, the trial with the best mean recall on the other corpora's pools whose worst
    precision there is >= ``floor`` (and one-offs alone >= ``min_alone``), reported on the
    left-out corpus. Needs pools of at least two corpora."""
    done = [t for t in trials if t.user_attrs.get("pools")]
    if not done:
        return []
    corpora = sorted({corpus_of(p["pool"]) for p in done[0].user_attrs["pools"]})
    if len(corpora) < 2:
        raise InputError("leave-one-corpus-out needs pools of at least two corpora "
                         "(pool names start with the corpus: banking77-...)")
    rows = []
    for corpus in corpora:
        best: tuple[float, Any] | None = None
        for t in done:
            rest = [p for p in t.user_attrs["pools"] if corpus_of(p["pool"]) != corpus]
            fig = _figures(rest)
            if _ok(fig, floor, min_alone) and (best is None or fig[0] > best[0]):
                best = (fig[0], t)
        if best is None:
            rows.append(LocoRow(corpus, None, float("nan"), float("nan"), float("nan"),
                                float("nan"), None, False))
            continue
        mine = [p for p in best[1].user_attrs["pools"] if corpus_of(p["pool"]) == corpus]
        fig = _figures(mine)
        rows.append(LocoRow(corpus, best[1].number, best[0], fig[0], fig[1], fig[2], fig[3],
                            _ok(fig, floor, min_alone)))
    return rows


def format_loco(rows: Sequence[LocoRow]) -> str:
    """The leave-one-corpus-out table (markdown)."""
    out = [("| left out | trial | recall on the rest | recall | min recall | worst precision "
           "| one-offs alone | holds |"), "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        alone = "-" if r.alone is None else f"{r.alone:.2f}"
        out.append(f"| {r.corpus} | {r.trial if r.trial is not None else '-'} | "
                   f"{r.train_recall:.2f} | {r.recall:.2f} | {r.min_recall:.2f} | "
                   f"{r.worst_precision:.2f} | {alone} | {'yes' if r.feasible else '**no**'} |")
    return "\n".join(out)


@dataclass(frozen=True)
class ParetoPoint:
    trial: int
    recall: float
    worst_precision: float
    alone: float
    params: Mapping[str, Any]


def pareto_front(trials: Sequence[Any]) -> list[ParetoPoint]:
    """Optuna's Pareto front (``Study.best_trials`` of a three-objective study) over
    (mean recall, worst precision, one-offs alone) of the completed trials."""
    import optuna

    done = [t for t in trials if t.user_attrs.get("pools")]
    if not done:
        return []
    study = optuna.create_study(directions=["maximize"] * 3)
    for t in done:
        fig = _figures(t.user_attrs["pools"])
        study.add_trial(optuna.trial.create_trial(
            values=[fig[0], fig[1], 1.0 if fig[3] is None else fig[3]],
            user_attrs={"number": t.number, "params": t.user_attrs.get("params", {})}))
    front = [ParetoPoint(int(b.user_attrs["number"]), b.values[0], b.values[1], b.values[2],
                         b.user_attrs["params"]) for b in study.best_trials]
    return sorted(front, key=lambda p: (-p.recall, -p.worst_precision))


def format_pareto(points: Sequence[ParetoPoint], limit: int = 15) -> str:
    out = ["| trial | recall | worst precision | one-offs alone | parameters |",
           "|---|---|---|---|---|"]
    for p in points[:limit]:
        params = ", ".join(f"{k.rsplit('.', 1)[-1]}={v}" for k, v in p.params.items())
        out.append(f"| {p.trial} | {p.recall:.2f} | {p.worst_precision:.2f} | "
                   f"{p.alone:.2f} | {params} |")
    if len(points) > limit:
        out.append(f"| ... {len(points) - limit} more | | | | |")
    return "\n".join(out)
