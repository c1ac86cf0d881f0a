"""The embedding-noise mechanisms' draws and arithmetic (engine/noise.py) without a JVM: the bulk draws read each
row's stream exactly as the call-by-call reference does, the Jacobi method diagonalises, and the exact search is
brute force's. Their rows against the JVM's are in test_golden (the committed files) and the whole-run tests."""

from __future__ import annotations

import numpy as np
import pytest

from dptext.engine import jump, noise
from dptext.engine.mechanisms import squared_distances
from dptext.engine.xoshiro import RowStreams


def _streams(n: int, seed: int) -> RowStreams:
    return RowStreams.from_seed(np.arange(seed, seed + n))


def test_a_block_of_outputs_is_the_stream_stepped_call_by_call():
    streams = _streams(3, 11)
    block = jump.outputs(streams.state(), 2 * jump.CHUNK + 37)  # several chunks and a partial one
    stepped = np.stack([streams.next_long() for _ in range(block.shape[1])], axis=1)
    assert (block == stepped).all()
    assert (jump.jump(_streams(3, 11).state(), np.full(3, block.shape[1])) == streams.state()).all()


@pytest.mark.parametrize("m", [100, 7, 2])
def test_bulk_draws_are_the_call_by_call_draws(m):
    counts = np.array([0, 1, 5, 0, 40, 3, 17, 2, 60, 1])
    first = np.concatenate([[0], np.cumsum(counts)])
    fast, slow = _streams(len(counts), 5), _streams(len(counts), 5)
    radius_f, normals_f = noise._block_draws(fast, m, first)
    radius_s, normals_s = noise._reference_draws(slow, m, first)
    assert np.array_equal(radius_f, radius_s)
    assert np.array_equal(normals_f, normals_s)
    assert (fast.state() == slow.state()).all(), "each row's stream ends where the call-by-call draws leave it"


def test_jacobi_diagonalises_and_the_root_squares_back():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 9))
    sigma = np.cov(x, rowvar=False)
    values, vectors = noise.jacobi(sigma)
    assert np.all(np.diff(values) >= 0)
    assert np.allclose(vectors.T @ np.diag(values) @ vectors, sigma, atol=1e-12)
    root = noise.regularized_square_root(values, vectors, 0.3)
    assert np.allclose(root @ root, 0.3 * sigma + 0.7 * np.eye(9), atol=1e-12)
    assert np.array_equal(noise.regularized_square_root(values, vectors, 0.0), np.eye(9))


class _Model:
    def __init__(self, vectors):
        self.vectors64 = vectors.astype(np.float32).astype(np.float64)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_search_is_brute_force_with_ties_to_the_lower_rank(k):
    rng = np.random.default_rng(8)
    words = rng.normal(size=(300, 10)).astype(np.float32)
    words[200] = words[10]  # an exact tie: rank 10 must win
    index = noise.NearestWords(_Model(words))
    queries = np.concatenate([rng.normal(size=(50, 10)), words[[10, 200, 3]].astype(np.float64)])
    got, dist = index.search(queries, k)
    v64 = words.astype(np.float64)
    for q in range(len(queries)):
        d2 = squared_distances(np.vstack([v64, queries[q][None, :]]), np.full(300, 300), np.arange(300))
        expected = np.lexsort((np.arange(300), d2))[:k]
        assert list(got[q]) == list(expected)
        assert np.array_equal(dist[q], np.sqrt(d2[expected]))
