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
