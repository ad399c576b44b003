"""MPNet's encoder as an ONNX graph, built in memory from a ``model.safetensors`` (private).

The graph is Hugging Face's ``MPNetModel`` without dropout or pooler: word and position
embeddings, LayerNorm, then 12 layers of self-attention (with MPNet's relative-position bias,
shared by every layer) and a GELU feed-forward block, each closed by a residual LayerNorm.
Its tensors are *external data*: offsets into the safetensors file, which onnxruntime reads
when the session starts (give it the file's folder); a linear layer's weight, stored by
PyTorch as (out, in), goes through a ``Transpose`` that onnxruntime folds at load.

What depends on the batch only is computed by the caller in numpy and fed: ``position_ids``
(counted from the pad id over real tokens), ``buckets`` (the relative-position bucket of
every (query, key) pair of the width, :func:`relative_buckets`) and ``mask_bias`` (0 for real
tokens, the float32 minimum for padding, shaped (batch, 1, 1, width)).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.maintenance.core.errors import MemmaintError
from memmaint.maintenance.embed.minilm_fp32 import safetensors_index

HIDDEN, HEADS, LAYERS, INTERMEDIATE = 768, 12, 12, 3072
NUM_BUCKETS, MAX_DISTANCE = 32, 128
LAYER_NORM_EPS = 1e-5
OPSET = 17


def relative_buckets(width: int, num_buckets: int = NUM_BUCKETS,
                     max_distance: int = MAX_DISTANCE) -> np.ndarray:
    """(width, width) int64: MPNet's bucket of key position j seen from query position i
    (``MPNetEncoder.relative_position_bucket`` of ``j - i``, float32 logarithm as in PyTorch)."""
    pos = np.arange(width, dtype=np.int64)
    n = -(pos[None, :] - pos[:, None])
    half = num_buckets // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    with np.errstate(divide="ignore"):
        scaled = (np.log(n.astype(np.float32) / np.float32(max_exact))
                  / np.float32(math.log(max_distance / max_exact))
                  * np.float32(half - max_exact))
    large = max_exact + np.where(np.isfinite(scaled), scaled, 0).astype(np.int64)
    large = np.minimum(large, half - 1)
    return ret + np.where(n < max_exact, n, large)


def mpnet_graph(weights: Path) -> tuple[bytes, Callable[[int], np.ndarray]]:
    """``(serialised model, buckets)``: the encoder reading ``weights`` (give onnxruntime its
    folder), and a cached ``width -> relative_buckets(width)``. Inputs ``input_ids``,
    ``position_ids`` (int64, (batch, width)), ``buckets`` (int64, (width, width)),
    ``mask_bias`` (float32, (batch, 1, 1, width)); output ``last_hidden_state`` (batch, width,
    768). Raises :class:`MemmaintError` when a tensor is missing or has the wrong shape."""
    from onnx import TensorProto, helper

    start, header = safetensors_index(weights)
    nodes: list[Any] = []
    inits: list[Any] = []

    def tensor(key: str, shape: tuple[int, ...], transpose: bool = False) -> str:
        info = header.get(key)
        if info is None or info.get("dtype") != "F32" or tuple(info["shape"]) != shape:
            got = None if info is None else (info.get("dtype"), info.get("shape"))
            raise MemmaintError(f"{weights}: tensor {key} should be float32 {list(shape)}, is "
                                f"{got}: not the all-mpnet-base-v2 weights")
        lo, hi = (int(v) for v in info["data_offsets"])
        t = TensorProto(name=key, data_type=TensorProto.FLOAT, dims=list(shape),
                        data_location=TensorProto.EXTERNAL)
        for field, value in (("location", weights.name), ("offset", str(start + lo)),
                             ("length", str(hi - lo))):
            entry = t.external_data.add()
            entry.key, entry.value = field, value
        inits.append(t)
        if not transpose:
            return key
        nodes.append(helper.make_node("Transpose", [key], [key + ".T"], perm=[1, 0]))
        return key + ".T"

    def const(name: str, values: Any, dtype: Any = np.int64) -> str:
        from onnx import numpy_helper

        inits.append(numpy_helper.from_array(np.asarray(values, dtype=dtype), name))
        return name

    counter = [0]

    def op(kind: str, inputs: list[str], **attrs: Any) -> str:
        counter[0] += 1
        out = f"{kind.lower()}_{counter[0]}"
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def linear(x: str, prefix: str, n_in: int, n_out: int) -> str:
        w = tensor(prefix + ".weight", (n_out, n_in), transpose=True)
        b = tensor(prefix + ".bias", (n_out,))
        return op("Add", [op("MatMul", [x, w]), b])

    def layer_norm(x: str, prefix: str) -> str:
        return op("LayerNormalization", [x, tensor(prefix + ".weight", (HIDDEN,)),
                                         tensor(prefix + ".bias", (HIDDEN,))],
                  axis=-1, epsilon=LAYER_NORM_EPS)

    vocab = int(header.get("embeddings.word_embeddings.weight", {}).get("shape", [0])[0])
    positions = int(header.get("embeddings.position_embeddings.weight", {}).get("shape",
                                                                                 [0])[0])
    words = op("Gather", [tensor("embeddings.word_embeddings.weight", (vocab, HIDDEN)),
                          "input_ids"])
    where = op("Gather", [tensor("embeddings.position_embeddings.weight", (positions, HIDDEN)),
                          "position_ids"])
    h = layer_norm(op("Add", [words, where]), "embeddings.LayerNorm")

    rel = op("Gather", [tensor("encoder.relative_attention_bias.weight", (NUM_BUCKETS, HEADS)),
                        "buckets"])  # (L, L, H)
    rel = op("Unsqueeze", [op("Transpose", [rel], perm=[2, 0, 1]), const("axes0", [0])])
    bias = op("Add", [rel, "mask_bias"])  # (B, H, L, L)
    heads = const("heads_shape", [0, 0, HEADS, HIDDEN // HEADS])
    merged = const("merged_shape", [0, 0, HIDDEN])
    scale = const("scale", 1.0 / math.sqrt(HIDDEN // HEADS), np.float32)
    half = const("half", 0.5, np.float32)
    one = const("one", 1.0, np.float32)
    root2 = const("root2", math.sqrt(2.0), np.float32)

    for i in range(LAYERS):
        p = f"encoder.layer.{i}."

        def split(x: str, perm: list[int]) -> str:
            return op("Transpose", [op("Reshape", [x, heads])], perm=perm)

        q = split(linear(h, p + "attention.attn.q", HIDDEN, HIDDEN), [0, 2, 1, 3])
        k = split(linear(h, p + "attention.attn.k", HIDDEN, HIDDEN), [0, 2, 3, 1])
        v = split(linear(h, p + "attention.attn.v", HIDDEN, HIDDEN), [0, 2, 1, 3])
        scores = op("Add", [op("Mul", [op("MatMul", [q, k]), scale]), bias])
        probs = op("Softmax", [scores], axis=-1)
        ctx = op("Reshape", [op("Transpose", [op("MatMul", [probs, v])], perm=[0, 2, 1, 3]),
                             merged])
        attn = linear(ctx, p + "attention.attn.o", HIDDEN, HIDDEN)
        a = layer_norm(op("Add", [attn, h]), p + "attention.LayerNorm")
        x = linear(a, p + "intermediate.dense", HIDDEN, INTERMEDIATE)
        gelu = op("Mul", [op("Mul", [x, half]),
                          op("Add", [op("Erf", [op("Div", [x, root2])]), one])])
        out = linear(gelu, p + "output.dense", INTERMEDIATE, HIDDEN)
        h = layer_norm(op("Add", [out, a]), p + "output.LayerNorm")
    nodes.append(helper.make_node("Identity", [h], ["last_hidden_state"]))

    graph = helper.make_graph(
        nodes, "all-mpnet-base-v2",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "width"]),
         helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch", "width"]),
         helper.make_tensor_value_info("buckets", TensorProto.INT64, ["width", "width"]),
         helper.make_tensor_value_info("mask_bias", TensorProto.FLOAT,
                                       ["batch", 1, 1, "width"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                       ["batch", "width", HIDDEN])],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="memmaint")
    return model.SerializeToString(), lru_cache(maxsize=64)(relative_buckets)
