"""Okapi BM25 over a small pool of texts: the lexical half of hybrid retrieval.

The index is built once per pool (:meth:`BM25.fit`) and scores any number of queries. Texts are
lower-cased, split on word characters and stripped of a short list of English function words,
so that "the" or "is" never decides a ranking; numbers are kept ("39" in "$39/mo" is a token).

Scores use the Lucene/ATIRE idf, ``log(1 + (N - df + 0.5) / (df + 0.5))``, which is never
negative, so a term present in most of the pool still adds (a little) rather than subtracts.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)

STOP_WORDS = frozenset({
    "a", "about", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "being", "but", "by", "can", "could", "did", "do", "does", "doing", "for",
    "from", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i",
    "if", "in", "into", "is", "it", "its", "just", "me", "more", "most", "my", "no", "nor", "not",
    "of", "off", "on", "once", "only", "or", "other", "our", "out", "over", "own", "same", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "would", "you", "your",
})


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` without stop words."""
    return [t for t in _WORD.findall(text.lower()) if t not in STOP_WORDS]


class BM25:
    """Okapi BM25 (``k1``, ``b``) over a fixed list of documents.

    >>> index = BM25().fit(["the pro plan costs $39", "reset your password here"])
    >>> [round(float(s), 3) for s in index.scores("password reset")]
    [0.0, 1.631]
    """

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise ValueError(f"need k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1 = k1
        self.b = b

    def fit(self, texts: Sequence[str]) -> BM25:
        """Index ``texts``; returns ``self``."""
        docs = [Counter(tokenize(t)) for t in texts]
        self.n_docs_ = len(docs)
        lengths = np.array([sum(d.values()) for d in docs], dtype=np.float64)
        self.avg_len_ = float(lengths.mean()) if len(docs) and lengths.sum() else 1.0
        self.length_norm_ = self.k1 * (1.0 - self.b + self.b * lengths / self.avg_len_)
        df: Counter[str] = Counter()
        self.postings_: dict[str, list[tuple[int, int]]] = {}
        for i, doc in enumerate(docs):
            for term, tf in doc.items():
                df[term] += 1
                self.postings_.setdefault(term, []).append((i, tf))
        n = self.n_docs_
        self.idf_ = {t: math.log(1.0 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        return self

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for ``query`` (float64, in document order)."""
        out = np.zeros(self.n_docs_, dtype=np.float64)
        for term in set(tokenize(query)):
            postings = self.postings_.get(term)
            if not postings:
                continue
            idf = self.idf_[term]
            idx = np.fromiter((i for i, _ in postings), dtype=np.int64, count=len(postings))
            tf = np.fromiter((f for _, f in postings), dtype=np.float64, count=len(postings))
            out[idx] += idf * tf * (self.k1 + 1.0) / (tf + self.length_norm_[idx])
        return out
