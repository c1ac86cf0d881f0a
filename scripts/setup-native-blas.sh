#!/usr/bin/env bash
# Installs Debian's OpenBLAS, which dev.ludovic.netlib (Spark's BLAS) loads as libblas.so.3. dptext's
# nearest-word search and build-model's neighbour search run on its own Vector API kernels, faster than
# OpenBLAS on AVX2 and AVX-512 CPUs (BENCHMARKS.md, "Embedding-noise mechanisms"; "Model build"); only a
# JVM without the Vector API (no --add-modules=jdk.incubator.vector), or -Ddptext.knn.backend=native,
# uses BLAS, and then native SGEMM is ~3x the pure-Java fallback (docs/mechanisms.md, "Nearest-word search").
# The covariance of the Mahalanobis mechanism also goes through Spark's BLAS/LAPACK.
# Best effort: without root or apt it says so and leaves the Java path in place.
set -uo pipefail
if ldconfig -p 2>/dev/null | grep -q 'libblas.so.3'; then
  echo "native BLAS: libblas.so.3 already present"
  exit 0
fi
if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
  echo "native BLAS: not installed (needs root and apt-get); dptext uses the pure-Java BLAS"
  exit 0
fi
if apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq libopenblas0-pthread >/dev/null 2>&1; then
  echo "native BLAS: installed Debian's OpenBLAS (libblas.so.3)"
else
  echo "native BLAS: apt-get could not install libopenblas0-pthread; dptext uses the pure-Java BLAS"
fi
exit 0
