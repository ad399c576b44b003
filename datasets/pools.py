"""Synthetic memory pools with a known grouping.

A pool is a set of :class:`~memmaint.maintenance.core.records.Memory` records, each a noisy
observation of one latent "ideal instruction" (its class) or a one-off note that belongs to no
class (noise, label ``-1``). Each memory carries an importance weight drawn from a chosen
distribution and a timestamp spread over a window, so the pool can be clustered, scored with
B-cubed precision and recall against the true labels, and handed to maintenance agents.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from memmaint.datasets.grammar import Family, Vocabulary, latent_text, observe, render, sentence
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory, to_utc, utcnow

KINDS: dict[str, str] = {
    "mtg": "memmaint.datasets.vocab_mtg",
    "support": "memmaint.datasets.vocab_support",
}
WEIGHTS = ("powerlaw", "uniform", "bimodal", "none")

# Weight distributions (importance is a float >= 0; 1.0 is the store's default):
UNIFORM_RANGE = (0.1, 2.0)
POWERLAW_ALPHA, POWERLAW_MIN, POWERLAW_CAP = 1.5, 0.3, 30.0
BIMODAL_CRITICAL_SHARE = 0.08
BIMODAL_CRITICAL, BIMODAL_MINOR = (5.0, 10.0), (0.1, 1.0)


@dataclass(frozen=True, eq=False)
class MemoryPool:
    """A synthetic or sampled pool with its ground truth.

    Attributes:
        memories: the records, shuffled (order says nothing about class).
        labels: class index per memory (``-1`` for noise), aligned with ``memories``.
        classes: the latent instruction (or, for sampled corpora, the label name) per class.
        kind: ``mtg``, ``support`` or the corpus the pool was sampled from.
        seed: the seed that produced it.
        families: the family (``synergy``, ``rate_limit``...) of each class, when known.
    """

    memories: list[Memory]
    labels: np.ndarray
    classes: list[str]
    kind: str
    seed: int
    families: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.memories)

    @property
    def texts(self) -> list[str]:
        return [m.text for m in self.memories]

    @property
    def weights(self) -> np.ndarray:
        """Importance per memory as float64."""
        return np.array([m.importance for m in self.memories], dtype=np.float64)

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def to_jsonl(self) -> str:
        """One ``Memory.to_dict()`` JSON object per line (what ``memmaint import`` reads)."""
        return "".join(m.to_json() + "\n" for m in self.memories)


def get_vocabulary(kind: str) -> Vocabulary:
    """The vocabulary of a pool kind (``mtg`` or ``support``)."""
    if kind not in KINDS:
        raise InputError(f"unknown pool kind {kind!r} (choose from {', '.join(KINDS)})")
    return importlib.import_module(KINDS[kind]).VOCABULARY


def parse_per_class(per_class: int | Sequence[int]) -> tuple[int, int]:
    """Normalise ``per_class`` (``N`` or ``(lo, hi)``, inclusive) and check it."""
    if isinstance(per_class, (int, np.integer)) and not isinstance(per_class, bool):
        lo = hi = int(per_class)
    else:
        try:
            lo, hi = (int(v) for v in per_class)  # type: ignore[union-attr]
        except (TypeError, ValueError):
            raise InputError(f"per_class must be N or (LO, HI), got {per_class!r}") from None
    if lo < 1 or hi < lo:
        raise InputError(f"per_class must satisfy 1 <= LO <= HI, got ({lo}, {hi})")
    return lo, hi


def draw_weights(n: int, weights: str, rng: np.random.Generator) -> np.ndarray:
    """``n`` importance weights (all > 0) from the named distribution.

    - ``none``: all 1.0.
    - ``uniform``: U(0.1, 2.0).
    - ``powerlaw``: Pareto with exponent 1.5 above 0.3 (median ~0.48, mean ~0.9), capped at 30.
    - ``bimodal``: a few critical memories (8%, at least one) at U(5, 10), the rest minor at
      U(0.1, 1.0). 5.0 is the agents' default ``protect_importance``.
    """
    if weights == "none":
        return np.ones(n)
    if weights == "uniform":
        return rng.uniform(*UNIFORM_RANGE, size=n)
    if weights == "powerlaw":
        u = rng.random(n)
        return np.minimum(POWERLAW_MIN * (1.0 - u) ** (-1.0 / POWERLAW_ALPHA), POWERLAW_CAP)
    if weights == "bimodal":
        out = rng.uniform(*BIMODAL_MINOR, size=n)
        if n:
            k = max(1, round(BIMODAL_CRITICAL_SHARE * n))
            idx = rng.choice(n, size=k, replace=False)
            out[idx] = rng.uniform(*BIMODAL_CRITICAL, size=k)
        return out
    raise InputError(f"unknown weight distribution {weights!r} (choose from {', '.join(WEIGHTS)})")


def _pick_subjects(vocab: Vocabulary, n_classes: int,
                   rng: np.random.Generator) -> list[tuple[Family, dict[str, Any]]]:
    """Distinct subjects, spread over the families round-robin in random order."""
    remaining: list[tuple[Family, list[dict[str, Any]]]] = []
    for family in vocab.families:
        seen: dict[tuple[str, ...], dict[str, Any]] = {}
        for subject in family.subjects():
            seen.setdefault(family.subject_key(subject), subject)
        subjects = list(seen.values())
        order = rng.permutation(len(subjects))
        remaining.append((family, [subjects[i] for i in order]))
    capacity = sum(len(s) for _, s in remaining)
    if n_classes > capacity:
        raise InputError(f"n_classes={n_classes} exceeds the {capacity} distinct subjects the "
                         f"{vocab.name!r} vocabulary can compose")
    picked: list[tuple[Family, dict[str, Any]]] = []
    while len(picked) < n_classes:
        for i in rng.permutation(len(remaining)):
            family, subjects = remaining[int(i)]
            if subjects and len(picked) < n_classes:
                picked.append((family, subjects.pop()))
    return picked


def _noise_texts(vocab: Vocabulary, n: int, taken: set[str],
                 rng: np.random.Generator) -> list[str]:
    out: list[str] = []
    for _ in range(50 * n + 50):
        if len(out) == n:
            break
        text = sentence(render(str(vocab.noise[int(rng.integers(len(vocab.noise)))]),
                               vocab.noise_fillers, rng))
        if text not in taken:
            taken.add(text)
            out.append(text)
    if len(out) < n:
        raise InputError(f"cannot compose {n} distinct noise notes for {vocab.name!r}; "
                         "lower noise_frac")
    return out


def make_memory_pool(kind: str = "mtg", n_classes: int = 20,
                     per_class: int | Sequence[int] = (3, 8), seed: int = 0,
                     weights: str = "powerlaw", noise_frac: float = 0.05,
                     time_window_days: float = 180.0, now: datetime | None = None,
                     namespace: str = "default") -> MemoryPool:
    """A synthetic memory pool whose true grouping is known.

    Args:
        kind: ``"mtg"`` (a deck-building assistant) or ``"support"`` (a customer-support and
            API-documentation agent with organisational chatter).
        n_classes: number of latent instructions; each becomes one class.
        per_class: members per class, ``N`` or an inclusive ``(lo, hi)`` range.
        seed: seeds a ``numpy.random.Generator``; the same arguments give the same pool.
        weights: importance distribution, one of ``powerlaw``, ``uniform``, ``bimodal``,
            ``none`` (see :func:`draw_weights`).
        noise_frac: share of the pool made of one-off notes (label ``-1``), in [0, 1).
        time_window_days: ``created_at`` is uniform over ``[now - window, now]``.
        now: the end of the window (default: the current time).
        namespace: namespace of every memory.

    Returns:
        A :class:`MemoryPool`; each memory's ``metadata`` holds ``label`` (class index or
        -1), ``latent`` (the ideal instruction, ``None`` for noise) and ``family``.

    Raises:
        InputError: unknown kind or weights, bad sizes, or more classes than the vocabulary
            can compose.
    """
    vocab = get_vocabulary(kind)
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) \
            or n_classes < 1:
        raise InputError(f"n_classes must be a positive integer, got {n_classes!r}")
    lo, hi = parse_per_class(per_class)
    if not 0.0 <= noise_frac < 1.0:
        raise InputError(f"noise_frac must be in [0, 1), got {noise_frac!r}")
    if not time_window_days >= 0:
        raise InputError(f"time_window_days must be >= 0, got {time_window_days!r}")
    if weights not in WEIGHTS:
        raise InputError(f"unknown weight distribution {weights!r} "
                         f"(choose from {', '.join(WEIGHTS)})")
    now = to_utc(now) if now is not None else utcnow().replace(microsecond=0)
    rng = np.random.default_rng(seed)

    subjects = _pick_subjects(vocab, int(n_classes), rng)
    texts: list[str] = []
    labels: list[int] = []
    kinds: list[str] = []
    taken: set[str] = set()
    for label, (family, subject) in enumerate(subjects):
        n = int(rng.integers(lo, hi + 1))
        made = 0
        for _ in range(20):
            for text in observe(family, subject, n - made, vocab.style, rng):
                if text not in taken:
                    taken.add(text)
                    texts.append(text)
                    labels.append(label)
                    kinds.append(family.kind)
                    made += 1
            if made == n:
                break
    n_noise = round(noise_frac * len(texts) / (1.0 - noise_frac))
    for text in _noise_texts(vocab, n_noise, taken, rng):
        texts.append(text)
        labels.append(-1)
        kinds.append(vocab.noise_kind)

    n = len(texts)
    importance = draw_weights(n, weights, rng)
    ages = rng.uniform(0.0, float(time_window_days), size=n)
    order = rng.permutation(n)
    classes = [latent_text(f, s) for f, s in subjects]
    memories: list[Memory] = []
    counters: dict[int, int] = {}
    for i in order:
        label = labels[i]
        j = counters[label] = counters.get(label, 0) + 1
        mid = (f"{kind}-s{seed}-n{j:03d}" if label < 0 else f"{kind}-s{seed}-c{label:03d}-{j}")
        memories.append(Memory(
            text=texts[i], id=mid, namespace=namespace,
            created_at=now - timedelta(days=float(ages[i])),
            importance=round(float(importance[i]), 4), kind=kinds[i],
            source=f"memmaint.datasets:{kind}:seed={seed}",
            metadata={"label": label, "latent": None if label < 0 else classes[label],
                      "family": "noise" if label < 0 else subjects[label][0].name},
        ))
    return MemoryPool(memories=memories, labels=np.array([labels[i] for i in order], dtype=int),
                      classes=classes, kind=kind, seed=seed,
                      families=[f.name for f, _ in subjects])
