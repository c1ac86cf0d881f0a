"""Small model files for the engine's tests, written in Python to the format's spec (docs/model-format.md),
with neighbour tables computed here by brute force: the tests of the samplers' distributions need no JVM."""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

import numpy as np

from dptext.engine.mechanisms import distances


def synthetic(size: int = 240, dim: int = 10, seed: int = 7) -> tuple[list[str], np.ndarray]:
    """``size`` made-up words with random float32 vectors (dim not a multiple of 4: the distance's tail)."""
    rng = np.random.default_rng(seed)
    return [f"w{i}" for i in range(size)], rng.normal(0, 1, (size, dim)).astype(np.float32)


def table(vectors: np.ndarray, target_start: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of the k nearest targets (ties: lower rank first) and each row's bound: the (k+1)-th distance."""
    n = len(vectors)
    v64 = vectors.astype(np.float64)
    targets = np.arange(target_start, n)
    offsets, rows, bounds = [0], [], []
    for x in range(n):
        d = distances(v64, np.full(len(targets), x), targets)
        order = np.lexsort((targets, d))
        rows.append(targets[order[:k]])
        bounds.append(d[order[k]] if len(targets) > k else np.inf)
        offsets.append(offsets[-1] + len(rows[-1]))
    return np.array(offsets, np.int32), np.concatenate(rows).astype(np.int32), np.array(bounds, np.float64)


def embeddings_sha256(words: list[str], vectors: np.ndarray) -> str:
    """The JVM's ``EmbeddingsHash``: SHA-256 of the size and dimension (big-endian ints), each word (its UTF-8
    length, big-endian, then its bytes), then the vectors' float32 bits, big-endian."""
    h = hashlib.sha256(struct.pack(">ii", len(words), vectors.shape[1]))
    for w in words:
        b = w.encode("utf-8")
        h.update(struct.pack(">i", len(b)) + b)
    h.update(np.ascontiguousarray(vectors, dtype=">f4").tobytes())
    return h.hexdigest()


def write(path: Path, words: list[str], vectors: np.ndarray, tables: dict[int, int]) -> Path:
    """A version-2 model file with a table of ``k`` neighbours per target start (``{start: k}``)."""
    built = {start: table(vectors, start, k) for start, k in tables.items()}
    return write_arrays(path, words, vectors, built, neighbour_count=max(tables.values()))


def write_arrays(
    path: Path,
    words: list[str],
    vectors: np.ndarray,
    tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]],
    neighbour_count: int,
    covariance: np.ndarray | None = None,
    source: str = "test",
) -> Path:
    """A version-2 model file of given tables (``{start: (offsets, neighbours, outside bounds)}``, rows of up to
    ``neighbour_count``) and, when given, the covariance (m x m)."""
    encoded = [w.encode("utf-8") for w in words]
    arrays = {
        "words.offsets": np.concatenate([[0], np.cumsum([len(e) for e in encoded])]).astype("<i8"),
        "words.utf8": np.frombuffer(b"".join(encoded), dtype="|u1"),
        "vectors": vectors.astype("<f4"),
    }
    entries = []
    for start, (offsets, neighbours, bounds) in tables.items():
        arrays[f"table.{start}.offsets"] = offsets.astype("<i4")
        arrays[f"table.{start}.neighbours"] = neighbours.astype("<i4")
        arrays[f"table.{start}.outsideBounds"] = bounds.astype("<f8")
        entries.append(
            {
                "targetStart": start,
                "offsets": f"table.{start}.offsets",
                "neighbours": f"table.{start}.neighbours",
                "outsideBounds": f"table.{start}.outsideBounds",
            }
        )
    if covariance is not None:
        arrays["covariance"] = np.asarray(covariance, dtype="<f8")
    specs, data, offset = {}, [], 0
    for name, a in arrays.items():
        raw = np.ascontiguousarray(a).tobytes()
        specs[name] = {
            "dtype": a.dtype.str,
            "shape": list(a.shape),
            "offset": offset,
            "bytes": len(raw),
            "sha256": hashlib.sha256(raw).hexdigest(),
        }
        pad = (-len(raw)) % 64
        data.append(raw + b"\0" * pad)
        offset += len(raw) + pad
    header = json.dumps(
        {
            "format": "dptext-model",
            "version": 2,
            "metadata": {"source": source},
            "embeddingsSha256": embeddings_sha256(words, vectors),
            "vocabularySize": len(words),
            "dimension": vectors.shape[1],
            "neighbourCount": neighbour_count,
            "tieredRows": False,
            "arrays": specs,
            "tables": entries,
            "covariance": "covariance" if covariance is not None else None,
        }
    ).encode("utf-8")
    header += b" " * ((-(24 + len(header))) % 64)
    path.write_bytes(b"DPTEXT-MODEL" + struct.pack("<IQ", 2, len(header)) + header + b"".join(data))
    return path
