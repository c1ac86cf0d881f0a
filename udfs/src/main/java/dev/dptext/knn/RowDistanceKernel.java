package dev.dptext.knn;

import dev.dptext.embedding.Embeddings;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link RowDistances}'s Vector API kernel: {@link Embeddings#squaredDistance}'s arithmetic with its
 * four accumulators as the four lanes of a 256-bit double vector. Loaded only when the incubator module
 * is present (see {@link RowDistances}).
 *
 * <p>Four target words are computed together: one word's 25 vector additions (at 100 dimensions) form
 * a single dependency chain, so a lone word would wait on the adder's latency; four independent chains
 * keep it busy. Each word's own arithmetic is unchanged by the grouping.
 *
 * <p>The vector loop is a method of its own ({@link #group}), small and called once per four words:
 * in a cold JVM the Vector API runs boxed (one object per operation) until C2 has compiled the loop,
 * and a small, often-called method reaches C2 sooner and compiles faster than the whole row loop (in
 * a fresh JVM, 8.9 M random 100-d distances took 0.55–0.74 s this way against 0.68–0.90 s with the
 * loop inline). That warm-up is most of what the kernel costs in a small run: warm, the table build
 * is about twice as fast as on the scalar path, cold the gain is smaller (BENCHMARKS.md, "Fixed cost
 * of a run"; scripts/bench/sampler-build.sh).
 */
final class RowDistanceKernel {
  private RowDistanceKernel() {}

  /** Four floats, widened exactly to four doubles (float → double loses nothing). */
  private static final VectorSpecies<Float> F4 = FloatVector.SPECIES_128;
  /** The four accumulators s0..s3 of {@code Embeddings.squaredDistance}, one per lane. */
  private static final VectorSpecies<Double> D4 = DoubleVector.SPECIES_256;

  static void distances(float[] v, int dim, int x, int[] ys, int yOffset, int count, double[] out, int outOffset) {
    int xo = x * dim;
    int body = dim - dim % 4; // the coordinates the scalar code accumulates four at a time
    double[] lanes = new double[16];
    int j = 0;
    for (; j + 3 < count; j += 4) {
      int o0 = ys[yOffset + j] * dim;
      int o1 = ys[yOffset + j + 1] * dim;
      int o2 = ys[yOffset + j + 2] * dim;
      int o3 = ys[yOffset + j + 3] * dim;
      group(v, xo, o0, o1, o2, o3, body, lanes);
      out[outOffset + j] = finish(lanes, 0, v, xo, o0, body, dim);
      out[outOffset + j + 1] = finish(lanes, 4, v, xo, o1, body, dim);
      out[outOffset + j + 2] = finish(lanes, 8, v, xo, o2, body, dim);
      out[outOffset + j + 3] = finish(lanes, 12, v, xo, o3, body, dim);
    }
    for (; j < count; j++) { // the last 0-3 words: the scalar code itself
      out[outOffset + j] = Math.sqrt(Embeddings.squaredDistance(v, xo, v, ys[yOffset + j] * dim, dim));
    }
  }

  /**
   * The accumulators s0..s3 of four words' squared distances to the word at {@code xo}, over the first
   * {@code body} coordinates, into {@code lanes[4·w .. 4·w+4)} for word w.
   */
  private static void group(float[] v, int xo, int o0, int o1, int o2, int o3, int body, double[] lanes) {
    DoubleVector s0 = DoubleVector.zero(D4);
    DoubleVector s1 = s0;
    DoubleVector s2 = s0;
    DoubleVector s3 = s0;
    for (int k = 0; k < body; k += 4) {
      DoubleVector a = widen(v, xo + k);
      DoubleVector d0 = a.sub(widen(v, o0 + k));
      DoubleVector d1 = a.sub(widen(v, o1 + k));
      DoubleVector d2 = a.sub(widen(v, o2 + k));
      DoubleVector d3 = a.sub(widen(v, o3 + k));
      // mul then add: two roundings, as `s += d * d` in Java (never fused).
      s0 = s0.add(d0.mul(d0));
      s1 = s1.add(d1.mul(d1));
      s2 = s2.add(d2.mul(d2));
      s3 = s3.add(d3.mul(d3));
    }
    s0.intoArray(lanes, 0);
    s1.intoArray(lanes, 4);
    s2.intoArray(lanes, 8);
    s3.intoArray(lanes, 12);
  }

  private static DoubleVector widen(float[] v, int offset) {
    return (DoubleVector) FloatVector.fromArray(F4, v, offset).convertShape(VectorOperators.F2D, D4, 0);
  }

  /**
   * The tail coordinates into accumulator 0, then {@code sqrt((s0 + s1) + (s2 + s3))}, as the scalar
   * code does, from the accumulators at {@code lanes[l .. l+4)}.
   */
  private static double finish(double[] lanes, int l, float[] v, int xo, int yo, int body, int dim) {
    double s0 = lanes[l];
    for (int k = body; k < dim; k++) {
      double d = (double) v[xo + k] - v[yo + k];
      s0 += d * d;
    }
    return Math.sqrt((s0 + lanes[l + 1]) + (lanes[l + 2] + lanes[l + 3]));
  }
}
