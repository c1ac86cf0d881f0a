package dev.dptext.evaluation;

import dev.dptext.errors.DpTextErrors;
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
 * With Monte Carlo, each word's n draws are counted (c_y: how often y came out) and the estimates use
 * all n draws: f̂(y|w) = c_y/n, and for the square in E_M the unbiased c_y(c_y − 1)/(n(n − 1)) rather
 * than f̂², whose expectation f² + f(1 − f)/n credits the adversary with every rarely drawn output as
 * if only its input produced it (the plug-in estimate of E_M is therefore biased low, strongly so when
 * the outputs spread over many words: at 100 draws per word a third of its value or more). What
 * remains is the bias of a ratio of unbiased sums, and for the mode adversary (the Bayes error) the
 * bias of a maximum of noisy estimates, which is low: in expectation the Bayes error estimate is a
 * lower bound. The standard errors come from {@value #BATCHES} independent batches of n/{@value #BATCHES}
 * draws each (batch means: the spread of the batch estimates over √{@value #BATCHES}).
 */
public final class EmpiricalPrivacy {
  private EmpiricalPrivacy() {}

  /** Independent batches of draws for the Monte Carlo standard error. */
  static final int BATCHES = 5;

  /** The fewest Monte Carlo draws per word: two per batch, so that c(c − 1)/(n(n − 1)) is defined. */
  public static final int MIN_DRAWS = 2 * BATCHES;

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
    if (words.length != prior.length || words.length == 0) { // built together by this package from a lexicon
      throw new IllegalStateException("one prior probability per evaluation word is needed, got "
          + prior.length + " for " + words.length + " words");
    }
    DpTextModel model = evaluationModel.model();
    int size = model.embeddings().size();
    if (labels.length != size) { // built by this package over the same model
      throw new IllegalStateException("labels must cover the vocabulary (" + size + "), got " + labels.length);
    }
    WordMechanism mechanism = EvaluationTasks.onDriver(spark, evaluationModel, spec::build);
    // Shipped before it is needed only where the driver could not build the mechanism: a task then tells whether
    // its distribution is exact.
    Shipped<WordMechanism> early = mechanism != null ? null
        : EvaluationTasks.ship(spark, evaluationModel, "mechanism " + spec.toSpecString(), null, spec::build);
    boolean exact = !monteCarlo && (mechanism != null ? mechanism instanceof ExactConditional
        : EvaluationTasks.probe(spark, early, m -> m instanceof ExactConditional));
    if (!exact && draws < MIN_DRAWS) {
      throw DpTextErrors.error("DRAWS_TOO_FEW", "min", MIN_DRAWS, "draws", draws);
    }
    Shipped<WordMechanism> shipped = early != null ? early
        : EvaluationTasks.ship(spark, evaluationModel, "mechanism " + spec.toSpecString(), mechanism, spec::build);
    RowSeeder seeder = new RowSeeder(EvaluationKeys.of("empirical-privacy", seed, 0), spec.toSpecString());
    // Monte Carlo: slots 0..BATCHES−1 hold the batches (for the standard error), slot BATCHES all draws.
    int batches = exact ? 1 : BATCHES;
    int slots = exact ? 1 : BATCHES + 1;
    int perBatch = exact ? 0 : draws / BATCHES;
    // Work item i is evaluation word i; range splits them into the same slices parallelize did.
    int partitions = Math.max(2, EvaluationTasks.parallelism(spark) * 2);
    List<byte[]> parts;
    try {
      parts = spark.range(0, words.length, 1, partitions).mapPartitions((MapPartitionsFunction<Long, byte[]>) it -> {
        if (!it.hasNext()) {
          return java.util.Collections.emptyIterator();
        }
        Sums s = new Sums(slots, size);
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
            int[] all = new int[size];
            for (int batch = 0; batch < batches; batch++) {
              m.sanitize(in, perBatch, r, out);
              int[] counts = new int[size];
              for (int y : out) {
                counts[y]++;
                all[y]++;
              }
              s.addCounts(batch, w, prior[i], counts, perBatch, labels);
            }
            s.addCounts(batches, w, prior[i], all, perBatch * batches, labels);
          }
        }
        return s.chunks().iterator();
      }, Encoders.BINARY()).collectAsList();
    } finally {
      shipped.release();
    }
    // Partition by partition in order, as the RDD reduce merged them when tasks finished in order.
    Sums total = new Sums(slots, size);
    for (byte[] chunk : parts) {
      total.addChunk(chunk);
    }
    double[] inference = new double[slots];
    double[] bayes = new double[slots];
    double[] loss = new double[slots];
    for (int slot = 0; slot < slots; slot++) {
      double kept = 0;
      double best = 0;
      for (int y = 0; y < size; y++) {
        if (total.sum[slot][y] > 0) {
          kept += total.squares[slot][y] / total.sum[slot][y];
          best += total.max[slot][y];
        }
      }
      inference[slot] = 1 - kept;
      bayes[slot] = 1 - best;
      loss[slot] = total.loss[slot];
    }
    if (exact) {
      return new Result(spec, inference[0], bayes[0], loss[0], 0, 0, 0, 0, true);
    }
    // The point estimates from all draws; their standard errors from the batches' spread.
    double[] ib = java.util.Arrays.copyOf(inference, batches);
    double[] bb = java.util.Arrays.copyOf(bayes, batches);
    double[] lb = java.util.Arrays.copyOf(loss, batches);
    return new Result(spec, inference[batches], bayes[batches], loss[batches], se(ib), se(bb), se(lb),
        perBatch * batches, false);
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

  /**
   * Per slot (a batch, or all draws) and output y: Σ_w a, Σ_w a² (with an unbiased estimate of f² when f is
   * sampled), max_w a with a = π(w)·f(y|w); and Σ_w π(w)·Σ_y f(y|w)·d_L.
   */
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

    /** Adds word w with its exact distribution f(·|w). */
    void add(int batch, int w, double prior, double[] f, int[] labels) {
      add(batch, w, prior, f, null, labels);
    }

    /**
     * Adds word w from {@code n} draws that gave output y {@code counts[y]} times: f̂ = c/n, and for the
     * squares the unbiased estimate c(c − 1)/(n(n − 1)) of f² (n ≥ 2).
     */
    void addCounts(int batch, int w, double prior, int[] counts, int n, int[] labels) {
      double[] f = new double[counts.length];
      double[] f2 = new double[counts.length];
      for (int y = 0; y < counts.length; y++) {
        if (counts[y] > 0) {
          f[y] = (double) counts[y] / n;
          f2[y] = (double) counts[y] * (counts[y] - 1) / ((double) n * (n - 1));
        }
      }
      add(batch, w, prior, f, f2, labels);
    }

    /** {@code f2}: an estimate of f(y|w)² per output, or null for f² (f exact). */
    private void add(int batch, int w, double prior, double[] f, double[] f2, int[] labels) {
      double changed = 0;
      for (int y = 0; y < f.length; y++) {
        if (f[y] == 0) {
          continue;
        }
        double a = prior * f[y];
        sum[batch][y] += a;
        squares[batch][y] += f2 == null ? a * a : prior * prior * f2[y];
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
