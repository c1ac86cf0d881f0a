package dev.dptext.partitioned;

import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.knn.NeighbourSearch;
import dev.dptext.knn.RowLengths;
import dev.dptext.model.PartitionedModel;
import dev.dptext.model.VocabularyCentre;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;

/**
 * Builds a {@link PartitionedModel} over Spark partitions; the driver never holds the vectors.
 *
 * <ol>
 *   <li>The vectors (rank, word, vector) are written as Parquet and loaded into S rank-range shards.
 *   <li>Mean, largest centred norm and the covariance's scatter matrix are sums over the shards.
 *   <li>Candidate tables: a blocked all-pairs search. Every pair (query shard a, target shard b) is one
 *       task ({@code cartesian}); it runs {@link NeighbourSearch#searchBlock} and emits, per query word,
 *       the block's K+1 nearest target words by exact (distance, rank) and a certified bound for the
 *       block's other words. A reduce per word merges the blocks: the row is the K smallest of the
 *       union, and the bound is min(the union's (K+1)-th distance, every block's bound). Valid: a
 *       target word y outside the row was either returned by its block — then at least K+1 returned
 *       words (its block's) are ≤ d(x,y), so the union's (K+1)-th is too — or not — then its block's
 *       bound is ≤ d(x,y). The samplers need nothing more (see ExponentialNeighbourSampler).
 *   <li>The hash streams the shards to the driver one at a time, words then vectors.
 * </ol>
 *
 * <p>Memory: a task holds two shards (2·|V|·m·4/S bytes) and its block's heaps; the driver holds one
 * shard while hashing. Shuffle: |V|·S·(K+1) candidates per table.
 */
public final class PartitionedModelBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionedModelBuilder.class);

  private PartitionedModelBuilder() {}

  /**
   * @param vectors rows (rank int, word string, vector array&lt;float&gt;), ranks 0..|V|−1 in public
   *     frequency order
   * @param output the model directory (overwritten)
   * @param tables given |V|, the candidate tables to build (0 for SanText, the first sensitive rank for SanText+)
   * @param shards the number of vocabulary shards, or 0 for {@link #defaultShards}
   */
  public static PartitionedModel build(SparkSession spark, Dataset<Row> vectors, String output, RowLengths rows,
      java.util.function.IntFunction<List<Integer>> tables, int shards, Map<String, String> metadata) {
    long started = System.nanoTime();
    String vectorsPath = output + "/vectors";
    vectors.select("rank", "word", "vector").write().mode(SaveMode.Overwrite).parquet(vectorsPath);
    Row first = spark.read().parquet(vectorsPath).select("vector").head();
    int dim = first.getList(0).size();
    long count = spark.read().parquet(vectorsPath).count();
    if (count > Integer.MAX_VALUE / Math.max(1, dim)) {
      throw new IllegalArgumentException("too many words: " + count);
    }
    int size = (int) count;
    List<Integer> targetStarts = tables.apply(size);
    if (shards <= 0) {
      shards = defaultShards(size, dim, spark.sparkContext().defaultParallelism());
    }
    JavaRDD<VocabularyShard> shardRdd = Shards.load(spark, vectorsPath, null, -1, size, dim, shards);

    double[] mean = shardRdd.map(s -> {
      double[] sum = new double[s.dim];
      for (int i = 0; i < s.count; i++) {
        for (int d = 0; d < s.dim; d++) {
          sum[d] += s.vectors[i * s.dim + d];
        }
      }
      return sum;
    }).reduce(PartitionedModelBuilder::add);
    for (int d = 0; d < dim; d++) {
      mean[d] /= size;
    }
    double maxNorm = shardRdd.map(s -> maxCentredNorm(s, mean)).reduce(Math::max);
    double[] scatter = shardRdd.map(s -> scatter(s, mean)).treeReduce(PartitionedModelBuilder::add);
    EmbeddingCovariance covariance = EmbeddingCovariance.fromScatter(dim, scatter, size);
    double radius2 = 0;
    for (int d = 0; d < dim; d++) {
      radius2 += scatter[d * dim + d];
    }
    VocabularyCentre centre = new VocabularyCentre(mean, radius2 / size);

    for (int t : targetStarts) {
      writeTable(spark, shardRdd, t, size, dim, mean, maxNorm, rows, output + "/neighbours-" + t);
    }
    String hash = PartitionedModel.hash(size, dim,
        flatten(Shards.inOrder(shardRdd), s -> List.of(s.words).iterator()),
        flatten(Shards.inOrder(shardRdd), s -> List.of(s.vectors).iterator()));
    shardRdd.unpersist(false);
    PartitionedModel model = new PartitionedModel(output, size, dim, hash, rows, targetStarts, shards, covariance,
        centre, metadata);
    model.writeManifest(spark);
    LOG.info("partitioned model: {} words × {} dims, {} shards, tables {}, built in {} s", size, dim, shards,
        targetStarts, String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - started) / 1e9));
    return model;
  }

  /** Target shard size of the vectors: small enough that a task holds two, large enough for good GEMM blocks. */
  public static final long SHARD_BYTES = 64L << 20;

  /**
   * Enough shards that each holds at most {@link #SHARD_BYTES} of vectors, and at least one per core
   * (the all-pairs search has shards² tasks, the sanitize rounds one task per shard).
   */
  public static int defaultShards(int size, int dim, int parallelism) {
    long bytes = 4L * size * dim;
    return (int) Math.max(Math.max(1, parallelism), (bytes + SHARD_BYTES - 1) / SHARD_BYTES);
  }

  /** One candidate table by the blocked all-pairs search. */
  private static void writeTable(SparkSession spark, JavaRDD<VocabularyShard> shards, int targetStart, int size,
      int dim, double[] mean, double maxNorm, RowLengths rows, String path) {
    int targets = size - targetStart;
    JavaPairRDD<Integer, Candidates> merged = shards.cartesian(shards)
        .filter(p -> p._2().lo + p._2().count > targetStart && p._2().count > 0 && p._1().count > 0)
        .flatMapToPair(p -> {
          VocabularyShard a = p._1();
          VocabularyShard b = p._2();
          int[] keep = new int[a.count];
          for (int i = 0; i < a.count; i++) {
            keep[i] = rows.forRank(a.lo + i, targets) + 1;
          }
          NeighbourSearch.BlockCandidates c = NeighbourSearch.searchBlock(a.vectors, a.count, b.vectors, b.lo,
              b.count, Math.max(0, targetStart - b.lo), dim, mean, maxNorm, keep);
          List<Tuple2<Integer, Candidates>> out = new ArrayList<>(a.count);
          for (int i = 0; i < a.count; i++) {
            out.add(new Tuple2<>(a.lo + i,
                new Candidates(new TopK(c.words()[i], c.distances()[i]), c.restBound()[i], keep[i])));
          }
          return out.iterator();
        })
        .reduceByKey(Candidates::merge);
    JavaRDD<Row> tableRows = merged.map(e -> e._2().toRow(e._1()));
    StructType schema = new StructType()
        .add("rank", DataTypes.IntegerType, false)
        .add("neighbours", DataTypes.createArrayType(DataTypes.IntegerType, false), false)
        .add("distances", DataTypes.createArrayType(DataTypes.DoubleType, false), false)
        .add("bound", DataTypes.DoubleType, false);
    spark.createDataFrame(tableRows, schema).write().mode(SaveMode.Overwrite).parquet(path);
  }

  /** One query word's candidates merged over target blocks so far. */
  record Candidates(TopK top, double rest, int keep) implements Serializable {
    static Candidates merge(Candidates a, Candidates b) {
      return new Candidates(TopK.merge(a.top, b.top, a.keep), Math.min(a.rest, b.rest), a.keep);
    }

    /** The row (the keep − 1 nearest) and the bound on every target word outside it. */
    Row toRow(int rank) {
      int k = keep - 1;
      int n = Math.min(k, top.words().length);
      Object[] ns = new Object[n];
      Object[] ds = new Object[n];
      for (int c = 0; c < n; c++) {
        ns[c] = top.words()[c];
        ds[c] = top.distances()[c];
      }
      double bound = top.words().length > k ? Math.min(top.distances()[k], rest) : rest;
      return RowFactory.create(rank, ns, ds, bound);
    }
  }

  private static double[] add(double[] a, double[] b) {
    for (int i = 0; i < a.length; i++) {
      a[i] += b[i];
    }
    return a;
  }

  /** The largest norm of the centred vectors, rounded to float as the search kernels centre them. */
  private static double maxCentredNorm(VocabularyShard s, double[] mean) {
    double max = 0;
    for (int i = 0; i < s.count; i++) {
      double sum = 0;
      for (int d = 0; d < s.dim; d++) {
        float c = (float) (s.vectors[i * s.dim + d] - mean[d]);
        sum += (double) c * c;
      }
      max = Math.max(max, Math.sqrt(sum));
    }
    return max;
  }

  private static double[] scatter(VocabularyShard s, double[] mean) {
    int m = s.dim;
    double[] out = new double[m * m];
    double[] c = new double[m];
    for (int i = 0; i < s.count; i++) {
      for (int d = 0; d < m; d++) {
        c[d] = s.vectors[i * m + d] - mean[d];
      }
      for (int a = 0; a < m; a++) {
        double ca = c[a];
        for (int b = 0; b < m; b++) {
          out[a * m + b] += ca * c[b];
        }
      }
    }
    return out;
  }

  private static <T> Iterator<T> flatten(Iterator<VocabularyShard> shards,
      java.util.function.Function<VocabularyShard, Iterator<T>> items) {
    return new Iterator<>() {
      Iterator<T> current = java.util.Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        while (!current.hasNext() && shards.hasNext()) {
          current = items.apply(shards.next());
        }
        return current.hasNext();
      }

      @Override
      public T next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        return current.next();
      }
    };
  }
}
