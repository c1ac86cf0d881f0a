package dev.dptext.evaluation;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import dev.dptext.random.RowSeeder;
import dev.dptext.random.SecretKey;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;

/**
 * The papers' empirical privacy statistics, per word w of a vocabulary sample, over n runs of a
 * mechanism on w alone: N_w, how often w is output unchanged, and S_w, how many distinct words are
 * output (Feyisetan et al. 2020; Xu et al. 2020, 2021). A mechanism that keeps words often (high N_w)
 * and produces few distinct outputs (low S_w) protects them less at the same ε. S*_y, per output y,
 * counts the distinct sampled inputs that produced it.
 *
 * <p>The words are spread over Spark tasks (a {@code range} of sample positions, so that Spark Connect
 * sessions run it too); each word's n runs are one batch (one matrix product for
 * the embedding-noise mechanisms) seeded from the word and a public evaluation seed, so a re-run gives
 * the same table.
 */
public final class PrivacyStatistics {
  private PrivacyStatistics() {}

  /** Summary of one statistic over the sampled words. */
  public record Summary(double mean, double sd, double p5, double p50, double p95) implements Serializable {
    static Summary of(double[] values) {
      double[] v = values.clone();
      Arrays.sort(v);
      double mean = Arrays.stream(v).average().orElse(Double.NaN);
      double var = Arrays.stream(v).map(x -> (x - mean) * (x - mean)).sum() / Math.max(1, v.length - 1);
      return new Summary(mean, Math.sqrt(var), quantile(v, 0.05), quantile(v, 0.5), quantile(v, 0.95));
    }

    private static double quantile(double[] sorted, double q) {
      if (sorted.length == 0) {
        return Double.NaN;
      }
      double pos = q * (sorted.length - 1);
      int lo = (int) Math.floor(pos);
      int hi = Math.min(sorted.length - 1, lo + 1);
      return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }

    public String render() {
      return String.format(Locale.ROOT, "%.2f ± %.2f (%.0f / %.0f / %.0f)", mean, sd, p5, p50, p95);
    }
  }

  /**
   * N_w (as a percentage of runs) and S_w for one mechanism, and S*_y: for each output y, the number
   * of distinct sampled input words that produced y at least once (summarised over the outputs y). A
   * high S*_y means an output does not point back to one input.
   */
  public record Result(MechanismSpec spec, int words, int runs, Summary keptPercent, Summary distinctOutputs,
      Summary distinctInputs) implements Serializable {}

  /** One word's runs: N_w in percent and its distinct outputs. */
  private record WordRuns(double keptPercent, int[] outputs) implements Serializable {
    /** As a task's result row (a binary column crosses classic and Spark Connect sessions alike). */
    byte[] bytes() {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 + 4 * outputs.length).putDouble(keptPercent);
      for (int y : outputs) {
        b.putInt(y);
      }
      return b.array();
    }

    static WordRuns of(byte[] row) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(row);
      double kept = b.getDouble();
      int[] outputs = new int[(row.length - 8) / 4];
      for (int i = 0; i < outputs.length; i++) {
        outputs[i] = b.getInt();
      }
      return new WordRuns(kept, outputs);
    }
  }

  /**
   * Computes the statistics for {@code words} vocabulary words chosen evenly over the rank order
   * (every |V|/words-th word, so frequent and rare words are both represented).
   */
  public static Result compute(SparkSession spark, DpTextModel model, MechanismSpec spec, int words, int runs, long seed) {
    return compute(spark, EvaluationModel.of(model), spec, words, runs, seed);
  }

  /** As above, for a model that Spark Connect executors can load from its file ({@link EvaluationModel}). */
  public static Result compute(SparkSession spark, EvaluationModel evaluationModel, MechanismSpec spec, int words,
      int runs, long seed) {
    DpTextModel model = evaluationModel.model();
    int size = model.embeddings().size();
    if (words < 1 || words > size) {
      throw DpTextErrors.error("EVALUATION_WORDS_OUT_OF_RANGE", "size", size, "words", words);
    }
    if (runs < 1) {
      throw DpTextErrors.error("COUNT_TOO_SMALL", "option", "--runs", "value", runs);
    }
    WordMechanism mechanism = EvaluationTasks.onDriver(spark, evaluationModel, spec::build);
    Shipped<WordMechanism> shipped = EvaluationTasks.ship(spark, evaluationModel, "mechanism " + spec.toSpecString(),
        mechanism, spec::build);
    SecretKey evaluationKey = SecretKey.parse(
        java.util.HexFormat.of().formatHex(sha256("dptext/privacy-statistics/" + seed)), "evaluation seed " + seed);
    RowSeeder seeder = new RowSeeder(evaluationKey, "privacy-statistics/" + spec.describe());
    // Work item i is the sampled word i·|V|/words; each word's runs depend only on the word and the seed.
    List<WordRuns> runsPerWord = new ArrayList<>(words);
    try {
      List<byte[]> rows = spark.range(0, words, 1, Math.max(2, EvaluationTasks.parallelism(spark) * 2))
          .map((MapFunction<Long, byte[]>) i -> {
            int w = (int) (i * size / words);
            int[] in = new int[runs];
            Arrays.fill(in, w);
            int[] out = new int[runs];
            RandomStream r = seeder.streamFor(Integer.toString(w));
            shipped.get().sanitize(in, runs, r, out);
            int kept = 0;
            Set<Integer> distinct = new HashSet<>();
            for (int y : out) {
              kept += y == w ? 1 : 0;
              distinct.add(y);
            }
            return new WordRuns(100.0 * kept / runs, distinct.stream().mapToInt(Integer::intValue).toArray()).bytes();
          }, Encoders.BINARY()).collectAsList();
      for (byte[] row : rows) {
        runsPerWord.add(WordRuns.of(row));
      }
    } finally {
      shipped.release();
    }
    // S*_y: each word lists each of its outputs once, so counting outputs counts distinct inputs.
    java.util.Map<Integer, Long> inputsPerOutput = new java.util.HashMap<>();
    for (WordRuns r : runsPerWord) {
      for (int y : r.outputs()) {
        inputsPerOutput.merge(y, 1L, Long::sum);
      }
    }
    double[] kept = runsPerWord.stream().mapToDouble(WordRuns::keptPercent).toArray();
    double[] distinct = runsPerWord.stream().mapToDouble(r -> r.outputs().length).toArray();
    double[] inputs = inputsPerOutput.values().stream().mapToDouble(Long::doubleValue).toArray();
    return new Result(spec, words, runs, Summary.of(kept), Summary.of(distinct), Summary.of(inputs));
  }

  private static byte[] sha256(String s) {
    try {
      return java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
