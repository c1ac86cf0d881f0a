package dev.dptext.evaluation;

import dev.dptext.mechanism.ExactConditional;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import dev.dptext.random.RowSeeder;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;

/**
 * Empirical privacy and utility loss of a mechanism on an evaluation vocabulary W (Xu et al. 2021,
 * §3.1), against an informed Bayesian adversary who knows the prior π over W and the mechanism:
 *
 * <ul>
 *   <li>f(y|w) = P[M(w) = y]: exact where the mechanism can state it ({@link ExactConditional}:
 *       SanText, SanText+), else estimated from n draws of the real sampler per word, each word's
 *       draws from its own stream of a public seed;
 *   <li>the posterior g(ŵ|y) = π(ŵ)·f(y|ŵ) / Σ_w π(w)·f(y|w) (Bayes' rule; the paper's equation 3
 *       swaps the arguments);
 *   <li>E_M = Σ_{w,y,ŵ} π(w)·f(y|w)·g(ŵ|y)·1{ŵ ≠ w} = 1 − Σ_y Σ_w (π(w)·f(y|w))² / Σ_w π(w)·f(y|w), the
 *       error of an adversary who guesses by sampling the posterior; and the error of the stronger
 *       one who guesses its mode, 1 − Σ_y max_w π(w)·f(y|w) (the Bayes error);
 *   <li>L_M = Σ_{w,y} π(w)·f(y|w)·d_L(w, y) with d_L(w, y) = 0 when y is a word of the lexicon with
 *       w's label and 1 otherwise (an output outside the lexicon counts as a changed label).
 * </ul>
 *
 * Inputs are the words of W; outputs range over the whole vocabulary. Words are spread over Spark
 * tasks (a {@code range} of word positions, so that Spark Connect sessions run it too); each task adds
 * its words' π(w)·f(y|w) into per-output sums (Σ, Σ², max), which the driver merges in partition order.
 * With Monte Carlo, the draws are split into {@value #BATCHES} independent batches and the standard error
 * is the spread of the batch estimates over √{@value #BATCHES} (a batch estimate from n/5 draws is itself
 * biased upward for E_M, so the error is indicative, not exact).
 */
public final class EmpiricalPrivacy {
  private EmpiricalPrivacy() {}

  /** Independent batches of draws for the Monte Carlo standard error. */
  static final int BATCHES = 5;

  /** E_M (sampling adversary), the mode adversary's error, L_M, their standard errors (0 when exact). */
  public record Result(MechanismSpec spec, double inferenceError, double bayesError, double utilityLoss,
      double inferenceErrorSe, double bayesErrorSe, double utilityLossSe, int draws, boolean exact)
      implements Serializable {}

  /**
   * The estimates for {@code spec} over the evaluation words {@code words} (vocabulary ranks) with
   * prior {@code prior} (same order, summing to 1) and word labels {@code labels} (−1: not in the
   * lexicon) for the whole vocabulary.
   *
   * @param draws Monte Carlo draws per word for mechanisms without an exact distribution
   */
  public static Result compute(SparkSession spark, DpTextModel model, MechanismSpec spec, int[] words,
      double[] prior, int[] labels, int draws, long seed) {
    return compute(spark, EvaluationModel.of(model), spec, words, prior, labels, draws, seed, false);
  }

  /** As above, for a model that Spark Connect executors can load from its file ({@link EvaluationModel}). */
  public static Result compute(SparkSession spark, EvaluationModel model, MechanismSpec spec, int[] words,
      double[] prior, int[] labels, int draws, long seed) {
    return compute(spark, model, spec, words, prior, labels, draws, seed, false);
  }

  /** As above; {@code monteCarlo} draws even where the exact distribution is known (to test the estimator). */
  static Result compute(SparkSession spark, DpTextModel model, MechanismSpec spec, int[] words,
      double[] prior, int[] labels, int draws, long seed, boolean monteCarlo) {
    return compute(spark, EvaluationModel.of(model), spec, words, prior, labels, draws, seed, monteCarlo);
  }

  static Result compute(SparkSession spark, EvaluationModel evaluationModel, MechanismSpec spec, int[] words,
      double[] prior, int[] labels, int draws, long seed, boolean monteCarlo) {
    if (words.length != prior.length || words.length == 0) {
      throw new IllegalArgumentException("one prior probability per evaluation word is needed, got "
          + prior.length + " for " + words.length + " words");
    }
    DpTextModel model = evaluationModel.model();
    int size = model.embeddings().size();
    if (labels.length != size) {
      throw new IllegalArgumentException("labels must cover the vocabulary (" + size + "), got " + labels.length);
    }
    WordMechanism mechanism = spec.build(model);
    boolean exact = mechanism instanceof ExactConditional && !monteCarlo;
    Shipped<WordMechanism> shipped = EvaluationTasks.ship(spark, evaluationModel, "mechanism " + spec.toSpecString(),
        mechanism, spec::build);
    RowSeeder seeder = new RowSeeder(EvaluationKeys.of("empirical-privacy", seed, 0), spec.toSpecString());
    int batches = exact ? 1 : BATCHES;
    int perBatch = exact ? 0 : Math.max(1, draws / BATCHES);
    // Work item i is evaluation word i; range splits them into the same slices parallelize did.
    int partitions = Math.max(2, EvaluationTasks.parallelism(spark) * 2);
    List<byte[]> parts;
    try {
      parts = spark.range(0, words.length, 1, partitions).mapPartitions((MapPartitionsFunction<Long, byte[]>) it -> {
        if (!it.hasNext()) {
          return java.util.Collections.emptyIterator();
        }
        Sums s = new Sums(batches, size);
        WordMechanism m = shipped.get();
        while (it.hasNext()) {
          int i = it.next().intValue();
          int w = words[i];
          if (exact && m instanceof ExactConditional e) {
            s.add(0, w, prior[i], e.conditional(w), labels);
          } else {
            RandomStream r = seeder.streamFor(Integer.toString(w));
            int[] in = new int[perBatch];
            java.util.Arrays.fill(in, w);
            int[] out = new int[perBatch];
            for (int batch = 0; batch < batches; batch++) {
              m.sanitize(in, perBatch, r, out);
              double[] f = new double[size];
              for (int y : out) {
                f[y] += 1.0 / perBatch;
              }
              s.add(batch, w, prior[i], f, labels);
            }
          }
        }
        return s.chunks().iterator();
      }, Encoders.BINARY()).collectAsList();
    } finally {
      shipped.release();
    }
    // Partition by partition in order, as the RDD reduce merged them when tasks finished in order.
    Sums total = new Sums(batches, size);
    for (byte[] chunk : parts) {
      total.addChunk(chunk);
    }
    double[] inference = new double[batches];
    double[] bayes = new double[batches];
    double[] loss = new double[batches];
    for (int batch = 0; batch < batches; batch++) {
      double kept = 0;
      double best = 0;
      for (int y = 0; y < size; y++) {
        if (total.sum[batch][y] > 0) {
          kept += total.squares[batch][y] / total.sum[batch][y];
          best += total.max[batch][y];
        }
      }
      inference[batch] = 1 - kept;
      bayes[batch] = 1 - best;
      loss[batch] = total.loss[batch];
    }
    return new Result(spec, mean(inference), mean(bayes), mean(loss), se(inference), se(bayes), se(loss),
        exact ? 0 : perBatch * batches, exact);
  }

  private static double mean(double[] v) {
    return java.util.Arrays.stream(v).average().orElse(Double.NaN);
  }

  /** The standard error of the mean of independent batch estimates; 0 for one (exact) value. */
  private static double se(double[] v) {
    if (v.length < 2) {
      return 0;
    }
    double m = mean(v);
    double ss = 0;
    for (double x : v) {
      ss += (x - m) * (x - m);
    }
    return Math.sqrt(ss / (v.length - 1) / v.length);
  }

  /** Per batch and output y: Σ_w a, Σ_w a², max_w a with a = π(w)·f(y|w); and Σ_w π(w)·Σ_y f(y|w)·d_L. */
  static final class Sums implements Serializable {
    private static final long serialVersionUID = 1L;

    final double[][] sum;
    final double[][] squares;
    final double[][] max;
    final double[] loss;

    /** Outputs per result row. */
    static final int CHUNK = 1 << 15;

    Sums(int batches, int size) {
      sum = new double[batches][size];
      squares = new double[batches][size];
      max = new double[batches][size];
      loss = new double[batches];
    }

    void add(int batch, int w, double prior, double[] f, int[] labels) {
      double changed = 0;
      for (int y = 0; y < f.length; y++) {
        if (f[y] == 0) {
          continue;
        }
        double a = prior * f[y];
        sum[batch][y] += a;
        squares[batch][y] += a * a;
        max[batch][y] = Math.max(max[batch][y], a);
        if (labels[y] < 0 || labels[y] != labels[w]) {
          changed += f[y];
        }
      }
      loss[batch] += prior * changed;
    }

    /**
     * The sums as result rows of at most {@value #CHUNK} outputs each (batch, first output, loss, then the
     * three sums): one row per partition would grow with the vocabulary (3 × 5 × |V| doubles) past what a
     * Spark Connect result batch comfortably holds.
     */
    List<byte[]> chunks() {
      List<byte[]> out = new ArrayList<>();
      for (int b = 0; b < sum.length; b++) {
        for (int from = 0; from < sum[b].length; from += CHUNK) {
          int n = Math.min(CHUNK, sum[b].length - from);
          ByteBuffer buf = ByteBuffer.allocate(8 + 8 + 3 * 8 * n);
          buf.putInt(b).putInt(from).putDouble(from == 0 ? loss[b] : 0);
          for (double[] column : new double[][] {sum[b], squares[b], max[b]}) {
            for (int y = from; y < from + n; y++) {
              buf.putDouble(column[y]);
            }
          }
          out.add(buf.array());
        }
      }
      return out;
    }

    /** Adds one row of {@link #chunks} (the same additions and maxima, element by element, as merging whole sums). */
    void addChunk(byte[] chunk) {
      ByteBuffer buf = ByteBuffer.wrap(chunk);
      int b = buf.getInt();
      int from = buf.getInt();
      loss[b] += buf.getDouble();
      int n = (chunk.length - 16) / 24;
      for (int y = from; y < from + n; y++) {
        sum[b][y] += buf.getDouble();
      }
      for (int y = from; y < from + n; y++) {
        squares[b][y] += buf.getDouble();
      }
      for (int y = from; y < from + n; y++) {
        max[b][y] = Math.max(max[b][y], buf.getDouble());
      }
    }
  }
}
