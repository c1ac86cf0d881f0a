package dev.dptext.classic.partitioned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourSearch;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.knn.RowLengths;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.spark.SharedSpark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partitioned build's candidate tables, read back from Parquet, row by row:
 *
 * <ul>
 *   <li>against the one-file build ({@link NeighbourSearch#compute}): the same neighbours in the same
 *       order, their exact distances, and a bound that is valid (≤ every target word outside the row)
 *       and no looser than the row's last distance;
 *   <li>against the per-block merge done here, outside Spark: every (query shard, target shard) pair
 *       that meets the target set through {@link NeighbourSearch#searchBlock}, merged per word with
 *       {@code PartitionedModelBuilder.Candidates.merge} in a shuffled order of the target blocks —
 *       row, distances and bound identical, so the build merged all of a query shard's blocks and the
 *       order did not matter.
 * </ul>
 *
 * More shards than the shared session's two cores, target sets starting inside a shard, rows longer
 * than a shard (so every row spans blocks), duplicate vectors in different shards (ties to the lower
 * rank), and, in the second case, an empty last shard.
 */
@Tag("integration")
class PartitionedTablesTest {
  @TempDir Path dir;

  @Test
  void sevenShardsWithRowsLongerThanAShard() throws Exception {
    checkBuild(vocabulary(560, 40), RowLengths.tiered(2), 7, List.of(0, 470), dir);
  }

  @Test
  void elevenShardsTheLastEmpty() throws Exception {
    // ⌈100/11⌉ = 10 words per shard: shards 0-9 hold the 100 words, shard 10 none.
    checkBuild(vocabulary(90, 10), RowLengths.uniform(5), 11, List.of(0, 75), dir);
  }

  private static void checkBuild(Embeddings e, RowLengths rows, int shards, List<Integer> tables, Path dir)
      throws Exception {
    SparkSession spark = SharedSpark.get();
    int size = e.size();
    int m = e.dim();
    String output = dir.resolve("model").toString();
    PartitionedModelBuilder.build(spark, spark.createDataFrame(vectorRows(e), new StructType()
            .add("rank", DataTypes.IntegerType, false)
            .add("word", DataTypes.StringType, false)
            .add("vector", DataTypes.createArrayType(DataTypes.FloatType, false), false)),
        output, rows, n -> tables, shards, Map.of("source", "test"));

    List<VocabularyShard> local = localShards(e, shards);
    List<double[]> sums = new ArrayList<>();
    for (VocabularyShard s : local) {
      sums.add(PartitionedModelBuilder.vectorSum(s));
    }
    double[] mean = PartitionedModelBuilder.mean(sums, m, size);
    double maxNorm = 0;
    for (VocabularyShard s : local) {
      maxNorm = Math.max(maxNorm, PartitionedModelBuilder.maxCentredNorm(s, mean));
    }

    for (int t : tables) {
      String what = shards + " shards, targets from " + t + ", " + rows;
      Row[] built = new Row[size];
      for (Row r : spark.read().parquet(output + "/neighbours-" + t).collectAsList()) {
        int x = r.getInt(0);
        assertEquals(null, built[x], what + ": rank " + x + " written twice");
        built[x] = r;
      }
      Row[] merged = mergedInShuffledOrder(local, t, size, m, mean, maxNorm, rows);
      NeighbourTable oneFile = NeighbourSearch.compute(e, t, rows);
      for (int x = 0; x < size; x++) {
        Row r = built[x];
        assertTrue(r != null, what + ": no row for rank " + x);
        String msg = what + ", word " + x;
        List<Integer> neighbours = r.getList(1);
        List<Double> distances = r.getList(2);
        double bound = r.getDouble(3);
        // The same row as the merge of every block, in any order: words, distances, bound.
        assertEquals(Arrays.asList((Object[]) merged[x].get(1)), neighbours, msg);
        assertEquals(Arrays.asList((Object[]) merged[x].get(2)), distances, msg);
        assertEquals(merged[x].getDouble(3), bound, 0.0, msg + ": bound");
        // The same row as the one-file build, exact distances, a valid bound.
        assertEquals(oneFile.rowLength(x), neighbours.size(), msg);
        boolean[] inRow = new boolean[size];
        for (int j = 0; j < neighbours.size(); j++) {
          int y = neighbours.get(j);
          assertEquals(oneFile.neighbour(x, j), y, msg + ", neighbour " + j);
          assertEquals(e.distance(x, y), distances.get(j), 0.0, msg + ", distance " + j);
          inRow[y] = true;
        }
        double nearestOutside = Double.POSITIVE_INFINITY;
        for (int y = t; y < size; y++) {
          if (!inRow[y]) {
            nearestOutside = Math.min(nearestOutside, e.distance(x, y));
          }
        }
        assertTrue(bound <= nearestOutside, msg + ": bound " + bound + " above " + nearestOutside);
        assertTrue(bound >= distances.get(distances.size() - 1), msg + ": bound below the row's last distance");
      }
    }
  }

  /**
   * The table as the per-word merge of every searched block gives it, the target blocks of each query
   * shard taken in a random order (the builder takes them in shard order).
   */
  private static Row[] mergedInShuffledOrder(List<VocabularyShard> shards, int targetStart, int size, int m,
      double[] mean, double maxNorm, RowLengths rows) {
    Row[] out = new Row[size];
    int targets = size - targetStart;
    Random random = new Random(targetStart * 31L + shards.size());
    for (VocabularyShard a : shards) {
      List<VocabularyShard> order = new ArrayList<>(shards);
      Collections.shuffle(order, random);
      PartitionedModelBuilder.Candidates[] merged = new PartitionedModelBuilder.Candidates[a.count];
      int[] keep = new int[a.count];
      for (int i = 0; i < a.count; i++) {
        keep[i] = rows.forRank(a.lo + i, targets) + 1;
      }
      for (VocabularyShard b : order) {
        if (a.count == 0 || b.count == 0 || b.lo + b.count <= targetStart) {
          continue;
        }
        NeighbourSearch.BlockCandidates c = NeighbourSearch.searchBlock(a.vectors, a.count, b.vectors, b.lo, b.count,
            Math.max(0, targetStart - b.lo), m, mean, maxNorm, keep);
        for (int i = 0; i < a.count; i++) {
          PartitionedModelBuilder.Candidates block = new PartitionedModelBuilder.Candidates(
              new TopK(c.words()[i], c.distances()[i]), c.restBound()[i], keep[i]);
          merged[i] = merged[i] == null ? block : PartitionedModelBuilder.Candidates.merge(merged[i], block);
        }
      }
      for (int i = 0; i < a.count; i++) {
        out[a.lo + i] = merged[i].toRow(a.lo + i); // (rank, Object[] neighbours, Object[] distances, bound)
      }
    }
    return out;
  }

  /** The shards as {@link Shards#load} lays them out: [s·n, min(|V|, (s+1)·n)), n = ⌈|V|/S⌉. */
  private static List<VocabularyShard> localShards(Embeddings e, int shards) {
    int size = e.size();
    int m = e.dim();
    int n = VocabularyShard.shardSize(size, shards);
    List<VocabularyShard> out = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      int lo = Math.min(size, s * n);
      int hi = Math.min(size, (s + 1) * n);
      out.add(new VocabularyShard(s, s * n, Arrays.copyOfRange(e.rawWords(), lo, hi),
          Arrays.copyOfRange(e.rawVectors(), lo * m, hi * m), m));
    }
    return out;
  }

  /** The embedded GloVe's first {@code words} words, then copies of the first {@code twins} vectors, renamed. */
  private static Embeddings vocabulary(int words, int twins) {
    Embeddings base = EmbeddedDefault.embeddings().topWords(words);
    int m = base.dim();
    String[] names = Arrays.copyOf(base.rawWords(), words + twins);
    float[] vectors = Arrays.copyOf(base.rawVectors(), (words + twins) * m);
    for (int i = 0; i < twins; i++) {
      names[words + i] = "twinword" + i;
      System.arraycopy(base.rawVectors(), i * m, vectors, (words + i) * m, m);
    }
    return new Embeddings(names, vectors, m);
  }

  private static List<Row> vectorRows(Embeddings e) {
    int m = e.dim();
    List<Row> out = new ArrayList<>();
    for (int r = 0; r < e.size(); r++) {
      Float[] v = new Float[m];
      for (int d = 0; d < m; d++) {
        v[d] = e.rawVectors()[r * m + d];
      }
      out.add(RowFactory.create(r, e.rawWords()[r], Arrays.asList(v)));
    }
    return out;
  }
}
