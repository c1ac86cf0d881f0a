"""The Python side of scripts/bench/pantera.sh: dptext's Python engine against pyPANTERA 1.0.2 (PyPI), the
Python toolkit a user would pick instead, on the same vocabulary (the first 20,000 words of GloVe 6B 100-d)
and the same first N IMDb reviews, one thread each.

Subcommands (each prints one line; pantera.sh runs them in alternation, one fresh process per side and
mechanism, so setup is measured cold):

    python pantera.py vocab GLOVE WORDS OUT.txt            # the first WORDS lines of GLOVE, for pyPANTERA
    python pantera.py model GLOVE WORDS OUT.dptext-model   # the same words as a dptext model (dptext's venv)
    python pantera.py dptext MODEL REVIEWS N MECHANISM     # dptext's engine (dptext's venv)
    python pantera.py pantera VOCAB REVIEWS N MECHANISM    # pyPANTERA (its own venv)
    python pantera.py batches MODEL REVIEWS N MECHANISM    # dptext's rate by batch shape (its rows go in lockstep)

Each side reports: setup (wall: imports, loading the vocabulary/model, building the mechanism), a first
pass (wall), and the steady pass (CPU time of this process, after the first), tokens in that side's own
tokenization, tokens/s and reviews/s. Mechanisms by dptext's name: santext laplace mahalanobis vickrey
custext tem, at dptext's defaults (ε = 3; mahalanobis λ = 0.5; vickrey t = 0.5, λ = 0; custext K = 20;
tem β = 0.001, gamma by the rule), pyPANTERA given the same values (its CMP, Mahalanobis, VickreyCMP, CusText
with k = 20 euclidean, SanText, TEM).

How pyPANTERA is driven (read its source, pypantera-1.0.2/src/...): its obfuscateText(DataFrame) lower-cases,
splits on whitespace and calls processText per row, on noisyEmb(words) for the embedding mechanisms. Here the
same calls are made without the DataFrame, on chunks of CHUNK words of each review: its Euclidean distance
broadcasts (L x |V| x m) float64 arrays per call (16 MB per word at |V| = 20,000, m = 100), so a whole review
of 989 words (the longest of the first 500) would need ~32 GB. The mechanisms treat words independently, so
chunking changes no output distribution; SanText's per-text cache of L x |V| probabilities is cleared after
each review (kept, it grows by ~35 MB per review and never hits on distinct texts).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

CHUNK = int(os.environ.get("PANTERA_CHUNK", "32"))
PANTERA_WARMUP_REVIEWS = int(os.environ.get("PANTERA_WARMUP_REVIEWS", "3"))


def reviews(path: str, n: int) -> tuple[list[str], list[bytes]]:
    texts, ids = [], []
    with open(path) as f:
        for line in itertools.islice(f, n):
            row = json.loads(line)
            texts.append(row["review"])
            ids.append(str(row["id"]).encode())
    return texts, ids


def glove(path: str, words: int) -> tuple[list[str], np.ndarray]:
    names, rows = [], []
    with open(path, encoding="utf-8") as f:
        for line in itertools.islice(f, words):
            parts = line.rstrip("\n").split(" ")
            names.append(parts[0])
            rows.append(np.asarray(parts[1:], dtype=np.float32))
    return names, np.stack(rows)


# ------------------------------------------------------------------------------------------------ data


def cmd_vocab(path: str, words: str, out: str) -> None:
    with open(path, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as o:
        o.writelines(itertools.islice(f, int(words)))
    print(f"vocab: {out}, the first {words} lines of {path}")


def cmd_model(path: str, words: str, out: str) -> None:
    """A version-2 model of the first WORDS GloVe words: a table of k = 64 neighbours over target start 0
    (exact: candidates by a float64 product screen, then re-ranked with the engine's own distance, ties to
    the lower rank; bound = the 65th distance) and the covariance, S/(trace S/m) with S the sample covariance
    (the JVM's definition; NumPy's summation order, so not the JVM's bits — only speed is measured here)."""
    from pathlib import Path

    from dptext.engine.mechanisms import distances

    start = time.perf_counter()
    names, vectors = glove(path, int(words))
    n, m = vectors.shape
    k, slack = 64, 16
    v64 = vectors.astype(np.float64)
    norms = (v64 * v64).sum(axis=1)
    neighbours = np.empty((n, k), np.int32)
    bounds = np.empty(n, np.float64)
    block = 512
    for lo in range(0, n, block):
        hi = min(n, lo + block)
        d2 = norms[lo:hi, None] + norms[None, :] - 2.0 * (v64[lo:hi] @ v64.T)
        cand = np.argpartition(d2, k + slack, axis=1)[:, : k + slack + 1]
        for r, x in enumerate(range(lo, hi)):
            c = cand[r]
            d = distances(v64, np.full(len(c), x), c)
            order = np.lexsort((c, d))
            neighbours[x] = c[order[:k]]
            bounds[x] = d[order[k]]
    centred = v64 - v64.mean(axis=0)
    s = centred.T @ centred / (n - 1)
    sigma = s * (m / np.trace(s))
    sigma = 0.5 * (sigma + sigma.T)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    from tests.engine import model_files  # the tests' writer of the format (docs/model-format.md)

    tmp = out + ".tmp"
    offsets = (np.arange(n + 1) * k).astype(np.int32)
    model_files.write_arrays(
        Path(tmp),
        names,
        vectors,
        {0: (offsets, neighbours.reshape(-1), bounds)},
        neighbour_count=k,
        covariance=sigma,
        source=f"{os.path.basename(path)} first {n} words (scripts/bench/pantera.py)",
    )
    os.replace(tmp, out)
    print(f"model: {out}, {n} words x {m}, k = {k}, covariance; {time.perf_counter() - start:.1f} s")


# ---------------------------------------------------------------------------------------------- dptext

DPTEXT_SETTINGS = {
    "santext": {},
    "laplace": {},
    "mahalanobis": {"lambda": "0.5"},
    "vickrey": {"t": "0.5", "lambda": "0.0"},
    "custext": {"groupSize": "20"},
    "tem": {"beta": "0.001"},
}


def report(side: str, mech: str, setup: float, first: float, cpu: float, tokens: int, n: int, extra: str = "") -> None:
    print(
        f"{side:8s} {mech:12s} setup {setup:7.2f} s  first pass {first:8.2f} s  steady {cpu:8.2f} s CPU  "
        f"{tokens:7d} tokens  {tokens / cpu:9.0f} tokens/s  {n / cpu:8.2f} reviews/s{extra}",
        flush=True,
    )


def cmd_dptext(model_path: str, reviews_path: str, n: str, mech: str) -> None:
    t0 = time.perf_counter()
    from dptext.engine import sanitizer, text
    from dptext.engine.keys import SecretKey

    conf = {"mechanism": mech, "epsilon": "3.0", **DPTEXT_SETTINGS[mech], "model": model_path, "idMode": "column"}
    engine = sanitizer.PythonSanitizer(sanitizer.EngineSettings.resolve(conf), SecretKey.parse("00" * 32, "bench"))
    setup = time.perf_counter() - t0
    texts, ids = reviews(reviews_path, int(n))
    t1 = time.perf_counter()
    engine.sanitize(texts, ids)
    first = time.perf_counter() - t1
    c = time.process_time()
    out = engine.sanitize(texts, ids)
    cpu = time.process_time() - c
    tokens = 0
    for t in texts:
        tk = text.tokenize(t, engine.vocabulary)
        tokens += len(tk.ranks) + tk.oov_count
    report("dptext", mech, setup, first, cpu, tokens, len(texts))
    print(f"  dptext {mech} sample: {' '.join(out[0].split()[:16])}")


def cmd_batches(model_path: str, reviews_path: str, n: str, mech: str) -> None:
    """dptext's engine advances a batch's rows in lockstep, a round per token position, so a batch costs at
    least as many rounds as its longest row has tokens: the first N reviews, those of them of <= 250 words,
    and their shorter and longer halves, each as one batch (steady pass, CPU)."""
    from dptext.engine import sanitizer, text
    from dptext.engine.keys import SecretKey

    conf = {"mechanism": mech, "epsilon": "3.0", **DPTEXT_SETTINGS[mech], "model": model_path, "idMode": "column"}
    engine = sanitizer.PythonSanitizer(sanitizer.EngineSettings.resolve(conf), SecretKey.parse("00" * 32, "bench"))
    texts, ids = reviews(reviews_path, int(n))
    rows = list(zip(texts, ids, strict=True))
    by_length = sorted(rows, key=lambda r: len(r[0]))
    half = len(rows) // 2
    for label, batch in (
        (f"the first {n}", rows),
        ("those of <= 250 words", [r for r in rows if len(r[0].split()) <= 250]),
        ("the shorter half", by_length[:half]),
        ("the longer half", by_length[half:]),
    ):
        t, i = [r[0] for r in batch], [r[1] for r in batch]
        engine.sanitize(t, i)
        c = time.process_time()
        engine.sanitize(t, i)
        cpu = time.process_time() - c
        counts = [len(tk.ranks) + tk.oov_count for tk in (text.tokenize(x, engine.vocabulary) for x in t)]
        print(
            f"dptext   {mech:12s} batch of {len(batch):4d} ({label}): longest {max(counts)} tokens, "
            f"{sum(counts)} tokens, {sum(counts) / cpu:.0f} tokens/s",
            flush=True,
        )


# --------------------------------------------------------------------------------------------- pyPANTERA


def cmd_pantera(vocab_path: str, reviews_path: str, n: str, mech: str) -> None:
    t0 = time.perf_counter()
    # pyPANTERA 1.0.2's wheel installs its code as a top-level package named ``src`` (README: ``import pypantera``,
    # which does not exist).
    from src.EmbeddingPerturbationMechanism.cmp import CMP
    from src.EmbeddingPerturbationMechanism.mahalanobis import Mahalanobis
    from src.EmbeddingPerturbationMechanism.vickrey import VickreyCMP
    from src.SamplingPerturbationMechanism.custext import CusText
    from src.SamplingPerturbationMechanism.santext import SanText
    from src.SamplingPerturbationMechanism.tem import TEM

    class Float64CusText(CusText):
        """pyPANTERA's CusText computes each word's probabilities in float32 (its vocabulary is float32) and
        np.random.choice, which checks the sum in float64 to ~1.5e-8, raises "probabilities do not sum to 1"
        for many words (the first review already). The only change: those cached probabilities renormalised
        in float64, once per word."""

        def _getCustomizedMapping(self, word):
            sim, p = super()._getCustomizedMapping(word)
            if not isinstance(self._pDict[word], np.ndarray):
                q = np.asarray(self._pDict[word], dtype=np.float64)
                self._pDict[word] = q / q.sum()
            p[word] = self._pDict[word]
            return sim, p

    base = {"embPath": vocab_path, "epsilon": 3.0}
    made = {
        "santext": lambda: SanText(base),
        "laplace": lambda: CMP(base),
        "mahalanobis": lambda: Mahalanobis({**base, "lam": 0.5}),
        "vickrey": lambda: VickreyCMP({**base, "t": 0.5}),
        "custext": lambda: Float64CusText({**base, "k": 20, "distance": "euclidean"}),
        "tem": lambda: TEM({**base, "beta": 0.001}),
    }[mech]()
    setup = time.perf_counter() - t0
    embedding = mech in ("laplace", "mahalanobis", "vickrey")

    def sanitize(texts: list[str]) -> list[str]:
        out = []
        for t in texts:
            words = t.lower().split()  # obfuscateText's tokenization
            parts = []
            for i in range(0, len(words), CHUNK):
                chunk = words[i : i + CHUNK]
                parts.append(made.processText(made.noisyEmb(chunk) if embedding else chunk))
            if mech == "santext":
                made.prob_matrix.clear()
            out.append(" ".join(parts))
        return out

    texts, _ = reviews(reviews_path, int(n))
    # The first pass: the whole run for CusText (it caches each word's candidates, as dptext's tables do);
    # the others keep no state between reviews, so their first pass costs what the steady one does and a
    # prefix warms them up.
    warm = texts if mech == "custext" else texts[:PANTERA_WARMUP_REVIEWS]
    t1 = time.perf_counter()
    sanitize(warm)
    first = time.perf_counter() - t1
    c = time.process_time()
    out = sanitize(texts)
    cpu = time.process_time() - c
    tokens = sum(len(t.split()) for t in texts)
    pairs = [
        (a, b) for t, o in zip(texts, out, strict=True) for a, b in zip(t.lower().split(), o.split(), strict=False)
    ]
    kept = sum(a == b for a, b in pairs)
    vocab = set(made._word2index)
    oov = [a for a, _ in pairs if a not in vocab]
    leaked = sum(a == b for a, b in pairs if a not in vocab)
    extra = (
        f"\n  pantera {mech}: first pass over {len(warm)} reviews; vocabulary {len(made.embMatrix)} words; "
        f"{kept / tokens:.3f} of tokens unchanged; {leaked} of {len(oov)} OOV tokens emitted verbatim"
    )
    report("pantera", mech, setup, first, cpu, tokens, len(texts), extra)
    print(f"  pantera {mech} sample: {' '.join(out[0].split()[:16])}")


if __name__ == "__main__":
    commands = {
        "vocab": cmd_vocab,
        "model": cmd_model,
        "dptext": cmd_dptext,
        "pantera": cmd_pantera,
        "batches": cmd_batches,
    }
    commands[sys.argv[1]](*sys.argv[2:])
