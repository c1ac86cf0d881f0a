package dev.dptext.knn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The Vector API row distances are {@link Embeddings#distance(int, int)} bit for bit: the sampler's
 * tables are built from them and must not depend on whether the JVM has the incubator module.
 */
class RowDistancesTest {

  @Test
  void vectorKernelReproducesTheScalarDistancesBitForBit() {
    assertTrue(NearestWords.vectorApi(), "jdk.incubator.vector not usable in the test JVM");
    SplittableRandom random = new SplittableRandom(19);
    // Every tail length (dim % 4), the default model's 100 and GloVe's 300; row lengths that leave 0-3
    // words after the groups of four.
    int[] dims = {1, 2, 3, 4, 5, 6, 7, 8, 13, 50, 99, 100, 101, 300};
    long compared = 0;
    for (int dim : dims) {
      int n = 300;
      float[] v = new float[n * dim];
      for (int i = 0; i < v.length; i++) {
        v[i] = value(random);
      }
      // Near-duplicates of word 0, so that cancellation in the differences is exercised too.
      for (int i = 1; i < 20; i++) {
        for (int d = 0; d < dim; d++) {
          v[i * dim + d] = Math.nextUp(v[d]) * (i % 2 == 0 ? 1 : (float) (1 + 1e-6 * i));
        }
      }
      Embeddings e = new Embeddings(words(n), v, dim);
      for (int word = 0; word < n; word += 2) {
        int x = word;
        int count = 1 + random.nextInt(n);
        int offset = random.nextInt(5);
        int[] ys = new int[offset + count];
        for (int j = 0; j < ys.length; j++) {
          ys[j] = random.nextInt(n);
        }
        ys[offset] = x; // the word itself: distance 0
        double[] vector = new double[count + 3];
        double[] scalar = new double[count + 3];
        RowDistances.distances(e, x, ys, offset, count, vector, 3, true);
        RowDistances.distances(e, x, ys, offset, count, scalar, 3, false);
        for (int j = 0; j < count; j++) {
          double expected = e.distance(x, ys[offset + j]);
          assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(scalar[3 + j]));
          assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(vector[3 + j]),
              () -> "dim " + dim + ", word " + x);
          compared++;
        }
      }
    }
    assertTrue(compared > 200_000, "compared " + compared);
  }

  /**
   * The sampler's proposal test on the Vector API returns {@link Embeddings#squaredDistanceBelow}'s value
   * bit for bit: on random and near-duplicate vectors, at unaligned offsets in two different arrays, for
   * every tail length and numbers of checkpoints, and for limits on both sides of the full sum and of
   * every checkpoint's partial sum — including limits equal to a partial sum, where the scalar code
   * stops (partial ≥ limit) and must return exactly that partial.
   */
  @Test
  void vectorProposalTestReproducesTheScalarOneBitForBit() {
    assertTrue(NearestWords.vectorApi(), "jdk.incubator.vector not usable in the test JVM");
    SplittableRandom random = new SplittableRandom(23);
    int[] dims = {1, 2, 3, 4, 5, 6, 7, 8, 20, 23, 24, 25, 26, 27, 28, 29, 47, 48, 49, 50, 51, 52, 72, 95, 96, 97,
        98, 99, 100, 101, 102, 103, 120, 300};
    long compared = 0;
    long stoppedEarly = 0;
    for (int dim : dims) {
      int n = 40;
      float[] a = new float[3 + n * dim];
      float[] b = new float[5 + n * dim];
      for (int i = 0; i < a.length; i++) {
        a[i] = value(random);
      }
      for (int i = 0; i < b.length; i++) {
        b[i] = value(random);
      }
      // Near-duplicates of a's first vector in b, for cancellation in the differences, and one exact copy.
      for (int i = 0; i < 8; i++) {
        for (int d = 0; d < dim; d++) {
          float x = a[3 + d];
          b[5 + i * dim + d] = i == 0 ? x : Math.nextUp(x) * (float) (1 + 1e-6 * i);
        }
      }
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
          int ao = 3 + i * dim;
          int bo = 5 + j * dim;
          double exact = Embeddings.squaredDistance(a, ao, b, bo, dim);
          double[] partials = checkpointSums(a, ao, b, bo, dim);
          double[] limits = new double[14 + 3 * partials.length];
          int l = 0;
          for (double x : new double[] {0, Double.MIN_VALUE, -1, Double.NaN, Double.POSITIVE_INFINITY,
              Double.MAX_VALUE, exact, Math.nextUp(exact), Math.nextDown(exact), exact * 0.5, exact * 2,
              random.nextDouble() * exact, random.nextDouble() * 2 * exact, Double.NEGATIVE_INFINITY}) {
            limits[l++] = x;
          }
          for (double p : partials) {
            limits[l++] = p;
            limits[l++] = Math.nextUp(p);
            limits[l++] = Math.nextDown(p);
          }
          for (double limit : limits) {
            double scalar = Embeddings.squaredDistanceBelow(a, ao, b, bo, dim, limit);
            double vector = RowDistances.squaredDistanceBelow(a, ao, b, bo, dim, limit, true);
            assertEquals(Double.doubleToRawLongBits(scalar), Double.doubleToRawLongBits(vector),
                () -> "dim " + dim + ", pair " + ao + "," + bo + ", limit " + limit + ": scalar " + scalar
                    + ", vector " + vector);
            assertEquals(Double.doubleToRawLongBits(scalar),
                Double.doubleToRawLongBits(RowDistances.squaredDistanceBelow(a, ao, b, bo, dim, limit, false)));
            compared++;
            stoppedEarly += scalar != exact ? 1 : 0;
          }
        }
      }
    }
    assertTrue(compared > 1_000_000, "compared " + compared);
    assertTrue(stoppedEarly > 100_000, "early stops " + stoppedEarly);
  }

  /**
   * The partial sums (s0 + s1) + (s2 + s3) at the scalar code's checkpoints: after every 24 coordinates
   * and after the last group of four (computed here on their own, from the definition).
   */
  private static double[] checkpointSums(float[] a, int ao, float[] b, int bo, int dim) {
    double[] s = new double[4];
    double[] out = new double[dim / 4 + 1];
    int n = 0;
    int body = dim - dim % 4;
    for (int k = 0; k < body; k++) {
      double d = (double) a[ao + k] - b[bo + k];
      s[k % 4] += d * d;
      if ((k + 1) % 24 == 0 || k + 1 == body) {
        out[n++] = (s[0] + s[1]) + (s[2] + s[3]);
      }
    }
    return java.util.Arrays.copyOf(out, n);
  }

  /** Mostly embedding-like values, with some of very different magnitudes and exact zeros. */
  private static float value(SplittableRandom random) {
    switch (random.nextInt(10)) {
      case 0:
        return 0f;
      case 1:
        return (float) (random.nextGaussian() * 1e-30);
      case 2:
        return (float) (random.nextGaussian() * 1e15);
      default:
        return (float) random.nextGaussian();
    }
  }

  private static String[] words(int n) {
    String[] w = new String[n];
    for (int i = 0; i < n; i++) {
      w[i] = "w" + i;
    }
    return w;
  }
}
