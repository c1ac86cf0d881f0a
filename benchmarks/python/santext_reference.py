"""The published SanText algorithm's sampling loop in numpy, timed: the anchor for dptext's sampler.

The SanText authors' code (Yue et al. 2021) precomputes a dense |V| x |V| probability matrix,
P[x, y] = softmax_y(-epsilon * d(x, y) / 2) with d the Euclidean distance of the embeddings, and then
draws each token's replacement with ``np.random.choice(|V|, 1, p=P[x])``: a pass over the whole row
per token (numpy checks the row, builds its cumulative sum and searches it). This script rebuilds that
algorithm (written here from the paper's definition, not copied) over the first V words of a GloVe
text file and times the per-token loop over the in-vocabulary tokens of IMDb reviews. The matrix is
built untimed, in blocks, in float64 as the reference does; it needs 8·V² bytes (7.7 GB at V = 31,000).

Usage: python santext_reference.py GLOVE.txt REVIEWS.jsonl --vocab 31000 --epsilons 1,3 --tokens 5000
Prints one line per epsilon: ``reference santext eps=E V=N: T tokens in S s = R tokens/s``.
"""

from __future__ import annotations

import argparse
import json
import re
import time

import numpy as np

TOKEN = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")


def read_glove(path: str, vocab: int) -> tuple[dict[str, int], np.ndarray]:
    words: dict[str, int] = {}
    vectors = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if len(words) == vocab:
                break
            parts = line.rstrip("\n").split(" ")
            words[parts[0]] = len(words)
            vectors.append(np.asarray(parts[1:], dtype=np.float64))
    return words, np.vstack(vectors)


def probability_matrix(vectors: np.ndarray, epsilon: float, block: int = 1024) -> np.ndarray:
    """Row x: softmax over y of -epsilon * ||v_x - v_y|| / 2, in float64 (the reference's matrix)."""
    n = vectors.shape[0]
    norms = np.einsum("ij,ij->i", vectors, vectors)
    out = np.empty((n, n), dtype=np.float64)
    for start in range(0, n, block):
        rows = vectors[start : start + block]
        d2 = norms[start : start + block, None] + norms[None, :] - 2.0 * rows @ vectors.T
        logits = -0.5 * epsilon * np.sqrt(np.maximum(d2, 0.0))
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        out[start : start + block] = weights / weights.sum(axis=1, keepdims=True)
    return out


def review_tokens(path: str, words: dict[str, int], limit: int) -> list[int]:
    ids: list[int] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            for token in TOKEN.findall(json.loads(line)["review"].lower()):
                rank = words.get(token)
                if rank is not None:
                    ids.append(rank)
                    if len(ids) == limit:
                        return ids
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("glove")
    parser.add_argument("reviews")
    parser.add_argument("--vocab", type=int, default=31_000)
    parser.add_argument("--epsilons", default="1,3")
    parser.add_argument("--tokens", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    words, vectors = read_glove(args.glove, args.vocab)
    tokens = review_tokens(args.reviews, words, args.tokens)
    np.random.seed(args.seed)
    for epsilon in (float(e) for e in args.epsilons.split(",")):
        matrix = probability_matrix(vectors, epsilon)
        size = matrix.shape[0]
        changed = 0
        start = time.perf_counter()
        for x in tokens:
            y = np.random.choice(size, 1, p=matrix[x])[0]
            changed += y != x
        seconds = time.perf_counter() - start
        print(
            f"reference santext eps={epsilon:g} V={size}: {len(tokens)} tokens in {seconds:.2f} s"
            f" = {len(tokens) / seconds:,.0f} tokens/s, {100.0 * changed / len(tokens):.1f}% changed",
            flush=True,
        )
        del matrix


if __name__ == "__main__":
    main()
