"""How much could exact pruning save in the Laplace mechanism's nearest-word search?

An exact pruned search computes a cheap lower bound LB(y) of ‖q − φ(y)‖² for every word and the full
distance only for words whose bound does not already exceed the k-th nearest distance τ. This script
measures, for real queries (IMDb tokens' GloVe vectors plus multivariate Laplace noise, as the
mechanism draws them), the share of the vocabulary whose bound stays ≤ τ — the words any such search
must still compute in full — with τ the exact k-th distance, i.e. the best case of a search that knew
τ before it started. Two families of bounds, the two worth trying:

* principal directions: the first p coordinates in the PCA basis exactly, the rest by the reverse
  triangle inequality on their norms, LB = ‖q_h − y_h‖² + (‖q_t‖ − ‖y_t‖)²;
* clusters (k-means, C centres): LB = (‖q − c(y)‖ − ‖φ(y) − c(y)‖)² per word, the tightest triangle
  bound a cluster index can use for a word (the cluster-level bound (‖q − c‖ − r_c)² is weaker).

It also prints the largest speed-up such a search could have over brute force by counting products
only: m / (p + s·m) for the PCA bound (s the surviving share), 1 / (C/|V| + s) for clusters.

Usage: pruning_bounds.py <glove.txt> <reviews.jsonl> --vocab V [--queries 2000] [--epsilons 6,12]
"""

import argparse
import json
import re
import time

import numpy as np


def load(glove, vocab):
    words, rows = [], []
    with open(glove, encoding="utf-8") as f:
        for line in f:
            if len(words) >= vocab:
                break
            parts = line.rstrip().split(" ")
            words.append(parts[0])
            rows.append(np.asarray(parts[1:], dtype=np.float64))
    return words, np.vstack(rows)


def token_ranks(reviews, index, n, rng):
    ranks = []
    with open(reviews, encoding="utf-8") as f:
        for line in f:
            text = json.loads(line).get("review", "")
            for t in re.findall(r"[a-z0-9']+", text.lower()):
                r = index.get(t)
                if r is not None:
                    ranks.append(r)
            if len(ranks) >= 20 * n:
                break
    ranks = np.asarray(ranks)
    return ranks[rng.choice(len(ranks), size=n, replace=False)]


def laplace_queries(x, ranks, epsilon, rng):
    m = x.shape[1]
    direction = rng.standard_normal((len(ranks), m))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    radius = rng.gamma(m, 1.0 / epsilon, len(ranks))  # density ∝ exp(−ε‖z‖) in m dimensions
    return x[ranks] + direction * radius[:, None]


def kmeans(x, c, rng, iterations=8):
    centres = x[rng.choice(len(x), size=c, replace=False)].copy()
    x2 = (x * x).sum(1)
    for _ in range(iterations):
        assign = np.empty(len(x), dtype=np.int64)
        for s in range(0, len(x), 20000):
            d = x2[s:s + 20000, None] + (centres * centres).sum(1)[None, :] - 2 * x[s:s + 20000] @ centres.T
            assign[s:s + 20000] = d.argmin(1)
        for j in range(c):
            members = x[assign == j]
            if len(members):
                centres[j] = members.mean(0)
    return centres, assign


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("glove")
    ap.add_argument("reviews")
    ap.add_argument("--vocab", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--epsilons", default="6,12")
    ap.add_argument("--heads", default="16,32,48,64")
    ap.add_argument("--clusters", default="256,1024")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    t0 = time.time()
    words, raw = load(args.glove, args.vocab)
    index = {w: i for i, w in enumerate(words)}
    x = raw - raw.mean(0)
    v, m = x.shape
    values, vectors = np.linalg.eigh(x.T @ x / v)
    order = np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    y = x @ vectors  # the PCA basis: distances unchanged
    heads = [int(p) for p in args.heads.split(",")]
    print(f"|V| = {v:,} × {m}; {args.queries:,} queries per ε; loaded in {time.time() - t0:.0f} s")
    print("variance in the first p principal directions: "
          + ", ".join(f"p={p}: {values[:p].sum() / values.sum():.1%}" for p in heads))
    clusters = {}
    for c in (int(c) for c in args.clusters.split(",")):
        centres, assign = kmeans(y, c, rng)
        clusters[c] = (centres, assign, np.linalg.norm(y - centres[assign], axis=1))
    y2 = (y * y).sum(1)
    ranks = token_ranks(args.reviews, index, args.queries, rng)
    for epsilon in (float(e) for e in args.epsilons.split(",")):
        q = laplace_queries(y, ranks, epsilon, rng)
        survivors = {}
        kept = 0
        for s in range(0, len(q), 200):
            qs = q[s:s + 200]
            d = (qs * qs).sum(1)[:, None] + y2[None, :] - 2 * qs @ y.T
            nearest = np.argsort(d, axis=1)[:, :2]
            kept += int((nearest[:, 0] == ranks[s:s + 200]).sum())
            tau = {k: np.take_along_axis(d, nearest[:, k - 1:k], 1) for k in (1, 2)}
            bounds = {}
            for p in heads:
                head = ((qs[:, :p] ** 2).sum(1)[:, None] + (y[:, :p] ** 2).sum(1)[None, :]
                        - 2 * qs[:, :p] @ y[:, :p].T)
                qt = np.sqrt((qs[:, p:] ** 2).sum(1))
                yt = np.sqrt((y[:, p:] ** 2).sum(1))
                bounds[f"PCA p={p}"] = (head + (qt[:, None] - yt[None, :]) ** 2, p / m)
            for c, (centres, assign, spread) in clusters.items():
                to_centre = np.sqrt(np.maximum((qs * qs).sum(1)[:, None] + (centres * centres).sum(1)[None, :]
                                               - 2 * qs @ centres.T, 0))
                bounds[f"clusters C={c}"] = ((to_centre[:, assign] - spread[None, :]) ** 2, c / v)
            for name, (lb, cost) in bounds.items():
                for k in (1, 2):
                    survivors.setdefault((name, k), [0, cost])[0] += int((lb <= tau[k] * (1 + 1e-12)).sum())
        total = len(q) * v
        print(f"Laplace ε = {epsilon:g}: N_w = {kept / len(q):.1%}")
        for (name, k), (count, cost) in survivors.items():
            share = count / total
            print(f"  {name:<16} k={k}: {share:7.2%} of words computed in full; "
                  f"at most {1 / (cost + share):.2f}× brute force (products counted)")


if __name__ == "__main__":
    main()
