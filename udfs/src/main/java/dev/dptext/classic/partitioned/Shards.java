package dev.dptext.classic.partitioned;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * Loads a partitioned model's vectors (and optionally one candidate table) into {@code shards}
 * Spark partitions, partition s holding the one {@link VocabularyShard} of ranks [s·size, (s+1)·size),
 * persisted so it stays on its executor for every round. Work for shard s is partitioned with the same
 * {@link HashPartitioner} (an int key s &lt; shards lands in partition s) and zipped with it.
 */
final class Shards {
  private Shards() {}

  static JavaRDD<VocabularyShard> load(SparkSession spark, String vectorsPath, String tablePath, int tableStart,
      int size, int dim, int shards) {
    int shardSize = VocabularyShard.shardSize(size, shards);
    HashPartitioner byShard = new HashPartitioner(shards);
    // Each row becomes a primitive float[] before the shuffle: shuffling the Rows themselves serialized
    // every coordinate as a boxed Float (1M × 300 d: 25 s to shuffle, 23 s to read back, on one machine).
    JavaPairRDD<Integer, WordVector> vectors = spark.read().parquet(vectorsPath).select("rank", "word", "vector")
        .javaRDD()
        .mapToPair(r -> new Tuple2<>(VocabularyShard.shardOf(r.getInt(0), shardSize), WordVector.of(r, dim)))
        .partitionBy(byShard);
    JavaRDD<VocabularyShard> built = vectors.mapPartitionsWithIndex(
        (s, it) -> Collections.singletonList(shard(s, s * shardSize, Math.min(size, (s + 1) * shardSize), dim, it))
            .iterator(), true);
    if (tablePath != null) {
      JavaPairRDD<Integer, Row> table = spark.read().parquet(tablePath)
          .select("rank", "neighbours", "distances", "bound").javaRDD()
          .mapToPair(r -> new Tuple2<>(VocabularyShard.shardOf(r.getInt(0), shardSize), r))
          .partitionBy(byShard);
      built = built.zipPartitions(table.values(), (shardIt, rows) -> {
        VocabularyShard shard = shardIt.next();
        attachTable(shard, tableStart, rows);
        return Collections.singletonList(shard).iterator();
      });
    }
    built.persist(StorageLevel.MEMORY_AND_DISK());
    return built;
  }

  /**
   * The same shards with candidate rows attached: {@code table}'s rows (rank, neighbours, distances,
   * bound) go to the shard holding their rank; words without a row keep none (on demand, only the words
   * a run uses have rows). The shards' words and vectors are shared with {@code shards}, whose cached
   * objects are left as they are. Persisted.
   */
  static JavaRDD<VocabularyShard> withTable(JavaRDD<VocabularyShard> shards, JavaRDD<Row> table, int tableStart,
      int size) {
    int count = shards.getNumPartitions();
    int shardSize = VocabularyShard.shardSize(size, count);
    JavaPairRDD<Integer, Row> rows = table
        .mapToPair(r -> new Tuple2<>(VocabularyShard.shardOf(r.getInt(0), shardSize), r))
        .partitionBy(new HashPartitioner(count));
    JavaRDD<VocabularyShard> attached = shards.zipPartitions(rows.values(), (shardIt, rowIt) -> {
      VocabularyShard shard = shardIt.next().withoutTable();
      attachTable(shard, tableStart, rowIt);
      return Collections.singletonList(shard).iterator();
    });
    attached.persist(StorageLevel.MEMORY_AND_DISK());
    return attached;
  }

  /** One word of the vectors' Parquet: its rank, spelling and vector. */
  record WordVector(int rank, String word, float[] vector) implements java.io.Serializable {
    static WordVector of(Row r, int dim) {
      List<Float> v = r.getList(2);
      if (v.size() != dim) {
        throw new IllegalStateException("the partitioned model's vector for rank " + r.getInt(0) + " has " + v.size()
            + " dimensions, not " + dim);
      }
      float[] out = new float[dim];
      for (int d = 0; d < dim; d++) {
        out[d] = v.get(d);
      }
      return new WordVector(r.getInt(0), r.getString(1), out);
    }
  }

  private static VocabularyShard shard(int index, int lo, int hi, int dim, Iterator<Tuple2<Integer, WordVector>> rows) {
    int n = Math.max(0, hi - lo);
    String[] words = new String[n];
    float[] vectors = new float[n * dim];
    while (rows.hasNext()) {
      WordVector w = rows.next()._2();
      int local = w.rank() - lo;
      words[local] = w.word();
      System.arraycopy(w.vector(), 0, vectors, local * dim, dim);
    }
    for (int i = 0; i < n; i++) {
      if (words[i] == null) {
        throw new IllegalStateException("the partitioned model has no vector for rank " + (lo + i));
      }
    }
    return new VocabularyShard(index, lo, words, vectors, dim);
  }

  private static void attachTable(VocabularyShard shard, int tableStart, Iterator<Row> rows) {
    shard.tableStart = tableStart;
    shard.neighbours = new int[shard.count][];
    shard.distances = new double[shard.count][];
    shard.bounds = new double[shard.count];
    while (rows.hasNext()) {
      Row r = rows.next();
      int local = r.getInt(0) - shard.lo;
      List<Integer> ns = r.getList(1);
      List<Double> ds = r.getList(2);
      shard.neighbours[local] = ns.stream().mapToInt(Integer::intValue).toArray();
      shard.distances[local] = ds.stream().mapToDouble(Double::doubleValue).toArray();
      shard.bounds[local] = r.getDouble(3);
    }
  }

  /**
   * Shards in rank order, one at a time on the driver (for the streamed hash): partition s holds
   * shard s ({@link #load}), and {@code toLocalIterator} fetches one partition per job, in partition
   * order, when the previous one is used up. (Sorting by shard index into one partition instead would
   * shuffle every vector into a single task and fetch them all to the driver at once.)
   */
  static Iterator<VocabularyShard> inOrder(JavaRDD<VocabularyShard> shards) {
    Iterator<VocabularyShard> partitions = shards.toLocalIterator();
    return new Iterator<>() {
      int expected = 0;

      @Override
      public boolean hasNext() {
        return partitions.hasNext();
      }

      @Override
      public VocabularyShard next() {
        VocabularyShard s = partitions.next();
        if (s.index != expected++) {
          throw new IllegalStateException("shard " + s.index + " where shard " + (expected - 1) + " belongs");
        }
        return s;
      }
    };
  }
}
