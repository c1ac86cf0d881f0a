package dev.dptext.knn;

import dev.dptext.embedding.Embeddings;

/**
 * The exact distances from one word to many: {@link Embeddings#distance(int, int)} for each, the same
 * doubles bit for bit, computed four words at a time on the Vector API when it is usable.
 *
 * <p>Why: the SanText/SanText+ sampler computes every table entry's distance when a model is loaded
 * (8.9 M at 25,000 words): a second or more of CPU in every run, which in a small run competes with
 * Spark's reading of the input for the cores. The scalar
 * {@link Embeddings#squaredDistance} is bound by its per-coordinate conversions and loads, not by
 * arithmetic; the vector kernel ({@code RowDistanceKernel}) keeps the same four accumulators in the four
 * lanes of a 256-bit double vector, subtracts, multiplies and adds as separate roundings (no fused
 * multiply-add), adds the tail coordinates to accumulator 0 and combines the lanes as
 * {@code (s0 + s1) + (s2 + s3)} — every rounding the scalar code does, in its order — so the sampler's
 * tables do not depend on which path ran ({@code RowDistancesTest} compares them on random vectors).
 *
 * <p>The kernel's class is loaded only after {@link NearestWords#vectorApi()} has found the incubator
 * module in the boot layer and 256-bit vectors compiled to hardware; otherwise the scalar loop runs.
 */
public final class RowDistances {
  private RowDistances() {}

  /**
   * {@code out[outOffset + j] = embeddings.distance(x, ys[yOffset + j])} for j in [0, count).
   *
   * @param useVectorApi false forces the scalar loop (tests compare the two)
   */
  static void distances(Embeddings embeddings, int x, int[] ys, int yOffset, int count, double[] out,
      int outOffset, boolean useVectorApi) {
    if (useVectorApi) {
      RowDistanceKernel.distances(embeddings.rawVectors(), embeddings.dim(), x, ys, yOffset, count, out, outOffset);
    } else {
      for (int j = 0; j < count; j++) {
        out[outOffset + j] = embeddings.distance(x, ys[yOffset + j]);
      }
    }
  }

  /**
   * {@code out[outOffset + j] = embeddings.distance(x, ys[yOffset + j])} for j in [0, count), on the
   * Vector API when this JVM has it (identical results either way).
   */
  public static void distances(Embeddings embeddings, int x, int[] ys, int yOffset, int count, double[] out,
      int outOffset) {
    distances(embeddings, x, ys, yOffset, count, out, outOffset, NearestWords.vectorApi());
  }

  /**
   * Whether {@link #squaredDistanceBelow} runs on the Vector API: read once, into a constant, because it
   * is asked once per proposal of the sampler (C2 then compiles the call as a direct jump to one kernel).
   */
  private static final boolean VECTOR_BELOW = NearestWords.vectorApi();

  /**
   * {@link Embeddings#squaredDistanceBelow(float[], int, float[], int, int, double)}, the same value bit
   * for bit (every intermediate partial sum included), on the Vector API when this JVM has it: the
   * exponential sampler's proposal test.
   */
  public static double squaredDistanceBelow(float[] a, int ao, float[] b, int bo, int dim, double limit) {
    return squaredDistanceBelow(a, ao, b, bo, dim, limit, VECTOR_BELOW);
  }

  /** {@link #squaredDistanceBelow} on the path asked for (tests and benchmarks compare the two). */
  public static double squaredDistanceBelow(float[] a, int ao, float[] b, int bo, int dim, double limit,
      boolean useVectorApi) {
    return useVectorApi
        ? RowDistanceKernel.squaredDistanceBelow(a, ao, b, bo, dim, limit)
        : Embeddings.squaredDistanceBelow(a, ao, b, bo, dim, limit);
  }

  /** Which path {@link #distances(Embeddings, int, int[], int, int, double[], int)} takes in this JVM (for benchmarks' labels). */
  public static String path() {
    return NearestWords.vectorApi() ? "Vector API, 4 words × 4 lanes" : "scalar (no jdk.incubator.vector)";
  }
}
