package dev.dptext.evaluation;

import dev.dptext.classic.Classic;
import dev.dptext.embedding.EmbeddingWriter;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.EmbeddedDefault;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The figures {@link ConnectEvaluationTest} compares, computed the same way on whatever session it is
 * given: what tune, privacy-stats and calibrate compute (the tuner's every point, exact for SanText and
 * Monte Carlo for Vickrey; N_w/S_w/S*_y; exact and sampled privacy ratios, Euclidean and Hamming) for a
 * model given by file, and for models only in memory. Small, for the suite's time.
 */
final class EvaluationFigures {
  private EvaluationFigures() {}

  static final int WORDS = 600;
  static final int NEIGHBOURS = 16;

  /** The model file both sessions read: the embedded default's most frequent words. */
  static void writeModel(Path glove) {
    EmbeddingWriter.writeGlove(EmbeddedDefault.embeddings().topWords(WORDS), glove);
  }

  /** Every figure by name, in a fixed order. */
  static LinkedHashMap<String, Serializable> compute(SparkSession spark, Path glove) {
    LinkedHashMap<String, Serializable> out = new LinkedHashMap<>();
    EvaluationModel model = EvaluationModel.load(spark, glove.toString(), 0, NEIGHBOURS);
    for (String spec : List.of("santext:epsilon=5", "vickrey:epsilon=20,t=0.5")) {
      out.put("privacy-stats " + spec, PrivacyStatistics.compute(spark, model, MechanismSpec.parse(spec), 100, 50, 3));
    }
    int size = model.model().embeddings().size();
    int[] labels = new int[size];
    Arrays.fill(labels, -1);
    int[] words = new int[40];
    double[] prior = new double[words.length];
    for (int i = 0; i < words.length; i++) {
      words[i] = 7 * i;
      labels[words[i]] = i % 2;
      prior[i] = 1.0 / words.length;
    }
    for (String name : List.of("santext", "vickrey:t=0.5")) {
      Tuner.Outcome o = Tuner.tune(MechanismSpec.parse(name), s -> EmpiricalPrivacy.compute(spark, model, s, words, prior,
          labels, 200, 1), 0.3, 1, 64, List.of(0.5, 1.0), 1, line -> {});
      out.put("tune points " + name, new ArrayList<>(o.points()));
      out.put("tune choice " + name, o.choice().orElse(null));
    }
    for (String spec : List.of("laplace:epsilon=1", "brr:epsilon=1,bits=64")) {
      MechanismSpec s = MechanismSpec.parse(spec);
      out.put("privacy ratio " + spec, PrivacyRatio.of(spark, model, s));
      out.put("sampled privacy ratio " + spec, PrivacyRatio.sampled(spark, model, s, 300_000, 5));
    }
    MechanismSpec santext = MechanismSpec.parse("santext:epsilon=0.5");
    out.put("in memory: privacy-stats", PrivacyStatistics.compute(spark, PrivacyStatisticsTest.FIVE_WORDS, santext, 5,
        40, 7));
    out.put("in memory: empirical privacy", EmpiricalPrivacy.compute(spark, EmpiricalPrivacyTest.MODEL, santext,
        EmpiricalPrivacyTest.WORDS, EmpiricalPrivacyTest.PRIOR, EmpiricalPrivacyTest.LABELS, 500, 1, true));
    return out;
  }

  /** What the MLlib evaluations say on this session, given a table that does not exist (so: before reading). */
  static LinkedHashMap<String, Serializable> refusals(SparkSession spark, Path missing) {
    LinkedHashMap<String, Serializable> out = new LinkedHashMap<>();
    out.put("classic", Classic.is(spark));
    Dataset<Row> unread = spark.read().json(missing.toString());
    out.put("utility", outcome(() -> DownstreamUtility.fit(unread, "text")));
    out.put("mia", outcome(() -> MembershipInference.attackAuc(unread, new DownstreamUtility.Columns("text", "label",
        "id"), 1, 1, d -> d, (i, d) -> d)));
    return out;
  }

  private static String outcome(Runnable r) {
    try {
      r.run();
      return "no exception";
    } catch (RuntimeException e) {
      return e.getClass().getName() + ": " + e.getMessage();
    }
  }
}
