"""Embedding throughput and cold start, side by side in one run.

For each backend (the MiniLM default: the int8 ONNX file's graph with float32 weights; the same
file run as it is, in int8 (``precision="int8"``); the hashing embedder; and, when installed,
sentence-transformers' all-MiniLM-L6-v2 on torch) it measures:

- cold start: a fresh Python process imports the embedder, constructs it and embeds one text
  (timed inside that process from before the import to after the first vector);
- throughput: sentences per second embedding the corpus in calls of ``--batch`` texts, after a
  warm-up call; the best and the median of ``--repeats`` passes, the backends' passes taken
  in turn so that a machine's drift hits them alike; once with the texts in
  their given order and once sorted by length, which is how ``embed_memories`` (``memmaint
  embed``, the nightly job) feeds the model.

Throughput depends on text length (the model's cost is per word piece), so it is measured on
each corpus found: LoCoMo observations (real agent memories), banking77 test requests (both
from ``../shared/data``, read in place) and the 200 reference sentences in ``tests/fixtures``
(varied, six of them longer than the 256-token window). Usage::

    python benchmarks/embed_throughput.py [--batch 64] [--threads 2] [--n 1024] [--no-st]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from memmaint.maintenance.embed.base import Embedder

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
LOCOMO = DATA / "locomo" / "locomo_dev5.json"
BANKING = DATA / "banking77" / "test.csv"
FIXTURE = ROOT / "tests" / "fixtures" / "minilm_reference.json"

BACKENDS = {
    "minilm-onnx": (
        "from memmaint.maintenance.embed.minilm import MiniLMEmbedder",
        "MiniLMEmbedder(batch_size={batch}, threads={threads})",
    ),
    "minilm-onnx-int8": (
        "from memmaint.maintenance.embed.minilm import MiniLMEmbedder",
        "MiniLMEmbedder(batch_size={batch}, threads={threads}, precision='int8')",
    ),
    "hashing": (
        "from memmaint.maintenance.embed.hashing import HashingEmbedder",
        "HashingEmbedder(dim=384)",
    ),
    "sentence-transformers": (
        "from memmaint.maintenance.embed.sentence_transformers import SentenceTransformerEmbedder",
        "SentenceTransformerEmbedder(batch_size={batch})",
    ),
}

_COLD = """
import time
t0 = time.perf_counter()
{import_line}
t1 = time.perf_counter()
emb = {construct}
emb.embed(["The user prefers oat milk in their coffee."])
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def load_corpora(n: int) -> dict[str, list[str]]:
    """Each available corpus, repeated or cut to ``n`` texts."""
    import csv

    corpora: dict[str, list[str]] = {}
    if LOCOMO.is_file():
        texts: list[str] = []
        for conv in json.loads(LOCOMO.read_text(encoding="utf-8")):
            for session in conv["observation"].values():
                for facts in session.values():
                    texts.extend(f[0] for f in facts)
        corpora["locomo"] = texts
    if BANKING.is_file():
        with open(BANKING, newline="", encoding="utf-8") as fh:
            corpora["banking77"] = [row["text"] for row in csv.DictReader(fh)]
    corpora["reference"] = json.loads(FIXTURE.read_text(encoding="utf-8"))["sentences"]
    return {k: (v * -(-n // len(v)))[:n] for k, v in corpora.items()}


def cold_start(backend: str, batch: int, threads: int) -> tuple[float, float] | None:
    import_line, construct = BACKENDS[backend]
    code = _COLD.format(import_line=import_line,
                        construct=construct.format(batch=batch, threads=threads))
    env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="true")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=ROOT, check=False)
    if proc.returncode != 0:
        print(f"  {backend}: cold start failed: {proc.stderr.strip().splitlines()[-1:]}",
              file=sys.stderr)
        return None
    imp, first = map(float, proc.stdout.split()[-2:])
    return imp, first


def make_embedder(backend: str, batch: int, threads: int) -> Embedder:
    from memmaint.maintenance.embed.hashing import HashingEmbedder
    from memmaint.maintenance.embed.minilm import MiniLMEmbedder
    from memmaint.maintenance.embed.sentence_transformers import SentenceTransformerEmbedder

    if backend == "minilm-onnx":
        return MiniLMEmbedder(batch_size=batch, threads=threads)
    if backend == "minilm-onnx-int8":
        return MiniLMEmbedder(batch_size=batch, threads=threads, precision="int8")
    if backend == "hashing":
        return HashingEmbedder(dim=384)
    return SentenceTransformerEmbedder(batch_size=batch)


def throughput(embedders: dict[str, Embedder], texts: list[str], batch: int, repeats: int,
               by_length: bool = False) -> dict[str, tuple[float, float]]:
    """Per backend, (best, median) sentences/s over ``repeats`` passes in calls of ``batch``
    texts, the backends' passes interleaved; with ``by_length`` the texts are first sorted by
    length, as ``embed_memories`` (hence ``memmaint embed`` and the nightly job) feeds the
    model."""
    if by_length:
        texts = sorted(texts, key=len)
    rates: dict[str, list[float]] = {b: [] for b in embedders}
    for emb in embedders.values():
        emb.embed(texts[:batch])  # warm-up
    for _ in range(repeats):
        for b, emb in embedders.items():
            t0 = time.perf_counter()
            for i in range(0, len(texts), batch):
                emb.embed(texts[i:i + batch])
            rates[b].append(len(texts) / (time.perf_counter() - t0))
    return {b: (max(r), statistics.median(r)) for b, r in rates.items()}


def st_available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) for m in ("sentence_transformers", "torch"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2, help="onnxruntime and torch threads")
    ap.add_argument("--n", type=int, default=1024, help="sentences per pass")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-st", action="store_true", help="skip sentence-transformers")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    backends = ["minilm-onnx", "minilm-onnx-int8", "hashing"]
    if not args.no_st and st_available():
        backends.append("sentence-transformers")
        import torch

        torch.set_num_threads(args.threads)
    corpora = load_corpora(args.n)
    from tokenizers import Tokenizer

    from memmaint.maintenance.embed.minilm import tokenizer_folder

    tok = Tokenizer.from_file(str(tokenizer_folder() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    print(f"batch {args.batch}; {args.threads} threads; {os.cpu_count()} CPUs; "
          f"load average {os.getloadavg()[0]:.2f}")
    for name, texts in corpora.items():
        pieces = statistics.mean(min(len(e.ids), 256) for e in tok.encode_batch(texts))
        print(f"corpus {name}: {len(texts)} texts, mean {pieces:.1f} word pieces (capped at 256)")

    colds = {b: cold_start(b, args.batch, args.threads) for b in backends}
    orders = {"as given": False, "sorted by length (as memmaint embed)": True}
    embedders = {b: make_embedder(b, args.batch, args.threads) for b in backends}
    rates: dict[tuple[str, str, bool], tuple[float, float]] = {}
    for name, texts in corpora.items():
        for by_length in orders.values():
            measured = throughput(embedders, texts, args.batch, args.repeats, by_length)
            for b, rate in measured.items():
                rates[(b, name, by_length)] = rate

    print(f"\n{'backend':<24}{'import s':>10}{'construct+1st s':>17}{'cold start s':>14}")
    for b, cold in colds.items():
        imp, first = cold if cold else (float("nan"), float("nan"))
        print(f"{b:<24}{imp:>10.3f}{first:>17.3f}{imp + first:>14.3f}")
    for label, by_length in orders.items():
        print(f"\nsentences/s in calls of {args.batch}, texts {label} "
              f"(median of {args.repeats}, best in brackets)")
        print(f"{'backend':<24}" + "".join(f"{name:>20}" for name in corpora))
        for b in backends:
            cells = "".join(f"{rates[(b, n, by_length)][1]:>11.0f} "
                            f"({rates[(b, n, by_length)][0]:>5.0f})" for n in corpora)
            print(f"{b:<24}{cells}")
        print("ratios to minilm-onnx (median throughput):")
        for b in backends:
            ratios = "".join(
                f"{rates[(b, n, by_length)][1] / rates[('minilm-onnx', n, by_length)][1]:>19.2f}x"
                for n in corpora)
            print(f"{b:<24}{ratios}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
