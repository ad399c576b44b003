"""The optional all-mpnet-base-v2 embedder (issue #35 item 6): errors without the extra, the
split-zip reader and MPNet's position buckets always; vectors when the extra is installed."""

from __future__ import annotations

import importlib.metadata
import itertools
import math
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.core.errors import MissingExtraError, UserError
from memmaint.maintenance.embed import mpnet
from memmaint.maintenance.embed._mpnet_graph import relative_buckets


def _installed() -> bool:
    try:
        import onnx  # noqa: F401

        mpnet.part_files()
    except (ImportError, UserError):
        return False
    return True


needs_mpnet = pytest.mark.skipif(not _installed(), reason=(
    "the mpnet extra is not installed: " + mpnet.INSTALL_HINT))

TEXTS = ["How do I reset my card PIN?", "I forgot the PIN of my card, how can I change it?",
         "wake me up at seven tomorrow", "a",
         "The quick brown fox jumps over the lazy dog " * 40]
#: sentence-transformers 6.2 (PyTorch, float32) on the same texts: the first text's first
#: coordinates and the cosines between the texts
REFERENCE_HEAD = [-0.06577959, -0.04898361, 0.00349523, -0.00216793, -0.00191364, -0.00573686,
                  -0.01447974, -0.03168520]
REFERENCE_COSINES = [[1.0, 0.8726, 0.0771, 0.0016, 0.0062],
                     [0.8726, 1.0, 0.0932, -0.0246, -0.0143],
                     [0.0771, 0.0932, 1.0, 0.1137, 0.1882],
                     [0.0016, -0.0246, 0.1137, 1.0, 0.1552],
                     [0.0062, -0.0143, 0.1882, 0.1552, 1.0]]


def test_missing_parts_is_one_line_naming_the_extra(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(MissingExtraError) as info:
        mpnet.part_files()
    message = str(info.value)
    assert "\n" not in message and "memmaint[mpnet]" in message and "--no-deps" in message


def test_missing_onnx_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(MissingExtraError, match=r"memmaint\[mpnet\]"):
        mpnet.MPNetEmbedder()


def test_registered_without_importing_it():
    from memmaint.maintenance.embed.base import available_embedders

    assert "mpnet" in available_embedders()
    assert EmbeddingConfig().model == "minilm"  # the default is unchanged


def test_split_zip_reads_as_one(tmp_path):
    whole = tmp_path / "whole.zip"
    payload = np.random.default_rng(0).bytes(300_000)
    with zipfile.ZipFile(whole, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("all-mpnet-base-v2/model.safetensors", payload)
        zf.writestr("all-mpnet-base-v2/tokenizer.json", b"{}")
    data = whole.read_bytes()
    cuts = [0, 1000, 150_000, len(data)]
    parts = []
    for i, (lo, hi) in enumerate(itertools.pairwise(cuts)):
        part = tmp_path / f"p{i}"
        part.write_bytes(data[lo:hi])
        parts.append(part)
    with mpnet._Joined(parts) as joined, zipfile.ZipFile(joined) as zf:  # type: ignore[arg-type]
        assert zf.read("all-mpnet-base-v2/model.safetensors") == payload
    joined = mpnet._Joined(parts)
    joined.seek(-10, 2)
    assert joined.read() == data[-10:] and joined.tell() == len(data)
    joined.seek(990)
    assert joined.read(20) == data[990:1010]
    joined.close()


def _hf_bucket(relative_position: int, num_buckets: int = 32, max_distance: int = 128) -> int:
    """Hugging Face's MPNet relative_position_bucket for one offset, written out."""
    ret, n = 0, -relative_position
    num_buckets //= 2
    ret += num_buckets if n < 0 else 0
    n = abs(n)
    max_exact = num_buckets // 2
    if n < max_exact:
        return ret + n
    large = max_exact + int(np.float32(math.log(np.float32(n) / np.float32(max_exact)))
                            / np.float32(math.log(max_distance / max_exact))
                            * np.float32(num_buckets - max_exact))
    return ret + min(large, num_buckets - 1)


def test_relative_buckets_match_mpnet():
    width = 400
    b = relative_buckets(width)
    assert b.shape == (width, width) and b.dtype == np.int64
    for i in (0, 5, 17, 200, 399):
        for j in (0, 3, 8, 16, 31, 64, 128, 300, 399):
            assert b[i, j] == _hf_bucket(j - i), (i, j)
    assert b.min() == 0 and b.max() == 31


@needs_mpnet
@pytest.mark.slow
def test_matches_sentence_transformers():
    emb = mpnet.MPNetEmbedder(batch_size=2)
    v = emb.embed(TEXTS)
    assert v.shape == (5, 768) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(v[0, :8], REFERENCE_HEAD, atol=2e-5)
    np.testing.assert_allclose(v @ v.T, REFERENCE_COSINES, atol=2e-4)
    assert emb.last_truncated == 0
    emb.embed(["The quick brown fox jumps over the lazy dog " * 50])  # over 384 tokens
    assert emb.last_truncated == 1
    cos = v @ v.T
    assert cos[0, 1] > 0.8 and cos[0, 2] < 0.2  # paraphrase above unrelated
    assert emb.embed([]).shape == (0, 768)


@needs_mpnet
@pytest.mark.slow
def test_through_the_registry(tmp_path: Path):
    from memmaint.maintenance.embed.base import get_embedder

    emb = get_embedder(EmbeddingConfig(model="mpnet", batch_size=8, threads=1))
    assert emb.model_id == mpnet.MODEL_ID and emb.dim == 768
    one = emb.embed(TEXTS[:3])
    again = emb.embed(TEXTS[2:3])
    np.testing.assert_allclose(one[2], again[0], atol=1e-5)  # batching changes nothing
