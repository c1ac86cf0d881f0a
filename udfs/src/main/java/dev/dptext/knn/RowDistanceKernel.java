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
 * of a run"; scripts/bench/sampler-build.sh). That cold phase is where a profile of a whole run finds the
 * Vector API's Java fallback (frames such as {@code DoubleVector.bOpTemplate}, {@code FloatVector.ldOp},
 * {@code AbstractVector.defaultCast}): every operation here is intrinsified once C2 has compiled it.
 *
 * <p>The same arithmetic, one pair of words at a time, serves the sampler's proposal test
 * ({@link #squaredDistanceBelow}).
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

  /**
   * {@link Embeddings#squaredDistanceBelow(float[], int, float[], int, int, double)} with its four
   * accumulators s0..s3 as the four lanes of one double vector: lane j adds ((double) a[k+j] −
   * b[k+j])² for k = 0, 4, 8, …, multiplied then added (two roundings, never fused), exactly as
   * {@code s_j += d_j * d_j}. At each checkpoint (every 24 coordinates, and after the last group of
   * four) the partial sum is formed as {@code (s0 + s1) + (s2 + s3)} from the lanes, the scalar code's
   * order, and compared with {@code limit} as it does; the tail coordinates go to s0. So every value
   * computed, the returned one included, is the scalar routine's, bit for bit, early stop or not.
   *
   * <p>Why: the sampler's uniform branch computes one such distance per proposal, to a random word
   * (not four at a time as {@link #group} can), and the scalar loop spends its time widening and
   * loading coordinates one by one; here a 128-bit load and one widening conversion serve four.
   */
  static double squaredDistanceBelow(float[] a, int ao, float[] b, int bo, int dim, double limit) {
    int body = dim - dim % 4; // the scalar code's groups of four cover the coordinates [0, body)
    DoubleVector s = DoubleVector.zero(D4);
    int k = 0;
    // The scalar code's checkpoints: after every 24 coordinates, then after the last group of four. The
    // loops follow one another, never nest: on JDK 17, C2 keeps a vector that is carried around two
    // nested loops in a heap box, allocated at every step (1.6 kB per call at 100 dimensions, measured),
    // which made the kernel slower than the scalar one.
    for (; k + 24 <= body; k += 24) {
      s = step(a, ao + k, b, bo + k, s);
      s = step(a, ao + k + 4, b, bo + k + 4, s);
      s = step(a, ao + k + 8, b, bo + k + 8, s);
      s = step(a, ao + k + 12, b, bo + k + 12, s);
      s = step(a, ao + k + 16, b, bo + k + 16, s);
      s = step(a, ao + k + 20, b, bo + k + 20, s);
      double partial = (s.lane(0) + s.lane(1)) + (s.lane(2) + s.lane(3));
      if (partial >= limit) {
        return partial;
      }
    }
    if (k < body) {
      for (; k < body; k += 4) {
        s = step(a, ao + k, b, bo + k, s);
      }
      double partial = (s.lane(0) + s.lane(1)) + (s.lane(2) + s.lane(3));
      if (partial >= limit) {
        return partial;
      }
    }
    double s0 = s.lane(0);
    for (; k < dim; k++) {
      double d = (double) a[ao + k] - b[bo + k];
      s0 += d * d;
    }
    return (s0 + s.lane(1)) + (s.lane(2) + s.lane(3));
  }

  /** s + d·d for the four coordinates from {@code ao} and {@code bo}, d = a − b in double: mul then add. */
  private static DoubleVector step(float[] a, int ao, float[] b, int bo, DoubleVector s) {
    DoubleVector d = widen(a, ao).sub(widen(b, bo));
    return s.add(d.mul(d));
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
