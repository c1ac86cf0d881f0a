package dev.dptext.classic.partitioned;

import dev.dptext.knn.RowLengths;
import dev.dptext.mechanism.CandidateEnvelope;
import dev.dptext.mechanism.ExponentialMechanism;
import dev.dptext.model.PartitionedModel;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The most frequent words' vectors and envelopes, broadcast to every executor for SanText/SanText+.
 *
 * <p>Why: frequent words are most of the tokens, and their candidate rows are the long ones (with the
 * tiered row lengths, 64·K entries below rank 1,024 and 8·K below 8,192; see {@link RowLengths}).
 * Carrying them with every row that uses them would multiply the rows' state by hundreds; broadcast
 * once, they cost Σ_{rank &lt; 8,192} row length ≈ 7.9 M entries (12 bytes each: about 95 MB at
 * K = 64) plus 8,192 vectors, whatever |V| is. Rows carry only their rarer words' rows (K entries).
 */
final class HeadRows implements Serializable {
  private static final long serialVersionUID = 1L;

  final int limit;
  final int dim;
  final float[][] vectors;
  final CandidateEnvelope[] envelopes;

  private HeadRows(int limit, int dim, float[][] vectors, CandidateEnvelope[] envelopes) {
    this.limit = limit;
    this.dim = dim;
    this.vectors = vectors;
    this.envelopes = envelopes;
  }

  /** Reads the head's vectors and candidate rows (driver: bounded, see above) and builds their envelopes. */
  static HeadRows load(SparkSession spark, PartitionedModel model, ExponentialMechanism mechanism) {
    return load(spark, model, mechanism, defaultWords(model));
  }

  /** With the head cut at {@code words} (tests use a small cut so both kinds of words occur). */
  static HeadRows load(SparkSession spark, PartitionedModel model, ExponentialMechanism mechanism, int words) {
    int limit = Math.min(model.size(), words);
    List<Row> rows = limit == 0 ? List.of() : spark.read().parquet(model.tablePath(mechanism.targetStart()))
        .select("rank", "neighbours", "distances", "bound").filter("rank < " + limit).collectAsList();
    return of(spark, model, mechanism, limit, rows);
  }

  /**
   * The head of a model whose rows are computed on demand: {@code rows} are the head words' rows the run
   * computed (those its input uses); a head word without one is never an input word of the run, so it
   * needs no envelope, only its vector.
   */
  static HeadRows onDemand(SparkSession spark, PartitionedModel model, ExponentialMechanism mechanism, int words,
      List<Row> rows) {
    return of(spark, model, mechanism, Math.min(model.size(), words), rows);
  }

  private static HeadRows of(SparkSession spark, PartitionedModel model, ExponentialMechanism mechanism, int limit,
      List<Row> rows) {
    int dim = model.dim();
    float[][] vectors = new float[limit][dim];
    CandidateEnvelope[] envelopes = new CandidateEnvelope[limit];
    if (limit > 0) {
      List<Row> vs = spark.read().parquet(model.vectorsPath()).select("rank", "vector")
          .filter("rank < " + limit).collectAsList();
      for (Row r : vs) {
        List<Float> v = r.getList(1);
        for (int d = 0; d < dim; d++) {
          vectors[r.getInt(0)][d] = v.get(d);
        }
      }
      for (Row r : rows) {
        int[] ns = r.<Integer>getList(1).stream().mapToInt(Integer::intValue).toArray();
        double[] ds = r.<Double>getList(2).stream().mapToDouble(Double::doubleValue).toArray();
        envelopes[r.getInt(0)] = mechanism.envelope(ns, ds, r.getDouble(3));
      }
    }
    return new HeadRows(limit, dim, vectors, envelopes);
  }

  /** The head's size for a model: {@link RowLengths#MIDDLE_WORDS} with tiered rows, else none. */
  static int defaultWords(PartitionedModel model) {
    return model.rowLengths().tiered() ? RowLengths.MIDDLE_WORDS : 0;
  }

  /** The vector of a head word (shared: callers must not modify it), or null for a word past the head. */
  float[] vector(int rank) {
    return rank < limit ? vectors[rank] : null;
  }

  CandidateEnvelope envelope(int rank) {
    return rank < limit ? envelopes[rank] : null;
  }
}
