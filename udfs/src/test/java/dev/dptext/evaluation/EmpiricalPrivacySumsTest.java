package dev.dptext.evaluation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The per-output sums travel from tasks to the driver as rows of at most {@link EmpiricalPrivacy.Sums#CHUNK}
 * outputs: merged back, partition by partition, they give exactly what merging the whole sums gave
 * (a vocabulary larger than two chunks, so the offsets are exercised).
 */
class EmpiricalPrivacySumsTest {
  @Test
  void chunksMergeBackToTheSameSumsBitForBit() {
    int size = 2 * EmpiricalPrivacy.Sums.CHUNK + 1234;
    Random random = new Random(7);
    EmpiricalPrivacy.Sums a = sums(random, size);
    EmpiricalPrivacy.Sums b = sums(random, size);
    EmpiricalPrivacy.Sums merged = new EmpiricalPrivacy.Sums(2, size);
    List<byte[]> rows = new java.util.ArrayList<>(a.chunks());
    rows.addAll(b.chunks());
    assertEquals(2 * 2 * 3, rows.size(), "3 chunks per batch, 2 batches");
    for (byte[] row : rows) {
      merged.addChunk(row);
    }
    for (int batch = 0; batch < 2; batch++) {
      double[] sum = new double[size];
      double[] squares = new double[size];
      double[] max = new double[size];
      for (int y = 0; y < size; y++) {
        sum[y] = 0.0 + a.sum[batch][y] + b.sum[batch][y];
        squares[y] = 0.0 + a.squares[batch][y] + b.squares[batch][y];
        max[y] = Math.max(Math.max(0, a.max[batch][y]), b.max[batch][y]);
      }
      assertArrayEquals(sum, merged.sum[batch]);
      assertArrayEquals(squares, merged.squares[batch]);
      assertArrayEquals(max, merged.max[batch]);
      assertEquals(0.0 + a.loss[batch] + b.loss[batch], merged.loss[batch]);
    }
  }

  private static EmpiricalPrivacy.Sums sums(Random random, int size) {
    EmpiricalPrivacy.Sums s = new EmpiricalPrivacy.Sums(2, size);
    int[] labels = new int[size];
    for (int y = 0; y < size; y++) {
      labels[y] = random.nextInt(3) - 1;
    }
    for (int word = 0; word < 5; word++) {
      for (int batch = 0; batch < 2; batch++) {
        double[] f = new double[size];
        for (int k = 0; k < 200; k++) {
          f[random.nextInt(size)] += 1.0 / 200;
        }
        s.add(batch, random.nextInt(size), random.nextDouble(), f, labels);
      }
    }
    return s;
  }
}
