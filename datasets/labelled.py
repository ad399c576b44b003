"""Real labelled corpora: loaders and disjoint-class pool sampling.

Labelled intent corpora (Banking77, HWU64) are ground truth for clustering: each intent is one
latent instruction and its texts are noisy paraphrases of it. :func:`load_labelled` reads any
JSONL or CSV file with a text and a label column (and optionally a weight column);
:func:`sample_pools` cuts one corpus into several pools whose classes are disjoint, so that a
configuration tuned on some pools can be validated on others.

The corpora are read where they lie (``../shared/data`` beside the project, or the folder in
``MEMMAINT_DATA_DIR``); nothing is copied into the project.
"""

from __future__ import annotations

import csv
import json
import logging
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from memmaint.datasets.pools import MemoryPool, draw_weights, parse_per_class
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory, to_utc, utcnow

DATA_ENV = "MEMMAINT_DATA_DIR"
#: The variable's old name (``datasets`` only), still read with a deprecation warning.
OLD_DATA_ENV = "MEMMAINT_SHARED_DATA"
_FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv",
            ".tsv": "tsv"}


@dataclass(frozen=True, eq=False)
class LabelledCorpus:
    """Texts with string labels and optional weights (aligned lists)."""

    texts: list[str]
    labels: list[str]
    weights: np.ndarray | None = None
    source: str = ""

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def classes(self) -> list[str]:
        """The distinct labels, sorted."""
        return sorted(set(self.labels))


def _weight(value: object, where: str) -> float:
    if isinstance(value, bool):
        raise InputError(f"{where}: weight must be a number, got {value!r}")
    try:
        w = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{where}: weight {value!r} is not a number") from None
    if math.isnan(w) or math.isinf(w) or w < 0:
        raise InputError(f"{where}: weight must be a finite number >= 0, got {value!r}")
    return w


def _label(value: object, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"{where}: label must be a string or an integer, got {value!r}")
    label = str(value).strip()
    if not label:
        raise InputError(f"{where}: empty label")
    return label


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: empty or missing text")
    return value.strip()


def load_labelled(path: str | os.PathLike[str], text_col: str = "text",
                  label_col: str = "label", weight_col: str | None = None,
                  fmt: str | None = None) -> LabelledCorpus:
    """Read a labelled corpus from JSONL (one object per line) or CSV/TSV (with a header).

    Args:
        path: the file.
        text_col, label_col: column (or key) names of the text and its class label.
        weight_col: optional column of non-negative importance weights.
        fmt: ``"jsonl"``, ``"csv"`` or ``"tsv"``; default from the file suffix.

    Raises:
        InputError: the file is missing or unreadable, a column is missing (the message lists
            the columns there are), or a row is bad (named by line number). Nothing is
            returned unless every row is good.
    """
    path = Path(path)
    if fmt is None:
        fmt = _FORMATS.get(path.suffix.lower())
        if fmt is None:
            raise InputError(f"{path}: cannot tell the format from the suffix "
                             f"{path.suffix!r}; pass fmt='jsonl' or 'csv'")
    if fmt not in ("jsonl", "csv", "tsv"):
        raise InputError(f"unknown format {fmt!r} (choose from jsonl, csv, tsv)")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    texts: list[str] = []
    labels: list[str] = []
    weights: list[float] = []
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            if fmt == "jsonl":
                _read_jsonl(fh, path, text_col, label_col, weight_col, texts, labels, weights)
            else:
                _read_csv(fh, path, "\t" if fmt == "tsv" else ",", text_col, label_col,
                          weight_col, texts, labels, weights)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason})") from None
    if not texts:
        raise InputError(f"{path}: no rows")
    return LabelledCorpus(texts, labels, np.array(weights) if weight_col else None, str(path))


def _read_jsonl(fh, path: Path, text_col: str, label_col: str,  # type: ignore[no-untyped-def]
                weight_col: str | None, texts: list[str], labels: list[str],
                weights: list[float]) -> None:
    for lineno, line in enumerate(fh, 1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: invalid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise InputError(f"{where}: expected a JSON object, got {type(row).__name__}")
        for col in (text_col, label_col) + ((weight_col,) if weight_col else ()):
            if col not in row:
                raise InputError(f"{where}: missing key {col!r} (keys: {', '.join(sorted(row))})")
        texts.append(_text(row[text_col], where))
        labels.append(_label(row[label_col], where))
        if weight_col:
            weights.append(_weight(row[weight_col], where))


def _read_csv(fh, path: Path, delimiter: str, text_col: str,  # type: ignore[no-untyped-def]
              label_col: str, weight_col: str | None, texts: list[str], labels: list[str],
              weights: list[float]) -> None:
    reader = csv.DictReader(fh, delimiter=delimiter)
    header = reader.fieldnames or []
    for col in (text_col, label_col) + ((weight_col,) if weight_col else ()):
        if col not in header:
            raise InputError(f"{path}: no column {col!r} (columns: {', '.join(header) or 'none'})")
    try:
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if None in row or any(v is None for v in row.values()):
                raise InputError(f"{where}: expected {len(header)} fields")
            texts.append(_text(row[text_col], where))
            labels.append(_label(row[label_col], where))
            if weight_col:
                weights.append(_weight(row[weight_col], where))
    except csv.Error as exc:
        raise InputError(f"{path}:{reader.line_num}: malformed CSV ({exc})") from None


def data_dir_from_env() -> str | None:
    """``$MEMMAINT_DATA_DIR``, else the deprecated ``$MEMMAINT_SHARED_DATA`` (with a warning
    in the log), else None. ``datasets`` and ``eval`` both read the data folder here."""
    value = os.environ.get(DATA_ENV)
    if value:
        return value
    old = os.environ.get(OLD_DATA_ENV)
    if old:
        logging.getLogger("memmaint.datasets").warning(
            "$%s is deprecated: set $%s instead", OLD_DATA_ENV, DATA_ENV)
    return old or None


def data_root(root: str | os.PathLike[str] | None = None) -> Path:
    """The shared data folder: ``root``, else ``$MEMMAINT_DATA_DIR`` (the old name
    ``$MEMMAINT_SHARED_DATA`` still works, with a warning), else ``../shared/data`` relative
    to the current directory."""
    chosen = Path(root) if root is not None else Path(
        data_dir_from_env() or Path.cwd().parent / "shared" / "data")
    if not chosen.is_dir():
        raise InputError(f"data folder {chosen} not found (pass a root or set {DATA_ENV})")
    return chosen


def _corpus_dir(root: str | os.PathLike[str] | None, name: str) -> Path:
    base = data_root(root)
    return base if base.name == name else base / name


def load_banking77(root: str | os.PathLike[str] | None = None,
                   splits: Sequence[str] = ("train", "test")) -> LabelledCorpus:
    """Banking77 (77 banking intents; ``text,category``), the given splits concatenated.

    ``root`` is the shared data folder or the ``banking77`` folder itself.
    """
    folder = _corpus_dir(root, "banking77")
    texts: list[str] = []
    labels: list[str] = []
    for split in splits:
        part = load_labelled(folder / f"{split}.csv", "text", "category")
        texts += part.texts
        labels += part.labels
    return LabelledCorpus(texts, labels, None, str(folder))


def load_hwu64(root: str | os.PathLike[str] | None = None) -> LabelledCorpus:
    """HWU64 (64 home-assistant intents; ``hwu64_all.csv``, columns ``text`` and ``label``).

    ``root`` is the shared data folder or the ``hwu64`` folder itself.
    """
    folder = _corpus_dir(root, "hwu64")
    corpus = load_labelled(folder / "hwu64_all.csv", "text", "label")
    return LabelledCorpus(corpus.texts, corpus.labels, None, str(folder))


CORPORA = {"banking77": load_banking77, "hwu64": load_hwu64}


def sample_pools(texts: Sequence[str], labels: Sequence[str | int], n_pools: int,
                 classes_per_pool: int, per_class: int | Sequence[int], seed: int = 0,
                 weights: str | Sequence[float] | np.ndarray | None = None,
                 kind: str = "corpus", namespace: str = "default",
                 now: datetime | None = None, time_window_days: float = 180.0
                 ) -> list[MemoryPool]:
    """Cut one labelled corpus into ``n_pools`` pools with disjoint classes.

    Args:
        texts, labels: the corpus (aligned).
        n_pools: number of pools.
        classes_per_pool: classes in each pool; no class appears in two pools.
        per_class: texts per class, ``N`` or an inclusive ``(lo, hi)``; only classes with at
            least ``lo`` texts are eligible, and a class never gives more texts than it has.
        seed: seeds the choice of classes, texts, weights and timestamps.
        weights: per-text importances aligned with ``texts``, or the name of a distribution
            (``powerlaw``, ``uniform``, ``bimodal``, ``none``); ``None`` means all 1.0.
        kind: a name for the corpus, used in memory ids and ``MemoryPool.kind``.

    Returns:
        Pools whose memories carry ``metadata={"label": class index in the pool, "class":
        the corpus label}``; ``MemoryPool.classes`` holds the corpus labels.

    Raises:
        InputError: misaligned inputs, bad sizes, or too few eligible classes.
    """
    if len(texts) != len(labels):
        raise InputError(f"{len(texts)} texts but {len(labels)} labels")
    bad = next((i for i, t in enumerate(texts) if not isinstance(t, str) or not t.strip()), None)
    if bad is not None:
        raise InputError(f"text {bad} is empty or not a string")
    for name, value in (("n_pools", n_pools), ("classes_per_pool", classes_per_pool)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InputError(f"{name} must be a positive integer, got {value!r}")
    lo, hi = parse_per_class(per_class)
    given: np.ndarray | None = None
    if weights is not None and not isinstance(weights, str):
        given = np.asarray(weights, dtype=np.float64)
        if given.shape != (len(texts),):
            raise InputError(f"weights has shape {given.shape}, expected ({len(texts)},)")
        if not np.all(np.isfinite(given)) or np.any(given < 0):
            raise InputError("weights must be finite numbers >= 0")
    by_class: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        by_class.setdefault(str(label), []).append(i)
    eligible = sorted(c for c, idx in by_class.items() if len(idx) >= lo)
    need = n_pools * classes_per_pool
    if need > len(eligible):
        raise InputError(f"{n_pools} pools x {classes_per_pool} classes needs {need} classes "
                         f"with at least {lo} texts each; the corpus has {len(eligible)}")
    now = to_utc(now) if now is not None else utcnow().replace(microsecond=0)
    rng = np.random.default_rng(seed)
    chosen = [eligible[int(i)] for i in rng.permutation(len(eligible))[:need]]
    pools: list[MemoryPool] = []
    for p in range(n_pools):
        classes = chosen[p * classes_per_pool:(p + 1) * classes_per_pool]
        rows: list[tuple[int, int]] = []  # (corpus index, class index)
        for c, name in enumerate(classes):
            members = by_class[name]
            n = min(len(members), int(rng.integers(lo, hi + 1)))
            rows += [(members[int(i)], c) for i in rng.choice(len(members), n, replace=False)]
        order = rng.permutation(len(rows))
        rows = [rows[int(i)] for i in order]
        if given is not None:
            imp = given[[r for r, _ in rows]]
        else:
            imp = draw_weights(len(rows), weights if isinstance(weights, str) else "none", rng)
        ages = rng.uniform(0.0, float(time_window_days), size=len(rows))
        memories = [
            Memory(text=str(texts[r]).strip(), id=f"{kind}-s{seed}-p{p}-{j:04d}",
                   namespace=namespace, created_at=now - timedelta(days=float(ages[j])),
                   importance=round(float(imp[j]), 4),
                   source=f"memmaint.datasets:{kind}:seed={seed}",
                   metadata={"label": c, "class": classes[c]})
            for j, (r, c) in enumerate(rows)
        ]
        pools.append(MemoryPool(memories=memories, labels=np.array([c for _, c in rows]),
                                classes=list(classes), kind=kind, seed=seed))
    return pools


def add_one_offs(pool: MemoryPool, donor_texts: Sequence[str], share: float, seed: int = 0,
                 donor: str = "donor",
                 donor_labels: Sequence[str | int] | None = None) -> MemoryPool:
    """``pool`` with one-off memories (label ``-1``) drawn from ``donor_texts``, another
    corpus than the pool's classes, so that they make up ``share`` (0 <= share < 1) of the
    result; distinct texts, shuffled in, importance 1.0, ``metadata["one_off"] = donor``.
    With ``donor_labels`` (aligned with ``donor_texts``) at most one text per donor class is
    taken, so no two one-offs paraphrase each other.

    Used by the transfer tuning of issue #20: one-offs from another corpus have no paraphrase
    in the pool, so a clustering should leave them alone.
    """
    if not 0.0 <= share < 1.0:
        raise InputError(f"share must be in [0, 1), got {share}")
    n_add = round(share * len(pool) / (1.0 - share))
    if donor_labels is not None:
        if len(donor_labels) != len(donor_texts):
            raise InputError(f"{len(donor_texts)} donor texts but {len(donor_labels)} labels")
        first: dict[str, str] = {}
        order = np.random.default_rng(seed + 1).permutation(len(donor_texts))
        for i in order:
            text = str(donor_texts[int(i)]).strip()
            if text:
                first.setdefault(str(donor_labels[int(i)]), text)
        donor_texts = list(first.values())
    uniq = sorted({str(t).strip() for t in donor_texts if str(t).strip()})
    if n_add > len(uniq):
        raise InputError(f"{n_add} one-offs asked for, the donor has {len(uniq)} texts")
    rng = np.random.default_rng(seed)
    picked = [uniq[int(i)] for i in rng.choice(len(uniq), n_add, replace=False)]
    now = max((m.created_at for m in pool.memories), default=utcnow())
    extra = [Memory(text=t, id=f"{pool.kind}-s{pool.seed}-oneoff-{j:04d}",
                    namespace=pool.memories[0].namespace if pool.memories else "default",
                    created_at=now, importance=1.0,
                    source=f"memmaint.datasets:{donor}:one-off",
                    metadata={"label": -1, "one_off": donor}) for j, t in enumerate(picked)]
    memories = list(pool.memories) + extra
    labels = np.concatenate([np.asarray(pool.labels, dtype=np.int64),
                             np.full(n_add, -1, dtype=np.int64)])
    order = rng.permutation(len(memories))
    return MemoryPool(memories=[memories[int(i)] for i in order], labels=labels[order],
                      classes=list(pool.classes), kind=pool.kind, seed=pool.seed,
                      families=list(pool.families))
