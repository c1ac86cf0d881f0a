package dev.dptext.classic.partitioned;

import dev.dptext.model.PartitionedModel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;

/**
 * Candidate rows computed when a run needs them, for a model built with its tables on demand
 * ({@link PartitionedModel#tablesOnDemand()}): only the rows of the words the run's input uses.
 *
 * <p>Why: SanText and SanText+ need, for each input word x, its exact nearest targets H_x and a lower
 * bound on the distance to every other target (the sampler's envelope). Stored for every word, that
 * is an all-pairs search, 2·|V|·|T|·m flops: about 2·10¹⁵ at 2 million words × 300 dimensions, hours on
 * a small cluster. A run only asks for the rows of the distinct words its texts contain, D of them, so
 * computing those costs 2·D·|T|·m: for the tens of thousands of distinct words of a typical batch, a
 * few percent of the whole build, and the rows serve any target set (any SanText+ w).
 *
 * <p>The rows are the build's: the words are grouped into query blocks and searched by
 * {@link PartitionedModelBuilder#searchRows} against the model's own shard layout (the shard count of
 * its manifest), centred on the stored vocabulary mean, with the same largest centred norm. A word's
 * row does not depend on the other words of its block, so it is exactly the row the full build would
 * store: neighbours, exact distances and bound. Hence the sampler, and the output, are the ones of a
 * model with stored tables (tested).
 *
 * <p>Cost per run: one job to find the distinct words (from the rows' shuffled work, not the input),
 * one to fetch their vectors from the shards and deal them into blocks, one search task per block
 * reading every target shard. Memory per task: a query block (at most {@link
 * PartitionedModelBuilder#SHARD_BYTES} of vectors), one target shard at a time and the block's
 * candidates, as in the build.
 */
final class OnDemandRows {
  private static final Logger LOG = LoggerFactory.getLogger(OnDemandRows.class);

  private OnDemandRows() {}

  /**
   * The rows (rank, neighbours, distances, bound) of table {@code targetStart} for the distinct ranks
   * {@code used}, as a cached DataFrame like a stored table's (Spark's columnar cache: a head of long
   * rows collects to the driver in its binary form, not as Java-serialized Row objects), computed here.
   *
   * @param targets the model's vectors in its own shard layout ({@link PartitionedModel#shards()} shards)
   */
  static Dataset<Row> compute(SparkSession spark, PartitionedModel model, JavaRDD<VocabularyShard> targets,
      JavaRDD<Integer> used, int targetStart) {
    if (targets.getNumPartitions() != model.shards()) {
      throw new IllegalStateException("on-demand rows are searched over the model's own " + model.shards()
          + " shards, not " + targets.getNumPartitions());
    }
    long started = System.nanoTime();
    int size = model.size();
    int dim = model.dim();
    int shardCount = targets.getNumPartitions();
    int shardSize = VocabularyShard.shardSize(size, shardCount);
    JavaPairRDD<Integer, Integer> requests = used
        .mapToPair(r -> new Tuple2<>(VocabularyShard.shardOf(r, shardSize), r))
        .partitionBy(new HashPartitioner(shardCount));
    JavaPairRDD<Integer, float[]> vectors = targets.zipPartitions(requests.values(), (shardIt, ranks) -> {
      VocabularyShard shard = shardIt.next();
      List<Tuple2<Integer, float[]>> out = new ArrayList<>();
      ranks.forEachRemaining(r -> out.add(new Tuple2<>(r, shard.vector(r))));
      return out.iterator();
    }).mapToPair(t -> t).persist(StorageLevel.MEMORY_AND_DISK());
    long words = vectors.count();
    if (words == 0) {
      vectors.unpersist(false);
      return spark.createDataFrame(List.of(), PartitionedModelBuilder.TABLE_SCHEMA);
    }
    int parallelism = targets.context().defaultParallelism();
    int blocks = (int) Math.max(parallelism, (4L * words * dim + PartitionedModelBuilder.SHARD_BYTES - 1)
        / PartitionedModelBuilder.SHARD_BYTES);
    // Ranks dealt round-robin (rank mod blocks): the frequent words, whose rows are the long ones, are
    // spread over every block instead of filling the first (a block's words need not be contiguous).
    JavaPairRDD<Integer, float[]> dealt = vectors.partitionBy(new HashPartitioner(blocks));
    JavaRDD<QueryBlock> queries = dealt.mapPartitionsWithIndex((index, it) -> {
      java.util.TreeMap<Integer, float[]> byRank = new java.util.TreeMap<>();
      it.forEachRemaining(t -> byRank.put(t._1(), t._2()));
      int[] ranks = new int[byRank.size()];
      float[] flat = new float[byRank.size() * dim];
      int i = 0;
      for (var e : byRank.entrySet()) {
        ranks[i] = e.getKey();
        System.arraycopy(e.getValue(), 0, flat, i++ * dim, dim);
      }
      return Collections.singletonList(new QueryBlock(index, ranks, flat)).iterator();
    }, true).persist(StorageLevel.MEMORY_AND_DISK());
    double[] mean = model.centre() != null ? model.centre().mean()
        : PartitionedModelBuilder.mean(targets.map(PartitionedModelBuilder::vectorSum).collect(), dim, size);
    double maxNorm = targets.map(s -> PartitionedModelBuilder.maxCentredNorm(s, mean)).reduce(Math::max);
    Dataset<Row> rows = spark.createDataFrame(PartitionedModelBuilder.searchRows(queries, queries.getNumPartitions(),
        false, targets, targetStart, size, dim, mean, maxNorm, model.rowLengths()), PartitionedModelBuilder.TABLE_SCHEMA)
        .persist(StorageLevel.MEMORY_AND_DISK());
    long computed = rows.count();
    queries.unpersist(false);
    vectors.unpersist(false);
    if (computed != words) {
      throw new IllegalStateException("on-demand candidate rows: " + computed + " rows for " + words + " words");
    }
    LOG.info("candidate rows on demand: {} words against targets [{}, {}) in {} query blocks × {} shards, {} s",
        words, targetStart, size, queries.getNumPartitions(), shardCount,
        String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - started) / 1e9));
    return rows;
  }
}
