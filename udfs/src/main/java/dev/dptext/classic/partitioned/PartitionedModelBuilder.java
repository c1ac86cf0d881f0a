package dev.dptext.classic.partitioned;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.knn.NeighbourSearch;
import dev.dptext.knn.RowLengths;
import dev.dptext.model.PartitionedModel;
import dev.dptext.model.VocabularyCentre;
import java.io.Serializable;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.Partition;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.PartitionCoalescer;
import org.apache.spark.rdd.PartitionGroup;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.Tuple2;

/**
 * Builds a {@link PartitionedModel} over Spark partitions; the driver never holds the vectors.
 *
 * <ol>
 *   <li>The vectors (rank, word, vector) are written as Parquet and loaded into S rank-range shards.
 *   <li>Mean, largest centred norm and the covariance's scatter matrix are sums over the shards.
 *   <li>Candidate tables: a blocked all-pairs search, one task per query shard a. The task walks the
 *       target shards b one at a time; for each it runs {@link NeighbourSearch#searchBlock}, which gives
 *       per query word the block's K+1 nearest target words by exact (distance, rank) and a certified
 *       bound for the block's other words, and folds them into the word's merged candidates: the K+1
 *       smallest of the union so far, and the minimum of the blocks' bounds. After the last block the
 *       row is the K smallest of the union, and the bound is min(the union's (K+1)-th distance, every
 *       block's bound). Valid: a target word y outside the row was either returned by its block — then
 *       at least K+1 returned words (its block's) are ≤ d(x,y), so the union's (K+1)-th is too — or
 *       not — then its block's bound is ≤ d(x,y). The samplers need nothing more (see
 *       ExponentialNeighbourSampler). The task then writes its query shard's final rows: no shuffle.
 *   <li>The hash streams the shards to the driver one at a time (one job per shard, no shuffle), words
 *       then vectors.
 * </ol>
 *
 * <p>Why the fold order does not matter: (distance, rank) is a strict total order on distinct words,
 * each block's list is sorted by it, and blocks are disjoint, so the K+1 smallest of a union are the
 * K+1 smallest of the blocks' K+1 smallest, whatever the grouping or order of the merges (truncating
 * early never drops a word of the final K+1), and min is commutative. So the rows and bounds are the
 * ones any order of merges gives, in particular the former per-word reduce's.
 *
 * <p>How the tasks are formed: {@code shards.cartesian(shards)} has a partition per pair (a, b), of
 * index a·S + b; {@link ByQueryShard} coalesces them into one partition per query shard a, holding the
 * pairs (a, b) whose target shard b meets the target set. A coalesced partition computes its parent
 * partitions lazily, one after the other ({@code CoalescedRDD.compute} is a {@code flatMap} over its
 * parents' iterators), and a pair is only two references to the persisted shards, so the task holds
 * one target shard at a time. With no preferred location of its own, the scheduler places a group's
 * task where the first pair's first parent, shard a, is cached.
 *
 * <p>Memory per task, with n = ⌈|V|/S⌉ words per shard, m dimensions, and L(x) the row length of word
 * x ({@link RowLengths#forRank}): the query shard and the current target shard, 2·n·m·4 bytes plus
 * their words (shards cached in this executor's memory are the cached objects themselves; a shard read
 * from disk or another executor is a copy, dropped with its pair); the score kernel's copies of the
 * target block, at most 2·n·(m+1)·4 bytes; the current block's candidates and the merged candidates,
 * each Σ_{x in a} (L(x)+1)·12 bytes (an int rank and a double distance per entry) plus about 100 bytes
 * of object headers per query word; and the search's scratch for one batch of 510 queries. With
 * uniform rows Σ (L(x)+1) = n·(K+1); with tiered rows at most n·(K+1) + 1,024·63·K + 7,168·7·K, the
 * extra only in the shards holding ranks below 8,192. E.g. 2M words × 300 d, S = 38, K = 64 tiered:
 * 2 × 63 MB of vectors, ≤ 127 MB of kernel copies, and 2 × 41 MB of candidates (2 × 129 MB in the
 * first shard). The rows leave the task one at a time, each word's merged candidates dropped as its
 * row is emitted. The driver holds
 * one shard while hashing.
 *
 * <p>Network, per table: nothing is shuffled; each task reads every target shard that meets the target
 * set, so up to S·|V|·m·4 bytes of cached shards cross the network (fewer where a target shard is
 * cached on the task's executor; 2M words × 300 d, S = 38: up to 91 GB), which is the all-pairs
 * search's inherent traffic at one query shard per task.
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
  /** What a Spark Connect user does instead of the partitioned layout (its shards are RDDs). */
  static final String CONNECT_ALTERNATIVE = "Use a model every executor can hold (modelLayout=broadcast; with "
      + "modelDistribution=path on Databricks standard access or serverless), or run on classic compute (on "
      + "Databricks a dedicated, single-user cluster)";

  public static PartitionedModel build(SparkSession spark, Dataset<Row> vectors, String output, RowLengths rows,
      java.util.function.IntFunction<List<Integer>> tables, int shards, Map<String, String> metadata) {
    return build(spark, vectors, output, rows, tables, false, shards, metadata);
  }

  /**
   * As above; with {@code tablesOnDemand} no candidate table is built or stored ({@code tables} is not
   * called): SanText and SanText+ runs compute the rows of the words they use ({@link OnDemandRows}).
   */
  public static PartitionedModel build(SparkSession spark, Dataset<Row> vectors, String output, RowLengths rows,
      java.util.function.IntFunction<List<Integer>> tables, boolean tablesOnDemand, int shards,
      Map<String, String> metadata) {
    dev.dptext.classic.Classic.requireClassic(spark, "Building a partitioned model", CONNECT_ALTERNATIVE);
    long started = System.nanoTime();
    String vectorsPath = output + "/vectors";
    vectors.select("rank", "word", "vector").write().mode(SaveMode.Overwrite).parquet(vectorsPath);
    Row first = spark.read().parquet(vectorsPath).select("vector").head();
    int dim = first.getList(0).size();
    long count = spark.read().parquet(vectorsPath).count();
    if (count > Integer.MAX_VALUE / Math.max(1, dim)) {
      throw DpTextErrors.error("MODEL_TOO_LARGE", "words", count, "dimensions", dim, "limit", Integer.MAX_VALUE);
    }
    int size = (int) count;
    List<Integer> targetStarts = tablesOnDemand ? List.of() : tables.apply(size);
    if (shards <= 0) {
      shards = defaultShards(size, dim, spark.sparkContext().defaultParallelism());
    }
    JavaRDD<VocabularyShard> shardRdd = Shards.load(spark, vectorsPath, null, -1, size, dim, shards);

    double[] mean = mean(shardRdd.map(PartitionedModelBuilder::vectorSum).collect(), dim, size);
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
    PartitionedModel model = new PartitionedModel(output, size, dim, hash, rows, targetStarts, tablesOnDemand, shards,
        covariance, centre, metadata);
    model.writeManifest(dev.dptext.classic.ClassicContext.hadoopConfiguration(spark));
    LOG.info("partitioned model: {} words × {} dims, {} shards, tables {}, built in {} s", size, dim, shards,
        tablesOnDemand ? "on demand" : targetStarts,
        String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - started) / 1e9));
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

  /** One candidate table by the blocked all-pairs search, one task per query shard (see the class comment). */
  private static void writeTable(SparkSession spark, JavaRDD<VocabularyShard> shards, int targetStart, int size,
      int dim, double[] mean, double maxNorm, RowLengths rows, String path) {
    int shardCount = shards.getNumPartitions();
    JavaRDD<Row> tableRows = searchRows(shards, shardCount, true, shards, targetStart, size, dim, mean, maxNorm, rows);
    spark.createDataFrame(tableRows, TABLE_SCHEMA).write().mode(SaveMode.Overwrite).parquet(path);
  }

  /** A candidate table's rows, as stored and as {@link OnDemandRows} gives them. */
  static final StructType TABLE_SCHEMA = new StructType()
      .add("rank", DataTypes.IntegerType, false)
      .add("neighbours", DataTypes.createArrayType(DataTypes.IntegerType, false), false)
      .add("distances", DataTypes.createArrayType(DataTypes.DoubleType, false), false)
      .add("bound", DataTypes.DoubleType, false);

  /**
   * The candidate rows of every query word against the target set [targetStart, |V|): one task per
   * query block, which walks the target shards (see the class comment). The rows of a word do not
   * depend on which other words share its query block (each query's candidates, bound and certificate
   * are its own), so the build's rows and the rows {@link OnDemandRows} computes for a subset of words
   * are the same, given the same target shards.
   *
   * @param queries one {@link QueryWords} per partition; {@code queryCount} partitions
   * @param queriesAreShards whether the queries are {@code targets} themselves (empty shards are skipped)
   */
  static <Q extends QueryWords> JavaRDD<Row> searchRows(JavaRDD<Q> queries, int queryCount, boolean queriesAreShards,
      JavaRDD<VocabularyShard> targets, int targetStart, int size, int dim, double[] mean, double maxNorm,
      RowLengths rows) {
    int shardCount = targets.getNumPartitions();
    ByQueryShard byQuery = new ByQueryShard(queryCount, shardCount, VocabularyShard.shardSize(size, shardCount), size,
        targetStart, queriesAreShards);
    RDD<Tuple2<Q, VocabularyShard>> groups = queries.cartesian(targets).rdd()
        .coalesce(queryCount, false, Option.apply(byQuery), null);
    return groups.toJavaRDD().mapPartitions(pairs -> {
      QueryShardMerge merge = new QueryShardMerge(size - targetStart, targetStart, dim, mean, maxNorm, rows);
      while (pairs.hasNext()) {
        Tuple2<Q, VocabularyShard> pair = pairs.next();
        merge.add(pair._1(), pair._2());
      }
      return merge.rows(byQuery);
    });
  }

  /**
   * Groups the partitions of {@code queries.cartesian(targets)} by query block: group a holds the
   * pairs (a, b), partition index a·S + b (as {@code CartesianRDD} numbers them, S target shards), for
   * every target shard b that {@link #searched} selects, in increasing b; an empty query shard's group
   * is empty. The shard ranges are computed here as {@link Shards#load} lays them out,
   * [s·n, min(|V|, (s+1)·n)), so the pairs that would find nothing are never computed, not even fetched.
   */
  static final class ByQueryShard implements PartitionCoalescer, Serializable {
    private static final long serialVersionUID = 1L;
    final int queries;
    final int shards;
    final int shardSize;
    final int size;
    final int targetStart;
    final boolean queriesAreShards;

    ByQueryShard(int queries, int shards, int shardSize, int size, int targetStart, boolean queriesAreShards) {
      this.queries = queries;
      this.shards = shards;
      this.shardSize = shardSize;
      this.size = size;
      this.targetStart = targetStart;
      this.queriesAreShards = queriesAreShards;
    }

    int count(int shard) {
      return Math.max(0, Math.min(size, (shard + 1) * shardSize) - shard * shardSize);
    }

    /**
     * Whether query block a is searched against target shard b: b is non-empty and meets
     * [targetStart, |V|), and, when the query blocks are the shards, a is non-empty.
     */
    boolean searched(int a, int b) {
      return (!queriesAreShards || count(a) > 0) && count(b) > 0 && b * shardSize + count(b) > targetStart;
    }

    /** How many target blocks query block a merges. */
    int blocks(int a) {
      int n = 0;
      for (int b = 0; b < shards; b++) {
        n += searched(a, b) ? 1 : 0;
      }
      return n;
    }

    @Override
    public PartitionGroup[] coalesce(int maxPartitions, RDD<?> parent) {
      Partition[] pairs = parent.partitions();
      if (pairs.length != queries * shards || maxPartitions != queries) {
        throw new IllegalStateException("expected the " + queries + " × " + shards + " pairs of query blocks and "
            + "shards, got " + pairs.length + " partitions into " + maxPartitions);
      }
      PartitionGroup[] groups = new PartitionGroup[queries];
      for (int a = 0; a < queries; a++) {
        groups[a] = new PartitionGroup(Option.empty());
        for (int b = 0; b < shards; b++) {
          if (searched(a, b)) {
            groups[a].partitions().addOne(pairs[a * shards + b]);
          }
        }
      }
      return groups;
    }
  }

  /**
   * The merged candidates of one query block's words over the target blocks added so far: per word a
   * {@link Candidates}. The blocks themselves are referenced only while {@link #add} runs (the query
   * block's vectors are taken from each pair: if the block is not in this executor's memory, each
   * pair's copy of it is dropped with the pair).
   */
  private static final class QueryShardMerge {
    private final int targets;
    private final int targetStart;
    private final int dim;
    private final double[] mean;
    private final double maxNorm;
    private final RowLengths rows;
    private int queryIndex = -1;
    private int[] queryRanks;
    private int[] keep;
    private Candidates[] merged;
    private int blocks;
    private long bruteForced;
    private final long started = System.nanoTime();

    QueryShardMerge(int targets, int targetStart, int dim, double[] mean, double maxNorm, RowLengths rows) {
      this.targets = targets;
      this.targetStart = targetStart;
      this.dim = dim;
      this.mean = mean;
      this.maxNorm = maxNorm;
      this.rows = rows;
    }

    /** Searches target shard b for query block a's words and folds the result in. */
    void add(QueryWords a, VocabularyShard b) {
      if (queryIndex < 0) {
        queryIndex = a.index();
        queryRanks = new int[a.count()];
        keep = new int[a.count()];
        for (int i = 0; i < a.count(); i++) {
          queryRanks[i] = a.rank(i);
          keep[i] = rows.forRank(queryRanks[i], targets) + 1;
        }
        merged = new Candidates[a.count()];
      } else if (a.index() != queryIndex) {
        throw new IllegalStateException("query blocks " + queryIndex + " and " + a.index() + " in one task");
      }
      NeighbourSearch.BlockCandidates c = NeighbourSearch.searchBlock(a.vectors(), a.count(), b.vectors, b.lo,
          b.count, Math.max(0, targetStart - b.lo), dim, mean, maxNorm, keep);
      for (int i = 0; i < a.count(); i++) {
        Candidates block = new Candidates(new TopK(c.words()[i], c.distances()[i]), c.restBound()[i], keep[i]);
        merged[i] = merged[i] == null ? block : Candidates.merge(merged[i], block);
      }
      blocks++;
      bruteForced += c.bruteForced();
    }

    /**
     * The query block's final rows, in its order, each word's candidates released as its row is made;
     * fails unless every target block the coalescer assigned was merged.
     */
    Iterator<Row> rows(ByQueryShard plan) {
      if (queryIndex < 0) {
        return java.util.Collections.emptyIterator();
      }
      if (blocks != plan.blocks(queryIndex)) {
        throw new IllegalStateException("query block " + queryIndex + " merged " + blocks + " target blocks of "
            + plan.blocks(queryIndex));
      }
      LOG.info("candidate search, query block {}: {} words × {} target blocks, {} word-blocks re-searched by brute "
          + "force (not certified by the float kernel), {} s", queryIndex, merged.length, blocks, bruteForced,
          String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - started) / 1e9));
      return new Iterator<>() {
        int next = 0;

        @Override
        public boolean hasNext() {
          return next < merged.length;
        }

        @Override
        public Row next() {
          if (!hasNext()) {
            throw new java.util.NoSuchElementException();
          }
          Row row = merged[next].toRow(queryRanks[next]);
          merged[next++] = null;
          return row;
        }
      };
    }
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

  /** Per dimension, the sum of a shard's vectors, in double, words in rank order. */
  static double[] vectorSum(VocabularyShard s) {
    double[] sum = new double[s.dim];
    for (int i = 0; i < s.count; i++) {
      for (int d = 0; d < s.dim; d++) {
        sum[d] += s.vectors[i * s.dim + d];
      }
    }
    return sum;
  }

  /**
   * The vocabulary mean from the shards' sums, added in shard order ({@code collect} keeps the
   * partition order). A fixed order gives the same doubles on every run: a {@code reduce} adds the
   * tasks' results in the order they finish, and double addition is not associative. The mean centres
   * the float kernels, so its last bits move the tables' float bounds and the largest centred norm.
   */
  static double[] mean(List<double[]> shardSums, int dim, int size) {
    double[] mean = new double[dim];
    for (double[] sum : shardSums) {
      add(mean, sum);
    }
    for (int d = 0; d < dim; d++) {
      mean[d] /= size;
    }
    return mean;
  }

  private static double[] add(double[] a, double[] b) {
    for (int i = 0; i < a.length; i++) {
      a[i] += b[i];
    }
    return a;
  }

  /** The largest norm of the centred vectors, rounded to float as the search kernels centre them. */
  static double maxCentredNorm(VocabularyShard s, double[] mean) {
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
